"""One game's part of the report, in one configuration: the opening tree as rows,
game lengths, first moves, frequent and final positions, the game's own sections,
the annotated games' evaluation curves and largest drops, and its balance."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from partita.analysis import charts
from partita.analysis.report.balance import balance_section
from partita.analysis.report.evaluations import evaluation_section
from partita.analysis.report.openings import chance_plies, opening_moves, tree_rows
from partita.analysis.report.options import ReportOptions, sections_for
from partita.analysis.report.positions import GameSetups, finals, fit_cards, frequent_positions
from partita.analysis.report.tallies import outcome_kind, score_colour, wdl_bar
from partita.analysis.tree import OpeningTree, tree_from_archive
from partita.errors import PartitaError
from partita.game.configuration import Configuration
from partita.game.notation import GameNotation

if TYPE_CHECKING:
    from partita.database.connection import Archive

if TYPE_CHECKING:
    from partita.database.filters import GameFilter

__all__ = ["CHANCE_SAMPLE", "first_moves", "game_part", "lengths", "part_steps"]


def game_part(
    db: Archive,
    notation: GameNotation,
    rows: list[dict],
    options: ReportOptions,
    selection: GameFilter,
    configuration: Configuration,
    varying: set[str] | None,
    advance: Callable[[], object] | None = None,
) -> dict:
    """The part of the report about one game in one configuration (``varying``: the
    settings that differ between the report's configurations of the game, ``None``
    when it holds only this one). ``advance()`` is called as each of its
    :func:`part_steps` sections is done."""
    done = advance or (lambda: None)
    name = notation.name
    valid = [row for row in rows if row["status"] == "valid"]
    part_selection = dataclasses.replace(selection, games=())
    ids = [row["id"] for row in rows]
    configured = configuration.configure(notation)
    chance = _chance_plies(db, configured, valid, options.depth)
    tree = tree_from_archive(
        db,
        name,
        depth=options.depth + chance,
        min_games=options.min_games,
        symmetry=options.symmetry,
        configuration=configuration,
        selection=part_selection,
    )
    notation = configured
    default = Configuration.of(notation, notation.rules.min_sides, {})
    labelled = varying is not None or configuration != default
    tree_part = tree_rows(tree, options)
    done()
    positions = frequent_positions(db, notation, ids, options)
    done()
    final = finals(db, notation, ids, options)
    done()
    part: dict[str, Any] = {
        "game": name,
        "anchor": name
        if not labelled
        else "-".join(
            [name, str(configuration.sides)]
            + [value.replace(" ", "_") for _, value in configuration.settings if value]
        ),
        "configuration": configuration.describe(varying or ()),
        "sides": configuration.sides,
        "title": notation.rules.title
        + (f" ({configuration.describe(varying or ())})" if labelled else ""),
        "games": len(rows),
        "valid": len(valid),
        "tree": tree_part["rows"],
        "tree_total": tree_part["total"],
        "tree_budget": tree_part["budget"],
        "tree_games": tree.games,
        "min_games": tree.min_games,
        "depth": options.depth,
        "chance": chance > 0,
        "symmetry": tree.symmetry,
        "root": tree.position(),
        "lengths": lengths(valid, notation),
        "first_moves": first_moves(tree),
        "positions": positions,
        "finals": final["rows"],
        "unreplayable": positions["unreplayable"] + final["unreplayable"],
        "legend": fit_cards(positions["rows"], final["rows"]),
        "sections": [],
    }
    for builder in sections_for(name):
        section = builder(db, notation, ids)
        if section is not None:
            part["sections"].append(section)
        done()
    evaluations = evaluation_section(db, notation, ids)
    if evaluations is not None:
        part["sections"].append(evaluations)
    done()
    # Every game's balance (seat scores, lengths, rule events), after its own sections.
    balance = balance_section(db, notation, ids)
    if balance is not None:
        part["sections"].append(balance)
    done()
    return part


def part_steps(name: str) -> int:
    """The progress steps of a part of the game ``name``: its opening tree, frequent
    positions, final positions, its own sections, the annotated games' section
    and its balance."""
    return 5 + len(sections_for(name))


#: How many games :func:`_chance_plies` looks at.
CHANCE_SAMPLE = 50


def _chance_plies(db: Archive, notation: GameNotation, valid: list[dict], moves: int) -> int:
    """The chance plies before the ``moves``-th players' move in the first valid
    games (at most :data:`CHANCE_SAMPLE`), at most: the tree goes that much deeper
    so that it shows ``moves`` players' moves (see :mod:`.openings`)."""
    from partita.database.selection import stored_game

    setups = GameSetups(notation.name)
    starts = []
    for row in valid[:CHANCE_SAMPLE]:
        stored = stored_game(db, row["id"])
        if stored is None:
            continue
        try:
            _, state = setups.start(stored)
        except PartitaError:
            continue
        starts.append((state, stored["moves"]))
    try:
        return chance_plies(notation, starts, moves)
    except PartitaError:
        return 0


