"""``game_positions``: every game's positions in game order, the ``positions_pending``
mark of a bulk import (exact and crash safe), and the rows that deletes, tag
changes and migration 7 leave in it and in ``positions``."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from faults import refuse_inserts
from test_import import check_whole_games, write_games
from test_positions_v7 import as_version_6
from test_schema_v4 import kill_a_bulk_import

from partita.bulk import import_paths
from partita.database import open_archive
from partita.database.archive_writer import ArchiveWriter
from partita.database.indexed import finish_loading, loading_pending
from partita.database.maintenance import delete_games, set_tag
from partita.database.merge import merge_archive
from partita.database.schema import MIGRATION_7, archive, migrate_archive
from partita.errors import ArchiveError
from partita.notation.reader import parse_record, read_records
from partita.notation.replay import replay

ROOT = Path(__file__).resolve().parents[1]


def rows(path: Path, sql: str, params: tuple = ()) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


def by_key(path: Path) -> list[tuple]:
    return rows(path, "SELECT key, game_id, ply FROM positions ORDER BY game_id, ply")


def by_game(path: Path) -> list[tuple]:
    return rows(path, "SELECT key, game_id, ply FROM game_positions ORDER BY game_id, ply")


def pending(path: Path) -> list[tuple]:
    return rows(path, "SELECT first_game_id FROM positions_pending")


@pytest.fixture
def records(tmp_path) -> Path:
    write_games(tmp_path / "in" / "a.pgr", 24, seed=91)
    return tmp_path / "in"


def test_both_tables_hold_each_ply_of_each_game_once(records, tmp_path):
    path = tmp_path / "a.db"
    with archive(path) as opened:
        import_paths(opened, [records], bulk=False)
    plies = dict(rows(path, "SELECT id, plies FROM games"))
    assert by_key(path) == by_game(path)
    assert len(by_game(path)) == sum(plies.values()) > 0
    assert pending(path) == []


def test_the_mark_names_the_first_game_of_the_first_bulk_batch(records, tmp_path):
    """Into an archive that has games: the mark is the first bulk game, the finish
    sorts in only the games from there, and clears it."""
    path = tmp_path / "a.db"
    with archive(path) as opened:
        import_paths(opened, [records], bulk=False)
    held = len(by_key(path))
    write_games(tmp_path / "more" / "b.pgr", 12, seed=92, first=24)
    more = [replay(record) for record in read_records((tmp_path / "more" / "b.pgr").read_text())]
    with archive(path) as conn:
        writer = ArchiveWriter(conn, bulk=True, batch_size=4)
        for replayed in more:
            writer.add(replayed)
            if writer.pending >= 4:
                writer.flush()
        writer.flush()
        assert pending(path) == [(25,)]  # the first game after the 24 held
        assert loading_pending(conn)
        assert len(by_key(path)) == held  # nothing sorted in yet
        moved = finish_loading(conn.conn)
        assert not loading_pending(conn)
    assert moved == len(by_game(path)) - held > 0
    assert pending(path) == []
    assert by_key(path) == by_game(path)
    check_whole_games(path)


def test_a_bulk_batch_that_fails_leaves_no_mark(records, tmp_path):
    path = tmp_path / "a.db"
    [first, *_] = [replay(record) for record in read_records((records / "a.pgr").read_text())]
    # A record with a problem, whose problem rows (written after the positions and
    # the mark) the archive refuses.
    damaged = replay(parse_record('[Game "forza4x4"]\n[Result "*"]\n\n1. t4 zz *\n'))
    assert damaged.problems
    refuse_inserts(path, "problems", message="disk on fire")
    with archive(path) as conn:
        writer = ArchiveWriter(conn, bulk=True)
        writer.add(first)
        writer.add(damaged)
        with pytest.raises(sqlite3.Error, match="disk on fire"):
            writer.flush()
        assert not loading_pending(conn)
    assert pending(path) == [] and by_game(path) == [] and rows(path, "SELECT id FROM games") == []


def test_a_killed_bulk_import_leaves_the_mark_and_the_next_writer_clears_it(tmp_path):
    plies = write_games(tmp_path / "in" / "a.pgr", 300, seed=93)
    database = tmp_path / "db.sqlite"
    kill_a_bulk_import(database, tmp_path / "in")  # three batches committed
    stored = rows(database, "SELECT count(*) FROM games")[0][0]
    assert 15 <= stored < 300
    # The mark: the first game (an empty archive), committed with the first batch.
    assert pending(database) == [(1,)]
    assert by_key(database) == []
    assert len(by_game(database)) == sum(plies[:stored])  # whole games, in game order
    with pytest.raises(ArchiveError, match="positions are not indexed yet"):
        open_archive(database, readonly=True)
    migrate_archive(database)  # a writer completes it first
    assert pending(database) == []
    assert by_key(database) == by_game(database)
    with archive(database) as opened:
        summary = import_paths(opened, [tmp_path / "in"])
    assert (summary.imported, summary.duplicates) == (300 - stored, stored)
    assert pending(database) == []
    assert by_key(database) == by_game(database)
    assert len(by_game(database)) == sum(plies)
    check_whole_games(database)
    open_archive(database, readonly=True).close()


def test_deleting_games_leaves_no_row_of_theirs_in_either_table(records, tmp_path):
    path = tmp_path / "a.db"
    with archive(path) as opened:
        import_paths(opened, [records])
    before = by_game(path)
    gone = [2, 5, 6, 24]
    with archive(path, readonly=True) as opened:
        deletion = delete_games(opened, gone)
    assert deletion.positions == sum(1 for row in before if row[1] in gone) > 0
    kept = [row for row in before if row[1] not in gone]
    assert by_game(path) == kept
    assert by_key(path) == kept
    check_whole_games(path)


def test_a_tag_change_stores_the_positions_again_in_both_tables(records, tmp_path):
    path = tmp_path / "a.db"
    with archive(path) as opened:
        import_paths(opened, [records])
    before = by_game(path)
    with archive(path, readonly=True) as opened:
        set_tag(opened, 3, "Event", "renamed")
    assert by_game(path) == before  # the same moves: the same rows
    assert by_key(path) == before
    check_whole_games(path)


@pytest.mark.parametrize("into_heap", [False, True], ids=["indexed", "in the heap"])
def test_a_migrated_archive_equals_a_new_one(records, tmp_path, into_heap):
    """Migration 7 on an archive of version 6 gives the rows and the schema a new
    archive has; a stopped bulk import's heap becomes the mark on its first game."""
    fresh = tmp_path / "fresh.db"
    with archive(fresh) as opened:
        import_paths(opened, [records])
    older = tmp_path / "v6.db"
    shutil.copy(fresh, older)
    with sqlite3.connect(older) as conn:
        as_version_6(conn, into_heap=into_heap)
    copy = tmp_path / "v6-copy.db"
    shutil.copy(older, copy)
    with sqlite3.connect(copy) as conn:  # migration 7 alone: the mark before the finish
        for statement in MIGRATION_7:
            conn.execute(statement)
    assert pending(copy) == ([(1,)] if into_heap else [])
    assert by_game(copy) == by_game(fresh)
    migrate_archive(older)
    assert by_game(older) == by_game(fresh)
    assert by_key(older) == by_key(fresh)
    assert pending(older) == []
    schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
    assert rows(older, schema) == rows(fresh, schema)


def test_a_merge_refuses_a_source_whose_mark_is_set(records, tmp_path):
    source = tmp_path / "source.db"
    replayed = [replay(record) for record in read_records((records / "a.pgr").read_text())]
    with archive(source) as conn:
        writer = ArchiveWriter(conn, bulk=True)
        for one in replayed[:5]:
            writer.add(one)
        writer.flush()  # no finish: the mark stays
    assert pending(source) == [(1,)]
    target = tmp_path / "target.db"
    with archive(target) as opened:
        import_paths(opened, [records], bulk=False)
    before = by_game(target)
    with (
        pytest.raises(ArchiveError, match="not indexed yet.*partita migrate"),
        archive(target) as opened,
    ):
        merge_archive(opened, source)
    assert by_game(target) == before
    migrate_archive(source)
    with archive(tmp_path / "new.db") as opened:
        merged = merge_archive(opened, source)
    assert merged.copied == 5 and merged.positions == len(by_game(source)) > 0
    assert by_key(tmp_path / "new.db") == by_game(tmp_path / "new.db") == by_game(source)
