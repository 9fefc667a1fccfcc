"""The open archive (:class:`Archive`), its SQLite connections, and SQLite's errors
in a user's words.

Every library function of the archive takes one :class:`Archive`: an open
``sqlite3`` connection with the archive's name and mode, opened (checked,
migrated) by :func:`partita.database.schema.archive` and nowhere else. Its
sqlite-utils ``Database`` (:attr:`Archive.db`, over the same connection) is made on
first use: sqlite-utils imports numpy and pandas when they are installed, a
quarter of a second that a small import or a query does not need.

Reading never writes: a read-only connection is a ``mode=ro`` URI, so SQLite
itself refuses every write, and no journal, ``-wal`` or ``-shm`` file is made
beside an archive at rest. On a read-only medium SQLite cannot open an archive
left in WAL mode that way (it would need a ``-shm`` file), so the connection falls
back to ``immutable=1``: nobody can change a file there while it is read.

Every ``sqlite3.Error`` that reaches a caller becomes an
:class:`~partita.errors.ArchiveError` naming the archive and saying what happened
(a damaged file, a lock held by another program, a read-only medium, a full
disk...): :func:`archive_error` and the decorator :func:`archive_errors`.
"""

from __future__ import annotations

import functools
import inspect
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from partita.errors import ArchiveError

if TYPE_CHECKING:
    from sqlite_utils import Database

__all__ = [
    "BUSY_TIMEOUT",
    "Archive",
    "archive_error",
    "archive_errors",
    "archive_name",
    "check_intact",
    "connect_for_reading",
    "connect_for_writing",
    "connect_to_peek",
    "in_wal_mode_at_rest",
    "INTACT_CHECK_SECONDS",
    "is_busy",
    "retry_while_busy",
]

#: Seconds a statement waits for a lock another connection holds before the archive
#: counts as locked: another import's batch, or its final sort, which takes minutes
#: for a million games on a loaded machine; a reader of an archive at rest (in
#: rollback-journal mode), which holds off a writer's switch to WAL and its commits.
#: Writers queue behind each other and behind readers up to this bound.
BUSY_TIMEOUT = 600.0


#: Seconds a writing command spends at most checking that an archive is intact
#: (:func:`check_intact`) before it writes: SQLite's ``quick_check`` reads every
#: page, about a second per few hundred MB; a bigger archive is checked as far as
#: this allows.
INTACT_CHECK_SECONDS = 2.0

_Result = TypeVar("_Result")


class Archive:
    """One open archive: its ``sqlite3`` connection (:attr:`conn`), how messages
    name it (:attr:`name`: its path, or ``:memory:``), and whether it was opened
    read-only. Made by :func:`partita.database.schema.open_archive` (or the
    context manager :func:`partita.database.schema.archive`), which checks and
    migrates the file first; :meth:`close` closes it as it was opened (a writer
    rolls back an open transaction and leaves WAL)."""

    def __init__(self, conn: sqlite3.Connection, name: str, *, readonly: bool) -> None:
        self.conn = conn
        self.name = name
        self.readonly = readonly

    def __repr__(self) -> str:
        mode = "read-only" if self.readonly else "writing"
        return f"<Archive {self.name} ({mode})>"

    @cached_property
    def db(self) -> Database:
        """sqlite-utils' ``Database`` over :attr:`conn` (imported on first use; no
        plugins: partita registers its own SQL functions, and the plugin search
        reads every installed package's entry points)."""
        from sqlite_utils import Database

        return Database(self.conn, execute_plugins=False)

    def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        """One statement on :attr:`conn`."""
        return self.conn.execute(sql, parameters)

    def executemany(
        self, sql: str, rows: Iterable[Sequence[Any] | dict[str, Any]]
    ) -> sqlite3.Cursor:
        return self.conn.executemany(sql, rows)

    def query(
        self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()
    ) -> Iterator[dict[str, Any]]:
        """The rows of a ``SELECT`` as dictionaries (as sqlite-utils'
        ``Database.query`` gives them)."""
        cursor = self.execute(sql, parameters)
        columns = [column[0] for column in cursor.description]
        for row in cursor:
            yield dict(zip(columns, row, strict=True))

    def close(self) -> None:
        """Close the archive: a writer's open transaction rolled back and its WAL
        left (:func:`partita.database.schema.close_archive`)."""
        from partita.database.schema import close_archive

        close_archive(self)

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def connect_for_reading(path: Path) -> sqlite3.Connection:
    """A read-only connection to the existing file ``path`` (``mode=ro``; on a
    read-only medium, ``immutable=1`` when plain ``mode=ro`` cannot open it)."""
    uri = path.absolute().as_uri()
    try:
        return _touched(sqlite3.connect(f"{uri}?mode=ro", uri=True, **_options()))
    except sqlite3.OperationalError as error:
        if _primary_code(error) != sqlite3.SQLITE_CANTOPEN or not _on_read_only_medium(path):
            raise
    return _touched(sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, **_options()))