def lengths(rows: list[dict], notation: GameNotation) -> dict:
    """Plies per game: a stacked histogram by outcome and a summary."""
    plies = [row["plies"] for row in rows]
    if not plies:
        return {"chart": None, "summary": None}
    sides_default = notation.rules.min_sides
    kinds: dict[str, list[int]] = {"decisive": [], "drawn": [], "unfinished": []}
    for row in rows:
        kinds[outcome_kind(row["result"], row["sides"] or sides_default)].append(row["plies"])
    low, high = min(plies), max(plies)
    width = max(1, -(-(high - low + 1) // 30))
    bins = list(range(low - low % width, high + 1, width))
    series = []
    colours = {
        "decisive": charts.WIN_COLOUR,
        "drawn": charts.DRAW_COLOUR,
        "unfinished": charts.OTHER_COLOUR,
    }
    for kind, values in kinds.items():
        counts = [0] * len(bins)
        for value in values:
            counts[(value - bins[0]) // width] += 1
        series.append((kind, counts, colours[kind]))
    chart = charts.stacked_histogram(
        bins,
        series,
        title=f"{notation.rules.title}: game length",
        xlabel="plies",
        salt=f"lengths-{notation.name}",
    )
    summary = {
        "games": len(plies),
        "min": low,
        "median": statistics.median(plies),
        "mean": round(statistics.fmean(plies), 1),
        "max": high,
        "by_kind": [
            {
                "kind": kind,
                "games": len(values),
                "mean": round(statistics.fmean(values), 1) if values else None,
            }
            for kind, values in kinds.items()
        ],
    }
    return {"chart": chart, "summary": summary}


def first_moves(tree: OpeningTree) -> dict:
    """The first players' moves from the tree's root (through chance moves, see
    :mod:`.openings`): popularity and score."""
    moves = opening_moves(tree, [tree.root])
    if not moves:
        return {"chart": None, "rows": []}
    shown = moves[:24]
    reached = tree.node_games()
    chart = charts.bar_chart(
        [stats.move for stats in shown],
        [stats.games for stats in shown],
        title=f"{tree.game.rules.title}: first moves (label: score of the mover)",
        ylabel="games",
        annotations=["–" if stats.score is None else f"{stats.score:.0%}" for stats in shown],
        colours=[score_colour(stats.score) for stats in shown],
        salt=f"first-{tree.game.name}",
    )
    rows = []
    for stats in moves:
        won, drawn, lost = stats.wdl
        rows.append(
            {
                "move": stats.move,
                "games": stats.games,
                "share": stats.games / reached if reached else 0.0,
                "won": won,
                "drawn": drawn,
                "lost": lost,
                "score": stats.score,
                "bar": wdl_bar(won, drawn, lost, stats.unfinished),
            }
        )
    return {"chart": chart, "rows": rows}
