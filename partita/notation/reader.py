"""Reading PGR files: a streaming record splitter, a visitor protocol, a tree builder.

Three layers, each knowing one thing (after python-chess's ``pgn`` module):

1. the *splitter* reads a file line by line and cuts it into records (memory stays
   flat however many records the file holds), noting each record's index, first
   line and byte offset;
2. the *driver* tokenizes a record (the fast :mod:`~partita.notation.scanner` by
   default, the pyparsing reference :mod:`~partita.notation.pgr` on request), checks
   the structure (parentheses, what a NAG or a variation follows, the result) and
   calls a :class:`RecordVisitor`; a visitor may skip the movetext cheaply;
3. visitors: :class:`RecordBuilder` builds a :class:`~partita.notation.model.Record`
   with an explicit stack (10,000 nested variations are fine), :class:`HeaderCollector`
   keeps only the tags.

Problems are data: every syntax problem becomes a :class:`~partita.notation.problems.Problem`
in ``Record.syntax_problems`` and reading goes on with the next record.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast

from partita.notation import pgr, scanner
from partita.notation.inputs import input_name, open_input
from partita.notation.model import Node, Record, SourceRef
from partita.notation.pgr import (
    BAD_TAG,
    CLOSE,
    COMMENT,
    ERROR_KINDS,
    LINE_COMMENT,
    MOVE,
    NAG,
    NUMBER,
    OPEN,
    RESULT,
    SUFFIX,
    TAG,
    UNCLOSED_COMMENT,
)
from partita.notation.problems import KINDS, Problem

__all__ = [
    "SKIP",
    "HeaderCollector",
    "RawRecord",
    "RecordBuilder",
    "RecordVisitor",
    "build_record",
    "parse_record",
    "read_headers",
    "read_records",
    "record_context",
    "split_records",
    "visit_records",
]

Source = str | os.PathLike[str] | bytes | io.IOBase | Any


class _Skip:
    """The value a visitor returns to skip the rest of a record (see :data:`SKIP`)."""

    _instance: _Skip | None = None

    def __new__(cls) -> _Skip:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "SKIP"


#: Returned by :meth:`RecordVisitor.begin_record` (skip the whole record) or
#: :meth:`RecordVisitor.end_tags` (skip the movetext).
SKIP = _Skip()


# -- the visitor protocol -----------------------------------------------------------------
class RecordVisitor:
    """Receives the events of one record, in text order; :meth:`result` gives what it made.

    The driver calls these only in a well-formed order: tags first, a move before any
    suffix, NAG or variation of its level, balanced variations, at most one result, at
    depth 0. Whatever breaks that order is reported with :meth:`visit_problem` instead.
    Offsets are character offsets into the record's text (``Record.position`` turns
    them into a line and a column).
    """

    def begin_record(self, source: SourceRef, text: str) -> _Skip | None:
        """A record starts; return :data:`SKIP` to skip it entirely."""
        return None

    def visit_tag(self, name: str, value: str, offset: int) -> None:
        """One tag pair (the value unescaped); a repeated name is reported, not visited."""

    def end_tags(self) -> _Skip | None:
        """The tag section is over; return :data:`SKIP` to skip the movetext."""
        return None

    def visit_move(self, move: str, offset: int, written_number: tuple[int, bool] | None) -> None:
        """A move token as written, with the move number written before it, if any."""

    def visit_suffix(self, suffix: str, offset: int) -> None:
        """``!``, ``?``, ``!!``, ``??``, ``!?`` or ``?!`` on the last move."""

    def visit_nag(self, nag: int, offset: int) -> None:
        """A NAG ``$N`` on the last move."""

    def visit_comment(self, text: str, offset: int) -> None:
        """A comment (``{...}`` or ``;``), stripped, white-space runs made one space."""

    def begin_variation(self) -> None:
        """``(``: an alternative to the last move starts."""

    def end_variation(self) -> None:
        """``)``: back to the line the variation left."""

    def visit_result(self, result: str, offset: int) -> None:
        """The result token that ends the movetext."""

    def visit_problem(self, kind: str, message: str, offset: int, token: str | None) -> None:
        """A syntax problem (kind ``syntax`` or ``missing-result``) at ``offset``."""

    def end_record(self) -> None:
        """The record is over."""

    def result(self) -> Any:
        """What the visitor made of the record (yielded by :func:`visit_records`)."""
        return None


def record_context(tags: dict[str, str]) -> str:
    """The record's Event and players, to recognise it in a long file."""
    players = [tags[f"Player{n}"] for n in range(1, 5) if f"Player{n}" in tags]
    parts = [tags["Event"]] if tags.get("Event") else []
    if players:
        parts.append(" - ".join(players))
    return ", ".join(parts)


