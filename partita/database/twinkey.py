"""The twin key: one signed 64-bit integer that twin games share.

Two games are *twins* when they are the same game on the board whatever their
tags, comments, annotations, variations and layout: the same ``Game``, the same
set-up (the number of sides, the game's own rule tags with their defaults filled
in, as :class:`~partita.game.configuration.Configuration` reads them, and the
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
from hashlib import blake2b
from typing import Any

from partita.database.keys import encode_key, fold_key
from partita.errors import PartitaError
from partita.game.configuration import Configuration
from partita.game.notation import GameNotation
from partita.game.registry import get_game

__all__ = ["row_twin_key", "twin_key"]


def twin_key(
    notation: GameNotation[Any, Any],
    sides: int,
    tags: Mapping[str, str],
    start: Any,
    moves: Sequence[str],
    mainline: str | None = None,
) -> int:
    """The twin key of a game of ``notation`` with these tags, starting from state
    ``start`` and playing the canonical tokens ``moves``.

    The importer asks for every valid record, and the set-up part of the folded
    tuple repeats from record to record: its hash state is made once per set-up
    (:func:`_setup_hasher`) and only the mainline is hashed per record, which gives
    :func:`_fold`'s value (``tests/test_prepare_parts.py`` holds the two equal).
    ``mainline``: ``" ".join(moves)``, when the caller has it already."""
    rules = notation.rules
    specs = _SPECS.get(id(rules))
    if specs is None or specs[0] is not rules:
        if len(_SPECS) >= _SPECS_KEPT:
            _SPECS.clear()  # a game configured anew for each record keeps no engines alive
        specs = _SPECS[id(rules)] = (rules, [spec for spec in rules.tags if not spec.cosmetic])
    settings = tuple((spec.name, tags.get(spec.name) or spec.default or "") for spec in specs[1])
    setup = (notation.name, sides, settings, rules.key(start))
    hasher = _HASHERS.get(setup)
    if hasher is None:
        if len(_HASHERS) >= _HASHERS_KEPT:
            _HASHERS.clear()
        hasher = _HASHERS[setup] = _setup_hasher(*setup)
    text = (" ".join(moves) if mainline is None else mainline).encode("utf-8")
    folded = hasher.copy()
    folded.update(b"s" + len(text).to_bytes(4, "little") + text)
    return int.from_bytes(folded.digest(), "little", signed=True)


#: Each rules engine's set-up tags that make a configuration (its non-cosmetic
#: ones, as :meth:`Configuration.of` reads them), by ``id`` (the engine kept, so an
#: id reused by another object is told apart).
_SPECS: dict[int, tuple[Any, list[Any]]] = {}
_SPECS_KEPT = 64
#: The hash state of a set-up (game, sides, settings, start key), at most this many.
_HASHERS: dict[tuple[str, int, tuple[tuple[str, str], ...], Hashable], Any] = {}
_HASHERS_KEPT = 4096


def _setup_hasher(
    name: str, sides: int, settings: tuple[tuple[str, str], ...], start_key: Hashable
) -> Any:
    """The blake2b state of :func:`_fold`'s input up to the mainline: the game's
    tag, then the 4-tuple's header and first three elements (``encode_key`` writes
    a tuple as its header followed by each element's encoding)."""
    head = encode_key((sides, settings, start_key, ""))
    head = head[: -len(encode_key(""))]  # the empty mainline's encoding, last
    return blake2b(name.encode("utf-8") + b"\x00" + head, digest_size=8)


def _fold(
    name: str,
    sides: int,
    settings: tuple[tuple[str, str], ...],
    start_key: Hashable,
    moves: Sequence[str],
) -> int:
    return fold_key(name, (sides, settings, start_key, " ".join(moves)))


def row_twin_key(
    name: str | None, sides: int | None, tags: str, moves: str, status: str
) -> int | None:
    """The twin key of a stored ``games`` row (its ``game`` as ``name``, ``sides``, ``tags``
    JSON, ``moves`` and ``status``), the value the importer gave it; ``None`` for
    an invalid game or one whose game this partita does not know.

    For the migration that added the column and for merging archives: no replay,
    only the set-up is read again (its start position cached per set-up)."""
    if status != "valid" or name is None or sides is None:
        return None
    values = json.loads(tags)
    try:
        notation = get_game(name)
    except PartitaError:
        return None
    configuration = Configuration.of(notation, sides, values)
    position = values.get("Position") if values.get("SetUp") == "1" else None
    start_key = _start_key(configuration, position)
    if start_key is None:
        return None
    return _fold(name, sides, configuration.settings, start_key, moves.split() if moves else [])


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
