"""Reliability: what a campaign of damaged records, damaged archives, concurrent
writers and full disks found, one section per finding, each test reproducing it.

The campaign itself (mutated records, export and re-import) is
``tests/test_campaign.py``.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_runner import run_cli

from partita import database

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
    database.import_paths(db, [EXAMPLES / "connect4"])
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
    database.import_paths(other, [EXAMPLES / "forza4x4"])
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
