"""Reliability: what a campaign of damaged records, damaged archives, concurrent
writers and full disks found, one section per finding, each test reproducing it.

The campaign itself (mutated records, export and re-import) is
``tests/test_campaign.py``.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from campaign import archive_games
from cli_runner import run_cli

from partita import bulk, database
from partita.database import connection
from partita.database.schema import archive
from partita.notation.reader import read_records
from partita.notation.sources import MAX_LINE_LENGTH
from partita.notation.writer import write_record

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def partita(
    *args: str, timeout: float = 60, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """``partita ARGS`` in a process of its own (a hang is a timeout, not a stuck run)."""
    return subprocess.run(
        [sys.executable, "-m", "partita", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )


# -- linear time on blanks after a problem -------------------------------------------------------
def test_trailing_blanks_after_a_problem_cost_linear_time(tmp_path):
    """An illegal move, then 1,000,100 spaces on the last line: the scanner's
    leading white space was matched again from each of its places (20,000 spaces
    took 46 s, this never finished); now about a second, start-up included."""
    path = tmp_path / "blanks.pgr"
    path.write_text(
        '[Game "connect4"]\n[Result "*"]\n\n1. t4 t4 2. t9 t1' + " " * 1_000_100 + "\n",
        encoding="utf-8",
    )
    done = partita("validate", str(path), timeout=30)
    assert done.returncode == 1
    assert "no move 't9'" in done.stdout and "Traceback" not in done.stderr


# -- a damaged archive is refused before anything is written --------------------------------------
PAGE = 4096


@pytest.fixture(scope="module")
def small_archive(tmp_path_factory) -> Path:
    """An archive of the shipped Connect Four examples (a few dozen pages)."""
    db = tmp_path_factory.mktemp("archive") / "games.db"
    with archive(db) as opened:
        bulk.import_paths(opened, [EXAMPLES / "connect4"])
    with contextlib.closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA page_size").fetchone()[0] == PAGE
    return db


def damaged_copy(source: Path, target: Path, page: str) -> Path:
    """A copy of ``source`` with one page zeroed: one in the middle, or the last."""
    data = bytearray(source.read_bytes())
    pages = len(data) // PAGE
    number = pages // 2 if page == "middle" else pages - 1
    data[number * PAGE : (number + 1) * PAGE] = bytes(PAGE)
    target.write_bytes(bytes(data))
    return target


def file_state(path: Path) -> tuple[bytes, int, list[str]]:
    """What a write would change: the bytes, the modification time, the files beside."""
    return (
        path.read_bytes(),
        path.stat().st_mtime_ns,
        sorted(other.name for other in path.parent.iterdir()),
    )


WRITING_COMMANDS = {
    "migrate": ["migrate"],
    "tag set": ["tag", "set", "1", "Event", "x"],
    "tag unset": ["tag", "unset", "1", "Event"],
    "delete": ["delete", "1", "--yes"],
    "merge": ["merge", "{other}"],
    "import": ["import", str(EXAMPLES / "forza4x4")],
    "simulate": ["simulate", "connect4", "--games", "2"],
}


@pytest.mark.parametrize("page", ["middle", "last"])
@pytest.mark.parametrize("command", list(WRITING_COMMANDS))
def test_a_damaged_archive_is_refused_and_left_unchanged(tmp_path, small_archive, page, command):
    """With a zeroed page, migrate said "already at schema version 7" and exited 0,
    tag set, merge and simulate --db changed the file before refusing it; with the
    last page zeroed every command exited 0 and wrote into it."""
    db = damaged_copy(small_archive, tmp_path / "damaged.db", page)
    other = tmp_path / "other" / "other.db"
    other.parent.mkdir()
    with archive(other) as opened:
        bulk.import_paths(opened, [EXAMPLES / "forza4x4"])
    before = file_state(db)
    args = [part.format(other=other) for part in WRITING_COMMANDS[command]]
    result = run_cli([*args, "--db", str(db)])
    assert result.code == 1, result
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"partita: error: the archive {db} is damaged (")
    assert "nothing was written" in line
    assert file_state(db) == before


def test_an_intact_archive_passes_the_check(tmp_path, small_archive):
    db = tmp_path / "copy.db"
    shutil.copy(small_archive, db)
    result = run_cli(["tag", "set", "1", "Event", "checked", "--db", str(db)])
    assert result.code == 0, result
    assert "checked" in result.stdout


# -- commands that change nothing leave the file as it was -------------------------------------
NO_CHANGE = {
    "migrate on a current archive": (["migrate"], 0),
    "tag set of a missing game": (["tag", "set", "99999", "Event", "x"], 1),
    "tag set to the same value": (["tag", "set", "1", "Round", "1"], 0),
    "tag unset of a missing tag": (["tag", "unset", "1", "Nope"], 1),
    "delete of a missing game": (["delete", "99999", "--yes"], 1),
}


@pytest.mark.parametrize("case", list(NO_CHANGE))
def test_a_command_that_changes_nothing_leaves_the_file_untouched(tmp_path, small_archive, case):
    """migrate on a current archive and tag set 99999 (no such game, exit 1)
    committed a transaction: the file's bytes and time changed."""
    db = tmp_path / "copy.db"
    shutil.copy(small_archive, db)
    before = file_state(db)
    time.sleep(0.01)  # a write would give another time
    args, code = NO_CHANGE[case]
    result = run_cli([*args, "--db", str(db)])
    assert result.code == code, result
    assert file_state(db) == before


