"""Cutting a file's lines into records, before any tokenizing (the reader's first layer).

The splitter reads lines one at a time and holds one record's lines at a time, so
memory stays flat however many records a file holds. Each record comes out as a
:class:`RawRecord`: its text, where it starts (index, line, byte offset), where its
tag section ends, and the problems found in its lines (invalid UTF-8, a line too
long). The lines come normalised from :mod:`~partita.notation.sources`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from partita.notation import pgr
from partita.notation.model import SourceRef
from partita.notation.sources import Line

__all__ = ["ESCAPE", "LineCutter", "RawRecord", "cut_records", "record_edges"]

#: What starts an escape line (PGN's escape mechanism): a line that belongs to no
#: record, and ends the one being read.
ESCAPE = "%"


class RawRecord:
    """A record's text and place, before tokenizing: ``text`` (lines joined by LF,
    trailing blank lines dropped), ``source``, ``movetext_start`` (offset where the
    tag section ends) and ``problems`` (``(offset, message)`` found in the lines)."""

    __slots__ = ("text", "source", "movetext_start", "problems")

    def __init__(
        self,
        text: str,
        source: SourceRef,
        movetext_start: int,
        problems: list[tuple[int, str]],
    ) -> None:
        self.text = text
        self.source = source
        self.movetext_start = movetext_start
        #: Problems found while reading lines: (offset, message).
        self.problems = problems


_WHITESPACE = pgr.WHITESPACE
_BRACE_EVENT = re.compile(r"[{;\[]")
_TAG_AT = re.compile(pgr.TAG_PATTERN)
_TAG_LINE = re.compile(rf"[ \t]*{pgr.TAG_PATTERN}[{_WHITESPACE}]*")


def _brace_after(line: str, in_brace: bool) -> bool:
    """Whether a brace comment is still open at the end of ``line`` (open at its start
    if ``in_brace``), reading the line the way the tokenizer does."""
    position = 0
    while True:
        if in_brace:
            close = line.find("}", position)
            if close < 0:
                return True
            in_brace, position = False, close + 1
            continue
        event = _BRACE_EVENT.search(line, position)
        if event is None:
            return False
        char = event.group()
        if char == ";":
            return False  # the rest of the line is a comment
        if char == "[":
            tag = _TAG_AT.match(line, event.start())
            if tag is None:
                return False  # a malformed tag pair runs to the end of the line
            position = tag.end()
            continue
        in_brace, position = True, event.end()


def cut_records(lines: Iterable[Line], name: str, *, split: bool = True) -> Iterator[RawRecord]:
    """Cut lines into records.

    A record starts at its first non-blank line. Once its movetext has begun (a
    non-blank line that is no tag line, outside a brace comment), a line starting with
    ``[`` outside a brace comment starts the next record. Inside an unclosed brace
    comment, a whole tag-pair line after a blank line also does (so one missing
    ``}`` cannot swallow the rest of a file). Blank lines never split a record.
    An escape line (PGN's: ``%`` in its first column) belongs to no record and ends
    the one being read, wherever it stands: the separator an export writes between
    two records that the rules above would join (:func:`record_edges`).
    ``split=False`` makes all the lines one record (an escape line included).
    """
    cutter = LineCutter(name, split=split)
    yield from cutter.feed(lines)
    yield from cutter.finish()


class LineCutter:
    """The state of :func:`cut_records` between lines, kept so that a caller can feed
    it lines in several parts (and cut other parts itself, as
    :mod:`~partita.notation.blockcut` does with plain blocks): the record being
    read (its lines, place, movetext start, problems), whether a brace comment is
    open, and how many lines and bytes were read."""

    def __init__(self, name: str, *, split: bool = True) -> None:
        self.name = name
        self.split = split
        self.index = 0  # of the record being read (or the next one)
        self.buffer: list[str] = []  # the lines of the record being read
        self.chars = 0  # length of the record text so far, newlines included
        self.start_line = 0
        self.start_byte = 0
        self.movetext_start = -1
        self.problems: list[tuple[int, str]] = []
        self.in_brace = False
        self.previous_blank = False
        self.line_number = 0  # lines read
        self.byte = 0  # bytes read

    def emit(self) -> RawRecord:
        """The record being read, finished (trailing blank lines dropped); the next
        one starts empty."""
        buffer = self.buffer
        while buffer and not buffer[-1].strip(_WHITESPACE):
            buffer.pop()
        text = "\n".join(buffer)
        start = self.movetext_start if self.movetext_start >= 0 else len(text)
        source = SourceRef(
            file=self.name, index=self.index, line=self.start_line, byte_offset=self.start_byte
        )
        record = RawRecord(text, source, min(start, len(text)), self.problems)
        self.index += 1
        self.buffer, self.chars, self.movetext_start, self.problems = [], 0, -1, []
        self.in_brace = False
        return record

    def finish(self) -> Iterator[RawRecord]:
        """The last record, if one is being read (at the end of the input)."""
        if self.buffer:
            yield self.emit()

    def feed(self, lines: Iterable[Line]) -> Iterator[RawRecord]:
        """The records that ``lines`` finish; the unfinished one stays."""
        split = self.split
        buffer = self.buffer
        chars = self.chars
        movetext_start = self.movetext_start
        problems = self.problems
        in_brace = self.in_brace
        previous_blank = self.previous_blank
        line_number = self.line_number
        byte = self.byte
        for text, size, lead, line_problems in lines:
            line_number += 1
            line_byte = byte + lead
            byte += size
            if split and text[:1] == ESCAPE:  # no record's line: it ends the one read
                if buffer:
                    self.buffer, self.movetext_start, self.problems = (
                        buffer,
                        movetext_start,
                        problems,
                    )
                    yield self.emit()
                    buffer, chars, movetext_start, problems = self.buffer, 0, -1, self.problems
                in_brace, previous_blank = False, True
                continue
            blank = not text.strip(_WHITESPACE)
            if split and buffer:
                new_record = False
                if not in_brace:
                    new_record = movetext_start >= 0 and text.lstrip(" \t").startswith("[")
                elif previous_blank and _TAG_LINE.fullmatch(text):
                    new_record = True
                if new_record:
                    self.buffer, self.movetext_start, self.problems = (
                        buffer,
                        movetext_start,
                        problems,
                    )
                    yield self.emit()  # which starts the next record empty
                    buffer, chars, movetext_start, problems = self.buffer, 0, -1, self.problems
                    in_brace = False
            if not buffer:
                if blank:
                    continue
                self.start_line, self.start_byte = line_number, line_byte
            if (
                movetext_start < 0
                and not in_brace
                and not blank
                and not text.lstrip(" \t").startswith("[")
            ):
                movetext_start = chars
            if line_problems:
                problems.extend((chars + column - 1, message) for column, message in line_problems)
            buffer.append(text)
            chars += len(text) + 1
            if in_brace or "{" in text:
                in_brace = _brace_after(text, in_brace)
            previous_blank = blank
        self.buffer, self.chars, self.movetext_start, self.problems = (
            buffer,
            chars,
            movetext_start,
            problems,
        )
        self.in_brace, self.previous_blank = in_brace, previous_blank
        self.line_number, self.byte = line_number, byte


def record_edges(text: str) -> tuple[bool, bool]:
    """Whether the record ``text`` (one record's text, as the reader gives it),
    written after another record and a blank line, starts a record of its own (its
    first line is a tag line), and whether a tag line written after it starts the
    next record (its movetext has begun and no brace comment is open at its end).
    Where either is false, a writer of several records puts an escape line
    (:data:`ESCAPE`) between them, or they would be read as one."""
    first = text[: text.find("\n")] if "\n" in text else text
    starts = first.lstrip(" \t").startswith("[") and not first.startswith(ESCAPE)
    if starts and "{" not in text and ESCAPE not in text:  # the common case, at C speed
        return True, _MOVETEXT_LINE.search(text) is not None
    cutter = LineCutter("")
    lines = ((line, len(line) + 1, 0, None) for line in text.split("\n"))
    if next(cutter.feed(lines), None) is not None:
        return starts, False  # read again, it splits: keep it apart from what follows
    return starts, cutter.movetext_start >= 0 and not cutter.in_brace


#: A line that begins a movetext (outside a brace comment): not blank, no tag line.
_MOVETEXT_LINE = re.compile(rf"^[ \t]*+(?!\[)[^\n]*?[^{_WHITESPACE}]", re.MULTILINE)
