"""Output files written whole or not at all: the one helper every writer of a file
uses (the export, the report, the tree's DOT and GraphML, balance pages).

A command that fails half-way (a full disk, a bad record, Ctrl-C) must neither
leave a partial file behind nor destroy the file it was to replace:
:func:`replaced_file` writes beside the target and renames over it only once
everything is written. It knows no layer, so the library and the CLI share it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, BinaryIO, TextIO, cast

__all__ = ["replaced_binary_file", "replaced_file"]


@contextmanager
def replaced_file(path: str | Path) -> Iterator[TextIO]:
    """A UTF-8 text stream (LF line ends) that becomes ``path`` when the block ends
    without an error; on an error, ``path`` is left as it was and nothing else stays.

    What is not a regular file (``/dev/stdout``, a named pipe, a device) is written
    directly: there is nothing to rename over.
    """
    with _replaced(Path(path), binary=False) as stream:
        yield cast(TextIO, stream)


@contextmanager
def replaced_binary_file(path: str | Path) -> Iterator[BinaryIO]:
    """:func:`replaced_file` for bytes."""
    with _replaced(Path(path), binary=True) as stream:
        yield cast(BinaryIO, stream)


@contextmanager
def _replaced(path: Path, *, binary: bool) -> Iterator[IO]:
    def opened(target: Path) -> IO:
        if binary:
            return target.open("wb")
        return target.open("w", encoding="utf-8", newline="\n")

    if path.exists() and not path.is_file():
        with opened(path) as stream:
            yield stream
        return
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with opened(partial) as stream:
            yield stream
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
