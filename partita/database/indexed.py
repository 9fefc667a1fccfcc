"""The indexed forms of a game's players and tags, and the positions load table.

Filters by player and by tag read two tables that mirror columns of ``games``
(schema version 4), so that ``query --player`` and ``--tag`` follow an index
instead of running a Python function on every game's row:

* ``game_players(game_id, seat, name, folded)``: one row per named seat, ``folded``
  the name as :func:`partita.database.filters.fold` folds it (NFKD, combining
  marks dropped, case-folded), indexed by ``(folded, game_id)``;
* ``game_tags(game_id, name, value, number)``: one row per tag of the record,
  ``number`` the value as a number when it is one
  (:func:`partita.database.filters.number`), indexed by ``(name, value)`` and
  ``(name, number)``.

``folded`` is stored: a change to :func:`~partita.database.filters.fold` needs a
migration that folds the names again (``UPDATE game_players SET folded =
partita_fold(name)``), or the index answers with the old folding.

Both are derived from the games rows, in SQL (:func:`index_games`), by everything
that writes games: the import (per batch, in its transaction), tag set and unset,
merge, and migration 4 for the games already stored; deleting a game deletes its
rows (:func:`unindex_games`).

``game_positions(game_id, ply, key)`` holds every game's positions in game order
(a ``WITHOUT ROWID`` table keyed by ``(game_id, ply)``: every writer appends to it,
since game ids only grow), and is how a game's positions are found by its id
(deletes, tag changes, merge, fuzzy twins, the report's frequent positions); the
rows of ``positions``, keyed by position, are found from it by their primary key
(:func:`delete_positions`). A bulk import writes its positions into
``game_positions`` only, and marks the archive loading in its first batch's
transaction: ``positions_pending`` then holds one row, the first game id whose
positions are not in ``positions`` yet. :func:`finish_loading` sorts those rows
into ``positions`` and clears the mark, in one transaction. A bulk import that is
stopped leaves its committed games whole, their positions in ``game_positions``
and the mark set: the next writer that opens the archive (the rerun, any other
writing command, ``partita migrate``) completes them first, and reading commands
refuse the archive until then.

A bulk import also drops the random-key indexes that only readers use
(:data:`DEFERRED_INDEXES`: mainlines, dates and twin keys of ``games``, folded
names of ``game_players``, values and numbers of ``game_tags``), in its first
batch's transaction, and :func:`finish_loading` builds them again, each with one sort:
kept up to date, each batch of a large import would rewrite most of their pages.
An archive that lacks one of them counts as loading (:func:`loading_pending`), so
a stopped import's archive is completed like the heap, whatever was committed.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from partita.database.sqlfunctions import fold_sql, number_sql, register_indexing_functions

if TYPE_CHECKING:
    from sqlite_utils import Database

__all__ = [
    "DEFERRED_INDEXES",
    "FINAL_SORT_CACHE_KIB",
    "MARK_LOADING",
    "create_v4_tables",
    "defer_game_indexes",
    "delete_positions",
    "finish_loading",
    "index_games",
    "loading_pending",
    "unindex_games",
    "upgrade_to_v4",
]

_SEATS = 4

_PLAYERS_FOLDED = "CREATE INDEX game_players_folded ON game_players(folded)"
_TAGS_VALUE = "CREATE INDEX game_tags_value ON game_tags(name, value)"
_TAGS_NUMBER = "CREATE INDEX game_tags_number ON game_tags(name, number) WHERE number IS NOT NULL"

#: The indexes a bulk import builds at the end (name, the SQL that makes it, as
#: the schema's migrations wrote it): those of ``games`` and of the indexed players
#: and tags that only readers use. Not ``games_hash_key``: the import looks content
#: hashes up in every batch.
DEFERRED_INDEXES: tuple[tuple[str, str], ...] = (
    ("games_moves", 'CREATE INDEX "games_moves"\n    ON "games" ("moves")'),
    ("games_game_date", 'CREATE INDEX "games_game_date"\n    ON "games" ("game", "date_min")'),
    ("games_twin", "CREATE INDEX games_twin ON games(twin_key)"),
    ("game_players_folded", _PLAYERS_FOLDED),
    ("game_tags_value", _TAGS_VALUE),
    ("game_tags_number", _TAGS_NUMBER),
)


def create_v4_tables(conn: sqlite3.Connection) -> None:
    """``game_players``, ``game_tags`` (with their indexes) and ``positions_load``."""
    conn.execute(
        "CREATE TABLE game_players (\n"
        "   game_id INTEGER NOT NULL REFERENCES games(id),\n"
        "   seat INTEGER NOT NULL,\n"
        "   name TEXT NOT NULL,\n"
        "   folded TEXT NOT NULL,\n"
        "   PRIMARY KEY (game_id, seat)\n"
        ") WITHOUT ROWID"
    )
    conn.execute(_PLAYERS_FOLDED)
    conn.execute(
        "CREATE TABLE game_tags (\n"
        "   game_id INTEGER NOT NULL REFERENCES games(id),\n"
        "   name TEXT NOT NULL,\n"
        "   value TEXT NOT NULL,\n"
        "   number REAL,\n"
        "   PRIMARY KEY (game_id, name)\n"
        ") WITHOUT ROWID"
    )
    conn.execute(_TAGS_VALUE)
    conn.execute(_TAGS_NUMBER)
    conn.execute(
        "CREATE TABLE positions_load (\n"
        "   key INTEGER NOT NULL,\n"
        "   game_id INTEGER NOT NULL,\n"
        "   ply INTEGER NOT NULL,\n"
        "   move TEXT NOT NULL,\n"
        "   next_move TEXT\n"
        ")"
    )


_TAGS_FROM_GAMES = (
    "INSERT INTO game_tags (game_id, name, value, number) "
    f"SELECT g.id, j.key, j.value, {number_sql('j.value')} "
    "FROM games g, json_each(g.tags) j WHERE g.id BETWEEN ? AND ? AND j.type = 'text'"
)
_PLAYERS_FROM_GAMES = "".join(
    f"{' UNION ALL ' if seat > 1 else ''}SELECT id, {seat}, player{seat}, "
    f"{fold_sql(f'player{seat}')} FROM games WHERE id BETWEEN ? AND ? AND player{seat} IS NOT NULL"
    for seat in range(1, _SEATS + 1)
)
_PLAYERS_FROM_GAMES = (
    f"INSERT INTO game_players (game_id, seat, name, folded) {_PLAYERS_FROM_GAMES}"
)


def index_games(conn: sqlite3.Connection, first: int, last: int) -> None:
    """Fill ``game_players`` and ``game_tags`` for the games ``first`` to ``last``
    (ids, inclusive), from their rows, inside the caller's transaction. The games
    must have no rows there yet. The folded names and numbers are SQL expressions
    (:func:`~partita.database.sqlfunctions.fold_sql`, ``number_sql``) that call
    the Python functions only for the rare values SQL cannot settle."""
    register_indexing_functions(conn)
    conn.execute(_TAGS_FROM_GAMES, (first, last))
    conn.execute(_PLAYERS_FROM_GAMES, (first, last) * _SEATS)


def unindex_games(conn: sqlite3.Connection, ids: list[int]) -> None:
    """Delete the ``game_players`` and ``game_tags`` rows of the games ``ids``."""
    keyed = [(game_id,) for game_id in ids]
    conn.executemany("DELETE FROM game_players WHERE game_id = ?", keyed)
    conn.executemany("DELETE FROM game_tags WHERE game_id = ?", keyed)


#: A game's ``positions`` rows, by their primary key, from its ``game_positions``
#: rows (a range of their primary key): no index of ``positions`` by game needed.
_DELETE_POSITIONS = (
    "DELETE FROM positions WHERE (key, game_id, ply) IN "
    "(SELECT key, game_id, ply FROM game_positions WHERE game_id = ?)"
)


def delete_positions(conn: sqlite3.Connection, ids: list[int]) -> int:
    """Delete the positions of the games ``ids`` from ``positions`` and
    ``game_positions``, inside the caller's transaction; the number of positions
    the games had (their ``game_positions`` rows)."""
    keyed = [(game_id,) for game_id in ids]
    conn.executemany(_DELETE_POSITIONS, keyed)
    return conn.executemany("DELETE FROM game_positions WHERE game_id = ?", keyed).rowcount


#: Marks the archive loading from game ``?`` on, unless an earlier game already is
#: (a bulk import's batches run this in their transactions; the first one counts).
MARK_LOADING = "INSERT OR IGNORE INTO positions_pending (id, first_game_id) VALUES (1, ?)"


def defer_game_indexes(conn: sqlite3.Connection) -> None:
    """Drop the :data:`DEFERRED_INDEXES` inside the caller's transaction (a bulk
    import's first batch, so that the drop commits with rows in the heap or not at
    all); :func:`finish_loading` builds them again."""
    for name, _ in DEFERRED_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def _missing_indexes(conn: sqlite3.Connection) -> list[str]:
    present = {
        row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
    }
    return [sql for name, sql in DEFERRED_INDEXES if name not in present]


def _loading_tables(conn: sqlite3.Connection) -> set[str]:
    """Which of the tables that tell a bulk import's state the archive has:
    ``positions_pending`` (version 7 on), ``positions_load`` (versions 4 to 6),
    neither before version 4."""
    return {
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name IN ('positions_pending', 'positions_load')"
        )
    }


def _first_pending(conn: sqlite3.Connection, tables: set[str]) -> int | None:
    """The first game id whose positions are not in ``positions`` yet (None if all
    are), the archive having the :func:`_loading_tables` ``tables``; an archive of
    version 4 to 6 tells it by the rows of ``positions_load``."""
    if "positions_pending" in tables:
        row = conn.execute("SELECT first_game_id FROM positions_pending").fetchone()
    elif "positions_load" in tables:
        row = conn.execute("SELECT min(game_id) FROM positions_load").fetchone()
    else:  # an archive before version 4
        return None
    return None if row is None else row[0]


def loading_pending(conn: sqlite3.Connection) -> bool:
    """Whether a bulk import runs or was stopped: ``positions_pending`` holds its
    mark, or one of the :data:`DEFERRED_INDEXES` is missing."""
    tables = _loading_tables(conn)
    if not tables:  # an archive before version 4: no bulk import, no game_tags
        return False
    return _first_pending(conn, tables) is not None or bool(_missing_indexes(conn))


#: The page cache (KiB) while :func:`finish_loading` runs. SQLite's sorter sorts
#: runs of the cache's size in memory and merges them from temporary files: small
#: runs stay in the processor's caches, and the whole sort takes less CPU (at
#: 3 million rows, 4 MB runs took two thirds of the CPU of the import's 64 MB
#: ones, benchmarks/results/2026-12-03-import.md), and less memory. Rows written
#: in key order need few pages in the cache.
FINAL_SORT_CACHE_KIB = 4096


def finish_loading(conn: sqlite3.Connection) -> int:
    """Sort the positions of the games from the ``positions_pending`` mark on from
    ``game_positions`` into ``positions``, clear the mark and build the
    :data:`DEFERRED_INDEXES` a bulk import dropped, in one transaction (the
    caller's, if one is open); the rows sorted in.

    Into an empty ``positions`` the rows go in key order, so the B-tree is written
    once, page after page; ``positions`` has no other index to build, and
    ``game_positions`` keeps its rows. The sorts run with a page cache of
    :data:`FINAL_SORT_CACHE_KIB`; the caller's is back after.
    """
    own = not conn.in_transaction
    cache = conn.execute("PRAGMA cache_size").fetchone()[0]
    conn.execute(f"PRAGMA cache_size = -{FINAL_SORT_CACHE_KIB}")
    try:
        if own:
            conn.execute("BEGIN IMMEDIATE")
        first = _first_pending(conn, _loading_tables(conn))
        moved = 0
        if first is not None:
            moved = conn.execute(
                "INSERT INTO positions (key, game_id, ply) "
                "SELECT key, game_id, ply FROM game_positions WHERE game_id >= ? "
                "ORDER BY key, game_id, ply",
                (first,),
            ).rowcount
            conn.execute("DELETE FROM positions_pending")
        for sql in _missing_indexes(conn):
            conn.execute(sql)
        if own:
            conn.execute("COMMIT")
    except BaseException:
        if own and conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.execute(f"PRAGMA cache_size = {int(cache)}")
    return moved


def upgrade_to_v4(db: Database) -> None:
    """Migration 4: the tables above, filled for the games already stored."""
    conn = db.conn
    create_v4_tables(conn)
    last = conn.execute("SELECT coalesce(max(id), 0) FROM games").fetchone()[0]
    if last:
        index_games(conn, 1, last)
