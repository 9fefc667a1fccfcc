"""Where records are read from: paths, binary or text streams, ``bytes`` and ``str``.

A :class:`LineSource` opens any accepted source and gives its lines one at a time as
``(text, size, bad_column)``: the line without its line end, its size in the file
(bytes, the line end included, for exact byte offsets) and the column of the first
invalid UTF-8 byte (``None`` if the line decodes).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["Line", "LineSource", "Source", "binary_lines", "text_lines"]

#: What the reader accepts (see :func:`partita.notation.reader.read_records`).
Source = str | os.PathLike | bytes | io.IOBase | Any
#: One line: its text, its size in bytes, the column of an invalid UTF-8 byte.
Line = tuple[str, int, int | None]


class LineSource:
    """Opens any accepted source and gives its lines as ``(text, bytes, bad_column)``."""

    def __init__(self, source: Source, name: str | None) -> None:
        self._close = None
        self.lines: Iterator[Line]
        if isinstance(source, bytes | bytearray | memoryview):
            self.lines = binary_lines(io.BytesIO(bytes(source)))
            self.name = name or "<bytes>"
        elif isinstance(source, str) and (not source or "\n" in source or "\r" in source):
            self.lines = text_lines(io.StringIO(source))
            self.name = name or "<string>"
        elif isinstance(source, str | os.PathLike):
            stream = open(source, "rb")  # noqa: SIM115 - closed in __exit__
            self._close = stream
            self.lines = binary_lines(stream)
            self.name = name or os.fspath(source)
        elif hasattr(source, "read"):
            stream_name = getattr(source, "name", None)
            self.name = name or (str(stream_name) if stream_name is not None else "<stream>")
            if isinstance(source.read(0), bytes):
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


def binary_lines(stream: Iterable[bytes]) -> Iterator[Line]:
    """The lines of a binary stream, decoded as UTF-8 (an invalid byte is replaced)."""
    for raw in stream:
        size = len(raw)
        if raw.endswith(b"\n"):
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        try:
            yield raw.decode("utf-8"), size, None
        except UnicodeDecodeError as error:
            column = len(raw[: error.start].decode("utf-8", "replace")) + 1
            yield raw.decode("utf-8", "replace"), size, column


def text_lines(stream: Iterable[str]) -> Iterator[Line]:
    """The lines of a text stream; sizes count the UTF-8 bytes of the text as given."""
    for line in stream:
        size = len(line) if line.isascii() else len(line.encode("utf-8", "surrogatepass"))
        if line.endswith("\n"):
            line = line[:-2] if line.endswith("\r\n") else line[:-1]
        yield line, size, None
