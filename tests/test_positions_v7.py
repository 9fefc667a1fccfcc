"""Schema version 7: ``positions`` holds ``(key, game_id, ply)`` only, and
``game_positions`` the same rows in game order; migration 7 makes both from an
archive of version 6 (``move`` and ``next_move`` dropped, ``positions_game`` and
the ``positions_load`` heap replaced, a stopped bulk import's rows kept and
completed)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_import import write_games

from partita.bulk import import_paths
from partita.database.archive_writer import ArchiveWriter
from partita.database.prepare import StoredRecord, prepare_record
from partita.database.schema import (
    GAME_COLUMNS,
    SCHEMA_VERSION,
    archive,
    migrate_archive,
    open_archive,
)
from partita.errors import ArchiveError
from partita.notation.reader import read_records
from partita.notation.replay import replay

#: The two tables as partita wrote them before version 7 (migrations 1 and 4).
_V6_POSITIONS = (
    "CREATE TABLE positions (\n"
    "   key INTEGER NOT NULL,\n"
    "   game_id INTEGER NOT NULL REFERENCES games(id),\n"
    "   ply INTEGER NOT NULL,\n"
    "   move TEXT NOT NULL,\n"
    "   next_move TEXT,\n"
    "   PRIMARY KEY (key, game_id, ply)\n"
    ") WITHOUT ROWID"
)
_V6_LOAD = (
    "CREATE TABLE positions_load (\n"
    "   key INTEGER NOT NULL,\n"
    "   game_id INTEGER NOT NULL,\n"
    "   ply INTEGER NOT NULL,\n"
    "   move TEXT NOT NULL,\n"
    "   next_move TEXT\n"
    ")"
)


def without_game_positions(conn: sqlite3.Connection) -> None:
    """Put back on an open archive of version 7 what versions 4 to 6 had in place
    of ``game_positions`` (the caller commits): ``positions_game``, and the
    ``positions_load`` heap holding the rows a bulk import has not sorted into
    ``positions`` yet. For the tests that make older archives from new ones."""
    conn.execute(
        "CREATE TABLE positions_load (key INTEGER NOT NULL, game_id INTEGER NOT NULL, "
        "ply INTEGER NOT NULL)"
    )
    conn.execute(
        "INSERT INTO positions_load SELECT key, game_id, ply FROM game_positions "
        "WHERE game_id >= (SELECT first_game_id FROM positions_pending)"
    )
    conn.execute("DROP TABLE game_positions")
    conn.execute("DROP TABLE positions_pending")
    conn.execute("CREATE INDEX positions_game ON positions(game_id)")


def as_version_6(conn: sqlite3.Connection, *, into_heap: bool = False) -> None:
    """Undo migration 7 on an open archive (the caller commits): both tables with
    their token columns, filled from ``games.moves`` (as version 6 stored them).
    ``into_heap``: every row in ``positions_load``, as a stopped bulk import left them."""
    without_game_positions(conn)
    conn.execute("ALTER TABLE positions RENAME TO positions_v7")
    conn.execute(_V6_POSITIONS)
    conn.execute("DROP TABLE positions_load")
    conn.execute(_V6_LOAD)
    rows = []
    for game_id, moves in conn.execute("SELECT id, moves FROM games").fetchall():
        tokens = moves.split()
        keys = conn.execute(
            "SELECT key FROM positions_v7 WHERE game_id = ? ORDER BY ply", (game_id,)
        ).fetchall()
        assert len(keys) == len(tokens)
        rows.extend(
            (key, game_id, ply, tokens[ply - 1], tokens[ply] if ply < len(tokens) else None)
            for ply, (key,) in enumerate(keys, 1)
        )
    table = "positions_load" if into_heap else "positions"
    conn.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)", rows)
    conn.execute("DROP TABLE positions_v7")
    conn.execute("CREATE INDEX positions_game ON positions(game_id)")
    conn.execute("DELETE FROM schema_version WHERE version >= 7")


def positions(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT key, game_id, ply FROM positions ORDER BY 2, 3").fetchall()


def game_positions(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT key, game_id, ply FROM game_positions").fetchall()


def schema_entries(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        ).fetchall()


def columns(path: Path, table: str) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


@pytest.fixture
def fresh(tmp_path) -> Path:
    write_games(tmp_path / "in" / "a.pgr", 30, seed=70)
    path = tmp_path / "fresh.db"
    with archive(path) as opened:
        import_paths(opened, [tmp_path / "in"])
    return path


def test_positions_hold_the_key_the_game_and_the_ply(fresh):
    assert columns(fresh, "positions") == ["key", "game_id", "ply"]
    assert columns(fresh, "game_positions") == ["game_id", "ply", "key"]
    with sqlite3.connect(fresh) as conn:
        plies = dict(conn.execute("SELECT id, plies FROM games"))
        counted = dict(conn.execute("SELECT game_id, max(ply) FROM positions GROUP BY game_id"))
        rows = conn.execute("SELECT count(*) FROM positions").fetchone()[0]
    assert counted == {game_id: count for game_id, count in plies.items() if count}
    assert rows == sum(plies.values())  # plies 1..n, each once


@pytest.mark.parametrize("into_heap", [False, True], ids=["indexed", "in the heap"])
def test_an_archive_at_version_6_migrates_to_the_same_positions(tmp_path, fresh, into_heap):
    older = tmp_path / "v6.db"
    shutil.copy(fresh, older)
    with sqlite3.connect(older) as conn:
        as_version_6(conn, into_heap=into_heap)
    assert "move" in columns(older, "positions")
    with pytest.raises(ArchiveError, match="schema version 6"):
        open_archive(older, readonly=True)
    assert migrate_archive(older) == (6, SCHEMA_VERSION)
    assert positions(older) == positions(fresh)
    assert schema_entries(older) == schema_entries(fresh)
    with sqlite3.connect(older) as conn:
        assert conn.execute("SELECT count(*) FROM positions_pending").fetchone() == (0,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert game_positions(older) == game_positions(fresh)
    # and it goes on storing new games, and refusing the old ones
    write_games(tmp_path / "more" / "b.pgr", 3, seed=71, first=30)
    with archive(older) as opened:
        summary = import_paths(opened, [tmp_path / "in", tmp_path / "more"])
    assert (summary.imported, summary.duplicates) == (3, 30)
    assert positions(older)[: len(positions(fresh))] == positions(fresh)


def _template() -> StoredRecord:
    """A real prepared record, whose rows the property test below varies."""
    text = '[Game "forza4x4"]\n\n1. t4 r5 2. t4 *\n'
    [record] = read_records(text)
    prepared = prepare_record(replay(record), strict=False)
    assert isinstance(prepared, StoredRecord)
    return prepared


_TEMPLATE = _template()
_HASH_AT = GAME_COLUMNS.index("hash") - 1  # the prepared row has no id

_KEYS = st.lists(st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1), max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    games=st.lists(st.tuples(st.integers(0, 5), _KEYS), min_size=1, max_size=8),
    bulk=st.booleans(),
)
def test_the_writer_stores_every_key_with_its_game_and_ply(games, bulk):
    """Whatever the keys (the extremes of 64 bits, none, repeated), each stored game
    gets the row ``(key, id, ply)`` for its ``ply``-th key; duplicates get none."""
    conn = open_archive(":memory:")
    writer = ArchiveWriter(conn, bulk=bulk)
    for content, keys in games:
        digest = f"{content:064x}"
        game = list(_TEMPLATE.game)
        game[_HASH_AT] = digest
        moves = [f"m{ply}" for ply in range(len(keys))]
        writer.add_prepared(
            _TEMPLATE._replace(hash=digest, game=tuple(game), keys=keys, moves=moves)
        )
    writer.flush()
    expected, seen = [], set()
    for content, keys in games:
        if content in seen:
            continue
        seen.add(content)
        expected.extend((key, len(seen), ply) for ply, key in enumerate(keys, 1))
    in_game_order = conn.execute(
        "SELECT key, game_id, ply, typeof(key) FROM game_positions"
    ).fetchall()
    assert in_game_order == sorted(
        ((*row, "integer") for row in expected), key=lambda row: (row[1], row[2])
    )
    by_key = conn.execute("SELECT key, game_id, ply FROM positions").fetchall()
    assert by_key == ([] if bulk else sorted(expected))
    pending = conn.execute("SELECT first_game_id FROM positions_pending").fetchall()
    assert pending == ([(1,)] if bulk and expected else [])
    assert writer.summary.plies == len(expected)
    assert writer.summary.duplicates == len(games) - len(seen)
