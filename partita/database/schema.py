"""The archive's schema, its migrations, and opening an archive.

An archive is one SQLite file with four tables (``docs/archive.md`` has the full
description and the measurements behind the layout):

* ``games``: one row per stored record (tags, result, status, the stored record
  text, the mainline as canonical tokens, the content hash that detects
  duplicates, where it came from);
* ``positions``: one row per ply of a game's legal mainline prefix (the folded
  position key after the ply, the game, the ply, the move that made the position
  and the move played from it), a ``WITHOUT ROWID`` table whose primary key starts
  with the key, so a position lookup (and "what was played here") is one index
  range and an import writes one B-tree per ply;
* ``problems``: every problem of every stored record;
* ``schema_version``: the migrations applied, so later games can extend the schema.

Tables and indexes are made with sqlite-utils; ``positions`` is plain SQL because
sqlite-utils cannot declare ``WITHOUT ROWID``.
"""

from __future__ import annotations

import datetime
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from sqlite_utils import Database

from partita.errors import ArchiveError

__all__ = [
    "GAME_COLUMNS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Migration",
    "archive",
    "open_archive",
    "schema_version",
]

#: The columns of ``games`` in insertion order (the importer writes tuples in it).
GAME_COLUMNS: tuple[str, ...] = (
    "id",
    "game",
    "event",
    "site",
    "date",
    "round",
    "player1",
    "player2",
    "player3",
    "player4",
    "result",
    "termination",
    "sides",
    "plies",
    "status",
    "final_position",
    "date_min",
    "date_max",
    "tags",
    "pgr",
    "moves",
    "hash",
    "source_file",
    "source_index",
    "source_line",
    "source_offset",
    "twin_key",  # added by migration 2
)

PROBLEM_COLUMNS: tuple[str, ...] = (
    "game_id",
    "kind",
    "severity",
    "line",
    "column",
    "ply",
    "move_number",
    "token",
    "message",
)

POSITION_COLUMNS: tuple[str, ...] = ("key", "game_id", "ply", "move", "next_move")


def _create_v1(db: Database) -> None:
    """Games, positions, problems and their indexes."""
    db.table("games").create(
        {
            "id": int,
            "game": str,
            "event": str,
            "site": str,
            "date": str,
            "round": str,
            "player1": str,
            "player2": str,
            "player3": str,
            "player4": str,
            "result": str,
            "termination": str,
            "sides": int,
            "plies": int,
            "status": str,
            "final_position": str,
            "date_min": str,
            "date_max": str,
            "tags": str,
            "pgr": str,
            "moves": str,
            "hash": str,
            "source_file": str,
            "source_index": int,
            "source_line": int,
            "source_offset": int,
        },
        pk="id",
        not_null={"plies", "status", "tags", "pgr", "moves", "hash"},
        column_order=list(GAME_COLUMNS),
    )
    db.table("games").create_index(["hash"], index_name="games_hash", unique=True)
    db.table("games").create_index(["moves"], index_name="games_moves")
    db.table("games").create_index(["game", "date_min"], index_name="games_game_date")
    db.execute(
        "CREATE TABLE positions (\n"
        "   key INTEGER NOT NULL,\n"
        "   game_id INTEGER NOT NULL REFERENCES games(id),\n"
        "   ply INTEGER NOT NULL,\n"
        "   move TEXT NOT NULL,\n"
        "   next_move TEXT,\n"
        "   PRIMARY KEY (key, game_id, ply)\n"
        ") WITHOUT ROWID"
    )
    db.table("problems").create(
        {
            "id": int,
            "game_id": int,
            "kind": str,
            "severity": str,
            "line": int,
            "column": int,
            "ply": int,
            "move_number": int,
            "token": str,
            "message": str,
        },
        pk="id",
        foreign_keys=[("game_id", "games", "id")],
        not_null={"game_id", "kind", "severity", "message"},
    )
    db.table("problems").create_index(["game_id"], index_name="problems_game")
    db.table("problems").create_index(["kind"], index_name="problems_kind")


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: its version number, what it does, the change."""

    version: int
    description: str
    apply: Callable[[Database], None]


#: Every migration, in order. A later game that needs a column or a table adds one
#: entry here; opening an older archive applies the missing steps.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "games, positions and problems", _create_v1),
    Migration(
        2,
        "positions and problems indexed by game; games.twin_key",
        lambda db: import_module("partita.database.upgrades").upgrade_to_v2(db),
    ),
)

SCHEMA_VERSION = MIGRATIONS[-1].version


def schema_version(db: Database) -> int:
    """The newest migration applied to ``db`` (0 for an empty database)."""
    if "schema_version" not in db.table_names():
        return 0
    row = db.execute("SELECT max(version) FROM schema_version").fetchone()
    return row[0] or 0


def _migrate(db: Database, path: str) -> None:
    tables = set(db.table_names())
    if "schema_version" not in tables:
        if tables & {"games", "positions", "problems"}:
            raise ArchiveError(f"{path} is not a partita archive (it has no schema_version table)")
        db.table("schema_version").create(
            {"version": int, "description": str, "applied": str}, pk="version"
        )
    current = schema_version(db)
    if current > SCHEMA_VERSION:
        raise ArchiveError(
            f"{path} has schema version {current}, newer than this partita knows "
            f"({SCHEMA_VERSION}): upgrade partita"
        )
    for migration in MIGRATIONS:
        if migration.version <= current:
            continue
        with db.atomic():
            migration.apply(db)
            db.table("schema_version").insert(
                {
                    "version": migration.version,
                    "description": migration.description,
                    "applied": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                }
            )


def _set_pragmas(db: Database) -> None:
    """WAL and synchronous=NORMAL: a commit is atomic and survives a crash of the
    process (a power cut may lose the last commits, never half of one), and costs no
    fsync. The page cache stays SQLite's default (2 MB): a larger one bought no
    speed on imports of 10,000 to 100,000 games and grows the memory an import
    needs (docs/archive.md)."""
    if not db.memory:
        db.enable_wal()
    db.execute("PRAGMA synchronous=NORMAL")


def open_archive(target: str | Path | Database, *, create: bool = True) -> Database:
    """The archive at ``target`` (a path, ``":memory:"`` or an open sqlite-utils
    ``Database``), created or migrated to the current schema.

    ``create=False`` refuses a path where no file exists. ``ArchiveError`` when the
    file is no SQLite database, another program's database, or newer than this
    partita.
    """
    if isinstance(target, Database):
        db = target
        name = "the archive"
    else:
        name = str(target)
        if name != ":memory:" and not create and not Path(name).exists():
            raise ArchiveError(f"no archive at {name}")
        try:
            db = Database(name) if name != ":memory:" else Database(memory=True)
        except sqlite3.Error as error:
            raise ArchiveError(f"cannot open the archive {name}: {error}") from None
    try:
        _set_pragmas(db)
        _migrate(db, name)
    except sqlite3.DatabaseError as error:
        if not isinstance(target, Database):
            db.close()
        raise ArchiveError(f"{name} is not a usable archive: {error}") from None
    except ArchiveError:
        if not isinstance(target, Database):
            db.close()
        raise
    db.conn.create_function("partita_casefold", 1, _casefold, deterministic=True)
    return db


def _casefold(text: str | None) -> str | None:
    return None if text is None else text.casefold()


@contextmanager
def archive(target: str | Path | Database, *, create: bool = True) -> Iterator[Database]:
    """``open_archive`` as a context manager that closes what it opened (an open
    ``Database`` given as ``target`` is left open)."""
    db = open_archive(target, create=create)
    try:
        yield db
    finally:
        if not isinstance(target, Database):
            db.close()