def connect_to_peek(path: Path) -> sqlite3.Connection:
    """A connection that reads the file as it is (``immutable=1``): no lock, no
    file made beside it. For a first look at a file in WAL mode with no ``-wal``
    file beside it (another program's database, or an archive of an older
    partita), which any other connection would leave a ``-wal`` and a ``-shm``
    file beside."""
    uri = path.absolute().as_uri()
    return _touched(sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, **_options()))


def in_wal_mode_at_rest(path: Path) -> bool:
    """Whether ``path`` is an SQLite file in WAL mode (its header says so) with no
    ``-wal`` file beside it: nobody is writing it."""
    try:
        with open(path, "rb") as stream:
            header = stream.read(20)
    except OSError:
        return False
    wal_log = path.with_name(path.name + "-wal")
    return header[:16] == b"SQLite format 3\0" and header[18] == 2 and not wal_log.exists()


def connect_for_writing(path: Path) -> sqlite3.Connection:
    """A read-write connection to ``path`` (SQLite makes the file if it is missing)."""
    return sqlite3.connect(str(path), **_options())


def _options() -> dict[str, Any]:
    """Statements wait :data:`BUSY_TIMEOUT` for another connection's lock;
    sqlite-utils shares a connection between threads (a progress bar's, say)."""
    return {"timeout": BUSY_TIMEOUT, "check_same_thread": False}


def _touched(conn: sqlite3.Connection) -> sqlite3.Connection:
    """``conn`` after one read: SQLite opens a file lazily, and an unusable one
    should fail here, not in the middle of a query."""
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _on_read_only_medium(path: Path) -> bool:
    """Whether the folder of ``path`` refuses new files: a read-only mount, or a
    folder this user cannot write to (then no ``-shm`` file can be made there)."""
    folder = path.absolute().parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return True
    except (AttributeError, OSError):  # no statvfs on this platform
        pass
    return not os.access(folder, os.W_OK)


def _primary_code(error: sqlite3.Error) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def is_busy(error: sqlite3.Error) -> bool:
    """Whether ``error`` says another connection holds a lock (worth a retry)."""
    return _primary_code(error) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or (
        "database is locked" in str(error)
    )


def retry_while_busy(action: Callable[[], _Result], *, timeout: float | None = None) -> _Result:
    """``action()``, run again after a short pause each time it fails because
    another connection holds a lock, for at most ``timeout`` seconds in all
    (:data:`BUSY_TIMEOUT` by default): for the statements SQLite does not wait
    for by itself, such as a journal mode switch."""
    deadline = time.monotonic() + (BUSY_TIMEOUT if timeout is None else timeout)
    pause = 0.01
    while True:
        try:
            return action()
        except sqlite3.OperationalError as error:
            if not is_busy(error) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        # Short pauses: readers that take turns leave short gaps between their locks.
        pause = min(pause * 2, 0.05)


