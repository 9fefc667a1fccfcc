"""Where the commands print and write: rich consoles made when a command first prints,
and files written whole or not at all.

rich is imported here, on first use, and not at start-up: `partita --help` and
`partita games` do not need it. A console is made per call, so that each run (and
each in-process test) writes to the streams of its own moment.

A command that fails half-way (a bad record, a full disk, Ctrl-C) must not leave a
partial file behind, nor destroy the file it was to replace: :func:`replaced_file`
writes beside the target and renames over it only once everything is written.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["replaced_file", "stderr_console", "stdout_console"]


def stdout_console() -> Console:
    """A console on stdout, without rich's automatic highlighting."""
    from rich.console import Console

    return Console(highlight=False)


def stderr_console() -> Console:
    """A console on stderr (messages, warnings, progress bars)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


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
