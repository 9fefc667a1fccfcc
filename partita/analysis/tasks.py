"""What travels to a worker to name a game: its `Game` tag and its tags.

A task sent through :mod:`partita.execution` carries plain values only. A game is
sent as :class:`GameRef`, which a worker turns back into the configured notation
(once per process: :func:`resolve_game` caches it). An engine the registry does not
know (a test's custom board, a script's own game) travels as the notation object
itself, which must then pickle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from partita.errors import PartitaError
from partita.game.notation import GameNotation
from partita.game.registry import get_game

__all__ = ["GameRef", "game_ref", "resolve_game"]


@dataclass(frozen=True, slots=True)
class GameRef:
    """A registered game by name and tags, or (``notation`` set) an unregistered one."""

    name: str
    tags: tuple[tuple[str, str], ...] = ()
    notation: GameNotation | None = None


def game_ref(notation: GameNotation, tags: Mapping[str, str] | None = None) -> GameRef:
    """How to send ``notation`` (configured by ``tags``) to a worker."""
    pairs = tuple(sorted((tags or {}).items()))
    try:
        registered = get_game(notation.name)
    except PartitaError:
        return GameRef(notation.name, pairs, notation)
    if type(registered.rules) is not type(notation.rules):
        return GameRef(notation.name, pairs, notation)
    return GameRef(notation.name, pairs)


#: The first unregistered engine sent for each game, set-up and start: tasks sent
#: later play on that one (interned, not a cache: the value is what was sent).
_UNREGISTERED: dict[tuple, GameNotation] = {}


def resolve_game(ref: GameRef) -> GameNotation:
    """The configured notation ``ref`` names (one per process: an unregistered
    engine sent with every task is kept the first time, told apart by its start)."""
    if ref.notation is not None:
        rules = ref.notation.rules
        key: tuple = (ref.name, ref.tags, rules.diagram(rules.initial(rules.min_sides)))
        return _UNREGISTERED.setdefault(key, ref.notation)
    return _registered_game(ref.name, ref.tags)


@cache
def _registered_game(name: str, tags: tuple[tuple[str, str], ...]) -> GameNotation:
    """A registered game configured by ``tags``, once per process."""
    return get_game(name).configure(dict(tags))
