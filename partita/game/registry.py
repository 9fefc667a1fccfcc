"""The one registry of games: specs found through the ``partita.games`` entry points.

Every game, the built-in ones included, is a :class:`~partita.game.spec.GameSpec`
named in the ``partita.games`` entry-point group of an installed distribution::

    [project.entry-points."partita.games"]
    mygame = "partita_mygame.spec:SPEC"

The entry point's name is the `Game` tag. Entry points are read once, through
:func:`importlib.metadata.entry_points`, the first time a game is asked for
(``importlib.metadata`` is imported then, not at start-up); a spec's heavy parts
load later still (see
:mod:`partita.game.spec`). A plugin that fails to load does not take the others
down: asking for that game says why, and :func:`broken_plugins` lists them.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from partita.errors import PartitaError, UnknownGameError
from partita.game.spec import GameSpec

if TYPE_CHECKING:
    from partita.game.notation import GameNotation

__all__ = [
    "ENTRY_POINT_GROUP",
    "all_games",
    "all_specs",
    "broken_plugins",
    "get_game",
    "get_spec",
    "register",
    "unregister",
]

ENTRY_POINT_GROUP = "partita.games"

_SPECS: dict[str, GameSpec] = {}
_BROKEN: dict[str, str] = {}
_LOADED = False
_LOCK = threading.Lock()


def _load_entry_points() -> None:
    global _LOADED
    if _LOADED:
        return
    with _LOCK:
        if _LOADED:
            return
        from importlib.metadata import entry_points

        for point in entry_points(group=ENTRY_POINT_GROUP):
            if point.name in _SPECS:
                continue
            try:
                spec = point.load()
                if callable(spec) and not isinstance(spec, GameSpec):
                    spec = spec()
            except Exception as error:  # a broken plugin must not break the others
                _BROKEN[point.name] = f"{point.value}: {type(error).__name__}: {error}"
                continue
            if not isinstance(spec, GameSpec):
                _BROKEN[point.name] = f"{point.value} is not a GameSpec"
            elif spec.name != point.name:
                _BROKEN[point.name] = (
                    f"{point.value} declares game '{spec.name}' under the name '{point.name}'"
                )
            else:
                _SPECS[spec.name] = spec
        _LOADED = True


def register(spec: GameSpec) -> GameSpec:
    """Add a game without an entry point (tests, a script's own game)."""
    _load_entry_points()
    _SPECS[spec.name] = spec
    _BROKEN.pop(spec.name, None)
    return spec


def unregister(name: str) -> None:
    _SPECS.pop(name, None)


def get_spec(name: str) -> GameSpec:
    """The spec of the game a `Game` tag names; ``UnknownGameError`` otherwise."""
    _load_entry_points()
    try:
        return _SPECS[name]
    except KeyError:
        if name in _BROKEN:
            raise PartitaError(f"game '{name}' could not be loaded: {_BROKEN[name]}") from None
        if not _SPECS:
            raise UnknownGameError(
                f"unknown game '{name}' (no game is installed: partita's entry points "
                f"are missing; install it with pip install -e .)"
            ) from None
        known = ", ".join(sorted(_SPECS))
        near = nearest_name(name, list(_SPECS))
        guess = f"did you mean {near}? " if near is not None else ""
        raise UnknownGameError(f"unknown game '{name}' ({guess}supported: {known})") from None


def nearest_name(name: str, names: list[str]) -> str | None:
    """The one of ``names`` a typo of ``name`` most likely meant: the only one it
    begins (a prefix), else the closest spelling, if close enough."""
    import difflib

    folded = name.strip().lower()
    starting = [known for known in names if folded and known.lower().startswith(folded)]
    if len(starting) == 1:
        return starting[0]
    close = difflib.get_close_matches(folded, names, n=1, cutoff=0.6)
    return close[0] if close else None


def get_game(name: str) -> GameNotation[Any, Any]:
    """The game a `Game` tag names (unconfigured); ``UnknownGameError`` otherwise."""
    return get_spec(name).game


def all_specs() -> list[GameSpec]:
    """Every game that loaded, by name."""
    _load_entry_points()
    return [_SPECS[name] for name in sorted(_SPECS)]


def all_games() -> list[GameNotation[Any, Any]]:
    return [spec.game for spec in all_specs()]


def broken_plugins() -> dict[str, str]:
    """Entry points that did not load: name -> why."""
    _load_entry_points()
    return dict(_BROKEN)
