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
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from partita.analysis import charts
from partita.analysis.diagrams import PIECE_STYLES, board_for, render_diagram
from partita.analysis.tree import OpeningTree, tree_from_archive
from partita.database.connection import archive_errors
from partita.errors import PartitaError, UnknownGameError
from partita.games.base import DRAW, WIN, parse_result_token
from partita.games.registry import get_game, get_spec
from partita.notation.base import GameNotation
from partita.notation.configuration import Configuration, varying_settings
from partita.notation.model import Record

__all__ = [
    "ReportOptions",
    "Section",
    "build_report",
    "render_html",
    "render_markdown",
    "viewer_game",
    "write_report",
]


@dataclass(slots=True)
class ReportOptions:
    """What a report shows and how much of it."""

    #: Plies of the opening tree.
    depth: int = 4
    #: Moves played by fewer games are left out of the tree (``None``: the tree's
    #: default, 1 and one more per 20,000 games).
    min_games: int | None = None
    #: At most this many moves per position in the tree (most played first).
    moves_per_position: int = 6
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
    charts: list[Markup] = field(default_factory=list)


#: An extra section of a game's part: ``builder(db, game, game_ids) -> Section | None``,
#: listed in the ``report_sections`` of the game's spec.
SectionBuilder = Callable[[Any, GameNotation, list[int]], "Section | None"]


def _sections_for(game: str) -> list[SectionBuilder]:
    return get_spec(game).section_builders()


# -- gathering ----------------------------------------------------------------------------------------


def _outcome_kind(result: str | None, sides: int) -> str:
    """``decisive``, ``drawn`` or ``unfinished`` for a result token."""
    if result is None:
        return "unfinished"
    try:
        scores = parse_result_token(result, sides)
    except ValueError:
        return "unfinished"
    if scores is None:
        return "unfinished"
    return "decisive" if sum(1 for score in scores if score == WIN) == 1 else "drawn"


@archive_errors
def build_report(
    target: Any,
    *,
    options: ReportOptions | None = None,
    progress: Callable[[int, int], object] | None = None,
    **filters: Any,
) -> dict:
    """The data of a report on the archive's games matching ``filters`` (those of
    :func:`partita.database.query_games`). ``progress(done, total)`` is called as
    each game's part is begun and when all are done."""
    from partita.database.query import select_games
    from partita.database.schema import open_archive

    options = options or ReportOptions()
    filters = {name: value for name, value in filters.items() if value is not None}
    db = open_archive(target, readonly=True)
    try:
        db.execute("DROP TABLE IF EXISTS temp.report_games")
        db.execute("CREATE TEMP TABLE report_games (id INTEGER PRIMARY KEY)")
        db.conn.executemany(
            "INSERT INTO temp.report_games (id) VALUES (?)",
            ((row["id"],) for row in select_games(db, "g.id", **filters)),
        )
        db.conn.commit()  # end the implicit transaction: the tree reopens the archive
        rows = list(
            db.query(
                "SELECT g.id, g.game, g.event, g.site, g.date, g.date_min, g.date_max, "
                "g.player1, g.player2, g.player3, g.player4, g.result, g.termination, g.sides, "
                "g.plies, g.status, g.tags FROM games g JOIN temp.report_games s ON s.id = g.id "
                "ORDER BY g.id"
            )
        )
        data: dict[str, Any] = {
            "title": options.title or "partita report",
            "generated": datetime.date.today().isoformat(),
            "filters": [(name, str(value)) for name, value in filters.items()],
            "options": options,
            "glance": _glance(rows),
            "players": _players(rows, options.players),
            "games": [],
            "viewer": {"layouts": {}, "games": {}, "pieces": PIECE_STYLES},
            "listed": [],
        }
        names = sorted({row["game"] for row in rows if row["game"]})
        for done, name in enumerate(names):
            if progress is not None:
                progress(done, len(names))
            try:
                notation = get_game(name)
            except UnknownGameError:
                continue
            ordered = _by_configuration(notation, [row for row in rows if row["game"] == name])
            configurations = [configuration for configuration, _ in ordered]
            varying = varying_settings(configurations) if len(configurations) > 1 else None
            for configuration, game_rows in ordered:
                data["games"].append(
                    _game_part(db, notation, game_rows, options, filters, configuration, varying)
                )
        _viewer(db, rows, options, data)
        if progress is not None:
            progress(len(names), len(names))
        return data
    finally:
        db.execute("DROP TABLE IF EXISTS temp.report_games")
        db.execute("DROP TABLE IF EXISTS temp.report_part")
        db.close()


