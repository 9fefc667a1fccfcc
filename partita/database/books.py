"""The ``book`` table: opening books, in the archive or in a book file of their own.

One row per folded position of one set-up of a game (see ``docs/selfplay.md``)::

    game      TEXT     the `Game` tag
    setup     TEXT     the set-up: sides, the game's settings, a digest of its start
    kind      TEXT     'exact' (scores by search) or 'statistics' (moves played)
    key       BLOB     the position's canonical key (all symmetries folded), encoded
                       as partita.database.keys.encode_key does: exact, no hash
    ply       INTEGER  plies from the start of the game to the position
    position  TEXT     the position (the game's notation) the moves are written for
    score     INTEGER  exact: the score for the side to move; NULL: not solved
    moves     TEXT     JSON: exact [[token, score], ...] in the engine's move order;
                       statistics [[token, games, won, drawn, lost], ...] for the mover
    games     INTEGER  statistics: games that reached the position
    budget    INTEGER  exact, unsolved: the node budget that was not enough (NULL: none)
    nodes     INTEGER  exact: nodes searched for this position (NULL: backed up from
                       its children's scores, no search)
    seconds   REAL     exact: seconds spent on it

``PRIMARY KEY (game, setup, kind, key)``, ``WITHOUT ROWID``: a look-up is one range
of the key. A book file is an SQLite file holding just this table; an archive
gets it through its migrations (:mod:`partita.database.schema`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from partita.errors import ArchiveError

__all__ = [
    "BOOK_COLUMNS",
    "BOOK_TABLE",
    "create_book_table",
    "open_book_file",
    "read_book",
    "write_rows",
]

BOOK_TABLE = "book"
BOOK_COLUMNS: tuple[str, ...] = (
    "game",
    "setup",
    "kind",
    "key",
    "ply",
    "position",
    "score",
    "moves",
    "games",
    "budget",
    "nodes",
    "seconds",
)

_CREATE = (
    "CREATE TABLE IF NOT EXISTS book (\n"
    "   game TEXT NOT NULL,\n"
    "   setup TEXT NOT NULL,\n"
    "   kind TEXT NOT NULL,\n"
    "   key BLOB NOT NULL,\n"
    "   ply INTEGER NOT NULL,\n"
    "   position TEXT NOT NULL,\n"
    "   score INTEGER,\n"
    "   moves TEXT NOT NULL,\n"
    "   games INTEGER,\n"
    "   budget INTEGER,\n"
    "   nodes INTEGER,\n"
    "   seconds REAL,\n"
    "   PRIMARY KEY (game, setup, kind, key)\n"
    ") WITHOUT ROWID"
)


def create_book_table(db) -> None:
    """Make the ``book`` table (an archive's migration, or a new book file);
    ``db`` is a sqlite-utils ``Database`` or a ``sqlite3`` connection."""
    db.execute(_CREATE)


def _is_book(connection: sqlite3.Connection) -> bool:
    found = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (BOOK_TABLE,)
    ).fetchone()
    return found is not None


@contextmanager
def open_book_file(path: str | Path) -> Iterator[sqlite3.Connection]:
    """A book file (or an archive) opened for writing, its ``book`` table made if
    missing; ``ArchiveError`` when the file is no SQLite database."""
    name = str(path)
    try:
        connection = sqlite3.connect(name, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        create_book_table(connection)
    except sqlite3.DatabaseError as error:
        raise ArchiveError(f"{name} is not a usable book file: {error}") from None
    try:
        yield connection
    finally:
        connection.close()


@contextmanager
def read_book(path: str | Path) -> Iterator[sqlite3.Connection | None]:
    """A book file or an archive opened read-only (nothing is written, not even a
    journal), or ``None`` when it has no ``book`` table; ``ArchiveError`` when the
    file is missing or no SQLite database."""
    name = str(path)
    if not Path(name).is_file():
        raise ArchiveError(f"no book at {name}")
    try:
        connection = sqlite3.connect(f"{Path(name).resolve().as_uri()}?mode=ro", uri=True)
        has_table = _is_book(connection)
    except sqlite3.DatabaseError as error:
        raise ArchiveError(f"{name} is not a usable book file: {error}") from None
    try:
        yield connection if has_table else None
    finally:
        connection.close()


def write_rows(
    connection: sqlite3.Connection,
    rows: Iterable[tuple],
    *,
    replacing: tuple[str, str, str] | None = None,
) -> int:
    """Store book rows (in :data:`BOOK_COLUMNS` order) in one transaction, replacing
    the rows of the same positions, and first every row of one ``(game, setup,
    kind)`` when ``replacing`` names one; returns how many rows were stored."""
    rows = list(rows)
    if not rows and replacing is None:
        return 0
    marks = ", ".join("?" * len(BOOK_COLUMNS))
    connection.execute("BEGIN IMMEDIATE")
    try:
        if replacing is not None:
            connection.execute(
                "DELETE FROM book WHERE game = ? AND setup = ? AND kind = ?", replacing
            )
        connection.executemany(
            f"INSERT OR REPLACE INTO book ({', '.join(BOOK_COLUMNS)}) VALUES ({marks})", rows
        )
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    return len(rows)
