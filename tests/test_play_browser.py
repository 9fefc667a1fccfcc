"""The play page in a real browser (Playwright driving Debian's Chromium, see
tests/web_server.py), for every built-in game: a new game started from the form,
legal moves played by clicking the board and from the list of legal moves, an
illegal click refused with the rules' reason, an agent's answer, the game saved
with --write and found by `partita query`; a hidden hand never on the page; no
console errors, no horizontal overflow at 390 px. Screenshots go to
$PARTITA_SCREENSHOTS when it is set."""

from __future__ import annotations

import json
import random
import re
import urllib.request
from pathlib import Path

import pytest
from cli_runner import run_cli
from web_server import no_console_errors, no_horizontal_overflow, phone, screenshot, start_server

from partita.analysis.diagrams import board_for
from partita.database.schema import archive
from partita.errors import IllegalMoveError
from partita.game.registry import all_specs, get_game

BUILT_IN = [spec.name for spec in all_specs() if spec.game.__module__.startswith("partita.games.")]
#: Start positions with a full column (or an occupied entry cell) to click.
STARTS = {"connect4": "x6/o6/x6/o6/x6/o6 x", "forza4x4": "x7/8/8/8/8/8/8/7o x"}
#: The clicks of an illegal attempt, where the game's start gives one.
ILLEGAL = {
    "connect4": ["t1"],
    "forza4x4": ["t1"],
    "universal-forces": ["reserve:G", "O1:10"],
    "circular-reasoning": ["token:C", "I9"],
}


@pytest.fixture(scope="module")
def play_server(tmp_path_factory):
    from partita.bulk import import_paths

    db = tmp_path_factory.mktemp("play") / "archive.db"
    with archive(db) as opened:
        import_paths(opened, [])
    server = start_server(db, "--write")
    yield server
    server.stop()


def state_of(page, server) -> dict:
    base = page.locator("#play").get_attribute("data-base")
    with urllib.request.urlopen(server.url + base + "/state", timeout=30) as answer:
        return json.loads(answer.read().decode("utf-8"))


def my_turn(page, server, plies: int = -1, timeout: float = 60_000) -> dict:
    """Wait until the person (Player1) is to move, with more than ``plies`` played;
    the state then. Where an agent's turn asks him first (the answer to raised
    stakes, his reward as the attack's winner), he takes the first choice listed."""
    while True:
        page.wait_for_function(
            "([plies]) => { const s = (document.querySelector('#play-status')?.textContent ?? '');"
            " return s.includes('Player1 (Human), your choice') || (s.includes("
            "'Player1 (Human) to move') && document.querySelectorAll('#played li').length"
            " > plies); }",
            arg=[plies],
            timeout=timeout,
        )
        status = page.locator("#play-status").text_content() or ""
        if "your choice" not in status:
            return state_of(page, server)
        buttons = page.get_by_role("region", name="Legal moves").get_by_role("button")
        assert buttons.count() > 1
        buttons.first.click()
        page.wait_for_function(
            "([asked]) => (document.querySelector('#play-status')?.textContent ?? '') !== asked"
            " || (document.querySelector('#play-message')?.textContent ?? '').length > 0",
            arg=[status],
            timeout=timeout,
        )
        assert not page.locator("#play-message").text_content()


def start(page, server, game: str) -> None:
    page.goto(server.url + "/play")
    page.get_by_role("link", name=get_game(game).rules.title, exact=True).click()
    assert page.url.endswith(f"/play/{game}")
    page.get_by_label("Who plays Player2").select_option("random")
    if game in STARTS:
        page.get_by_label("Start position").fill(STARTS[game])
    screenshot(page, f"play-{game}-new")
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_load_state()
    assert re.search(rf"/play/{game}/[0-9a-f]+$", page.url)


def click_regions(page, regions) -> None:
    for region in regions:
        page.locator(f'#board [data-region="{region}"]').click()


def a_move_to_click(state: dict) -> dict:
    """A legal move that clicks complete: no other legal move begins with its clicks."""
    clicked = [m for m in state["legal"] if m["regions"]]
    for candidate in clicked:
        regions = candidate["regions"]
        if not any(
            other is not candidate and other["regions"][: len(regions)] == regions
            for other in clicked
        ):
            return candidate
    raise AssertionError("no legal move clicks complete")


def an_illegal_click(game: str, state: dict) -> list[str]:
    """Two clicks no legal move begins with, the first one a move begins with."""
    if game in ILLEGAL:
        return ILLEGAL[game]
    # Forceball: a maneuver with a card of the hand that cannot make one now
    starts = {tuple(m["regions"][:2]) for m in state["legal"] if len(m["regions"]) >= 2}
    cards = re.findall(r'data-region="(card:[^"]+)"', state["svg"])
    for card in cards:
        if ("act:@", card) not in starts:
            return ["act:@", card]
    return ["act:+", "act:@"]