def _by_configuration(
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


def _glance(rows: list[dict]) -> dict:
    """Counts by game, status, result, players and year."""
    by_game: dict[str, dict] = {}
    players: set[str] = set()
    years: dict[str, int] = {}
    for row in rows:
        name = row["game"] or "?"
        entry = by_game.setdefault(
            name,
            {
                "game": name,
                "games": 0,
                "valid": 0,
                "invalid": 0,
                "results": {},
                "plies": [],
                "first": None,
                "last": None,
                "players": set(),
            },
        )
        entry["games"] += 1
        entry["valid" if row["status"] == "valid" else "invalid"] += 1
        result = row["result"] or "*"
        entry["results"][result] = entry["results"].get(result, 0) + 1
        entry["plies"].append(row["plies"])
        if row["date_min"] and (entry["first"] is None or row["date_min"] < entry["first"][0]):
            entry["first"] = (row["date_min"], row["date"])
        if row["date_max"] and (entry["last"] is None or row["date_max"] > entry["last"][0]):
            entry["last"] = (row["date_max"], row["date"])
        for seat in range(1, 5):
            player = row[f"player{seat}"]
            if player:
                players.add(player)
                entry["players"].add(player)
        if row["date_min"]:
            year = row["date_min"][:4]
            years[year] = years.get(year, 0) + 1
    games = []
    for name in sorted(by_game):
        entry = by_game[name]
        try:
            title = get_game(name).rules.title
        except UnknownGameError:
            title = name
        plies = entry["plies"]
        games.append(
            {
                "game": name,
                "title": title,
                "games": entry["games"],
                "valid": entry["valid"],
                "invalid": entry["invalid"],
                "results": sorted(entry["results"].items(), key=lambda item: -item[1]),
                "players": len(entry["players"]),
                "first": entry["first"][1] if entry["first"] else None,
                "last": entry["last"][1] if entry["last"] else None,
                "mean_plies": round(sum(plies) / len(plies), 1) if plies else 0,
            }
        )
    chart = None
    if years:
        ordered = sorted(years)
        chart = charts.bar_chart(
            ordered,
            [years[year] for year in ordered],
            title="Games per year",
            ylabel="games",
            salt="years",
        )
    dates = [row["date_min"] for row in rows if row["date_min"]]
    return {
        "total": len(rows),
        "valid": sum(1 for row in rows if row["status"] == "valid"),
        "invalid": sum(1 for row in rows if row["status"] != "valid"),
        "players": len(players),
        "first": min(dates) if dates else None,
        "last": max(row["date_max"] for row in rows if row["date_max"]) if dates else None,
        "by_game": games,
        "years_chart": chart,
    }


def _players(rows: list[dict], limit: int) -> dict:
    """Results per player over the valid games (their results agree with the moves)."""
    table: dict[str, dict] = {}
    for row in rows:
        if row["status"] != "valid":
            continue
        sides = row["sides"] or 2
        try:
            scores = parse_result_token(row["result"] or "*", sides)
        except ValueError:
            scores = None
        for seat in range(sides):
            name = row.get(f"player{seat + 1}") if seat < 4 else None
            if not name:
                continue
            entry = table.setdefault(
                name,
                {
                    "name": name,
                    "games": 0,
                    "won": 0,
                    "drawn": 0,
                    "lost": 0,
                    "unfinished": 0,
                    "played": set(),
                },
            )
            entry["games"] += 1
            entry["played"].add(row["game"])
            if scores is None:
                entry["unfinished"] += 1
            elif scores[seat] == WIN:
                entry["won"] += 1
            elif scores[seat] == DRAW:
                entry["drawn"] += 1
            else:
                entry["lost"] += 1
    players = []
    for entry in table.values():
        decided = entry["won"] + entry["drawn"] + entry["lost"]
        entry["score"] = (entry["won"] + entry["drawn"] / 2) / decided if decided else None
        entry["played"] = ", ".join(sorted(entry["played"]))
        entry["bar"] = _bar(entry["won"], entry["drawn"], entry["lost"], entry["unfinished"])
        players.append(entry)
    players.sort(key=lambda entry: (-entry["games"], entry["name"]))
    return {"rows": players[:limit], "total": len(players), "shown": min(limit, len(players))}


def _bar(won: int, drawn: int, lost: int, unfinished: int = 0) -> dict:
    """Percentages (summing to 100) of a W/D/L bar."""
    total = won + drawn + lost + unfinished
    if not total:
        return {"won": 0, "drawn": 0, "lost": 0, "unfinished": 100}
    return {
        "won": round(100 * won / total, 1),
        "drawn": round(100 * drawn / total, 1),
        "lost": round(100 * lost / total, 1),
        "unfinished": round(100 * unfinished / total, 1),
    }


def _game_part(
    db: Any,
    notation: GameNotation,
    rows: list[dict],
    options: ReportOptions,
    filters: dict,
    configuration: Configuration,
    varying: set[str] | None,
) -> dict:
    """The part of the report about one game in one configuration (``varying``: the
    settings that differ between the report's configurations of the game, ``None``
    when it holds only this one)."""
    name = notation.name
    valid = [row for row in rows if row["status"] == "valid"]
    part_filters = {key: value for key, value in filters.items() if key != "game"}
    # The games of this part, for the queries below (temp.report_games holds all).
    db.execute("DROP TABLE IF EXISTS temp.report_part")
    db.execute("CREATE TEMP TABLE report_part (id INTEGER PRIMARY KEY)")
    db.conn.executemany(
        "INSERT INTO temp.report_part (id) VALUES (?)", ((row["id"],) for row in rows)
    )
    db.conn.commit()
    tree = tree_from_archive(
        db,
        name,
        depth=options.depth,
        min_games=options.min_games,
        symmetry=options.symmetry,
        configuration=configuration,
        **part_filters,
    )
    notation = configuration.configure(notation)
    default = Configuration.of(notation, notation.rules.min_sides, {})
    labelled = varying is not None or configuration != default
    part: dict[str, Any] = {
        "game": name,
        "anchor": name
        if not labelled
        else "-".join(
            [name, str(configuration.sides)]
            + [value.replace(" ", "_") for _, value in configuration.settings if value]
        ),
        "configuration": configuration.describe(varying or ()),
        "title": notation.rules.title
        + (f" ({configuration.describe(varying or ())})" if labelled else ""),
        "games": len(rows),
        "valid": len(valid),
        "tree": _tree_rows(tree, options),
        "tree_games": tree.games,
        "min_games": tree.min_games,
        "depth": tree.depth,
        "symmetry": tree.symmetry,
        "root": tree.position(),
        "lengths": _lengths(valid, notation),
        "first_moves": _first_moves(tree),
        "positions": _frequent_positions(db, notation, options),
        "finals": _finals(db, notation, options),
        "sections": [],
    }
    ids = [row["id"] for row in rows]
    for builder in _sections_for(name):
        section = builder(db, notation, ids)
        if section is not None:
            part["sections"].append(section)
    return part


def _tree_rows(tree: OpeningTree, options: ReportOptions) -> list[dict]:
    """The tree as rows, depth first, at most ``moves_per_position`` moves a
    position, each with its line from the root and its W/D/L bar."""
    rows: list[dict] = []
    rules = tree.game.rules
    stack: list[tuple[int, Any, list[str]]] = []
    for stats in reversed(tree.moves()[: options.moves_per_position]):
        stack.append((1, stats, []))
    seen = {tree.root}
    while stack:
        level, stats, line = stack.pop()
        parent_state = tree.states[stats.parent]
        number, opens = rules.move_number(parent_state)
        label = f"{number}. {stats.move}" if opens else f"{number}... {stats.move}"
        won, drawn, lost = stats.wdl
        rows.append(
            {
                "level": level,
                "line": " ".join([*line, label]),
                "label": label,
                "move": stats.move,
                "games": stats.games,
                "share": stats.share,
                "won": won,
                "drawn": drawn,
                "lost": lost,
                "unfinished": stats.unfinished,
                "score": stats.score,
                "transpositions": stats.transpositions,
                "examples": stats.examples,
                "last_date": stats.last_date,
                "bar": _bar(won, drawn, lost, stats.unfinished),
                "transposed": False,
            }
        )
        if stats.child in seen:
            # Reached before by another move order: its moves are listed there.
            rows[-1]["transposed"] = bool(tree.moves(stats.child))
            continue
        if level >= options.depth:
            continue
        seen.add(stats.child)
        for child in reversed(tree.moves(stats.child)[: options.moves_per_position]):
            stack.append((level + 1, child, [*line, label]))
    return rows


def _lengths(rows: list[dict], notation: GameNotation) -> dict:
    """Plies per game: a stacked histogram by outcome and a summary."""
    plies = [row["plies"] for row in rows]
    if not plies:
        return {"chart": None, "summary": None}
    sides_default = notation.rules.min_sides
    kinds = {"decisive": [], "drawn": [], "unfinished": []}
    for row in rows:
        kinds[_outcome_kind(row["result"], row["sides"] or sides_default)].append(row["plies"])
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


def _first_moves(tree: OpeningTree) -> dict:
    """First moves from the tree's root: popularity and score."""
    moves = tree.moves()
    if not moves:
        return {"chart": None, "rows": []}
    shown = moves[:24]
    chart = charts.bar_chart(
        [stats.move for stats in shown],
        [stats.games for stats in shown],
        title=f"{tree.game.rules.title}: first moves (label: score of the mover)",
        ylabel="games",
        annotations=["–" if stats.score is None else f"{stats.score:.0%}" for stats in shown],
        colours=[_score_colour(stats.score) for stats in shown],
        salt=f"first-{tree.game.name}",
    )
    rows = []
    for stats in moves:
        won, drawn, lost = stats.wdl
        rows.append(
            {
                "move": stats.move,
                "games": stats.games,
                "share": stats.share,
                "won": won,
                "drawn": drawn,
                "lost": lost,
                "score": stats.score,
                "bar": _bar(won, drawn, lost, stats.unfinished),
            }
        )
    return {"chart": chart, "rows": rows}


def _score_colour(score: float | None) -> str:
    """Red (0%) through grey (50%) to green (100%)."""
    if score is None:
        return charts.OTHER_COLOUR
    low, middle, high = (198, 40, 40), (158, 158, 158), (46, 125, 50)
    if score < 0.5:
        start, end, fraction = low, middle, score / 0.5
    else:
        start, end, fraction = middle, high, (score - 0.5) / 0.5
    red, green, blue = (round(a + (b - a) * fraction) for a, b in zip(start, end, strict=True))
    return f"#{red:02x}{green:02x}{blue:02x}"


def _replay_to(notation: GameNotation, moves: str, start: str | None, plies: int | None):
    """The state after ``plies`` moves of a stored mainline (all without a count)."""
    from partita.analysis.tree import move_reader

    rules = notation.rules
    state = rules.initial() if start is None else notation.parse_position(start)
    read = move_reader(notation)
    last = None
    tokens = moves.split()
    for token in tokens if plies is None else tokens[:plies]:
        before = state
        state = rules.apply(state, read(state, token))
        last = (before, state)
    return state, last


def _changed_cells(notation: GameNotation, before: Any, after: Any) -> list[int]:
    board = board_for(notation)
    old, new = board.cells(before), board.cells(after)
    return [index for index, (a, b) in enumerate(zip(old, new, strict=False)) if a != b]


def _frequent_positions(db: Any, notation: GameNotation, options: ReportOptions) -> dict:
    """The positions most games of the selection reached, from ``position_ply`` on."""
    rows = db.execute(
        "SELECT p.key, count(DISTINCT p.game_id) AS games, min(p.game_id), min(p.ply) "
        "FROM positions p JOIN temp.report_part s ON s.id = p.game_id "
        "JOIN games g ON g.id = p.game_id "
        "WHERE g.game = ? AND g.status = 'valid' AND p.ply >= ? "
        "GROUP BY p.key HAVING games >= 2 "
        "ORDER BY games DESC, min(p.ply) DESC, p.key LIMIT ?",
        (notation.name, options.position_ply, options.positions),
    ).fetchall()
    found = []
    for _key, games, example, ply in rows:
        moves, start = _stored_line(db, example)
        state, last = _replay_to(notation, moves, start, ply)
        ring = _changed_cells(notation, *last) if last else []
        position = notation.format_position(state)
        found.append(
            {
                "games": games,
                "ply": ply,
                "example": example,
                "position": position,
                "line": " ".join(moves.split()[:ply]),
                "svg": Markup(
                    render_diagram(notation, state, caption=position, last=ring, scale=0.62)
                ),
                "text": notation.diagram(state),
            }
        )
    return {"rows": found, "from_ply": options.position_ply}


def _stored_line(db: Any, game_id: int) -> tuple[str, str | None]:
    row = db.execute(
        "SELECT moves, json_extract(tags, '$.SetUp'), json_extract(tags, '$.Position') "
        "FROM games WHERE id = ?",
        (game_id,),
    ).fetchone()
    return row[0] or "", row[2] if row[1] == "1" else None


def _finals(db: Any, notation: GameNotation, options: ReportOptions) -> list[dict]:
    """Final positions of the latest decisive games of the selection."""
    found = []
    rows = db.execute(
        "SELECT g.id, g.moves, g.result, g.sides, g.date, g.event, g.player1, g.player2, "
        "g.player3, g.player4, json_extract(g.tags, '$.SetUp'), "
        "json_extract(g.tags, '$.Position') FROM games g "
        "JOIN temp.report_part s ON s.id = g.id "
        "WHERE g.game = ? AND g.status = 'valid' AND g.result NOT IN ('*', '1/2-1/2') "
        "ORDER BY g.date_max DESC, g.id DESC",
        (notation.name,),
    )
    for row in rows:
        game_id, moves, result, sides, date, event = row[:6]
        if _outcome_kind(result, sides or 2) != "decisive":
            continue
        start = row[11] if row[10] == "1" else None
        try:
            state, last = _replay_to(notation, moves or "", start, None)
        except PartitaError:
            continue
        ring = _changed_cells(notation, *last) if last else []
        outcome = notation.rules.outcome(state)
        players = [name for name in row[6:10] if name]
        found.append(
            {
                "id": game_id,
                "result": result,
                "date": date,
                "event": event,
                "players": players,
                "reason": outcome.reason if outcome is not None else "decided off the board",
                "position": notation.format_position(state),
                "svg": Markup(
                    render_diagram(
                        notation, state, caption=f"game {game_id}", last=ring, scale=0.62
                    )
                ),
                "text": notation.diagram(state),
            }
        )
        if len(found) >= options.finals:
            break
    return found


# -- the replay viewer's data ------------------------------------------------------------------------


def viewer_game(record: Record, game_id: int | str) -> dict | None:
    """A game for the viewer: its tags and every node of its move tree (mainline
    and variations) with the board after it, computed here so the page only
    draws. ``None`` if the record's game or setup cannot be used."""
    from partita.notation.replay import replay

    replayed = replay(record)
    game = replayed.game
    if game is None or replayed.initial_state is None:
        return None
    rules = game.rules
    board = board_for(game)
    start = replayed.initial_state
    nodes: list[dict] = [
        {"f": board.frame(start), "c": list(record.root.comments), "k": [], "p": -1}
    ]
    stack = [(record.root, 0, start)]
    while stack:
        node, index, state = stack.pop()
        for child in node.children:
            entry: dict[str, Any] = {"m": child.move, "p": index, "k": []}
            if child.suffix:
                entry["x"] = child.suffix
            if child.nags:
                entry["g"] = list(child.nags)
            if child.comments:
                entry["c"] = list(child.comments)
            if child.starting_comments:
                entry["s"] = list(child.starting_comments)
            after = None
            try:
                current = state
                forced = rules.forced_pass(current) if child.move != "--" else None
                if forced is not None:
                    current = rules.apply(current, forced)
                number, opens = rules.move_number(current)
                entry["n"] = f"{number}." if opens else f"{number}..."
                after = rules.apply(current, game.parse_move(current, child.move))
            except PartitaError:
                entry["bad"] = True
            if after is not None:
                entry["f"] = board.frame(after)
            nodes.append(entry)
            child_index = len(nodes) - 1
            nodes[index]["k"].append(child_index)
            if after is not None:
                stack.append((child, child_index, after))
    tags = record.tags
    players = [tags[f"Player{seat}"] for seat in range(1, 5) if f"Player{seat}" in tags]
    return {
        "id": game_id,
        "game": game.name,
        "title": " - ".join(players) or f"game {game_id}",
        "result": tags.get("Result", record.result or "*"),
        "tags": list(tags.items()),
        "nodes": nodes,
    }


def _viewer(db: Any, rows: list[dict], options: ReportOptions, data: dict) -> None:
    """The games listed in the report and their viewer data (the latest first)."""
    from partita.notation.reader import read_records

    chosen = sorted(rows, key=lambda row: (row["date_max"] or "", row["id"]), reverse=True)
    chosen = chosen[: options.viewer_games]
    layouts = data["viewer"]["layouts"]
    games = data["viewer"]["games"]
    for row in chosen:
        stored = db.execute("SELECT pgr FROM games WHERE id = ?", (row["id"],)).fetchone()
        record = next(iter(read_records(stored[0] + "\n", name=f"archive:{row['id']}")), None)
        entry = viewer_game(record, row["id"]) if record is not None else None
        listed = {
            "id": row["id"],
            "game": row["game"],
            "date": row["date"],
            "event": row["event"],
            "players": [row[f"player{seat}"] for seat in range(1, 5) if row[f"player{seat}"]],
            "result": row["result"],
            "plies": row["plies"],
            "status": row["status"],
            "viewable": entry is not None,
        }
        data["listed"].append(listed)
        if entry is None:
            continue
        games[str(row["id"])] = entry
        if entry["game"] not in layouts:
            layouts[entry["game"]] = board_for(get_game(entry["game"])).layout.as_dict()
    data["listed_total"] = len(rows)


# -- rendering ----------------------------------------------------------------------------------------


@cache
def _html_environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("partita.analysis", "templates"),
        autoescape=select_autoescape(["html", "svg", "j2", "xml"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["percent"] = _percent
    return environment


def _percent(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:.{digits}%}"


_MARKDOWN_SPECIAL = str.maketrans(
    {
        "\\": "\\\\",
        "`": "\\`",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "|": "\\|",
        "#": "\\#",
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
        "\n": " ",
        "\r": " ",
    }
)


def markdown_escape(value: Any) -> str:
    """A value as Markdown text that renders literally (no emphasis, links, table
    cells or raw HTML); trusted ``Markup`` passes unchanged."""
    if isinstance(value, Markup):
        return str(value)
    if value is None:
        return ""
    return str(value).translate(_MARKDOWN_SPECIAL)


@cache
def _markdown_environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("partita.analysis", "templates"),
        autoescape=False,
        finalize=markdown_escape,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["percent"] = _percent
    environment.filters["code"] = lambda text: Markup(str(text).replace("```", "'''"))
    return environment


def _asset(name: str) -> str:
    return resources.files("partita.analysis").joinpath("templates", name).read_text("utf-8")


def render_html(data: dict) -> str:
    """The report as one self-contained HTML page."""
    script = _asset("viewer.js")
    if "</script" in script.lower():  # never true for the shipped file; a guard
        raise PartitaError("the viewer script may not contain '</script'")
    # The page's Content-Security-Policy allows this one script (by its hash) and
    # no network at all: a script that escaped escaping still could not run.
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        _html_environment()
        .get_template("report.html.j2")
        .render(
            report=data,
            css=Markup(_asset("report.css")),
            script=Markup(script),
            script_hash=f"sha256-{digest}",
        )
    )


def render_markdown(data: dict) -> str:
    """The report as Markdown (diagrams as text, charts as tables)."""
    return _markdown_environment().get_template("report.md.j2").render(report=data)


def write_report(
    target: Any,
    output: str | Path,
    *,
    output_format: str | None = None,
    options: ReportOptions | None = None,
    progress: Callable[[int, int], object] | None = None,
    **filters: Any,
) -> Path:
    """Build the report and write it to ``output``: Markdown when the format is
    ``md`` (by default when ``output`` ends in ``.md``), HTML otherwise;
    ``progress`` as for :func:`build_report`."""
    path = Path(output)
    fmt = output_format or ("md" if path.suffix.lower() in (".md", ".markdown") else "html")
    if fmt not in ("html", "md"):
        raise PartitaError(f"report format '{fmt}': choose html or md")
    data = build_report(target, options=options, progress=progress, **filters)
    text = render_markdown(data) if fmt == "md" else render_html(data)
    path.write_text(text, encoding="utf-8", newline="\n")
    return path
