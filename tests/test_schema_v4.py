"""Schema version 4: players and tags in indexed tables that stay true to the games
rows, query plans that follow them, and the bulk import (positions sorted into
their index once, crash-safe like the batched one)."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_hash_key import as_version_5
from test_import import ROOT, check_whole_games, counts, write_games

from partita.bulk import import_paths
from partita.database.filters import GameFilter, fold
from partita.database.maintenance import delete_games, set_tag, unset_tag
from partita.database.merge import merge_archive
from partita.database.schema import SCHEMA_VERSION, migrate_archive, open_archive
from partita.errors import ArchiveError

EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def examples_archive(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("v4") / "examples.db"
    import_paths(path, [EXAMPLES])
    return path


def folded(name: str) -> str:
    """The filters' folding, which tests/test_filters.py pins (what is tested here is
    that the indexed rows hold it, whatever its exact definition)."""
    return fold(name)


def expected_rows(path: Path) -> tuple[set, set]:
    """game_players and game_tags as the games rows say they must be."""
    connection = sqlite3.connect(path)
    try:
        players, tags = set(), set()
        for game_id, tag_text, *names in connection.execute(
            "SELECT id, tags, player1, player2, player3, player4 FROM games"
        ):
            for seat, name in enumerate(names, start=1):
                if name is not None:
                    players.add((game_id, seat, name, folded(name)))
            for name, value in json.loads(tag_text).items():
                try:
                    number = float(value)
                except ValueError:
                    number = None
                if number is not None and value.strip().lower() in ("nan", "inf", "-inf"):
                    number = None
                tags.add((game_id, name, value, number))
        return players, tags
    finally:
        connection.close()


def stored_rows(path: Path) -> tuple[set, set]:
    connection = sqlite3.connect(path)
    try:
        return (
            set(connection.execute("SELECT game_id, seat, name, folded FROM game_players")),
            set(connection.execute("SELECT game_id, name, value, number FROM game_tags")),
        )
    finally:
        connection.close()


def assert_indexed_rows_true(path: Path) -> None:
    players, tags = stored_rows(path)
    expected_players, expected_tags = expected_rows(path)
    assert players == expected_players
    assert tags == expected_tags


def test_an_import_fills_players_and_tags_as_the_rows_say(examples_archive):
    players, tags = stored_rows(examples_archive)
    assert len(players) > 150 and len(tags) > 500
    assert_indexed_rows_true(examples_archive)


def test_migrating_a_version_3_archive_fills_them(examples_archive, tmp_path):
    older = tmp_path / "v3.db"
    shutil.copy(examples_archive, older)
    connection = sqlite3.connect(older)
    as_version_5(connection)
    for table in ("game_players", "game_tags", "positions_load", "variation_positions"):
        connection.execute(f"DROP TABLE {table}")
    connection.execute("DELETE FROM schema_version WHERE version >= 4")
    connection.commit()
    connection.close()
    with pytest.raises(ArchiveError, match="schema version 3"):
        open_archive(older, readonly=True)
    assert migrate_archive(older) == (3, SCHEMA_VERSION)
    assert stored_rows(older) == stored_rows(examples_archive)


def test_tag_changes_deletions_and_merges_keep_them_true(examples_archive, tmp_path):
    path = tmp_path / "a.db"
    shutil.copy(examples_archive, path)
    set_tag(path, 1, "Event", "Zoë's Cup")
    set_tag(path, 2, "Player1", "Ångström")
    set_tag(path, 3, "Rating", "1850")
    unset_tag(path, 4, "Event")
    delete_games(path, [5, 6])
    assert_indexed_rows_true(path)
    assert ("Rating", "1850", 1850.0) in {row[1:] for row in stored_rows(path)[1] if row[0] == 3}
    merged = tmp_path / "merged.db"
    write_games(tmp_path / "other.pgr", 5, seed=3)
    import_paths(merged, [tmp_path / "other.pgr"])
    merge_archive(merged, path)
    assert_indexed_rows_true(merged)
    assert len(stored_rows(merged)[0]) == len(stored_rows(path)[0]) + 10


def plan(path: Path, selection: GameFilter) -> str:
    joins, where, params = selection.sql()
    db = open_archive(path, readonly=True)
    try:
        rows = db.execute(f"EXPLAIN QUERY PLAN SELECT g.id FROM {joins} WHERE {where}", params)
        return " | ".join(row[-1] for row in rows)
    finally:
        db.close()


def test_filters_follow_the_indexes(examples_archive):
    opening = plan(examples_archive, GameFilter(games="forza4x4", openings="t4"))
    assert "games_moves" in opening and "games_game_date" not in opening
    assert "game_players_folded" in plan(examples_archive, GameFilter(players="anna"))
    assert "game_tags_value (name=? AND value=?)" in plan(
        examples_archive, GameFilter(tags="Site=Milano")
    )
    assert "game_tags_number (name=? AND number>?)" in plan(
        examples_archive, GameFilter(tags="Round>=2")
    )
    for selection in (GameFilter(players="anna"), GameFilter(tags="Site=Milano")):
        assert "partita_fold" not in selection.sql()[1]
        assert "json_extract" not in selection.sql()[1]


def positions_dump(path: Path) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(
            "SELECT g.hash, p.key, p.ply FROM positions p "
            "JOIN games g ON g.id = p.game_id ORDER BY g.id, p.ply"
        ).fetchall()
    finally:
        connection.close()


def game_positions_dump(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT game_id, ply, key FROM game_positions").fetchall()


def test_a_bulk_import_stores_what_a_batched_one_does(tmp_path):
    write_games(tmp_path / "in" / "a.pgr", 60, seed=21)
    batched, bulk = tmp_path / "batched.db", tmp_path / "bulk.db"
    first = import_paths(batched, [tmp_path / "in"], batch_size=7, bulk=False)
    second = import_paths(bulk, [tmp_path / "in"], batch_size=7, bulk=True)
    assert first.as_dict() == second.as_dict()
    assert positions_dump(bulk) == positions_dump(batched)
    assert counts(bulk) == counts(batched)
    assert stored_rows(bulk) == stored_rows(batched)
    assert counts(bulk)["positions"] > 0
    assert sqlite3.connect(bulk).execute("SELECT count(*) FROM positions_pending").fetchone() == (
        0,
    )
    assert game_positions_dump(bulk) == game_positions_dump(batched)
    check_whole_games(bulk)


KILLED_BULK_IMPORT = """
import sys
from partita.bulk import import_paths

