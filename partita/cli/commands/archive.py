"""Commands on the archive: import, query, export."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from partita import database
from partita.cli.app import app
from partita.cli.options import (
    ArchiveOption,
    DateFromFilter,
    DateToFilter,
    EventFilter,
    GameFilter,
    JsonOption,
    OpeningFilter,
    PlayerFilter,
    PositionFilter,
    RecordPaths,
    ResultFilter,
    SidesFilter,
    StrictOption,
    TagFilter,
    archive_path,
    filters,
)
from partita.errors import PartitaError
from partita.notation.files import expand_paths
from partita.notation.inputs import input_size, is_stdin
from partita.notation.model import Record
from partita.notation.reader import read_records

console = Console(highlight=False)


def load_source(source: str, index: int, db: Path) -> Record:
    """A record from a file (the ``index``-th, from 0) or from the archive by game id."""
    path = Path(source)
    if is_stdin(source) or path.is_file():
        for position, record in enumerate(read_records(path)):
            if position == index:
                return record
        raise PartitaError(f"{source}: there is no record {index} (records count from 0)")
    if source.isdigit():
        if not db.exists():
            raise PartitaError(f"no archive at {db} to look up game {source}")
        return database.get_record(db, int(source))
    raise PartitaError(f"{source}: no such file, and not a game id")


@app.command("import")
def import_(
    paths: RecordPaths,
    db: ArchiveOption = None,
    strict: StrictOption = False,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Processes that read and replay the records, the one that writes "
            "included (1: everything in one process). Default: one per CPU, at most 4, "
            "for inputs of 1 MB or more; 1 for smaller ones.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Import record files or folders into the archive.

    Valid records are stored, and invalid ones with their problems (lenient) or
    refused (--strict). Re-importing adds nothing; an interrupted import can be rerun.
    """
    files = expand_paths(paths)
    target = archive_path(db)
    total_bytes = sum(input_size(file) for file in files) or 1
    show_bar = not as_json and sys.stderr.isatty()
    with Progress(
        TextColumn("importing"),
        BarColumn(),
        TextColumn("{task.fields[records]} records"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not show_bar,
        transient=True,
    ) as progress:
        task = progress.add_task("import", total=total_bytes, records=0)

        def report(done: database.ImportProgress) -> None:
            progress.update(task, completed=done.bytes_done, records=done.records)

        summary = database.import_paths(
            target, files, strict=strict, progress=report, workers=workers
        )
    if as_json:
        typer.echo(json.dumps(summary.as_dict(), ensure_ascii=False, indent=2))
    else:
        console.print(
            f"{target}: {summary.imported} imported, {summary.duplicates} duplicates, "
            f"{summary.invalid} invalid"
            + (f", {summary.refused} refused (strict)" if strict else "")
            + (f", {len(summary.twins)} twins of stored games" if summary.twins else "")
            + f" ({summary.records} records in {len(files)} files)",
            markup=False,
        )
    raise typer.Exit(int(strict and summary.refused > 0))


@app.command()
def query(
    db: ArchiveOption = None,
    game: GameFilter = None,
    player: PlayerFilter = None,
    result: ResultFilter = None,
    event: EventFilter = None,
    date_from: DateFromFilter = None,
    date_to: DateToFilter = None,
    opening: OpeningFilter = None,
    position: PositionFilter = None,
    sides: SidesFilter = None,
    tag: TagFilter = None,
    limit: Annotated[int | None, typer.Option("--limit", help="At most this many games.")] = None,
    as_json: JsonOption = False,
) -> None:
    """List the archive's games that match every filter given."""
    target = _existing_archive(db)
    rows = database.query_games(
        target,
        **filters(game, player, result, event, date_from, date_to, opening, position, sides, tag),
        limit=limit,
    )
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    table = Table("id", "game", "date", "event", "players", "result", "plies", "status")
    if position:
        table.add_column("at ply")
    for row in rows:
        cells = [
            str(row["id"]),
            row["game"] or "",
            row.get("date") or "",
            row.get("event") or "",
            " - ".join(row.get("players") or []),
            row.get("result") or "",
            str(row.get("plies", "")),
            row.get("status", ""),
        ]
        if position:
            cells.append(str(row.get("ply", "")))
        table.add_row(*cells)
    console.print(table)
    console.print(f"{len(rows)} game{'' if len(rows) == 1 else 's'}", markup=False)


@app.command()
def export(
    db: ArchiveOption = None,
    game: GameFilter = None,
    player: PlayerFilter = None,
    result: ResultFilter = None,
    event: EventFilter = None,
    date_from: DateFromFilter = None,
    date_to: DateToFilter = None,
    opening: OpeningFilter = None,
    position: PositionFilter = None,
    sides: SidesFilter = None,
    tag: TagFilter = None,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Write here instead of stdout (-: stdout)."),
    ] = None,
    canonical: Annotated[
        bool,
        typer.Option(
            "--canonical",
            help="Rewrite records with problems in canonical form too (their problems "
            "may then not survive a re-import).",
        ),
    ] = False,
) -> None:
    """Write the matching games as canonical PGR.

    Records with problems are written as they were imported, so that a re-import
    finds the same problems; --canonical rewrites them too.
    """
    target = _existing_archive(db)
    chosen = filters(game, player, result, event, date_from, date_to, opening, position, sides, tag)
    if output is None or is_stdin(output):
        count = database.export_games(target, sys.stdout, canonical=canonical, **chosen)
    else:
        with output.open("w", encoding="utf-8", newline="\n") as stream:
            count = database.export_games(target, stream, canonical=canonical, **chosen)
        Console(stderr=True).print(f"{count} games written to {output}", markup=False)


def _existing_archive(db: Path | None) -> Path:
    target = archive_path(db)
    if not target.exists():
        raise PartitaError(f"no archive at {target} (import records first: partita import FILE...)")
    return target
