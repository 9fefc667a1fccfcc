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

A large import runs in parallel: this process splits the files into raw records
(cheap), sends chunks of them to worker processes, which read, replay and turn
each record into its rows (:func:`_prepare_chunk`, the same function a serial
import calls in-process), and writes the batches from the results, in input
order: the archive is the same, ids included, whatever the number of workers.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import multiprocessing
import os
import re
import signal
import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

from sqlite_utils import Database

from partita.database.keys import key_folder
from partita.database.schema import GAME_COLUMNS, POSITION_COLUMNS, PROBLEM_COLUMNS, archive
from partita.errors import PartitaError
from partita.notation.files import expand_paths
from partita.notation.model import SourceRef
from partita.notation.problems import Problem
from partita.notation.reader import RawRecord, build_record, split_records
from partita.notation.registry import all_games
from partita.notation.replay import ReplayedRecord, count_sides, replay

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "PARALLEL_MIN_BYTES",
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

#: With ``workers=None``, inputs smaller than this import serially: starting
#: worker processes (a fresh interpreter each, about 0.3 s) costs more than they
#: save on about a second of work (see docs/archive.md).
PARALLEL_MIN_BYTES = 1_000_000

#: The most worker processes ``workers=None`` starts (one process writes SQLite,
#: so past a few workers the writer is the limit).
MAX_AUTO_WORKERS = 4

#: Record text per chunk sent to a worker: a few hundred records, tens of
#: milliseconds of work, so the cost of a task (pickling, queues) is lost in it.
CHUNK_BYTES = 64 * 1024


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


class _Pending(NamedTuple):
    """One record turned into rows, waiting for its batch (game id not yet known).

    A tuple, because worker processes send thousands of them back (a tuple pickles
    several times faster than a dataclass)."""

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


#: Key folders by game name (each process keeps its own).
_FOLDERS: dict[str, Callable[[Hashable], int]] = {}


def _prepare(replayed: ReplayedRecord, strict: bool) -> _Pending | Refusal:
    """What the archive stores of one replayed record: its rows without a game id
    (those are assigned when its batch is written), or, in strict mode, the refusal
    of an invalid record. Runs outside any transaction, in a worker process for a
    parallel import."""
    record = replayed.record
    source = record.source
    valid = replayed.valid
    if strict and not valid:
        return Refusal(str(source.file), source.index, source.line, list(replayed.problems))
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
        fold = _FOLDERS.get(game.name)
        if fold is None:
            fold = _FOLDERS[game.name] = key_folder(game.name)
        keys = [fold(key) for key in replayed.keys]
    else:
        keys = []
    return _Pending(
        digest,
        row,
        keys,
        replayed.moves,
        [_problem_row(problem) for problem in replayed.problems],
        valid,
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

    @property
    def pending(self) -> int:
        return len(self._pending)

    def add(self, replayed: ReplayedRecord) -> None:
        """Queue one replayed record (refused at once in strict mode if invalid)."""
        self.add_prepared(_prepare(replayed, self.strict))

    def add_prepared(self, prepared: _Pending | Refusal) -> None:
        """Queue one record already turned into rows (or refused) by ``_prepare``
        with this writer's strictness, in this process or a worker."""
        summary = self.summary
        summary.records += 1
        if type(prepared) is Refusal:
            summary.refused += 1
            summary.refusals.append(prepared)
        else:
            self._pending.append(prepared)

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
    workers: int | None = None,
) -> ImportSummary:
    """Import record files and folders (their ``*.pgr`` files, recursively) into
    the archive at ``target``; return what happened.

    Streams: memory holds one batch and a few chunks of records, whatever the
    input's size. ``progress`` is called after every committed batch and at the end
    of each file. An exception (from the callback too) stops the import after the
    last committed batch; a rerun completes it without duplicates.

    ``workers``: processes that read and replay while this one writes. ``None``
    chooses: one (everything in this process) for inputs under
    :data:`PARALLEL_MIN_BYTES` or on one CPU, else one per CPU up to
    :data:`MAX_AUTO_WORKERS`. ``1`` imports in this process. The archive is the
    same either way, ids included.
    """
    if batch_size < 1:
        raise ValueError(f"batch size must be at least 1, not {batch_size}")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    files = expand_paths(paths)
    sizes = [file.stat().st_size for file in files]
    total = sum(sizes)
    if workers is None:
        workers = _auto_workers(total)
    with archive(target) as db, _Preparer(workers) as preparer:
        writer = ArchiveWriter(db, strict=strict, batch_size=batch_size)
        summary = writer.summary
        summary.files = len(files)
        done_before = 0
        finished = 0  # files whose records are all written

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

        def finish_files(until: int) -> None:
            nonlocal done_before, finished
            while finished < until:
                writer.flush()
                done_before += sizes[finished]
                summary.bytes = done_before
                report(done_before, files[finished])
                finished += 1

        for chunk, prepared in preparer.run(_chunks(files, strict)):
            finish_files(chunk.file_number)
            for offset, item in zip(chunk.offsets, prepared, strict=True):
                writer.add_prepared(item)
                if writer.pending >= batch_size:
                    writer.flush()
                    report(done_before + offset, files[finished])
        finish_files(len(files))
        return summary


