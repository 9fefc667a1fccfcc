"""Opening an archive safely: reading never writes, other programs' files are never
touched, migrations are asked for, SQLite's errors are one clear line, and
processes making one archive at once wait for each other."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from concurrent_import import import_at_once
from sqlite_utils import Database

from partita.analysis.novelty import novelty_against_archive
from partita.analysis.report import build_report
from partita.analysis.tree import tree_from_archive
from partita.bulk import import_paths
from partita.cli.app import main
from partita.database import (
    connection,
    count_games,
    export_games,
    game_problems,
    get_record,
    migrate_archive,
    open_archive,
    query_games,
    schema,
)
from partita.database.maintenance import set_tag
from partita.database.schema import APPLICATION_ID, SCHEMA_VERSION, Migration, archive
from partita.errors import ArchiveError
from partita.notation.reader import read_records

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


def snapshot(path: Path) -> tuple[bytes, int, list[str]]:
    """The file's bytes and mtime, and what lies in its folder."""
    return path.read_bytes(), path.stat().st_mtime_ns, sorted(os.listdir(path.parent))


@pytest.fixture
def forza_archive(tmp_path) -> Path:
    db = tmp_path / "archive" / "forza.db"
    db.parent.mkdir()
    with archive(db) as opened:
        summary = import_paths(opened, [FORZA])
    assert summary.imported == summary.records > 10
    return db


# -- at rest, and reading ------------------------------------------------------------------


def test_an_archive_at_rest_is_one_file_marked_as_partitas(forza_archive):
    assert os.listdir(forza_archive.parent) == ["forza.db"]
    conn = sqlite3.connect(f"{forza_archive.as_uri()}?mode=ro", uri=True)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()
    # While a writer has it open, it is in WAL mode (readers never wait for it).
    db = open_archive(forza_archive)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def interrupt_when_leaving_wal(statement: str) -> None:
    """A connection's trace callback: Ctrl-C as the connection switches its
    journal back from WAL, the moment an archive being closed is two files."""
    if "journal_mode" in statement and "DELETE" in statement.upper():
        signal.raise_signal(signal.SIGINT)


