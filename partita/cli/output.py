"""Where the commands print and write: rich consoles made when a command first prints,
and files written whole or not at all.

rich is imported here, on first use, and not at start-up: `partita --help` and
`partita games` do not need it. A console is made per call, so that each run (and
each in-process test) writes to the streams of its own moment.

A command that fails half-way (a bad record, a full disk, Ctrl-C) must not leave a
partial file behind, nor destroy the file it was to replace: :func:`replaced_file`
writes beside the target and renames over it only once everything is written.

A report takes seconds to build: a folder that does not exist should stop it
before, not after (:func:`check_output`). A full disk (``-o /dev/full``) or a closed
pipe names the file that could not be written (:func:`writing`). The library
reports progress through callbacks; :func:`progress_bar` draws them on stderr, only
when stderr is a terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from partita.errors import PartitaError
from partita.outfiles import replaced_file

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "check_output",
    "colour_on",
    "labelled",
    "progress_bar",
    "replaced_file",
    "stderr_console",
    "stdout_console",
    "warn",
    "writing",
]

#: The colour of each label of a message line: red errors, yellow warnings.
_LABEL_COLOURS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m"}


def colour_on(stream: TextIO) -> bool:
    """Whether to colour what goes to ``stream``: only a terminal, and not when
    ``NO_COLOR`` is set to anything (https://no-color.org) or ``TERM`` is ``dumb``."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or stand-in stream
        return False


def labelled(label: str, text: str, stream: TextIO | None = None) -> str:
    """``partita: LABEL: TEXT``, the label (``error``, ``warning``) in colour when
    ``stream`` (stderr by default) is a terminal that takes colour (:func:`colour_on`).
    ``text`` is written as it is: the caller escapes a record's characters."""
    colour = _LABEL_COLOURS.get(label)
    if colour is not None and colour_on(sys.stderr if stream is None else stream):
        return f"partita: {colour}{label}:\x1b[0m {text}"
    return f"partita: {label}: {text}"


def warn(text: str) -> None:
    """A warning on stderr, one line (control characters of a record escaped)."""
    from partita.cli.display import printable

    sys.stderr.write(labelled("warning", printable(text)) + "\n")


def stdout_console() -> Console:
    """A console on stdout, without rich's automatic highlighting."""
    from rich.console import Console

    return Console(highlight=False)


def stderr_console() -> Console:
    """A console on stderr (messages, warnings, progress bars)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _no_progress(done: int, new_total: int | None = None, note: str | None = None) -> None:
    """The update of a progress bar that is not drawn."""


def check_output(path: Path | None, option: str) -> None:
    """Refuse, before any work, an output path that cannot be a file: a folder, or
    a file in a folder that does not exist."""
    if path is None:
        return
    if path.is_dir():
        raise PartitaError(f"{option} {path}: that is a folder; name a file")
    folder = path.absolute().parent
    if not folder.is_dir():
        raise PartitaError(f"cannot write {path} ({option}): there is no folder {folder}")


@contextmanager
def writing(path: Path | None) -> Iterator[None]:
    """Turn an ``OSError`` of writing ``path`` (``None``: standard output) into one
    line naming it."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        where = "standard output" if path is None else str(path)
        reason = error.strerror or str(error)
        raise PartitaError(f"cannot write {where}: {reason[:1].lower()}{reason[1:]}") from None


@contextmanager
def progress_bar(
    label: str,
    *,
    total: int | None = None,
    enabled: bool = True,
    streams_output: bool = False,
    unit: str = "",
    redraw_thread: bool = True,
) -> Iterator[Callable[..., None]]:
    """The one progress bar of the commands: on stderr when it is a terminal (and
    ``enabled``); yields ``update(done, total=None, note=None)`` for the library's
    progress callback (``total``: a new total, ``None`` keeps it, unknown at first
    without ``total``; ``note``: a short text after the count, such as a rate; a
    count that goes back starts the bar again, for a command that runs several
    times). Nothing is drawn when stderr is a pipe or a file, nor, for a command
    that ``streams_output`` while it works, when standard output is the terminal
    too (its lines are the progress there, and a bar would break them up).
    Standard output is never redirected: what the command prints goes where the
    user sent it. With no bar to draw, rich is not imported (a small import's
    start-up).

    ``redraw_thread=False``: the bar is drawn at each ``update`` only, by no
    thread of rich's own (an import forks its workers only from a process that
    runs no other thread)."""
    shown = enabled and sys.stderr.isatty() and not (streams_output and sys.stdout.isatty())
    if not shown:
        yield _no_progress
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = [TextColumn(label), BarColumn(), MofNCompleteColumn()]
    if unit:
        columns.append(TextColumn(unit))
    columns.append(TextColumn("{task.fields[note]}"))
    columns.append(TimeRemainingColumn())
    with Progress(
        *columns,
        console=Console(stderr=True),
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
        auto_refresh=redraw_thread,
    ) as progress:
        task = progress.add_task(label, total=total, note="")

        def update(done: int, new_total: int | None = None, note: str | None = None) -> None:
            if done < progress.tasks[0].completed:  # a new run
                progress.reset(task, total=new_total)
            fields: dict[str, Any] = {} if note is None else {"note": note}
            if new_total is not None:
                fields["total"] = new_total
            progress.update(task, completed=done, refresh=not redraw_thread, **fields)

        yield update
