"""Importing records into the archive: streamed, replayed, stored in atomic batches.

Each record is read (streaming, one at a time), replayed through its rules, and
turned into rows outside any transaction. Every ``batch_size`` records the rows
are written in ONE transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``): the content
hashes of the batch are looked up, duplicates (already in the archive, or twice
in the batch) are dropped, game ids are assigned (``max(id) + 1`` onwards, inside
the transaction, so the positions and problems rows can be written with plain
``executemany``), and games, positions and problems go in together. A process
killed at any point leaves whole batches only; a rerun skips what is there (the
content hash decides) and stores the rest.

Lenient mode stores an invalid record with status ``invalid``, its problems and
its legal mainline prefix; strict mode refuses it (counted and returned in the
summary, not stored).
"""

from __future__ import annotations

import calendar
import hashlib
import json
import re
from collections.abc import Callable, Hashable, Iterable
from dataclasses import asdict, dataclass, field
from operator import itemgetter
from pathlib import Path

from sqlite_utils import Database

from partita.database.keys import key_folder
from partita.database.schema import GAME_COLUMNS, POSITION_COLUMNS, PROBLEM_COLUMNS, archive
from partita.errors import PartitaError
from partita.notation.files import expand_paths
from partita.notation.problems import Problem
from partita.notation.replay import ReplayedRecord, count_sides, replay

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "ArchiveWriter",
    "ImportProgress",
    "ImportSummary",
    "Refusal",
    "date_bounds",
    "import_paths",
    "import_records",
    "stored_text",
]

#: Records per transaction. Larger batches gain little past a few hundred (see
#: docs/archive.md) and a kill loses at most one batch of work.
DEFAULT_BATCH_SIZE = 1000


@dataclass(frozen=True, slots=True)
class ImportProgress:
    """What an import has done so far, passed to the progress callback after each
    committed batch: records read, bytes of input read (of ``bytes_total``)."""

    records: int
    bytes_done: int
    bytes_total: int
    imported: int
    duplicates: int
    file: str


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


@dataclass(slots=True)
class ImportSummary:
    """The outcome of an import: ``imported`` counts the games stored (``invalid``
    of them with status invalid), ``duplicates`` the records already there (or
    twice in the input), ``refused`` the invalid records strict mode turned away."""

    files: int = 0
    records: int = 0
    imported: int = 0
    duplicates: int = 0
    invalid: int = 0
    refused: int = 0
    plies: int = 0
    problems: int = 0
    bytes: int = 0
    refusals: list[Refusal] = field(default_factory=list)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["refusals"] = [refusal.as_dict() for refusal in self.refusals]
        return data


# -- what is stored of a record --------------------------------------------------------

_DATE = re.compile(r"(\d{4}|\?{4})\.(\d{2}|\?\?)\.(\d{2}|\?\?)")


def date_bounds(date: str | None) -> tuple[str | None, str | None]:
    """The earliest and latest day a PGR date can mean, as ``YYYY.MM.DD``:
    ``2024.03.??`` is 2024.03.01 to 2024.03.31, ``2024.??.??`` the whole year.
    ``(None, None)`` for an absent or malformed date, or an unknown year."""
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


def stored_text(replayed: ReplayedRecord) -> str:
    """The text the archive keeps of a record, and hashes to detect duplicates.

    A record without problems is kept in canonical form (the writer's output). A
    record with problems is kept as written (line ends made LF, outer blank space
    trimmed): canonical writing would correct a spelling or a move number, or drop
    what a syntax error left unread, and the problems would not survive an export
    and a re-import.
    """
    record = replayed.record
    if not replayed.problems:
        from partita.notation.writer import write_record

        try:
            return write_record(record, replayed.game, replayed=replayed)
        except PartitaError:
            pass
    text = record.text.replace("\r\n", "\n").replace("\r", "\n").strip()
    return text + "\n"


@dataclass(slots=True)
class _Pending:
    """One record turned into rows, waiting for its batch (game id not yet known)."""

    hash: str
    game: tuple
    keys: list[int]
    moves: list[str]
    problems: list[tuple]
    valid: bool


def _problem_row(problem: Problem) -> tuple:
    return (
        problem.kind,
        problem.severity,
        problem.line,
        problem.column,
        problem.ply,
        problem.move_number,
        problem.token,
        problem.message,
    )


_GAMES_INSERT = (
    f"INSERT INTO games ({', '.join(GAME_COLUMNS)}) VALUES ({', '.join('?' * len(GAME_COLUMNS))})"
)
_POSITIONS_INSERT = (
    f"INSERT INTO positions ({', '.join(POSITION_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(POSITION_COLUMNS))})"
)
_PROBLEMS_INSERT = (
    f"INSERT INTO problems ({', '.join(f'[{name}]' for name in PROBLEM_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(PROBLEM_COLUMNS))})"
)
_first = itemgetter(0)
#: Host parameters per duplicate lookup (SQLite before 3.32 allows 999).
_LOOKUP_CHUNK = 900


