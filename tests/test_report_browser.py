"""The HTML report in a real browser: headless Chromium (Debian's `chromium`)
driven by Playwright (tests/web_server.py's `browser` fixture).

The report is the one the report tests read (`report_archives.examples_report`):
every example of every game imported twice, the invalid examples and hostile records. Checks that it
loads without console errors, failed requests or blocked resources, that its
charts and board diagrams are drawn, that no board overflows its card and its text
stays readable, for every game, that the 3- and 4-side sections show their
decisive games, that chart labels do not overlap and no id repeats, that a hostile
player name stays text, and that the replay viewer steps through a game: a click
opens it, a real key press changes the position shown. Saves screenshots of the
page and the viewer (`$PARTITA_SCREENSHOTS`, or the test's temporary folder).

Skipped, loudly, when Playwright or Chromium is missing; CI installs Chromium (see
`.ci/run`) and Playwright comes with the `test` extra.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from report_archives import HOSTILE, decisive_games

from partita.analysis.report.viewer import decode_game


class Page:
    """A Playwright page with what these tests read: evaluations, real clicks and
    key presses, screenshots, and the problems and requests it saw."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self._problems: list[str] = []
        self._requests: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self._problems.append(f"exception: {error}"))
        page.on("requestfailed", lambda request: self._problems.append(
            f"request failed: {request.url} {request.failure}"))  # fmt: skip
        page.on("request", lambda request: self._requests.append(request.url))
        page.on("dialog", self._dialog)

    def _console(self, message: Any) -> None:
        if message.type in ("error", "assert"):
            self._problems.append(f"console.{message.type}: {message.text}")

    def _dialog(self, dialog: Any) -> None:
        self._problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    def open(self, url: str) -> None:
        self.page.goto(url, wait_until="load")

    def evaluate(self, expression: str):
        return self.page.evaluate(expression)

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element."""
        self.page.locator(selector).first.click()

    def press(self, key: str, code: int) -> None:
        """A real key press (key down, key up) as the keyboard would send it."""
        self.page.keyboard.press(key)

    def screenshot(self, path: Path, **options: Any) -> None:
        self.page.screenshot(path=str(path), **options)

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, failed requests, dialogs."""
        return list(self._problems)

    def requests(self) -> list[str]:
        return list(self._requests)


@pytest.fixture(scope="module")
def report_archive(examples_report_page):
    return examples_report_page.folder, examples_report_page.archive


@pytest.fixture(scope="module")
def report_page(examples_report_page, browser):
    folder = examples_report_page.folder
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = Page(context.new_page())
        page.open(examples_report_page.page.resolve().as_uri())
        yield page, folder
    finally:
        context.close()


def test_report_loads_without_errors_and_without_network(report_page):
    page, _ = report_page
    assert page.evaluate("document.readyState") == "complete"
    assert page.problems() == []
    # The only document loaded is the report itself: nothing else is requested.
    assert all(url.startswith("file:") for url in page.requests()), page.requests()


def test_charts_and_diagrams_are_drawn(report_page):
    page, _ = report_page
    sizes = page.evaluate(
        "[...document.querySelectorAll('.chart svg')].map(e => e.getBoundingClientRect().width)"
    )
    assert len(sizes) >= 4 and all(width > 100 for width in sizes)
    diagrams = page.evaluate(
        "[...document.querySelectorAll('figure svg.diagram:not(.diagram-text)')].map(e =>"
        " [e.getBoundingClientRect().width, e.querySelectorAll('.piece').length])"
    )
    assert len(diagrams) >= 4
    assert all(width > 100 and pieces > 0 for width, pieces in diagrams), [
        d for d in diagrams if not (d[0] > 100 and d[1] > 0)
    ]
    texts = page.evaluate(
        "[...document.querySelectorAll('figure svg.diagram-text')].map(e =>"
        " [e.getBoundingClientRect().width, e.querySelectorAll('text').length])"
    )
    assert all(width > 100 and lines > 1 for width, lines in texts), texts


def test_a_hostile_player_name_is_text(report_page):
    page, _ = report_page
    names = page.evaluate("[...document.querySelectorAll('td.player')].map(e => e.textContent)")
    assert HOSTILE in names
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    scripts = page.evaluate("[...document.scripts].map(s => s.type || 'js')")
    assert scripts == ["application/json", "js"]


def test_the_viewer_steps_through_a_game_with_keys(report_page):
    page, folder = report_page
    # A game with variations and comments, opened by a real click on its button.
    # The page keeps each game compressed (the viewer unpacks it when it is opened):
    # the game is chosen here from the same store, decoded as the viewer decodes it.
    data = json.loads(page.evaluate("document.getElementById('partita-data').textContent"))
    games = {key: decode_game(value) for key, value in data["games"].items()}
    chosen = [
        key
        for key, game in games.items()
        if any(len(node["k"]) > 1 for node in game["nodes"])
        and any(node.get("c") for node in game["nodes"])
    ]
    game_id = chosen[0] if chosen else next(iter(games))
    page.click(f'#games button.open[data-game="{game_id}"]')
    # Opening unpacks the game first: wait until the viewer shows it.
    page.page.wait_for_selector(f'#viewer[data-game="{game_id}"]:not([hidden])')
    assert page.evaluate("document.getElementById('viewer').hidden") is False
    assert page.evaluate("document.getElementById('viewer').dataset.game") == game_id

    def shown() -> tuple[str, str]:
        return page.evaluate(
            "[document.getElementById('viewer-board').dataset.node,"
            " document.getElementById('viewer-board').dataset.cells]"
        )

    start = shown()
    page.press("ArrowRight", 39)
    first = shown()
    assert first != start and first[1] != start[1]
    for _ in range(5):
        page.press("ArrowRight", 39)
    later = shown()
    assert later[1] != first[1]
    assert page.evaluate("document.querySelectorAll('#viewer-board circle.piece').length") >= 2
    assert page.evaluate("document.querySelector('#viewer-moves .mv.current') !== null")
    page.press("ArrowLeft", 37)
    assert shown() != later
    page.press("ArrowRight", 39)
    assert shown() == later
    # Variations are listed and clickable.
    assert page.evaluate("document.querySelectorAll('#viewer-moves .var').length") > 0
    target = Path(os.environ.get("PARTITA_SCREENSHOTS") or folder)
    target.mkdir(parents=True, exist_ok=True)
    page.evaluate("document.getElementById('viewer').scrollIntoView({block: 'start'})")
    page.screenshot(target / "report-viewer.png")
    assert (target / "report-viewer.png").stat().st_size > 10_000
    assert page.problems() == []


