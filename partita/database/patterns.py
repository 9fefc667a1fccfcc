"""Pattern search over the archive: the first ply at which a game's legal mainline
stands on a position matching a pattern (``query --pattern``).

The archive keeps position *keys*, which say nothing about a pattern's cells, so
each pre-selected game is replayed through its game's trusted path (the same
move reader the opening tree uses) and every position, the start included, is
tested with the game's :meth:`~partita.game.notation.GameNotation.parse_pattern`.
SQL calls :func:`first_matching_ply` as ``partita_pattern`` (registered on every
archive connection), after the other filters, so that only their games are
replayed.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from partita.errors import NotationError, PartitaError
from partita.game.registry import all_games, get_game

__all__ = ["first_matching_ply", "pattern_games"]


def pattern_games(pattern: str, name: str | None = None) -> list[str]:
    """The games whose notation reads ``pattern`` (only ``name`` when given);
    ``NotationError`` with each game's reason when none does."""
    notations = [get_game(name)] if name is not None else list(all_games())
    found = []
    errors = []
    for notation in notations:
        try:
            notation.parse_pattern(pattern)
        except NotationError as error:
            errors.append(f"{notation.name}: {error}")
            continue
        found.append(notation.name)
    if not found:
        if name is not None:
            raise NotationError(errors[0].split(": ", 1)[1])
        raise NotationError(
            f"pattern '{pattern}' is no pattern of any supported game ({'; '.join(errors)})"
        )
    return found


@lru_cache(maxsize=256)
def _configured(name: str, settings: tuple[tuple[str, str], ...]) -> Any:
    notation = get_game(name)
    return notation.configure(dict(settings)) if settings else notation


@lru_cache(maxsize=64)
def _tag_names(notation: Any) -> tuple[str, ...]:
    """``SetUp`` then the game's own tags: what a replay needs of a record's tags."""
    return ("SetUp", *(spec.name for spec in notation.rules.tags))


@lru_cache(maxsize=256)
def _reader(notation: Any) -> Any:
    return notation.parse_move


@lru_cache(maxsize=256)
def _pattern(notation: Any, text: str) -> Any:
    try:
        return notation.parse_pattern(text)
    except NotationError:
        return None  # not this game's pattern: none of its games matches


_last: list[Any] = [None, None]


def first_matching_ply(
    pattern: str, game_id: int, name: str | None, moves: str | None, sides: int | None, tags: str
) -> int | None:
    """The first ply (0: the start) after which game ``game_id`` stood on a position
    matching ``pattern``, or ``None``; the last answer is kept, so that SQL asking
    again for the same game (the WHERE part, then the column) replays it once."""
    asked = (pattern, game_id)
    if _last[0] == asked:
        return _last[1]
    found = _first(pattern, name, moves, sides, tags)
    _last[0], _last[1] = asked, found
    return found


def _first(
    pattern: str, game: str | None, moves: str | None, sides: int | None, tags: str
) -> int | None:
    if game is None:
        return None
    try:
        base = get_game(game)
    except PartitaError:
        return None
    names = _tag_names(base)
    # Most records set nothing up: read their tags only when a name the replay needs is there.
    wanted_tags = tags and any(f'"{name}"' in tags for name in names)
    values = json.loads(tags) if wanted_tags else {}
    settings = tuple((name, values[name]) for name in names[1:] if name in values)
    sides = sides or base.rules.min_sides
    try:
        notation = _configured(game, settings)
        wanted = _pattern(notation, pattern)
        if wanted is None:
            return None
        if values.get("SetUp") == "1":
            state = notation.parse_position(values.get("Position", ""), sides)
        else:
            state = notation.initial(sides)
    except PartitaError:
        return None  # a set-up the archive kept with its problems: nothing to test
    if wanted.matches(state):
        return 0
    rules = notation.rules
    read = _reader(notation)
    apply = rules.apply
    matches = wanted.matches
    for ply, token in enumerate((moves or "").split(), start=1):
        state = apply(state, read(state, token))
        if matches(state):
            return ply
    return None