def test_a_ctrl_c_while_the_archive_closes_waits_until_it_is_one_file(forza_archive):
    # The interrupt lands in the middle of closing (as the journal switches back):
    # it is raised once the file is closed, and no -wal or -shm is left beside it.
    with pytest.raises(KeyboardInterrupt), archive(forza_archive) as db:
        db.execute("SELECT count(*) FROM games").fetchone()
        db.conn.set_trace_callback(interrupt_when_leaving_wal)
    assert os.listdir(forza_archive.parent) == ["forza.db"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_transaction_left_open_is_rolled_back_and_the_archive_left_one_file(
    forza_archive,
):
    def tag_rows() -> int:
        conn = sqlite3.connect(f"{forza_archive.as_uri()}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT count(*) FROM game_tags").fetchone()[0]
        finally:
            conn.close()

    before = tag_rows()
    with archive(forza_archive) as db:
        db.conn.execute("BEGIN IMMEDIATE")
        db.conn.execute("DELETE FROM game_tags")
    assert os.listdir(forza_archive.parent) == ["forza.db"]
    assert tag_rows() == before > 0


def test_reading_functions_write_nothing(forza_archive):
    before = snapshot(forza_archive)
    with archive(forza_archive, readonly=True) as opened:
        game_id = query_games(opened, player="zoë")[0]["id"]
    with archive(forza_archive, readonly=True) as opened:
        record = get_record(opened, game_id)
    with archive(forza_archive, readonly=True) as opened:
        game_problems(opened, game_id)
    stream = io.StringIO()
    with archive(forza_archive, readonly=True) as opened:
        assert export_games(opened, stream) == count_games(opened) > 10
    with archive(forza_archive, readonly=True) as opened:
        tree = tree_from_archive(opened, "forza4x4", depth=2)
    assert tree.games > 10
    with archive(forza_archive, readonly=True) as opened:
        assert novelty_against_archive(record, opened).reference_games > 0
    with archive(forza_archive, readonly=True) as opened:
        assert build_report(opened, game="forza4x4")["glance"]["total"] > 10
    assert snapshot(forza_archive) == before


def test_a_reading_connection_is_read_only(forza_archive):
    before = snapshot(forza_archive)
    with (
        pytest.raises(ArchiveError, match="cannot be written"),
        archive(forza_archive, readonly=True) as db,
    ):
        db.execute("DELETE FROM games")
    assert snapshot(forza_archive) == before


def test_read_commands_write_nothing(forza_archive, capsys, tmp_path):
    before = snapshot(forza_archive)
    db = str(forza_archive)
    code, out, _ = run(capsys, "query", "--db", db, "--json")
    assert code == 0 and len(json.loads(out)) > 10
    assert run(capsys, "show", "1", "--db", db)[0] == 0
    assert run(capsys, "export", "--db", db)[0] == 0
    assert run(capsys, "tree", "--db", db, "--game", "forza4x4", "--depth", "2")[0] == 0
    assert run(capsys, "novelty", "1", "--db", db)[0] == 0
    report = str(tmp_path / "r.md")
    assert (
        run(capsys, "report", "--db", db, "--game", "forza4x4", "-o", report, "--no-charts")[0] == 0
    )
    assert snapshot(forza_archive) == before


def test_a_read_only_file_in_a_read_only_folder_is_read(forza_archive, capsys):
    # Tests run as root, where these modes stop no write: what is checked is that
    # reading wrote nothing (the bytes, the mtime, no -wal or -shm file).
    before = snapshot(forza_archive)
    forza_archive.chmod(0o444)
    forza_archive.parent.chmod(0o555)
    try:
        code, out, _ = run(capsys, "query", "--db", str(forza_archive), "--json")
        assert code == 0 and len(json.loads(out)) > 10
        assert snapshot(forza_archive) == before
    finally:
        forza_archive.parent.chmod(0o755)
        forza_archive.chmod(0o644)


def can_mount_read_only() -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount --bind / /mnt 2>/dev/null || exit 1"],
        capture_output=True,
    )
    return done.returncode == 0


READ_ONLY_MEDIUM = """
set -e
mount --bind "$1" "$1"
mount -o remount,ro,bind "$1"
shift
"$@"
"""


def on_read_only_medium(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """`partita ARGS` with ``folder`` mounted read-only (in a private mount
    namespace: nothing outside the command sees the mount)."""
    environment = {k: v for k, v in os.environ.items() if k != "PARTITA_DB"}
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", READ_ONLY_MEDIUM, "sh", str(folder),
         sys.executable, "-m", "partita", *args],
        capture_output=True, text=True, cwd=ROOT, env=environment, timeout=120,
    )  # fmt: skip


@pytest.mark.skipif(not can_mount_read_only(), reason="needs unshare and mount (root)")
@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_an_archive_on_a_read_only_medium_is_read_and_not_written(forza_archive, journal):
    if journal == "wal":  # as an older partita left its archives
        sql(forza_archive, "PRAGMA journal_mode=WAL")
        assert os.listdir(forza_archive.parent) == ["forza.db"]
    before = snapshot(forza_archive)
    folder = forza_archive.parent
    read = on_read_only_medium(folder, "query", "--db", str(forza_archive), "--json")
    assert read.returncode == 0, read.stderr
    assert len(json.loads(read.stdout)) > 10
    if journal == "delete":
        write = on_read_only_medium(folder, "import", str(RULEBOOK), "--db", str(forza_archive))
        assert write.returncode == 1
        assert write.stderr.count("\n") == 1 and "Traceback" not in write.stderr
        assert f"the archive {forza_archive} cannot be written" in write.stderr
    assert snapshot(forza_archive) == before


