"""Options shared by several commands, defined once."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Annotated, Any

import typer

DEFAULT_ARCHIVE = "partita.db"

#: The largest count, id or index an option takes: the largest integer SQLite
#: stores. Every numeric option has bounds, so that a mistyped number is a usage
#: error (exit 2) instead of an overflow in the middle of the work.
LARGEST = 2**63 - 1

#: The most processes `import --workers` starts.
MAX_WORKERS = 64


def reading_workers_option(main_process: str, from_size: str = "1 MB") -> typer.models.OptionInfo:
    """``--workers`` of a command whose processes read and replay records (import,
    validate), the main process counted (``main_process`` says what it is), with
    workers by default for inputs of ``from_size`` or more."""
    return typer.Option(
        "--workers",
        min=1,
        max=MAX_WORKERS,
        help=f"Processes that read and replay the records, {main_process} included "
        f"(1: everything in one process). Default: for inputs of {from_size} or more, "
        "one per idle core, at most 4; 1 for smaller ones.",
    )


#: The archive a command chose (for the error boundary's messages).
_chosen: Path | None = None


def chosen_archive() -> str:
    """The archive the running command uses, as messages name it."""
    return str(_chosen) if _chosen is not None else "(the archive)"


def default_archive() -> Path:
    """`$PARTITA_DB`, or `partita.db` in the current directory."""
    return Path(os.environ.get("PARTITA_DB") or DEFAULT_ARCHIVE)


ArchiveOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="The archive (SQLite file). Default: $PARTITA_DB, or partita.db here.",
        dir_okay=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
#: A user's opening names file, for the filters' ``--opening-name`` and for ``show``.
OpeningsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--openings",
        metavar="FILE",
        help="An opening names file (TOML) read after the game's own names and "
        "$PARTITA_OPENINGS (repeatable).",
        exists=True,
        dir_okay=False,
    ),
]
#: Where the work of import, validate, simulate, balance and book runs: a Dask
#: scheduler (``$PARTITA_SCHEDULER`` by default, ``partita.execution.SCHEDULER_VARIABLE``,
#: not imported here to keep every command's start-up light), else local processes.
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        envvar="PARTITA_SCHEDULER",
        show_envvar=False,
        help="Run the work on a Dask cluster (tcp://HOST:8786, or local:N for a local "
        "cluster of N workers); default $PARTITA_SCHEDULER. Needs partita[cluster].",
    ),
]


def checked_scheduler(scheduler: str | None) -> str | None:
    """The scheduler address, refused before any work (exit 2) if it cannot be used
    (:mod:`partita.execution`, and its process pools, load only when one is given)."""
    if scheduler is None or not scheduler.strip():
        return None
    from partita.execution import ClusterUnavailable, check_scheduler

    try:
        check_scheduler(scheduler)
    except ClusterUnavailable as error:
        raise typer.BadParameter(str(error), param_hint="--scheduler") from None
    return scheduler.strip()


StrictOption = Annotated[
    bool,
    typer.Option(
        "--strict", help="Fail records on warnings too (wrong move numbers, spellings...)."
    ),
]

ExcludeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude",
        help="Leave out what a shell pattern matches: a file's path inside a folder "
        "given, or one of its folders or its name (`invalid`, `*-draft.pgr`; repeatable).",
        metavar="PATTERN",
    ),
]

LimitOption = Annotated[
    int | None, typer.Option("--limit", help="At most this many games.", min=0, max=LARGEST)
]


def check_record_paths(paths: list[Path]) -> list[Path]:
    """Every records path exists (``-``, standard input, always does): a usage error
    naming the first that does not, before any work. (typer's ``allow_dash`` does
    not let ``-`` through a ``Path`` parameter's existence check.)"""
    from partita.notation.inputs import is_stdin

    for path in paths:
        if not is_stdin(path) and not path.exists():
            raise typer.BadParameter(f"Path '{path}' does not exist.")
    return paths


def check_record_file(path: Path | None) -> Path | None:
    """A records file that exists and is no folder, or ``-`` (standard input)."""
    from partita.notation.inputs import is_stdin

    if path is not None and not is_stdin(path):
        if not path.exists():
            raise typer.BadParameter(f"file '{path}' does not exist")
        if path.is_dir():
            raise typer.BadParameter(f"'{path}' is a folder, not a file")
    return path


RecordPaths = Annotated[
    list[Path],
    typer.Argument(
        help="Record files or folders (*.pgr inside).",
        callback=check_record_paths,
    ),
]


def archive_path(db: Path | None) -> Path:
    """The archive of ``--db``, or the default one."""
    global _chosen
    _chosen = db if db is not None else default_archive()
    return _chosen


def existing_archive(db: Path | None) -> Path:
    """The archive the options name, which must exist (changing and reporting
    commands never make one)."""
    from partita.errors import PartitaError

    target = archive_path(db)
    if not target.exists():
        raise PartitaError(f"no archive at {target} (import records first: partita import FILE...)")
    return target


BookOption = Annotated[
    Path | None,
    typer.Option(
        "--book",
        help="An opening book (a book file or an archive) answering the positions it holds "
        "at once. Default: the archive ($PARTITA_DB, or partita.db here) if it has one.",
        dir_okay=False,
    ),
]
NoBookOption = Annotated[
    bool, typer.Option("--no-book", help="Search every position; use no opening book.")
]


def chosen_book(book: Path | None, no_book: bool, db: Path | None = None) -> Any:
    """The opening book of ``--book``/``--no-book`` (solve, annotate): the one named
    (an error if it holds none), else the archive's if it has one; ``None``: none."""
    from partita.analysis.book import open_book

    if no_book:
        return None
    if book is not None:
        return open_book(book, required=True)
    return open_book(archive_path(db))


def _game_names() -> list[str]:
    from partita.game.registry import all_specs

    return [spec.name for spec in all_specs()]


def check_game_id(value: str | None) -> str | None:
    """A game id given on the command line (``--game``, ``GAME``): a usage error
    (exit 2, before any work) for one no game registers, with the nearest id
    (``did you mean ...?``) and every one."""
    if value is None:
        return None
    from partita.errors import PartitaError
    from partita.game.registry import get_spec

    try:
        get_spec(value)
    except PartitaError as error:
        raise typer.BadParameter(str(error)) from None
    return value


def check_game_ids(values: list[str] | None) -> list[str] | None:
    """:func:`check_game_id` for a repeatable ``--game``."""
    for value in values or []:
        check_game_id(value)
    return values


def complete_game_id(incomplete: str) -> list[str]:
    """Shell completion of a game id: the registered games that start so."""
    return [name for name in _game_names() if name.startswith(incomplete)]


#: The agent specs shell completion offers (any mcts:N is one).
_AGENT_EXAMPLES = ("random", "greedy", "mcts:200", "mcts:2000", "mcts:2s")


def complete_agent(incomplete: str) -> list[str]:
    """Shell completion of an agent spec (``random``, ``greedy``, ``mcts:N``): the
    last of a comma-separated list (``--agents``)."""
    before, comma, last = incomplete.rpartition(",")
    return [f"{before}{comma}{agent}" for agent in _AGENT_EXAMPLES if agent.startswith(last)]


def complete_seat(incomplete: str) -> list[str]:
    """Shell completion of ``N=AGENT`` (``--seat``): the agent after the ``=``."""
    seat, equals, spec = incomplete.partition("=")
    if not equals:
        return [f"{number}=" for number in "1234" if number.startswith(seat)]
    return [f"{seat}={agent}" for agent in _AGENT_EXAMPLES if agent.startswith(spec)]


def complete_record_source(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion of a SOURCE (a record file, or a game id of the archive):
    the archive's game ids that start with what is typed when it is a number, else
    the files and folders that do."""
    if incomplete.isdigit():
        db = ctx.params.get("db") or default_archive()
        ids = _archive_ids(Path(db), incomplete)
        if ids:
            return [str(game_id) for game_id in ids]
    import glob

    return [
        f"{name}/" if os.path.isdir(name) else name
        for name in sorted(glob.glob(glob.escape(incomplete) + "*"))
    ]


def _archive_ids(db: Path, prefix: str, limit: int = 200) -> list[int]:
    """Ids of the archive's games that start with ``prefix`` (none if it cannot
    be read): opened read-only, nothing written."""
    import sqlite3

    if not db.is_file():
        return []
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            rows = conn.execute(
                "SELECT id FROM games WHERE CAST(id AS TEXT) LIKE ? ORDER BY id LIMIT ?",
                (f"{prefix}%", limit),
            ).fetchall()
    except sqlite3.Error:
        return []
    return [row[0] for row in rows]
