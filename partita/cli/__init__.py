"""The `partita` command line: thin typer commands over the library.

Each command group lives in its own module and registers itself on :data:`app`.
One error boundary (:func:`main`) turns partita's own errors into one clear line on
stderr and exit code 1; usage errors exit 2 (typer/click); `--debug` shows tracebacks.
"""

from __future__ import annotations

from partita.cli.app import app, main

__all__ = ["app", "main"]
