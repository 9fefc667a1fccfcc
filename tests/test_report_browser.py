"""The HTML report in a real browser: headless Chromium (Debian's `chromium`).

Driven through the Chrome DevTools protocol over `--remote-debugging-pipe` (JSON
messages on file descriptors 3 and 4: no WebSocket library, no driver download).
The report is the one the report tests read (`report_archives.examples_report`):
every example of every game imported twice, the invalid examples and hostile records. Checks that it
loads without console errors, failed requests or blocked resources, that its
charts and board diagrams are drawn, that no board overflows its card and its text
stays readable, for every game, that the 3- and 4-side sections show their
decisive games, that chart labels do not overlap and no id repeats, that a hostile
player name stays text, and that the replay viewer steps through a game: a click
opens it, a real key press (CDP Input events) changes the position shown. Saves
screenshots of the page and the viewer (`$PARTITA_SCREENSHOTS`, or the test's
temporary folder).

Skipped when no Chromium is installed; CI installs it (see `.ci/run`).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from report_archives import HOSTILE, decisive_games

CHROMIUM = next(
    (path for path in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if path),
    None,
)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")


class DevTools:
    """A minimal Chrome DevTools protocol client over Chromium's debugging pipe."""

    def __init__(self, executable: str, profile: Path) -> None:
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def wire_pipes() -> None:  # in the child: fd 3 reads commands, fd 4 writes replies
            high_read = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 100)
            high_write = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 100)
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        self.process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=wire_pipes,  # the test process runs no other threads
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing anyway
            self.send("Browser.close", timeout=5)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no answer from Chromium")
            ready, _, _ = select.select([self._from_browser], [], [], remaining)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the debugging pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(
        self,
        method: str,
        params: dict | None = None,
        *,
        session: str | None = None,
        timeout: float = 30,
    ) -> dict:
        self._next_id += 1
        command: dict = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            command["sessionId"] = session
        os.write(self._to_browser, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_message(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            message = self._read_message(deadline)
            if message.get("method") == method:
                return message
            self.events.append(message)


class Page:
    """One tab, attached with a flat session."""

    def __init__(self, tools: DevTools) -> None:
        self.tools = tools
        target = tools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = tools.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
        )

    def send(self, method: str, params: dict | None = None) -> dict:
        return self.tools.send(method, params, session=self.session)

    def open(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.tools.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1},
            )

    def press(self, key: str, code: int) -> None:
        """A real key press (key down, key up) as the keyboard would send it."""
        for kind in ("rawKeyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent",
                {
                    "type": kind,
                    "key": key,
                    "code": key,
                    "windowsVirtualKeyCode": code,
                    "nativeVirtualKeyCode": code,
                },
            )

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, failed requests, log errors, dialogs."""
        found = []
        for event in self.tools.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails']}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(f"log: {params['entry'].get('text')}")
            elif method == "Network.loadingFailed":
                found.append(f"request failed: {params}")
            elif method == "Page.javascriptDialogOpening":
                found.append(f"dialog: {params.get('message')}")
        return found

    def requests(self) -> list[str]:
        return [
            event["params"]["request"]["url"]
            for event in self.tools.events
            if event.get("method") == "Network.requestWillBeSent"
        ]


@pytest.fixture(scope="module")
def report_archive(examples_report_page):
    return examples_report_page.folder, examples_report_page.archive


@pytest.fixture(scope="module")
def report_page(examples_report_page):
    folder = examples_report_page.folder
    tools = DevTools(CHROMIUM, folder / "profile")
    try:
        page = Page(tools)
        page.open(examples_report_page.page.resolve().as_uri())
        yield page, folder
    finally:
        tools.close()


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
    game_id = page.evaluate(
        "(() => { const data = JSON.parse(document.getElementById('partita-data').textContent);"
        " const ids = Object.keys(data.games).filter(id => data.games[id].nodes.some(n => n.k.length > 1)"
        " && data.games[id].nodes.some(n => n.c && n.c.length));"
        " return ids.length ? ids[0] : Object.keys(data.games)[0]; })()"
    )
    page.click(f'#games button.open[data-game="{game_id}"]')
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
    from partita.games.registry import all_specs

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
    data = page.send(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": 1280, "height": min(height, 12_000), "scale": 0.5},
        },
    )["data"]
    (target / "report-page.png").write_bytes(base64.b64decode(data))


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
