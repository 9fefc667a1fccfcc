"""Forceball's rules engine stays pure: its modules import nothing of partita but
the errors, the rules contract and the engine's own modules (no notation, archive,
analysis or CLI), so the layering rule holds file by file inside the package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "partita" / "games" / "forceball"
ENGINE = [
    "cards",
    "choices",
    "determinize",
    "narration",
    "rules",
    "sampler",
    "turn",
    "turns",
    "values",
    "words",
]
ALLOWED = {"partita.errors", "partita.game.rules"} | {
    f"partita.games.forceball.{name}" for name in ENGINE
}


def partita_imports(path: Path) -> set[str]:
    """Every partita module a file imports, at any depth (TYPE_CHECKING included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: relative import"
            found.add(node.module or "")
    return {name for name in found if name.split(".")[0] == "partita"}


@pytest.mark.parametrize("name", ENGINE)
def test_engine_modules_import_only_the_contract_and_each_other(name):
    imported = partita_imports(PACKAGE / f"{name}.py")
    assert imported <= ALLOWED, sorted(imported - ALLOWED)


def test_the_check_sees_a_forbidden_import(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text(
        "def f():\n    from partita.game.notation import GameNotation\n", encoding="utf-8"
    )
    assert partita_imports(module) == {"partita.game.notation"}
