"""The report's board diagrams: the positions most games of a part reached, and
the final positions of its latest decisive games.

Each game is replayed from the archive's mainline with its own set-up: its number of
sides, its own tags (a league, a layout, the sides' colours) and its starting
position. A game that still cannot be replayed is not dropped in silence: the part
lists it with the reason. Every diagram of a part is drawn at one scale, the least
at which its smallest text is readable (see
:func:`~partita.analysis.diagrams.readable_scale`),
and carries its card width and the legend of its sides' colours.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from partita.analysis.diagrams import board_for, readable_scale, render_diagram, resize_diagram
from partita.analysis.report.options import ReportOptions
from partita.analysis.report.tallies import outcome_kind
from partita.errors import PartitaError
from partita.game.notation import GameNotation
from partita.game.registry import get_game

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "DIAGRAM_SCALE",
    "GameSetups",
    "changed_cells",
    "finals",
    "fit_cards",
    "frequent_positions",
    "replay_to",
]

#: The scale of a report diagram's view box when its text stays readable at it.
DIAGRAM_SCALE = 0.62


class GameSetups:
    """The notation and starting state of each stored game, from its own tags,
    sides and Position tag (notations cached by the tags that configure them)."""

    def __init__(self, name: str) -> None:
        self.game = get_game(name)
        self._names = [spec.name for spec in self.game.rules.tags]
        self._configured: dict[tuple[str, ...], GameNotation] = {}

    def start(self, row: dict) -> tuple[GameNotation, Any]:
        """``(notation, state)`` a stored game starts from (``row``: ``sides``,
        ``tags`` as JSON text, ``start``); the game's own errors if it cannot."""
        tags = json.loads(row.get("tags") or "{}")
        values = tuple(str(tags.get(name, "")) for name in self._names)
        notation = self._configured.get(values)
        if notation is None:
            chosen = {name: value for name, value in zip(self._names, values, strict=True) if value}
            notation = self._configured[values] = self.game.configure(chosen)
        if row.get("start") is not None:
            return notation, notation.parse_position(row["start"])
        return notation, notation.initial(row.get("sides") or notation.rules.min_sides)


def replay_to(
    notation: GameNotation, moves: str, start: str | None, plies: int | None, *, initial: Any = None
):
    """The state after ``plies`` moves of a stored mainline (all without a count),
    from ``initial`` (by default the set-up ``start``, or the 2-side initial
    position), and the last ``(before, after)`` pair."""
    from partita.analysis.tree import move_reader

    rules = notation.rules
    if initial is not None:
        state = initial
    else:
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


def _replayed(setups: GameSetups, row: dict, plies: int | None):
    """``(notation, state, last move's cells)`` of a stored game after ``plies``."""
    notation, initial = setups.start(row)
    state, last = replay_to(notation, row["moves"], row["start"], plies, initial=initial)
    ring = changed_cells(notation, *last) if last else []
    return notation, state, ring


def _unreplayable(game_id: int, error: Exception) -> dict:
    return {"id": game_id, "reason": str(error).splitlines()[0] if str(error) else "?"}


def frequent_positions(
    db: Archive, notation: GameNotation, game_ids: list[int], options: ReportOptions
) -> dict:
    """The positions most of the games ``game_ids`` reached, from ``position_ply`` on,
    each drawn from its first game (``example``)."""
    from partita.database import selection

    rows = selection.frequent_positions(
        db, notation.name, game_ids, from_ply=options.position_ply, limit=options.positions
    )
    setups = GameSetups(notation.name)
    found = []
    failed = []
    for _key, games, example, ply in rows:
        stored = selection.stored_game(db, example)
        if stored is None:
            continue
        try:
            own, state, ring = _replayed(setups, stored, ply)
        except PartitaError as error:
            failed.append(_unreplayable(example, error))
            continue
        position = own.format_position(state)
        found.append(
            {
                "games": games,
                "ply": ply,
                "example": example,
                "position": position,
                "line": " ".join(stored["moves"].split()[:ply]),
                "svg": render_diagram(own, state, caption=position, last=ring),
                "legend": board_for(own).legend(state),
                "text": own.diagram(state),
            }
        )
    return {"rows": found, "from_ply": options.position_ply, "unreplayable": failed}


def finals(
    db: Archive, notation: GameNotation, game_ids: list[int], options: ReportOptions
) -> dict:
    """Final positions of the latest decisive games among ``game_ids``: ``rows``,
    and ``unreplayable``, the decisive games whose moves could not be replayed."""
    from partita.database.selection import decisive_candidates

    setups = GameSetups(notation.name)
    found = []
    failed = []
    for row in decisive_candidates(db, notation.name, game_ids):
        game_id, result = row["id"], row["result"]
        if outcome_kind(result, row["sides"] or notation.rules.min_sides) != "decisive":
            continue
        try:
            own, state, ring = _replayed(setups, row, None)
        except PartitaError as error:
            failed.append(_unreplayable(game_id, error))
            continue
        outcome = own.rules.outcome(state)
        players = [row[f"player{seat}"] for seat in range(1, 5) if row[f"player{seat}"]]
        found.append(
            {
                "id": game_id,
                "result": result,
                "date": row["date"],
                "event": row["event"],
                "players": players,
                "reason": outcome.reason if outcome is not None else "decided off the board",
                "position": own.format_position(state),
                "svg": render_diagram(own, state, caption=f"game {game_id}", last=ring),
                "legend": board_for(own).legend(state),
                "text": own.diagram(state),
            }
        )
        if len(found) >= options.finals:
            break
    return {"rows": found, "unreplayable": failed}


def fit_cards(*galleries: list[dict]) -> list[tuple[str, str, str]] | None:
    """Draw every diagram of a part's galleries at one scale (see the module
    docstring): each row's ``svg`` becomes trusted markup and gets its ``width``.
    Returns the legend the diagrams share, or ``None`` when they differ (then
    each diagram shows its own)."""
    rows = [row for gallery in galleries for row in gallery]
    if not rows:
        return None
    scale = max(readable_scale(row["svg"], scale=DIAGRAM_SCALE) for row in rows)
    for row in rows:
        svg, width = resize_diagram(row["svg"], scale)
        row["svg"], row["width"] = Markup(svg), width
    legends = {tuple(row["legend"]) for row in rows}
    if len(legends) == 1:
        common = list(next(iter(legends)))
        for row in rows:
            row["legend"] = None
        return common
    return None
