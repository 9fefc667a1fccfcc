"""partita serve over HTTP (no browser): the safety rules (loopback by default, a
warning for another host, CSP and other headers, CSRF on every POST, the Host
check, bounded requests, no file outside the static folder), the archive never
changed without --write, errors as JSON or pages with their reason, and the JSON
API's examples of docs/web.md."""

from __future__ import annotations

import hashlib
import html
import json
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from web_server import start_server

ROOT = Path(__file__).resolve().parent.parent


def fetch(url: str, *, data: bytes | None = None, headers: dict | None = None, method=None):
    """(status, headers, body text) of one request, errors included."""
    request = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers, answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode("utf-8")


def token(server) -> str:
    _, _, page = fetch(server.url + "/")
    return re.search(r'name="csrf-token" content="([0-9a-f]+)"', page).group(1)


def test_pages_carry_a_strict_content_security_policy(web_server):
    status, headers, page = fetch(web_server.url + "/")
    assert status == 200
    policy = headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "style-src 'self'" in policy and "default-src 'none'" in policy
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    # no inline script and no style attribute anywhere
    assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)", page)
    assert " style=" not in page
    assert '<meta name="viewport"' in page


@pytest.mark.parametrize(
    "path",
    ["/games/2", "/games/35?node=5", "/explorer?game=forceball", "/analysis?game=universal-forces",
     "/players?event=Family+table&crosstable=1", "/openings", "/balance", "/play",
     "/play/forceball", "/games/999999", "/static/game.js", "/games/2/board.svg?node=3",
     "/api/games/2", "/games/2.pgr", "/positions/board.svg?game=forceball"],
)  # fmt: skip
def test_every_response_carries_the_policy_and_no_page_inline_code(web_server, path):
    status, headers, page = fetch(web_server.url + path)
    assert status in (200, 404), (path, status)
    assert headers["content-security-policy"].startswith("default-src 'none'; script-src 'self'")
    assert headers["x-content-type-options"] == "nosniff"
    if headers["content-type"].startswith("text/html"):
        assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)", page)
        assert not re.search(r"<style|\sstyle=|\son[a-z]+=\"|javascript:", page), path


def test_a_post_without_the_csrf_token_is_refused(web_server):
    body = json.dumps({"game": "connect4", "kind": "agent"}).encode()
    status, _, text = fetch(web_server.url + "/api/analysis", data=body,
                            headers={"Content-Type": "application/json"})  # fmt: skip
    assert status == 403
    assert "CSRF" in json.loads(text)["error"]
    status, _, _ = fetch(web_server.url + "/api/analysis", data=body,
                         headers={"Content-Type": "application/json", "X-CSRF-Token": "0" * 64})  # fmt: skip
    assert status == 403


def test_a_request_for_another_host_is_refused_without_the_token(web_server):
    status, _, page = fetch(web_server.url + "/", headers={"Host": "evil.example:80"})
    assert status == 400
    assert "does not answer to the host" in page
    assert token(web_server) not in page