# -- the parallel pipeline ---------------------------------------------------------------


def _auto_workers(total_bytes: int) -> int:
    if total_bytes < PARALLEL_MIN_BYTES:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_AUTO_WORKERS))


#: A chunk as sent to a worker: the file name, strictness, and for each record its
#: text, index, first line, byte offset, movetext start and line problems.
_ChunkData = tuple[str, bool, list[tuple[str, int, int, int, int, list]]]


class _Chunk(NamedTuple):
    """A chunk of raw records: what this process keeps (which file, each record's
    byte offset, for progress) and what it sends to be prepared."""

    file_number: int
    offsets: list[int]
    data: _ChunkData


def _chunks(files: list[Path], strict: bool) -> Iterator[_Chunk]:
    """The records of ``files`` cut (not tokenized), in chunks of about
    :data:`CHUNK_BYTES` of text, a chunk never spanning two files."""
    for number, file in enumerate(files):
        name = os.fspath(file)
        records: list[tuple[str, int, int, int, int, list]] = []
        offsets: list[int] = []
        size = 0
        for raw in split_records(file, name=name):
            source = raw.source
            records.append(
                (
                    raw.text,
                    source.index,
                    source.line,
                    source.byte_offset,
                    raw.movetext_start,
                    raw.problems,
                )
            )
            offsets.append(source.byte_offset)
            size += len(raw.text)
            if size >= CHUNK_BYTES:
                yield _Chunk(number, offsets, (name, strict, records))
                records, offsets, size = [], [], 0
        if records:
            yield _Chunk(number, offsets, (name, strict, records))


def _prepare_chunk(data: _ChunkData) -> list[_Pending | Refusal]:
    """Read, replay and turn into rows a chunk of raw records: the work of an import
    outside the archive, done by a worker process (or by this one, serially)."""
    name, strict, records = data
    prepared = []
    for text, index, line, offset, movetext_start, problems in records:
        raw = RawRecord(text, SourceRef(name, index, line, offset), movetext_start, problems)
        prepared.append(_prepare(replay(build_record(raw), strict=strict), strict))
    return prepared


def _known_games() -> list[tuple[str, str]]:
    """The games this process can replay (name, class), to check a worker knows the same."""
    return [
        (game.name, f"{type(game).__module__}.{type(game).__qualname__}") for game in all_games()
    ]


def _start_worker() -> None:
    """Set up a worker process: Ctrl-C goes to the whole process group, and the main
    process stops the import (after its last whole batch) and shuts the workers
    down, so they ignore it; and a worker exits when the main process dies (killed,
    it cannot shut them down), instead of waiting for work forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()  # returns when the parent's end of the start-up pipe closes
    os._exit(1)


class _Preparer:
    """Turns chunks into prepared records, in order: in this process (one worker) or
    in a pool of worker processes, with a bounded number of chunks in flight.

    Workers are started with ``spawn`` (a fresh interpreter: safe whatever threads
    this process runs, the same on every platform). If a worker does not know the
    same games as this process (a game registered at run time), the import runs
    here instead, so that it stores the same thing.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> _Preparer:
        if self.workers > 1:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
            )
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._pool is not None:
            # Chunks not started are dropped; the running ones end within a chunk.
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def run(self, chunks: Iterator[_Chunk]) -> Iterator[tuple[_Chunk, list]]:
        pool = self._pool
        if pool is not None and _worker_games(pool) != _known_games():
            pool.shutdown(wait=True)
            self._pool = pool = None
        if pool is None:
            for chunk in chunks:
                yield chunk, _prepare_chunk(chunk.data)
            return
        limit = 2 * self.workers  # every worker busy, and one more chunk each queued
        in_flight: deque[tuple[_Chunk, Future]] = deque()
        for chunk in chunks:
            in_flight.append((chunk, pool.submit(_prepare_chunk, chunk.data)))
            if len(in_flight) >= limit:
                yield _result(*in_flight.popleft())
        while in_flight:
            yield _result(*in_flight.popleft())


def _worker_games(pool: ProcessPoolExecutor) -> list[tuple[str, str]]:
    """The games a worker knows; the first task, so it also checks workers start."""
    try:
        return pool.submit(_known_games).result()
    except BrokenProcessPool as error:
        error.add_note(
            "the import's worker processes could not start (their error is above); a "
            "script that imports with several workers must call import_paths under "
            "'if __name__ == \"__main__\":', as any program that starts processes, "
            "or pass workers=1"
        )
        raise


def _result(chunk: _Chunk, future: Future) -> tuple[_Chunk, list]:
    try:
        return chunk, future.result()
    except Exception as error:
        name, _, records = chunk.data
        error.add_note(
            f"while a worker process prepared records {records[0][1]} to {records[-1][1]} of {name}"
        )
        raise
