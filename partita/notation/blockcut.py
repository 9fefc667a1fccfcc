"""Cutting a binary stream into records block by block: the fast way for plain text.

The line path (:func:`~partita.notation.sources.binary_lines` then
:func:`~partita.notation.splitter.cut_records`) costs three Python generator steps
per line; an import's reading process spends most of its cutting time there. Here
the stream is read in large blocks of whole lines. A block that is *plain* (valid
UTF-8, no CR, no BOM, no U+FFFD, no NUL, no escape line, no line over the length
limit) is cut with one regex per record and ``str`` methods, except the lines from one holding
a ``{`` to the one that closes the brace comment (braces change how lines split);
those lines, and any block that is not plain, go through the line path, which
carries on from the same :class:`~partita.notation.splitter.LineCutter` state, so
records, line numbers and byte offsets come out exactly as the line path alone
gives them.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from partita.notation import pgr
from partita.notation.model import SourceRef
from partita.notation.sources import MAX_LINE_LENGTH, binary_lines
from partita.notation.splitter import ESCAPE, LineCutter, RawRecord

__all__ = ["BLOCK_SIZE", "cut_stream"]

#: Bytes read at a time: large enough that the per-block checks cost nothing, well
#: under :data:`~partita.notation.sources.MAX_LINE_LENGTH` so a block never needs
#: its lines measured.
BLOCK_SIZE = 16 * 1024

#: Bytes that make a block not plain: what sources.py normalises (CR, BOM, U+FFFD)
#: and NUL. (A ``{`` sends only its lines to the line path: see ``_cut_block``.)
_SPECIAL = (b"\r", b"\x00")
_SPECIAL_UTF8 = (b"\xef\xbb\xbf", b"\xef\xbf\xbd")
_ESCAPE = ESCAPE.encode()
_ESCAPE_LINE = b"\n" + _ESCAPE

_BLANK = r"[ \t\f\v]*\n"
_TAG_START = r"[ \t]*\["
#: One record from a line start: blank lines before it, its tag section (tag lines
#: and blank lines), its first movetext line (non-blank, no tag line), and every
#: following line up to the next line starting with ``[``.
_RECORD = re.compile(
    rf"(?:{_BLANK})*"
    rf"(?P<tags>(?:{_TAG_START}[^\n]*\n|{_BLANK})*)"
    rf"(?P<movetext>(?!{_TAG_START})[ \t\f\v]*[^ \t\f\v\n][^\n]*\n)"
    rf"(?:(?!{_TAG_START})[^\n]*\n)*"
)
_NEXT_TAG_LINE = re.compile(rf"^{_TAG_START}", re.MULTILINE)
_WHITESPACE = pgr.WHITESPACE


def cut_stream(
    stream: Any, name: str, *, block_size: int = BLOCK_SIZE, limit: int = MAX_LINE_LENGTH
) -> Iterator[RawRecord]:
    """The records of a binary stream (with ``read``), exactly as
    ``cut_records(binary_lines(stream, limit), name)`` gives them."""
    cutter = LineCutter(name)
    pending = b""  # an unfinished last line, carried to the next block
    blocks = _Blocks(stream, limit)
    while True:
        try:
            data = blocks.read(block_size)
        except Exception:
            # The lines read before the damage, cut as the line path would have.
            data = pending + blocks.partial
            yield from _cut_lines(cutter, data[: data.rfind(b"\n") + 1], limit)
            raise
        if not data:
            break
        data = pending + data if pending else data
        end = data.rfind(b"\n") + 1
        if end == len(data):
            block, pending = data, b""
        else:
            block, pending = data[:end], data[end:]
        del data  # one copy of the block held, not two
        if len(pending) > limit:  # a line too long: the line path skips it in parts
            yield from _cut_lines(cutter, block, limit)
            yield from cutter.feed(binary_lines(_Prefixed(pending, stream), limit))
            yield from cutter.finish()
            return
        if block:
            yield from _cut_block(cutter, block, limit)
        del block
    if pending:
        yield from _cut_block(cutter, pending, limit)
    yield from cutter.finish()


class _Blocks:
    """Reads blocks from a stream: by ``read1`` (what is there, up to the size: a
    pipe gives its records as they come) or ``read``; compressed data by whole lines
    (``readline``), so that damage found part way through loses no more than the
    line path loses: the lines read before it stay in ``partial``."""

    def __init__(self, stream: Any, limit: int) -> None:
        self._stream = stream
        self._limit = limit
        self.partial = b""
        self.read: Callable[[int], bytes]
        if getattr(stream, "compression", None) is not None:
            self.read = self._read_lines
        else:
            self.read = getattr(stream, "read1", None) or stream.read

    def _read_lines(self, size: int) -> bytes:
        lines: list[bytes] = []
        gathered = 0
        readline, limit = self._stream.readline, self._limit
        try:
            while gathered < size:
                line: bytes = readline(limit + 1)
                if not line:
                    break
                lines.append(line)
                gathered += len(line)
        except Exception:
            self.partial = b"".join(lines)
            raise
        return b"".join(lines)


def _cut_lines(cutter: LineCutter, block: bytes, limit: int) -> Iterator[RawRecord]:
    """The line path over ``block``."""
    return cutter.feed(binary_lines(io.BytesIO(block), limit))


def _cut_block(cutter: LineCutter, block: bytes, limit: int) -> Iterator[RawRecord]:
    """The records that ``block`` (whole lines, the last one ended by LF unless the
    stream ends there) finishes. A block that is not plain goes through the line
    path; in a plain one, only the lines from one with a ``{`` to the one that
    closes the brace comment do."""
    text = _plain_text(block, limit)
    if text is None:
        yield from _cut_lines(cutter, block, limit)
        return
    ascii_only = block.isascii()
    final = not text.endswith("\n")  # the stream's last line, without its LF
    if final:
        text += "\n"
    length = len(text)
    position = 0
    while position < length:
        if cutter.in_brace:  # line by line until the comment closes
            end = text.index("\n", position) + 1
            yield from cutter.feed([_line(text[position : end - 1], ascii_only)])
            position = end
            continue
        brace = text.find("{", position)
        if brace < 0:
            yield from _cut_plain(cutter, text[position:], ascii_only, final)
            return
        line_start = max(text.rfind("\n", position, brace) + 1, position)
        if line_start > position:
            yield from _cut_plain(cutter, text[position:line_start], ascii_only, False)
        end = text.index("\n", brace) + 1
        yield from cutter.feed([_line(text[line_start : end - 1], ascii_only)])
        position = end


def _line(text: str, ascii_only: bool) -> tuple[str, int, int, None]:
    """A line of a plain block as the line path gives it."""
    return text, (len(text) if ascii_only else len(text.encode("utf-8"))) + 1, 0, None


def _plain_text(block: bytes, limit: int) -> str | None:
    """``block`` decoded, if it is plain (see the module's docstring); else ``None``."""
    for special in _SPECIAL:  # a brace is plain enough: see _cut_block
        if special in block:
            return None
    if block.startswith(_ESCAPE) or _ESCAPE_LINE in block:  # an escape line ends a record
        return None
    if not block.isascii():
        for special in _SPECIAL_UTF8:
            if special in block:
                return None
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError:
            return None
    else:
        text = block.decode("ascii")
    if len(block) > limit and max(map(len, block.split(b"\n"))) > limit:
        return None
    return text


def _cut_plain(cutter: LineCutter, text: str, ascii_only: bool, final: bool) -> Iterator[RawRecord]:
    """Cut plain lines (each ended by LF, no ``{``, no brace comment open before
    them), carrying on from the state of ``cutter`` and leaving in it the record they
    do not finish (unless ``final``: the stream ends after them)."""
    length = len(text)
    counter = _Counter(cutter, text, ascii_only)
    position = 0
    # A tag section carried from the block before: its lines one by one, until
    # the movetext begins (a few lines).
    while cutter.buffer and cutter.movetext_start < 0 and position < length:
        end = text.index("\n", position) + 1
        counter.lines_to(position)
        yield from cutter.feed([counter.line(position, end)])
        counter.counted = position = end
    if cutter.buffer and position < length:  # its movetext goes on to the next tag line
        found = _NEXT_TAG_LINE.search(text, position)
        stop = found.start() if found is not None else length
        _extend(cutter, text[position:stop])
        position = stop
        if found is None:
            counter.lines_to(length)
            return
        counter.lines_to(position)
        yield cutter.emit()
    match_record = _RECORD.match
    name = cutter.name
    index = cutter.index
    while position < length:
        found = match_record(text, position)
        if found is None:
            break
        start = found.start("tags")
        counter.lines_to(start)
        record_end = found.end()
        if record_end == length and not final:  # may go on in the next block
            lines = text[start:record_end].split("\n")
            lines.pop()
            cutter.index = index
            cutter.buffer = lines
            cutter.chars = record_end - start
            cutter.start_line, cutter.start_byte = cutter.line_number + 1, cutter.byte
            cutter.movetext_start = found.start("movetext") - start
            cutter.previous_blank = not lines[-1].strip(_WHITESPACE)
            counter.lines_to(length)
            return
        record = text[start:record_end]
        kept = record.rstrip(_WHITESPACE)
        line_end = record.find("\n", len(kept))
        yield RawRecord(
            record[:line_end] if line_end >= 0 else record,
            SourceRef(file=name, index=index, line=cutter.line_number + 1, byte_offset=cutter.byte),
            found.start("movetext") - start,
            [],
        )
        index += 1
        position = record_end
    cutter.index = index
    # What is left: blank lines, or a record's tag section, line by line.
    while position < length:
        end = text.index("\n", position) + 1
        counter.lines_to(position)
        yield from cutter.feed([counter.line(position, end)])
        counter.counted = position = end


class _Counter:
    """Keeps the line and byte counts of a :class:`LineCutter` up to a place in a
    plain block."""

    def __init__(self, cutter: LineCutter, text: str, ascii_only: bool) -> None:
        self.cutter = cutter
        self.text = text
        self.ascii_only = ascii_only
        self.counted = 0  # the place in text the cutter's counts stand at

    def lines_to(self, position: int) -> None:
        """Count the lines and bytes up to ``position`` (a line start)."""
        cutter, text, counted = self.cutter, self.text, self.counted
        cutter.line_number += text.count("\n", counted, position)
        if self.ascii_only:
            cutter.byte += position - counted
        else:
            cutter.byte += len(text[counted:position].encode("utf-8"))
        self.counted = position

    def line(self, start: int, end: int) -> tuple[str, int, int, None]:
        """The line ``text[start:end]`` (ended by LF) as the line path gives it."""
        return _line(self.text[start : end - 1], self.ascii_only)


def _extend(cutter: LineCutter, part: str) -> None:
    """Add the whole lines of ``part`` to the record being read."""
    if not part:
        return
    lines = part.split("\n")
    lines.pop()
    cutter.buffer.extend(lines)
    cutter.chars += len(part)
    cutter.previous_blank = not lines[-1].strip(_WHITESPACE)


class _Prefixed:
    """``prefix`` and then what ``stream`` gives, read by ``readline``: the rest of
    a stream for the line path, after a block cutter read its first bytes."""

    def __init__(self, prefix: bytes, stream: Any) -> None:
        self._prefix = prefix
        self._stream = stream

    def readline(self, size: int = -1) -> bytes:
        """A line (up to ``size`` bytes, LF included) of the prefix, then the stream."""
        prefix = self._prefix
        if not prefix:
            line: bytes = self._stream.readline(size)
            return line
        if size < 0:
            size = sys.maxsize
        end = prefix.find(b"\n", 0, size) + 1 or min(size, len(prefix))
        line, self._prefix = prefix[:end], prefix[end:]
        if line.endswith(b"\n") or len(line) >= size or self._prefix:
            return line
        rest: bytes = self._stream.readline(size - len(line))
        return line + rest
