"""Changing what the archive holds: deleting games, setting and removing tags.

Each change is one transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``): a game goes
with its positions, variation positions and problems, or nothing changes. A game's
rows are found through ``game_positions`` (and its ``positions`` rows by their
primary key from there), ``variation_positions_game`` and ``problems_game``, never
by reading a whole table.

A tag change edits the record's stored text (the tag pair in place, a new one after
the last tag, the result token with ``Result``), then stores the record again
exactly as an import would (:func:`partita.database.prepare.prepare_record`): the
canonical text, its content hash, the ``games`` columns, positions, variation
positions and problems all stay true. A valid game that the change would make invalid is refused, and so
is a change that would make the game a duplicate of another.
"""

from __future__ import annotations

import io
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from partita.database.archive_writer import insert_positions
from partita.database.connection import archive_error
from partita.database.filters import GameFilter
from partita.database.hashkey import game_ids_with_hash, hash_key
from partita.database.indexed import delete_positions, index_games, unindex_games
from partita.database.prepare import StoredRecord, prepare_record, variation_rows
from partita.database.query import select_games
from partita.database.schema import (
    GAME_COLUMNS,
    HASH_KEY_COLUMN,
    PROBLEM_COLUMNS,
    archive,
    open_archive,
)
from partita.database.variations import VARIATIONS_INSERT, delete_variations
from partita.errors import ArchiveError
from partita.notation.model import SourceRef
from partita.notation.problems import ERROR
from partita.notation.reader import RecordBuilder, parse_record, visit_records
from partita.notation.replay import replay

__all__ = [
    "Deletion",
    "TagChange",
    "delete_games",
    "matching_games",
    "set_tag",
    "unset_tag",
    "write_transaction",
]

#: Ids per statement when looking games up (SQLite before 3.32 allows 999 parameters).
_CHUNK = 900


@contextmanager
def write_transaction(db: Database) -> Iterator[sqlite3.Connection]:
    """One transaction holding the write lock from its start (so a concurrent import
    waits instead of failing half-way): committed at the end, rolled back on any
    exception."""
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _chunks(values: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start : start + _CHUNK]


def _has_filter(filters: dict[str, Any]) -> bool:
    """Whether the keyword filters (a ``selection`` among them) choose anything."""
    return bool(GameFilter.of(**filters))


def _existing_ids(conn: sqlite3.Connection, ids: Sequence[int]) -> set[int]:
    found: set[int] = set()
    for chunk in _chunks(ids):
        marks = ", ".join("?" * len(chunk))
        found.update(
            row[0] for row in conn.execute(f"SELECT id FROM games WHERE id IN ({marks})", chunk)
        )
    return found


def _missing(ids: Iterable[int]) -> ArchiveError:
    missing = sorted(set(ids))
    if len(missing) == 1:
        return ArchiveError(f"there is no game {missing[0]} in the archive")
    shown = ", ".join(str(game_id) for game_id in missing[:10])
    more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
    return ArchiveError(f"there are no games {shown}{more} in the archive")


def matching_games(
    target: str | Path | Database, ids: Sequence[int] | None = None, **filters: Any
) -> list[int]:
    """The ids, in order, of the games named by ``ids`` (each must exist) and
    matching ``filters`` (those of :func:`partita.database.query_games`): the
    games :func:`delete_games` would delete. Naming no game at all (no id, no
    filter) is an error, so that nothing is ever chosen by accident."""
    ids = list(ids or ())
    if not ids and not _has_filter(filters):
        raise ArchiveError("name the games: their ids, or filters such as --game or --event")
    with archive(target, readonly=True) as db:
        if ids:
            found = _existing_ids(db.conn, ids)
            if len(found) < len(set(ids)):
                raise _missing(set(ids) - found)
            if not _has_filter(filters):
                return sorted(found)
        chosen = [row["id"] for row in select_games(db, "g.id", **filters)]
    if ids:
        return [game_id for game_id in chosen if game_id in found]
    return chosen


@dataclass(frozen=True, slots=True)
class Deletion:
    """What a deletion removed: the games' ids, and how many positions,
    problems and variation positions rows went with them."""

    games: list[int]
    positions: int
    problems: int
    variation_positions: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def delete_rows(conn: sqlite3.Connection, ids: Sequence[int]) -> Deletion:
    """Delete games with their positions and problems, inside the caller's
    transaction (each by an index on ``game_id``)."""
    keyed = [(game_id,) for game_id in ids]
    unindex_games(conn, list(ids))
    variations = delete_variations(conn, list(ids))
    positions = delete_positions(conn, list(ids))
    problems = conn.executemany("DELETE FROM problems WHERE game_id = ?", keyed).rowcount
    conn.executemany("DELETE FROM games WHERE id = ?", keyed)
    return Deletion(list(ids), positions, problems, variations)