def test_request_bodies_are_bounded(web_server):
    """A body announced larger than 1 MB is refused before it is read."""
    import http.client
    from urllib.parse import urlsplit

    address = urlsplit(web_server.url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    connection.putrequest("POST", "/api/analysis")
    connection.putheader("Content-Type", "application/json")
    connection.putheader("X-CSRF-Token", token(web_server))
    connection.putheader("Content-Length", str(2_000_000))
    connection.endheaders()
    answer = connection.getresponse()
    assert answer.status == 413
    assert json.loads(answer.read())["error"] == "the request is too large"
    connection.close()


@pytest.mark.parametrize(
    "path",
    [
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/static/%2e%2e%2f%2e%2e%2fpyproject.toml",
    ],
)
def test_no_file_outside_the_static_folder_is_served(web_server, path):
    status, _, text = fetch(web_server.url + path)
    assert status == 404
    assert "create_app" not in text and "[project]" not in text


def test_errors_are_json_under_api_and_pages_elsewhere(web_server):
    status, headers, text = fetch(web_server.url + "/api/games/123456")
    assert status == 404
    assert json.loads(text) == {"error": "there is no game 123456 in the archive", "status": 404}
    status, _, text = fetch(web_server.url + "/api/games?sort=nothing")
    assert status == 400 and "cannot sort by 'nothing'" in json.loads(text)["error"]
    status, _, text = fetch(web_server.url + "/api/games?per_page=100000")
    assert status == 400 and "per_page must be between 1 and 500" in json.loads(text)["error"]
    status, headers, text = fetch(web_server.url + "/games/abc")
    assert status == 404 and headers["content-type"].startswith("text/html")
    assert "Traceback" not in text


def test_the_api_gives_query_s_rows_and_the_game(web_server):
    _, _, text = fetch(web_server.url + "/api/games?game=connect4&sort=plies&desc=1&per_page=3")
    data = json.loads(text)
    rows = data["games"]
    assert len(rows) == 3 and data["total"] >= 10 and data["page"] == 1
    assert [row["plies"] for row in rows] == sorted((row["plies"] for row in rows), reverse=True)
    assert set(rows[0]) >= {"id", "game", "players", "result", "plies", "status", "opening"}
    _, _, text = fetch(f"{web_server.url}/api/games/{rows[0]['id']}")
    game = json.loads(text)
    last = game["nodes"][game["mainline"][-1]]
    assert last["position"] == rows[0]["final_position"]


def test_an_invalid_record_shows_its_problems_and_stops_at_its_last_legal_move(web_server):
    _, _, text = fetch(web_server.url + "/api/games?game=forza4x4&per_page=500")
    invalid = [row for row in json.loads(text)["games"] if row["status"] == "invalid"]
    row = next(row for row in invalid if row["plies"] > 0)
    _, _, text = fetch(f"{web_server.url}/api/games/{row['id']}")
    game = json.loads(text)
    assert game["problems"] and all("line" in p and "column" in p for p in game["problems"])
    status, _, page = fetch(f"{web_server.url}/games/{row['id']}")
    assert status == 200
    assert "Problems" in page and "line " in page and "column " in page
    legal = [n for n in game["mainline"] if game["nodes"][n]["position"] is not None]
    last = game["nodes"][legal[-1]]["position"]
    assert f'aria-label="{last}"' in page.replace("&#39;", "'")


def test_the_archive_is_never_changed_without_write(web_server):
    """Every page read, a game played and a save asked: the archive's bytes are
    the same and no file appears beside it (no journal, no WAL)."""
    folder = sorted(path.name for path in web_server.db.parent.iterdir())
    before = hashlib.sha256(web_server.db.read_bytes()).hexdigest()
    _, _, text = fetch(web_server.url + "/api/games?per_page=500&sort=id")
    ids = [row["id"] for row in json.loads(text)["games"]][::20]
    paths = ["/", "/?game=connect4&position=7/7/7/7/7/7+x", "/players", "/openings", "/balance",
             "/explorer?game=connect4", "/explorer?game=forceball&tag=League=pro",
             "/analysis?game=connect4", "/play", "/play/connect4", "/api/games/1",
             "/api/tree?game=connect4", "/api/positions?game=connect4",
             *(f"/games/{game_id}" for game_id in ids), *(f"/games/{game_id}.pgr" for game_id in ids)]  # fmt: skip
    for path in paths:
        assert fetch(web_server.url + path)[0] == 200, path
    page_token = token(web_server)
    form = f"csrf_token={page_token}&seat1=human&seat2=human".encode()
    with urllib.request.urlopen(web_server.url + "/play/connect4", form, timeout=30) as answer:
        game = answer.geturl()  # the redirect to the new game, followed
    assert re.search(r"/play/connect4/[0-9a-f]+$", game)
    json_headers = {"X-CSRF-Token": page_token, "Content-Type": "application/json"}
    for path, body in (("/move", {"move": "t4"}), ("/claim", {"claim": "draw"}), ("/save", {})):
        status, _, text = fetch(game + path, data=json.dumps(body).encode(), headers=json_headers)
        assert status == 200, text
    assert "read-only" in json.loads(text)["message"]
    assert hashlib.sha256(web_server.db.read_bytes()).hexdigest() == before
    assert sorted(path.name for path in web_server.db.parent.iterdir()) == folder


def test_serve_binds_the_loopback_address_and_warns_for_another(web_archive):
    server = start_server(web_archive)
    try:
        assert server.url.startswith("http://127.0.0.1:")
    finally:
        server.stop()
    server = start_server(web_archive, "--host", "0.0.0.0")
    try:
        assert fetch(server.url.replace("0.0.0.0", "127.0.0.1") + "/")[0] == 200
    finally:
        server.stop()
        _, err = server.process.communicate()
    assert "WARNING: bound to 0.0.0.0" in err


def test_serve_without_an_archive_is_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "partita", "serve", "--db", str(tmp_path / "none.db")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert (
        done.stderr.startswith("partita: error: no archive at") and "Traceback" not in done.stderr
    )


def doc_requests() -> list[str]:
    page = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")
    return re.findall(r"^GET (\S+)$", page, flags=re.M)


def test_the_api_examples_of_the_docs_answer(web_server):
    """Each `GET /api/...` line of docs/web.md answers 200 with JSON on the examples."""
    paths = doc_requests()
    assert len(paths) >= 5
    for path in paths:
        status, headers, text = fetch(web_server.url + path)
        assert status == 200, (path, text)
        assert headers["content-type"] == "application/json"
        data = json.loads(text)
        assert data or path == "/api/analysis", path  # no job has run yet


def test_an_annotated_game_shows_its_evaluation_curve_and_marks(web_server):
    _, _, text = fetch(web_server.url + "/api/games?event=Annotated")
    [row] = json.loads(text)["games"]
    _, _, text = fetch(f"{web_server.url}/api/games/{row['id']}")
    game = json.loads(text)
    assert [entry["ply"] for entry in game["evals"]] == [0, 1, 2, 3, 4]
    assert game["evals"][3]["scores"] == [0.1, 0.9]
    status, _, page = fetch(f"{web_server.url}/games/{row['id']}")
    assert status == 200
    curve = page[page.index('<figure class="curve">') : page.index("</figure>")]
    assert curve.count("<polyline") == 2
    assert curve.count('class="mark-line blunder"') == 1
    moves = page[page.index('id="moves"') : page.index("</div>", page.index('id="moves"'))]
    assert "[%eval" not in moves and "t4 was better: 0.55" in moves
    assert 'title="blunder"' in moves


def asgi_get(app, path: str) -> list[dict]:
    """The ASGI messages ``app`` sends for a GET of ``path``, called in-process."""
    import asyncio

    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
             "query_string": b"", "headers": [(b"host", b"127.0.0.1")], "scheme": "http",
             "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1), "root_path": "",
             "http_version": "1.1", "asgi": {"version": "3.0"}}  # fmt: skip
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent


