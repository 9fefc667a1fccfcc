"""The typer application and the one error boundary of the CLI.

Start-up is kept light: this module imports only typer and partita's errors, and
each command imports the library code it needs in its own body, so `partita --help`
and `partita games` load no archive, analysis or report code. Help is plain click
text (``rich_markup_mode=None``): typer's rich help panels would import rich,
markdown-it and pygments and double the time `partita --help` takes.
"""

import errno
import os
import signal
import sys
from importlib import import_module
from typing import Annotated, Any, NoReturn

import typer
import typer.core

from partita import __version__
from partita.errors import PartitaError, UsageError

#: How `partita --help` groups the commands, by task: a command no section names (a
#: game's own, a plugin's) is listed under "More".
COMMAND_SECTIONS = {
    "Records": ("validate", "show", "games"),
    "Archive": ("import", "query", "export", "tag", "twins", "delete", "merge", "migrate"),
    "Analysis": ("tree", "novelty", "players", "report", "solve", "annotate", "endgame", "book"),
    "Play and self-play": ("play", "simulate", "balance"),
    "In a browser": ("serve",),
    "Games": ("conformance",),
}


class _SectionedGroup(typer.core.TyperGroup):
    """The top-level command: its commands listed in --help by task
    (:data:`COMMAND_SECTIONS`), not in one alphabetical run."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        commands = {}
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                commands[name] = command
        if not commands:
            return
        limit = formatter.width - 6 - max(len(name) for name in commands)
        placed = {name for names in COMMAND_SECTIONS.values() for name in names}
        sections = [*COMMAND_SECTIONS.items(), ("More", tuple(set(commands) - placed))]
        for title, names in sections:
            rows = [
                (name, commands[name].get_short_help_str(limit))
                for name in (sorted(names) if title == "More" else names)
                if name in commands
            ]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


app = typer.Typer(
    cls=_SectionedGroup,
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


def _click_class(name: str) -> type[Exception]:
    """One of click's exception classes, as the installed typer raises them (its
    own copy of click, or click itself)."""
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == name:
            return cls
    raise RuntimeError(f"typer.BadParameter does not derive from {name}")  # pragma: no cover


_ClickException = _click_class("ClickException")
_UsageError = _click_class("UsageError")
#: ``partita`` with no command (the help goes to stderr, exit 2, as click does).
_NoArgsIsHelpError: type[Exception] = getattr(
    sys.modules[_UsageError.__module__], "NoArgsIsHelpError", type("_Never", (Exception,), {})
)


#: Where each framework command is defined (a module of :mod:`partita.cli.commands`),
#: in the order `partita --help` lists them: a run of one of these commands imports
#: that module alone (:func:`_register_for`). tests/test_cli.py checks the table
#: against what the modules register.
COMMAND_MODULES = {
    "book": "selfplay",
    "simulate": "selfplay",
    "balance": "selfplay",
    "solve": "analysis",
    "annotate": "analysis",
    "import": "archive",
    "migrate": "archive",
    "query": "archive",
    "export": "archive",
    "conformance": "conformance",
    "endgame": "endgame",
    "delete": "maintenance",
    "twins": "maintenance",
    "merge": "maintenance",
    "tag": "maintenance",
    "play": "play",
    "players": "players",
    "validate": "records",
    "show": "records",
    "games": "records",
    "tree": "reports",
    "novelty": "reports",
    "report": "reports",
    "serve": "serve",
}

#: Set once every command (the games' included) is on `app`.
_REGISTERED = False
#: The environment variable of click's shell completion (it needs every command).
_COMPLETION_VARIABLE = "_PARTITA_COMPLETE"


def _register_commands() -> None:
    """Add the framework's commands (each module of :mod:`partita.cli.commands` adds
    its own to `app` when imported), then every game's own commands (the
    ``commands`` of its spec)."""
    global _REGISTERED
    if _REGISTERED:
        return
    _REGISTERED = True
    from partita.game.registry import all_specs

    for module in dict.fromkeys(COMMAND_MODULES.values()):
        import_module(f"partita.cli.commands.{module}")

    # In --help's order whatever ran first in this process (a module imported by
    # _register_for registered its commands before the others).
    order = {
        f"partita.cli.commands.{module}": n for n, module in enumerate(COMMAND_MODULES.values())
    }
    app.registered_commands.sort(key=lambda info: order.get(info.callback.__module__, len(order)))
    for spec in all_specs():
        for command in spec.command_objects():
            if isinstance(command, typer.Typer):
                app.add_typer(command)
            else:
                app.command()(command)


def _register_for(args: list[str]) -> None:
    """The commands a run with ``args`` needs: a framework command's own module only
    (``partita import`` does not build the other commands, nor load the registry of
    games, the analysis or the process pools to do it), else everything (help, a
    game's command, a mistyped name, options before the command, shell completion)."""
    module = COMMAND_MODULES.get(args[0]) if args else None  # options first: --help
    if module is None or _COMPLETION_VARIABLE in os.environ:
        _register_commands()
        return
    import_module(f"partita.cli.commands.{module}")


#: Exit codes (README.md and docs/cli.md list them).
EXIT_DOMAIN = 1  # an invalid record, a domain error: one line on stderr
EXIT_USAGE = 2  # a usage error: found before any work
EXIT_INTERNAL = 3  # a bug
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells count)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `partita` console script: the one error boundary.

    Domain errors, and what the system refuses because of the input or the
    arguments (a file that cannot be written, a full disk, an archive SQLite
    cannot use, a number too large, memory running out), become one line on
    stderr and exit 1; usage errors one line and exit 2; Ctrl-C one line and exit
    130; anything else is a bug: one line and exit 3. With `--debug` (anywhere on
    the command line) or PARTITA_DEBUG=1 the traceback is shown instead.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    debug = _DEBUG_FLAG in args or os.environ.get("PARTITA_DEBUG") == "1"
    if _DEBUG_FLAG in args:
        args.remove(_DEBUG_FLAG)
    previous_handler = _note_ctrl_c_from_now()
    try:
        _register_for(args)
        try:
            code = app(args=args, prog_name="partita", standalone_mode=False)
        finally:
            _flush_stdout()  # a full disk or a closed pipe shows here, inside the boundary
            as_program = argv is None and previous_handler is signal.default_int_handler
            signal.signal(signal.SIGINT, _late_ctrl_c if as_program else previous_handler)
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except typer.Abort:  # end of input at a prompt
        code = EXIT_INTERRUPTED
    except _NoArgsIsHelpError as error:
        sys.stderr.write(error.ctx.get_help() + "\n")  # type: ignore[attr-defined]
        raise SystemExit(EXIT_USAGE) from None
    except _ClickException as error:
        _fail(_usage_line(error), error.exit_code, error, debug)  # type: ignore[attr-defined]
    except BrokenPipeError:
        _quiet_stdout()  # the reader stopped (`partita query | head`): nothing to say
        raise SystemExit(EXIT_DOMAIN) from None
    except UsageError as error:  # the options do not say enough: found before any work
        _fail(str(error), EXIT_USAGE, error, debug)
    except PartitaError as error:
        _exit_if_interrupted_in_sql()  # an archive error made of a Ctrl-C
        _fail(str(error), EXIT_DOMAIN, error, debug)
    except MemoryError as error:
        command = f"partita {args[0]}" if args else "partita"
        _fail(
            f"out of memory in `{command}`: ask for less (a smaller option, input or selection)",
            EXIT_DOMAIN,
            error,
            debug,
        )
    except (OverflowError, RecursionError) as error:
        _fail(f"a number or a nesting is too large: {error}", EXIT_DOMAIN, error, debug)
    except OSError as error:
        _fail(_os_error_line(error), EXIT_DOMAIN, error, debug)
    except Exception as error:
        # SQLite's own errors: sqlite3 is loaded only by the commands that open an
        # archive, so start-up does not pay for it (and it is there if one was raised).
        sqlite = sys.modules.get("sqlite3")
        if sqlite is not None and isinstance(error, sqlite.Error):
            _exit_if_interrupted_in_sql()
            from partita.cli.options import chosen_archive
            from partita.database.connection import archive_error

            _fail(str(archive_error(error, chosen_archive())), EXIT_DOMAIN, error, debug)
        # A bug, not bad input: say so without a traceback.
        _fail(
            f"internal error: {type(error).__name__}: {error} "
            "(run with --debug for the traceback, and please report it)",
            EXIT_INTERNAL,
            error,
            debug,
        )
    if code == EXIT_INTERRUPTED:  # typer turns Ctrl-C in a command into exit 130
        _stderr_line("interrupted")
    raise SystemExit(code or 0)


