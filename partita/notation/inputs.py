"""Opening record inputs: ``-`` for standard input, compressed files read as they come.

A records path ``-`` is standard input. A file is read through its decompressor
when its first bytes are those of a gzip (``1f 8b``), bzip2 (``BZh``), xz
(``fd 37 7a 58 5a 00``) or Zstandard (``28 b5 2f fd``) stream, whatever its name
(standard input too); gzip, bzip2 and xz come with Python, Zstandard needs the
``zstandard`` package (the ``zstd`` extra), and a ``.zst`` input without it is
one clear error. Damaged or cut-short compressed data is an :class:`InputError`
naming the file, raised where the reading stops.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from partita.errors import InputError

__all__ = [
    "COMPRESSIONS",
    "RECORD_SUFFIXES",
    "STDIN",
    "compression_of",
    "input_name",
    "input_size",
    "is_stdin",
    "open_input",
]

#: The path that names standard input.
STDIN = "-"

#: The magic bytes of each compressed format read (the longest is 6 bytes).
COMPRESSIONS: dict[str, bytes] = {
    "gzip": b"\x1f\x8b",
    "bzip2": b"BZh",
    "xz": b"\xfd7zXZ\x00",
    "zstd": b"\x28\xb5\x2f\xfd",
}
_MAGIC_SIZE = max(len(magic) for magic in COMPRESSIONS.values())

#: Names of the record files searched for in folders (what they hold is decided
#: by their first bytes, not by the name).
RECORD_SUFFIXES = (".pgr", ".pgr.gz", ".pgr.bz2", ".pgr.xz", ".pgr.zst")


def is_stdin(path: str | os.PathLike[str]) -> bool:
    """Whether a records path names standard input."""
    return os.fspath(path) == STDIN


def input_name(path: str | os.PathLike[str]) -> str:
    """The name problems give for a records path (``<stdin>`` for ``-``)."""
    return "<stdin>" if is_stdin(path) else os.fspath(path)


def input_size(path: str | os.PathLike[str]) -> int:
    """The size in bytes of a records file as stored (0 for standard input, whose
    size is not known before it is read)."""
    return 0 if is_stdin(path) else Path(path).stat().st_size


def compression_of(head: bytes) -> str | None:
    """The compressed format whose magic bytes start ``head``, or ``None``."""
    for name, magic in COMPRESSIONS.items():
        if head.startswith(magic):
            return name
    return None


#: A binary stream: a file, standard input, a decompressor.
_Binary = IO[bytes] | io.BufferedIOBase


class _Prefixed(io.RawIOBase):
    """A stream's first bytes (already read to sniff them) and then the rest."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._head:
            count = min(len(view), len(self._head))
            view[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        data = self._rest.read(len(view))
        view[: len(data)] = data
        return len(data)


def _decompressor(kind: str, raw: IO[bytes], name: str) -> io.BufferedIOBase:
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "bzip2":
        return bz2.BZ2File(raw)
    if kind == "xz":
        return lzma.LZMAFile(raw)
    try:
        import zstandard
    except ImportError:
        raise InputError(
            f"{name}: the file is Zstandard-compressed, and reading it needs the zstandard "
            "package (pip install zstandard, or partita[zstd])"
        ) from None
    reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    return io.BufferedReader(reader)


def _damage_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [OSError, EOFError, zlib.error, lzma.LZMAError]
    try:
        import zstandard
    except ImportError:
        pass
    else:
        errors.append(zstandard.ZstdError)
    return tuple(errors)


class _Input:
    """A binary input read by lines; decompression errors become :class:`InputError`."""

    def __init__(self, stream: _Binary, name: str, kind: str | None, owned: list[_Binary]) -> None:
        self._stream = stream
        self.name = name
        self.compression = kind
        self._owned = owned

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._stream
        except _damage_errors() as error:
            if self.compression is None:
                raise InputError(f"{self.name}: cannot read the file: {error}") from None
            raise InputError(
                f"{self.name}: the {self.compression} data is damaged or cut short ({error})"
            ) from None

    def read(self, size: int = -1) -> bytes:
        try:
            return self._stream.read(size)
        except _damage_errors() as error:
            raise self._damaged(error) from None

    def readline(self, size: int = -1) -> bytes:
        """One line (at most ``size`` bytes), as the reader's line splitter asks."""
        try:
            return self._stream.readline(size)
        except _damage_errors() as error:
            raise self._damaged(error) from None

    def _damaged(self, error: BaseException) -> InputError:
        if self.compression is None:
            return InputError(f"{self.name}: cannot read the file: {error}")
        return InputError(
            f"{self.name}: the {self.compression} data is damaged or cut short ({error})"
        )

    def close(self) -> None:
        for stream in self._owned:
            stream.close()

    def __enter__(self) -> _Input:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_input(path: str | os.PathLike[str]) -> _Input:
    """A records path opened for reading in binary: standard input for ``-``, a
    compressed file through its decompressor (by its first bytes). Closing it
    closes the file (never standard input)."""
    name = input_name(path)
    owned: list[_Binary] = []
    if is_stdin(path):
        raw: IO[bytes] = sys.stdin.buffer
    else:
        try:
            raw = open(path, "rb")  # noqa: SIM115 - closed by the _Input
        except OSError as error:
            raise InputError(f"{name}: cannot open the file: {error.strerror}") from None
        owned.append(raw)
    head = _read_head(raw)
    kind = compression_of(head)
    source: IO[bytes]
    if raw.seekable():
        raw.seek(0)
        source = raw
    else:
        source = io.BufferedReader(_Prefixed(head, raw))
    stream: _Binary = source
    if kind is not None:
        try:
            stream = _decompressor(kind, source, name)
        except BaseException:
            for owned_stream in owned:
                owned_stream.close()
            raise
        owned.insert(0, stream)
    return _Input(stream, name, kind, owned)


def _read_head(raw: IO[bytes]) -> bytes:
    """The first bytes of a stream, enough to recognise a compressed format (a pipe
    may give fewer than asked at a time)."""
    head = b""
    while len(head) < _MAGIC_SIZE:
        chunk = raw.read(_MAGIC_SIZE - len(head))
        if not chunk:
            break
        head += chunk
    return head
