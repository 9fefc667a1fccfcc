"""The archive's schema, its migrations, and opening an archive.

An archive is one SQLite file; its main tables (``docs/archive.md`` has the full
description and the measurements behind the layout):

* ``games``: one row per stored record (tags, result, status, the stored record
  text, the mainline as canonical tokens, the content hash that detects
  duplicates and its integer key, where it came from);
* ``positions``: one row per ply of a game's legal mainline prefix (the folded
  position key after the ply, the game, the ply; the move of a ply is the game's
  ``moves`` token there), a ``WITHOUT ROWID`` table whose primary key is all of
  it, so a position lookup is one index range and an import writes one B-tree per
  ply;
* ``problems``: every problem of every stored record;
* ``variation_positions`` (version 5): the same for every legal ply of every
  variation, with the variation's number (:mod:`partita.database.variations`);
* ``schema_version``: the migrations applied, so later games can extend the schema.

The migrations make tables and indexes with sqlite-utils (``positions`` is plain
SQL because sqlite-utils cannot declare ``WITHOUT ROWID``); a new archive is made
in one step instead, from the schema they leave
(:mod:`partita.database.current_schema`).

Opening: reading never writes (a read-only connection, no migration: an archive
that needs one is refused with the command that migrates it); writing checks the
file before writing anything (another program's database is refused and left
unchanged), migrates in one transaction under the write lock (so processes making
one new archive at once do it once), and uses WAL while it writes; the archive is
left in rollback-journal mode at rest (see :mod:`partita.database.connection`).

:func:`open_archive` (and the context manager :func:`archive`) is the one place
an archive is opened: it makes these checks and returns the
:class:`~partita.database.connection.Archive` every library function takes.
Opening needs no sqlite-utils: the stdlib ``sqlite3`` opens, checks, makes and
closes an archive, and only the migration of an existing older archive loads
sqlite-utils (with numpy: a quarter of a second of a small import's start-up).
"""

from __future__ import annotations

import datetime
import signal
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from partita.database.books import create_book_table
from partita.database.connection import (
    Archive,
    archive_error,
    archive_name,
    check_intact,
    connect_for_reading,
    connect_for_writing,
    connect_to_peek,
    in_wal_mode_at_rest,
    retry_while_busy,
)
from partita.database.current_schema import CURRENT_SCHEMA_VERSION, CURRENT_STATEMENTS
from partita.database.sqlfunctions import register, register_indexing_functions
from partita.errors import ArchiveError

if TYPE_CHECKING:
    from sqlite_utils import Database

__all__ = [
    "APPLICATION_ID",
    "GAME_COLUMNS",
    "HASH_KEY_COLUMN",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "STORED_GAME_COLUMNS",
    "interrupts_held",
    "ArchiveState",
    "Migration",
    "archive",
    "close_archive",
    "writing",
    "inspect_archive",
    "migrate_archive",
    "open_archive",
    "open_for_writing",
    "schema_version",
]

#: The columns of ``games`` a prepared row fills, in insertion order (the importer
#: writes tuples in it); the writers add :data:`HASH_KEY_COLUMN`, derived from ``hash``.
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

#: The column of ``games`` that indexes the content hash (added by migration 6:
#: :mod:`partita.database.hashkey`).
HASH_KEY_COLUMN = "hash_key"

#: Every column a writer fills in a new ``games`` row, in insertion order: a
#: prepared row's (:data:`GAME_COLUMNS`), then :data:`HASH_KEY_COLUMN`.
STORED_GAME_COLUMNS: tuple[str, ...] = (*GAME_COLUMNS, HASH_KEY_COLUMN)

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

#: The columns of ``positions`` (version 7: the move and the next move went; they
#: are ``games.moves`` at the ply).
POSITION_COLUMNS: tuple[str, ...] = ("key", "game_id", "ply")

