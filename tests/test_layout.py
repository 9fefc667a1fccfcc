"""The map of the house, checked on the source: which folder is which layer, what
each layer may import, games as plugin packages on the top floor, a framework that
knows no game, and pure rules engines.

The same map is the table under "The layers" in ``docs/architecture.md``;
``test_the_architecture_page_shows_this_map`` keeps the two equal. A game's name
may appear only inside its own package ``partita/games/<game>/`` (and in the entry
points of pyproject.toml); the framework asks the registry. A rules engine imports
nothing of partita but the contract (``partita.game.rules``), the errors and its
own package's pure modules.
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Layer:
    """One floor of the house: what it holds (``partita/x/`` a folder and all in it,
    ``partita/x.py`` one module) and the layers it may import besides its own."""

    name: str
    holds: tuple[str, ...]
    may_import: tuple[str, ...]


#: The map, lowest floor first. A module may import its own layer and the layers
#: its row names, which are always below it: imports go one way.
LAYERS = (
    Layer(
        "base",
        (
            "partita/__init__.py",
            "partita/errors.py",
            "partita/cores.py",
            "partita/outfiles.py",
            "partita/lazy.py",
            "partita/execution.py",
        ),
        (),
    ),
    Layer("game", ("partita/game/",), ("base",)),
    Layer("notation", ("partita/notation/",), ("base", "game")),
    Layer("database", ("partita/database/",), ("base", "game", "notation")),
    Layer("bulk", ("partita/bulk/",), ("base", "game", "notation", "database")),
    Layer(
        "analysis",
        ("partita/analysis/", "partita/conformance.py"),
        ("base", "game", "notation", "database", "bulk"),
    ),
    Layer("web", ("partita/web/",), ("base", "game", "notation", "database", "bulk", "analysis")),
    Layer(
        "cli",
        ("partita/cli/", "partita/__main__.py"),
        ("base", "game", "notation", "database", "bulk", "analysis", "web"),
    ),
    Layer(
        "games",
        ("partita/games/",),
        ("base", "game", "notation", "database", "bulk", "analysis", "web", "cli"),
    ),
)
NAMES = [layer.name for layer in LAYERS]


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


def _imports(path: Path, names: bool = False) -> list[str]:
    """Modules ``path`` imports at run time (not those under ``if TYPE_CHECKING:``);
    with ``names``, also each name taken from a module (``from partita import x``
    imports ``partita.x``, which may be a module)."""
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
            if names:
                found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return found


#: Modules of a game package that belong to its pure engine (the rest may use
#: notation, analysis or the CLI: they are the game's plugins into those layers).
ENGINE_MODULES = {
    "rules",
    "cards",
    "values",
    "turn",
    "turns",
    "choices",
    "sampler",
    "words",
    "determinize",
    "narration",
    "geometry",
    "player",
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


def layer_of(module: str) -> Layer | None:
    """The layer holding the dotted name ``module`` (a module, or a name inside one),
    or None outside partita."""
    parts = module.split(".")
    while parts:
        path = "/".join(parts)
        for layer in LAYERS:
            for held in layer.holds:
                if held in (f"{path}.py", f"{path}/__init__.py"):
                    return layer
                if held.endswith("/") and f"{path}/".startswith(held):
                    return layer
        parts.pop()
    return None


def package_modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def test_the_map_goes_one_way():
    for position, layer in enumerate(LAYERS):
        for name in layer.may_import:
            assert name in NAMES[:position], (
                f"{layer.name} may import {name}, which is not below it"
            )


def test_every_module_is_on_the_map():
    unplaced = sorted(module for module in package_modules() if layer_of(module) is None)
    assert unplaced == []


def test_each_layer_imports_only_what_the_map_allows():
    offenders = []
    for module, path in sorted(package_modules().items()):
        own = layer_of(module)
        assert own is not None
        allowed = {own.name, *own.may_import}
        for imported in _imports(path, names=True):
            target = layer_of(imported)
            if target is not None and target.name not in allowed:
                offenders.append(f"{module} ({own.name}) imports {imported} ({target.name})")
    assert offenders == []


def test_the_framework_imports_no_game_package():
    games = {package.name for package in game_packages()}
    offenders = []
    for module, path in sorted(package_modules().items()):
        if module.startswith("partita.games."):
            continue
        for imported in _imports(path, names=True):
            parts = imported.split(".")
            if parts[:2] == ["partita", "games"] and len(parts) > 2 and parts[2] in games:
                offenders.append(f"{module} imports the game module {imported}")
    assert offenders == []


def test_game_packages_do_not_import_each_other():
    games = {package.name for package in game_packages()}
    offenders = []
    for module, path in sorted(package_modules().items()):
        parts = module.split(".")
        if parts[:2] != ["partita", "games"] or len(parts) < 3:
            continue
        for imported in _imports(path, names=True):
            other = imported.split(".")
            same_floor = other[:2] == ["partita", "games"] and len(other) > 2
            if same_floor and other[2] in games and other[2] != parts[2]:
                offenders.append(f"{module} imports {imported}")
    assert offenders == []


def _documented_map() -> list[tuple[str, list[str], list[str]]]:
    """The rows of the table under "## The layers" in docs/architecture.md:
    (layer, its modules, what it may import), each in backquotes."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        names = [re.findall(r"`([^`]+)`", cell) for cell in cells[:3]]
        rows.append((names[0][0], names[1], names[2]))
    return rows


def test_the_architecture_page_shows_this_map():
    expected = [
        (layer.name, sorted(layer.holds), list(layer.may_import)) for layer in reversed(LAYERS)
    ]
    shown = [(name, sorted(modules), may) for name, modules, may in _documented_map()]
    assert shown == expected


def test_commands_do_not_import_each_other():
    """What two command modules share lives in the library or in ``partita/cli``'s
    helpers (options, game_options, inputs, output), never in a command module."""
    commands = PACKAGE / "cli" / "commands"
    offenders = [
        f"{path.name} imports {imported}"
        for path in sorted(commands.glob("*.py"))
        for imported in _imports(path)
        if imported.startswith("partita.cli.commands.")
    ]
    assert offenders == []
