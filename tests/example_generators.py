"""The seeded generators of the shipped examples, ``tools/examples/<package>.py``:
scripts of the checkout, not modules of the installed package, loaded by path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TOOLS = Path(__file__).resolve().parent.parent / "tools" / "examples"


def generator(package: str) -> ModuleType:
    """The generator of a game package's examples (``gravity``, ``forceball``...)."""
    name = f"example_generator_{package}"
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{package}.py")
    assert spec is not None and spec.loader is not None, package
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module
