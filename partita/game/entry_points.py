"""The entry points of one group, read as ``importlib.metadata`` reads them, faster.

Every command names a game, so every command reads the ``partita.games`` group,
and ``importlib.metadata`` costs 25-31 ms to import and scan on this machine
(email, csv, zipfile...; a 300-game import takes 0.3 s in all). Where the
installed distributions are plain directories on ``sys.path`` (``*.dist-info``
and ``*.egg-info`` folders: what pip makes, editable installs included) this
module reads their ``entry_points.txt`` itself, in the order and with the
deduplication ``importlib.metadata.entry_points`` uses (the first distribution of
a name on ``sys.path`` wins). Anything else (a zip on ``sys.path``, an ``.egg``,
a finder that lists distributions of its own) is left to ``importlib.metadata``.
tests/test_entry_points.py checks both give the same.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from functools import reduce
from importlib import import_module
from typing import Any

__all__ = ["EntryPoint", "entry_points"]

_METADATA_SUFFIXES = (".dist-info", ".egg-info")
#: What importlib.metadata's ``EntryPoint.pattern`` accepts: module, attribute, extras.
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


@dataclass(frozen=True)
class EntryPoint:
    """One entry point: its name, its ``module:attribute`` value, its group."""

    name: str
    value: str
    group: str

    def load(self) -> Any:
        """The object the value names (its module imported)."""
        match = _VALUE.match(self.value)
        if match is None:
            raise ValueError(f"not an entry point's value: {self.value!r}")
        attributes = filter(None, (match.group("attr") or "").split("."))
        return reduce(getattr, attributes, import_module(match.group("module")))


def entry_points(group: str) -> list[EntryPoint]:
    """The entry points of ``group`` of the installed distributions."""
    found = _from_directories(group)
    if found is None:
        from importlib import metadata

        return [EntryPoint(p.name, p.value, p.group) for p in metadata.entry_points(group=group)]
    return found


def _from_directories(group: str) -> list[EntryPoint] | None:
    """The entry points read from the metadata folders on ``sys.path``; ``None``
    where a distribution might be somewhere this does not look."""
    if any(_lists_distributions(finder) for finder in sys.meta_path):
        return None
    seen: set[str] = set()
    found: list[EntryPoint] = []
    for entry in sys.path:
        place = entry or "."
        if os.path.isfile(place) or place.lower().endswith(".egg"):  # a zip, an egg
            return None
        try:
            children = os.listdir(place)
        except OSError:  # missing, not a folder, a path hook's name
            continue
        for child in children:  # in the folder's order, as importlib.metadata
            if not child.lower().endswith(_METADATA_SUFFIXES):
                continue
            name = _normalized_name(child)
            if name in seen:
                continue
            seen.add(name)
            found += _read(os.path.join(place, child, "entry_points.txt"), group)
    return found


def _lists_distributions(finder: object) -> bool:
    """Whether a meta-path finder other than the path finder lists distributions."""
    from importlib.machinery import PathFinder

    return finder is not PathFinder and callable(getattr(finder, "find_distributions", None))


def _normalized_name(folder: str) -> str:
    """A metadata folder's distribution name as importlib.metadata compares them."""
    stem = os.path.splitext(folder)[0]
    name = stem.partition("-")[0]
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _read(path: str, group: str) -> list[EntryPoint]:
    """The entry points of ``group`` in an ``entry_points.txt`` (an INI text)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError:  # a distribution without entry points
        return []
    found, section = [], None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == group and "=" in line:  # importlib.metadata fails on one without
            name, _, value = line.partition("=")
            found.append(EntryPoint(name.strip(), value.strip(), group))
    return found
