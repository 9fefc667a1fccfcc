"""A record named the way a user names one: a record file (``-``: standard input)
and the record's place in it, or the id of a game in the archive.

``show``, ``annotate``, ``endgame`` and ``novelty`` take such a source; so can any
program: ``load_record("games.pgr", "partita.db", index=2)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from partita.errors import PartitaError

if TYPE_CHECKING:
    from partita.notation.model import Record

__all__ = ["LARGEST_ID", "SourceError", "game_id_of", "load_record", "load_records"]

#: The largest game id: the largest integer SQLite stores.
LARGEST_ID = 2**63 - 1


class SourceError(PartitaError, ValueError):
    """A source of the wrong kind: a folder, or a number past every game id."""


def _is_file(source: str | Path) -> bool:
    from partita.notation.inputs import is_stdin

    return is_stdin(source) or Path(source).is_file()


def game_id_of(source: str | Path) -> int | None:
    """The archive game ``source`` names (digits that name no file), else ``None``;
    :class:`SourceError` for a number past every game id."""
    text = str(source)
    if _is_file(source) or not text.isdigit():
        return None
    if int(text) > LARGEST_ID:
        raise SourceError(f"{text} is no game id (they go up to {LARGEST_ID})")
    return int(text)


def load_records(source: str | Path, archive: str | Path, index: int | None = None) -> list[Record]:
    """The records ``source`` names: every record of a file (a file without one
    is an error) or only its ``index``-th (from 0), or the game of that id in the
    archive at path ``archive`` (opened read-only, and only then). ``PartitaError`` naming the source when there is no such record, file or
    game; :class:`SourceError` for a folder or an impossible id."""
    from partita.notation.reader import read_records

    if _is_file(source):
        path = Path(source)
        if index is None:
            records = list(read_records(path))
            if not records:
                raise PartitaError(f"{source}: there is no record in it")
            return records
        for position, record in enumerate(read_records(path)):
            if position == index:
                return [record]
        raise PartitaError(f"{source}: there is no record {index} (records count from 0)")
    game_id = game_id_of(source)
    if game_id is not None:
        from partita.database.query import get_record
        from partita.database.schema import archive as opened_archive

        with opened_archive(archive, readonly=True) as opened:
            return [get_record(opened, game_id)]
    path = Path(source)
    if path.is_dir():
        inside = sorted(path.glob("*.pgr"))
        example = f" such as {inside[0]}" if inside else ""
        raise SourceError(
            f"{source} is a folder: name one of its record files{example}, or import it "
            "(partita import FOLDER) and give a game's id"
        )
    raise PartitaError(f"{source}: no such file, and not a game id")


def load_record(source: str | Path, archive: str | Path, index: int = 0) -> Record:
    """The ``index``-th record (from 0) of a record file, or the archive's game
    ``source`` names by id (see :func:`load_records`)."""
    return load_records(source, archive, index)[0]