def test_a_bug_is_one_line_and_a_500_page_never_a_traceback(web_archive, capfd):
    """A handler that raises: the answer names the error, the server's stderr has one
    line, no traceback anywhere (the app called in-process, through ASGI)."""

    from starlette.routing import Route

    from partita.web.app import create_app

    def broken(request):
        raise RuntimeError("boom")

    app = create_app(web_archive)
    app.router.routes.insert(0, Route("/api/broken", broken))
    app.router.routes.insert(0, Route("/broken", broken))
    answers = {}
    for path in ("/api/broken", "/broken"):
        sent = asgi_get(app, path)
        answers[path] = (sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:]))
    assert answers["/api/broken"][0] == 500
    assert json.loads(answers["/api/broken"][1])["error"] == (
        "internal error: RuntimeError: boom (please report it)"
    )
    assert answers["/broken"][0] == 500 and b"RuntimeError: boom" in answers["/broken"][1]
    err = capfd.readouterr().err
    assert err.count("partita: internal error: RuntimeError: boom") == 2
    assert "Traceback" not in err and b"Traceback" not in answers["/broken"][1]


def test_a_position_s_board_rings_a_hinted_move(web_server):
    status, headers, plain = fetch(web_server.url + "/positions/board.svg?game=connect4")
    assert status == 200 and headers["content-type"].startswith("image/svg+xml")
    status, _, hinted = fetch(web_server.url + "/positions/board.svg?game=connect4&hint=t4")
    assert status == 200 and hinted != plain  # the cells of t4 are ringed
    status, _, text = fetch(web_server.url + "/positions/board.svg?game=connect4&hint=t9")
    assert status == 400 and "hint 't9'" in html.unescape(text)


