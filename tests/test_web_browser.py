"""partita serve in a real browser (Playwright driving Debian's Chromium, see
tests/web_server.py): for every built-in game an archived game steps with the
buttons, the keys and a click on a move, and its board's label follows; an
analysis runs and another is cancelled; the opening explorer goes two levels down.
Every page loads without console errors (the Content-Security-Policy blocks
nothing it needs), fits a 390 px screen, and shows hostile records as text.
Screenshots go to $PARTITA_SCREENSHOTS when it is set."""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request

import pytest
from report_archives import HOSTILE
from web_server import (
    no_console_errors,
    no_horizontal_overflow,
    no_inner_overflow,
    phone,
    screenshot,
)

from partita.game.registry import all_specs

BUILT_IN = [spec.name for spec in all_specs() if spec.game.__module__.startswith("partita.games.")]


def api(server, path: str):
    with urllib.request.urlopen(server.url + path, timeout=30) as answer:
        return json.loads(answer.read().decode("utf-8"))


def a_game_of(server, game: str) -> dict:
    """A valid archived game of ``game`` with a few moves (the longest of the first page)."""
    rows = api(server, f"/api/games?game={game}&per_page=100")["games"]
    valid = [row for row in rows if row["status"] == "valid" and row["plies"] >= 3]
    assert valid, f"no valid {game} game in the examples"
    return max(valid, key=lambda row: (min(row["plies"], 40), -row["id"]))


def label(page) -> str:
    return (
        page.get_by_role("img", name=None).and_(page.locator("#board")).get_attribute("aria-label")
    )


def test_the_games_page_lists_the_archive_and_fits_a_phone(web_server, page):
    page.goto(web_server.url + "/")
    assert page.title().startswith("Games")
    assert page.locator("table.games tbody tr").count() == 50
    page.get_by_role("link", name="Next page").click()
    assert "page=2" in page.url
    screenshot(page, "games-desktop")
    phone(page)
    page.reload()
    no_horizontal_overflow(page)
    screenshot(page, "games-phone")
    no_console_errors(page)


@pytest.mark.parametrize("game", BUILT_IN)
def test_an_archived_game_steps_with_buttons_keys_and_clicks(web_server, page, game):
    row = a_game_of(web_server, game)
    data = api(web_server, f"/api/games/{row['id']}")
    nodes, mainline = data["nodes"], data["mainline"]
    page.goto(f"{web_server.url}/games/{row['id']}")
    board = page.locator("#board")
    assert board.get_attribute("role") == "img"
    start = nodes[0]["position"]
    assert board.get_attribute("aria-label") == start
    page.get_by_role("button", name="Next move", exact=True).click()
    assert board.get_attribute("aria-label") == nodes[mainline[1]]["position"]
    page.keyboard.press("ArrowRight")
    assert board.get_attribute("aria-label") == nodes[mainline[2]]["position"]
    page.keyboard.press("ArrowLeft")
    assert board.get_attribute("aria-label") == nodes[mainline[1]]["position"]
    page.get_by_role("button", name="Last move", exact=True).click()
    assert board.get_attribute("aria-label") == row["final_position"]
    page.get_by_role("button", name="First move", exact=True).click()
    assert board.get_attribute("aria-label") == start
    page.keyboard.press("End")
    assert board.get_attribute("aria-label") == row["final_position"]
    page.keyboard.press("Home")
    assert board.get_attribute("aria-label") == start
    page.get_by_role("button", name="Previous move", exact=True).click()  # nothing before
    assert board.get_attribute("aria-label") == start
    # a click on a move of the list jumps there
    target = nodes[mainline[3]] if len(mainline) > 3 else nodes[mainline[-1]]
    page.locator(f'#moves button.move[data-node="{target["id"]}"]').click()
    assert board.get_attribute("aria-label") == target["position"]
    move_button = page.get_by_role("button", name=target["move"], exact=True).first
    assert move_button.count() == 1
    page.wait_for_function("document.querySelector('#board-image').complete")
    no_inner_overflow(page, "#moves")  # a long move (a Forceball shuffle) wraps
    screenshot(page, f"game-{game}-desktop")
    phone(page)
    no_horizontal_overflow(page)
    no_inner_overflow(page, "#moves")
    screenshot(page, f"game-{game}-phone")
    no_console_errors(page)


@pytest.mark.parametrize("game", BUILT_IN)
def test_the_explorer_goes_two_levels_down(web_server, page, game):
    page.goto(f"{web_server.url}/explorer?game={game}")
    board = page.locator("div.board[role=img]")
    first_label = board.get_attribute("aria-label")
    trail = page.get_by_role("navigation", name="Line")
    for level in (1, 2):
        moves = page.locator("table.tree a.down")
        assert moves.count() >= 1, f"no move at level {level}"
        move = moves.first.inner_text()
        games = int(page.locator("table.tree tbody tr").first.locator("td.num a").inner_text())
        moves.first.click()
        assert move in trail.inner_text()
        assert board.get_attribute("aria-label") != first_label
        count = page.locator("p.meta").inner_text()
        assert f"{games} game" in count
        first_label = board.get_attribute("aria-label")
    # its count links to its games
    page.locator("p.meta a").click()
    assert page.locator("table.games tbody tr").count() >= 1
    no_console_errors(page)


