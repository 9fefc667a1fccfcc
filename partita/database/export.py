"""Exporting games from the archive as PGR text.

Each game is written as the archive stores it: records without problems in
canonical form, records with problems as they were written (so that importing the
export again finds the same problems; see :func:`partita.database.importer.stored_text`).
``canonical=True`` rewrites those through the canonical writer as well. Records are
separated by one blank line; the output streams (one row in memory at a time).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from sqlite_utils import Database

from partita.database.filters import GameFilter
from partita.database.query import select_games
from partita.database.schema import archive

__all__ = ["PROGRESS_EVERY", "export_games"]

#: Games written between two calls of the progress callback.
PROGRESS_EVERY = 100


def export_games(
    target: str | Path | Database,
    stream: TextIO,
    *,
    canonical: bool = False,
    progress: Callable[[int], object] | None = None,
    selection: GameFilter | None = None,
    limit: int | None = None,
    **filters: Any,
) -> int:
    """Write the games of ``selection`` narrowed by the keyword ``filters`` (those of
    :meth:`partita.database.filters.GameFilter.of`), at most ``limit``, to ``stream``, by
    id; return how many were written. ``progress`` is called with the number
    written so far, every :data:`PROGRESS_EVERY` games and at the end."""
    count = 0
    with archive(target, readonly=True) as db:
        chosen = GameFilter.of(selection, **filters)
        columns = "g.id, g.pgr, g.status, g.game"
        for row in select_games(db, columns, selection=chosen, limit=limit):
            text = row["pgr"]
            if canonical:
                text = _canonical(text, row["id"])
            if count:
                stream.write("\n")
            stream.write(text if text.endswith("\n") else text + "\n")
            count += 1
            if progress is not None and count % PROGRESS_EVERY == 0:
                progress(count)
    if progress is not None:
        progress(count)
    return count


def _canonical(text: str, game_id: int) -> str:
    """The canonical writer's form of a stored text (unchanged for a clean record)."""
    import io

    from partita.errors import PartitaError
    from partita.games.registry import get_game
    from partita.notation.reader import read_records
    from partita.notation.writer import write_record

    for record in read_records(io.StringIO(text), name=f"archive:{game_id}"):
        try:
            game = get_game(record.game).configure(record.tags) if record.game else None
        except PartitaError:
            game = None
        try:
            return write_record(record, game)
        except PartitaError:
            return text
    return text