def delete_games(target: str | Path | Database, ids: Sequence[int]) -> Deletion:
    """Delete the games ``ids`` with their positions and problems, in one
    transaction; every id must exist (else nothing is deleted)."""
    ids = sorted(set(ids))
    with _read_first(target) as reading:  # a refusal leaves the file as it was
        if reading is not None:
            found = _existing_ids(reading.conn, ids)
            if len(found) < len(ids):
                raise _missing(set(ids) - found)
    with archive(target, create=False) as db, write_transaction(db) as conn:
        found = _existing_ids(conn, ids)
        if len(found) < len(ids):
            raise _missing(set(ids) - found)
        return delete_rows(conn, ids)


# -- tags ------------------------------------------------------------------------------------

_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_RESULT = re.compile(r"\*|(?:1/2|[01])(?:-(?:1/2|[01]))+")


@dataclass(frozen=True, slots=True)
class TagChange:
    """One tag of a stored game changed: its value ``before`` and ``after`` (``None``:
    absent), the game's ``status`` afterwards, and whether its stored text (and so
    its content hash) changed."""

    id: int
    tag: str
    before: str | None
    after: str | None
    status: str
    changed: bool
    hash: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _TagPlaces(RecordBuilder):
    """Builds the record and notes where each tag pair starts in its text."""

    def begin_record(self, source: SourceRef, text: str) -> None:
        super().begin_record(source, text)
        self.places: dict[str, int] = {}

    def visit_tag(self, name: str, value: str, offset: int) -> None:
        super().visit_tag(name, value, offset)
        self.places[name] = offset

    def result(self) -> Any:
        return self.record, self.places


_TAG_PAIR = re.compile(r'\[[ \t]*[A-Za-z][A-Za-z0-9_]*[ \t]*"(?:[^"\\\n]|\\["\\])*"[ \t]*\]')


