"""The report's board diagrams: the positions most games of a part reached, and
the final positions of its latest decisive games, replayed from the archive's
mainlines."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from partita.analysis.diagrams import board_for, render_diagram
from partita.analysis.report.options import ReportOptions
from partita.analysis.report.tallies import outcome_kind
from partita.errors import PartitaError
from partita.notation.base import GameNotation

__all__ = ["changed_cells", "finals", "frequent_positions", "replay_to"]


def replay_to(notation: GameNotation, moves: str, start: str | None, plies: int | None):
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


def changed_cells(notation: GameNotation, before: Any, after: Any) -> list[int]:
    board = board_for(notation)
    old, new = board.cells(before), board.cells(after)
    return [index for index, (a, b) in enumerate(zip(old, new, strict=False)) if a != b]


def frequent_positions(
    db: Any, notation: GameNotation, game_ids: list[int], options: ReportOptions
) -> dict:
    """The positions most of the games ``game_ids`` reached, from ``position_ply`` on."""
    from partita.database import selection

    rows = selection.frequent_positions(
        db, notation.name, game_ids, from_ply=options.position_ply, limit=options.positions
    )
    found = []
    for _key, games, example, ply in rows:
        moves, start = selection.stored_line(db, example)
        state, last = replay_to(notation, moves, start, ply)
        ring = changed_cells(notation, *last) if last else []
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


def finals(
    db: Any, notation: GameNotation, game_ids: list[int], options: ReportOptions
) -> list[dict]:
    """Final positions of the latest decisive games among ``game_ids``."""
    from partita.database.selection import decisive_candidates

    found = []
    for row in decisive_candidates(db, notation.name, game_ids):
        game_id, result = row["id"], row["result"]
        if outcome_kind(result, row["sides"] or 2) != "decisive":
            continue
        try:
            state, last = replay_to(notation, row["moves"], row["start"], None)
        except PartitaError:
            continue
        ring = changed_cells(notation, *last) if last else []
        outcome = notation.rules.outcome(state)
        players = [row[f"player{seat}"] for seat in range(1, 5) if row[f"player{seat}"]]
        found.append(
            {
                "id": game_id,
                "result": result,
                "date": row["date"],
                "event": row["event"],
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
