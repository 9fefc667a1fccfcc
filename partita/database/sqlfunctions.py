"""Python functions registered on SQLite connections, with Ctrl-C kept visible.

SQLite calls these functions (names folded for matching, tag values as numbers,
``REGEXP``, patterns) while a statement runs. A Ctrl-C that lands inside one
reaches the caller as ``sqlite3.OperationalError: user-defined function raised
exception``, not as ``KeyboardInterrupt``; :func:`register` notes it, so that the
CLI's error boundary reports an interrupt (exit 130), not an archive error.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

__all__ = ["register", "register_indexing_functions", "was_interrupted"]

_interrupted = False


def register(conn: sqlite3.Connection, name: str, arity: int, function: Callable[..., Any]) -> None:
    """``function`` as the deterministic SQL function ``name`` of ``conn``."""

    def guarded(*args: Any) -> Any:
        global _interrupted
        try:
            return function(*args)
        except KeyboardInterrupt:
            _interrupted = True
            raise

    conn.create_function(name, arity, guarded, deterministic=True)


def was_interrupted() -> bool:
    """Whether a Ctrl-C has stopped one of these functions in this process."""
    return _interrupted


def register_indexing_functions(conn: sqlite3.Connection) -> None:
    """``partita_fold`` (a name folded for accent- and case-insensitive matching)
    and ``partita_number`` (a tag value as a number): what filling the indexed
    players and tags needs, and what their filters compare with."""
    from partita.database.folding import fold, number

    register(conn, "partita_fold", 1, fold)
    register(conn, "partita_number", 1, number)
