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
(cheap) and sends chunks of them to worker processes, which read, replay and turn
each record into its rows (:func:`~partita.database.prepare.prepare_chunk`, the
function a serial import calls in this process); it prepares chunks itself when
it would otherwise wait, and writes the batches from the results in input order.
The archive is the same, ids included, whatever the number of workers.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

from sqlite_utils import Database

from partita.database.prepare import (
    ChunkData,
    Refusal,
    StoredRecord,
    date_bounds,
    known_games,
    prepare_chunk,
    prepare_record,
    start_worker,
    stored_text,
)
from partita.database.schema import GAME_COLUMNS, POSITION_COLUMNS, PROBLEM_COLUMNS, archive
from partita.database.twins import new_twins
from partita.notation.files import expand_paths
from partita.notation.inputs import input_name, input_size
from partita.notation.reader import split_records
from partita.notation.replay import ReplayedRecord

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

#: With ``workers=None``, inputs smaller than this import in one process: a
#: worker process takes about 0.15 s to start, which on less than about 0.6 MB
#: costs more than it saves (docs/archive.md); this leaves a margin for slower
#: process starts elsewhere.
PARALLEL_MIN_BYTES = 1_000_000

#: The most processes ``workers=None`` uses (one process writes SQLite, and past a
#: few workers the writer is the limit).
MAX_AUTO_WORKERS = 4

#: Record text per chunk sent to a worker: a few hundred records, tens of
#: milliseconds of work, so the cost of a task (pickling, queues) is lost in it.
CHUNK_BYTES = 64 * 1024
#: Chunks queued for each worker process, and chunks this process may hold that
#: it prepared itself: enough that no process waits for another, few enough that
#: memory stays a few megabytes.
_QUEUED_PER_WORKER = 8
_QUEUED_HERE = 8


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
class ImportSummary:
    """The outcome of an import: ``imported`` counts the games stored (``invalid``
    of them with status invalid), ``duplicates`` the records already there (or
    twice in the input), ``refused`` the invalid records strict mode turned away;
    ``twins`` the games stored that have a twin stored before them (same game, set-up
    and mainline: :mod:`partita.database.twins`), each ``{"game", "twin_of"}``."""

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
    twins: list[dict[str, int]] = field(default_factory=list)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["refusals"] = [refusal.as_dict() for refusal in self.refusals]
        return data


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
    ``add_prepared`` takes a record some process has already turned into rows;
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
        self._pending: list[StoredRecord] = []

    @property
    def pending(self) -> int:
        return len(self._pending)

    def add(self, replayed: ReplayedRecord) -> None:
        """Queue one replayed record (refused at once in strict mode if invalid)."""
        self.add_prepared(prepare_record(replayed, self.strict))

    def add_prepared(self, prepared: StoredRecord | Refusal) -> None:
        """Queue one record already turned into rows (or refused) by
        :func:`~partita.database.prepare.prepare_record`, with this writer's
        strictness, in this process or in a worker."""
        summary = self.summary
        summary.records += 1
        if isinstance(prepared, Refusal):
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

    def _write(self, conn, batch: list[StoredRecord]) -> tuple[int, int, int, int, int]:
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
        first_id = _next_id(db)
        writer = ArchiveWriter(db, strict=strict, batch_size=batch_size)
        for replayed in replayed_records:
            writer.add(replayed)
            if writer.pending >= batch_size:
                writer.flush()
        writer.flush()
        writer.summary.twins = new_twins(db, first_id)
        return writer.summary


def _next_id(db: Database) -> int:
    return db.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0]


def import_paths(
    target: str | Path | Database,
    paths: Iterable[str | Path],
    *,
    strict: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: Callable[[ImportProgress], object] | None = None,
    workers: int | None = 1,
) -> ImportSummary:
    """Import record files and folders (their ``*.pgr`` files, recursively) into
    the archive at ``target``; return what happened.

    Streams: memory holds one batch and a few chunks of records, whatever the
    input's size. ``progress`` is called after every committed batch and at the end
    of each file. An exception (from the callback too) stops the import after the
    last committed batch; a rerun completes it without duplicates.

    ``workers``: processes that read and replay the records, this one included
    (which also writes): ``1`` (the default) imports in this process alone; ``N``
    starts ``N - 1`` worker processes. ``None`` chooses (the `partita import`
    command's default): one for inputs under :data:`PARALLEL_MIN_BYTES` or on one
    CPU, else one per CPU, at most :data:`MAX_AUTO_WORKERS`. The archive is the
    same either way, ids included. Worker processes are started with ``spawn``,
    which imports the main module again: a script that asks for more than one must
    call this under ``if __name__ == "__main__":``, which is why one process is the
    library's default.
    """
    if batch_size < 1:
        raise ValueError(f"batch size must be at least 1, not {batch_size}")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    files = expand_paths(paths)
    sizes = [input_size(file) for file in files]
    total = sum(sizes)
    if workers is None:
        workers = _auto_workers(total)
    with archive(target) as db, _Preparer(workers) as preparer:
        first_id = _next_id(db)
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
        summary.twins = new_twins(db, first_id)
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