#: Migration 7, in order: ``positions`` rebuilt as ``(key, game_id, ply)`` (the old
#: table renamed, its rows copied in key order into the new one, so its B-tree is
#: written page after page); ``game_positions(game_id, ply, key)`` made from the
#: same rows in game order, and from a stopped bulk import's ``positions_load``
#: rows, whose first game ``positions_pending`` marks (the next writer sorts them
#: into ``positions``: :mod:`partita.database.indexed`); the old table (with its
#: index ``positions_game``) and ``positions_load`` dropped. The ``move`` and
#: ``next_move`` columns cost a third of the insert rate and 7 bytes a row, and
#: nothing reads them: the token of a ply is in ``games.moves``; ``game_positions``
#: takes the place of both ``positions_game`` (which a bulk import had to build
#: again, one sort of every row) and the load heap
#: (benchmarks/results/2026-12-02-import.md). ``variation_positions`` keeps its own (few rows).
MIGRATION_7: tuple[str, ...] = (
    "ALTER TABLE positions RENAME TO positions_v6",
    "CREATE TABLE positions (\n"
    "   key INTEGER NOT NULL,\n"
    "   game_id INTEGER NOT NULL REFERENCES games(id),\n"
    "   ply INTEGER NOT NULL,\n"
    "   PRIMARY KEY (key, game_id, ply)\n"
    ") WITHOUT ROWID",
    "INSERT INTO positions (key, game_id, ply) "
    "SELECT key, game_id, ply FROM positions_v6 ORDER BY key, game_id, ply",
    "CREATE TABLE game_positions (\n"
    "   game_id INTEGER NOT NULL REFERENCES games(id),\n"
    "   ply INTEGER NOT NULL,\n"
    "   key INTEGER NOT NULL,\n"
    "   PRIMARY KEY (game_id, ply)\n"
    ") WITHOUT ROWID",
    "INSERT INTO game_positions (game_id, ply, key) SELECT game_id, ply, key FROM "
    "(SELECT game_id, ply, key FROM positions_v6 UNION ALL "
    "SELECT game_id, ply, key FROM positions_load) ORDER BY game_id, ply",
    "CREATE TABLE positions_pending (\n"
    "   id INTEGER PRIMARY KEY CHECK (id = 1),\n"
    "   first_game_id INTEGER NOT NULL\n"
    ")",
    "INSERT INTO positions_pending (id, first_game_id) "
    "SELECT 1, min(game_id) FROM positions_load HAVING count(*) > 0",
    "DROP TABLE positions_v6",
    "DROP TABLE positions_load",
)


def _upgrade_to_v7(db: Database) -> None:
    """Migration 7: :data:`MIGRATION_7`, inside the migration's transaction."""
    for statement in MIGRATION_7:
        db.conn.execute(statement)


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