def _tag_pair(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def _edited_text(text: str, name: str, value: str | None) -> tuple[str, str | None]:
    """``text`` with tag ``name`` set to ``value`` (``None``: removed), and the
    value it had (``None``: absent)."""
    record, places = next(iter(visit_records(io.StringIO(text), _TagPlaces, name="<archive>")))
    before = record.tags.get(name)
    # Keep the movetext's result token equal to the tag (tags come before it, so
    # their places stay where they are).
    if (
        name == "Result"
        and value is not None
        and record.result_offset >= 0
        and _RESULT.fullmatch(value)
    ):
        start = record.result_offset
        text = text[:start] + value + text[start + len(record.result or "") :]
    if name in places:
        start = places[name]
        match = _TAG_PAIR.match(text, start)
        assert match is not None, "the reader visited a well-formed tag pair here"
        end = match.end()
        if value is not None:
            return text[:start] + _tag_pair(name, value) + text[end:], before
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        if not text[line_start:start].strip() and not text[end:line_end].strip():
            return text[:line_start] + text[line_end + 1 :], before
        return text[:start] + text[end:], before
    if value is None:
        return text, before
    if places:
        last = max(places.values())
        match = _TAG_PAIR.match(text, last)
        assert match is not None
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end < 0 else line_end
        return text[:line_end] + "\n" + _tag_pair(name, value) + text[line_end:], before
    return _tag_pair(name, value) + "\n" + text, before


def _check_tag(name: str, value: str | None) -> None:
    if not _TAG_NAME.fullmatch(name):
        raise ArchiveError(
            f"tag name '{name}' is not a letter followed by letters, digits or _ (Event, Player1Elo)"
        )
    if value is not None and ("\n" in value or "\r" in value):
        raise ArchiveError(f"the value of tag {name} must be one line")


_UPDATED = [
    column for column in GAME_COLUMNS if column != "id" and not column.startswith("source_")
]
_UPDATE_GAME = (
    f"UPDATE games SET {', '.join(f'{column} = ?' for column in (*_UPDATED, HASH_KEY_COLUMN))} "
    "WHERE id = ?"
)
_ROW_INDEX = [GAME_COLUMNS.index(column) - 1 for column in _UPDATED]  # the row has no id
_PROBLEMS_INSERT = (
    f"INSERT INTO problems ({', '.join(f'[{name}]' for name in PROBLEM_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(PROBLEM_COLUMNS))})"
)


def _store_again(conn: sqlite3.Connection, game_id: int, stored: StoredRecord) -> None:
    """Replace game ``game_id``'s row (all but its id and source), positions and
    problems by those of ``stored``."""
    row = stored.game
    conn.execute(
        _UPDATE_GAME, [row[index] for index in _ROW_INDEX] + [hash_key(stored.hash), game_id]
    )
    unindex_games(conn, [game_id])
    index_games(conn, game_id, game_id)
    delete_positions(conn, [game_id])
    conn.execute("DELETE FROM problems WHERE game_id = ?", (game_id,))
    delete_variations(conn, [game_id])
    conn.executemany(VARIATIONS_INSERT, sorted(variation_rows(game_id, stored.variations)))
    insert_positions(conn, game_id, str([stored.keys]), bulk=False)
    conn.executemany(_PROBLEMS_INSERT, [(game_id, *problem) for problem in stored.problems])


def _change_tag(
    target: str | Path | Database, game_id: int, name: str, value: str | None
) -> TagChange:
    _check_tag(name, value)
    # Refusals and changes that change nothing are found reading only, so that
    # they leave the file as it was (opening it to write changes its header).
    with _read_first(target) as reading:
        if reading is not None:
            planned = _planned_tag_change(reading.conn, game_id, name, value)
            if not isinstance(planned, tuple):
                return planned
    with archive(target, create=False) as db, write_transaction(db) as conn:
        planned = _planned_tag_change(conn, game_id, name, value)
        if not isinstance(planned, tuple):
            return planned
        before, digest, stored = planned
        _store_again(conn, game_id, stored)
        return TagChange(
            game_id,
            name,
            before,
            value,
            "valid" if stored.valid else "invalid",
            stored.hash != digest,
            stored.hash,
        )


@contextmanager
def _read_first(target: str | Path | Database) -> Iterator[Database | None]:
    """The archive at the path ``target`` opened read-only, to look before writing;
    ``None`` when it cannot be read as it is (an open ``Database``, a missing file, an
    archive that needs a migration: the writing pass says or does what is needed)."""
    if not isinstance(target, str | Path) or str(target) == ":memory:":
        yield None
        return
    try:
        db = open_archive(target, readonly=True)
    except ArchiveError:
        yield None
        return
    try:
        yield db
    except sqlite3.Error as error:
        raise archive_error(error, str(target)) from None
    finally:
        db.close()


def _planned_tag_change(
    conn: sqlite3.Connection, game_id: int, name: str, value: str | None
) -> TagChange | tuple[str | None, str, StoredRecord]:
    """What setting (``value``) or removing (``None``) a tag of game ``game_id``
    does: an ``ArchiveError`` when it is refused, the :class:`TagChange` when it
    changes nothing, else the value before, the hash before and the record to store."""
    found = conn.execute(
        "SELECT pgr, status, hash, source_file, source_index, source_line, source_offset "
        "FROM games WHERE id = ?",
        (game_id,),
    ).fetchone()
    if found is None:
        raise _missing([game_id])
    text, status, digest, file, index, line, offset = found
    edited, before = _edited_text(text, name, value)
    if value is None and before is None:
        raise ArchiveError(f"game {game_id} has no tag {name}")
    if before == value:
        return TagChange(game_id, name, before, value, status, False, digest)
    source = SourceRef(file or f"archive:{game_id}", index or 0, line or 1, offset or 0)
    replayed = replay(parse_record(edited, source=source))
    stored = prepare_record(replayed, strict=False)
    assert isinstance(stored, StoredRecord), "a lenient preparation refuses nothing"
    if status == "valid" and not stored.valid:
        error = next(problem for problem in replayed.problems if problem.severity == ERROR)
        action = f"setting {name} to '{value}'" if value is not None else f"removing {name}"
        raise ArchiveError(f"game {game_id}: {action} would make the game invalid: {error.message}")
    if stored.hash != digest:
        # Under the write lock (write_transaction): partita.database.hashkey.
        same = [other for other in game_ids_with_hash(conn, stored.hash) if other != game_id]
        if same:
            raise ArchiveError(
                f"game {game_id} would become the same record as game {same[0]} "
                f"(delete one of them instead: partita delete {game_id})"
            )
    return before, digest, stored


def set_tag(target: str | Path | Database, game_id: int, name: str, value: str) -> TagChange:
    """Give game ``game_id``'s tag ``name`` the value ``value`` (added if absent;
    ``Result`` changes the movetext's result token too), in one transaction."""
    return _change_tag(target, game_id, name, value)


def unset_tag(target: str | Path | Database, game_id: int, name: str) -> TagChange:
    """Remove tag ``name`` from game ``game_id`` (an error if it has none), in one
    transaction."""
    return _change_tag(target, game_id, name, None)
