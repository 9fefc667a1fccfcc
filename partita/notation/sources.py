"""Where records are read from: paths, binary or text streams, ``bytes`` and ``str``.

A :class:`LineSource` opens any accepted source and gives its lines one at a time as
:data:`Line` tuples, normalised the same way whatever the source:

- a line ends with LF, CRLF or a lone CR (so no record text ever holds a CR);
- U+FEFF (a byte-order mark) is dropped wherever it stands: at the start of a file
  it marks UTF-8, elsewhere it is what concatenating files leaves behind, and it is
  invisible in every editor;
- invalid UTF-8 is read as U+FFFD, the replacement character, with a problem; so
  is U+FFFD itself, which stands for text lost on the way (so the problem comes
  back when the text, stored with its U+FFFD, is read again);
- a line longer than :data:`MAX_LINE_LENGTH` is read up to that length, with a
  problem; the rest of it is skipped without being held in memory, and a U+FFFD
  ends what is kept, in the limit, where the line was cut (so the archive's text,
  read again, has its problem still: the U+FFFD's).

Sizes count the bytes of the file (line end, BOMs and skipped bytes included), so
byte offsets stay exact; for a text source they count the UTF-8 bytes of the text
as the stream gives it.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic, cast

from partita.notation.inputs import input_name, open_input

__all__ = [
    "MAX_LINE_LENGTH",
    "Line",
    "LineSource",
    "Source",
    "binary_lines",
    "text_lines",
]

#: What the reader accepts (see :func:`partita.notation.reader.read_records`).
Source = str | os.PathLike[str] | bytes | io.IOBase | Any
#: One line: its text (normalised, without its end), its size in the source, the
#: bytes of BOMs dropped before its first character, and its problems as
#: ``(column, message)`` pairs (``None``: none).
Line = tuple[str, int, int, list[tuple[int, str]] | None]

#: The longest line read whole, in bytes of a file (characters of a ``str`` or a
#: text stream). No game's record comes near it (a canonical line holds at most 80
#: characters, a shuffle token of a 55-card deck about 250); the rest of a
#: longer line is skipped, so that memory stays bounded whatever the input.
MAX_LINE_LENGTH = 1_000_000

_REPLACEMENT = "\ufffd"
_INVALID_UTF8 = (
    "invalid UTF-8: a byte that is no UTF-8, or U+FFFD, the replacement character that "
    "stands for one (the file must be UTF-8)"
)
#: The UTF-8 bytes of U+FFFD, which ends a line cut at the limit.
_MARK_BYTES = len(_REPLACEMENT.encode("utf-8"))
_BOM = "\ufeff"
_BOM_BYTES = 3
#: How much of an over-long line is read at a time while it is skipped.
_SKIP_CHUNK = 1 << 16


class LineSource:
    """Opens any accepted source and gives its lines (:data:`Line`) as ``lines``."""

    def __init__(self, source: Source, name: str | None) -> None:
        self._close = None
        self.lines: Iterator[Line]
        #: The binary stream the lines come from (``None`` for text), for a reader
        #: that cuts it in blocks (:mod:`~partita.notation.blockcut`) instead.
        self.binary: Any = None
        if isinstance(source, bytes | bytearray | memoryview):
            self.binary = io.BytesIO(bytes(source))
            self.lines = binary_lines(self.binary)
            self.name = name or "<bytes>"
        elif isinstance(source, str) and (not source or "\n" in source or "\r" in source):
            self.lines = text_lines(io.StringIO(source))
            self.name = name or "<string>"
        elif isinstance(source, str | os.PathLike):
            stream = open_input(source)  # "-" is stdin; compressed files decompressed
            self._close = stream
            self.binary = stream
            self.lines = binary_lines(stream)
            self.name = name or input_name(source)
        elif hasattr(source, "read"):
            stream_name = getattr(source, "name", None)
            self.name = name or (str(stream_name) if stream_name is not None else "<stream>")
            if isinstance(source.read(0), bytes):
                self.binary = source
                self.lines = binary_lines(source)
            else:
                self.lines = text_lines(source)
        else:
            raise TypeError(f"cannot read records from {type(source).__name__}")

    def __enter__(self) -> LineSource:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._close is not None:
            self._close.close()


def binary_lines(stream: Any, limit: int = MAX_LINE_LENGTH) -> Iterator[Line]:
    """The lines of a binary stream, decoded as UTF-8 (see the module's rules)."""
    for raw, size, skipped in _Splitter(_reader(stream), b"\r", b"\n", limit).lines():
        yield _line(raw.decode("utf-8", "replace"), size, skipped, limit, "bytes")


def text_lines(stream: Any, limit: int = MAX_LINE_LENGTH) -> Iterator[Line]:
    """The lines of a text stream; sizes count the UTF-8 bytes of the text as given."""
    for text, size, skipped in _Splitter(_reader(stream), "\r", "\n", limit).lines():
        if not text.isascii():  # sizes in bytes, as a file would have them
            size += len(text.encode("utf-8", "surrogatepass")) - len(text)
        yield _line(text, size, skipped, limit, "characters")


def _reader(stream: Any) -> Callable[[int], Any]:
    readline = getattr(stream, "readline", None)
    if readline is None:
        raise TypeError(f"cannot read lines from {type(stream).__name__}")
    return cast(Callable[[int], Any], readline)


def _line(text: str, size: int, skipped: int, limit: int, unit: str) -> Line:
    lead = 0
    problems: list[tuple[int, str]] | None = None
    if _BOM in text:
        stripped = text.lstrip(_BOM)
        lead = (len(text) - len(stripped)) * _BOM_BYTES
        text = stripped.replace(_BOM, "")
    if _REPLACEMENT in text:  # the first one of the line
        problems = [(text.index(_REPLACEMENT) + 1, _INVALID_UTF8)]
    if skipped:
        rest = f"{skipped:,} {unit}" if skipped > 1 else f"1 {unit[:-1]}"
        message = (
            f"line longer than {limit:,} {unit}: the rest of it ({rest}) is left out "
            "(U+FFFD marks the cut)"
        )
        problems = [*(problems or ()), (len(text) + 1, message)]
        text += _REPLACEMENT
    return text, size, lead, problems


class _Splitter(Generic[AnyStr]):
    """Cuts what ``readline`` gives (lines ended by LF, at most ``limit + 1`` long)
    into lines ended by LF, CRLF or CR, as ``(line, size, skipped)``: the line
    without its end, its size with its end, how much of it was skipped (past the
    limit). Works on bytes and on str alike."""

    readline: Callable[[int], AnyStr]
    cr: AnyStr
    lf: AnyStr
    carry: AnyStr
    limit: int

    def __init__(
        self, readline: Callable[[int], AnyStr], cr: AnyStr, lf: AnyStr, limit: int
    ) -> None:
        self.readline = readline
        self.cr = cr
        self.lf = lf
        self.limit = limit
        self.carry = cr[:0]  # the start of a line that a lone CR left unfinished

    def lines(self) -> Iterator[tuple[AnyStr, int, int]]:
        cr, lf, limit = self.cr, self.lf, self.limit
        while True:
            carry = self.carry
            self.carry = cr[:0]
            if carry[-1:] == lf or len(carry) > limit:  # a whole line read already
                data = carry
            else:
                data = carry + self.readline(limit + 1 - len(carry))
            if not data:
                return
            if data[-1:] == lf:
                body, ending = data[:-1], 1
                if body[-1:] == cr:
                    body, ending = body[:-1], 2
                complete = True
            else:
                body, ending = data, 0
                complete = len(data) <= limit  # shorter than asked: the stream ended
            if cr not in body:
                if complete:
                    yield body, len(body) + ending, 0
                else:
                    yield self._too_long(body)
                continue
            pieces = body.split(cr)
            last = pieces.pop()
            crlf = 0
            if not complete and not last:  # the limit fell right after a CR: a CRLF?
                following = self.readline(1)
                if following == lf:
                    crlf = 1
                else:
                    self.carry = following
            for piece in pieces[:-1]:
                yield piece, len(piece) + 1, 0
            yield pieces[-1], len(pieces[-1]) + 1 + crlf, 0
            if complete:
                if last or ending:
                    yield last, len(last) + ending, 0
            elif last:
                self.carry = last

    def _too_long(self, body: AnyStr) -> tuple[AnyStr, int, int]:
        """The start of a line longer than ``limit``, short enough that it and the
        U+FFFD that marks the cut fit in the limit; the rest of it is read and
        dropped (up to its end: LF, CRLF or CR)."""
        cr, lf = self.cr, self.lf
        kept = body[: self.limit - (_MARK_BYTES if isinstance(body, bytes) else 1)]
        if isinstance(kept, bytes):
            cut = len(kept)
            while cut and (body[cut] & 0xC0) == 0x80:  # not inside a UTF-8 sequence
                cut -= 1
            kept = kept[:cut]
        skipped = len(body) - len(kept)
        size = len(body)
        while True:
            chunk = self.readline(min(_SKIP_CHUNK, self.limit))
            if not chunk:
                return kept, size, skipped
            at = chunk.find(cr)
            end = chunk.find(lf)
            if at >= 0 and (end < 0 or at < end):
                if at + 1 == len(chunk):  # a CR last: a CRLF across two reads?
                    following = self.readline(1)
                    if following == lf:
                        return kept, size + at + 2, skipped + at
                    self.carry = following
                    return kept, size + at + 1, skipped + at
                if chunk[at + 1 : at + 2] == lf:
                    self.carry = chunk[at + 2 :]
                    return kept, size + at + 2, skipped + at
                self.carry = chunk[at + 1 :]
                return kept, size + at + 1, skipped + at
            if end >= 0:
                return kept, size + end + 1, skipped + end
            size += len(chunk)
            skipped += len(chunk)