class ArchiveWriter:
    """Stores replayed records in batches, each batch in one transaction.

    ``add`` turns a record into rows (refusing it in strict mode if invalid);
    ``flush`` writes the pending batch. ``summary`` counts what was committed:
    a batch that fails leaves no row and no count behind.
    """

    def __init__(
        self, db: Database, *, strict: bool = False, batch_size: int = DEFAULT_BATCH_SIZE
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch size must be at least 1, not {batch_size}")
        self.db = db
        self.strict = strict
        self.batch_size = batch_size
        self.summary = ImportSummary()
        self._pending: list[_Pending] = []
        self._folders: dict[str, Callable[[Hashable], int]] = {}

    @property
    def pending(self) -> int:
        return len(self._pending)

    def add(self, replayed: ReplayedRecord) -> None:
        """Queue one replayed record (refused at once in strict mode if invalid)."""
        self.summary.records += 1
        record = replayed.record
        source = record.source
        valid = replayed.valid
        if self.strict and not valid:
            self.summary.refused += 1
            self.summary.refusals.append(
                Refusal(str(source.file), source.index, source.line, list(replayed.problems))
            )
            return
        tags = record.tags
        text = stored_text(replayed)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        game = replayed.game
        sides = count_sides(tags, game.rules.min_sides if game is not None else 2)[0]
        date = tags.get("Date")
        date_min, date_max = date_bounds(date)
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
            json.dumps(tags, ensure_ascii=False),
            text,
            " ".join(replayed.moves),
            digest,
            str(source.file),
            source.index,
            source.line,
            source.byte_offset,
        )
        if game is not None and replayed.keys:
            fold = self._folders.get(game.name)
            if fold is None:
                fold = self._folders[game.name] = key_folder(game.name)
            keys = [fold(key) for key in replayed.keys]
        else:
            keys = []
        self._pending.append(
            _Pending(
                digest,
                row,
                keys,
                replayed.moves,
                [_problem_row(problem) for problem in replayed.problems],
                valid,
            )
        )

    def flush(self) -> None:
        """Write the pending records in one transaction (nothing if none)."""
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            counts = self._write(conn, batch)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        summary = self.summary
        imported, invalid, plies, problems, duplicates = counts
        summary.imported += imported
        summary.invalid += invalid
        summary.plies += plies
        summary.problems += problems
        summary.duplicates += duplicates

    def _write(self, conn, batch: list[_Pending]) -> tuple[int, int, int, int, int]:
        hashes = [item.hash for item in batch]
        existing: set[str] = set()
        for start in range(0, len(hashes), _LOOKUP_CHUNK):
            chunk = hashes[start : start + _LOOKUP_CHUNK]
            marks = ", ".join("?" * len(chunk))
            existing.update(
                row[0]
                for row in conn.execute(f"SELECT hash FROM games WHERE hash IN ({marks})", chunk)
            )
        next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0]
        games: list[tuple] = []
        positions: list[tuple] = []
        problems: list[tuple] = []
        duplicates = invalid = 0
        for item in batch:
            if item.hash in existing:
                duplicates += 1
                continue
            existing.add(item.hash)
            game_id = next_id
            next_id += 1
            games.append((game_id, *item.game))
            if item.keys:
                moves = item.moves
                positions.extend(
                    zip(
                        item.keys,
                        [game_id] * len(moves),
                        range(1, len(moves) + 1),
                        moves,
                        [*moves[1:], None],
                        strict=True,
                    )
                )
            if item.problems:
                problems.extend((game_id, *problem) for problem in item.problems)
            if not item.valid:
                invalid += 1
        # Keys in order: the inserts walk the positions B-tree forwards (see docs).
        positions.sort(key=_first)
        self._insert_games(conn, games)
        self._insert_positions(conn, positions)
        self._insert_problems(conn, problems)
        return len(games), invalid, len(positions), len(problems), duplicates

    # The three inserts are methods so that tests can make one fail half-way.
    def _insert_games(self, conn, rows: list[tuple]) -> None:
        conn.executemany(_GAMES_INSERT, rows)

    def _insert_positions(self, conn, rows: list[tuple]) -> None:
        conn.executemany(_POSITIONS_INSERT, rows)

    def _insert_problems(self, conn, rows: list[tuple]) -> None:
        conn.executemany(_PROBLEMS_INSERT, rows)


def import_records(
    target: str | Path | Database,
    replayed_records: Iterable[ReplayedRecord],
    *,
    strict: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> ImportSummary:
    """Store already replayed records (for callers that read and replay themselves)."""
    with archive(target) as db:
        writer = ArchiveWriter(db, strict=strict, batch_size=batch_size)
        for replayed in replayed_records:
            writer.add(replayed)
            if writer.pending >= batch_size:
                writer.flush()
        writer.flush()
        return writer.summary


def import_paths(
    target: str | Path | Database,
    paths: Iterable[str | Path],
    *,
    strict: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: Callable[[ImportProgress], object] | None = None,
) -> ImportSummary:
    """Import record files and folders (their ``*.pgr`` files, recursively) into
    the archive at ``target``; return what happened.

    Streams: memory holds one batch, whatever the input's size. ``progress`` is
    called after every committed batch and at the end of each file. An exception
    (from the callback too) stops the import after the last committed batch; a
    rerun completes it without duplicates.
    """
    from partita.notation.reader import read_records

    files = expand_paths(paths)
    sizes = [file.stat().st_size for file in files]
    total = sum(sizes)
    with archive(target) as db:
        writer = ArchiveWriter(db, strict=strict, batch_size=batch_size)
        summary = writer.summary
        summary.files = len(files)
        done_before = 0

        def report(done: int, file: Path) -> None:
            if progress is not None:
                progress(
                    ImportProgress(
                        summary.records,
                        done,
                        total,
                        summary.imported,
                        summary.duplicates,
                        str(file),
                    )
                )

        for file, size in zip(files, sizes, strict=True):
            for record in read_records(file):
                writer.add(replay(record, strict=strict))
                if writer.pending >= batch_size:
                    writer.flush()
                    report(done_before + record.source.byte_offset, file)
            writer.flush()
            done_before += size
            summary.bytes = done_before
            report(done_before, file)
        return summary
