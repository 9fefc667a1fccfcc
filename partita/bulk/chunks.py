"""Cutting record files into chunks of raw records, the unit of work sent to a worker.

The process that reads the files splits them into raw records (cheap: not
tokenized) and groups them into chunks of about a given size of text, a chunk never
spanning two files; a worker (or this process) rebuilds each record from its chunk
(:func:`raw_records`) and reads and replays it. An import turns the records into
rows (:func:`~partita.bulk.prepare.prepare_chunk`), a validation into its
verdicts (:func:`~partita.bulk.validation.check_chunk`). Only the chunk's plain
values travel: the file's name, the strictness, and each record's text and place.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from partita.notation.inputs import input_name
from partita.notation.model import SourceRef
from partita.notation.reader import split_records
from partita.notation.splitter import RawRecord

__all__ = ["CHUNK_BYTES", "Chunk", "ChunkData", "chunks", "holds_a_record", "raw_records"]

#: Record text per chunk sent to a worker: a few hundred records, tens of
#: milliseconds of work, so the cost of a task (pickling, queues) is lost in it.
CHUNK_BYTES = 64 * 1024

#: A chunk as sent to a worker: the file name, strictness, and for each record its
#: text, index, first line, byte offset, movetext start and line problems.
ChunkData = tuple[str, bool, list[tuple[str, int, int, int, int, list[tuple[int, str]]]]]


class Chunk(NamedTuple):
    """A chunk of raw records: what this process keeps (which file, each record's
    byte offset, for progress) and what it sends to be read (``data``)."""

    file_number: int
    offsets: list[int]
    data: ChunkData


def chunks(files: list[Path], strict: bool, size_limit: int) -> Iterator[Chunk]:
    """The records of ``files`` cut (not tokenized), in chunks of about
    ``size_limit`` characters of text, a chunk never spanning two files.

    Files are read here, once, in order: standard input and compressed files too.
    An error reading a file (damaged data) comes after the chunk of the records cut
    before it, as a serial reading would meet it. Text that is no record (no tag and
    no result token: a README, notes) is left out (:func:`holds_a_record`): a file
    of it holds no records, which the commands warn about."""
    for number, file in enumerate(files):
        name = input_name(file)
        records: list[tuple[str, int, int, int, int, list[tuple[int, str]]]] = []
        offsets: list[int] = []
        size = 0
        try:
            for raw in split_records(file, name=name):
                if not holds_a_record(raw):
                    continue
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
                if size >= size_limit:
                    yield Chunk(number, offsets, (name, strict, records))
                    records, offsets, size = [], [], 0
        except Exception:
            if records:
                yield Chunk(number, offsets, (name, strict, records))
            raise
        if records:
            yield Chunk(number, offsets, (name, strict, records))


def holds_a_record(raw: RawRecord) -> bool:
    """Whether a cut text is a record, valid or not: it has a tag section, or its
    movetext reads with a result token (``1-0``, ``*``...). Other text (prose, a
    README, a list of moves without a result) is none; a record's problems are
    then about no record at all, and an import would store an empty game."""
    if raw.movetext_start > 0 or raw.text.lstrip().startswith("["):
        return True
    from partita.notation.reader import build_record

    record = build_record(raw)
    return bool(record.tags) or record.result is not None


def raw_records(data: ChunkData) -> Iterator[RawRecord]:
    """The raw records of a chunk, as :func:`~partita.notation.reader.split_records`
    cut them (for :func:`~partita.notation.reader.build_record`)."""
    name, _, records = data
    for text, index, line, offset, movetext_start, problems in records:
        yield RawRecord(text, SourceRef(name, index, line, offset), movetext_start, problems)
