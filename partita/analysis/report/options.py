"""What a report shows (:class:`ReportOptions`) and what a game's own section is
made of (:class:`Section`, :class:`Table`), with the hook that finds a game's
sections (its spec's ``report_sections``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from partita.analysis.charts import Chart
from partita.game.notation import GameNotation
from partita.game.registry import get_spec

__all__ = ["ReportOptions", "Section", "SectionBuilder", "Table", "sections_for"]


@dataclass(slots=True)
class ReportOptions:
    """What a report shows and how much of it."""

    #: Players' moves of the opening tree (chance moves, such as shuffles, are
    #: stepped through and not counted).
    depth: int = 4
    #: Moves played by fewer games are left out of the tree (``None``: the tree's
    #: default, 1 and one more per 20,000 games).
    min_games: int | None = None
    #: At most this many moves per position in the tree (most played first).
    moves_per_position: int = 6
    #: At most this many rows of the tree (the most played moves; a note says how
    #: many were left out).
    tree_rows: int = 60
    #: Fold symmetric positions (as many as the board's symmetries).
    symmetry: bool = False
    #: How many frequent positions, and from which ply on.
    positions: int = 8
    position_ply: int = 4
    #: How many final positions of decisive games.
    finals: int = 8
    #: How many games the replay viewer holds (the latest first).
    viewer_games: int = 200
    #: How many players the results table lists.
    players: int = 100
    title: str | None = None
    #: Draw the charts (off: an HTML page without them, a Markdown report without
    #: its chart files; both are made much faster).
    charts: bool = True


@dataclass(slots=True)
class Table:
    """A table of a section: headers and rows of plain values."""

    headers: list[str]
    rows: list[list[Any]]


@dataclass(slots=True)
class Section:
    """An extra section of a game's part of the report (a game's own statistics):
    paragraphs, tables and charts (trusted SVG markup made by :mod:`charts`)."""

    title: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    charts: list[Chart | Markup] = field(default_factory=list)


#: An extra section of a game's part: ``builder(db, game, game_ids) -> Section | None``,
#: listed in the ``report_sections`` of the game's spec.
SectionBuilder = Callable[[Any, GameNotation, list[int]], "Section | None"]


def sections_for(name: str) -> list[SectionBuilder]:
    return get_spec(name).section_builders()