def expected_reason(game: str, state: dict, clicks: list[str]) -> str | None:
    """The rules' reason for the clicks' move (games whose position notation reads)."""
    if get_game(game).rules.hidden_information:
        return None
    notation = get_game(game)
    position = notation.parse_position(state["position"])
    text = board_for(notation).move_text(position, clicks)
    with pytest.raises(IllegalMoveError) as refused:
        notation.parse_move(position, text)
    return str(refused.value)


def played_as(clicked: str, played: str) -> bool:
    """Whether ``played`` is the move ``clicked`` with the agent's own choices in it:
    as clicked, or after a Forceball ``/`` the agent's Lucky shot or Goalie and
    reward as the attack's winner, or its decline of the raised stakes (``*n``)."""
    if played == clicked:
        return True
    if clicked.endswith("/") and played.startswith(clicked):
        return True
    return "*y" in clicked and played == clicked[: clicked.index("*y")] + "*n"


@pytest.mark.parametrize("game", BUILT_IN)
def test_a_new_game_is_played_by_clicks_and_the_list_and_saved(play_server, page, game):
    start(page, play_server, game)
    board = page.locator("#board")
    state = my_turn(page, play_server)
    assert board.get_attribute("role") == "img"
    assert board.get_attribute("aria-label") == state["position"]
    assert state["legal"] and state["clickable"]
    # an illegal click: refused with the rules' reason, nothing played
    clicks = an_illegal_click(game, state)
    click_regions(page, clicks)
    message = page.locator("#play-message")
    message.filter(has_text="illegal move").wait_for()
    reason = expected_reason(game, state, clicks)
    if reason is not None:
        assert message.inner_text() == reason
    assert len(state_of(page, play_server)["plies"]) == len(state["plies"])
    # a legal move by clicking the board; the agent answers
    chosen = a_move_to_click(state)
    click_regions(page, chosen["regions"])
    after = my_turn(page, play_server, len(state["plies"]))
    mine = [ply for ply in after["plies"] if ply["who"] == "Player1 (Human)"]
    assert mine and played_as(chosen["move"], mine[-1]["move"]), (chosen, mine[-1])
    assert any(ply["who"] == "Player2 (random)" for ply in after["plies"][len(state["plies"]) :])
    assert board.get_attribute("aria-label") == after["position"]
    screenshot(page, f"play-{game}-desktop")
    # a legal move from the list of legal moves
    listed = page.get_by_role("region", name="Legal moves")
    token = after["legal"][0]["move"]
    listed.get_by_role("button", name=token, exact=True).click()
    again = my_turn(page, play_server, len(after["plies"]))
    mine = [ply["move"] for ply in again["plies"] if ply["who"] == "Player1 (Human)"]
    assert played_as(token, mine[-1]), (token, mine[-1])
    # a comment, then saved into the archive and found by `partita query`
    page.get_by_label("Comment on the last move").fill("played on the page")
    page.get_by_role("button", name="Comment").click()
    page.locator("ol.played .comment", has_text="played on the page").wait_for()
    page.get_by_role("button", name="Save to the archive").click()
    page.locator("#saved", has_text="saved in the archive").wait_for()
    found = run_cli(["query", "--db", str(play_server.db), "--game", game, "--nl"])
    rows = [json.loads(line) for line in found.stdout.splitlines()]
    assert any(row["players"] == ["Human", "random"] for row in rows), rows
    phone(page)
    page.reload()
    no_horizontal_overflow(page)
    screenshot(page, f"play-{game}-phone")
    no_console_errors(page)


def test_a_hidden_hand_never_reaches_the_page(play_server, page):
    """Forceball against an agent: after each of the person's turns no card of the
    agent's hand is on the page; the record shown at the end says which they were."""
    start(page, play_server, "forceball")
    pages = []
    plies = -1
    for _ in range(4):
        state = my_turn(page, play_server, plies)
        plies = len(state["plies"])
        pages.append((plies, page.content()))
        page.get_by_role("region", name="Legal moves").get_by_role("button").first.click()
    my_turn(page, play_server, plies)
    page.get_by_label("Claim a result").select_option("1/2-1/2")
    page.get_by_role("button", name="Claim").click()
    record = page.locator("#record-text")
    page.wait_for_function("() => document.querySelector('#record-text').value.length > 0")
    text = record.input_value()
    from partita.notation.reader import parse_record
    from partita.notation.replay import replay

    replayed = replay(parse_record(text), strict=True)
    game = get_game("forceball")
    states = [game.initial()]
    for token in replayed.moves:
        states.append(game.rules.apply(states[-1], game.parse_move(states[-1], token)))
    for plies, html in pages:
        hand = states[plies].hands[1]
        for card in hand:
            card_id = game.rules.ids[card]
            pattern = rf"(?<![\w.]){re.escape(card_id)}(?![\w]|\.\d)"
            found = re.search(pattern, html)
            assert not found, (card_id, plies, html[found.start() - 300 : found.end() + 100])
    no_console_errors(page)