def check_intact(
    conn: sqlite3.Connection, name: str, *, seconds: float = INTACT_CHECK_SECONDS
) -> None:
    """Raise ``ArchiveError`` (one line) when SQLite's ``quick_check`` finds the
    database behind ``conn`` damaged: a writing command calls it before it writes
    anything, so that a damaged archive is refused as it is, not written into
    (SQLite may read and write such a file without noticing the damaged pages).
    The check stops after ``seconds``: what it read by then was sound."""
    deadline = time.monotonic() + seconds
    conn.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
    try:
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.OperationalError as error:
        if "interrupted" in str(error):
            return
        raise archive_error(error, name) from None
    except sqlite3.DatabaseError as error:
        raise archive_error(error, name) from None
    finally:
        conn.set_progress_handler(None, 0)
    if rows == [("ok",)]:
        return
    found = [
        line.strip()
        for row in rows
        for line in str(row[0]).splitlines()
        if line.strip() and not line.startswith("***")
    ]
    detail = found[0] if found else "SQLite's check failed"
    if len(detail) > 120:
        detail = detail[:117] + "..."
    raise ArchiveError(
        f"the archive {name} is damaged (SQLite's check: {detail}): nothing was written to "
        "it; restore it "
        "from a copy, or import the records again into a new archive"
    )


def archive_error(error: sqlite3.Error, name: str) -> ArchiveError:
    """``error`` as an :class:`ArchiveError` naming the archive ``name``: what
    happened, in a user's words, and what to do about it when there is something."""
    message = str(error)
    code = _primary_code(error)
    if code == sqlite3.SQLITE_CORRUPT or "malformed" in message:
        text = (
            f"the archive {name} is damaged ({message}): restore it from a copy, or "
            "import the records again into a new archive"
        )
    elif code == sqlite3.SQLITE_NOTADB:
        text = f"{name} is not a partita archive (not an SQLite database: {message})"
    elif is_busy(error):
        text = (
            f"the archive {name} is locked by another program (waited {_waited()}): "
            "try again when it has finished"
        )
    elif code == sqlite3.SQLITE_READONLY:
        text = f"the archive {name} cannot be written (a read-only file or medium: {message})"
    elif code == sqlite3.SQLITE_FULL:
        text = f"the archive {name} cannot grow: the disk is full"
    elif (
        code == sqlite3.SQLITE_CANTOPEN
        and Path(name).is_file()
        and _on_read_only_medium(Path(name))
    ):
        text = (
            f"the archive {name} cannot be written (it is on a read-only medium, or in "
            f"a folder you cannot write to: {message})"
        )
    elif code == sqlite3.SQLITE_CANTOPEN:
        text = f"cannot open the archive {name} ({message})"
    elif code in (sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH):
        text = f"the archive {name}: permission denied ({message})"
    elif code == sqlite3.SQLITE_IOERR:
        text = f"the archive {name} cannot be read or written: disk I/O error ({message})"
    else:
        text = f"the archive {name}: {message}"
    return ArchiveError(text)


def _waited() -> str:
    """:data:`BUSY_TIMEOUT` in words: ``10 min``, ``0.2 s``."""
    if BUSY_TIMEOUT >= 60 and BUSY_TIMEOUT % 60 == 0:
        return f"{BUSY_TIMEOUT / 60:g} min"
    return f"{BUSY_TIMEOUT:g} s"


def archive_errors(function: Callable[..., _Result]) -> Callable[..., _Result]:
    """Decorate a library function that takes the archive as its ``target``
    argument: a ``sqlite3.Error`` escaping it becomes an :class:`ArchiveError`
    naming that archive."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> _Result:
        try:
            return function(*args, **kwargs)
        except sqlite3.Error as error:
            target = signature.bind_partial(*args, **kwargs).arguments.get("target")
            raise archive_error(error, archive_name(target)) from None

    return wrapper


def archive_name(target: Any) -> str:
    """How messages name the archive ``target`` (a path, or an open :class:`Archive`)."""
    if isinstance(target, str | Path):
        return str(target)
    if isinstance(target, Archive):
        return target.name
    conn = getattr(target, "conn", None)
    if conn is not None:
        try:
            for _, schema, file in conn.execute("PRAGMA database_list"):
                if schema == "main":
                    return file or ":memory:"
        except sqlite3.Error:
            pass
    return "(open database)"