#: A long migration's progress: ``progress(done, total)``.
MigrationProgress = Callable[[int, int], object]


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: its version number, what it does, the change.
    ``reports_progress``: ``apply`` also takes the progress callback (a step that
    replays stored games, long on a large archive)."""

    version: int
    description: str
    apply: Callable[..., None]
    reports_progress: bool = False


#: Every migration, in order. A later game that needs a column or a table adds one
#: entry here; opening an older archive applies the missing steps.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "games, positions and problems", _create_v1),
    Migration(2, "the opening book (partita book)", create_book_table),
    Migration(
        3,
        "positions and problems indexed by game; games.twin_key",
        lambda db: import_module("partita.database.upgrades").upgrade_to_v2(db),
    ),
    Migration(
        4,
        "players and tags indexed (game_players, game_tags); positions_load for bulk imports",
        lambda db: import_module("partita.database.indexed").upgrade_to_v4(db),
    ),
    Migration(
        5,
        "variations indexed for position search (variation_positions)",
        lambda db, progress: import_module("partita.database.variations").upgrade_to_v5(
            db, progress
        ),
        reports_progress=True,
    ),
    Migration(
        6,
        "content hashes indexed by an integer key (games.hash_key)",
        lambda db: import_module("partita.database.hashkey").upgrade_to_v6(db),
    ),
    Migration(
        7,
        "positions without the moves (key, game_id, ply); game_positions in game order",
        _upgrade_to_v7,
    ),
    Migration(
        8,
        "position keys fold the game's set-up (sides and settings)",
        lambda db, progress: import_module("partita.database.upgrades").upgrade_to_v8(db, progress),
        reports_progress=True,
    ),
)

SCHEMA_VERSION = MIGRATIONS[-1].version


#: partita's mark in the SQLite header (``PRAGMA application_id``, "PRTA"), set
#: when an archive is made: tools such as file(1) can tell an archive by it.
APPLICATION_ID = 0x50525441


@dataclass(frozen=True, slots=True)
class ArchiveState:
    """What an SQLite file holds, as partita sees it: ``kind`` is ``empty`` (no
    table yet), ``partita`` (an archive, at schema ``version``) or ``foreign``
    (another program's database); ``tables`` names its tables."""

    kind: str
    version: int
    tables: tuple[str, ...]
    application_id: int


def inspect_archive(conn: sqlite3.Connection) -> ArchiveState:
    """The :class:`ArchiveState` of the database behind ``conn``, found by reading
    only (the header and the schema)."""
    objects = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
    application_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = tuple(
        sorted(name for kind, name in objects if kind == "table" and not name.startswith("sqlite_"))
    )
    if not objects and application_id in (0, APPLICATION_ID):
        return ArchiveState("empty", 0, (), application_id)
    if application_id not in (0, APPLICATION_ID) or not _partita_versions(conn, tables):
        return ArchiveState("foreign", 0, tables, application_id)
    row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    return ArchiveState("partita", row[0] or 0, tables, application_id)


def _partita_versions(conn: sqlite3.Connection, tables: tuple[str, ...]) -> bool:
    """Whether the file has partita's ``schema_version`` table: its columns, and
    the descriptions of the migrations this partita knows (another program may
    well have a table of that name)."""
    if "schema_version" not in tables:
        return False
    columns = [row[1] for row in conn.execute("PRAGMA table_info(schema_version)")]
    if columns != ["version", "description", "applied"]:
        return False
    known = {migration.version: migration.description for migration in MIGRATIONS}
    return all(
        known.get(version, description) == description
        for version, description in conn.execute("SELECT version, description FROM schema_version")
    )


def schema_version(opened: Archive) -> int:
    """The newest migration applied to ``opened`` (0 for an empty database)."""
    return inspect_archive(opened.conn).version


def _refuse_unusable(state: ArchiveState, name: str, *, reading: bool) -> None:
    """Raise ``ArchiveError`` when the file cannot be used: another program's
    database (never touched), a newer partita's archive; for reading also an empty
    file, or an archive that needs a migration (reading never changes a file)."""
    if state.kind == "foreign":
        tables = ", ".join(state.tables) or "none"
        raise ArchiveError(
            f"{name} is not a partita archive (another program's SQLite database; its "
            f"tables: {tables}): partita leaves it unchanged, choose another file"
        )
    if state.version > SCHEMA_VERSION:
        raise ArchiveError(
            f"the archive {name} has schema version {state.version}, newer than this "
            f"partita knows ({SCHEMA_VERSION}): upgrade partita"
        )
    if not reading:
        return
    if state.kind == "empty":
        raise ArchiveError(f"the archive {name} is empty: import records into it first")
    if state.version < SCHEMA_VERSION:
        raise ArchiveError(
            f"the archive {name} was written by an older partita (schema version "
            f"{state.version}, this one reads {SCHEMA_VERSION}): run `partita migrate "
            f"--db {name}` (or import into it) to bring it up to date; reading commands "
            "never change an archive"
        )


def _migrate(
    conn: sqlite3.Connection, name: str, progress: MigrationProgress | None = None
) -> None:
    """Apply the missing migrations in one transaction that holds the write lock
    from the start, so that processes creating one archive at once do it once
    (the schema is looked at again under the lock: another may have been first).
    An empty file gets the schema of :data:`CURRENT_SCHEMA_VERSION` in one step
    (:func:`_create_current`) when this partita's migrations go at least that far;
    only the migrations that remain after it load sqlite-utils."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        state = inspect_archive(conn)  # again, under the lock
        _refuse_unusable(state, name, reading=False)
        version = state.version
        if state.kind == "empty" and 0 < CURRENT_SCHEMA_VERSION <= SCHEMA_VERSION:
            version = _create_current(conn)
        if state.application_id != APPLICATION_ID:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        pending = [migration for migration in MIGRATIONS if migration.version > version]
        if pending:
            db = _utils_database(conn)
            if version == 0 and "schema_version" not in state.tables:
                db.table("schema_version").create(
                    {"version": int, "description": str, "applied": str}, pk="version"
                )
            _apply(db, pending, progress)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _create_current(conn: sqlite3.Connection) -> int:
    """Make the schema of :data:`CURRENT_SCHEMA_VERSION` in an empty file, inside
    the caller's transaction, with the ``schema_version`` rows its migrations would
    have written; that version."""
    for statement in CURRENT_STATEMENTS:
        conn.execute(statement)
    applied = _now()
    conn.executemany(
        "INSERT INTO schema_version (version, description, applied) VALUES (?, ?, ?)",
        [
            (migration.version, migration.description, applied)
            for migration in MIGRATIONS
            if migration.version <= CURRENT_SCHEMA_VERSION
        ],
    )
    return CURRENT_SCHEMA_VERSION


def _apply(db: Database, migrations: list[Migration], progress: MigrationProgress | None) -> None:
    """Run ``migrations`` in order inside the caller's transaction, each recorded
    in ``schema_version``."""
    for migration in migrations:
        with db.atomic():
            if migration.reports_progress:
                migration.apply(db, progress)
            else:
                migration.apply(db)
            db.table("schema_version").insert(
                {
                    "version": migration.version,
                    "description": migration.description,
                    "applied": _now(),
                }
            )


def _now() -> str:
    """When a migration is applied, as ``schema_version`` records it."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _utils_database(conn: sqlite3.Connection) -> Database:
    """``conn`` as a sqlite-utils ``Database`` (no plugins: partita registers its
    own SQL functions, and the plugin search reads every installed package's entry
    points)."""
    from sqlite_utils import Database

    return Database(conn, execute_plugins=False)


def _prepare_for_writing(
    conn: sqlite3.Connection, name: str, progress: MigrationProgress | None = None
) -> None:
    """Check the file before anything is written to it, migrate it (making an
    empty one an archive), and turn on WAL."""
    state = inspect_archive(conn)
    _refuse_unusable(state, name, reading=False)
    if state.kind != "empty":
        check_intact(conn, name)
    if state.version < SCHEMA_VERSION or state.application_id != APPLICATION_ID:
        _migrate(conn, name, progress)
    _set_pragmas(conn)
    from partita.database.indexed import finish_loading

    if _loading_pending(conn):  # a bulk import was stopped, or runs: index its positions
        finish_loading(conn)


def _loading_pending(conn: sqlite3.Connection) -> bool:
    """Whether a bulk import left positions to index (a writer finishes it)."""
    from partita.database.indexed import loading_pending

    return loading_pending(conn)


def _set_pragmas(conn: sqlite3.Connection) -> None:
    """WAL and synchronous=NORMAL while writing: a commit is atomic and survives a
    crash of the process (a power cut may lose the last commits, never half of
    one), costs no fsync, and readers never wait for the writer. The page cache
    stays SQLite's default (2 MB): a larger one bought no speed on imports of
    10,000 to 100,000 games and grows the memory an import needs
    (benchmarks/results/2026-12-01-import.md). A file system without WAL support
    keeps its rollback journal: slower, as safe."""
    if not _in_memory(conn):
        # SQLite does not wait for a lock to switch (another process may be
        # making the same archive): retry.
        retry_while_busy(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchone())
    conn.execute("PRAGMA synchronous=NORMAL")


def _in_memory(conn: sqlite3.Connection) -> bool:
    """Whether ``conn`` is a database in memory (its main file has no name)."""
    for _, schema, file in conn.execute("PRAGMA database_list"):
        if schema == "main":
            return not file
    return True


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C held back until the block ends, then raised (in the main thread; a
    Ctrl-C ignored stays ignored): closing an archive, or a commit, is short, and an
    interrupt in the middle of it would leave the ``-wal`` and ``-shm`` files beside
    it, or roll back what the commit holds."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):  # SIG_IGN or SIG_DFL: nothing to hold back
        yield
        return
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            previous(signal.SIGINT, None)


def _close_writing(conn: sqlite3.Connection) -> None:
    """Close an archive opened for writing: an open transaction (a batch an
    interrupt cut short) rolled back, the rollback journal back, the file closed,
    with Ctrl-C held back until that is done."""
    with interrupts_held():
        if not _in_memory(conn):
            if conn.in_transaction:
                conn.rollback()
            _leave_wal(conn)
        conn.close()


def _leave_wal(conn: sqlite3.Connection) -> None:
    """Back to a rollback journal when the last writer closes, so that the
    archive at rest is one file that a read-only connection opens without making
    a ``-wal`` or ``-shm`` file beside it. SQLite refuses while another connection
    is open (another import, a reader): that one's writer switches back later."""
    with suppress(sqlite3.OperationalError):
        conn.execute("PRAGMA journal_mode=DELETE").fetchone()


def open_for_writing(
    target: str | Path,
    *,
    create: bool = True,
    migration_progress: MigrationProgress | None = None,
) -> sqlite3.Connection:
    """A ``sqlite3`` connection to the archive at ``target`` (a path or
    ``":memory:"``), ready to write, with the checks and changes of
    :func:`open_archive` for writing (and its errors), and without sqlite-utils
    unless an older archive needs a migration; :func:`open_archive` wraps it in
    the :class:`~partita.database.connection.Archive` it returns."""
    name = archive_name(target)
    try:
        if name == ":memory:":
            conn = sqlite3.connect(":memory:", check_same_thread=False)
        else:
            path = Path(name)
            _check_path(path, name, must_exist=not create)
            if in_wal_mode_at_rest(path):
                _peek(path, name, reading=False)
            conn = connect_for_writing(path)
    except sqlite3.Error as error:
        raise archive_error(error, name) from None
    with _closed_on_refusal(conn, name):
        _prepare_for_writing(conn, name, migration_progress)
    return conn


def open_archive(
    target: str | Path,
    *,
    readonly: bool = False,
    create: bool = True,
    migration_progress: MigrationProgress | None = None,
) -> Archive:
    """The archive at the path ``target`` (or ``":memory:"``), open and ready:
    the one place an :class:`~partita.database.connection.Archive` is made.

    ``readonly=True`` (every reading command): the file must exist and be an
    archive at the current schema; it is opened read-only (``mode=ro``), nothing is
    written (no migration, no journal mode switch), and an archive that needs a
    migration is refused with a message saying how to migrate it.

    Otherwise (writing): the file is made if missing (``create=False`` refuses a
    missing one), checked before anything is written to it, migrated to the
    current schema, and switched to WAL; processes opening one new archive at once
    wait for each other instead of failing. ``migration_progress(done, total)`` is
    called by a long migration step (the games it has looked at). Neither loads
    sqlite-utils unless an older archive needs a migration.

    ``ArchiveError`` when the file is no SQLite database, another program's
    database (left unchanged), an archive of a newer partita, or when SQLite
    fails (the message says why).
    """
    name = archive_name(target)
    if not readonly:
        conn = open_for_writing(target, create=create, migration_progress=migration_progress)
        _register_archive_functions(conn)
        return Archive(conn, name, readonly=False)
    if name == ":memory:":
        raise ArchiveError("an archive in memory cannot be opened for reading: it is empty")
    path = Path(name)
    _check_path(path, name, must_exist=True)
    try:
        if in_wal_mode_at_rest(path):
            _peek(path, name, reading=True)
        conn = connect_for_reading(path)
    except sqlite3.Error as error:
        raise archive_error(error, name) from None
    with _closed_on_refusal(conn, name):
        _refuse_unusable(inspect_archive(conn), name, reading=True)
        _refuse_while_loading(conn, name)
    _register_archive_functions(conn)
    return Archive(conn, name, readonly=True)


@contextmanager
def writing(target: Archive, *, create: bool = True) -> Iterator[Archive]:
    """``target`` for a library function that writes: itself when it is open for
    writing; else (a reading command's archive, which such a function looks at
    before it decides to write) the same file opened for writing for the block.
    A ``sqlite3.Error`` inside becomes an ``ArchiveError`` naming the archive."""
    if target.readonly:
        with archive(target.name, create=create) as opened:
            yield opened
        return
    try:
        yield target
    except sqlite3.Error as error:
        raise archive_error(error, target.name) from None


def close_archive(opened: Archive) -> None:
    """Close ``opened`` as it was opened: a reader simply; a writer with an open
    transaction rolled back and the rollback journal back, Ctrl-C held back."""
    if opened.readonly:
        opened.conn.close()
    else:
        _close_writing(opened.conn)


def _register_archive_functions(conn: sqlite3.Connection) -> None:
    """The SQL functions every archive opened by :func:`open_archive` has."""
    register(conn, "partita_casefold", 1, _casefold)
    register_filter_functions(conn)


def _refuse_while_loading(conn: sqlite3.Connection, name: str) -> None:
    """Reading commands refuse an archive whose last bulk import has not indexed its
    positions yet (it runs, or was stopped): their answers would miss games."""
    from partita.database.indexed import loading_pending

    if loading_pending(conn):
        raise ArchiveError(
            f"the archive {name} holds games whose positions are not indexed yet (a large "
            f"import into it is running, or was stopped): wait for it to finish, or run "
            f"`partita migrate --db {name}` (or the import again) to index them; reading "
            "commands never change an archive"
        )


@contextmanager
def _closed_on_refusal(conn: sqlite3.Connection, name: str) -> Iterator[None]:
    """The checks of a connection just opened: if they refuse the archive or SQLite
    fails, the connection is closed and the error names the archive."""
    try:
        yield
    except (ArchiveError, sqlite3.Error) as error:
        conn.close()
        if isinstance(error, sqlite3.Error):
            raise archive_error(error, name) from None
        raise


def _peek(path: Path, name: str, *, reading: bool) -> None:
    """Refuse an unusable file in WAL mode before a connection that would make
    files beside it (another program's database stays as it was, alone)."""
    conn = connect_to_peek(path)
    try:
        state = inspect_archive(conn)
    finally:
        conn.close()
    _refuse_unusable(state, name, reading=reading)


def _check_path(path: Path, name: str, *, must_exist: bool) -> None:
    if path.is_dir():
        raise ArchiveError(f"{name} is a folder, not an archive")
    if path.exists():
        return
    if must_exist:
        raise ArchiveError(f"no archive at {name} (import records first)")
    if not path.absolute().parent.is_dir():
        raise ArchiveError(
            f"cannot create the archive {name}: there is no folder {path.absolute().parent}"
        )


def migrate_archive(
    target: str | Path, progress: MigrationProgress | None = None
) -> tuple[int, int]:
    """Bring the existing archive at ``target`` up to the current schema (the one
    thing reading commands refuse to do), in one transaction; the schema versions
    before and after. ``progress(done, total)``: the games a long step has looked at."""
    name = str(target)
    path = Path(name)
    _check_path(path, name, must_exist=True)
    try:
        conn = connect_to_peek(path) if in_wal_mode_at_rest(path) else connect_for_reading(path)
        try:
            before = inspect_archive(conn)
            _refuse_unusable(before, name, reading=False)
            if before.kind != "empty":
                check_intact(conn, name)
            current = (
                before.version == SCHEMA_VERSION
                and before.application_id == APPLICATION_ID
                and not _loading_pending(conn)
            )
        finally:
            conn.close()
    except sqlite3.Error as error:
        raise archive_error(error, name) from None
    if current:
        return before.version, SCHEMA_VERSION  # nothing to do: the file is not touched
    with archive(path, create=False, migration_progress=progress):
        pass
    return before.version, SCHEMA_VERSION


def register_filter_functions(conn: sqlite3.Connection) -> None:
    """The SQL functions :class:`partita.database.filters.GameFilter` uses:
    ``partita_fold`` (accent- and case-insensitive names), ``partita_number`` (a tag
    value as a number), ``regexp`` (SQLite's ``REGEXP`` operator) and
    ``partita_pattern`` (a game's first ply matching a position pattern). The
    last two import their modules on their first call: an import never filters."""
    register_indexing_functions(conn)
    register(conn, "regexp", 2, _on_first_call("partita.database.filters", "regexp"))
    register(
        conn,
        "partita_pattern",
        6,
        _on_first_call("partita.database.patterns", "first_matching_ply"),
    )


def _on_first_call(module: str, name: str) -> Callable[..., object]:
    """The function ``module.name``, imported when it is first called."""
    found: list[Callable[..., object]] = []

    def call(*arguments: object) -> object:
        if not found:
            found.append(getattr(import_module(module), name))
        return found[0](*arguments)

    return call


def _casefold(text: str | None) -> str | None:
    return None if text is None else text.casefold()


@contextmanager
def archive(
    target: str | Path,
    *,
    readonly: bool = False,
    create: bool = True,
    migration_progress: MigrationProgress | None = None,
) -> Iterator[Archive]:
    """:func:`open_archive` as a context manager that closes the archive
    (:func:`close_archive`). A ``sqlite3.Error`` inside becomes an
    ``ArchiveError`` naming the archive."""
    opened = open_archive(
        target, readonly=readonly, create=create, migration_progress=migration_progress
    )
    try:
        yield opened
    except sqlite3.Error as error:
        raise archive_error(error, opened.name) from None
    finally:
        close_archive(opened)
