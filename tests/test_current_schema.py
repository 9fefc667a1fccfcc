"""A new archive is made in one step (partita.database.current_schema), and that
archive is the one the migrations make; the import writes without sqlite-utils."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlite_utils import Database
from test_archive_opening import interrupt_when_leaving_wal

from partita.bulk import import_paths
from partita.database import ArchiveWriter, schema
from partita.database.current_schema import CURRENT_SCHEMA, CURRENT_SCHEMA_VERSION
from partita.database.schema import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    Migration,
    archive,
)
from partita.errors import ArchiveError
from partita.notation.reader import read_records
from partita.notation.replay import replay_records

ROOT = Path(__file__).resolve().parent.parent
RULEBOOK = ROOT / "examples" / "forza4x4" / "rulebook-example.pgr"

UPDATE = (
    "the one-step schema (CURRENT_SCHEMA in partita/database/current_schema.py) is not "
    "what the migrations make: add what the new migration makes to it, as sqlite_master "
    "holds it after the migrations, and set CURRENT_SCHEMA_VERSION to the new version"
)

#: Pragmas an archive carries in its file (the schema cookie is left out: it counts
#: the schema changes, one per statement, and says nothing of the schema; so is the
#: free-page count: migration 6 drops an index the one-step archive never makes).
PRAGMAS = (
    "application_id",
    "user_version",
    "page_size",
    "auto_vacuum",
    "encoding",
    "journal_mode",
)


def migrated_archive(path: Path, monkeypatch) -> None:
    """An archive made the way partita made new archives before the one-step
    schema, which it still does when its migrations stop short of that schema:
    ``schema_version`` by sqlite-utils, then every migration, in one transaction."""
    with monkeypatch.context() as patch:
        patch.setattr(schema, "CURRENT_SCHEMA_VERSION", 0)
        patch.setattr(schema, "_create_current", None)  # never called
        with archive(path):
            pass


def one_step_archive(path: Path) -> None:
    with archive(path):
        pass


def describe(path: Path) -> dict[str, object]:
    """What must be equal: the schema, the migrations recorded, the pragmas, the
    header's schema format number."""
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        master = sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
        versions = conn.execute(
            "SELECT version, description FROM schema_version ORDER BY version"
        ).fetchall()
        stamps = [row[0] for row in conn.execute("SELECT applied FROM schema_version")]
        pragmas = {name: conn.execute(f"PRAGMA {name}").fetchone()[0] for name in PRAGMAS}
    finally:
        conn.close()
    header = path.read_bytes()[:100]
    assert all(len(stamp) == len("2026-12-01T21:58:43+00:00") for stamp in stamps)
    return {
        "sqlite_master": master,
        "schema_version": versions,
        "pragmas": pragmas,
        "schema format": int.from_bytes(header[44:48], "big"),
    }


def test_the_one_step_schema_is_at_the_newest_migration():
    assert CURRENT_SCHEMA_VERSION == SCHEMA_VERSION, (
        f"the migrations go to version {SCHEMA_VERSION}, the one-step schema to "
        f"{CURRENT_SCHEMA_VERSION}: {UPDATE}"
    )


def test_a_new_archive_made_in_one_step_is_the_archive_the_migrations_make(tmp_path, monkeypatch):
    migrated_archive(tmp_path / "migrated.db", monkeypatch)
    one_step_archive(tmp_path / "one-step.db")
    migrated = describe(tmp_path / "migrated.db")
    made = describe(tmp_path / "one-step.db")
    for part in migrated:
        assert made[part] == migrated[part], f"{part} differs: {UPDATE}"
    assert migrated["schema_version"] == [
        (migration.version, migration.description) for migration in MIGRATIONS
    ]
    assert migrated["pragmas"]["application_id"] == APPLICATION_ID