# -- export writes records that read back as the same records ----------------------------------
VALID = b'[Game "forza4x4"]\n[Event "valid"]\n[Result "*"]\n\n1. t4 r5 *\n'
OTHER = b'[Game "connect4"]\n[Event "other"]\n[Result "*"]\n\n1. t4 t4 *\n'
#: Each case: files imported one after the other, between two valid ones.
JOINED_CASES = {
    "a file that starts with movetext": [b"1. t4 r5 *\n"],
    "text before the first tag": [b'junk\n[Game "forza4x4"]\n[Result "*"]\n\n1. t4 *\n'],
    "U+3000 before [Game": ['\u3000[Game "forza4x4"]\n[Result "*"]\n\n1. t4 *\n'.encode()],
    "U+FFFD before [Game": ['\ufffd[Game "forza4x4"]\n[Result "*"]\n\n1. t4 *\n'.encode()],
    "invalid UTF-8 before [Game": [b'\xff[Game "forza4x4"]\n[Result "*"]\n\n1. t4 *\n'],
    "tags and no movetext": [b'[Game "forza4x4"]\n[Event "no moves"]\n[Result "*"]\n'],
    "two tag-only records": [b'[Game "forza4x4"]\n[Result "*"]\n', b'[Game "connect4"]\n'],
    "an unclosed comment": [b'[Game "forza4x4"]\n[Result "*"]\n\n1. t4 {open\n'],
    "an unclosed comment, then no tag line": [
        b'[Game "forza4x4"]\n[Result "*"]\n\n1. t4 {open\n',
        b"2. t5 *\n",
    ],
    "a comment alone": [b"{just a comment}\n"],
    "a lone bracket line": [b"[\n"],
}


@pytest.mark.parametrize("case", list(JOINED_CASES))
def test_export_keeps_records_apart_that_the_reader_would_join(tmp_path, case):
    """export wrote the stored texts with a blank line between them, and the reader
    starts a record only at a tag line after movetext: such a record became part
    of its neighbour on re-import (a game lost, a valid neighbour made invalid)."""
    files = []
    for number, data in enumerate([VALID, *JOINED_CASES[case], OTHER]):
        files.append(tmp_path / f"in-{number}.pgr")
        files[-1].write_bytes(data)
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    with database.archive(first) as opened:
        stored = sum(bulk.import_paths(opened, [path]).imported for path in files)
    assert stored > len(files) - 2
    exported = tmp_path / "out.pgr"
    with (
        exported.open("w", encoding="utf-8", newline="\n") as stream,
        archive(first, readonly=True) as opened,
    ):
        assert database.export_games(opened, stream) == stored
    with archive(second) as opened:
        bulk.import_paths(opened, [exported])
    assert archive_games(second) == archive_games(first)
    with archive(first) as opened:
        again = bulk.import_paths(opened, [exported])
    assert again.imported == 0 and again.duplicates == again.records == stored


def test_the_escape_line_is_written_only_where_it_is_needed(tmp_path):
    db = tmp_path / "a.db"
    with archive(db) as opened:
        bulk.import_paths(opened, [EXAMPLES / "connect4"])
    stream = io.StringIO()
    with archive(db, readonly=True) as opened:
        database.export_games(opened, stream)
    assert "\n%\n" not in stream.getvalue()  # valid records need none
    (tmp_path / "tail.pgr").write_bytes(b"1. t4 *\n")
    with archive(db) as opened:
        bulk.import_paths(opened, [tmp_path / "tail.pgr"])
    stream = io.StringIO()
    with archive(db, readonly=True) as opened:
        database.export_games(opened, stream)
    assert stream.getvalue().count("\n%\n") == 1
    assert stream.getvalue().endswith("\n%\n1. t4 *\n")


