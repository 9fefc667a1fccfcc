"""The content hash's integer key: how the archive finds a game by its hash.

Every stored game has a content hash (``games.hash``, the sha256 of its stored
text as 64 hex digits) that detects duplicates. From schema version 6 the hash is
indexed through ``games.hash_key``, its first 8 bytes as a signed 64-bit integer,
in the plain index ``games_hash_key``, and the text column is not indexed.

Why: the hash is random, so each batch of an import inserts its keys all over the
index. At 1,000,000 games the text index (64 characters and a rowid per entry) has
19,930 leaf pages (78 MB), more than the import's page cache, and a batch of
10,000 records touches about 7,800 of them; the integer index has 4,549 (18 MB),
which the cache holds (benchmarks/results/2026-12-01-import.md).

Two different records may share a key (the chance is about n²/2⁶⁵: one in 36
million for a million games), so a key only narrows the search: every lookup here
compares the full hash too, and two games whose keys collide are both stored.

Uniqueness of ``hash`` is no longer an index constraint but the writers' rule:
everything that adds a game or changes its hash (the import's batches, merge,
tag set and unset) looks the hash up and writes inside one transaction opened
with ``BEGIN IMMEDIATE``. That takes the archive's write lock before the lookup,
and SQLite lets one connection at a time hold it, so no other writer can commit
the same hash between the lookup and the insert: a check and an insert under the
write lock are as safe as the UNIQUE index was. (A program that writes ``games``
with its own SQL outside partita is not covered; the UNIQUE index would have
refused its duplicate.)

The migration's SQL is :data:`MIGRATION_6`, in this one place: a script that makes
a new archive at the current schema in one step takes its statements from here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING

from partita.database.sqlfunctions import register

if TYPE_CHECKING:  # the import's write path need not load sqlite-utils
    from sqlite_utils import Database

__all__ = [
    "HASH_KEY_INDEX",
    "MIGRATION_6",
    "game_ids_with_hash",
    "hash_key",
    "stored_hashes",
    "upgrade_to_v6",
]

_SIGN = 1 << 63
_WRAP = 1 << 64

#: Host parameters per lookup (SQLite before 3.32 allows 999).
_LOOKUP_CHUNK = 900

#: The index that finds games by their hash key (its SQL, as migration 6 writes it).
HASH_KEY_INDEX = "CREATE INDEX games_hash_key ON games(hash_key)"

#: Migration 6, in order: the column, its values for the games already stored
#: (``partita_hash_key`` is :func:`hash_key`, registered by :func:`upgrade_to_v6`),
#: its index, and the text index it replaces dropped.
MIGRATION_6: tuple[str, ...] = (
    "ALTER TABLE games ADD COLUMN hash_key INTEGER",
    "UPDATE games SET hash_key = partita_hash_key(hash)",
    HASH_KEY_INDEX,
    "DROP INDEX IF EXISTS games_hash",
)


def hash_key(digest: str) -> int:
    """The key of the content hash ``digest`` (hex): its first 8 bytes, big-endian,
    as a signed 64-bit integer (SQLite's INTEGER)."""
    key = int(digest[:16], 16)
    return key - _WRAP if key >= _SIGN else key


def stored_hashes(conn: sqlite3.Connection, digests: Iterable[str]) -> set[str]:
    """The hashes among ``digests`` that a game of the archive has: found by key
    through ``games_hash_key``, then compared in full (a game whose key is the same
    but whose hash differs is not a match)."""
    wanted = set(digests)
    keys = list({hash_key(digest) for digest in wanted})
    found: set[str] = set()
    for start in range(0, len(keys), _LOOKUP_CHUNK):
        chunk = keys[start : start + _LOOKUP_CHUNK]
        marks = ", ".join("?" * len(chunk))
        found.update(
            row[0]
            for row in conn.execute(f"SELECT hash FROM games WHERE hash_key IN ({marks})", chunk)
        )
    return found & wanted


def game_ids_with_hash(conn: sqlite3.Connection, digest: str, *, schema: str = "main") -> list[int]:
    """The ids of the games of ``schema`` (an attached archive's name, or ``main``)
    whose content hash is ``digest``, in id order."""
    return [
        row[0]
        for row in conn.execute(
            f"SELECT id FROM {schema}.games WHERE hash_key = ? AND hash = ? ORDER BY id",
            (hash_key(digest), digest),
        )
    ]


def upgrade_to_v6(db: Database) -> None:
    """Migration 6: :data:`MIGRATION_6`, inside the migration's transaction."""
    conn = db.conn
    register(conn, "partita_hash_key", 1, hash_key)
    for statement in MIGRATION_6:
        conn.execute(statement)