class RecordBuilder(RecordVisitor):
    """Builds a :class:`Record` with an explicit stack (no recursion at any depth).

    Comments before the first move go to the root; a comment right after ``(`` to
    the ``starting_comments`` of the variation's first move; any other comment,
    NAG or suffix to the move before it. A variation after a move is an
    alternative to that move: a later child of that move's parent.
    """

    def begin_record(self, source: SourceRef, text: str) -> None:
        self.record = Record(source=source, text=text)
        self._current = self.record.root
        self._parent: Node | None = None
        self._stack: list[tuple[Node, Node | None]] = []
        self._starting: list[str] | None = None
        self._problems: list[tuple[str, str, int, str | None]] = []

    def visit_tag(self, name: str, value: str, offset: int) -> None:
        self.record.tags[name] = value

    def visit_move(self, move: str, offset: int, written_number: tuple[int, bool] | None) -> None:
        node = Node(move, offset=offset, written_number=written_number)
        if self._starting is not None:
            node.starting_comments = self._starting
            self._starting = None
        self._current.children.append(node)
        self._parent = self._current
        self._current = node

    def visit_suffix(self, suffix: str, offset: int) -> None:
        self._current.suffix = suffix

    def visit_nag(self, nag: int, offset: int) -> None:
        self._current.nags.append(nag)

    def visit_comment(self, text: str, offset: int) -> None:
        if self._starting is not None:
            self._starting.append(text)
        else:
            self._current.comments.append(text)

    def begin_variation(self) -> None:
        self._stack.append((self._current, self._parent))
        assert self._parent is not None, "a variation opens after a move"
        self._current, self._parent = self._parent, None  # the next move is a sibling
        self._starting = []

    def end_variation(self) -> None:
        leftover = self._starting
        self._starting = None
        self._current, self._parent = self._stack.pop()
        if leftover:  # comments of an empty variation: keep them on the move
            self._current.comments.extend(leftover)

    def visit_result(self, result: str, offset: int) -> None:
        self.record.result = result
        self.record.result_offset = offset

    def visit_problem(self, kind: str, message: str, offset: int, token: str | None) -> None:
        self._problems.append((kind, message, offset, token))

    def end_record(self) -> None:
        if not self._problems:
            return
        record = self.record
        context = record_context(record.tags)
        locate = _Locator(record)
        source = record.source
        record.syntax_problems.extend(
            Problem(
                kind=kind,
                message=message,
                severity=KINDS[kind],
                file=source.file,
                line=line,
                column=column,
                record=source.index,
                token=token,
                context=context,
            )
            for kind, message, offset, token in sorted(self._problems, key=_by_offset)
            for line, column in (locate(offset),)
        )

    def result(self) -> Record:
        return self.record


def _by_offset(problem: tuple[str, str, int, str | None]) -> int:
    return problem[2]


class HeaderCollector(RecordVisitor):
    """Keeps only where a record is and its tags; skips the movetext unread."""

    def begin_record(self, source: SourceRef, text: str) -> None:
        self.source = source
        self.tags: dict[str, str] = {}

    def visit_tag(self, name: str, value: str, offset: int) -> None:
        self.tags[name] = value

    def end_tags(self) -> _Skip:
        return SKIP

    def result(self) -> tuple[SourceRef, dict[str, str]]:
        return self.source, self.tags


class _Locator:
    """Line and column of offsets into a record's text, counting forward from the
    last one asked (problems come in text order), so many problems stay linear."""

    def __init__(self, record: Record) -> None:
        self.text = record.text
        self.first_line = record.source.line
        self.offset = 0
        self.line = record.source.line
        self.line_start = 0

    def __call__(self, offset: int) -> tuple[int, int]:
        if offset < 0:
            return self.first_line, 1
        if offset < self.offset:
            self.offset, self.line, self.line_start = 0, self.first_line, 0
        text = self.text
        self.line += text.count("\n", self.offset, offset)
        newline = text.rfind("\n", self.offset, offset)
        if newline >= 0:
            self.line_start = newline + 1
        self.offset = offset
        return self.line, offset - self.line_start + 1