def test_no_board_overflows_its_card_and_its_text_stays_readable(report_page):
    from partita.analysis.diagrams import READABLE_TEXT
    from partita.game.registry import all_specs

    page, folder = report_page
    boards = page.evaluate(
        "[...document.querySelectorAll('section.game-part figure')].map(card => {"
        " const svg = card.querySelector('svg'); const c = card.getBoundingClientRect();"
        " const b = svg.getBoundingClientRect();"
        " const fonts = [...svg.querySelectorAll('text')].map(t =>"
        "   parseFloat(getComputedStyle(t).fontSize) * b.width / svg.viewBox.baseVal.width);"
        " return {game: card.closest('section').dataset.game, card: [c.left, c.right, c.top,"
        " c.bottom], board: [b.left, b.right, b.top, b.bottom], text: Math.min(...fonts),"
        " section: card.closest('section').getBoundingClientRect().right}; })"
    )
    assert {board["game"] for board in boards} == {spec.name for spec in all_specs()}
    for board in boards:
        (left, right, top, bottom), inner = board["card"], board["board"]
        assert left <= inner[0] and inner[1] <= right and top <= inner[2] and inner[3] <= bottom, (
            board
        )
        assert right <= board["section"], board
        assert board["text"] >= READABLE_TEXT - 0.1, board
    target = Path(os.environ.get("PARTITA_SCREENSHOTS") or folder)
    target.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("document.documentElement.scrollHeight")
    page.screenshot(
        target / "report-page.png",
        full_page=True,
        clip={"x": 0, "y": 0, "width": 1280, "height": min(height, 12_000)},
    )


def test_three_and_four_side_sections_show_their_decisive_games(report_page, report_archive):
    page, _ = report_page
    shown = page.evaluate(
        "[...document.querySelectorAll('section.game-part')].map(s => [s.dataset.game,"
        " Number(s.dataset.sides), [...s.querySelectorAll('details.finals figure"
        " button.open')].map(b => Number(b.dataset.game))])"
    )
    found: dict[tuple[str, int], set[int]] = {}
    for game, sides, ids in shown:
        found.setdefault((game, sides), set()).update(ids)
    expected = decisive_games(report_archive[1])
    many = {key for key in expected if key[1] > 2}
    assert many, "the examples hold 3- and 4-side wins"
    for key in many:
        # Eight a section at most (the latest): these sections hold fewer.
        assert found.get(key) == expected[key], key


def test_chart_labels_do_not_overlap(report_page):
    page, _ = report_page
    overlaps = page.evaluate(
        "[...document.querySelectorAll('.chart svg')].flatMap(svg => {"
        " const labels = [...svg.querySelectorAll('g[id*=\"xtick_\"] text')].map(t =>"
        "   [t.getBoundingClientRect(), t.textContent]).filter(([r]) => r.width > 0);"
        " const found = [];"
        " for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {"
        "   const [a, first] = labels[i], [b, second] = labels[j];"
        "   if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5"
        "       && b.top < a.bottom - 0.5) found.push(first + ' / ' + second); }"
        " return found; })"
    )
    assert overlaps == []


def test_no_id_repeats(report_page):
    page, _ = report_page
    repeated = page.evaluate(
        "(() => { const seen = new Map(); for (const e of document.querySelectorAll('[id]'))"
        " seen.set(e.id, (seen.get(e.id) || 0) + 1);"
        " return [...seen].filter(([, n]) => n > 1).map(([id]) => id); })()"
    )
    assert page.evaluate("document.querySelectorAll('[id]').length") > 100
    assert repeated == []


def test_every_game_button_opens_its_game(report_page):
    """Every button that names a game opens it in the viewer (none is dead), and a
    game that cannot be replayed is plain text, not a button."""
    page, _ = report_page
    ids = page.evaluate(
        "[...new Set([...document.querySelectorAll('button.open[data-game]')]"
        ".map(b => b.dataset.game))]"
    )
    assert ids
    for game_id in ids[:: max(1, len(ids) // 12)]:  # a spread of them, to stay quick
        page.click(f'button.open[data-game="{game_id}"]')
        page.page.wait_for_selector(f'#viewer[data-game="{game_id}"]:not([hidden])')
    assert page.problems() == []


def test_the_report_fits_a_phone(examples_report_page, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = Page(context.new_page())
        page.open(examples_report_page.page.resolve().as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # NAGs are shown as their symbols, never as $N codes of the record.
        assert "$7" not in page.evaluate("document.body.innerText")
        assert page.problems() == []
    finally:
        context.close()