_ctrl_c_received = False


def _on_ctrl_c(signum: int, frame: object) -> None:
    """Python's own SIGINT handler (raise ``KeyboardInterrupt``), noting first that
    a Ctrl-C came: SQLite turns a ``KeyboardInterrupt`` raised inside a Python
    function it calls (:mod:`partita.database.sqlfunctions`) into its own error
    ("user-defined function raised exception"), and the note survives that."""
    global _ctrl_c_received
    _ctrl_c_received = True
    raise KeyboardInterrupt


def _late_ctrl_c(signum: int, frame: object) -> None:
    """Ctrl-C once the command is done, while the program ends (its last line
    printed, the interpreter shutting down): the one line and exit 130, not death
    by the signal with a traceback. The files it wrote are whole already."""
    _stderr_line("interrupted")
    os._exit(EXIT_INTERRUPTED)


def _note_ctrl_c_from_now() -> Any:
    """Install :func:`_on_ctrl_c` where Python's default handler is (not where
    SIGINT is ignored, or handled by the program calling :func:`main`); return the
    handler to put back."""
    global _ctrl_c_received
    _ctrl_c_received = False
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_ctrl_c)
    return previous


def _exit_if_interrupted_in_sql() -> None:
    """Exit as Ctrl-C does if a Ctrl-C came during the command: an error SQLite
    raised after it is the Ctrl-C stopping a Python function SQLite was calling."""
    if _ctrl_c_received:
        _stderr_line("interrupted")
        raise SystemExit(EXIT_INTERRUPTED) from None


