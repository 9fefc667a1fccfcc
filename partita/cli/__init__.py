"""The `partita` command line: thin typer commands over the library.

Each command group lives in its own module and registers itself on :data:`app`.
One error boundary (:func:`partita.cli.app.main`) turns partita's own errors, and
what the system refuses because of the input or the arguments, into one clear line
on stderr and exit code 1; usage errors exit 2, Ctrl-C 130, a bug 3; `--debug`
shows tracebacks.
"""

from __future__ import annotations

from partita import cores

# The idle cores an import or a validation counts (its automatic worker count) are
# sampled over a tenth of a second: begun here, that tenth passes while the
# command loads (typer alone takes about as long) instead of in a sleep.
cores.start_idle_sample()

try:
    from partita.cli.app import app, main
except KeyboardInterrupt:  # Ctrl-C while the command starts: the same one line
    import sys

    sys.stderr.write("partita: interrupted\n")
    raise SystemExit(130) from None

__all__ = ["app", "main"]