def test_a_new_archive_runs_no_migration(tmp_path, monkeypatch):
    def never(*args) -> None:
        raise AssertionError("a migration ran on a new archive")

    steps = tuple(
        Migration(step.version, step.description, never, step.reports_progress)
        for step in MIGRATIONS
    )
    monkeypatch.setattr(schema, "MIGRATIONS", steps)
    with archive(tmp_path / "new.db") as opened:
        assert import_paths(opened, [RULEBOOK]).imported == 1
    conn = sqlite3.connect(tmp_path / "new.db")
    assert conn.execute("SELECT max(version) FROM schema_version").fetchone() == (SCHEMA_VERSION,)
    conn.close()


def test_migrations_newer_than_the_one_step_schema_run_on_a_new_archive(tmp_path, monkeypatch):
    """A migration added without updating the one-step schema still gives new
    archives the whole schema (the newer steps run after it), only slower."""
    monkeypatch.setattr(schema, "CURRENT_SCHEMA_VERSION", 3)
    # The schema at version 3: migration 6's hash key undone, 4's, 5's and 7's tables
    # left out (7 makes positions again, from whatever it finds).
    at_version_5 = CURRENT_SCHEMA.replace(
        ", twin_key INTEGER, hash_key INTEGER);",
        ', twin_key INTEGER);\nCREATE UNIQUE INDEX "games_hash"\n    ON "games" ("hash");',
    ).replace("CREATE INDEX games_hash_key ON games(hash_key);\n", "")
    assert at_version_5 != CURRENT_SCHEMA
    newer = ("game_players", "game_tags", "variation_positions", "game_positions", "_pending")
    behind = tuple(
        statement
        for statement in at_version_5.split(";\n")
        if statement.strip() and not any(name in statement.splitlines()[0] for name in newer)
    )
    assert len(behind) == len(schema.CURRENT_STATEMENTS) - 9
    monkeypatch.setattr(schema, "CURRENT_STATEMENTS", behind)
    one_step_archive(tmp_path / "one-step.db")
    migrated_archive(tmp_path / "migrated.db", monkeypatch)
    assert describe(tmp_path / "one-step.db") == describe(tmp_path / "migrated.db")


def test_an_import_into_a_new_archive_loads_no_sqlite_utils(tmp_path):
    """The import opens, makes, writes and closes its archive with sqlite3 alone;
    the Database API still works on what it wrote."""
    probe = (
        "import sys\n"
        "from partita.bulk import import_paths\n"
        "from partita.database.schema import archive\n"
        "def run():\n"
        "    with archive(sys.argv[1]) as opened:\n"
        "        return import_paths(opened, [sys.argv[2]])\n"
        "summaries = [run() for _ in range(2)]\n"
        "print(summaries[0].imported, summaries[1].duplicates, 'sqlite_utils' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "new.db"), str(RULEBOOK)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["1", "1", "False"]
    db = Database(tmp_path / "new.db")
    plies = db.execute("SELECT plies FROM games").fetchone()[0]
    assert db["games"].count == 1 and db["positions"].count == plies
    db.close()
    assert os.listdir(tmp_path) == ["new.db"]


def test_a_ctrl_c_while_the_import_s_archive_closes_waits_until_it_is_one_file(tmp_path):
    # The import's own opener: the interrupt lands as the journal switches back.
    with pytest.raises(KeyboardInterrupt), archive(tmp_path / "new.db") as opened:
        writer = ArchiveWriter(opened)
        for record in replay_records(read_records(RULEBOOK)):
            writer.add(record)
        writer.flush()
        opened.conn.set_trace_callback(interrupt_when_leaving_wal)
    assert os.listdir(tmp_path) == ["new.db"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with archive(tmp_path / "new.db") as opened:
        assert import_paths(opened, [RULEBOOK]).duplicates == 1


def test_the_writing_connection_refuses_what_open_archive_refuses(tmp_path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    with pytest.raises(ArchiveError) as refused:
        schema.open_for_writing(other)
    with pytest.raises(ArchiveError) as refused_too:
        schema.open_archive(other)
    assert str(refused.value) == str(refused_too.value)
    assert "is not a partita archive" in str(refused.value) and "notes" in str(refused.value)
    assert other.read_bytes() == before and os.listdir(tmp_path) == ["other.db"]
    with pytest.raises(ArchiveError, match="no archive at"):
        schema.open_for_writing(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()
