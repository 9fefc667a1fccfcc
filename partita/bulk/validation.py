"""Validating record files, in this process or in worker processes: the library
side of `partita validate`.

:func:`validate_files` yields a :class:`RecordCheck` per record, in input order,
whatever runs the work. With one worker the records are read and replayed here,
one at a time. With more (local worker processes, or a Dask cluster) this process
cuts the files into chunks of raw records (the import's chunker,
:mod:`~partita.bulk.chunks`; standard input and compressed files are read here,
once) and the workers read and replay them (:func:`check_chunk`) through the
import's worker layer (:class:`~partita.bulk.workers.Workers`: this process
works too while it would otherwise wait). Only the chunks' text and places travel
to a worker, and only each record's verdict comes back: plain values, never a
replayed record, so a result is a few hundred bytes.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from partita.bulk.chunks import (
    CHUNK_BYTES,
    Chunk,
    ChunkData,
    chunks,
    holds_a_record,
    raw_records,
)
from partita.bulk.plain import fast_path_enabled, replay_raw
from partita.bulk.workers import Workers, auto_workers
from partita.notation.problems import Problem

if TYPE_CHECKING:
    from partita.notation.replay import ReplayedRecord
    from partita.notation.splitter import RawRecord

__all__ = ["RecordCheck", "check_chunk", "check_raw", "validate_files"]

#: The fields of a :class:`~partita.notation.problems.Problem`, in order: a problem
#: travels as the tuple of their values.
_PROBLEM_FIELDS = tuple(field.name for field in fields(Problem))


class RecordCheck(NamedTuple):
    """What validating one record found: what `partita validate` prints of it (its
    ``--json`` object is :meth:`as_dict`), and where it ends in its file
    (``byte_offset``, for progress). ``problems`` holds each
    :class:`~partita.notation.problems.Problem` as the tuple of its fields; a tuple,
    because workers send thousands of them back."""

    file: str
    record_index: int
    byte_offset: int
    game: str | None
    valid: bool
    result: str | None
    plies: int
    final_position: str | None
    problems: tuple[tuple[Any, ...], ...]

    @classmethod
    def of(cls, replayed: ReplayedRecord) -> RecordCheck:
        """The check of a replayed record."""
        record = replayed.record
        source = record.source
        return cls(
            source.file,
            source.index,
            source.byte_offset,
            record.game,
            replayed.valid,
            record.tags.get("Result", record.result),
            replayed.plies,
            replayed.final_position,
            tuple(
                tuple(getattr(problem, name) for name in _PROBLEM_FIELDS)
                for problem in replayed.problems
            ),
        )

    def problem_list(self) -> list[Problem]:
        """The problems, as :class:`~partita.notation.problems.Problem` objects again."""
        return [Problem(*values) for values in self.problems]

    def as_dict(self) -> dict[str, Any]:
        """The object `partita validate --json` prints for this record (the same as
        :meth:`~partita.notation.replay.ReplayedRecord.as_dict`)."""
        return {
            "file": self.file,
            "index": self.record_index,
            "game": self.game,
            "valid": self.valid,
            "result": self.result,
            "plies": self.plies,
            "final_position": self.final_position,
            "problems": [problem.as_dict() for problem in self.problem_list()],
        }


def check_chunk(data: ChunkData) -> list[RecordCheck]:
    """Read and replay a chunk of raw records: a worker's task (module level, of
    plain values, so that a local process or a Dask worker can run it). Plain
    records take the fast path (:mod:`~partita.bulk.plain`); the checks are
    the same."""
    strict = data[1]
    fast = fast_path_enabled()
    return [check_raw(raw, strict, fast) for raw in raw_records(data)]


def check_raw(raw: RawRecord, strict: bool, fast: bool) -> RecordCheck:
    """The check of one raw record: by the fast path when ``fast`` and the record is
    plain (:func:`~partita.bulk.plain.replay_raw`), else read and replayed in
    full; the same either way."""
    from partita.notation.reader import build_record
    from partita.notation.replay import replay

    plain = replay_raw(raw, strict, text=False) if fast else None
    replayed = plain[0] if plain is not None else replay(build_record(raw), strict=strict)
    return RecordCheck.of(replayed)


def validate_files(
    files: list[Path],
    *,
    strict: bool = False,
    workers: int | None = 1,
    scheduler: str | None = None,
    chunk_bytes: int | None = None,
) -> Generator[tuple[int, RecordCheck], None, None]:
    """Read and replay every record of ``files`` (files, not folders: see
    :func:`~partita.notation.files.expand_paths`); yield ``(file number, check)``
    per record, in input order, the same whatever runs the work.

    ``workers``: processes that read and replay, this one included. ``1`` (the
    default) reads and replays here, streaming; ``N`` starts ``N - 1`` local worker
    processes (``spawn``: a script must call this under ``if __name__ ==
    "__main__":``), and this process, which cuts the chunks and receives the
    checks, reads and replays chunks too while the oldest one is still in a worker
    (while the workers start, above all); ``None`` chooses by the input's size
    (:func:`~partita.bulk.workers.auto_workers`). ``scheduler`` (an address, or ``local:N``; needs
    ``partita[cluster]``) runs the work on a Dask cluster's workers instead, this
    process helping as with local ones. Leaving the loop early, or Ctrl-C, cancels
    the work not started and stops the workers.
    ``chunk_bytes``: record text per task (default :data:`~partita.bulk.chunks.CHUNK_BYTES`).

    An error reading a file (damaged compressed data) is raised in its turn: after
    the checks of the records before it, as a serial run meets it.
    """
    if workers is None:
        from partita.notation.inputs import input_size

        workers = auto_workers(sum(input_size(file) for file in files))
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if scheduler is None and workers == 1:  # one process, record by record
        from partita.notation.reader import split_records

        fast = fast_path_enabled()
        for number, file in enumerate(files):
            for raw in split_records(file):
                if holds_a_record(raw):
                    yield number, check_raw(raw, strict, fast)
        return
    failure: list[Exception] = []

    def cut() -> Iterator[Chunk]:
        try:
            yield from chunks(files, strict, chunk_bytes or CHUNK_BYTES)
        except Exception as error:  # raised once the chunks before it are done
            failure.append(error)

    stopped = "a worker process of the validation stopped (killed, or out of memory?)"
    with Workers(check_chunk, workers, scheduler, stopped=stopped) as pool:
        for chunk, checks in pool.run(cut()):
            for check in checks:
                yield chunk.file_number, check
    if failure:
        raise failure[0]