def test_every_count_of_the_explorer_links_to_its_games(web_server):
    """A move's games, and its won, drawn, lost and unfinished counts, each list as
    many games as they say."""
    _, _, page = fetch(web_server.url + "/explorer?game=connect4")
    body = page[page.index("<tbody>") : page.index("</tbody>")]
    for row in body.split("</tr>")[:3]:
        if "<td" not in row:
            continue
        links = [
            (html.unescape(href), html.unescape(text))
            for href, text in re.findall(r'<a[^>]* href="([^"]*)"[^>]*>([^<]*)</a>', row)
        ]
        counts = [(href, text) for href, text in links if href.startswith("/?")]
        games = int(counts[0][1])
        outcomes = 0
        for href, text in counts:
            _, _, answer = fetch(web_server.url + href.replace("/?", "/api/games?", 1))
            total = json.loads(answer)["total"]
            assert total == int(text.split()[0]), (href, text)
            if "result=" in href:
                outcomes += total
        assert outcomes == games


def test_an_analysis_beyond_the_server_s_budgets_is_refused_before_it_runs(web_server):
    """Too many playouts, an agent without scores, too long a budget: a 400 with
    the reason, and no job started."""
    headers = {"Content-Type": "application/json", "X-CSRF-Token": token(web_server)}
    _, _, before = fetch(web_server.url + "/api/analysis")
    for asked, reason in (
        ({"agent": "mcts:999999999"}, "at most 200,000 playouts here (asked 999,999,999)"),
        ({"agent": "random"}, "gives no scores"),
        ({"agent": "mcts:200,workers=2"}, "the server searches in its own process"),
        ({"agent": "mcts:200", "seconds": 61}, "seconds must be between 0.1 and 60"),
    ):
        body = json.dumps({"game": "connect4", "kind": "agent", **asked}).encode()
        status, _, text = fetch(web_server.url + "/api/analysis", data=body, headers=headers)
        assert status == 400, text
        assert reason in json.loads(text)["error"]
    _, _, after = fetch(web_server.url + "/api/analysis")
    assert json.loads(after) == json.loads(before)


def test_the_explorer_marks_its_set_up_however_the_url_spells_it(web_server):
    """The default league named in the URL or left out: one set-up, marked as the
    one shown, and listed with the setting that tells it from the others."""
    for query in ("game=forceball", "game=forceball&tag=League=pro"):
        _, _, page = fetch(f"{web_server.url}/explorer?{query}")
        configs = page[page.index('class="configs"') : page.index("</p>", page.index("configs"))]
        chosen = re.findall(r'class="chosen">([^<]*)</a>', configs)
        assert chosen == ["2 sides, League pro (1)"], (query, configs)
        assert "2 sides, League junior (1)" in configs
        assert '<p class="meta">forceball · 2 sides, League pro · 1 game reaches' in page


def test_a_record_that_cannot_be_replayed_says_so_on_its_board(web_server):
    """No legal start (an unknown game): the board's image is named by the reason,
    not left without a name."""
    _, _, text = fetch(web_server.url + "/api/games?event=unknown+game")
    [row] = json.loads(text)["games"]
    status, _, page = fetch(f"{web_server.url}/games/{row['id']}")
    assert status == 200
    assert 'role="img" aria-label="No board: this record cannot be replayed"' in page