def test_an_escape_line_ends_a_record_wherever_it_stands():
    text = '[Game "forza4x4"]\n[Result "*"]\n\n1. t4 {a comment\n%\n2. t5 *\n%\n\n%\n'
    records = list(read_records(text))
    assert [record.text for record in records] == [
        '[Game "forza4x4"]\n[Result "*"]\n\n1. t4 {a comment',
        "2. t5 *",
    ]
    assert [record.source.line for record in records] == [1, 6]


# -- a line past the limit keeps its problem through export and re-import ----------------------
@pytest.mark.parametrize("tail", ["x", "é"], ids=["ascii", "two-byte characters"])
def test_a_line_past_the_limit_keeps_its_problem_after_export(tmp_path, tail):
    """The archive kept the line cut at the limit, and reading that again found no
    long line: the invalid record came back valid, with another hash. The cut is
    now marked with a U+FFFD inside the limit, a problem wherever it is read."""
    line = "1. t4 r5 ;" + tail * (MAX_LINE_LENGTH + 10) + "\n*"
    (tmp_path / "in.pgr").write_text(
        f'[Game "forza4x4"]\n[Result "*"]\n\n{line}\n\n' + VALID.decode(), encoding="utf-8"
    )
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    with archive(first) as opened:
        report = bulk.import_paths(opened, [tmp_path / "in.pgr"])
    assert report.imported == 2
    exported = tmp_path / "out.pgr"
    with (
        exported.open("w", encoding="utf-8", newline="\n") as stream,
        archive(first, readonly=True) as opened,
    ):
        database.export_games(opened, stream)
    assert max(map(len, exported.read_bytes().split(b"\n"))) <= MAX_LINE_LENGTH
    with archive(second) as opened:
        bulk.import_paths(opened, [exported])
    rows = {db: archive_games(db) for db in (first, second)}
    statuses = [row[3] for row in rows[second][:2]]
    assert statuses == ["invalid", "valid"]
    assert [row[:5] for row in rows[second][:2]] == [row[:5] for row in rows[first][:2]]
    with archive(first) as opened:
        again = bulk.import_paths(opened, [exported])
    assert again.imported == 0 and again.duplicates == 2


# -- writers wait for readers and for each other -------------------------------------------------
HELD = 5.5  # seconds: past the 5 s a writer used to wait


@pytest.mark.parametrize("holder", ["reader", pytest.param("writer", marks=pytest.mark.slow)])
def test_an_import_waits_for_a_lock_held_past_the_old_bound(tmp_path, holder):
    """Four imports into one archive with query, tree and report looping on it: 3 of
    8 imports failed "locked by another program (waited 5 s)" while a reader held
    the archive at rest or another import's long batch or final sort held the write
    lock. Writers now wait up to connection.BUSY_TIMEOUT (10 minutes)."""
    db = tmp_path / "a.db"
    with archive(db) as opened:
        bulk.import_paths(opened, [EXAMPLES / "forza4x4"])
    if holder == "reader":  # the archive at rest: a rollback journal, a shared lock
        other = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, isolation_level=None)
        other.execute("BEGIN")
        other.execute("SELECT count(*) FROM games").fetchone()
    else:  # another writer's long transaction, in WAL mode as imports write
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("PRAGMA journal_mode=WAL").fetchone()
        other.execute("BEGIN IMMEDIATE")
        other.execute("UPDATE games SET event = event WHERE id = 1")
    outcome: list[object] = []

    def run_import() -> None:  # a connection of its own, as another process has
        try:
            with archive(db) as opened:
                outcome.append(bulk.import_paths(opened, [EXAMPLES / "connect4"]).imported)
        except Exception as error:
            outcome.append(error)

    started = time.monotonic()
    importing = threading.Thread(target=run_import)
    importing.start()
    try:
        time.sleep(HELD)
        assert not outcome  # still waiting, not refused
    finally:
        other.execute("COMMIT")
        other.close()
    importing.join(timeout=60)
    [imported] = outcome
    assert isinstance(imported, int) and imported > 0, imported
    assert time.monotonic() - started >= HELD


