"""The one registry of games: specs found through the ``partita.games`` entry points.

Every game, the built-in ones included, is a :class:`~partita.games.spec.GameSpec`
named in the ``partita.games`` entry-point group of an installed distribution::

    [project.entry-points."partita.games"]
    mygame = "partita_mygame.spec:SPEC"

The entry point's name is the `Game` tag. Entry points are read once, the first
time a game is asked for; a spec's heavy parts load later still (see
:mod:`partita.games.spec`). A plugin that fails to load does not take the others
down: asking for that game says why, and :func:`broken_plugins` lists them.

Entry points are read from the distributions' metadata folders on ``sys.path``
(their ``entry_points.txt``), as ``importlib.metadata`` reads them, in its order
and with its rule for a distribution installed twice (the first on the path wins):
importing ``importlib.metadata`` and its scan took about 25 ms of a small
import's start-up (it loads ``email``, ``zipfile`` and more). Where the
environment holds what only ``importlib.metadata`` reads (a zip file or an egg
on the path, an import finder with distributions of its own), it is used.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import threading
from importlib import import_module
from importlib.machinery import PathFinder
from typing import TYPE_CHECKING, Any

from partita.errors import PartitaError, UnknownGameError
from partita.games.spec import GameSpec

if TYPE_CHECKING:
    from partita.notation.base import GameNotation

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
        for name, value in installed_entry_points(ENTRY_POINT_GROUP):
            if name in _SPECS:
                continue
            try:
                spec = load_reference(value)
                if callable(spec) and not isinstance(spec, GameSpec):
                    spec = spec()
            except Exception as error:  # a broken plugin must not break the others
                _BROKEN[name] = f"{value}: {type(error).__name__}: {error}"
                continue
            if not isinstance(spec, GameSpec):
                _BROKEN[name] = f"{value} is not a GameSpec"
            elif spec.name != name:
                _BROKEN[name] = f"{value} declares game '{spec.name}' under the name '{name}'"
            else:
                _SPECS[spec.name] = spec
        _LOADED = True


def installed_entry_points(group: str) -> list[tuple[str, str]]:
    """The entry points of ``group`` of the installed distributions, as ``(name,
    value)`` in ``importlib.metadata``'s order: read from their metadata folders,
    or through ``importlib.metadata`` where only it can read them."""
    points = _entry_points_from_folders(group)
    if points is None:
        from importlib.metadata import entry_points

        points = [(point.name, point.value) for point in entry_points(group=group)]
    return points


def _entry_points_from_folders(group: str) -> list[tuple[str, str]] | None:
    """What ``importlib.metadata.entry_points(group=group)`` gives, read from the
    ``*.dist-info`` and ``*.egg-info`` folders of each ``sys.path`` folder; ``None``
    when ``importlib.metadata`` would find distributions elsewhere (an import
    finder of its own, a zip file or an egg on the path)."""
    if any(
        getattr(finder, "find_distributions", None) is not None and finder is not PathFinder
        for finder in sys.meta_path
    ):
        return None
    seen: set[str] = set()
    points: list[tuple[str, str]] = []
    for entry in sys.path:
        folder = entry or "."
        if os.path.basename(folder).lower().endswith(".egg") or os.path.isfile(folder):
            return None
        try:
            children = os.listdir(folder)
        except OSError:  # missing, or no folder
            continue
        for child in children:
            low = child.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            distribution = _normalized(low.rpartition(".")[0].partition("-")[0])
            if distribution in seen:  # the first one on the path wins
                continue
            seen.add(distribution)
            points.extend(_section(os.path.join(folder, child, "entry_points.txt"), group))
    return points


def _normalized(name: str) -> str:
    """A distribution's name as ``importlib.metadata`` compares them."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _section(path: str, group: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of section ``[group]`` of the file ``path``
    (none if it cannot be read), parsed as ``importlib.metadata`` parses them."""
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except (OSError, UnicodeDecodeError):
        return []
    section = None
    found = []
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
        elif section == group and "=" in line:
            name, value = line.split("=", 1)
            found.append((name.strip(), value.strip()))
    return found


_REFERENCE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


def load_reference(value: str) -> Any:
    """The object an entry point's value names (``module:attribute.path``), loaded
    as ``importlib.metadata.EntryPoint.load`` loads it."""
    match = _REFERENCE.match(value)
    if match is None:
        raise ValueError(f"'{value}' is not a module:attribute reference")
    module = import_module(match.group("module"))
    attributes = filter(None, (match.group("attr") or "").split("."))
    return functools.reduce(getattr, attributes, module)


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
        raise UnknownGameError(f"unknown game '{name}' (supported: {known})") from None


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
