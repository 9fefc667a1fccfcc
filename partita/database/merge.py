"""Merging another partita archive into this one: its games with their positions,
variation positions and problems, duplicates (the same content hash) skipped, in
one transaction.

The other archive is attached to this archive's connection (read-only where this
SQLite reads URI file names, which it says in its compile options) and never
migrated or written: an archive of an older schema is read as it is, and the
columns it lacks (``twin_key`` before version 2, ``hash_key`` before version 6) and the variation positions it
lacks (before version 5) are computed as the migrations would. Rows are copied by ``INSERT ... SELECT`` through a temporary table that maps
the other archive's ids to new ones, so no game passes through Python but its id
and hash.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from partita.database.connection import Archive
from partita.database.hashkey import game_ids_with_hash, hash_key
from partita.database.indexed import index_games
from partita.database.maintenance import write_transaction
from partita.database.schema import (
    HASH_KEY_COLUMN,
    POSITION_COLUMNS,
    PROBLEM_COLUMNS,
    SCHEMA_VERSION,
    STORED_GAME_COLUMNS,
    writing,
)
from partita.database.sqlfunctions import register
from partita.database.twinkey import row_twin_key
from partita.database.twins import new_twins
from partita.database.variations import VARIATION_COLUMNS, fill_variations
from partita.errors import ArchiveError

__all__ = ["Merge", "merge_archive"]

_ALIAS = "partita_merge_source"


@dataclass(slots=True)
class Merge:
    """What a merge did: ``mapping`` has one entry per game of the other archive, by
    its id: ``{"from": id, "to": new id}`` for a game copied, ``{"from": id,
    "duplicate_of": id}`` for one this archive already held; ``twins``, the copied
    games with a twin stored before them (as an import reports them)."""

    source: str
    copied: int = 0
    duplicates: int = 0
    positions: int = 0
    problems: int = 0
    variation_positions: int = 0
    mapping: list[dict[str, int]] = field(default_factory=list)
    twins: list[dict[str, int]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "copied": self.copied,
            "duplicates": self.duplicates,
            "positions": self.positions,
            "problems": self.problems,
            "variation_positions": self.variation_positions,
            "mapping": self.mapping,
            "twins": self.twins,
        }


def _attach(conn: sqlite3.Connection, path: Path) -> None:
    options = {row[0] for row in conn.execute("PRAGMA compile_options")}
    if "USE_URI=1" in options:
        location = f"file:{quote(os.fspath(path.resolve()))}?mode=ro"
    else:  # read only by what this module runs
        location = os.fspath(path)
    conn.execute(f"ATTACH DATABASE ? AS {_ALIAS}", (location,))


def _source_columns(conn: sqlite3.Connection, other: str) -> set[str]:
    """The other archive's ``games`` columns, after checking it is a partita
    archive this partita can read."""
    tables = {
        row[0]
        for row in conn.execute(f"SELECT name FROM {_ALIAS}.sqlite_master WHERE type = 'table'")
    }
    if "schema_version" not in tables or not {"games", "positions", "problems"} <= tables:
        raise ArchiveError(f"{other} is not a partita archive")
    version = conn.execute(f"SELECT max(version) FROM {_ALIAS}.schema_version").fetchone()[0]
    if _loading(conn, tables):
        raise ArchiveError(
            f"{other} holds games whose positions are not indexed yet (a large import "
            f"into it is running, or was stopped): run `partita migrate --db {other}` first"
        )
    if version is None or version > SCHEMA_VERSION:
        raise ArchiveError(
            f"{other} has schema version {version}, newer than this partita knows "
            f"({SCHEMA_VERSION}): upgrade partita"
        )
    return {row[1] for row in conn.execute(f"PRAGMA {_ALIAS}.table_info(games)")}


def merge_archive(target: Archive, other: str | Path) -> Merge:
    """Copy the games of the archive ``other`` into ``target`` (made if needed),
    in the other archive's id order, with their positions and problems; a game
    whose content hash ``target`` already holds is skipped. One transaction: a
    failure leaves ``target`` as it was."""
    other_path = Path(other)
    if not other_path.is_file():
        raise ArchiveError(f"no archive at {other}")
    with writing(target) as db:
        conn = db.conn
        database_file = conn.execute("PRAGMA database_list").fetchone()[2]
        if database_file and os.path.samefile(database_file, other_path):
            raise ArchiveError(f"{other} is this archive: there is nothing to merge")
        try:
            _attach(conn, other_path)
        except sqlite3.DatabaseError as error:
            raise ArchiveError(f"cannot read {other}: {error}") from None
        try:
            return _merge(db, str(other))
        except sqlite3.DatabaseError as error:
            raise ArchiveError(
                f"merging {other} failed, the archive is unchanged: {error}"
            ) from None
        finally:
            conn.execute(f"DETACH DATABASE {_ALIAS}")


def _merge(db: Archive, other: str) -> Merge:
    conn = db.conn
    merge = Merge(other)
    columns = _source_columns(conn, other)
    with write_transaction(db):
        next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0]
        first_id = next_id
        copies: list[tuple[int, int]] = []
        # Looked up under the write lock (write_transaction): partita.database.hashkey.
        for old_id, digest in conn.execute(f"SELECT id, hash FROM {_ALIAS}.games ORDER BY id"):
            held = game_ids_with_hash(conn, digest)
            if held:
                merge.mapping.append({"from": old_id, "duplicate_of": held[0]})
                merge.duplicates += 1
                continue
            copies.append((old_id, next_id))
            merge.mapping.append({"from": old_id, "to": next_id})
            next_id += 1
        merge.copied = len(copies)
        if not copies:
            return merge
        conn.execute("CREATE TEMP TABLE partita_merge_ids (old INTEGER PRIMARY KEY, new INTEGER)")
        try:
            conn.executemany("INSERT INTO temp.partita_merge_ids VALUES (?, ?)", copies)
            _copy_rows(conn, columns, len(copies))
            if _has_variation_table(conn):
                _copy_variations(conn)
            else:  # an archive before version 5
                fill_variations(conn, first_id, next_id - 1)
            merge.variation_positions = conn.execute(
                "SELECT count(*) FROM main.variation_positions WHERE game_id >= ?", (first_id,)
            ).fetchone()[0]
            index_games(conn, first_id, next_id - 1)
            merge.positions = conn.execute(
                "SELECT count(*) FROM main.game_positions WHERE game_id >= ?", (first_id,)
            ).fetchone()[0]
            merge.problems = conn.execute(
                "SELECT count(*) FROM main.problems WHERE game_id >= ?", (first_id,)
            ).fetchone()[0]
        finally:
            conn.execute("DROP TABLE temp.partita_merge_ids")
        merge.twins = new_twins(db, first_id)
    return merge


def _loading(conn: sqlite3.Connection, tables: set[str]) -> bool:
    """Whether the other archive's last bulk import has not sorted its positions
    into ``positions`` yet (its mark set; the heap's rows before version 7)."""
    for table in ("positions_pending", "positions_load"):
        if (
            table in tables
            and conn.execute(f"SELECT EXISTS (SELECT 1 FROM {_ALIAS}.{table})").fetchone()[0]
        ):
            return True
    return False


def _copy_positions(conn: sqlite3.Connection) -> None:
    """The positions of the mapped games: into ``positions`` in one pass over the
    other archive's positions in key order (the primary key's order: its B-tree is
    walked forwards, and this one's in key order), into ``game_positions`` in game
    order (the new ids grow with the old ones: appends), from the other's
    ``game_positions``, or before version 7 from its ``positions`` (through its
    ``positions_game``)."""
    values = ", ".join(
        "m.new" if column == "game_id" else f"p.{column}" for column in POSITION_COLUMNS
    )
    conn.execute(
        f"INSERT INTO main.positions ({', '.join(POSITION_COLUMNS)}) SELECT {values} "
        f"FROM {_ALIAS}.positions p JOIN temp.partita_merge_ids m ON m.old = p.game_id "
        "ORDER BY p.key"
    )
    if _has_table(conn, "game_positions"):  # the id map drives; no sort
        rows = f"temp.partita_merge_ids m CROSS JOIN {_ALIAS}.game_positions p"
    else:
        rows = f"{_ALIAS}.positions p JOIN temp.partita_merge_ids m"
    conn.execute(
        "INSERT INTO main.game_positions (game_id, ply, key) SELECT m.new, p.ply, p.key "
        f"FROM {rows} ON p.game_id = m.old ORDER BY m.new, p.ply"
    )


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return (
        conn.execute(
            f"SELECT 1 FROM {_ALIAS}.sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        is not None
    )


def _has_variation_table(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute(
            f"SELECT 1 FROM {_ALIAS}.sqlite_master "
            "WHERE type = 'table' AND name = 'variation_positions'"
        ).fetchone()
        is not None
    )


def _copy_variations(conn: sqlite3.Connection) -> None:
    """The variation positions of the mapped games, with their new ids, in key order."""
    values = ", ".join(
        "m.new" if column == "game_id" else f"v.{column}" for column in VARIATION_COLUMNS
    )
    conn.execute(
        f"INSERT INTO main.variation_positions ({', '.join(VARIATION_COLUMNS)}) "
        f"SELECT {values} FROM {_ALIAS}.variation_positions v "
        "JOIN temp.partita_merge_ids m ON m.old = v.game_id ORDER BY v.key"
    )


def _copy_rows(conn: sqlite3.Connection, columns: set[str], copied: int) -> None:
    """The games, positions and problems of the ``copied`` mapped games, with their
    new ids."""
    selected = []
    for column in STORED_GAME_COLUMNS:
        if column == "id":
            selected.append("m.new")
        elif column in columns:
            selected.append(f"g.{column}")
        elif column == "twin_key":  # an archive from before version 2
            selected.append("partita_row_twin_key(g.game, g.sides, g.tags, g.moves, g.status)")
        elif column == HASH_KEY_COLUMN:  # an archive from before version 6
            selected.append("partita_hash_key(g.hash)")
        else:
            selected.append("NULL")
    register(conn, "partita_row_twin_key", 5, row_twin_key)
    register(conn, "partita_hash_key", 1, hash_key)
    conn.execute(
        f"INSERT INTO main.games ({', '.join(STORED_GAME_COLUMNS)}) "
        # The id map drives (CROSS JOIN keeps it the outer loop): the games come in
        # id order, their new ids ascending, and no sort of whole rows is needed.
        f"SELECT {', '.join(selected)} FROM temp.partita_merge_ids m "
        f"CROSS JOIN {_ALIAS}.games g ON g.id = m.old"
    )
    _copy_positions(conn)
    problem_columns = ", ".join(f"[{column}]" for column in PROBLEM_COLUMNS)
    problem_values = ", ".join(
        "m.new" if column == "game_id" else f"p.[{column}]" for column in PROBLEM_COLUMNS
    )
    conn.execute(
        f"INSERT INTO main.problems ({problem_columns}) "
        f"SELECT {problem_values} FROM {_ALIAS}.problems p "
        "JOIN temp.partita_merge_ids m ON m.old = p.game_id ORDER BY p.id"
    )