# -- public API -------------------------------------------------------------------------------
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
    tokenize = pgr.tokenize if reference else scanner.tokenize
    with _LineSource(source, name) as lines:
        for raw in _split_records(lines.lines, lines.name):
            yield _drive(raw, visitor_factory(), tokenize)


def split_records(source: Source, *, name: str | None = None) -> Iterator[RawRecord]:
    """Every record of ``source`` as a :class:`RawRecord`, cut but not tokenized.

    The cheap first layer alone (about a sixth of reading), for a caller that hands
    the records to other processes: :func:`build_record` makes each a ``Record``,
    exactly as :func:`read_records` would have.
    """
    with _LineSource(source, name) as lines:
        yield from _split_records(lines.lines, lines.name)


def build_record(raw: RawRecord, *, reference: bool = False) -> Record:
    """The :class:`Record` of one raw record from :func:`split_records`."""
    record: Record = _drive(raw, RecordBuilder(), pgr.tokenize if reference else scanner.tokenize)
    return record


def parse_record(text: str, *, source: SourceRef | None = None, reference: bool = False) -> Record:
    """One record from a string (the whole string: a tag line after the movetext is a
    problem, not a new record). ``source`` says where the text starts in its file."""
    lines = _text_lines(io.StringIO(text))
    raw = next(_split_records(lines, "<string>", split=False), None)
    if raw is None:
        raw = RawRecord("", SourceRef(), 0, [])
    if source is not None:
        raw.source = SourceRef(
            file=source.file,
            index=source.index,
            line=source.line + raw.source.line - 1,
            byte_offset=source.byte_offset + raw.source.byte_offset,
        )
    tokenize = pgr.tokenize if reference else scanner.tokenize
    record: Record = _drive(raw, RecordBuilder(), tokenize)
    return record


# -- lines ----------------------------------------------------------------------------------------
class _LineSource:
    """Opens any accepted source and gives its lines as ``(text, bytes, bad_column)``."""

    def __init__(self, source: Source, name: str | None) -> None:
        self._close = None
        if isinstance(source, bytes | bytearray | memoryview):
            self.lines = _binary_lines(io.BytesIO(bytes(source)))
            self.name = name or "<bytes>"
        elif isinstance(source, str) and (not source or "\n" in source or "\r" in source):
            self.lines = _text_lines(io.StringIO(source))
            self.name = name or "<string>"
        elif isinstance(source, str | os.PathLike):
            stream = open_input(source)  # "-" is stdin; compressed files decompressed
            self._close = stream
            self.lines = _binary_lines(stream)
            self.name = name or input_name(source)
        elif hasattr(source, "read"):
            stream_name = getattr(source, "name", None)
            self.name = name or (str(stream_name) if stream_name is not None else "<stream>")
            if isinstance(source.read(0), bytes):
                self.lines = _binary_lines(source)
            else:
                self.lines = _text_lines(cast("Iterable[str]", source))
        else:
            raise TypeError(f"cannot read records from {type(source).__name__}")

    def __enter__(self) -> _LineSource:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._close is not None:
            self._close.close()


def _binary_lines(stream: Iterable[bytes]) -> Iterator[tuple[str, int, int | None]]:
    for raw in stream:
        size = len(raw)
        if raw.endswith(b"\n"):
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        try:
            yield raw.decode("utf-8"), size, None
        except UnicodeDecodeError as error:
            column = len(raw[: error.start].decode("utf-8", "replace")) + 1
            yield raw.decode("utf-8", "replace"), size, column


def _text_lines(stream: Iterable[str]) -> Iterator[tuple[str, int, int | None]]:
    for line in stream:
        size = len(line) if line.isascii() else len(line.encode("utf-8", "surrogatepass"))
        if line.endswith("\n"):
            line = line[:-2] if line.endswith("\r\n") else line[:-1]
        yield line, size, None


# -- splitting a file into records -------------------------------------------------------------
class RawRecord:
    """A record's text and place, before tokenizing: ``text`` (lines joined by LF,
    trailing blank lines dropped), ``source``, ``movetext_start`` (offset where the
    tag section ends) and ``problems`` (``(offset, message)`` found in the lines)."""

    __slots__ = ("text", "source", "movetext_start", "problems")

    def __init__(
        self, text: str, source: SourceRef, movetext_start: int, problems: list[tuple[int, str]]
    ) -> None:
        self.text = text
        self.source = source
        self.movetext_start = movetext_start
        #: Problems found while reading lines: (offset, message).
        self.problems = problems


