"""What keeps a bulk import's memory flat in the corpus size.

A bulk batch is written in pieces inside its one transaction (ArchiveWriter's
PIECE_PLIES / PIECE_RECORDS): the same archive as whole batches, nothing visible
or counted before the commit, and a failure in a later piece leaves none of the
batch. Its page cache is importer.bulk_cache_kib: small, growing only with the
content hashes' index."""

from __future__ import annotations

import sqlite3

import pytest
from faults import allow_inserts, cache_sizes, refuse_inserts, watch_cache_sizes
from test_import import check_whole_games, write_games

from partita.bulk import import_paths, importer
from partita.database import archive_writer
from partita.database.archive_writer import ArchiveWriter
from partita.database.indexed import finish_loading
from partita.database.schema import archive, open_archive
from partita.errors import ArchiveError
from partita.notation.files import expand_paths
from partita.notation.reader import read_records
from partita.notation.replay import replay_records


def _contents(path) -> dict[str, list]:
    conn = sqlite3.connect(path)
    try:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
            for table in ("games", "positions", "game_tags", "game_players")
        }
    finally:
        conn.close()


def _replayed(folder):
    return [r for path in expand_paths([folder]) for r in replay_records(read_records(path))]


def held_back(writer: ArchiveWriter, replayed) -> list[tuple[int, int]]:
    """Add ``replayed`` to a bulk ``writer`` one record at a time; after each, the
    records and plies held in Python: added, less what the writer's own connection
    already sees written into the batch's open transaction."""
    held = []
    plies = 0
    for count, record in enumerate(replayed, 1):
        writer.add(record)
        plies += len(record.moves)
        games, positions = writer.conn.execute(
            "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM game_positions)"
        ).fetchone()
        held.append((count - games, plies - positions))
    return held


def test_pieces_make_the_archive_whole_batches_make(tmp_path, monkeypatch):
    write_games(tmp_path / "in" / "a.pgr", 40, seed=31)
    whole = tmp_path / "whole.db"
    with archive(whole) as opened:
        import_paths(opened, [tmp_path / "in"], batch_size=15, bulk=True)
    monkeypatch.setattr(archive_writer, "PIECE_RECORDS", 4)
    pieces = tmp_path / "pieces.db"
    with archive(pieces) as opened:
        summary = import_paths(opened, [tmp_path / "in"], batch_size=15, bulk=True)
    assert summary.imported == 40
    assert _contents(pieces) == _contents(whole)
    check_whole_games(pieces)
    with archive(tmp_path / "held.db") as opened:
        writer = ArchiveWriter(opened, bulk=True, batch_size=40)
        held = held_back(writer, _replayed(tmp_path / "in"))
    records = [count for count, _ in held]
    assert max(records) == 3 and records[3::4] == [0] * 10  # never a whole piece in Python


def test_a_piece_bounded_by_plies(tmp_path, monkeypatch):
    plies = write_games(tmp_path / "in" / "a.pgr", 12, seed=32)
    monkeypatch.setattr(archive_writer, "PIECE_PLIES", 30)
    with archive(tmp_path / "db.sqlite") as opened:
        writer = ArchiveWriter(opened, bulk=True, batch_size=100)
        held = held_back(writer, _replayed(tmp_path / "in"))
        writer.flush()
    # a piece closes on the record that reaches 30 plies: fewer are ever held
    assert all(plies_held < 30 for _, plies_held in held)
    assert sum(1 for _, plies_held in held if plies_held == 0) > 1  # several pieces
    assert writer.summary.plies == sum(plies)


def test_written_pieces_stay_invisible_and_uncounted_until_the_commit(tmp_path, monkeypatch):
    write_games(tmp_path / "in" / "a.pgr", 10, seed=33)
    replayed = _replayed(tmp_path / "in")
    monkeypatch.setattr(archive_writer, "PIECE_RECORDS", 3)
    database = tmp_path / "db.sqlite"
    with archive(database) as conn:
        writer = ArchiveWriter(conn, bulk=True, batch_size=10)
        for count, record in enumerate(replayed, 1):
            writer.add(record)
            assert writer.pending == count
        assert writer.summary.imported == 0
        reader = sqlite3.connect(database)
        assert reader.execute("SELECT count(*) FROM games").fetchone() == (0,)
        writer.flush()
        assert reader.execute("SELECT count(*) FROM games").fetchone() == (10,)
        reader.close()
        assert (writer.pending, writer.summary.imported) == (0, 10)
        finish_loading(conn.conn)
    check_whole_games(database)


def test_a_failure_in_a_later_piece_leaves_none_of_its_batch(tmp_path, monkeypatch):
    plies = write_games(tmp_path / "in" / "a.pgr", 20, seed=34)
    monkeypatch.setattr(archive_writer, "PIECE_RECORDS", 3)
    database = tmp_path / "db.sqlite"
    # Batch 1: games 1-8 in pieces of 3, 3, 2; batch 2: 9-11 and 12-14 written, then
    # the archive refuses game 15.
    refuse_inserts(database, "games", when="NEW.id = 15")
    with pytest.raises(ArchiveError, match="disk unplugged"), archive(database) as opened:
        import_paths(opened, [tmp_path / "in"], batch_size=8, bulk=True)
    conn = sqlite3.connect(database)
    assert conn.execute("SELECT count(*) FROM games").fetchone() == (8,)
    # The committed batch's rows wait in game order, not yet sorted into positions.
    assert conn.execute("SELECT count(*) FROM game_positions").fetchone() == (sum(plies[:8]),)
    assert conn.execute("SELECT count(*) FROM positions").fetchone() == (0,)
    assert conn.execute("SELECT first_game_id FROM positions_pending").fetchone() == (1,)
    assert conn.execute("SELECT count(*) FROM game_tags WHERE game_id > 8").fetchone() == (0,)
    conn.close()
    allow_inserts(database, "games")
    with archive(database) as opened:
        rerun = import_paths(opened, [tmp_path / "in"], batch_size=8)
    assert (rerun.imported, rerun.duplicates) == (12, 8)
    check_whole_games(database)


def test_the_bulk_cache_holds_the_hash_index_twice_within_its_bounds():
    assert importer.bulk_cache_kib(0) == importer.BULK_CACHE_KIB == 8192
    assert importer.bulk_cache_kib(100_000) == 8192  # the index: 1.9 MB
    assert importer.bulk_cache_kib(400_000) == 2 * 400_000 * 19 // 1024 == 14_843
    assert importer.bulk_cache_kib(1_000_000) == importer.IMPORT_CACHE_KIB == 32_768


def test_a_bulk_import_writes_with_the_bulk_cache_and_gives_the_callers_back(tmp_path, monkeypatch):
    write_games(tmp_path / "in" / "a.pgr", 12, seed=35)
    database = tmp_path / "db.sqlite"
    watch_cache_sizes(database, "game_positions")
    monkeypatch.setattr(importer, "BULK_CACHE_KIB", 777)
    db = open_archive(database)
    db.execute("PRAGMA cache_size = -1234")
    import_paths(db, [tmp_path / "in"], batch_size=5, bulk=True)
    assert cache_sizes(database) == {-777}  # every batch wrote its positions with it
    assert db.execute("PRAGMA cache_size").fetchone()[0] == -1234
    db.close()
