"""The CLI's one error boundary: every mistake is one line on stderr and an exit
code (1 domain, 2 usage, 3 a bug, 130 Ctrl-C), never a traceback; output for
pipes (JSON lines, progress bars only on a terminal); paths that hold no records."""

from __future__ import annotations

import errno
import io
import json
import os
import pty
import signal
import sqlite3
import subprocess
import sys
import time
import typing
from pathlib import Path

import pytest
from cli_runner import partita_job

from partita import database
from partita.analysis.report import build_report
from partita.analysis.tree import tree_from_archive
from partita.bulk import import_paths
from partita.cli.app import _register_commands, app, main
from partita.database import export_games
from partita.database.schema import archive
from partita.errors import ArchiveError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FORZA = EXAMPLES / "forza4x4"
RULEBOOK = FORZA / "rulebook-example.pgr"


def run(capsys, *args: str) -> tuple[int, str, str]:
    """`partita ARGS` in this process, through its error boundary."""
    with pytest.raises(SystemExit) as stopped:
        main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return stopped.value.code, out, err


def one_line(err: str) -> str:
    """The one line of an error on stderr."""
    assert err.count("\n") == 1 and err.endswith("\n"), repr(err)
    assert err.startswith("partita: "), err
    return err


def subprocess_partita(*args: str, **options) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("PARTITA_DB", "PARTITA_DEBUG")}
    return subprocess.run(
        [sys.executable, "-m", "partita", *args],
        cwd=ROOT,
        env=environment,
        timeout=120,
        **options,
    )