_WHITESPACE = pgr.WHITESPACE
_INVALID_UTF8 = "invalid UTF-8 byte (the file must be UTF-8; read as a replacement character)"
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


def _split_records(
    lines: Iterable[tuple[str, int, int | None]], name: str, *, split: bool = True
) -> Iterator[RawRecord]:
    """Cut lines into records.

    A record starts at its first non-blank line. Once its movetext has begun (a
    non-blank line that is no tag line, outside a brace comment), a line starting with
    ``[`` outside a brace comment starts the next record. Inside an unclosed brace
    comment, a whole tag-pair line after a blank line also does (so one missing
    ``}`` cannot swallow the rest of a file). Blank lines never split a record.
    """
    index = 0
    buffer: list[str] = []
    chars = 0  # length of the record text so far, newlines included
    start_line = start_byte = 0
    movetext_start = -1
    problems: list[tuple[int, str]] = []
    in_brace = False
    previous_blank = False
    line_number = 0
    byte = 0

    def emit() -> RawRecord:
        while buffer and not buffer[-1].strip(_WHITESPACE):
            buffer.pop()
        text = "\n".join(buffer)
        start = movetext_start if movetext_start >= 0 else len(text)
        source = SourceRef(file=name, index=index, line=start_line, byte_offset=start_byte)
        return RawRecord(text, source, min(start, len(text)), problems)

    for text, size, bad_column in lines:
        line_number += 1
        line_byte = byte
        byte += size
        if line_number == 1 and text.startswith("\ufeff"):
            text = text[1:]
            line_byte += 3
            if bad_column is not None:
                bad_column -= 1
        blank = not text.strip(_WHITESPACE)
        if split and buffer:
            new_record = False
            if not in_brace:
                new_record = movetext_start >= 0 and text.lstrip(" \t").startswith("[")
            elif previous_blank and _TAG_LINE.fullmatch(text):
                new_record = True
            if new_record:
                yield emit()
                index += 1
                buffer, chars, movetext_start, problems, in_brace = [], 0, -1, [], False
        if not buffer:
            if blank:
                continue
            start_line, start_byte = line_number, line_byte
        if (
            movetext_start < 0
            and not in_brace
            and not blank
            and not text.lstrip(" \t").startswith("[")
        ):
            movetext_start = chars
        if bad_column is not None:
            problems.append((chars + bad_column - 1, _INVALID_UTF8))
        buffer.append(text)
        chars += len(text) + 1
        if in_brace or "{" in text:
            in_brace = _brace_after(text, in_brace)
        previous_blank = blank
    if buffer:
        yield emit()


# -- driving a visitor through one record ---------------------------------------------------------
_AFTER_RESULT = "token '{token}' after the result '{result}': a record ends with its result"


