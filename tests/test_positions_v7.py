"""Schema version 7: ``positions`` and ``positions_load`` hold ``(key, game_id, ply)``
only; migration 7 rebuilds both from an archive of version 6 (their ``move`` and
``next_move`` dropped, a stopped bulk import's heap kept and indexed)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from test_import import write_games

from partita.database import import_paths
from partita.database.schema import SCHEMA_VERSION, migrate_archive, open_archive
from partita.errors import ArchiveError

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


def as_version_6(conn: sqlite3.Connection, *, into_heap: bool = False) -> None:
    """Undo migration 7 on an open archive (the caller commits): both tables with
    their token columns, filled from ``games.moves`` (as version 6 stored them).
    ``into_heap``: every row in ``positions_load``, as a stopped bulk import left them."""
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
    import_paths(path, [tmp_path / "in"])
    return path


def test_positions_hold_the_key_the_game_and_the_ply(fresh):
    assert columns(fresh, "positions") == ["key", "game_id", "ply"]
    assert columns(fresh, "positions_load") == ["key", "game_id", "ply"]
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
        assert conn.execute("SELECT count(*) FROM positions_load").fetchone() == (0,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # and it goes on storing new games, and refusing the old ones
    write_games(tmp_path / "more" / "b.pgr", 3, seed=71, first=30)
    summary = import_paths(older, [tmp_path / "in", tmp_path / "more"])
    assert (summary.imported, summary.duplicates) == (3, 30)
    assert positions(older)[: len(positions(fresh))] == positions(fresh)