def test_the_person_answers_within_the_agents_turn_from_the_list(play_server, page):
    """Forceball against an agent: when the agent's turn holds the person's choice
    (his reward as the winner of the attack, his answer to raised stakes), the page
    says so and lists his choices; the one he clicks is in the agent's turn."""
    start(page, play_server, "forceball")
    legal = page.get_by_role("region", name="Legal moves")
    # The person plays turns drawn from his list (a seeded draw: the first one
    # listed may never attack, and an agent that is not attacked rarely asks).
    rng = random.Random(7)
    for _ in range(60):
        page.wait_for_function(
            "() => { const s = (document.querySelector('#play-status')?.textContent ?? '');"
            " return s.includes('your choice') || s.includes('Player1 (Human) to move'); }",
            timeout=60_000,
        )
        status = page.locator("#play-status").text_content() or ""
        if "your choice" in status:
            break
        plies = len(state_of(page, play_server)["plies"])
        buttons = legal.get_by_role("button")
        buttons.nth(rng.randrange(buttons.count())).click()
        page.wait_for_function(
            "([plies]) => document.querySelectorAll('#played li').length > plies"
            " || (document.querySelector('#play-message')?.textContent ?? '').length > 0",
            arg=[plies],
        )
        assert not page.locator("#play-message").text_content()
    else:
        pytest.fail("the agent's turns never asked the person")
    assert "Player2 (random) plays " in status
    phone(page)  # the question and the choices fit a phone's width
    no_horizontal_overflow(page)
    screenshot(page, "play-forceball-asked-phone")
    state = state_of(page, play_server)
    assert state["turn"]["kind"] == "answer" and not state["clickable"]
    choices = [item["move"] for item in state["legal"]]
    assert len(choices) > 1 and all(choice in status for choice in choices)
    chosen = choices[-1]
    plies = len(state["plies"])
    legal.get_by_role("button", name=chosen, exact=True).click()
    page.wait_for_function(
        "([plies]) => document.querySelectorAll('#played li').length > plies"
        " || (document.querySelector('#play-status')?.textContent ?? '').includes('your choice')",
        arg=[plies],
    )
    after = state_of(page, play_server)
    if len(after["plies"]) > plies:
        played = after["plies"][plies]["move"]
        assert chosen in played or (chosen == "/" and played.endswith("/")), (chosen, played)
    no_console_errors(page)


def test_a_plugin_game_without_regions_would_play_through_its_list():
    """A board that declares no regions: the page offers its legal moves as a list
    (the regions' default), as for the plugin guide's game."""
    from partita.analysis.diagrams import Board, TextBoard

    assert TextBoard.regions is Board.regions
    assert Path(__file__).with_name("test_plugin_guide.py").is_file()


def test_hostile_names_and_comments_are_shown_as_text(play_server, page):
    """Names and a comment full of markup, typed by the people at the table, are
    text on the page (status, moves played, record), never markup."""
    from report_archives import HOSTILE

    image = "<img src=x onerror=alert(2)>"
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(play_server.url + "/play/connect4")
    page.get_by_label("Who plays Player2").select_option("human")
    page.get_by_label("Name of Player1").fill(HOSTILE)
    page.get_by_label("Name of Player2").fill(image)
    page.get_by_role("button", name="Start the game").click()
    status = page.locator("#play-status")
    assert status.inner_text() == f"1. Player1 ({HOSTILE}) to move"
    page.get_by_role("region", name="Legal moves").get_by_role("button", name="t4").click()
    page.locator("#played li").first.wait_for()
    assert page.locator("#played li").first.inner_text() == f"1. t4 (Player1 ({HOSTILE}))"
    assert status.inner_text() == f"1... Player2 ({image}) to move"
    page.get_by_label("Comment on the last move").fill(f"a {image} and <b>bold</b>")
    page.get_by_role("button", name="Comment").click()
    comment = page.locator("ol.played .comment")
    comment.wait_for()
    assert comment.inner_text() == f"a {image} and <b>bold</b>"
    page.get_by_label("Claim a result").select_option("draw")
    page.get_by_role("button", name="Claim").click()
    page.wait_for_function("() => document.querySelector('#record-text').value.length > 0")
    assert f'[Player1 "{HOSTILE}"]' in page.locator("#record-text").input_value()
    assert page.locator("#play img, #play b, main script").count() == 0
    assert dialogs == []
    no_console_errors(page)


def test_a_game_is_played_from_the_keyboard_alone(play_server, page):
    """Tab reaches the legal moves; Enter plays one; after the agent's answer the
    focus is on the new list's first move, so Enter plays again."""
    page.goto(play_server.url + "/play/connect4")
    page.get_by_label("Who plays Player2").select_option("random")
    page.get_by_role("button", name="Start the game").click()
    listed = page.get_by_role("region", name="Legal moves")
    listed.get_by_role("button").first.wait_for()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('#legal') !== null"):
            break
    else:
        raise AssertionError("Tab never reaches the legal moves")
    for plies in (0, 2):
        token = page.evaluate("document.activeElement.textContent")
        page.keyboard.press("Enter")
        state = my_turn(page, play_server, plies + 1)
        assert state["plies"][plies]["move"] == token
        page.wait_for_function("() => document.activeElement.matches('#legal button')")
    no_console_errors(page)
