"""Faults and probes put into an archive through its public seam, the SQLite file
itself: a trigger makes an insert fail half-way through a batch (as a full disk or
a pulled cable would), or notes what the writing connection's page cache was while
a table was written. No code of partita is replaced, so a test that uses them
keeps passing when the writer's insides are renamed or rearranged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from partita.database import open_archive


def _connect(archive: Path) -> sqlite3.Connection:
    if not Path(archive).exists():
        open_archive(archive).close()  # a new, empty archive to put the trigger in
    return sqlite3.connect(archive)


def refuse_inserts(
    archive: Path, table: str, when: str = "1", message: str = "disk unplugged"
) -> None:
    """From now on, inserting a row into ``table`` of ``archive`` where ``when``
    holds (an SQL condition on ``NEW``) fails with ``message``, which the writer
    reports as an :class:`~partita.errors.ArchiveError`; :func:`allow_inserts` ends
    it. The archive is made first if it does not exist."""
    conn = _connect(archive)
    try:
        conn.execute(
            f"CREATE TRIGGER fault_{table} BEFORE INSERT ON {table} WHEN {when} "
            f"BEGIN SELECT RAISE(ABORT, '{message}'); END"
        )
        conn.commit()
    finally:
        conn.close()


def allow_inserts(archive: Path, table: str) -> None:
    """Undo :func:`refuse_inserts`."""
    conn = sqlite3.connect(archive)
    try:
        conn.execute(f"DROP TRIGGER fault_{table}")
        conn.commit()
    finally:
        conn.close()


def watch_cache_sizes(archive: Path, table: str) -> None:
    """From now on, note the page cache size (``PRAGMA cache_size``) of every
    connection that inserts into ``table`` of ``archive``; :func:`cache_sizes` reads
    them. The archive is made first if it does not exist."""
    conn = _connect(archive)
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS probe_cache_sizes (size INTEGER UNIQUE)")
        conn.execute(
            f"CREATE TRIGGER probe_{table} AFTER INSERT ON {table} BEGIN "
            "INSERT OR IGNORE INTO probe_cache_sizes SELECT cache_size FROM pragma_cache_size(); "
            "END"
        )
        conn.commit()
    finally:
        conn.close()


def cache_sizes(archive: Path) -> set[int]:
    """The page cache sizes :func:`watch_cache_sizes` noted."""
    conn = sqlite3.connect(archive)
    try:
        return {size for (size,) in conn.execute("SELECT size FROM probe_cache_sizes")}
    finally:
        conn.close()
