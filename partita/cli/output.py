"""Files the CLI writes (``-o FILE``): whole or not at all.

A command that fails half-way (a bad record, a full disk, Ctrl-C) must not leave a
partial file behind, nor destroy the file it was to replace: :func:`replaced_file`
writes beside the target and renames over it only once everything is written.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

__all__ = ["replaced_file"]


@contextlib.contextmanager
def replaced_file(path: Path) -> Iterator[TextIO]:
    """A UTF-8 text stream (LF line ends) that becomes ``path`` when the block ends
    without an error; on an error, ``path`` is left as it was and nothing else stays.

    What is not a regular file (``/dev/stdout``, a named pipe, a device) is written
    directly: there is nothing to rename over.
    """
    if path.exists() and not path.is_file():
        with path.open("w", encoding="utf-8", newline="\n") as stream:
            yield stream
        return
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with partial.open("w", encoding="utf-8", newline="\n") as stream:
            yield stream
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
