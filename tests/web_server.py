"""`partita serve` in tests: a server process on a free loopback port over a
temporary archive, and Playwright pages driving Debian's Chromium.

Fixtures (registered by tests/conftest.py):

* ``web_archive`` (session): an archive of the shipped examples (the invalid ones
  and the hostile records of :mod:`report_archives` included);
* ``web_server`` (module): ``partita serve --port 0`` on that archive, read-only:
  a :class:`Server` with ``url`` and ``db``; a test module that needs another one
  (``--write``, another archive) calls :func:`start_server` in its own fixture;
* ``browser`` (module): headless Chromium through Playwright (skipped, loudly,
  when the ``playwright`` package or ``/usr/bin/chromium`` is missing: never
  ``playwright install``);
* ``page`` (function): a new page at desktop size, with ``page.console_errors``
  (console errors and uncaught exceptions, CSP violations included) that the test
  checks with :func:`no_console_errors`; :func:`phone` resizes it to 390 px.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from partita.database.schema import archive

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CHROMIUM = Path(os.environ.get("PARTITA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
#: Where screenshots go when a test takes them ($PARTITA_SCREENSHOTS, else none).
SHOTS = os.environ.get("PARTITA_SCREENSHOTS")


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not CHROMIUM.is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does it)"
    return None


def skip_without_browser() -> None:
    reason = browser_missing()
    if reason is not None:
        message = f"BROWSER TESTS SKIPPED: {reason}"
        sys.stderr.write(f"\n{'#' * 72}\n# {message}\n{'#' * 72}\n")
        pytest.skip(message)


#: An annotated game (as `partita annotate` writes them): evaluations and a blunder.
ANNOTATED_RECORD = """[Game "connect4"]
[Event "Annotated example"]
[Player1 "Ann Otated"]
[Player2 "Val Ue"]
[Result "*"]

{[%eval 0.60,0.40]} 1. t4 {[%eval 0.60,0.40]} 1... t4 {[%eval 0.55,0.45]} 2. t1?? $4
{[%eval 0.10,0.90]} {t4 was better: 0.55} 2... t4 {[%eval 0.10,0.90]} *
"""


def build_archive(path: Path) -> Path:
    """An archive of every shipped example, the invalid ones, hostile records and an
    annotated game."""
    from report_archives import HOSTILE_RECORD, IMAGE_RECORD

    from partita.bulk import import_paths

    hostile = path.parent / "hostile.pgr"
    hostile.write_text(
        HOSTILE_RECORD + "\n" + IMAGE_RECORD + "\n" + ANNOTATED_RECORD, encoding="utf-8"
    )
    with archive(path) as opened:
        import_paths(opened, [EXAMPLES, hostile])
    return path


@dataclass
class Server:
    """A running `partita serve`."""

    process: subprocess.Popen
    url: str
    db: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(db: Path, *options: str, timeout: float = 30.0) -> Server:
    """``partita serve --db DB --port 0 OPTIONS`` started, and its address read
    from its first line; the server answers when this returns."""
    import urllib.request

    process = subprocess.Popen(
        [sys.executable, "-m", "partita", "serve", "--db", str(db), "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if " at http://" not in line:
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"partita serve did not start: {line!r} {err!r}")
    url = line.split(" at ", 1)[1].split()[0].rstrip("/")
    server = Server(process, url, db)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/static/app.css", timeout=5) as answer:
                if answer.status == 200:
                    return server
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                server.stop()
                raise
            time.sleep(0.05)


@pytest.fixture(scope="session")
def web_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_archive(tmp_path_factory.mktemp("web") / "archive.db")


@pytest.fixture(scope="module")
def web_server(web_archive: Path) -> Iterator[Server]:
    server = start_server(web_archive)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    skip_without_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(10_000)
    new_page = context.new_page()
    errors: list[str] = []
    new_page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    new_page.on("pageerror", lambda error: errors.append(str(error)))
    new_page.console_errors = errors
    yield new_page
    context.close()


def no_console_errors(page: Any) -> None:
    assert page.console_errors == [], page.console_errors


def phone(page: Any) -> None:
    page.set_viewport_size(PHONE)


def no_horizontal_overflow(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width} px wide"


def no_inner_overflow(page: Any, selector: str) -> None:
    """Nothing in ``selector`` (a move list, a table) runs past its right edge: a
    long move wraps instead of being cut off."""
    wide, box = page.evaluate(
        "(s) => { const e = document.querySelector(s); return [e.scrollWidth, e.clientWidth]; }",
        selector,
    )
    assert wide <= box, f"{selector} holds {wide} px in {box} px"


def screenshot(page: Any, name: str) -> None:
    """A full-page screenshot into ``$PARTITA_SCREENSHOTS`` when it is set."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def chromium_available() -> bool:
    return browser_missing() is None and shutil.which(str(CHROMIUM)) is not None
