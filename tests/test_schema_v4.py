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
from faults import cache_sizes, watch_cache_sizes
from test_hash_key import as_version_5
from test_import import ROOT, check_whole_games, counts, write_games

from partita.bulk import import_paths
from partita.database.filters import GameFilter, fold
from partita.database.maintenance import delete_games, set_tag, unset_tag
from partita.database.merge import merge_archive
from partita.database.schema import SCHEMA_VERSION, archive, migrate_archive, open_archive
from partita.errors import ArchiveError

EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def examples_archive(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("v4") / "examples.db"
    with archive(path) as opened:
        import_paths(opened, [EXAMPLES])
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
    with archive(path, readonly=True) as opened:
        set_tag(opened, 1, "Event", "Zoë's Cup")
    with archive(path, readonly=True) as opened:
        set_tag(opened, 2, "Player1", "Ångström")
    with archive(path, readonly=True) as opened:
        set_tag(opened, 3, "Rating", "1850")
    with archive(path, readonly=True) as opened:
        unset_tag(opened, 4, "Event")
    with archive(path, readonly=True) as opened:
        delete_games(opened, [5, 6])
    assert_indexed_rows_true(path)
    assert ("Rating", "1850", 1850.0) in {row[1:] for row in stored_rows(path)[1] if row[0] == 3}
    merged = tmp_path / "merged.db"
    write_games(tmp_path / "other.pgr", 5, seed=3)
    with archive(merged) as opened:
        import_paths(opened, [tmp_path / "other.pgr"])
    with archive(merged) as opened:
        merge_archive(opened, path)
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
    with archive(batched) as opened:
        first = import_paths(opened, [tmp_path / "in"], batch_size=7, bulk=False)
    with archive(bulk) as opened:
        second = import_paths(opened, [tmp_path / "in"], batch_size=7, bulk=True)
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
from partita.database import archive
from partita.bulk import import_paths

def progress(done):
    print(done.imported, flush=True)

with archive(sys.argv[1]) as opened:
    import_paths(opened, [sys.argv[2]], batch_size=5, progress=progress, workers=1, bulk=True)
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
    with archive(database) as opened:
        summary = import_paths(opened, [tmp_path / "in"], batch_size=50)
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

    def in_bulk(database: Path, path: Path) -> bool:
        """Whether importing ``path`` marked the archive loading (positions waiting
        in game order for the final sort), as seen after each committed batch."""
        marked = []

        def progress(done) -> None:
            with sqlite3.connect(database) as reader:
                marked.append(reader.execute("SELECT count(*) FROM positions_pending").fetchone())

        with archive(database) as opened:
            import_paths(opened, [path], batch_size=4, progress=progress)
        assert marked
        return marked[0] == (1,)

    monkeypatch.setattr(importer, "BULK_MIN_BYTES", 1000)
    assert in_bulk(tmp_path / "db.sqlite", tmp_path / "a.pgr")
    assert not in_bulk(tmp_path / "db.sqlite", tmp_path / "b.pgr")  # positions there now
    monkeypatch.setattr(importer, "BULK_MIN_BYTES", 10**9)
    assert not in_bulk(tmp_path / "small.sqlite", tmp_path / "a.pgr")


def test_an_import_gives_an_open_database_its_own_cache_and_checkpoints_back(tmp_path):

    from partita.bulk import importer

    write_games(tmp_path / "a.pgr", 6, seed=9)
    watch_cache_sizes(tmp_path / "db.sqlite", "positions")
    db = open_archive(tmp_path / "db.sqlite")
    db.execute("PRAGMA cache_size = -1234")
    import_paths(db, [tmp_path / "a.pgr"])
    assert cache_sizes(tmp_path / "db.sqlite") == {-importer.IMPORT_CACHE_KIB}
    assert db.execute("PRAGMA cache_size").fetchone()[0] == -1234
    db.close()


def test_batches_grow_with_the_archive_unless_the_caller_sets_their_size():
    from partita.bulk import importer

    assert importer.batch_limit(None, 0) == importer.DEFAULT_BATCH_SIZE == 1000
    assert importer.batch_limit(None, 19_999) == 1000
    assert importer.batch_limit(None, 100_000) == 100_000 // importer.BATCH_GROWTH == 5000
    assert importer.batch_limit(None, 10**7) == importer.MAX_BATCH_SIZE
    assert importer.batch_limit(7, 10**7) == 7


INDEX_NAMES = "SELECT name FROM sqlite_master WHERE type = 'index'"


def schema_entries(path: Path) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        ).fetchall()
    finally:
        connection.close()


def test_a_bulk_import_builds_the_games_indexes_it_deferred_exactly_as_the_schema_has_them(
    tmp_path,
):
    write_games(tmp_path / "in" / "a.pgr", 30, seed=23)
    batched, bulk = tmp_path / "batched.db", tmp_path / "bulk.db"
    with archive(batched) as opened:
        import_paths(opened, [tmp_path / "in"], batch_size=7, bulk=False)
    seen = []

    def progress(done) -> None:  # after each committed batch
        with sqlite3.connect(bulk) as reader:
            seen.append({name for (name,) in reader.execute(INDEX_NAMES)})

    with archive(bulk) as opened:
        import_paths(opened, [tmp_path / "in"], batch_size=7, bulk=True, progress=progress)
    deferred = {
        "games_moves",
        "games_game_date",
        "games_twin",
        "game_players_folded",
        "game_tags_value",
        "game_tags_number",
    }
    assert len(seen) >= 5
    for names in seen:  # every batch of the bulk import writes games without them
        assert not deferred & names
        assert "games_hash_key" in names
    assert schema_entries(bulk) == schema_entries(batched)
    assert deferred <= {entry[1] for entry in schema_entries(bulk)}


def test_an_archive_missing_a_deferred_index_counts_as_loading_until_a_writer_builds_it(
    tmp_path,
):
    from partita.database.indexed import loading_pending

    write_games(tmp_path / "in" / "a.pgr", 12, seed=24)
    database = tmp_path / "db.sqlite"
    with archive(database) as opened:
        import_paths(opened, [tmp_path / "in"], bulk=False)
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


def test_finishing_a_bulk_load_gives_the_connection_its_settings_back(tmp_path):
    from partita.database import indexed

    write_games(tmp_path / "in" / "a.pgr", 12, seed=25)
    database = tmp_path / "db.sqlite"
    watch_cache_sizes(database, "positions")  # in bulk, only the final sort writes them
    db = open_archive(database)
    db.execute("PRAGMA cache_size = -1234")
    db.execute("PRAGMA secure_delete = ON")
    import_paths(db, [tmp_path / "in"], bulk=True)
    assert cache_sizes(database) == {-indexed.FINAL_SORT_CACHE_KIB}  # the sort's small cache
    assert db.execute("PRAGMA cache_size").fetchone()[0] == -1234
    assert db.execute("PRAGMA secure_delete").fetchone()[0] == 1
    db.close()