@pytest.mark.parametrize(
    "query",
    [
        "game=universal-forces&sides=3",
        "game=universal-forces&sides=4",
        "game=circular-reasoning&sides=4",
        "game=circular-reasoning&event=Home-made+board",
        "game=forceball&tag=League=junior",
    ],
)
def test_a_record_s_own_configuration_draws_its_board(web_server, query):
    """A record with other sides or settings (a league, a home-made layout): its
    game page and the explorer of its set-up name and draw the start under that
    configuration, as the game's own notation writes it."""
    from partita.game.registry import get_game

    _, _, text = fetch(f"{web_server.url}/api/games?{query}&status=valid&sort=id")
    row = next(row for row in json.loads(text)["games"] if row["status"] == "valid")
    _, _, text = fetch(f"{web_server.url}/api/games/{row['id']}")
    game = json.loads(text)
    notation = get_game(game["game"]).configure(game["settings"])
    start = notation.format_position(notation.initial(game["sides"]))
    assert game["nodes"][0]["position"] == start
    _, _, page = fetch(f"{web_server.url}/games/{row['id']}")
    assert html.unescape(re.search(r'id="board" role="img" aria-label="([^"]*)"', page)[1]) == start
    _, _, svg = fetch(f"{web_server.url}/games/{row['id']}/board.svg?node=0")
    assert html.unescape(re.search(r"<title>([^<]*)</title>", svg)[1]) == start
    if "Layout" in game["settings"]:  # a home-made board: not the default's
        defaults = get_game(game["game"]).configure({})
        assert start != defaults.format_position(defaults.initial(game["sides"]))
    tags = "".join(
        "&" + urllib.parse.urlencode({"tag": f"{name}={value}"})
        for name, value in game["settings"].items()
    )
    _, _, page = fetch(f"{web_server.url}/explorer?game={game['game']}&sides={game['sides']}{tags}")
    assert (
        html.unescape(re.search(r'class="board" role="img" aria-label="([^"]*)"', page)[1]) == start
    )
    assert 'class="chosen"' in page


def test_the_explorer_says_which_games_it_is_narrowed_to(web_server):
    """A player or event filter (a link from the players page) is said on the page,
    as text (a hostile name included), with a link back to all the games."""
    from report_archives import HOSTILE

    query = urllib.parse.urlencode({"game": "forza4x4", "player": HOSTILE, "event": "Escaping"})
    status, _, page = fetch(f"{web_server.url}/explorer?{query}")
    assert status == 200
    down = html.unescape(re.search(r'<a class="down" href="([^"]+)">', page)[1])
    status, _, page = fetch(web_server.url + down)  # a level down: a position in the URL
    assert status == 200, page
    note = page[page.index('<p class="note">') : page.index("</p>", page.index('class="note"'))]
    assert f"player {html.escape(HOSTILE, quote=False)}; event Escaping" in note
    assert HOSTILE not in page
    back = html.unescape(re.search(r'href="([^"]*)">all games</a>', note)[1])
    assert "player=" not in back and "event=" not in back
    _, _, everything = fetch(web_server.url + back)
    assert 'class="note"' not in everything


def test_the_explorer_opens_on_the_game_the_archive_holds_most_of(web_server):
    """/explorer with no game shows a tree at once (the archive's most played game),
    not an empty form."""
    import sqlite3

    conn = sqlite3.connect(f"file:{web_server.db}?mode=ro", uri=True)
    try:
        counts = dict(conn.execute("SELECT game, count(*) FROM games GROUP BY game"))
    finally:
        conn.close()
    most = max(counts, key=lambda name: counts[name])
    status, _, page = fetch(web_server.url + "/explorer")
    assert status == 200
    assert "Moves from here" in page and f"{most} ·" in page


def test_a_request_opens_the_archive_once_read_only_and_closes_it(web_archive):
    """The pages of one request share one archive, open for reading; it is closed
    when the answer has been sent (the app called in-process, through ASGI)."""
    import sqlite3

    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from partita.database import count_games
    from partita.web.app import create_app, request_archive

    seen = []

    def counting(request):
        seen.append(request_archive(request))
        seen.append(request_archive(request))
        return PlainTextResponse(str(count_games(seen[0])))

    app = create_app(web_archive)
    app.router.routes.insert(0, Route("/counting", counting))
    sent = asgi_get(app, "/counting")
    assert sent[0]["status"] == 200 and int(sent[1]["body"]) > 0
    assert seen[0] is seen[1] and seen[0].readonly
    with pytest.raises(sqlite3.ProgrammingError):  # closed with the request
        seen[0].execute("SELECT 1")