@pytest.mark.parametrize("game", BUILT_IN)
def test_an_analysis_runs_and_another_is_cancelled(web_server, page, game):
    page.goto(f"{web_server.url}/analysis?game={game}")
    page.fill("#agent", "mcts:200")
    page.fill("#seconds", "20")
    page.get_by_role("button", name="Analyse", exact=True).click()
    page.get_by_text("Value:").wait_for(timeout=30_000)
    scores = page.get_by_role("list", name="Moves and their scores")
    assert scores.locator("li").count() >= 1
    board = page.locator("#board")
    best = scores.locator("button").first.inner_text()
    shown = urllib.parse.parse_qs(page.locator("#board-image").get_attribute("src").split("?")[1])
    assert shown["hint"] == [best]  # the best move's cells ringed on the board
    before = board.get_attribute("aria-label")
    scores.locator("button").first.hover()
    assert board.get_attribute("aria-label") != before  # the position after the move
    # a long one, cancelled
    page.fill("#agent", "mcts:60s")
    page.fill("#seconds", "60")
    page.get_by_role("button", name="Analyse", exact=True).click()
    page.get_by_text("Running").wait_for(timeout=30_000)
    page.get_by_role("button", name="Cancel", exact=True).click()
    page.get_by_text("Cancelled").wait_for(timeout=10_000)
    assert page.get_by_role("button", name="Analyse", exact=True).is_enabled()
    no_console_errors(page)


