"""The positions of the variations (schema version 5), for position search.

``variation_positions(key, game_id, ply, line, move, next_move)`` holds one row per
legal ply of every variation of every stored record: the folded position key after
the ply, the game, the ply (counted from the start of the game, as in
``positions``), ``line`` (the variation's number in the record's reading order: the
order its ``(`` stands in the text, nested ones counted where they open, from 1),
the move that made the position and the variation's next move. A variation's
illegal move ends its rows (replay records the problem). Its primary key starts with
the key, like that of ``positions``, so a position search is one index range per
table; ``variation_positions_game`` finds a game's rows for deleting and copying.

A table of its own, not rows flagged in ``positions``: every mainline reader (the
tree, twins, fuzzy twins, opening names, books, the report) keeps reading
``positions`` as it is, and no table of a large archive is rebuilt by the
migration, which only replays the games whose text can hold a variation.

Written by everything that writes games: the import (both modes, in its batch
transaction), tag set and unset, merge, and migration 5 for the games already
stored (:func:`fill_variations`); deleting a game deletes its rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite_utils import Database

__all__ = [
    "VARIATION_COLUMNS",
    "VARIATIONS_INSERT",
    "create_variation_table",
    "delete_variations",
    "fill_variations",
    "upgrade_to_v5",
]

VARIATION_COLUMNS: tuple[str, ...] = ("key", "game_id", "ply", "line", "move", "next_move")

VARIATIONS_INSERT = (
    f"INSERT INTO variation_positions ({', '.join(VARIATION_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(VARIATION_COLUMNS))})"
)

#: Games read (and replayed when their text may hold a variation) at a time.
_FILL_BATCH = 2000


def create_variation_table(conn: sqlite3.Connection) -> None:
    """``variation_positions`` and its index by game."""
    conn.execute(
        "CREATE TABLE variation_positions (\n"
        "   key INTEGER NOT NULL,\n"
        "   game_id INTEGER NOT NULL REFERENCES games(id),\n"
        "   ply INTEGER NOT NULL,\n"
        "   line INTEGER NOT NULL,\n"
        "   move TEXT NOT NULL,\n"
        "   next_move TEXT,\n"
        "   PRIMARY KEY (key, game_id, line, ply)\n"
        ") WITHOUT ROWID"
    )
    conn.execute("CREATE INDEX variation_positions_game ON variation_positions(game_id)")


def delete_variations(conn: sqlite3.Connection, ids: list[int]) -> int:
    """Delete the ``variation_positions`` rows of the games ``ids``; how many."""
    return conn.executemany(
        "DELETE FROM variation_positions WHERE game_id = ?", [(game_id,) for game_id in ids]
    ).rowcount


def fill_variations(
    conn: sqlite3.Connection,
    first: int = 1,
    last: int | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> int:
    """Write the variation rows of the stored games ``first`` to ``last`` (ids,
    inclusive; ``None``: the last game) from their stored text, inside the caller's
    transaction; the rows written. The games must have no rows yet.

    Only a text holding ``(`` can hold a variation (SQLite checks that, in C); those
    are read and replayed as an import does (the rest of what an import computes, the
    stored text and its hash, is not needed). ``progress(done, total)`` counts the
    games looked at."""
    from partita.database.prepare import stored_variations, variation_rows
    from partita.notation.model import SourceRef
    from partita.notation.reader import parse_record
    from partita.notation.replay import replay

    if last is None:
        last = conn.execute("SELECT coalesce(max(id), 0) FROM games").fetchone()[0]
    total = conn.execute(
        "SELECT count(*) FROM games WHERE id BETWEEN ? AND ?", (first, last)
    ).fetchone()[0]
    written = done = 0
    after = first - 1
    while True:
        ids = [
            row[0]
            for row in conn.execute(
                "SELECT id FROM games WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
                (after, last, _FILL_BATCH),
            )
        ]
        if not ids:
            break
        rows: list[tuple] = []
        for game_id, text, file, index, line, offset in conn.execute(
            "SELECT id, pgr, source_file, source_index, source_line, source_offset FROM games "
            "WHERE id BETWEEN ? AND ? AND instr(pgr, '(') > 0",
            (ids[0], ids[-1]),
        ):
            source = SourceRef(file or f"archive:{game_id}", index or 0, line or 1, offset or 0)
            replayed = replay(parse_record(text, source=source))
            rows.extend(variation_rows(game_id, stored_variations(replayed)))
        rows.sort()
        conn.executemany(VARIATIONS_INSERT, rows)
        written += len(rows)
        done += len(ids)
        after = ids[-1]
        if progress is not None:
            progress(done, total)
    return written


def upgrade_to_v5(db: Database, progress: Callable[[int, int], object] | None = None) -> None:
    """Migration 5: ``variation_positions``, filled for the games already stored."""
    create_variation_table(db.conn)
    fill_variations(db.conn, progress=progress)
