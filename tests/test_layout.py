"""The house's layout rules, checked on the source: games are packages, the
framework knows no game, rules engines are pure, and imports go one way.

A game's name may appear only inside its own package ``partita/games/<game>/``
(and in the entry points of pyproject.toml); the framework asks the registry. A
rules engine imports nothing of partita but the contract (``partita.game.rules``),
the errors and its own package's pure modules.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from partita.game.registry import all_specs

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "partita"
GAMES = PACKAGE / "games"

#: Every way the source spells a built-in game (tags, titles, modules, classes).
GAME_WORDS = re.compile(
    r"forza|connect ?4|connect[ -_]?four|gravity|universal[ _-]?forces|circular[ _-]?reasoning"
    r"|forceball",
    re.IGNORECASE,
)

#: The layers of the framework, lowest first: a module may import its own layer
#: and those below it, never one above.
LAYERS = ["errors", "game", "notation", "database", "bulk", "analysis", "web", "cli", "games"]


def game_packages() -> list[Path]:
    return sorted(path for path in GAMES.iterdir() if (path / "__init__.py").exists())


def framework_files() -> list[Path]:
    """Every text file of the package outside the games' own packages."""
    inside = set(game_packages())
    files = []
    for path in PACKAGE.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in {".so", ".pyc"}:
            continue
        if any(package in path.parents for package in inside):
            continue
        files.append(path)
    return files


def test_every_built_in_game_is_a_package_with_a_spec():
    packages = {path.name for path in game_packages()}
    assert packages == {"gravity", "universal_forces", "circular_reasoning", "forceball"}
    for spec in all_specs():
        module = spec.game.__class__.__module__
        assert module.startswith("partita.games."), (spec.name, module)
        assert module.split(".")[2] in packages


def test_no_framework_file_names_a_game():
    offenders = []
    for path in framework_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if GAME_WORDS.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_built_in_games_register_through_entry_points():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    points = project["project"]["entry-points"]["partita.games"]
    assert set(points) == {spec.name for spec in all_specs()}
    for name, target in points.items():
        module, _, attribute = target.partition(":")
        assert module.startswith("partita.games.") and module.endswith(".spec"), name
        assert attribute


def _imports(path: Path) -> list[str]:
    """Modules ``path`` imports at run time (not those under ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            node.body = []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


#: Modules of a game package that belong to its pure engine (the rest may use
#: notation, analysis or the CLI: they are the game's plugins into those layers).
ENGINE_MODULES = {
    "rules",
    "cards",
    "values",
    "turn",
    "turns",
    "sampler",
    "words",
    "determinize",
    "narration",
}


@pytest.mark.parametrize("package", game_packages(), ids=lambda path: path.name)
def test_rules_engines_are_pure(package):
    own = f"partita.games.{package.name}"
    engine = {f"{own}.{path.stem}" for path in package.glob("*.py") if path.stem in ENGINE_MODULES}
    assert engine, f"{package.name} has no rules module"
    for module in sorted(engine):
        path = package / (module.rsplit(".", 1)[1] + ".py")
        for imported in _imports(path):
            if not imported.startswith("partita"):
                continue
            allowed = imported in {"partita.errors", "partita.game.rules"} or imported in engine
            assert allowed, f"{path.relative_to(ROOT)} imports {imported}"


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "partita" or len(parts) < 2:
        return None
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else None


def test_framework_imports_go_one_way():
    """notation never imports database, analysis or cli; database never analysis or
    cli; analysis never web or cli; web never cli (the games' packages are plugins and are not layers)."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(ROOT).with_suffix("")
        module = ".".join(relative.parts)
        if any(package in path.parents for package in game_packages()):
            continue
        own = _layer(module)
        if own is None:
            continue
        for imported in _imports(path):
            if imported.startswith("partita.games.") and imported.split(".")[2] in {
                package.name for package in game_packages()
            }:
                offenders.append(f"{module} imports the game module {imported}")
                continue
            layer = _layer(imported)
            if layer is not None and layer > own:
                offenders.append(f"{module} imports {imported}, a layer above it")
    assert offenders == []
