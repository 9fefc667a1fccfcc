"""Options shared by several commands, defined once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from partita.notation.inputs import is_stdin

DEFAULT_ARCHIVE = "partita.db"


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
StrictOption = Annotated[
    bool,
    typer.Option(
        "--strict", help="Fail records on warnings too (wrong move numbers, spellings...)."
    ),
]

# Filters shared by query, export, tree and report.
GameFilter = Annotated[str | None, typer.Option("--game", help="Game tag (see `partita games`).")]
PlayerFilter = Annotated[
    str | None, typer.Option("--player", help="A player's name (any seat; case-insensitive part).")
]
ResultFilter = Annotated[str | None, typer.Option("--result", help="Result token, e.g. 1-0.")]
EventFilter = Annotated[
    str | None, typer.Option("--event", help="Event name (case-insensitive part).")
]
DateFromFilter = Annotated[
    str | None, typer.Option("--date-from", help="Earliest date, YYYY.MM.DD (or YYYY, YYYY.MM).")
]
DateToFilter = Annotated[
    str | None, typer.Option("--date-to", help="Latest date, YYYY.MM.DD (or YYYY, YYYY.MM).")
]
OpeningFilter = Annotated[
    str | None, typer.Option("--opening", help='Games starting with these moves: "t4 r5 ...".')
]
PositionFilter = Annotated[
    str | None,
    typer.Option("--position", help="Games reaching this position (the game's position notation)."),
]
SidesFilter = Annotated[int | None, typer.Option("--sides", help="Number of sides.", min=2, max=4)]
TagFilter = Annotated[
    list[str] | None,
    typer.Option(
        "--tag",
        help="NAME=VALUE: the record's tag NAME has this value (repeatable; NAME= for absent).",
    ),
]


def check_record_paths(paths: list[Path]) -> list[Path]:
    """Every records path exists (``-``, standard input, always does): a usage error
    naming the first that does not, before any work. (typer's ``allow_dash`` does
    not let ``-`` through a ``Path`` parameter's existence check.)"""
    for path in paths:
        if not is_stdin(path) and not path.exists():
            raise typer.BadParameter(f"path '{path}' does not exist")
    return paths


def check_record_file(path: Path | None) -> Path | None:
    """A records file that exists and is no folder, or ``-`` (standard input)."""
    if path is not None and not is_stdin(path):
        if not path.exists():
            raise typer.BadParameter(f"file '{path}' does not exist")
        if path.is_dir():
            raise typer.BadParameter(f"'{path}' is a folder, not a file")
    return path


RecordPaths = Annotated[
    list[Path],
    typer.Argument(
        help="Record files (plain or compressed) or folders (*.pgr inside); - reads "
        "standard input.",
        callback=check_record_paths,
    ),
]


def archive_path(db: Path | None) -> Path:
    return db if db is not None else default_archive()


def filters(
    game: str | None,
    player: str | None,
    result: str | None,
    event: str | None,
    date_from: str | None,
    date_to: str | None,
    opening: str | None,
    position: str | None,
    sides: int | None = None,
    tags: list[str] | None = None,
) -> dict:
    """The filter keyword arguments of :func:`partita.database.query_games`."""
    return {
        "game": game,
        "player": player,
        "result": result,
        "event": event,
        "date_from": date_from,
        "date_to": date_to,
        "opening": opening,
        "position": position,
        "sides": sides,
        "tags": tags or None,
    }
