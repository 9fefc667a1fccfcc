"""Migration steps after the first (:data:`partita.database.schema.MIGRATIONS` names
them; each runs inside the migration's transaction).

Version 2: ``positions`` indexed by game (deleting or copying a game's positions
reads its rows only, not the whole table; ``problems`` has had ``problems_game``
since version 1), and ``games.twin_key`` (see :mod:`partita.database.twinkey`),
filled for the games already stored and indexed, so finding twins is a
``GROUP BY`` on an index.
"""

from __future__ import annotations

from sqlite_utils import Database

from partita.database.twinkey import row_twin_key

__all__ = ["upgrade_to_v2"]

#: Rows read and updated at a time while filling ``twin_key``.
_FILL_BATCH = 5000


def upgrade_to_v2(db: Database) -> None:
    """Add ``positions_game``, ``games.twin_key`` (filled) and ``games_twin``."""
    conn = db.conn
    conn.execute("CREATE INDEX IF NOT EXISTS positions_game ON positions(game_id)")
    conn.execute("CREATE INDEX IF NOT EXISTS problems_game ON problems(game_id)")
    conn.execute("ALTER TABLE games ADD COLUMN twin_key INTEGER")
    last = 0
    while batch := conn.execute(
        "SELECT id, game, sides, tags, moves, status FROM games "
        "WHERE id > ? AND status = 'valid' ORDER BY id LIMIT ?",
        (last, _FILL_BATCH),
    ).fetchall():
        last = batch[-1][0]
        conn.executemany(
            "UPDATE games SET twin_key = ? WHERE id = ?",
            [
                (key, game_id)
                for game_id, game, sides, tags, moves, status in batch
                if (key := row_twin_key(game, sides, tags, moves, status)) is not None
            ],
        )
    conn.execute("CREATE INDEX games_twin ON games(twin_key)")
