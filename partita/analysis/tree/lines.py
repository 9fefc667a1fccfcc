"""The games a tree is built from, as :class:`~partita.analysis.tree.value.GameLine`
values: from the archive (its canonical mainlines, no record parsing) or from
records (replayed through their rules)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from partita.analysis.tree.value import GameLine
from partita.game.notation import GameNotation

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = ["lines_from_archive", "lines_from_records", "move_reader"]


def move_reader(game: GameNotation) -> Callable[[Any, str], Any]:
    """``(state, token) -> move`` for canonical tokens of legal moves (archived
    mainlines): the game's :meth:`~partita.game.notation.GameNotation.parse_move`."""
    return game.parse_move


def lines_from_archive(
    target: Archive, *, include_invalid: bool = False, **filters: Any
) -> Iterator[GameLine]:
    """The games of the archive matching the filters (those of
    :func:`partita.database.query_games`), as :class:`GameLine` values, by id.

    Invalid games (stored with their legal prefix) are left out unless
    ``include_invalid``: their results may contradict their moves. A game set up
    from a position carries it in ``start`` (as position notation).
    """
    from partita.database.selection import game_lines

    for row in game_lines(target, include_invalid=include_invalid, **filters):
        yield GameLine(
            row["id"],
            row["moves"],
            row["result"],
            row["date"],
            row["date_min"],
            row["date_max"],
            row["start"],
        )


def lines_from_records(records: Iterable[Any], name: str | None = None) -> Iterator[GameLine]:
    """Records (or replayed records) as :class:`GameLine` values numbered from 1,
    replayed through their rules; records of another game than ``name`` (when
    given) and records whose game or setup cannot be used are skipped."""
    from partita.database.prepare import date_bounds
    from partita.notation.replay import ReplayedRecord, replay

    number = 0
    for item in records:
        replayed = item if isinstance(item, ReplayedRecord) else replay(item)
        record = replayed.record
        number += 1
        if replayed.game is None or replayed.initial_state is None:
            continue
        if name is not None and replayed.game.name != name:
            continue
        tags = record.tags
        date = tags.get("Date")
        low, high = date_bounds(date)
        start = tags.get("Position") if tags.get("SetUp") == "1" else None
        yield GameLine(
            number, list(replayed.moves), tags.get("Result", record.result), date, low, high, start
        )
