"""The typer application and the one error boundary of the CLI.

Start-up is kept light: this module imports only typer and partita's errors, and
each command imports the library code it needs in its own body, so `partita --help`
and `partita games` load no archive, analysis or report code. Help is plain click
text (``rich_markup_mode=None``): typer's rich help panels would import rich,
markdown-it and pygments and double the time `partita --help` takes.
"""

import os
import sys
from typing import Annotated

import typer

from partita import __version__
from partita.errors import PartitaError

app = typer.Typer(
    name="partita",
    help="Read, validate, store, query and analyse game records (PGR).",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)

_DEBUG_FLAG = "--debug"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"partita {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print partita's version and exit.",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """The options that come before a command."""


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
