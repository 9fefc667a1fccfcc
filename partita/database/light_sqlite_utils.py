"""sqlite-utils loaded without numpy and pandas, which it imports when they are installed.

sqlite-utils imports numpy (and pandas) at its own import, only to map their scalar
types to SQLite column types; partita never hands it such values, and the import
costs a third of a small import's start-up (about 0.3 s of ``partita import``'s
1 s on this machine, measured with ``python -X importtime``). :func:`install` (called
by :mod:`partita.database`'s ``__init__``, so before any module of the archive
imports sqlite-utils) adds an import hook that runs sqlite-utils' own modules with
numpy and pandas hidden, and nothing else: a program that imports numpy itself,
before or after, gets it as usual (if it is already loaded, sqlite-utils sees it).
"""

from __future__ import annotations

import importlib.machinery
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import importlib.abc

__all__ = ["install"]

_HIDDEN = ("numpy", "pandas")


class _Loader:
    """Runs one sqlite-utils module with the hidden packages unimportable. (The
    import protocol asks a loader for these two methods only; the abstract classes
    of ``importlib.abc`` are not imported for it: they load ``importlib.resources``,
    about 8 ms of every archive command's start-up.)"""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        hidden = [name for name in _HIDDEN if name not in sys.modules]
        for name in hidden:
            sys.modules[name] = None  # type: ignore[assignment]  # import fails
        try:
            self._loader.exec_module(module)
        finally:
            for name in hidden:
                if sys.modules.get(name, False) is None:
                    del sys.modules[name]


class _Finder:
    """Finds sqlite-utils' modules as the path finder does, with a :class:`_Loader`."""

    def find_spec(
        self, fullname: str, path: Any, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "sqlite_utils" and not fullname.startswith("sqlite_utils."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = cast("importlib.abc.Loader", _Loader(spec.loader))
        return spec


_FINDER = _Finder()


def install() -> None:
    """Add the hook (once); nothing if sqlite-utils is already loaded."""
    if "sqlite_utils" not in sys.modules and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
