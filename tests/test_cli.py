"""The `partita` command as a user runs it: exit codes, JSON, no tracebacks.

In-process through the console script's entry point (tests/cli_runner.py), apart from
a few real processes: an import and a validation end to end, and the start-up probes.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import shellingham
from cli_runner import CliResult, run_cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
RULEBOOK = EXAMPLES / "forza4x4" / "rulebook-example.pgr"
SPEC_POSITION = "8/8/8/1o6/ox6/8/8/2xx4 o"


def partita(*args: str, cwd: Path | None = None, env: dict | None = None) -> CliResult:
    """Run `partita ARGS` in this process: (exit code, stdout, stderr)."""
    return run_cli(args, cwd=cwd, env=env)


def partita_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run `python -m partita ARGS` as a real process, as a user's shell does."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PARTITA_DB", "PARTITA_DEBUG")}
    # Wide enough that no line naming a temporary path wraps (rich breaks a long path
    # anywhere, and an xdist worker's temporary paths are longer).
    environment["COLUMNS"] = "200"
    done = subprocess.run(
        [sys.executable, "-m", "partita", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=environment,
        timeout=300,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def json_lines(text: str) -> list[dict]:
    """`validate --json` output: one JSON object per line."""
    return [json.loads(line) for line in text.splitlines()]


def count_records(folder: Path) -> int:
    return sum(
        path.read_text(encoding="utf-8", errors="replace").count("[Game ")
        for path in folder.rglob("*.pgr")
    )


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("archive") / "games.db"
    code, out, _ = partita("import", str(EXAMPLES), "--db", str(db), "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["imported"] == summary["records"] >= 90
    return db


def test_validate_json_of_the_rulebook_example():
    code, out, _ = partita("validate", "--json", str(RULEBOOK))
    assert code == 0
    [entry] = json_lines(out)
    assert entry["valid"] is True
    assert entry["game"] == "forza4x4"
    assert entry["plies"] == 5
    assert entry["final_position"] == SPEC_POSITION
    assert entry["problems"] == []
    assert entry["index"] == 0 and entry["file"].endswith("rulebook-example.pgr")


def test_validate_reports_an_illegal_move_with_its_place():
    path = EXAMPLES / "invalid" / "occupied-entry.pgr"
    code, out, _ = partita("validate", "--json", str(path))
    assert code == 1
    [entry] = json_lines(out)
    assert entry["valid"] is False
    [problem] = entry["problems"]
    assert {"line", "column", "ply", "move", "message"} <= set(problem)
    assert problem["line"] >= 1 and problem["column"] >= 1 and problem["ply"] >= 1
    assert problem["move"] in problem["message"]
    code, text, _ = partita("validate", str(path))
    assert code == 1
    assert f":{problem['line']}:{problem['column']}: error: " in text
    assert f"ply {problem['ply']}" in text


def test_validate_strict_fails_warnings_that_lenient_accepts():
    path = EXAMPLES / "invalid" / "spelling.pgr"
    assert partita("validate", str(path))[0] == 0
    assert partita("validate", "--strict", str(path))[0] == 1


def test_validate_usage_errors_exit_2():
    assert partita("validate", "no-such-file.pgr")[0] == 2
    assert partita("validate")[0] == 2
    assert partita("validate", "--no-such-option", str(RULEBOOK))[0] == 2


def test_real_processes_import_and_validate(tmp_path):
    """End to end as a shell runs it (the other tests run the command in-process):
    exit codes, what goes to stdout and to stderr."""
    db = tmp_path / "real.db"
    done = partita_process("import", str(RULEBOOK), "--db", str(db))
    assert done.returncode == 0 and db.is_file()
    summary = done.stdout.strip()
    assert summary == f"{db}: 1 imported, 0 duplicates, 0 invalid (1 record in 1 file)"
    invalid = EXAMPLES / "invalid" / "occupied-entry.pgr"
    done = partita_process("validate", str(invalid))
    assert done.returncode == 1 and done.stderr == ""
    assert f"{invalid}:6:13: error: illegal move 'b4': entry cell b4 is occupied" in done.stdout
    done = partita_process("validate", "no-such-file.pgr")
    assert done.returncode == 2 and done.stdout == ""
    assert "Path 'no-such-file.pgr' does not exist" in done.stderr


def test_validate_every_example_folder():
    code, out, _ = partita(
        "validate", "--json", str(EXAMPLES / "forza4x4"), str(EXAMPLES / "connect4")
    )
    assert code == 0
    entries = json_lines(out)
    assert len(entries) == count_records(EXAMPLES / "forza4x4") + count_records(
        EXAMPLES / "connect4"
    )
    assert all(entry["valid"] for entry in entries)
    code, out, _ = partita("validate", "--json", str(EXAMPLES / "invalid"))
    assert code == 1
    assert not all(entry["valid"] for entry in json_lines(out))


def test_import_twice_adds_nothing(archive):
    code, out, _ = partita("import", str(EXAMPLES), "--db", str(archive), "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["imported"] == 0
    assert summary["duplicates"] == summary["records"]


def test_import_strict_refuses_invalid_records(tmp_path):
    db = tmp_path / "strict.db"
    code, out, _ = partita(
        "import", str(EXAMPLES / "invalid"), "--db", str(db), "--strict", "--json"
    )
    assert code == 1
    summary = json.loads(out)
    assert summary["refused"] > 0
    assert summary["imported"] == summary["records"] - summary["refused"]


def test_import_with_workers_stores_what_one_process_stores(archive, tmp_path):
    db = tmp_path / "workers.db"
    code, out, _ = partita("import", str(EXAMPLES), "--db", str(db), "--workers", "2", "--json")
    assert code == 0
    assert json.loads(out)["imported"] >= 90
    query = "SELECT id, hash, source_file, source_index FROM games ORDER BY id"
    with sqlite3.connect(db) as parallel, sqlite3.connect(archive) as serial:
        assert parallel.execute(query).fetchall() == serial.execute(query).fetchall()
    code, _, err = partita("import", str(EXAMPLES), "--db", str(db), "--workers", "0")
    assert code == 2 and "--workers" in err


def test_query_filters(archive):
    code, out, _ = partita("query", "--db", str(archive), "--opening", "t4 r5 r5", "--json")
    assert code == 0
    rows = json.loads(out)
    assert any(row["event"] and "rulebook" in row["event"].lower() for row in rows)
    code, out, _ = partita(
        "query", "--db", str(archive), "--game", "forza4x4", "--position", SPEC_POSITION, "--json"
    )
    rows = json.loads(out)
    assert rows and all(row["ply"] == 5 for row in rows if row["plies"] == 5)
    code, out, _ = partita("query", "--db", str(archive), "--position", "7/7/7/7/7/7 x", "--json")
    at_start = json.loads(out)
    assert at_start and {row["game"] for row in at_start} == {"connect4"}
    assert all(row["ply"] == 0 for row in at_start)
    setups = json.loads(partita("query", "--db", str(archive), "--event", "pons", "--json")[1])
    assert setups and not {row["id"] for row in setups} & {row["id"] for row in at_start}
    code, out, _ = partita("query", "--db", str(archive), "--game", "connect4", "--json")
    assert {row["game"] for row in json.loads(out)} == {"connect4"}
    code, out, _ = partita("query", "--db", str(archive), "--result", "1/2-1/2", "--json")
    assert all(row["result"] == "1/2-1/2" for row in json.loads(out))


def test_query_errors_are_one_line(archive, tmp_path):
    code, _, err = partita("query", "--db", str(tmp_path / "none.db"))
    assert code == 1 and "no archive" in err
    code, _, err = partita("query", "--db", str(archive), "--game", "chess")
    assert code == 2 and "unknown game 'chess'" in err  # a usage error, as everywhere
    code, _, err = partita(
        "query", "--db", str(archive), "--game", "forza4x4", "--position", "8/8 x"
    )
    assert code == 1 and err.startswith("partita: error:")


def test_show_a_file_and_an_archive_game(archive):
    code, out, _ = partita("show", str(RULEBOOK), "--format", "position")
    assert (code, out.strip()) == (0, SPEC_POSITION)
    code, out, _ = partita("show", str(RULEBOOK), "--ply", "1", "--format", "position")
    assert out.strip() == "8/8/8/8/8/8/8/3x4 o"
    code, out, _ = partita("show", str(RULEBOOK))
    assert code == 0 and "1. t4 r5 2. r5 t2 3. l8" in out
    code, out, _ = partita("query", "--db", str(archive), "--opening", "t4 r5 r5 t2 l8", "--json")
    game_id = str(json.loads(out)[0]["id"])
    code, out, _ = partita("show", game_id, "--db", str(archive), "--format", "json", "--ply", "3")
    data = json.loads(out)
    assert data["ply"] == 3 and data["moves"][:3] == ["t4", "r5", "r5"]
    code, _, err = partita("show", "99999", "--db", str(archive))
    assert code == 1 and "99999" in err
    code, _, err = partita("show", str(RULEBOOK), "--ply", "99")
    assert code == 1 and "only 5" in err


def test_show_draws_the_board_as_svg():
    import xml.etree.ElementTree as ElementTree

    code, out, _ = partita("show", str(RULEBOOK), "--ply", "1", "--format", "svg")
    assert code == 0
    svg = ElementTree.fromstring(out)
    assert svg.tag.endswith("svg")
    pieces = [e for e in svg.iter() if "piece" in (e.get("class") or "").split()]
    assert len(pieces) == 1  # t4 alone after one ply
    assert "after ply 1" in out


def test_export_then_import_gives_the_same_archive(archive, tmp_path):
    exported = tmp_path / "all.pgr"
    assert partita("export", "--db", str(archive), "-o", str(exported))[0] == 0
    second = tmp_path / "second.db"
    code, out, _ = partita("import", str(exported), "--db", str(second), "--json")
    summary = json.loads(out)
    stored = len(json.loads(partita("query", "--db", str(archive), "--json")[1]))
    assert summary["imported"] == summary["records"] == stored

    def games(db):
        # The one record whose problem is a byte that is not UTF-8 comes back as
        # U+FFFD: export writes UTF-8, so that problem cannot survive the trip.
        rows = [
            row
            for row in json.loads(partita("query", "--db", str(db), "--json")[1])
            if row["event"] != "Invalid example: invalid UTF-8"
        ]
        return sorted(
            repr((row["game"], row["result"], row["plies"], row["status"], row["final_position"]))
            for row in rows
        )

    assert games(second) == games(archive)


def test_default_archive_is_partita_db_or_the_environment(tmp_path):
    code, _, _ = partita("import", str(RULEBOOK), cwd=tmp_path)
    assert code == 0 and (tmp_path / "partita.db").is_file()
    other = tmp_path / "other.db"
    code, _, _ = partita("import", str(RULEBOOK), cwd=tmp_path, env={"PARTITA_DB": str(other)})
    assert code == 0 and other.is_file()


def test_games_lists_the_supported_games():
    code, out, _ = partita("games", "--json")
    assert code == 0
    games = {entry["game"]: entry for entry in json.loads(out)}
    assert {"forza4x4", "connect4"} <= set(games)
    assert games["forza4x4"]["start"] == "8/8/8/8/8/8/8/8 x"
    assert games["connect4"]["symmetries"] == 2


def test_garbage_input_never_gives_a_traceback(tmp_path):
    garbage = tmp_path / "garbage.pgr"
    # Every byte but NUL (a NUL makes it a binary file, which is skipped).
    garbage.write_bytes(bytes(range(1, 256)) * 8 + b'[Game "forza4x4"]\n{ (( $ ]]')
    # No tag line and no result: no record, a warning (and nothing stored).
    code, out, err = partita("validate", "--json", str(garbage))
    assert code == 1 and not json_lines(out) and "holds no records" in err
    assert partita("show", str(garbage))[0] == 1
    code, _, err = partita("import", str(garbage), "--db", str(tmp_path / "g.db"))
    assert code == 1 and "holds no records" in err
    garbage.write_bytes(b'[Game "forza4x4"]\n' + garbage.read_bytes())
    code, out, _ = partita("validate", "--json", str(garbage))
    assert code == 1 and json_lines(out)
    assert partita("import", str(garbage), "--db", str(tmp_path / "g.db"))[0] == 0


def test_export_canonical_rewrites_records_with_problems(tmp_path):
    db = tmp_path / "spelling.db"
    assert partita("import", str(EXAMPLES / "invalid" / "spelling.pgr"), "--db", str(db))[0] == 0
    as_imported = partita("export", "--db", str(db))[1]
    rewritten = partita("export", "--db", str(db), "--canonical")[1]
    assert "1. T4 r5 *" in as_imported
    assert "1. t4\nr5 *" in rewritten and "1. T4" not in rewritten


def test_query_by_tag(archive):
    from partita.notation.reader import read_records

    terminations = [
        record.tags.get("Termination")
        for path in sorted(EXAMPLES.rglob("*.pgr"))
        for record in read_records(path)
        if record.tags.get("Game") in ("forza4x4", "connect4")
    ]
    assert terminations.count("resignation") >= 1

    def count(*args):
        code, out, err = partita("query", "--db", str(archive), "--json", *args)
        assert code == 0, err
        return json.loads(out)

    resigned = count("--game", "forza4x4", "--tag", "Termination=resignation")
    resigned += count("--game", "connect4", "--tag", "Termination=resignation")
    assert len(resigned) == terminations.count("resignation")
    assert {row["termination"] for row in resigned} == {"resignation"}
    both = count("--tag", "Termination=resignation", "--tag", "Result=1-0")
    assert both and all(row["result"] == "1-0" for row in both)
    assert {row["id"] for row in both} <= {row["id"] for row in resigned}
    untagged = count("--game", "connect4", "--tag", "Termination=")
    assert all(row["termination"] is None for row in untagged)
    code, _, err = partita("query", "--db", str(archive), "--tag", "Termination")
    assert code == 1 and "NAME=VALUE" in err


# -- the command line's manners ------------------------------------------------------------


def command_names() -> list[str]:
    import typer.main

    from partita.cli.app import _register_commands, app

    _register_commands()
    return sorted(typer.main.get_command(app).commands)


def test_version_is_written_once():
    import importlib.metadata
    import tomllib

    from partita import __version__

    code, out, err = partita("--version")
    assert (code, out, err) == (0, f"partita {__version__}\n", "")
    assert importlib.metadata.version("partita") == __version__
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "partita.__version__"}


def test_h_is_help_everywhere_and_help_has_no_type_placeholders():
    placeholder = re.compile(r"<(bool|str|int|float|path|file|list\[[^>]*\]|[a-z]+ range)>")
    names = command_names()
    assert {"validate", "import", "query", "show", "export", "games", "decks"} <= set(names)
    for args in ([], *([name] for name in names)):
        short, long = partita(*args, "-h"), partita(*args, "--help")
        assert short == long and short.code == 0, args
        assert short.stdout.startswith(f"Usage: partita {' '.join(args)}".rstrip()), args
        assert not placeholder.search(short.stdout), (args, short.stdout)
    code, out, _ = partita("import", "-h")
    assert "PATHS...  Record files or folders (*.pgr inside).  [required]" in out
    assert "--strict    " in out and "--workers INTEGER RANGE" in out


def test_shell_completion_completes_commands_and_prints_its_script(monkeypatch):
    code, out, _ = partita(
        env={"_PARTITA_COMPLETE": "complete_bash", "COMP_WORDS": "partita qu", "COMP_CWORD": "1"}
    )
    assert (code, out.split()) == (0, ["query"])
    # typer's --show-completion is a flag: the script is for the shell it finds among
    # the test run's parent processes (shellingham), and a run started from `sh`
    # failed with "Shell sh not supported". Here that shell is bash.
    monkeypatch.setattr(shellingham, "detect_shell", lambda *_: ("bash", "/bin/bash"))
    code, out, err = partita("--show-completion")
    assert code == 0 and "_PARTITA_COMPLETE=complete_bash" in out, err
    assert "complete -o default -F _partita_completion partita" in out
    # Another shell's script, by name, as docs/cli.md says.
    code, out, err = partita(env={"_PARTITA_COMPLETE": "source_zsh"})
    assert code == 0 and out.lstrip().startswith("#compdef partita"), err


START_UP_PROBE = """
import sys
from partita.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("modules:", " ".join(sorted(sys.modules)))
"""


@pytest.mark.parametrize(
    ("args", "allowed"),
    [(["--help"], set()), (["--version"], set()), (["games"], {"rich"})],
)
def test_start_up_loads_no_heavy_library(args, allowed):
    """`partita --help` and `partita games` load neither the archive nor the analysis
    (benchmarks/bench_startup.py times them); a fresh interpreter tells."""
    done = subprocess.run(
        [sys.executable, "-c", START_UP_PROBE, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.rsplit("modules: ", 1)[1].split())
    heavy = {"networkx", "matplotlib", "jinja2", "sqlite_utils", "sqlite3", "rich", "pyparsing"}
    assert {name for name in loaded if name.split(".")[0] in heavy} <= {
        name for name in loaded if name.split(".")[0] in allowed
    }
    for module in ("partita.analysis.report", "partita.analysis.tree", "partita.database.schema"):
        assert module not in loaded


def test_the_command_table_names_each_command_s_module():
    """`partita CMD` imports the module COMMAND_MODULES names for CMD alone: the
    table must say where every framework command is, and name every module."""
    import pkgutil

    import partita.cli.commands
    from partita.cli.app import COMMAND_MODULES, _register_commands, app

    _register_commands()
    found = {}
    for info in app.registered_commands:
        module = info.callback.__module__
        if module.startswith("partita.cli.commands."):
            found[info.name or info.callback.__name__] = module.rsplit(".", 1)[1]
    for group in app.registered_groups:
        callback = group.typer_instance.registered_commands[0].callback
        if callback.__module__.startswith("partita.cli.commands."):
            found[group.typer_instance.info.name] = callback.__module__.rsplit(".", 1)[1]
    assert found == COMMAND_MODULES
    modules = {info.name for info in pkgutil.iter_modules(partita.cli.commands.__path__)}
    assert modules == set(COMMAND_MODULES.values())
    # --help lists the commands (groups come after them) in the table's order,
    # whatever registered first in this process.
    groups = {group.typer_instance.info.name for group in app.registered_groups}
    listed = [name for name in typer_command_names(app) if name in COMMAND_MODULES.keys() - groups]
    order = list(dict.fromkeys(COMMAND_MODULES.values()))
    assert [order.index(COMMAND_MODULES[name]) for name in listed] == sorted(
        order.index(COMMAND_MODULES[name]) for name in listed
    )


def typer_command_names(app) -> list[str]:
    import typer.main

    return list(typer.main.get_command(app).commands)


def test_a_command_loads_its_own_module_only(tmp_path):
    """`partita import` builds and imports only the archive's commands: not the other
    command modules, the analysis, the process pools (one process for a small input),
    the games' rules it does not replay, or rich for its one-line summary off a
    terminal; `partita --help` still lists them all."""
    (tmp_path / "one.pgr").write_text(
        '[Game "forza4x4"]\n[Result "0-1"]\n[Termination "normal"]\n\n'
        "1. r7 t6 2. r2 l5 3. b2 t8 4. r6 b8 5. t8 b8 0-1\n",
        encoding="utf-8",
    )
    arguments = ["import", str(tmp_path / "one.pgr"), "--db", str(tmp_path / "a.db")]
    done = subprocess.run(
        [sys.executable, "-c", START_UP_PROBE, *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    summary = done.stdout.rsplit("modules: ", 1)[0]
    assert (
        summary
        == f"{tmp_path / 'a.db'}: 1 imported, 0 duplicates, 0 invalid (1 record in 1 file)\n"
    )
    loaded = set(done.stdout.rsplit("modules: ", 1)[1].split())
    assert not {name for name in loaded if name.split(".")[0] == "rich"}  # one plain line
    commands = {name for name in loaded if name.startswith("partita.cli.commands.")}
    assert commands == {"partita.cli.commands.archive"}
    assert not {name for name in loaded if name.startswith("partita.analysis")}
    assert not {name for name in loaded if name.split(".")[0] in {"multiprocessing", "concurrent"}}
    assert "partita.execution" not in loaded
    assert "partita.games.forceball.rules" not in loaded
    code, out, _ = partita("--help")
    assert code == 0 and all(name in out for name in ("import", "solve", "tree", "decks"))


def test_small_import_loads_no_grammar_and_no_rich(tmp_path):
    """`partita import --json` of canonical records reads them through the scanner and
    the games' move dictionaries: pyparsing (the grammars are built on first use) and
    rich (no progress bar off a terminal) stay unloaded, and the patterns modules of
    the games (query --pattern) too. The archive is made and written with sqlite3
    alone: no sqlite-utils (nor the dateutil and pluggy it imports)."""
    record = (
        '[Game "forza4x4"]\n[Result "0-1"]\n[Termination "normal"]\n\n'
        "1. r7 t6 2. r2 l5 3. b2 t8 4. r6 b8 5. t8 b8 0-1\n"
    )
    (tmp_path / "one.pgr").write_text(record, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            START_UP_PROBE,
            "import",
            str(tmp_path / "one.pgr"),
            "--db",
            str(tmp_path / "a.db"),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.rsplit("modules: ", 1)[0])["imported"] == 1
    loaded = set(done.stdout.rsplit("modules: ", 1)[1].split())
    assert not {name for name in loaded if name.split(".")[0] in {"rich", "pyparsing"}}
    assert not {name for name in loaded if name.endswith(".patterns") and ".games." in name}
    heavy = {"sqlite_utils", "dateutil", "pluggy"}
    assert not {name for name in loaded if name.split(".")[0] in heavy}
    # Nor the query filters.
    assert "partita.database.filters" not in loaded
