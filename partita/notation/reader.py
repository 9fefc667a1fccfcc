"""Reading PGR files: the public API of the reader.

Three layers, each knowing one thing (after python-chess's ``pgn`` module), each in
its module:

1. :mod:`~partita.notation.sources` opens a path, a stream, ``bytes`` or a ``str``
   and gives its lines; :mod:`~partita.notation.splitter` cuts them into records
   (memory stays flat however many records the file holds), noting each record's
   index, first line and byte offset;
2. :mod:`~partita.notation.driver` tokenizes a record (the fast
   :mod:`~partita.notation.scanner` by default, the pyparsing reference
   :mod:`~partita.notation.pgr` on request), checks the structure (parentheses, what
   a NAG or a variation follows, the result) and calls a
   :class:`~partita.notation.visitor.RecordVisitor`; a visitor may skip the
   movetext cheaply;
3. visitors (:mod:`~partita.notation.builder`): :class:`RecordBuilder` builds a
   :class:`~partita.notation.model.Record` with an explicit stack (10,000 nested
   variations are fine), :class:`HeaderCollector` keeps only the tags.

Problems are data: every syntax problem becomes a :class:`~partita.notation.problems.Problem`
in ``Record.syntax_problems`` and reading goes on with the next record.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

from partita.notation.blockcut import cut_stream
from partita.notation.builder import HeaderCollector, RecordBuilder, record_context
from partita.notation.driver import drive, tokenizer
from partita.notation.model import Record, SourceRef
from partita.notation.sources import LineSource, Source, text_lines
from partita.notation.splitter import RawRecord, cut_records
from partita.notation.visitor import SKIP, RecordVisitor

__all__ = [
    "SKIP",
    "HeaderCollector",
    "RawRecord",
    "RecordBuilder",
    "RecordVisitor",
    "Source",
    "build_record",
    "parse_record",
    "read_headers",
    "read_records",
    "record_context",
    "split_records",
    "visit_records",
]


def read_records(
    source: Source, *, name: str | None = None, reference: bool = False
) -> Iterator[Record]:
    """Every record of a file, one at a time (memory stays flat).

    ``source``: a path, a binary or text stream, ``bytes``, or a ``str`` holding
    PGR text (a ``str`` with a line break is text, any other ``str`` is a path).
    ``name`` is the file name problems give (default: the path or stream name).
    ``reference=True`` tokenizes with the pyparsing grammar instead of the scanner.
    """
    return visit_records(source, RecordBuilder, name=name, reference=reference)


def read_headers(
    source: Source, *, name: str | None = None
) -> Iterator[tuple[SourceRef, dict[str, str]]]:
    """The place and the tags of every record, without reading any movetext."""
    return visit_records(source, HeaderCollector, name=name)


def visit_records(
    source: Source,
    visitor_factory: Callable[[], RecordVisitor],
    *,
    name: str | None = None,
    reference: bool = False,
) -> Iterator[Any]:
    """Drive a fresh visitor through each record of ``source``; yield its result."""
    tokenize = tokenizer(reference)
    with LineSource(source, name) as lines:
        # Line by line: a reader holds a record at a time and little more (a
        # test keeps its peak memory near one record's); the block cutter holds a block.
        for raw in cut_records(lines.lines, lines.name):
            yield drive(raw, visitor_factory(), tokenize)


def split_records(source: Source, *, name: str | None = None) -> Iterator[RawRecord]:
    """Every record of ``source`` as a :class:`RawRecord`, cut but not tokenized.

    The cheap first layer alone (about a sixth of reading), for a caller that hands
    the records to other processes: :func:`build_record` makes each a ``Record``,
    exactly as :func:`read_records` would have. A binary source (a path, compressed
    or not, standard input, ``bytes``, a binary stream) is cut in blocks by
    :func:`~partita.notation.blockcut.cut_stream`: the same records, about a fifth
    of the line path's time.
    """
    with LineSource(source, name) as lines:
        yield from _cut(lines)


def _cut(lines: LineSource) -> Iterator[RawRecord]:
    """The records of an open source: a binary one cut in blocks (the same records,
    faster), a text one line by line."""
    if lines.binary is not None:
        return cut_stream(lines.binary, lines.name)
    return cut_records(lines.lines, lines.name)


def build_record(raw: RawRecord, *, reference: bool = False) -> Record:
    """The :class:`Record` of one raw record from :func:`split_records`."""
    record: Record = drive(raw, RecordBuilder(), tokenizer(reference))
    return record


def parse_record(text: str, *, source: SourceRef | None = None, reference: bool = False) -> Record:
    """One record from a string (the whole string: a tag line after the movetext is a
    problem, not a new record). ``source`` says where the text starts in its file."""
    lines = text_lines(io.StringIO(text))
    raw = next(cut_records(lines, "<string>", split=False), None)
    if raw is None:
        raw = RawRecord("", SourceRef(), 0, [])
    if source is not None:
        raw.source = SourceRef(
            file=source.file,
            index=source.index,
            line=source.line + raw.source.line - 1,
            byte_offset=source.byte_offset + raw.source.byte_offset,
        )
    return build_record(raw, reference=reference)
