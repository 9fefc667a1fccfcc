"""The twin key: one signed 64-bit integer that twin games share.

Two games are *twins* when they are the same game on the board whatever their
tags, comments, annotations, variations and layout: the same ``Game``, the same
set-up (the number of sides, the game's own rule tags with their defaults filled
in, as :class:`~partita.notation.configuration.Configuration` reads them, and the
starting position's key) and the same mainline in canonical tokens (so ``T3`` and
``t3`` are one move). The archive stores

    twin_key = fold_key(game, (sides, settings, start key, mainline))

in ``games.twin_key`` (indexed), so finding twins is a ``GROUP BY`` on an index.

Only valid games have a twin key (NULL otherwise): the archive keeps an invalid
record's mainline only up to its first illegal move, and two records that differ
after it are not the same game.

This module imports nothing of SQLite: a worker process of a parallel import
computes the key (:func:`partita.database.prepare.prepare_record`).
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from partita.database.keys import fold_key
from partita.errors import PartitaError
from partita.games.registry import get_game
from partita.notation.base import GameNotation
from partita.notation.configuration import Configuration

__all__ = ["row_twin_key", "twin_key"]


def twin_key(
    notation: GameNotation[Any, Any],
    sides: int,
    tags: Mapping[str, str],
    start: Any,
    moves: Sequence[str],
) -> int:
    """The twin key of a game of ``notation`` with these tags, starting from state
    ``start`` and playing the canonical tokens ``moves``."""
    settings = Configuration.of(notation, sides, tags).settings
    return _fold(notation.name, sides, settings, notation.rules.key(start), moves)


def _fold(
    game: str,
    sides: int,
    settings: tuple[tuple[str, str], ...],
    start_key: Hashable,
    moves: Sequence[str],
) -> int:
    return fold_key(game, (sides, settings, start_key, " ".join(moves)))


def row_twin_key(
    game: str | None, sides: int | None, tags: str, moves: str, status: str
) -> int | None:
    """The twin key of a stored ``games`` row (its ``game``, ``sides``, ``tags``
    JSON, ``moves`` and ``status``), the value the importer gave it; ``None`` for
    an invalid game or one whose game this partita does not know.

    For the migration that added the column and for merging archives: no replay,
    only the set-up is read again (its start position cached per set-up)."""
    if status != "valid" or game is None or sides is None:
        return None
    values = json.loads(tags)
    try:
        notation = get_game(game)
    except PartitaError:
        return None
    configuration = Configuration.of(notation, sides, values)
    position = values.get("Position") if values.get("SetUp") == "1" else None
    start_key = _start_key(configuration, position)
    if start_key is None:
        return None
    return _fold(game, sides, configuration.settings, start_key, moves.split() if moves else [])


@lru_cache(maxsize=4096)
def _start_key(configuration: Configuration, position: str | None) -> Hashable | None:
    """The key of a set-up's starting position: the game configured by its
    settings (as the analysis does), at its initial position or ``position``."""
    try:
        notation = configuration.configure(get_game(configuration.game))
        sides = configuration.sides
        start = (
            notation.initial(sides)
            if position is None
            else notation.parse_position(position, sides)
        )
    except PartitaError:
        return None
    return notation.rules.key(start)
