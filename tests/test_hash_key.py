"""Schema version 6: content hashes found through an integer key (``games.hash_key``,
``games_hash_key``), compared in full, so that two games whose keys collide are
both stored and a true duplicate is still refused."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from test_import import check_whole_games, random_game, record_text, write_games
from test_positions_v7 import without_game_positions

from partita.bulk import import_paths
from partita.database import archive_writer, hashkey, maintenance, merge
from partita.database.maintenance import set_tag
from partita.database.merge import merge_archive
from partita.database.schema import SCHEMA_VERSION, archive, migrate_archive, open_archive
from partita.database.selection import game_ids_with_hash
from partita.errors import ArchiveError

#: What migration 1 wrote for the text index that migration 6 drops.
_V5_HASH_INDEX = 'CREATE UNIQUE INDEX "games_hash"\n    ON "games" ("hash")'


def as_version_5(connection: sqlite3.Connection) -> None:
    """Undo migration 6 on an open archive (the caller commits): the archive as
    partita wrote it before version 6 (and migration 7's game_positions undone)."""
    without_game_positions(connection)
    connection.execute("DROP INDEX games_hash_key")
    connection.execute("ALTER TABLE games DROP COLUMN hash_key")
    connection.execute(_V5_HASH_INDEX)
    connection.execute("DELETE FROM schema_version WHERE version >= 6")


def schema_entries(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        ).fetchall()


def stored(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT id, hash, hash_key FROM games ORDER BY id").fetchall()


@pytest.fixture
def colliding(monkeypatch):
    """Every content hash gets the same key, wherever partita computes one."""

    def same_key(digest: str) -> int:
        return 7

    for module in (hashkey, archive_writer, maintenance, merge):
        monkeypatch.setattr(module, "hash_key", same_key)


def test_the_key_is_the_first_eight_bytes_as_a_signed_integer():
    assert hashkey.hash_key("0" * 64) == 0
    assert hashkey.hash_key("00000000000000ff" + "e" * 48) == 255
    assert hashkey.hash_key("7fffffffffffffff" + "0" * 48) == 2**63 - 1
    assert hashkey.hash_key("8000000000000000" + "f" * 48) == -(2**63)
    assert hashkey.hash_key("ffffffffffffffff" + "0" * 48) == -1
    assert hashkey.hash_key("fffffffffffffffe" + "1" * 48) == -2


def test_every_stored_game_has_the_key_of_its_hash(tmp_path):
    write_games(tmp_path / "in" / "a.pgr", 25, seed=3)
    db = tmp_path / "a.db"
    with archive(db) as opened:
        import_paths(opened, [tmp_path / "in"], batch_size=10)
    rows = stored(db)
    assert len(rows) == 25
    for _, digest, key in rows:
        assert key == int.from_bytes(bytes.fromhex(digest[:16]), "big", signed=True)


def test_the_duplicate_lookup_goes_through_the_integer_index(tmp_path):
    db = open_archive(tmp_path / "a.db")
    try:
        plan = db.execute(
            "EXPLAIN QUERY PLAN SELECT hash FROM games WHERE hash_key IN (?, ?)", (1, 2)
        ).fetchall()
        indexes = {row[1]: row[2] for row in db.execute("PRAGMA index_list(games)")}
    finally:
        db.close()
    assert "USING INDEX games_hash_key (hash_key=?)" in plan[0][-1]
    assert "games_hash" not in indexes  # the text is no longer indexed
    assert indexes["games_hash_key"] == 0  # nor unique: keys may collide


def test_games_whose_keys_collide_are_all_stored_and_a_duplicate_is_still_refused(
    tmp_path, colliding
):
    write_games(tmp_path / "one" / "a.pgr", 6, seed=11)
    write_games(tmp_path / "two" / "b.pgr", 4, seed=12, first=6)
    db = tmp_path / "a.db"
    with archive(db) as opened:
        first = import_paths(opened, [tmp_path / "one"], batch_size=4)
    assert (first.imported, first.duplicates) == (6, 0)
    # Again with new games: in one batch, colliding with each other and the stored ones.
    with archive(db) as opened:
        second = import_paths(opened, [tmp_path / "one", tmp_path / "two"], batch_size=100)
    assert (second.imported, second.duplicates) == (4, 6)
    rows = stored(db)
    assert len(rows) == 10 and len({digest for _, digest, _ in rows}) == 10
    assert {key for _, _, key in rows} == {7}
    check_whole_games(db)
    reader = open_archive(db, readonly=True)
    try:
        for game_id, digest, _ in rows:
            assert game_ids_with_hash(reader, digest) == [game_id]
    finally:
        reader.close()


def test_a_batch_refuses_a_record_twice_in_it_when_keys_collide(tmp_path, colliding):
    write_games(tmp_path / "in" / "a.pgr", 5, seed=4)
    shutil.copy(tmp_path / "in" / "a.pgr", tmp_path / "in" / "b.pgr")
    with archive(tmp_path / "a.db") as opened:
        summary = import_paths(opened, [tmp_path / "in"], batch_size=100)
    assert (summary.imported, summary.duplicates) == (5, 5)


def test_a_merge_copies_a_colliding_game_and_skips_a_true_duplicate(tmp_path, colliding):
    write_games(tmp_path / "a" / "a.pgr", 3, seed=5)
    write_games(tmp_path / "b" / "b.pgr", 2, seed=6, first=3)
    target, other = tmp_path / "target.db", tmp_path / "other.db"
    with archive(target) as opened:
        import_paths(opened, [tmp_path / "a"])
    with archive(other) as opened:
        import_paths(opened, [tmp_path / "a", tmp_path / "b"])
    with archive(target) as opened:
        done = merge_archive(opened, other)
    assert (done.copied, done.duplicates) == (2, 3)
    assert sorted(digest for _, digest, _ in stored(target)) == sorted(
        digest for _, digest, _ in stored(other)
    )


def test_a_tag_change_compares_full_hashes_when_keys_collide(tmp_path, colliding):
    tokens = random_game(random.Random(7), 10)
    (tmp_path / "a.pgr").write_text(
        record_text(tokens, event="one") + "\n" + record_text(tokens, event="two"),
        encoding="utf-8",
    )
    db = tmp_path / "a.db"
    with archive(db) as opened:
        assert import_paths(opened, [tmp_path / "a.pgr"]).imported == 2
    with archive(db, readonly=True) as opened:
        change = set_tag(opened, 1, "Event", "three")  # game 2 has the same key: not the same game
    assert change.changed and stored(db)[0][1] == change.hash
    with (
        pytest.raises(ArchiveError, match="would become the same record as game 2"),
        archive(db, readonly=True) as opened,
    ):
        set_tag(opened, 1, "Event", "two")  # now the very text of game 2
    assert stored(db)[0][1] == change.hash


def test_a_tag_change_stores_the_key_of_the_new_hash(tmp_path):
    write_games(tmp_path / "in" / "a.pgr", 2, seed=8)
    db = tmp_path / "a.db"
    with archive(db) as opened:
        import_paths(opened, [tmp_path / "in"])
    with archive(db, readonly=True) as opened:
        change = set_tag(opened, 2, "Round", "3")
    game_id, digest, key = stored(db)[1]
    assert (game_id, digest) == (2, change.hash)
    assert key == int.from_bytes(bytes.fromhex(change.hash[:16]), "big", signed=True)


def test_an_archive_at_version_5_opens_and_migrates(tmp_path):
    write_games(tmp_path / "in" / "a.pgr", 20, seed=9)
    fresh, older = tmp_path / "fresh.db", tmp_path / "v5.db"
    with archive(fresh) as opened:
        import_paths(opened, [tmp_path / "in"])
    shutil.copy(fresh, older)
    with sqlite3.connect(older) as conn:
        as_version_5(conn)
    with sqlite3.connect(older) as conn:
        assert "hash_key" not in {row[1] for row in conn.execute("PRAGMA table_info(games)")}
    with pytest.raises(ArchiveError, match="schema version 5"):
        open_archive(older, readonly=True)
    assert migrate_archive(older) == (5, SCHEMA_VERSION)
    assert stored(older) == stored(fresh)
    assert schema_entries(older) == schema_entries(fresh)
    # and it goes on refusing duplicates and storing new games
    write_games(tmp_path / "more" / "b.pgr", 3, seed=10, first=20)
    with archive(older) as opened:
        summary = import_paths(opened, [tmp_path / "in", tmp_path / "more"])
    assert (summary.imported, summary.duplicates) == (3, 20)


def test_a_merge_from_a_version_5_archive_computes_the_keys(tmp_path):
    write_games(tmp_path / "in" / "a.pgr", 8, seed=13)
    fresh, older, target = tmp_path / "fresh.db", tmp_path / "v5.db", tmp_path / "target.db"
    with archive(fresh) as opened:
        import_paths(opened, [tmp_path / "in"])
    shutil.copy(fresh, older)
    with sqlite3.connect(older) as conn:
        as_version_5(conn)
    with archive(target) as opened:
        assert merge_archive(opened, older).copied == 8
    assert stored(target) == stored(fresh)