class _Chunk(NamedTuple):
    """A chunk of raw records: what this process keeps (which file, each record's
    byte offset, for progress) and what it sends to be prepared."""

    file_number: int
    offsets: list[int]
    data: ChunkData


def _chunks(files: list[Path], strict: bool) -> Iterator[_Chunk]:
    """The records of ``files`` cut (not tokenized), in chunks of about
    :data:`CHUNK_BYTES` of text, a chunk never spanning two files."""
    for number, file in enumerate(files):
        name = input_name(file)
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


class _Preparer:
    """Turns chunks into prepared records, in input order: all in this process (one
    worker), or in ``workers - 1`` worker processes and this one.

    This process writes the batches. Each worker process has a few chunks queued, so
    it never waits for this one; and while the oldest chunk is still in a worker,
    this process prepares the next chunk itself rather than idle (so it works while
    the workers start, and whenever writing leaves it time). Chunks in flight are
    bounded, so memory stays flat.

    Workers are started with ``spawn`` (a fresh interpreter: safe whatever threads
    this process runs, the same on every platform). If a worker does not know the
    same games as this process (one registered at run time), this process prepares
    everything itself, so that the archive is the same.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> _Preparer:
        if self.workers > 1:
            self._pool = ProcessPoolExecutor(
                self.workers - 1,
                mp_context=get_context("spawn"),
                initializer=start_worker,
            )
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._pool is not None:
            # Chunks not started are dropped; the running ones end within a chunk.
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def run(self, chunks: Iterable[_Chunk]) -> Iterator[tuple[_Chunk, list]]:
        chunks = iter(chunks)  # next() on it gives None once it is exhausted
        pool = self._pool
        if pool is None:
            for chunk in chunks:
                yield chunk, _prepare_here(chunk)
            return
        probe: Future | None = pool.submit(known_games)
        queued = _QUEUED_PER_WORKER * (self.workers - 1)
        # Chunks in input order, each with its Future (in a worker) or its records.
        in_flight: deque[tuple[_Chunk, Future | list]] = deque()
        in_workers = 0
        while True:
            while in_workers < queued and (queued_chunk := next(chunks, None)) is not None:
                in_flight.append((queued_chunk, pool.submit(prepare_chunk, queued_chunk.data)))
                in_workers += 1
            if not in_flight:
                return
            chunk, head = in_flight[0]
            if isinstance(head, list):
                in_flight.popleft()
                yield chunk, head
                continue
            if not head.done() and len(in_flight) < queued + _QUEUED_HERE:
                helped = next(chunks, None)
                if helped is not None:
                    in_flight.append((helped, _prepare_here(helped)))
                    continue
            if probe is not None:
                if _worker_games(probe) != known_games():
                    pool.shutdown(wait=True, cancel_futures=True)
                    self._pool = None
                    for chunk, entry in in_flight:
                        yield chunk, entry if type(entry) is list else _prepare_here(chunk)
                    for chunk in chunks:
                        yield chunk, _prepare_here(chunk)
                    return
                probe = None
            in_flight.popleft()
            in_workers -= 1
            yield _result(chunk, head)


def _worker_games(probe: Future) -> list[tuple[str, str]]:
    """The games a worker knows (the first task, so it also checks workers start)."""
    try:
        return probe.result()
    except BrokenProcessPool as error:
        error.add_note(
            "the import's worker processes could not start (their error is above); a "
            "script that imports with several workers must call import_paths under "
            "'if __name__ == \"__main__\":', as any program that starts processes, "
            "or pass workers=1"
        )
        raise


def _prepare_here(chunk: _Chunk) -> list[StoredRecord | Refusal]:
    try:
        return prepare_chunk(chunk.data)
    except Exception as error:
        _add_place(error, chunk, "in this process")
        raise


def _result(chunk: _Chunk, future: Future) -> tuple[_Chunk, list]:
    try:
        return chunk, future.result()
    except BrokenProcessPool as error:
        error.add_note(
            "a worker process of the import stopped (killed, or out of memory?); the "
            "archive holds whole batches, and running the import again completes it"
        )
        raise
    except Exception as error:
        _add_place(error, chunk, "in a worker process")
        raise


def _add_place(error: Exception, chunk: _Chunk, where: str) -> None:
    """Say which records an unexpected error (a bug: bad input makes problems, not
    errors) came from."""
    name, _, records = chunk.data
    first, last = records[0][1], records[-1][1]
    which = f"record {first}" if first == last else f"records {first} to {last}"
    error.add_note(f"while reading and replaying {which} (from 0) of {name}, {where}")
