"""The play page over HTTP (`partita serve` on the examples' archive, read-only):
starting a game checks its configuration and the agents' budgets, a refused move
carries the message `validate` gives, posts need the CSRF token, and a read-only
archive refuses to store a game."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request

from cli_runner import run_cli


class _Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def request(url: str, data: bytes | None = None, headers: dict | None = None):
    """(status, headers, body) of one request; redirects are not followed."""
    opener = urllib.request.build_opener(_Stay)
    try:
        with opener.open(
            urllib.request.Request(url, data=data, headers=headers or {}), timeout=30
        ) as answer:
            return answer.status, answer.headers, answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode("utf-8")


def form_token(server, game: str) -> str:
    _, _, page = request(f"{server.url}/play/{game}")
    return re.search(r'name="csrf_token" value="([0-9a-f]+)"', page).group(1)


def start(server, game: str, **fields: str) -> tuple[int, str, str]:
    token = form_token(server, game)
    data = urllib.parse.urlencode({"csrf_token": token, **fields}).encode()
    status, headers, body = request(f"{server.url}/play/{game}", data)
    return status, headers.get("location") or "", body


def post(server, path: str, data: dict, token: str) -> dict:
    headers = {"X-CSRF-Token": token, "Content-Type": "application/json"}
    status, _, body = request(server.url + path, json.dumps(data).encode(), headers)
    assert status == 200, body
    return json.loads(body)


def test_the_games_are_listed_with_their_new_game_forms(web_server):
    status, _, page = request(web_server.url + "/play")
    assert status == 200
    for name in ("connect4", "forza4x4", "universal-forces", "circular-reasoning", "forceball"):
        assert f'href="/play/{name}"' in page
    _, _, form = request(web_server.url + "/play/forceball")
    assert 'name="tag_League"' in form and "Open table" in form
    status, _, _ = request(web_server.url + "/play/no-such-game")
    assert status == 404


def test_a_refused_move_says_what_validate_says(web_server, tmp_path):
    position = "x6/o6/x6/o6/x6/o6 x"
    status, location, body = start(web_server, "connect4", seat1="human", seat2="human",
                                   position=position)  # fmt: skip
    assert status == 303, body
    token = form_token(web_server, "connect4")
    state = post(web_server, location + "/move", {"regions": ["t1"]}, token)
    record = tmp_path / "game.pgr"
    record.write_text(
        f'[Game "connect4"]\n[SetUp "1"]\n[Position "{position}"]\n[Result "*"]\n\nt1 *\n',
        encoding="utf-8",
    )
    (checked,) = [
        json.loads(line)
        for line in run_cli(["validate", "--json", str(record)]).stdout.splitlines()
    ]
    assert state["refused"] and state["message"] == checked["problems"][0]["message"]
    assert state["plies"] == []
    # a legal click plays, each legal move with the regions it is clicked as
    assert {"move": "t2", "regions": ["t2"]} in state["legal"]
    state = post(web_server, location + "/move", {"regions": ["t2"]}, token)
    assert not state["refused"] and [ply["move"] for ply in state["plies"]] == ["t2"]
    assert state["position"] == "x6/o6/x6/o6/x6/ox5 o"
    state = post(web_server, location + "/undo", {}, token)
    assert state["plies"] == []


def test_a_configuration_and_agents_out_of_bounds_are_refused(web_server):
    status, _, body = start(web_server, "connect4", seat2="mcts:999999999")
    assert status == 400 and "at most" in body and "playouts a move here" in body
    status, _, body = start(web_server, "connect4", seat2="mcts:200,workers=2")
    assert status == 400 and "the server searches in its own process" in body
    status, _, body = start(web_server, "connect4", position="x8 x")
    assert status == 400 and "New game of Connect Four" in body
    status, _, body = start(web_server, "universal-forces", tag_Level="masters")
    assert status == 400 and "masters" in body
    # the game's own tags configure the game (and the record)
    token = form_token(web_server, "circular-reasoning")
    status, location, _ = start(web_server, "circular-reasoning", tag_Variant="advanced",
                                seat1="human", seat2="human")  # fmt: skip
    assert status == 303
    state = post(web_server, location + "/claim", {"claim": "*"}, token)
    assert '[Variant "advanced"]' in state["record"]


def test_posts_need_the_token_and_a_read_only_archive_keeps_no_game(web_server):
    data = urllib.parse.urlencode({"seat1": "human", "seat2": "human"}).encode()
    status, _, _ = request(web_server.url + "/play/connect4", data)
    assert status == 403
    status, location, _ = start(web_server, "connect4", seat1="human", seat2="human")
    token = form_token(web_server, "connect4")
    status, _, _ = request(web_server.url + location + "/move", b'{"move": "t4"}',
                           {"Content-Type": "application/json"})  # fmt: skip
    assert status == 403
    state = post(web_server, location + "/save", {}, token)
    assert state["refused"] and "read-only" in state["message"] and not state["saved"]
    state = post(web_server, location + "/claim", {"claim": "draw"}, token)
    assert state["over"] and state["ending"] == "1/2-1/2: agreement"
    assert state["record"].rstrip().endswith("1/2-1/2")


def test_a_body_that_is_no_json_object_is_refused_and_changes_nothing(web_server):
    """A malformed body (or an empty claim) is refused with its reason; the game
    is as it was."""
    status, location, _ = start(web_server, "connect4", seat1="human", seat2="human")
    assert status == 303
    token = form_token(web_server, "connect4")
    headers = {"X-CSRF-Token": token, "Content-Type": "application/json"}
    for path in ("/move", "/claim", "/comment", "/undo"):
        for body in (b"{bad", b"[1, 2]", b'"t4"'):
            status, headers_, text = request(web_server.url + location + path, body, headers)
            assert status == 400, (path, body, text)
            assert headers_["content-type"] == "application/json"
            assert json.loads(text)["error"].startswith("the body is not a JSON object")
    state = post(web_server, location + "/claim", {}, token)
    assert state["refused"] and state["message"].startswith("which result?")
    assert not state["over"] and state["plies"] == []
