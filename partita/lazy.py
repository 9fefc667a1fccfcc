"""A package's public names imported on first use (PEP 562), for the packages
whose modules are dear to load and not all needed at once (the archive, the bulk
wing): a worker process or a command then loads only the modules it touches."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, modules: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` (its ``__name__``), whose
    public names are each defined in the submodule ``modules`` names for it;
    ``namespace`` is the package's ``globals()``, where a name imported once stays."""

    def __getattr__(name: str) -> object:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *modules})

    return __getattr__, __dir__
