"""Reports on the archive: one self-contained HTML file (or Markdown).

:func:`build_report` gathers the data (plain dicts and lists: the archive at a
glance, results per player, and per game the opening tree with W/D/L bars, the
game-length distribution, first-move popularity and score, the most frequent
positions and the final positions of decisive games as SVG diagrams, extra
sections registered per game, and every game's moves for the replay viewer);
:func:`render_html` and :func:`render_markdown` turn it into text with Jinja2
templates. The HTML inlines its CSS, its SVG and its JavaScript (the viewer ships
in the package, ``templates/viewer.js``): it needs no network. Autoescaping is on
for every value; the viewer's data is embedded as JSON in a
``<script type="application/json">`` block with ``<``, ``>``, ``&`` and ``'``
escaped, and the viewer writes record text with ``textContent`` only. The
Markdown renderer escapes every value for Markdown (and HTML) the same way.

The modules: :mod:`.options` (what a report shows, a game's own sections),
:mod:`.build` (gathering the data), :mod:`.overview` (the archive at a glance, the
players), :mod:`.game_part` (one game's part), :mod:`.positions` (its board
diagrams), :mod:`.tallies` (shared small tallies), :mod:`.viewer` (the replay
viewer's data), :mod:`.render` (HTML, Markdown, the file), :mod:`.balance` (the
balance section, and `partita balance -o`'s page).
"""

from __future__ import annotations

from partita.analysis.report.build import build_report
from partita.analysis.report.options import ReportOptions, Section, SectionBuilder, Table
from partita.analysis.report.render import (
    markdown_escape,
    render_html,
    render_markdown,
    write_report,
)
from partita.analysis.report.viewer import viewer_game

__all__ = [
    "ReportOptions",
    "Section",
    "SectionBuilder",
    "Table",
    "build_report",
    "markdown_escape",
    "render_html",
    "render_markdown",
    "viewer_game",
    "write_report",
]
