"""The typer application and the one error boundary of the CLI."""

from __future__ import annotations

import os
import sys

import typer

from partita.errors import PartitaError

app = typer.Typer(
    name="partita",
    help="Read, validate, store, query and analyse game records (PGR).",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)

_DEBUG_FLAG = "--debug"


_REGISTERED = False


def _register_commands() -> None:
    """Add the framework's commands (each module of :mod:`partita.cli.commands` adds
    its own to `app` when imported), then every game's own commands (the
    ``commands`` of its spec)."""
    global _REGISTERED
    if _REGISTERED:
        return
    _REGISTERED = True
    from partita.cli import commands  # noqa: F401
    from partita.games.registry import all_specs

    for spec in all_specs():
        for command in spec.command_objects():
            if isinstance(command, typer.Typer):
                app.add_typer(command)
            else:
                app.command()(command)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `partita` console script.

    Domain errors become one line on stderr and exit 1; with `--debug` (anywhere on
    the command line) or PARTITA_DEBUG=1 the traceback is shown instead.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    debug = _DEBUG_FLAG in args or os.environ.get("PARTITA_DEBUG") == "1"
    if _DEBUG_FLAG in args:
        args.remove(_DEBUG_FLAG)
    _register_commands()
    try:
        app(args=args, prog_name="partita", standalone_mode=True)
    except PartitaError as error:
        if debug:
            raise
        from partita.cli.display import printable

        typer.echo(printable(f"partita: error: {error}"), err=True)
        raise SystemExit(1) from None
    except (KeyboardInterrupt, BrokenPipeError):
        raise SystemExit(130) from None
    except Exception as error:  # a bug, not bad input: say so without a traceback
        if debug:
            raise
        typer.echo(
            f"partita: internal error: {type(error).__name__}: {error} "
            "(run with --debug for the traceback, and please report it)",
            err=True,
        )
        raise SystemExit(3) from None
