"""Migration steps after the first (:data:`partita.database.schema.MIGRATIONS` names
them; each runs inside the migration's transaction).

Version 2: ``positions`` indexed by game (deleting or copying a game's positions
reads its rows only, not the whole table; ``problems`` has had ``problems_game``
since version 1), and ``games.twin_key`` (see :mod:`partita.database.twinkey`),
filled for the games already stored and indexed, so finding twins is a
``GROUP BY`` on an index.

Version 8: position keys fold the game's set-up (:func:`partita.database.keys.prefix_for`:
unchanged for a game's default set-up). The games of other set-ups (more sides
than the fewest, a setting away from its default) are replayed from their stored
text and their ``positions``, ``game_positions`` and ``variation_positions`` rows
written again with the new keys. The games of a game whose package is not
installed when the archive migrates keep the keys of the default set-up (nothing
can replay them): delete them and import them again with the package installed.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlite_utils import Database

from partita.database.twinkey import row_twin_key

__all__ = ["upgrade_to_v2", "upgrade_to_v8"]

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


def upgrade_to_v8(db: Database, progress: Callable[[int, int], object] | None = None) -> None:
    """The positions of the games of a set-up other than their game's default
    folded again with the set-up (see the module docstring), inside the
    migration's transaction. ``progress(done, total)`` counts the games looked at."""
    from partita.database.archive_writer import insert_positions
    from partita.database.indexed import delete_positions, loading_pending
    from partita.database.prepare import StoredRecord, prepare_record, variation_rows
    from partita.database.variations import VARIATIONS_INSERT, delete_variations
    from partita.errors import PartitaError
    from partita.game.configuration import Configuration
    from partita.game.registry import get_game
    from partita.notation.model import SourceRef
    from partita.notation.reader import parse_record
    from partita.notation.replay import replay

    conn = db.conn
    pending = None
    if loading_pending(conn):  # a stopped bulk import: its games are in game_positions only
        row = conn.execute("SELECT first_game_id FROM positions_pending").fetchone()
        pending = row[0] if row else None
    names = [
        row[0] for row in conn.execute("SELECT DISTINCT game FROM games WHERE game IS NOT NULL")
    ]
    settings: dict[str, list[str]] = {}
    for name in names:
        try:
            notation = get_game(name)
        except PartitaError:
            continue  # a game this partita does not know: its keys stay
        rules = notation.rules
        if rules.min_sides < rules.max_sides or any(not spec.cosmetic for spec in rules.tags):
            settings[name] = [spec.name for spec in rules.tags if not spec.cosmetic]
    total = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    if not settings:
        if progress is not None:
            progress(total, total)
        return
    marks = ", ".join("?" * len(settings))
    last = 0
    while batch := conn.execute(
        "SELECT id, game, sides, tags, pgr, source_file, source_index, source_line, "
        f"source_offset FROM games WHERE id > ? AND game IN ({marks}) ORDER BY id LIMIT ?",
        [last, *settings, _FILL_BATCH],
    ).fetchall():
        last = batch[-1][0]
        for game_id, name, sides, tags_json, text, file, index, line, offset in batch:
            notation = get_game(name)
            tags = json.loads(tags_json) if tags_json else {}
            configuration = Configuration.of(notation, sides or notation.rules.min_sides, tags)
            if configuration.is_default:
                continue
            source = SourceRef(file or f"archive:{game_id}", index or 0, line or 1, offset or 0)
            stored = prepare_record(replay(parse_record(text, source=source)), strict=False)
            if not isinstance(stored, StoredRecord):
                continue
            delete_positions(conn, [game_id])
            delete_variations(conn, [game_id])
            bulk = pending is not None and game_id >= pending
            insert_positions(conn, game_id, json.dumps([stored.keys]), bulk=bulk)
            conn.executemany(VARIATIONS_INSERT, variation_rows(game_id, stored.variations))
        if progress is not None:  # the games looked at: every game up to the last re-keyed
            progress(
                conn.execute("SELECT count(*) FROM games WHERE id <= ?", (last,)).fetchone()[0],
                total,
            )
    if progress is not None:
        progress(total, total)