def test_a_lock_held_past_the_bound_is_still_one_line(tmp_path, monkeypatch):
    db = tmp_path / "a.db"
    with archive(db) as opened:
        bulk.import_paths(opened, [EXAMPLES / "forza4x4"])
    monkeypatch.setattr(connection, "BUSY_TIMEOUT", 0.3)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        result = run_cli(["import", str(EXAMPLES / "connect4"), "--db", str(db)])
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert result.code == 1
    assert result.stderr == (
        f"partita: error: the archive {db} is locked by another program (waited 0.3 s): "
        "try again when it has finished\n"
    )


# -- output files are written whole or not at all ----------------------------------------------
def on_a_full_disk(limit: int):
    """For ``preexec_fn``: files of the process cannot grow past ``limit`` bytes (a
    write past it fails with EFBIG, as one on a full disk fails with ENOSPC)."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    return apply


OUTPUTS = {
    "report -o x.html": (["report", "-o", "{out}", "--no-charts"], "x.html"),
    "report -o x.md": (["report", "-o", "{out}", "--no-charts"], "x.md"),
    "tree --dot": (["tree", "--game", "forza4x4", "--dot", "{out}"], "x.dot"),
    "tree --graphml": (["tree", "--game", "forza4x4", "--graphml", "{out}"], "x.graphml"),
    "balance -o": (["balance", "-o", "{out}"], "x.html"),
    "export -o": (["export", "-o", "{out}"], "x.pgr"),
}


@pytest.fixture(scope="module")
def forza_archive(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("forza") / "forza.db"
    with archive(db) as opened:
        bulk.import_paths(opened, [EXAMPLES / "forza4x4"])
    return db


@pytest.mark.parametrize("case", list(OUTPUTS))
def test_an_output_file_is_whole_or_the_earlier_one_stays(tmp_path, forza_archive, case):
    """On a full disk, report -o x.html, tree --dot, tree --graphml and balance -o
    left a partial file in place of the earlier one of that name."""
    args, name = OUTPUTS[case]
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / name
    target.write_text("the earlier file\n", encoding="utf-8")
    command = [sys.executable, "-m", "partita", *[arg.format(out=target) for arg in args]]
    command += ["--db", str(forza_archive)]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=on_a_full_disk(1000),
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert done.stderr.startswith(f"partita: error: cannot write {target}: file too large")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert target.read_text(encoding="utf-8") == "the earlier file\n"
    assert sorted(path.name for path in folder.iterdir()) == [name]


# -- Ctrl-C in the last moments ------------------------------------------------------------------
LATE_CTRL_C = {
    # SIGINT while main's SystemExit goes up to the interpreter
    "as the command ends": "try:\n    main()\nfinally:\n    os.kill(os.getpid(), signal.SIGINT)\n"
    "    time.sleep(5)\n",
    # SIGINT while the interpreter shuts down
    "while the interpreter shuts down": "atexit.register(os.kill, os.getpid(), signal.SIGINT)\n"
    "main()\n",
}


@pytest.mark.parametrize("moment", list(LATE_CTRL_C))
def test_a_late_ctrl_c_of_export_is_the_interrupted_line(tmp_path, forza_archive, moment):
    """A Ctrl-C in the last moments of export -o killed the process by the signal,
    with a traceback and without the `interrupted` line."""
    target = tmp_path / "out.pgr"
    program = (
        "import atexit, os, signal, sys, time\n"
        "from partita.cli import main\n"
        f"sys.argv = ['partita', 'export', '--db', {str(forza_archive)!r}, '-o', {str(target)!r}]\n"
        + LATE_CTRL_C[moment]
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 130, done
    assert done.stderr.endswith("partita: interrupted\n") and "Traceback" not in done.stderr
    assert target.read_text(encoding="utf-8").count('[Game "forza4x4"]') == 40  # whole


@pytest.mark.parametrize("width", [80, 20, 1])
def test_the_writer_starts_no_line_with_an_escape(width):
    """A comment's word starting with % wrapped to the start of a line made an
    escape line of it, which cut the record in two when read again."""
    words = " ".join(["word"] * 30 + ["%", "%%", "%sign"] * 10)
    text = f'[Game "forza4x4"]\n[Result "*"]\n\n1. t4 {{{words}}} r5 *\n'
    [record] = read_records(text)
    written = write_record(record, width=width)
    assert not any(line.startswith("%") for line in written.splitlines())
    [again] = read_records(written)
    assert again.same_game(record)
    assert written == write_record(again, width=width)
