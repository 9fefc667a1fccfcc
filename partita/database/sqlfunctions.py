"""Python functions registered on SQLite connections.

SQLite calls these functions (names folded for matching, tag values as numbers,
``REGEXP``, patterns) while a statement runs. A Ctrl-C that lands inside one
reaches the caller as ``sqlite3.OperationalError: user-defined function raised
exception``, not as ``KeyboardInterrupt``: the CLI's SIGINT handler notes the
Ctrl-C before it raises, so that its error boundary reports an interrupt (exit
130), not an archive error. (A guard around each function could not: Python
handles a pending signal as a function starts, before any ``try`` in it.)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

__all__ = ["fold_sql", "number_sql", "register", "register_indexing_functions"]


def register(conn: sqlite3.Connection, name: str, arity: int, function: Callable[..., Any]) -> None:
    """``function`` as the deterministic SQL function ``name`` of ``conn``."""
    conn.create_function(name, arity, function, deterministic=True)


def register_indexing_functions(conn: sqlite3.Connection) -> None:
    """``partita_fold`` (a name folded for accent- and case-insensitive matching)
    and ``partita_number`` (a tag value as a number): what filling the indexed
    players and tags needs, and what their filters compare with."""
    from partita.database.folding import fold, number

    register(conn, "partita_fold", 1, fold)
    register(conn, "partita_number", 1, number)


def fold_sql(column: str) -> str:
    """An SQL expression equal to ``partita_fold(column)`` that calls Python only
    for names with a byte outside ASCII (or a NUL): for the others :func:`fold` is
    SQLite's ``lower`` (NFKD leaves ASCII as it is, and ``casefold`` of ASCII is
    ``lower``). ``length`` counts characters before the first NUL, the blob's
    bytes: equal only for ASCII. A Python call per row cost ~3 us of a ~0.2 us
    ``lower`` (benchmarks/results/2026-12-02-import.md)."""
    return (
        f"CASE WHEN length(CAST({column} AS BLOB)) = length({column}) "
        f"THEN lower({column}) ELSE partita_fold({column}) END"
    )


def number_sql(column: str) -> str:
    """An SQL expression equal to ``partita_number(column)`` that calls Python only
    for the values it cannot settle: NULL for a value holding a character no number
    written as :func:`~partita.database.folding.number` reads one can hold (an ASCII
    letter other than ``e``/``E``, ``_ : / ,``), two dots (a date), or a ``-`` after
    a digit or a dot (a result: ``0-1``); ``CAST ... AS REAL`` for 1 to 15 ASCII
    digits (exact in a double, as ``float`` gives it); else the Python function.
    Each test reads the value again, so the common refusals come first."""
    return (
        f"CASE WHEN {column} GLOB '*[a-df-zA-DF-Z_:/,]*' THEN NULL "
        f"WHEN {column} GLOB '*.*.*' THEN NULL "
        f"WHEN {column} GLOB '*[0-9.]-*' THEN NULL "
        f"WHEN {column} NOT GLOB '*[^0-9]*' AND length({column}) BETWEEN 1 AND 15 "
        f"THEN CAST({column} AS REAL) "
        f"ELSE partita_number({column}) END"
    )