@pytest.fixture(scope="module")
def small_archive(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("small") / "small.db"
    with archive(db) as opened:
        assert import_paths(opened, [FORZA]).imported > 10
    return db


# -- usage errors: exit 2, found before any work -----------------------------------------------


@pytest.mark.parametrize(
    ("args", "naming"),
    [
        (["show", "99999999999999999999"], "is no game id"),
        (["solve", "--game", "connect4", "--budget", "99999999999999999999999"], "'--budget'"),
        (["solve", "--game", "connect4", "--table-size", "99999999999999999"], "'--table-size'"),
        (["solve", "--game", "connect4", "--seconds", "nan"], "'--seconds'"),
        (["query", "--limit", "-5"], "'--limit'"),
        (["query", "--limit", "99999999999999999999"], "'--limit'"),
        (["query", "--sides", "7"], "'--sides'"),
        (["import", str(RULEBOOK), "--workers", "0"], "'--workers'"),
        (["report", "-o", "r.html", "--viewer-games", "99999999999999999999"], "'--viewer-games'"),
        (["query", "--no-such-option"], "No such option"),
        (["no-such-command"], "No such command"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args, naming, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no archive is made or read here
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith("partita: error: ") and naming in line
    assert "--help`)" in line
    assert os.listdir(tmp_path) == []


def numeric_range(param) -> tuple | None:
    """``(min, max)`` of a numeric parameter, ``None`` for another kind (typer's
    own parameters, or click's, depending on the typer installed)."""
    kind = getattr(param, "type", None)
    if kind is not None:  # click's parameter types
        name = type(kind).__name__
        if name in ("IntParamType", "FloatParamType"):
            return (None, None)
        if name in ("IntRange", "FloatRange"):
            return (kind.min, kind.max)
        return None
    annotation = param.type_descriptor.annotation
    if {int, float} & {annotation, *typing.get_args(annotation)}:
        return (param.min, param.max)
    return None


def test_every_numeric_option_and_argument_has_a_range():
    import typer.main

    _register_commands()
    group = typer.main.get_command(app)
    checked = 0
    for name, command in group.commands.items():
        for param in command.params:
            bounds = numeric_range(param)
            if bounds is None:
                continue
            assert None not in bounds, f"{name} {param.name}: a number without a range"
            checked += 1
    assert checked >= 15


# -- domain errors: exit 1, one line ------------------------------------------------------------


def test_an_output_in_a_missing_folder_stops_before_any_work(small_archive, capsys, tmp_path):
    db = str(small_archive)
    for args in (
        ["report", "-o", "/nonexistent/dir/r.html"],
        ["export", "-o", "/nonexistent/dir/all.pgr"],
        ["tree", "--game", "forza4x4", "--dot", "/nonexistent/dir/t.dot"],
        ["tree", "--game", "forza4x4", "--graphml", "/nonexistent/dir/t.graphml"],
    ):
        code, _, err = run(capsys, *args, "--db", db)
        assert code == 1, args
        assert "there is no folder /nonexistent/dir" in one_line(err)
    code, _, err = run(capsys, "annotate", str(RULEBOOK), "-o", "/nonexistent/dir/a.pgr")
    assert code == 1 and "there is no folder /nonexistent/dir" in one_line(err)
    code, _, err = run(capsys, "report", "--db", db, "-o", str(tmp_path))
    assert code == 1 and "that is a folder" in one_line(err)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_one_line_naming_the_file(small_archive, capsys):
    code, _, err = run(capsys, "export", "--db", str(small_archive), "-o", "/dev/full")
    assert code == 1
    assert one_line(err) == "partita: error: cannot write /dev/full: no space left on device\n"
    with open("/dev/full", "w") as full:
        done = subprocess_partita(
            "export", "--db", str(small_archive), stdout=full, stderr=subprocess.PIPE, text=True
        )
        assert done.returncode == 1
        assert "cannot write standard output: no space left on device" in one_line(done.stderr)
        done = subprocess_partita("games", stdout=full, stderr=subprocess.PIPE, text=True)
        assert done.returncode == 1
        assert "cannot write the output: no space left on device" in one_line(done.stderr)


def test_a_closed_pipe_ends_quietly():
    done = subprocess.run(
        [
            "bash",
            "-c",
            f"{sys.executable} -m partita validate --json {EXAMPLES} 2>err.txt | head -c 10 >/dev/null;"
            " echo ${PIPESTATUS[0]}; cat err.txt; rm -f err.txt",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    status, *errors = done.stdout.splitlines()
    assert errors == []  # no "Exception ignored", no traceback
    assert status == "1"


@pytest.mark.parametrize(
    ("raised", "code", "message"),
    [
        (MemoryError(), 1, "out of memory in `partita query`: ask for less"),
        (OverflowError("Python int too large to convert"), 1, "a number or a nesting is too large"),
        (
            OSError(errno.EACCES, "Permission denied", "/some/file"),
            1,
            "/some/file: permission denied",
        ),
        (sqlite3.DatabaseError("database disk image is malformed"), 1, "is damaged"),
        (RuntimeError("boom"), 3, "internal error: RuntimeError: boom (run with --debug"),
    ],
)
def test_what_the_system_refuses_is_one_line(
    raised, code, message, small_archive, capsys, monkeypatch
):
    def refuse(*args, **kwargs):
        raise raised

    monkeypatch.setattr(database, "query_games", refuse)
    got, _, err = run(capsys, "query", "--db", str(small_archive))
    assert got == code
    assert message in one_line(err)
    if isinstance(raised, sqlite3.Error):
        assert f"the archive {small_archive} is damaged" in err
    # --debug shows it as it is (SQLite's, as the open archive names it)
    with pytest.raises(ArchiveError if isinstance(raised, sqlite3.Error) else type(raised)):
        main(["query", "--db", str(small_archive), "--debug"])


def test_an_interruption_in_process_is_one_line_and_exit_130(small_archive, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(database, "query_games", interrupted)
    code, _, err = run(capsys, "query", "--db", str(small_archive))
    assert code == 130 and one_line(err) == "partita: interrupted\n"


# -- Ctrl-C in a real process ---------------------------------------------------------------------


def many_games(path: Path, count: int) -> int:
    """``count`` distinct copies of a short game (their events differ)."""
    record = RULEBOOK.read_text(encoding="utf-8")
    assert '[Event "' in record
    head, tail = record.split('[Event "', 1)
    tail = tail.split('"', 1)[1]
    path.write_text(
        "\n".join(f'{head}[Event "copy {number}"{tail}' for number in range(count)),
        encoding="utf-8",
    )
    return count


def games_in(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return 0
    try:
        return conn.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def group_running(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


# One process in the slow run only: test_import.py stops one-process imports too.
@pytest.mark.parametrize("workers", [pytest.param("1", marks=pytest.mark.slow), "2"])
def test_ctrl_c_during_an_import_is_one_line_and_a_rerun_completes_it(tmp_path, workers):
    source = tmp_path / "many.pgr"
    total = many_games(source, 2500)  # batches of 1000: one to wait for, one stopped
    db = tmp_path / "many.db"
    child = partita_job("import", str(source), "--db", str(db), "--workers", workers)
    deadline = time.monotonic() + 120
    while games_in(db) < 1000 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert child.poll() is None, "the import ended before it could be interrupted"
    os.killpg(child.pid, signal.SIGINT)  # Ctrl-C: the whole group, workers included
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert "Traceback" not in err and err.splitlines() == ["partita: interrupted"]
    deadline = time.monotonic() + 20
    while group_running(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not group_running(child.pid), "worker processes are left running"
    stored = games_in(db)
    assert 1000 <= stored < total and stored % 1000 == 0  # whole batches only
    assert sorted(os.listdir(tmp_path)) == ["many.db", "many.pgr"]  # at rest: one file
    rerun = subprocess_partita("import", str(source), "--db", str(db), "--json",
                               capture_output=True, text=True)  # fmt: skip
    assert rerun.returncode == 0, rerun.stderr
    summary = json.loads(rerun.stdout)
    assert summary["duplicates"] == stored and summary["imported"] == total - stored
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT count(*), count(DISTINCT hash) FROM games").fetchone() == (
            total,
            total,
        )
        broken = conn.execute(
            "SELECT g.id FROM games g LEFT JOIN positions p ON p.game_id = g.id "
            "GROUP BY g.id HAVING count(p.game_id) != g.plies"
        ).fetchall()
        assert broken == []
    finally:
        conn.close()


#: `python -m partita ARGS`, paused inside the import of `partita.cli.app` (typer, rich
#: and the commands load there) until a signal comes; it says "importing" when it is.
START_UP_PAUSED = """
import runpy, sys, time

class PauseInTheCommandLineImport:
    def find_spec(self, name, path=None, target=None):
        if name == "partita.cli.app":
            sys.meta_path.remove(self)
            print("importing", flush=True)
            time.sleep(60)
        return None

sys.meta_path.insert(0, PauseInTheCommandLineImport())
runpy.run_module("partita", run_name="__main__", alter_sys=True)
"""


def test_ctrl_c_while_the_command_starts_is_one_line(tmp_path):
    """Ctrl-C while partita, typer and rich are being imported. The child waits inside
    that import for the signal: a fixed sleep before it raced the interpreter's own
    start-up on a loaded machine (the signal came before partita was running)."""
    source = tmp_path / "many.pgr"
    many_games(source, 30)
    environment = {k: v for k, v in os.environ.items() if k not in ("PARTITA_DB", "PARTITA_DEBUG")}
    child = subprocess.Popen(
        [sys.executable, "-c", START_UP_PAUSED, "import", str(source), "--db", str(tmp_path / "a.db")],
        cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    assert child.stdout.readline() == "importing\n"
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert err.splitlines() == ["partita: interrupted"]


# -- output for pipes -----------------------------------------------------------------------------


def test_validate_json_is_one_object_per_line(capsys):
    code, out, _ = run(capsys, "validate", "--json", str(FORZA), str(EXAMPLES / "invalid"))
    assert code == 1
    lines = out.splitlines()
    records = sum(path.read_text(errors="replace").count("[Game ") for path in FORZA.glob("*.pgr"))
    assert len(lines) > records
    entries = [json.loads(line) for line in lines]
    assert all({"file", "valid", "problems"} <= set(entry) for entry in entries)
    # In the order read: the first folder's records, then the second's.
    assert all(entry["file"].startswith(str(FORZA)) for entry in entries[:records])
    assert all(entry["file"].startswith(str(EXAMPLES / "invalid")) for entry in entries[records:])


def test_the_library_reports_progress_to_its_callbacks(small_archive):
    calls: list = []
    with archive(small_archive, readonly=True) as opened:
        count = export_games(opened, io.StringIO(), progress=calls.append)
    assert calls[-1] == count > 10
    calls.clear()
    with archive(small_archive, readonly=True) as opened:
        tree_from_archive(opened, "forza4x4", depth=2, progress=lambda *done: calls.append(done))
    assert calls[-1][0] == calls[-1][1] > 10
    calls.clear()
    with archive(small_archive, readonly=True) as opened:
        build_report(opened, game="forza4x4", progress=lambda *done: calls.append(done))
    # The report counts its steps (sections, games for the viewer, charts) from none to all.
    assert calls[0][0] == 0 and calls[-1][0] == calls[-1][1] > 1
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def stderr_on_a_terminal(*args: str) -> tuple[str, str]:
    """What `partita ARGS` writes on stdout (a pipe) and on stderr when stderr is a
    terminal."""
    leader, follower = pty.openpty()
    try:
        done = subprocess_partita(*args, stdout=subprocess.PIPE, stderr=follower, text=True)
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal is closed: all read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert done.returncode in (0, 1)
    return done.stdout, b"".join(chunks).decode("utf-8", "replace")


def test_progress_bars_are_drawn_on_a_terminal_only(small_archive, tmp_path):
    out, terminal = stderr_on_a_terminal("validate", str(FORZA))
    assert "validating" in terminal
    assert "records" in out and "records" not in terminal  # the output stays on stdout
    out, terminal = stderr_on_a_terminal("export", "--db", str(small_archive))
    assert "exporting" in terminal and out.count("[Game ") > 10 and "[Game " not in terminal
    piped = subprocess_partita("validate", str(FORZA), capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stderr == "" and "records" in piped.stdout


# -- paths that hold no records ---------------------------------------------------------------------


def test_paths_without_records_are_a_warning_and_exit_1(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    binary = tmp_path / "photo.pgr"
    binary.write_bytes(bytes(range(256)) * 40)
    blank = tmp_path / "blank.pgr"
    blank.write_text("\n\n", encoding="utf-8")
    db = tmp_path / "a.db"
    code, out, err = run(capsys, "validate", str(empty))
    assert code == 1 and "0 records" in out
    assert (
        one_line(err)
        == f"partita: warning: {empty} holds no records (no *.pgr file in it, or all excluded)\n"
    )
    code, _, err = run(capsys, "validate", str(binary))
    assert code == 1 and "is not a text file (it holds NUL bytes" in one_line(err)
    code, _, err = run(capsys, "import", str(empty), str(binary), "--db", str(db))
    assert code == 1 and err.count("partita: warning: ") == 2
    assert not db.exists()  # nothing to import: no archive made
    code, out, err = run(capsys, "import", str(FORZA), str(blank), "--db", str(db), "--json")
    assert code == 1 and json.loads(out)["imported"] > 10
    assert json.loads(out)["empty_files"] == [str(blank)]
    assert one_line(err) == f"partita: warning: {blank} holds no records\n"


def test_exclude_leaves_out_folders_and_files(tmp_path, capsys):
    db = tmp_path / "clean.db"
    code, out, err = run(
        capsys, "import", str(EXAMPLES), "--exclude", "invalid", "--db", str(db), "--json"
    )
    assert code == 0 and err == ""
    with archive(db, readonly=True) as opened:
        rows = database.query_games(opened)
    assert len(rows) == json.loads(out)["imported"] > 50
    assert all(row["status"] == "valid" for row in rows)
    conn = sqlite3.connect(db)
    sources = [row[0] for row in conn.execute("SELECT source_file FROM games")]
    conn.close()
    assert not any(f"{os.sep}invalid{os.sep}" in source for source in sources)
    code, out, _ = run(capsys, "validate", "--json", str(FORZA), "--exclude", "rulebook-*")
    assert code == 0
    assert not any("rulebook" in json.loads(line)["file"] for line in out.splitlines())


def test_ctrl_c_inside_a_function_sqlite_calls_is_an_interrupt(capsys, small_archive, monkeypatch):
    """SQLite turns a KeyboardInterrupt raised in a Python function it calls (here
    REGEXP, while a tag is matched) into its own "user-defined function raised
    exception": the boundary still reports an interrupt, not an archive error."""
    from partita.database import filters

    def interrupted(pattern, value):
        signal.raise_signal(signal.SIGINT)  # as the terminal sends it
        return True  # the handler raises on the way here

    monkeypatch.setattr(filters, "regexp", interrupted)
    code, out, err = run(capsys, "query", "--db", str(small_archive), "--tag", "Event~x")
    assert code == 130 and err.splitlines() == ["partita: interrupted"], err
