"""Cutting record files into chunks of raw records, the unit of work of an import.

The importing process splits the files into raw records (cheap: not tokenized) and
groups them into chunks of about a given size of text, a chunk never spanning two
files; each chunk is read, replayed and turned into rows as a whole, here or in a
worker process (:func:`~partita.database.prepare.prepare_chunk`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from partita.database.prepare import ChunkData
from partita.notation.inputs import input_name
from partita.notation.reader import split_records

__all__ = ["Chunk", "chunks"]


class Chunk(NamedTuple):
    """A chunk of raw records: what this process keeps (which file, each record's
    byte offset, for progress) and what it sends to be prepared."""

    file_number: int
    offsets: list[int]
    data: ChunkData


def chunks(files: list[Path], strict: bool, size_limit: int) -> Iterator[Chunk]:
    """The records of ``files`` cut (not tokenized), in chunks of about
    ``size_limit`` characters of text, a chunk never spanning two files."""
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
            if size >= size_limit:
                yield Chunk(number, offsets, (name, strict, records))
                records, offsets, size = [], [], 0
        if records:
            yield Chunk(number, offsets, (name, strict, records))
