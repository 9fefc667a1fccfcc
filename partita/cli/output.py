"""Where the commands print: rich consoles, made when a command first prints.

rich is imported here, on first use, and not at start-up: `partita --help` and
`partita games` do not need it. A console is made per call, so that each run (and
each in-process test) writes to the streams of its own moment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


def stdout_console() -> Console:
    """A console on stdout, without rich's automatic highlighting."""
    from rich.console import Console

    return Console(highlight=False)


def stderr_console() -> Console:
    """A console on stderr (messages, warnings, progress bars)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)