def _fail(message: str, code: int, error: BaseException, debug: bool) -> NoReturn:
    if debug:
        raise error
    _stderr_line(message, "error")
    raise SystemExit(code) from None


def _stderr_line(text: str, label: str | None = None) -> None:
    """``partita: [LABEL: ]TEXT`` on one line of stderr, whatever the text holds
    (control characters from a record are shown escaped; the label in colour on a
    terminal, :func:`partita.cli.output.labelled`)."""
    from partita.cli.display import printable
    from partita.cli.output import labelled

    line = " ".join(printable(str(text)).split())
    try:
        if label is not None:
            line = labelled(label, line).removeprefix("partita: ")
        sys.stderr.write(f"partita: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr is closed too: nobody to tell
        pass


def _usage_line(error: Exception) -> str:
    """A usage error (or another of click's) as one line, with where to find help."""
    message = error.format_message()  # type: ignore[attr-defined]
    context = getattr(error, "ctx", None)
    if isinstance(error, _UsageError) and context is not None:
        return f"{message.rstrip('.')} (see `{context.command_path} --help`)"
    return message


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise PartitaError(f"cannot write to standard output: {_reason(error)}") from None


def _os_error_line(error: OSError) -> str:
    """What the system refused, naming the file when the error knows it."""
    if error.filename is not None:
        place = os.fsdecode(error.filename)
        if error.filename2 is not None:
            place += f" -> {os.fsdecode(error.filename2)}"
        return f"{place}: {_reason(error)}"
    if error.errno in _WRITE_ERRORS:  # a stream's write: the command's output
        return f"cannot write the output: {_reason(error)}"
    return _reason(error)


#: Errors of a write that names no file (a full disk, a failing device).
_WRITE_ERRORS = {errno.ENOSPC, errno.EIO, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}


def _reason(error: OSError) -> str:
    """The system's reason in lower case (``no space left on device``)."""
    reason = error.strerror or str(error) or type(error).__name__
    return reason[:1].lower() + reason[1:]


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that Python's final flush finds nothing to
    complain about once the reader of a pipe is gone."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
