"""Where commands write: output files checked before the work, write errors as one
line naming the file, and progress bars on a terminal.

A report takes seconds to build: a folder that does not exist should stop it
before, not after. A full disk (``-o /dev/full``) or a closed pipe names the file
that could not be written. The library reports progress through callbacks; the
bars are drawn here, on stderr, only when stderr is a terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from partita.errors import PartitaError

__all__ = ["check_output", "progress_bar", "writing"]


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
) -> Iterator[Callable[[int, int | None], None]]:
    """A progress bar on stderr when it is a terminal (and ``enabled``); yields
    ``update(done, total)`` for the library's progress callback. Nothing is drawn
    when stderr is a pipe or a file, nor, for a command that ``streams_output``
    while it works, when standard output is the terminal too (its lines are the
    progress there, and a bar would break them up). Standard output is never
    redirected: what the command prints goes where the user sent it."""
    shown = enabled and sys.stderr.isatty() and not (streams_output and sys.stdout.isatty())
    columns = [TextColumn(label), BarColumn(), MofNCompleteColumn()]
    if unit:
        columns.append(TextColumn(unit))
    columns.append(TimeRemainingColumn())
    with Progress(
        *columns,
        console=Console(stderr=True),
        disable=not shown,
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    ) as progress:
        task = progress.add_task(label, total=total)

        def update(done: int, new_total: int | None = None) -> None:
            if new_total is not None:
                progress.update(task, total=new_total)
            progress.update(task, completed=done)

        yield update
