"""partita serve in a real browser (Playwright driving Debian's Chromium): every
page loads without console errors (the Content-Security-Policy blocks nothing it
needs) and fits a 390 px screen."""

from __future__ import annotations

from web_server import no_console_errors, no_horizontal_overflow, phone, screenshot


def test_the_games_page_lists_the_archive_and_fits_a_phone(web_server, page):
    page.goto(web_server.url + "/")
    assert page.title().startswith("Games")
    assert page.locator("table.games tbody tr").count() >= 50
    screenshot(page, "games-desktop")
    phone(page)
    page.reload()
    no_horizontal_overflow(page)
    screenshot(page, "games-phone")
    no_console_errors(page)