def _drive(
    raw: RawRecord, visitor: RecordVisitor, tokenize: Callable[..., list[scanner.Token]]
) -> Any:
    text = raw.text
    if visitor.begin_record(raw.source, text) is SKIP:
        visitor.end_record()
        return visitor.result()
    problem = visitor.visit_problem
    for offset, message in raw.problems:
        problem("syntax", message, offset, None)

    # Tag section: tag pairs, and anything else on those lines kept for the movetext.
    start = raw.movetext_start
    pending: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    for token in tokenize(text, 0, start):
        kind = token[0]
        if kind == TAG:
            name, value = scanner.tag_pair(token[1])
            if name in seen:
                problem(
                    "syntax",
                    f"duplicate tag {name} (the first value is kept)",
                    token[2],
                    token[1],
                )
            else:
                seen.add(name)
                visitor.visit_tag(name, value, token[2])
        elif kind == BAD_TAG:
            _lexical(problem, token)
        else:
            pending.append(token)
    if visitor.end_tags() is SKIP:
        visitor.end_record()
        return visitor.result()
    tokens = pending + tokenize(text, start) if start < len(text) else pending

    # Movetext. ``levels`` holds, for the main line and each open variation, whether
    # a move has been seen there (0 none, 1 a move, 2 a move with its suffix).
    levels = [0]
    opened: list[int] = []  # offsets of the open '('
    dropped = 0  # depth inside a variation dropped for opening before any move
    dropped_offset = -1
    number: tuple[int, bool] | None = None
    result: str | None = None
    after_result_reported = False
    for token in tokens:
        kind, token_text, offset = token
        if kind in ERROR_KINDS:
            _lexical(problem, token)
            if kind != UNCLOSED_COMMENT or result is not None or dropped:
                continue
        if result is not None:
            if not after_result_reported:
                after_result_reported = True
                problem(
                    "syntax",
                    _AFTER_RESULT.format(token=token_text, result=result),
                    offset,
                    token_text,
                )
            continue
        if dropped:
            if kind == OPEN:
                dropped += 1
                continue
            if kind == CLOSE:
                dropped -= 1
                continue
            if kind != RESULT:
                continue
            problem(
                "syntax",
                "variation '(' is never closed before the result",
                dropped_offset,
                "(",
            )
            dropped = 0
        if kind == MOVE:
            visitor.visit_move(token_text, offset, number)
            number = None
            levels[-1] = 1
        elif kind == NUMBER:
            number = scanner.move_number(token_text)
        elif kind in (COMMENT, LINE_COMMENT, UNCLOSED_COMMENT):
            visitor.visit_comment(scanner.comment_text(kind, token_text), offset)
        elif kind == NAG:
            if levels[-1]:
                visitor.visit_nag(int(token_text[1:]), offset)
            else:
                problem("syntax", f"NAG '{token_text}' before any move", offset, token_text)
        elif kind == SUFFIX:
            if levels[-1] == 1:
                visitor.visit_suffix(token_text, offset)
                levels[-1] = 2
            elif levels[-1] == 2:
                problem(
                    "syntax",
                    f"second suffix '{token_text}' on one move (a move has at most one)",
                    offset,
                    token_text,
                )
            else:
                problem("syntax", f"suffix '{token_text}' before any move", offset, token_text)
        elif kind == OPEN:
            number = None
            if levels[-1]:
                visitor.begin_variation()
                levels.append(0)
                opened.append(offset)
            else:
                problem(
                    "syntax",
                    "variation '(' before any move: a variation is an alternative to "
                    "the move before it (the variation is left out)",
                    offset,
                    "(",
                )
                dropped, dropped_offset = 1, offset
        elif kind == CLOSE:
            number = None
            if opened:
                if not levels[-1]:
                    problem("syntax", "empty variation '()'", opened[-1], "(")
                levels.pop()
                opened.pop()
                visitor.end_variation()
            else:
                problem("syntax", "unmatched ')': no variation is open", offset, ")")
        elif kind == RESULT:
            if opened:
                _close_all(visitor, problem, levels, opened, "before the result")
            visitor.visit_result(token_text, offset)
            result = token_text
        elif kind == TAG:
            problem("syntax", f"tag pair '{token_text}' inside the movetext", offset, token_text)
    if result is None:
        end = len(text.rstrip(_WHITESPACE))
        if dropped:
            problem("syntax", "variation '(' is never closed", dropped_offset, "(")
        if opened:
            _close_all(visitor, problem, levels, opened, "")
        if not tokens or tokens[-1][0] != UNCLOSED_COMMENT:  # that one says it already
            problem(
                "missing-result",
                "the movetext does not end with a result token (1-0, 0-1, 1/2-1/2, *, ...)",
                end,
                None,
            )
    visitor.end_record()
    return visitor.result()


def _lexical(problem: Callable[..., None], token: tuple[str, str, int]) -> None:
    kind, token_text, offset = token
    found = scanner.lexical_problem(kind, token_text)
    if found is not None:
        delta, message = found
        shown = token_text if len(token_text) <= 40 else token_text[:40] + "..."
        problem("syntax", message, offset + delta, shown)


def _close_all(
    visitor: RecordVisitor,
    problem: Callable[..., None],
    levels: list[int],
    opened: list[int],
    when: str,
) -> None:
    count = len(opened)
    more = f" ({count} variations are open)" if count > 1 else ""
    when = f" {when}" if when else ""
    problem("syntax", f"variation '(' is never closed{when}{more}", opened[0], "(")
    for _ in range(count):
        visitor.end_variation()
    del levels[1:]
    opened.clear()
