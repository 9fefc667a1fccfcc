"""Importing records into the archive: streamed, replayed, stored in atomic batches.

The public functions: :func:`import_paths` (files and folders) and
:func:`import_records` (records a caller has already replayed). Each record is read
(streaming, one at a time), replayed through its rules, and turned into rows outside
any transaction (:mod:`~partita.database.prepare`); every ``batch_size`` records the
rows are written in ONE transaction (:mod:`~partita.database.archive_writer`). A
process killed at any point leaves whole batches only; a rerun skips what is there
(the content hash decides) and stores the rest.

Lenient mode stores an invalid record with status ``invalid``, its problems and
its legal mainline prefix; strict mode refuses it (counted and returned in the
summary, not stored).

A large import runs in parallel: this process cuts the files into chunks of raw
records (:mod:`~partita.bulk.chunks`, cheap) and worker processes prepare them
(:mod:`~partita.bulk.workers`); the archive is the same, ids included,
whatever the number of workers.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from partita.bulk.chunks import CHUNK_BYTES, chunks
from partita.bulk.prepare import prepare_chunk
from partita.bulk.workers import PARALLEL_MIN_BYTES, Workers, auto_workers
from partita.database.archive_writer import DEFAULT_BATCH_SIZE, ArchiveWriter, ImportSummary
from partita.database.connection import Archive
from partita.database.indexed import finish_loading
from partita.database.prepare import Refusal
from partita.database.schema import writing
from partita.database.twins import new_twins
from partita.notation.files import expand_paths
from partita.notation.inputs import input_size
from partita.notation.replay import ReplayedRecord

__all__ = [
    "BATCH_GROWTH",
    "BULK_MIN_BYTES",
    "MAX_BATCH_SIZE",
    "CHUNK_BYTES",
    "DEFAULT_BATCH_SIZE",
    "BULK_CACHE_KIB",
    "IMPORT_CACHE_KIB",
    "IMPORT_CHECKPOINT_PAGES",
    "PARALLEL_MIN_BYTES",
    "ArchiveWriter",
    "ImportProgress",
    "ImportSummary",
    "Refusal",
    "batch_limit",
    "bulk_cache_kib",
    "set_bulk_cache",
    "import_paths",
    "import_records",
]

#: Inputs at least this large, imported into an archive without positions, go in
#: bulk (``bulk=None``): positions into a heap, sorted into their index once at the
#: end (benchmarks/results/2026-12-06-archive.md has the measurements).
BULK_MIN_BYTES = 1_000_000

#: With no ``batch_size`` given, a batch holds at least DEFAULT_BATCH_SIZE records
#: and one in BATCH_GROWTH of the games already stored, at most MAX_BATCH_SIZE
#: (:func:`batch_limit`).
BATCH_GROWTH = 20
MAX_BATCH_SIZE = 10_000

#: A parallel import into an archive of fewer games than this writes each chunk's
#: records as they arrive, inside the batch's open transaction, while the workers
#: prepare the next chunks: otherwise the writer writes nothing until a batch is
#: whole, and the last batch (a third of a 3,000-game import) is written after the
#: workers have finished. Below it the batches are at their smallest
#: (:func:`batch_limit`) and the positions B-tree fits in the import's page cache,
#: so a batch written in pieces touches no more pages than written at once; past it
#: a batch is sorted into the tree whole (benchmarks/results/2026-12-03-import.md).
WRITE_EACH_CHUNK_MAX_GAMES = BATCH_GROWTH * DEFAULT_BATCH_SIZE

#: The importing connection's page cache (KiB, SQLite's negative ``cache_size``)
#: and WAL pages between checkpoints: a batch's dirty pages stay in memory until
#: its commit instead of spilling into the WAL half-way, and a page changed by
#: several batches is copied back into the archive once per checkpoint, not once
#: per batch. Both bound the memory and the WAL file, whatever the input's size.
#: 32 MB holds the pages a batch touches at 1,000,000 games (the content hashes'
#: integer index, 18 MB, and the right edges of the appended tables); 16 MB is
#: smaller than that index, and 64 MB bought no speed at 10,000 and 100,000 games
#: for 35 MB more at 100,000 (benchmarks/results/2026-12-01-import.md).
IMPORT_CACHE_KIB = 32_768
IMPORT_CHECKPOINT_PAGES = 10_000

#: A bulk import's page cache (KiB) at least. Its batches append to the heap and
#: the tables, pages written once that a larger cache only keeps (32 MB filled
#: by about 20,000 games, and the import's memory grew with the corpus); the one
#: random-key B-tree it reads and writes is the content hashes' integer index,
#: about :data:`HASH_INDEX_BYTES_PER_GAME` a game, which the cache holds twice over
#: as the archive grows (:func:`bulk_cache_kib`), up to :data:`IMPORT_CACHE_KIB`
#: (benchmarks/results/2026-12-02-import.md).
BULK_CACHE_KIB = 8192
HASH_INDEX_BYTES_PER_GAME = 19


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


def import_records(
    target: Archive,
    replayed_records: Iterable[ReplayedRecord],
    *,
    strict: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> ImportSummary:
    """Store already replayed records (for callers that read and replay themselves)
    in ``target``."""
    with writing(target) as opened, _tuned_for_import(opened.conn):
        conn = opened.conn
        first_id = _next_id(conn)
        writer = ArchiveWriter(opened, strict=strict, batch_size=batch_size)
        for replayed in replayed_records:
            writer.add(replayed)
            if writer.pending >= batch_size:
                writer.flush()
        writer.flush()
        writer.summary.twins = new_twins(opened, first_id)
        return writer.summary


def batch_limit(batch_size: int | None, stored: int) -> int:
    """Records in the next batch: ``batch_size`` when the caller gives one; else
    :data:`DEFAULT_BATCH_SIZE`, or one in :data:`BATCH_GROWTH` of the ``stored``
    games when that is more, at most :data:`MAX_BATCH_SIZE`. The random-key
    indexes (content hashes, mainlines) have pages in proportion to the games
    stored, and a commit rewrites the pages its batch touched: batches that grow
    with the archive keep the pages written per record flat."""
    if batch_size is not None:
        return batch_size
    return max(DEFAULT_BATCH_SIZE, min(MAX_BATCH_SIZE, stored // BATCH_GROWTH))


def bulk_cache_kib(stored: int) -> int:
    """A bulk import's page cache (KiB) into an archive of ``stored`` games:
    :data:`BULK_CACHE_KIB`, or twice the content hashes' index when that is more,
    at most :data:`IMPORT_CACHE_KIB`. Flat in the corpus size up to about 220,000
    games."""
    wanted = 2 * stored * HASH_INDEX_BYTES_PER_GAME // 1024
    return max(BULK_CACHE_KIB, min(IMPORT_CACHE_KIB, wanted))


def set_bulk_cache(conn: sqlite3.Connection, stored: int) -> None:
    """:func:`bulk_cache_kib` on ``conn`` (between batches: a smaller cache
    drops clean pages only)."""
    conn.execute(f"PRAGMA cache_size = -{bulk_cache_kib(stored)}")


@contextmanager
def _tuned_for_import(conn: sqlite3.Connection) -> Iterator[None]:
    """The import's cache and checkpoint settings on ``conn``, the caller's back after."""
    before = [
        conn.execute(f"PRAGMA {name}").fetchone()[0]
        for name in ("cache_size", "wal_autocheckpoint")
    ]
    conn.execute(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")
    conn.execute(f"PRAGMA wal_autocheckpoint = {IMPORT_CHECKPOINT_PAGES}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA cache_size = {int(before[0])}")
        conn.execute(f"PRAGMA wal_autocheckpoint = {int(before[1])}")


def _no_positions(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT NOT EXISTS (SELECT 1 FROM positions)").fetchone()[0] == 1


def _next_id(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0]


def import_paths(
    target: Archive,
    paths: Iterable[str | Path],
    *,
    strict: bool = False,
    batch_size: int | None = None,
    progress: Callable[[ImportProgress], object] | None = None,
    workers: int | None = 1,
    bulk: bool | None = None,
    scheduler: str | None = None,
    fork_workers: bool = False,
) -> ImportSummary:
    """Import record files and folders (their ``*.pgr`` files, recursively) into
    the archive ``target``; return what happened.

    Streams: memory holds one batch (in bulk mode one piece of it,
    :data:`~partita.database.archive_writer.PIECE_PLIES`) and a few chunks of
    records, whatever the input's size. ``progress`` is called after every
    committed batch and at the end of each file. An exception (from the callback
    too) stops the import after the last committed batch; a rerun completes it
    without duplicates.

    ``workers``: processes that read and replay the records, this one included
    (which also writes): ``1`` (the default) imports in this process alone; ``N``
    starts ``N - 1`` worker processes. ``None`` chooses (the `partita import`
    command's default, :func:`~partita.bulk.workers.auto_workers`): one for
    inputs under :data:`PARALLEL_MIN_BYTES`, else one per idle core (the CPUs less
    the load average), at most :data:`MAX_AUTO_WORKERS`. The archive is the
    same either way, ids included. Worker processes are started with ``spawn``,
    which imports the main module again: a script that asks for more than one must
    call this under ``if __name__ == "__main__":``, which is why one process is the
    library's default.

    ``fork_workers``: start the worker processes with ``fork`` where that is safe
    (Linux, and this process runs no other thread when they start; else
    ``spawn``), a copy of this process ready in milliseconds instead of a new
    interpreter that imports partita again (a quarter of a second of CPU or
    more). For a caller
    that holds nothing a copy must not share (the `partita import` command).

    ``scheduler``: prepare the records on a Dask cluster instead (an address, or
    ``local:N``; needs ``partita[cluster]``); the archive is the same, ids included.

    ``batch_size``: records per transaction; ``None`` (the default): 1,000, and
    more as the archive grows (:func:`batch_limit`).

    ``bulk``: write the positions into a heap and sort them into their index once
    at the end (:class:`ArchiveWriter`); ``None`` (the default) chooses it for an
    input of :data:`BULK_MIN_BYTES` or more into an archive that holds no
    positions yet. Readers refuse the archive while a bulk import runs; a stopped
    one is completed by the next writer (the rerun included).
    """
    if batch_size is not None and batch_size < 1:
        raise ValueError(f"batch size must be at least 1, not {batch_size}")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    files = expand_paths(paths)
    sizes = [input_size(file) for file in files]
    total = sum(sizes)
    if workers is None:
        workers = auto_workers(total, fork=fork_workers)
    with (
        # First: forked workers copy no open archive.
        Workers(prepare_chunk, workers, scheduler, fork=fork_workers) as preparer,
        writing(target) as opened,
        _tuned_for_import(opened.conn),
    ):
        conn = opened.conn
        first_id = _next_id(conn)
        if bulk is None:
            bulk = total >= BULK_MIN_BYTES and _no_positions(conn)
        writer = ArchiveWriter(
            opened, strict=strict, batch_size=batch_size or DEFAULT_BATCH_SIZE, bulk=bulk
        )
        limit = batch_limit(batch_size, first_id - 1)
        if bulk:
            set_bulk_cache(conn, first_id - 1)
        summary = writer.summary
        summary.files = len(files)
        done_before = 0
        finished = 0  # files whose records are all written
        records_before = 0  # records of those files

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
            nonlocal done_before, finished, records_before
            while finished < until:
                writer.flush()
                if summary.records == records_before:
                    summary.empty_files.append(str(files[finished]))
                records_before = summary.records
                done_before += sizes[finished]
                summary.bytes = done_before
                report(done_before, files[finished])
                finished += 1

        for chunk, prepared in preparer.run(chunks(files, strict, CHUNK_BYTES)):
            finish_files(chunk.file_number)
            for offset, item in zip(chunk.offsets, prepared, strict=True):
                writer.add_prepared(item)
                if writer.pending >= limit:
                    writer.flush()
                    limit = batch_limit(batch_size, first_id - 1 + summary.imported)
                    if bulk:
                        set_bulk_cache(conn, first_id - 1 + summary.imported)
                    report(done_before + offset, files[finished])
            if (
                preparer.workers > 1
                and first_id - 1 + summary.imported < WRITE_EACH_CHUNK_MAX_GAMES
            ):
                writer.write_pending()
        finish_files(len(files))
        if bulk:
            finish_loading(conn)
        summary.twins = new_twins(opened, first_id)
        return summary