def progress(done):
    print(done.imported, flush=True)

import_paths(sys.argv[1], [sys.argv[2]], batch_size=5, progress=progress, workers=1, bulk=True)
print("finished", flush=True)
"""


def kill_a_bulk_import(database: Path, folder: Path) -> None:
    """Run a bulk import of ``folder`` into ``database`` in a process of its own (5
    records a batch) and kill it once three batches are committed, while it works
    on."""
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_BULK_IMPORT, str(database), str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    assert child.stdout is not None
    for _ in range(3):  # three batches committed
        child.stdout.readline()
    child.send_signal(signal.SIGKILL)
    assert "finished" not in child.stdout.read()
    child.wait(timeout=20)


def whole_with_loaded_positions(path: Path) -> int:
    """Every stored game has its plies in game_positions; the number of its rows
    not sorted into positions yet."""
    connection = sqlite3.connect(path)
    try:
        broken = connection.execute(
            "SELECT g.id FROM games g LEFT JOIN game_positions p ON p.game_id = g.id "
            "GROUP BY g.id HAVING count(p.game_id) != g.plies"
        ).fetchall()
        assert broken == []
        return connection.execute(
            "SELECT (SELECT count(*) FROM game_positions) - (SELECT count(*) FROM positions)"
        ).fetchone()[0]
    finally:
        connection.close()


@pytest.mark.parametrize("rerun", ["import", "migrate"])
def test_a_killed_bulk_import_holds_whole_games_and_a_rerun_completes_it(tmp_path, rerun):
    plies = write_games(tmp_path / "in" / "a.pgr", 400, seed=8)
    database = tmp_path / "db.sqlite"
    kill_a_bulk_import(database, tmp_path / "in")
    stored = counts(database)["games"]
    assert 15 <= stored < 400 and stored % 5 == 0
    assert whole_with_loaded_positions(database) > 0  # the heap was not sorted in yet
    with pytest.raises(ArchiveError, match="positions are not indexed yet.*partita migrate"):
        open_archive(database, readonly=True)
    if rerun == "migrate":  # any writer completes the indexing first
        migrate_archive(database)
        assert whole_with_loaded_positions(database) == 0
        check_whole_games(database)
        assert counts(database)["games"] == stored
    summary = import_paths(database, [tmp_path / "in"], batch_size=50)
    assert (summary.imported + summary.duplicates, summary.duplicates) == (400, stored)
    assert counts(database) == {"games": 400, "positions": sum(plies), "problems": 0}
    assert whole_with_loaded_positions(database) == 0
    check_whole_games(database)
    assert_indexed_rows_true(database)
    open_archive(database, readonly=True).close()


def test_large_inputs_into_an_archive_without_positions_go_in_bulk(tmp_path, monkeypatch):
    from partita.bulk import importer

    write_games(tmp_path / "a.pgr", 12, seed=4)
    write_games(tmp_path / "b.pgr", 12, seed=5, first=12)
    modes = []
    real = importer.ArchiveWriter

    def spy(*args, **kwargs):
        modes.append(kwargs["bulk"])
        return real(*args, **kwargs)

    monkeypatch.setattr(importer, "ArchiveWriter", spy)
    monkeypatch.setattr(importer, "BULK_MIN_BYTES", 1000)
    import_paths(tmp_path / "db.sqlite", [tmp_path / "a.pgr"])
    import_paths(tmp_path / "db.sqlite", [tmp_path / "b.pgr"])  # positions there now
    monkeypatch.setattr(importer, "BULK_MIN_BYTES", 10**9)
    import_paths(tmp_path / "small.sqlite", [tmp_path / "a.pgr"])
    assert modes == [True, False, False]


def test_the_archive_loads_sqlite_utils_without_numpy_and_numpy_still_imports():
    probe = (
        "import sys\n"
        "from partita.database import schema\n"
        "schema.open_archive(':memory:').close()\n"  # the Database it returns
        "print('numpy' in sys.modules, 'pandas' in sys.modules)\n"
        "import numpy, sqlite_utils.db\n"
        "print(numpy.__name__, sqlite_utils.db.np is None)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.split() == ["False", "False", "numpy", "True"]


def test_an_import_gives_an_open_database_its_own_cache_and_checkpoints_back(tmp_path, monkeypatch):
    from sqlite_utils import Database

    from partita.bulk import importer

    write_games(tmp_path / "a.pgr", 6, seed=9)
    db = Database(tmp_path / "db.sqlite")
    db.execute("PRAGMA cache_size = -1234")
    seen = []
    real = importer.ArchiveWriter.flush

    def flush(self):
        seen.append(self.db.execute("PRAGMA cache_size").fetchone()[0])
        real(self)

    monkeypatch.setattr(importer.ArchiveWriter, "flush", flush)
    import_paths(db, [tmp_path / "a.pgr"])
    assert seen and set(seen) == {-importer.IMPORT_CACHE_KIB}
    assert db.execute("PRAGMA cache_size").fetchone()[0] == -1234
    db.close()


def test_batches_grow_with_the_archive_unless_the_caller_sets_their_size():
    from partita.bulk import importer

    assert importer.batch_limit(None, 0) == importer.DEFAULT_BATCH_SIZE == 1000
    assert importer.batch_limit(None, 19_999) == 1000
    assert importer.batch_limit(None, 100_000) == 100_000 // importer.BATCH_GROWTH == 5000
    assert importer.batch_limit(None, 10**7) == importer.MAX_BATCH_SIZE
    assert importer.batch_limit(7, 10**7) == 7


def schema_entries(path: Path) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        ).fetchall()
    finally:
        connection.close()


def test_a_bulk_import_builds_the_games_indexes_it_deferred_exactly_as_the_schema_has_them(
    tmp_path, monkeypatch
):
    from partita.database import archive_writer, indexed

    write_games(tmp_path / "in" / "a.pgr", 30, seed=23)
    batched, bulk = tmp_path / "batched.db", tmp_path / "bulk.db"
    import_paths(batched, [tmp_path / "in"], batch_size=7, bulk=False)
    seen = []
    real = archive_writer.ArchiveWriter._insert_games

    def insert_games(self, conn, rows):
        seen.append(
            sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'"))
        )
        real(self, conn, rows)

    monkeypatch.setattr(archive_writer.ArchiveWriter, "_insert_games", insert_games)
    import_paths(bulk, [tmp_path / "in"], batch_size=7, bulk=True)
    assert len(seen) == 5
    for names in seen:  # every batch of the bulk import writes games without them
        assert not {name for name, _ in indexed.DEFERRED_INDEXES} & set(names)
        assert "games_hash_key" in names
    assert schema_entries(bulk) == schema_entries(batched)
    assert {
        "games_moves",
        "games_game_date",
        "games_twin",
        "game_players_folded",
        "game_tags_value",
        "game_tags_number",
    } <= {entry[1] for entry in schema_entries(bulk)}


def test_an_archive_missing_a_deferred_index_counts_as_loading_until_a_writer_builds_it(
    tmp_path,
):
    from partita.database.indexed import loading_pending

    write_games(tmp_path / "in" / "a.pgr", 12, seed=24)
    database = tmp_path / "db.sqlite"
    import_paths(database, [tmp_path / "in"], bulk=False)
    whole = schema_entries(database)
    # As a bulk import stopped after committing batches of games without positions
    # (records of an unknown game) leaves it: the heap empty, the indexes dropped.
    connection = sqlite3.connect(database)
    connection.execute("DROP INDEX games_moves")
    connection.commit()
    assert loading_pending(connection)
    connection.close()
    with pytest.raises(ArchiveError, match="positions are not indexed yet"):
        open_archive(database, readonly=True)
    migrate_archive(database)
    assert schema_entries(database) == whole
    connection = sqlite3.connect(database)
    assert not loading_pending(connection)
    connection.close()
    open_archive(database, readonly=True).close()


def test_finishing_a_bulk_load_gives_the_connection_its_settings_back(tmp_path, monkeypatch):
    from partita.database import indexed

    write_games(tmp_path / "in" / "a.pgr", 12, seed=25)
    seen = []
    real = indexed._missing_indexes

    def missing(conn):
        seen.append(conn.execute("PRAGMA cache_size").fetchone()[0])
        return real(conn)

    monkeypatch.setattr(indexed, "_missing_indexes", missing)
    db = open_archive(tmp_path / "db.sqlite")
    db.execute("PRAGMA cache_size = -1234")
    db.execute("PRAGMA secure_delete = ON")
    import_paths(db, [tmp_path / "in"], bulk=True)
    assert -indexed.FINAL_SORT_CACHE_KIB in seen  # the sorts ran with the small cache
    assert db.execute("PRAGMA cache_size").fetchone()[0] == -1234
    assert db.execute("PRAGMA secure_delete").fetchone()[0] == 1
    db.close()