def test_a_missing_archive_is_an_error_for_every_reader_and_no_file_is_made(tmp_path, capsys):
    missing = tmp_path / "missing.db"
    for read in (
        lambda: open_archive(missing, readonly=True),
        lambda: migrate_archive(missing),
    ):
        with pytest.raises(ArchiveError, match="no archive at"):
            read()
    for command in (["query"], ["show", "1"], ["export", "-o", str(tmp_path / "out.pgr")],
                    ["tree", "--game", "forza4x4"], ["novelty", str(RULEBOOK)],
                    ["report", "-o", str(tmp_path / "r.html")], ["migrate"]):  # fmt: skip
        code, _, err = run(capsys, *command, "--db", str(missing))
        assert code == 1 and "no archive at" in err and err.count("\n") == 1, command
    assert os.listdir(tmp_path) == []


# -- other programs' files -------------------------------------------------------------------


def games_table(path: Path) -> None:
    db = Database(path)
    db["games"].insert({"name": "chess"})
    db.close()


def sql(path: Path, *statements: str) -> None:
    """Run ``statements`` on the file, then close it."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()


def notes_table(path: Path) -> None:
    sql(
        path,
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
        "INSERT INTO notes (text) VALUES ('milk')",
    )


def another_schema_version(path: Path) -> None:
    sql(
        path,
        "CREATE TABLE schema_version (version INTEGER, script TEXT)",
        "INSERT INTO schema_version VALUES (1, 'init.sql')",
    )


def another_application(path: Path) -> None:
    """partita's table shapes, but another program's mark."""
    sql(
        path,
        "PRAGMA application_id = 1234",
        "CREATE TABLE schema_version (version, description, applied)",
    )


def in_wal_mode(path: Path) -> None:
    """Another program's database as it leaves it: WAL mode, no -wal file."""
    sql(path, "PRAGMA journal_mode=WAL", "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    assert os.listdir(path.parent) == [path.name]


def text_file(path: Path) -> None:
    path.write_text("shopping list\n" * 200, encoding="utf-8")


@pytest.mark.parametrize(
    "make",
    [games_table, notes_table, another_schema_version, another_application, in_wal_mode, text_file],
)
def test_other_files_are_refused_by_every_command_and_left_unchanged(make, tmp_path, capsys):
    other = tmp_path / "folder" / "other.db"
    other.parent.mkdir()
    make(other)
    before = snapshot(other)
    for use in (
        lambda: open_archive(other),
        lambda: open_archive(other, readonly=True),
        lambda: migrate_archive(other),
    ):
        with pytest.raises(ArchiveError, match="other.db is not a partita archive"):
            use()
    for command in (["import", str(RULEBOOK)], ["query"], ["export"], ["show", "1"],
                    ["migrate"], ["tree", "--game", "forza4x4"]):  # fmt: skip
        code, _, err = run(capsys, *command, "--db", str(other))
        assert code == 1, command
        assert err.startswith("partita: error: ") and err.count("\n") == 1
        assert "not a partita archive" in err
    assert snapshot(other) == before


def test_an_empty_file_becomes_an_archive_on_import_and_is_refused_for_reading(tmp_path):
    empty = tmp_path / "empty.db"
    empty.touch()
    with (
        pytest.raises(ArchiveError, match="is empty: import records into it first"),
        archive(empty, readonly=True) as opened,
    ):
        query_games(opened)
    assert empty.read_bytes() == b""
    with archive(empty) as opened:
        assert import_paths(opened, [RULEBOOK]).imported == 1
    with archive(empty, readonly=True) as opened:
        assert len(query_games(opened)) == 1


def test_a_folder_is_no_archive(tmp_path):
    with (
        pytest.raises(ArchiveError, match="is a folder"),
        archive(tmp_path, readonly=True) as opened,
    ):
        query_games(opened)
    with pytest.raises(ArchiveError, match="is a folder"), archive(tmp_path) as opened:
        import_paths(opened, [RULEBOOK])


def test_an_archive_in_a_folder_that_does_not_exist_is_not_made(tmp_path):
    with (
        pytest.raises(ArchiveError, match="there is no folder"),
        archive(tmp_path / "nowhere" / "a.db") as opened,
    ):
        import_paths(opened, [RULEBOOK])
    assert not (tmp_path / "nowhere").exists()


# -- migrations ------------------------------------------------------------------------------


@pytest.fixture
def older_archive(forza_archive, monkeypatch):
    """An archive one migration behind: this partita knows a second one."""
    step = Migration(
        SCHEMA_VERSION + 1, "a test column", lambda db: db["games"].add_column("extra", str)
    )
    monkeypatch.setattr(schema, "MIGRATIONS", (*schema.MIGRATIONS, step))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    return forza_archive


def test_reading_refuses_an_archive_that_needs_a_migration_and_says_how(older_archive, capsys):
    forza_archive = older_archive
    before = snapshot(forza_archive)
    with (
        pytest.raises(ArchiveError, match="written by an older partita") as refused,
        archive(forza_archive, readonly=True) as opened,
    ):
        query_games(opened)
    assert f"partita migrate --db {forza_archive}" in str(refused.value)
    code, _, err = run(capsys, "query", "--db", str(forza_archive))
    assert code == 1 and "older partita" in err and err.count("\n") == 1
    assert snapshot(forza_archive) == before
    code, out, _ = run(capsys, "migrate", "--db", str(forza_archive))
    newer = SCHEMA_VERSION + 1
    assert code == 0 and f"migrated from schema version {SCHEMA_VERSION} to {newer}" in out
    assert "extra" in Database(forza_archive)["games"].columns_dict
    with archive(forza_archive, readonly=True) as opened:
        assert len(query_games(opened)) > 10
    code, out, _ = run(capsys, "migrate", "--db", str(forza_archive))
    assert code == 0 and f"already at schema version {newer}" in out


def test_an_import_migrates_its_archive(older_archive):
    with archive(older_archive) as opened:
        import_paths(opened, [RULEBOOK])
    versions = Database(older_archive).execute("SELECT max(version) FROM schema_version")
    assert versions.fetchone() == (SCHEMA_VERSION + 1,)


def test_an_archive_of_a_newer_partita_is_refused_for_reading_too(forza_archive):
    sql(forza_archive, f"INSERT INTO schema_version VALUES ({SCHEMA_VERSION + 1}, 'future', '')")
    for use in (
        lambda: open_archive(forza_archive, readonly=True),
        lambda: open_archive(forza_archive),
    ):
        with pytest.raises(ArchiveError, match="newer than this partita"):
            use()


# -- SQLite's errors ---------------------------------------------------------------------------


def test_a_damaged_archive_is_one_clear_line(forza_archive, capsys):
    size = forza_archive.stat().st_size
    page = 4096
    assert size > 4 * page
    with open(forza_archive, "r+b") as stream:  # every page after the schema's: noise
        stream.seek(page)
        stream.write(bytes(range(256)) * ((size - page) // 256))
    for command in (["query"], ["export"], ["import", str(RULEBOOK)]):
        code, _, err = run(capsys, *command, "--db", str(forza_archive))
        assert code == 1, command
        assert err.count("\n") == 1 and f"the archive {forza_archive} is damaged" in err
        assert "restore it from a copy" in err


def test_a_lock_held_too_long_by_another_program_is_one_clear_line(
    forza_archive, monkeypatch, capsys
):
    monkeypatch.setattr(connection, "BUSY_TIMEOUT", 0.2)
    other = sqlite3.connect(forza_archive, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        for command in (["import", str(RULEBOOK)], ["query"]):
            code, _, err = run(capsys, *command, "--db", str(forza_archive))
            assert code == 1, command
            assert err.count("\n") == 1
            assert f"the archive {forza_archive} is locked by another program" in err
            assert "waited 0.2 s" in err
        with (
            pytest.raises(ArchiveError, match="locked by another program"),
            archive(forza_archive) as opened,
        ):
            import_paths(opened, [RULEBOOK])
    finally:
        other.execute("ROLLBACK")
        other.close()
    with archive(forza_archive) as opened:
        assert import_paths(opened, [RULEBOOK]).duplicates == 1


def test_four_imports_making_one_new_archive_at_once_all_succeed(tmp_path):
    context = multiprocessing.get_context("spawn")
    records = sum(1 for path in FORZA.glob("*.pgr") for _ in read_records(path))
    database = tmp_path / "new.db"
    barrier = context.Barrier(4)
    results = context.Queue()
    processes = [
        context.Process(target=import_at_once, args=(str(database), str(FORZA), barrier, results))
        for _ in range(4)
    ]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=60)
    assert all(outcome[0] == "ok" for outcome in outcomes), outcomes
    assert sum(outcome[1] for outcome in outcomes) == records
    assert sum(outcome[2] for outcome in outcomes) == 3 * records
    conn = sqlite3.connect(database)
    try:
        stored = conn.execute("SELECT count(*), count(DISTINCT hash) FROM games").fetchone()
        assert stored == (records, records)
        # Every migration applied once, whichever import made the archive.
        assert conn.execute("SELECT count(*) FROM schema_version").fetchone()[0] == len(
            schema.MIGRATIONS
        )
    finally:
        conn.close()


def test_opening_an_archive_looks_for_no_sqlite_utils_plugins(tmp_path, monkeypatch):
    """Partita registers its own SQL functions: an import and a read open their
    archives without sqlite-utils' plugin search (which reads the entry points of
    every installed package, about 15 ms of a small import's start-up)."""
    import sqlite_utils.db

    def no_plugins() -> None:
        raise AssertionError("sqlite-utils looked for plugins")

    monkeypatch.setattr(sqlite_utils.db, "ensure_plugins_loaded", no_plugins)
    db = tmp_path / "a.db"
    with archive(db) as opened:
        assert import_paths(opened, [RULEBOOK]).imported == 1
    with archive(db, readonly=True) as opened:
        assert opened.execute("SELECT count(*) FROM games").fetchone() == (1,)
    with archive(":memory:") as in_memory:
        assert in_memory.execute("SELECT count(*) FROM games").fetchone() == (0,)


# -- the one archive object ---------------------------------------------------------------------


def test_one_open_archive_serves_reads_and_a_change_that_opens_for_writing(forza_archive):
    """An archive open for reading serves the readers; a tag change through it that
    changes nothing leaves the file as it was, one that changes something opens the
    file for writing for that change alone, and the reader sees it afterwards."""
    with archive(forza_archive, readonly=True) as opened:
        assert opened.readonly and opened.name == str(forza_archive)
        game_id = query_games(opened)[0]["id"]
        event = get_record(opened, game_id).tags.get("Event")
        before = snapshot(forza_archive)
        assert not set_tag(opened, game_id, "Event", event).changed
        assert snapshot(forza_archive) == before  # nothing to change: not opened to write
        change = set_tag(opened, game_id, "Event", "Elsewhere")
        assert change.before == event and change.after == "Elsewhere"
        assert get_record(opened, game_id).tags["Event"] == "Elsewhere"
    assert sorted(os.listdir(forza_archive.parent)) == ["forza.db"]  # at rest: one file


def test_an_archive_loads_sqlite_utils_only_when_asked_for_it(tmp_path):
    probe = (
        "import sys\n"
        "from partita.bulk import import_paths\n"
        "from partita.database import archive, query_games\n"
        f"with archive({str(tmp_path / 'a.db')!r}) as opened:\n"
        f"    import_paths(opened, [{str(RULEBOOK)!r}])\n"
        f"with archive({str(tmp_path / 'a.db')!r}, readonly=True) as opened:\n"
        "    found = len(query_games(opened))\n"
        "    before = 'sqlite_utils' in sys.modules\n"
        "    tables = 'games' in opened.db.table_names()\n"
        "print(found, before, tables, 'sqlite_utils' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.split() == ["1", "False", "True", "True"]
