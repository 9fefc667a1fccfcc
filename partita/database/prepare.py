"""What an import stores of a record, computed outside the archive and any
transaction: in the importing process, or in a worker process of a parallel import
(:mod:`partita.bulk`).

This module imports nothing of SQLite (nor sqlite-utils, which imports numpy), so a
worker process starts in a fraction of the time: it needs the reader, the replay,
the canonical writer and the key folding, nothing else.
:mod:`~partita.database.archive_writer` writes what it computes.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from partita.database.keys import KeyListFolder, key_list_folder
from partita.database.twinkey import twin_key
from partita.errors import PartitaError
from partita.game.configuration import Configuration
from partita.notation.problems import Problem
from partita.notation.replay import ReplayedRecord, count_sides

if TYPE_CHECKING:
    from partita.game.notation import GameNotation

__all__ = [
    "ProblemRow",
    "Refusal",
    "StoredRecord",
    "StoredVariation",
    "archive_folder",
    "date_bounds",
    "prepare_record",
    "stored_text",
    "stored_variations",
    "variation_rows",
]


@dataclass(slots=True)
class Refusal:
    """A record refused in strict mode: where it is and why."""

    file: str
    index: int
    line: int
    problems: list[Problem]

    def as_dict(self) -> dict:
        return {
            "file": self.file,
            "index": self.index,
            "line": self.line,
            "problems": [problem.as_dict() for problem in self.problems],
        }


# -- what is stored of a record --------------------------------------------------------

_DATE = re.compile(r"(\d{4}|\?{4})\.(\d{2}|\?\?)\.(\d{2}|\?\?)")


#: :func:`date_bounds` of the dates seen (an import meets few distinct dates), at
#: most this many.
_BOUNDS: dict[str | None, tuple[str | None, str | None]] = {}
_BOUNDS_KEPT = 4096


def date_bounds(date: str | None) -> tuple[str | None, str | None]:
    """The earliest and latest day a PGR date can mean, as ``YYYY.MM.DD``:
    ``2024.03.??`` is 2024.03.01 to 2024.03.31, ``2024.??.??`` the whole year.
    ``(None, None)`` for an absent or malformed date, or an unknown year."""
    bounds = _BOUNDS.get(date)
    if bounds is None:
        if len(_BOUNDS) >= _BOUNDS_KEPT:
            _BOUNDS.clear()
        bounds = _BOUNDS[date] = _date_bounds(date)
    return bounds


def _date_bounds(date: str | None) -> tuple[str | None, str | None]:
    match = _DATE.fullmatch(date or "")
    if match is None or match.group(1) == "????":
        return None, None
    year, month, day = match.groups()
    if month == "??":
        first_month, last_month = 1, 12
    else:
        first_month = last_month = int(month)
    if day == "??":
        first_day = 1
        last_day = calendar.monthrange(int(year), last_month)[1] if 1 <= last_month <= 12 else 31
    else:
        first_day = last_day = int(day)
    return (
        f"{year}.{first_month:02d}.{first_day:02d}",
        f"{year}.{last_month:02d}.{last_day:02d}",
    )


#: Blank lines at the end of a text (the reader drops them from a record).
_TRAILING_BLANK_LINES = re.compile(r"(?:\n[ \t\f\v]*)+\Z")


def stored_text(replayed: ReplayedRecord) -> str:
    """The text the archive keeps of a record, and hashes to detect duplicates.

    A record without problems is kept in canonical form (the writer's output). A
    record with problems is kept exactly as read (line ends made LF, blank lines at
    its end dropped, as the reader does): canonical writing would correct a
    spelling or a move number, or drop what a syntax error left unread, and the
    problems would not survive an export and a re-import.
    """
    record = replayed.record
    if not replayed.problems:
        from partita.notation.writer import write_record

        try:
            return write_record(record, replayed.game, replayed=replayed)
        except PartitaError:
            pass
    text = record.text.replace("\r\n", "\n").replace("\r", "\n")
    return _TRAILING_BLANK_LINES.sub("", text) + "\n"


class ProblemRow(NamedTuple):
    """A record's problem as the ``problems`` table holds it (without the game id)."""

    kind: str
    severity: str
    line: int
    column: int
    ply: int | None
    move_number: int | None
    token: str | None
    message: str


class StoredVariation(NamedTuple):
    """A variation with a legal ply, as the archive stores it: ``line``, its number in
    the record's reading order (from 1), the plies of the line before its first
    move, and its folded keys and moves."""

    line: int
    plies_before: int
    keys: list[int]
    moves: list[str]


class StoredRecord(NamedTuple):
    """One record turned into rows, waiting for its batch (game id not yet known).

    Tuples, because worker processes send thousands of them back (a tuple pickles
    several times faster than a dataclass)."""

    hash: str
    #: The ``games`` row without its id: the columns of
    #: :data:`~partita.database.schema.GAME_COLUMNS` after ``id``, in their order
    #: (a plain tuple: a named one of 26 fields made the import's pickling between
    #: processes a fifth dearer).
    game: tuple
    keys: list[int]
    moves: list[str]
    problems: list[ProblemRow]
    valid: bool
    variations: list[StoredVariation]


def variation_rows(game_id: int, variations: list[StoredVariation]) -> list[tuple]:
    """The ``variation_positions`` rows of a game's variations (those of
    :attr:`StoredRecord.variations`): ``(key, game_id, ply, line, move, next_move)``
    per ply, ``next_move`` the variation's next move (``None`` at its end)."""
    rows: list[tuple] = []
    for line, before, keys, moves in variations:
        rows.extend(
            zip(
                keys,
                [game_id] * len(moves),
                range(before + 1, before + len(moves) + 1),
                [line] * len(moves),
                moves,
                [*moves[1:], None],
                strict=True,
            )
        )
    return rows


def _problem_row(problem: Problem) -> ProblemRow:
    return ProblemRow(
        problem.kind,
        problem.severity,
        problem.line,
        problem.column,
        problem.ply,
        problem.move_number,
        problem.token,
        problem.message,
    )


#: ``json.dumps(tags, ensure_ascii=False)``, its encoder made once (``dumps`` makes
#: one per call when given an option).
_tags_json = json.JSONEncoder(ensure_ascii=False).encode


def prepare_record(
    replayed: ReplayedRecord,
    strict: bool,
    *,
    text: str | None = None,
    folded_keys: list[int] | None = None,
) -> StoredRecord | Refusal:
    """What the archive stores of one replayed record: its rows without a game id
    (those are assigned when its batch is written), or, in strict mode, the refusal
    of an invalid record. Runs outside any transaction, in a worker process for a
    parallel import. ``text``: the record's :func:`stored_text`, and
    ``folded_keys``: its mainline's keys folded by :func:`archive_folder`'s fold,
    when the caller has them already (the fast path, :mod:`~partita.bulk.prepare`)."""
    record = replayed.record
    source = record.source
    valid = replayed.valid
    if strict and not valid:
        return Refusal(str(source.file), source.index, source.line, list(replayed.problems))
    tags = record.tags
    if text is None:
        text = stored_text(replayed)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    game = replayed.game
    sides = count_sides(tags, game.rules.min_sides if game is not None else 2)[0]
    date = tags.get("Date")
    date_min, date_max = date_bounds(date)
    mainline = " ".join(replayed.moves)
    row = (
        tags.get("Game"),
        tags.get("Event"),
        tags.get("Site"),
        date,
        tags.get("Round"),
        tags.get("Player1"),
        tags.get("Player2"),
        tags.get("Player3"),
        tags.get("Player4"),
        tags.get("Result", record.result),
        tags.get("Termination"),
        sides,
        len(replayed.moves),
        "valid" if valid else "invalid",
        replayed.final_position,
        date_min,
        date_max,
        _tags_json(tags),
        text,
        mainline,
        digest,
        str(source.file),
        source.index,
        source.line,
        source.byte_offset,
        twin_key(game, sides, tags, replayed.initial_state, replayed.moves, mainline)
        if valid and game is not None and replayed.initial_state is not None
        else None,
    )
    keys: list[int] = []
    if folded_keys is not None:
        keys = folded_keys
    elif game is not None and replayed.keys:
        keys = record_folder(game, tags)(replayed.keys)
    return StoredRecord(
        hash=digest,
        game=row,
        keys=keys,
        moves=replayed.moves,
        problems=[_problem_row(problem) for problem in replayed.problems],
        valid=valid,
        variations=stored_variations(replayed),
    )


@cache
def archive_folder(configuration: Configuration) -> KeyListFolder:
    """The archive's key fold of one game's set-up
    (:func:`~partita.database.keys.key_list_folder`), made once per process."""
    return key_list_folder(configuration.game, configuration)


#: Key folders by what picks a record's set-up: the game, the sides, the values of
#: its rule tags as written (so a record costs a tuple and a look-up, not a
#: :class:`Configuration`).
_RECORD_FOLDERS: dict[tuple[Any, ...], KeyListFolder] = {}
#: The rule tags of each game (its tags but the cosmetic ones), by name.
_RULE_TAGS: dict[str, tuple[str, ...]] = {}


def record_folder(game: GameNotation[Any, Any], tags: dict[str, str]) -> KeyListFolder:
    """The archive's key fold of a record of ``game`` (configured) with these tags:
    :func:`archive_folder` of its set-up, found without building the set-up for a
    record of a set-up seen before."""
    names = _RULE_TAGS.get(game.name)
    if names is None:
        names = _RULE_TAGS[game.name] = tuple(
            spec.name for spec in game.rules.tags if not spec.cosmetic
        )
    sides = count_sides(tags, game.rules.min_sides)[0]
    known = (game.name, sides, *map(tags.get, names))
    fold = _RECORD_FOLDERS.get(known)
    if fold is None:
        if len(_RECORD_FOLDERS) >= 1024:
            _RECORD_FOLDERS.clear()
        fold = _RECORD_FOLDERS[known] = archive_folder(Configuration.of(game, sides, tags))
    return fold


def stored_variations(replayed: ReplayedRecord) -> list[StoredVariation]:
    """The variations of a replayed record as the archive stores them
    (:attr:`StoredRecord.variations`: those with a legal ply, their keys folded)."""
    game = replayed.game
    if game is None or not replayed.variations:
        return []
    fold = record_folder(game, replayed.record.tags)
    return [
        StoredVariation(line, variation.plies_before, fold(variation.keys), variation.moves)
        for line, variation in enumerate(replayed.variations, start=1)
        if variation.moves
    ]