PAGES = [
    "/players",
    "/players?event=Family+table&crosstable=1",
    "/openings",
    "/balance",
    "/explorer",
    "/play",
    *(f"/{page}?game={game}" for page in ("analysis", "explorer") for game in BUILT_IN),
    *(f"/play/{game}" for game in BUILT_IN),
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_fits_a_phone_without_console_errors(web_server, page, path):
    page.goto(web_server.url + path)
    name = re.sub(r"[^a-z0-9]+", "-", path.lower().replace("game=", "")).strip("-") or "games"
    screenshot(page, f"{name}-desktop")
    phone(page)
    page.reload()
    no_horizontal_overflow(page)
    screenshot(page, f"{name}-phone")
    no_console_errors(page)


@pytest.mark.parametrize(
    ("path", "status", "reason"),
    [
        ("/games/999999", 404, "there is no game 999999 in the archive"),
        ("/?date_from=nonsense", 400, "date 'nonsense' is not of the form YYYY.MM.DD"),
        ("/explorer?game=connect4&moves=t9", 400, "move 1 't9'"),
    ],
)
def test_errors_are_pages_with_their_reason(web_server, page, path, status, reason):
    answer = page.goto(web_server.url + path)
    assert answer.status == status
    assert reason in page.get_by_role("alert").inner_text()
    assert "Traceback" not in page.content()
    # the browser notes the page's own status; nothing else fails
    others = [text for text in page.console_errors if f"status of {status}" not in text]
    assert others == []


def test_hostile_records_are_shown_as_text(web_server, page):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{web_server.url}/?event=Escaping")
    assert page.get_by_role("link", name=HOSTILE).count() >= 1
    page.locator("table.games tbody tr td a").first.click()
    assert HOSTILE in page.locator("h1").inner_text()
    assert "<b>tags</b>" in page.locator("#moves").inner_text()
    assert page.locator("#moves b").count() == 0
    page.goto(f"{web_server.url}/players?player=script")
    assert page.get_by_text(HOSTILE).count() >= 1
    assert dialogs == []
    no_console_errors(page)


def test_the_arrow_keys_go_into_a_variation_and_back(web_server, page):
    rows = api(web_server, "/api/games?event=Escaping")["games"]
    game_id = next(row["id"] for row in rows if row["result"] == "1-0")
    data = api(web_server, f"/api/games/{game_id}")
    nodes = data["nodes"]
    branching = next(node for node in nodes if len(node["children"]) > 1)
    main, variation = (nodes[child] for child in branching["children"][:2])
    page.goto(f"{web_server.url}/games/{game_id}?node={main['id']}")
    board = page.locator("#board")
    page.keyboard.press("ArrowDown")
    assert board.get_attribute("aria-label") == variation["position"]
    assert page.locator("#moves button.move.current").get_attribute("data-node") == str(
        variation["id"]
    )
    page.keyboard.press("ArrowUp")
    assert board.get_attribute("aria-label") == main["position"]
    no_console_errors(page)


def test_a_game_is_stepped_from_the_keyboard_alone(web_server, page):
    """Tab reaches the move list; Enter shows a move; the arrows step and the focus
    follows the move shown, so that Enter then keeps it."""
    row = a_game_of(web_server, "connect4")
    data = api(web_server, f"/api/games/{row['id']}")
    nodes = data["nodes"]
    page.goto(f"{web_server.url}/games/{row['id']}")
    board = page.locator("#board")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#moves button.move')"):
            break
    else:
        raise AssertionError("Tab never reaches the move list")
    focused = int(page.evaluate("document.activeElement.dataset.node"))
    page.keyboard.press("Enter")
    assert board.get_attribute("aria-label") == nodes[focused]["position"]
    page.keyboard.press("ArrowRight")
    after = nodes[focused]["children"][0]
    assert board.get_attribute("aria-label") == nodes[after]["position"]
    assert page.evaluate("document.activeElement.dataset.node") == str(after)
    page.keyboard.press("Enter")
    assert board.get_attribute("aria-label") == nodes[after]["position"]
    # the step buttons are reached and pressed from the keyboard too
    page.get_by_role("button", name="First move", exact=True).focus()
    page.keyboard.press("Enter")
    assert board.get_attribute("aria-label") == nodes[0]["position"]
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Last move"
    page.keyboard.press("Space")
    assert board.get_attribute("aria-label") == row["final_position"]
    no_console_errors(page)


def test_the_explorer_s_counts_are_links_on_a_phone(web_server, page):
    """Won, drawn and lost are links a screen reader reaches (the bar alone is an
    image) and a phone shows; the set-up list marks the one shown."""
    phone(page)
    page.goto(f"{web_server.url}/explorer?game=universal-forces")
    outcomes = page.get_by_role("link", name=re.compile(r"^\d+ (won|drawn|lost)$"))
    assert outcomes.count() >= 3
    assert outcomes.first.is_visible()
    assert page.get_by_role("img", name=re.compile(r"^\d+ won, \d+ drawn")).count() >= 1
    no_horizontal_overflow(page)
    no_console_errors(page)


@pytest.mark.parametrize(
    "query",
    ["game=universal-forces&sides=4", "game=circular-reasoning&event=Home-made+board",
     "game=forceball&tag=League=junior"],
)  # fmt: skip
def test_a_game_of_another_set_up_steps_under_its_configuration(web_server, page, query):
    """More sides, a home-made layout, another league: the board's name follows
    the record's own positions as the page steps, and its drawing loads."""
    rows = api(web_server, f"/api/games?{query}&sort=id")["games"]
    row = next(row for row in rows if row["status"] == "valid")
    data = api(web_server, f"/api/games/{row['id']}")
    nodes, mainline = data["nodes"], data["mainline"]
    page.goto(f"{web_server.url}/games/{row['id']}")
    board = page.locator("#board")
    assert board.get_attribute("aria-label") == nodes[0]["position"]
    for ply in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        assert board.get_attribute("aria-label") == nodes[mainline[ply]]["position"]
    page.wait_for_function(
        "() => { const i = document.querySelector('#board-image'); return i.complete && i.naturalWidth > 0; }"
    )
    page.keyboard.press("End")
    assert board.get_attribute("aria-label") == row["final_position"]
    phone(page)
    no_horizontal_overflow(page)
    no_inner_overflow(page, "#moves")
    no_console_errors(page)


def _current_move_in_view(page) -> bool:
    return page.evaluate(
        """() => { const b = document.querySelector('#moves button.move.current');
        const r = document.querySelector('#moves').getBoundingClientRect();
        const m = b.getBoundingClientRect();
        return m.top >= r.top - 1 && m.bottom <= r.bottom + 1; }"""
    )


def test_stepping_on_a_phone_keeps_the_page_still(web_server, page):
    """The move shown scrolls into view inside the move list, never the page: the
    step buttons stay under a phone user's finger."""
    row = a_game_of(web_server, "forceball")
    phone(page)
    page.goto(f"{web_server.url}/games/{row['id']}")
    step = page.get_by_role("button", name="Next move", exact=True)
    step.scroll_into_view_if_needed()
    before = (page.evaluate("window.scrollY"), step.bounding_box()["y"])
    for _ in range(12):
        step.click()
        assert (page.evaluate("window.scrollY"), step.bounding_box()["y"]) == before
    assert _current_move_in_view(page)
    page.get_by_role("button", name="Last move", exact=True).click()
    assert page.evaluate("window.scrollY") == before[0]
    assert _current_move_in_view(page)  # the list, scrolled to its end
    page.get_by_role("button", name="First move", exact=True).click()
    page.get_by_role("button", name="Next move", exact=True).click()
    assert _current_move_in_view(page)
    no_console_errors(page)
