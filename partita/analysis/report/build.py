"""Gathering a report's data: the selected games, the overview, one part per game
and configuration, the viewer's games (plain dicts and lists that the renderers
turn into text)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from partita.analysis.report.game_part import game_part, part_steps
from partita.analysis.report.options import ReportOptions
from partita.analysis.report.overview import glance, players_table
from partita.analysis.report.progress import Steps
from partita.analysis.report.viewer import viewer_data
from partita.database.connection import archive_errors
from partita.errors import UnknownGameError
from partita.game.configuration import Configuration, varying_settings
from partita.game.notation import GameNotation
from partita.game.registry import get_game

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = ["build_report", "by_configuration"]


@archive_errors
def build_report(
    target: Archive,
    *,
    options: ReportOptions | None = None,
    progress: Callable[[int, int], object] | None = None,
    **filters: Any,
) -> dict:
    """The data of a report on the archive's games matching ``filters`` (those of
    :func:`partita.database.query_games`). ``progress(done, total)`` counts its
    steps: each section of each game's part, then each game replayed for the
    viewer (the total grows when those are known); ``data["steps"]`` is the count
    at the end, where :func:`~partita.analysis.report.render.render_html` goes on
    counting the charts it draws."""
    from partita.database.filters import GameFilter
    from partita.database.selection import selected_games

    options = options or ReportOptions()
    steps = Steps(progress)
    # A report reads mainlines: a position filter finds the games whose mainline
    # reaches it (the tree inside agrees).
    selection = GameFilter.of(**{**filters, "mainline_only": True})
    rows = selected_games(target, selection=selection)
    data: dict[str, Any] = {
        "title": options.title or "partita report",
        "generated": datetime.date.today().isoformat(),
        "filters": selection.described(),
        "options": options,
        "glance": glance(rows),
        "players": players_table(rows, options.players),
        "games": [],
        "viewer": {"layouts": {}, "games": {}},
        "listed": [],
    }
    planned = []
    for name in sorted({row["game"] for row in rows if row["game"]}):
        try:
            notation = get_game(name)
        except UnknownGameError:
            continue
        ordered = by_configuration(notation, [row for row in rows if row["game"] == name])
        configurations = [configuration for configuration, _ in ordered]
        varying = varying_settings(configurations) if len(configurations) > 1 else None
        for configuration, game_rows in ordered:
            planned.append((notation, configuration, game_rows, varying))
    steps.add(sum(part_steps(notation.name) for notation, *_ in planned))
    for notation, configuration, game_rows, varying in planned:
        data["games"].append(
            game_part(
                target,
                notation,
                game_rows,
                options,
                selection,
                configuration,
                varying,
                steps.advance,
            )
        )
    viewer_data(target, rows, options, data, steps)
    data["steps"] = steps.done
    return data


def by_configuration(
    notation: GameNotation, rows: list[dict]
) -> list[tuple[Configuration, list[dict]]]:
    """A game's rows grouped by the configuration of its valid games, the largest
    group first. An invalid game joins the group of its configuration, or the
    largest one when no valid game shares it (it is counted, not analysed)."""
    groups: dict[Configuration, list[dict]] = {}
    strays = []
    for row in rows:
        tags = json.loads(row["tags"] or "{}")
        configuration = Configuration.of(notation, row["sides"] or notation.rules.min_sides, tags)
        if row["status"] == "valid":
            groups.setdefault(configuration, []).append(row)
        else:
            strays.append((configuration, row))
    if not groups:
        return [(Configuration.of(notation, notation.rules.min_sides, {}), rows)]
    largest = max(groups, key=lambda configuration: len(groups[configuration]))
    for configuration, row in strays:
        groups.get(configuration, groups[largest]).append(row)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0].label))
