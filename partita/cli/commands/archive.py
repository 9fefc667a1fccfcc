"""Commands on the archive: import, query, export.

The archive, the reader and rich are imported by the commands that use them, so
that start-up stays light (see :mod:`partita.cli.app`).
"""

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from partita import bulk, database  # light: their names load on first use
from partita.cli.app import app
from partita.cli.display import EscapingStream, count, plain, printable
from partita.cli.filters import filter_options
from partita.cli.inputs import record_inputs
from partita.cli.options import (
    LARGEST,
    ArchiveOption,
    ExcludeOption,
    JsonOption,
    RecordPaths,
    SchedulerOption,
    StrictOption,
    archive_path,
    checked_scheduler,
    reading_workers_option,
)
from partita.cli.output import (
    check_output,
    progress_bar,
    replaced_file,
    stderr_console,
    stdout_console,
    warn,
    writing,
)

if TYPE_CHECKING:
    from partita.database.filters import GameFilter


@app.command("import")
def import_(
    paths: RecordPaths,
    db: ArchiveOption = None,
    exclude: ExcludeOption = None,
    strict: StrictOption = False,
    workers: Annotated[
        int | None,
        reading_workers_option(
            "the one that writes", "500 KB (1 MB where the workers cannot fork)"
        ),
    ] = None,
    scheduler: SchedulerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import record files or folders into the archive.

    Valid records are stored, and invalid ones with their problems (lenient) or
    refused (--strict). Re-importing adds nothing; an interrupted import can be rerun.
    A path that holds no records is a warning, and the exit code is 1. A path -
    reads standard input; gzip, bzip2, xz and Zstandard files are read as they are.
    """
    from partita.notation.inputs import input_size

    scheduler = checked_scheduler(scheduler)
    inputs = record_inputs(paths, exclude)
    target = archive_path(db)
    summary = None
    if inputs.files:
        sizes = [input_size(file) for file in inputs.files]
        with (
            database.archive(target) as opened,
            progress_bar(
                "importing",
                total=sum(sizes) or 1,
                enabled=not as_json,
                unit="bytes",
                redraw_thread=False,  # no thread: the workers may fork
            ) as update,
        ):
            summary = bulk.import_paths(
                opened,
                inputs.files,
                strict=strict,
                progress=lambda done: update(done.bytes_done),
                workers=workers,
                scheduler=scheduler,
                fork_workers=True,
            )
        empty = {Path(name) for name in summary.empty_files}
        inputs.check_records({file: int(file not in empty) for file in inputs.files})
    else:
        inputs.check_records({})
    if summary is not None and as_json:
        typer.echo(json.dumps(summary.as_dict(), ensure_ascii=False, indent=2))
    elif summary is not None:  # one plain line: no rich to load for it
        typer.echo(
            printable(
                f"{target}: {summary.imported:,} imported, "
                f"{count(summary.duplicates, 'duplicate')}, {summary.invalid:,} invalid"
                + (f", {summary.refused:,} refused (strict)" if strict else "")
                + (
                    f", {count(len(summary.twins), 'twin')} of stored games"
                    if summary.twins
                    else ""
                )
                + f" ({count(summary.records, 'record')} in {count(len(inputs.files), 'file')})"
            )
        )
    for warning in inputs.warnings:
        warn(str(warning))
    refused = summary is not None and strict and summary.refused > 0
    raise typer.Exit(int(refused or bool(inputs.warnings)))


@app.command()
def migrate(db: ArchiveOption = None, as_json: JsonOption = False) -> None:
    """Bring an archive written by an older partita up to the current schema.

    Reading commands never change an archive: they ask for this instead. An
    import migrates its archive too. All steps go in one transaction: stopped, the
    archive is as it was.
    """
    target = archive_path(db)
    with progress_bar("migrating", unit="games") as update:
        before, after = database.migrate_archive(target, progress=update)
    if as_json:
        typer.echo(json.dumps({"archive": str(target), "from": before, "to": after}))
        return
    if before == after:
        stdout_console().print(f"{target}: already at schema version {after}", markup=False)
    else:
        stdout_console().print(
            f"{target}: migrated from schema version {before} to {after}", markup=False
        )


#: Games `query` lists on a terminal when no --limit is given.
TERMINAL_LIMIT = 50
#: The narrowest terminal on which `query`'s table has the opening column.
OPENING_WIDTH = 100


@app.command()
@filter_options()
def query(
    db: ArchiveOption = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            help=f"At most this many games (default on a terminal: {TERMINAL_LIMIT}; "
            "piped or with an output format: all).",
            min=0,
            max=LARGEST,
        ),
    ] = None,
    as_json: JsonOption = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV, one row per game.")] = False,
    as_tsv: Annotated[
        bool, typer.Option("--tsv", help="Print tab-separated values, one row per game.")
    ] = False,
    as_lines: Annotated[
        bool, typer.Option("--nl", help="Print JSON lines: one object per game and line.")
    ] = False,
    selection: "GameFilter | None" = None,
) -> None:
    """List the archive's games that match the filters (repeating an option: any of
    its values; different options: all of them).

    On a terminal, a table of the first games; piped, a plain table of them all.
    """
    from partita.cli import listing

    formats = [name for name, chosen in
               (("--json", as_json), ("--csv", as_csv), ("--tsv", as_tsv), ("--nl", as_lines))
               if chosen]  # fmt: skip
    if len(formats) > 1:
        raise typer.BadParameter(f"choose one output format, not {' and '.join(formats)}")
    target = archive_path(db)
    terminal = not formats and sys.stdout.isatty()
    shown = TERMINAL_LIMIT if terminal and limit is None else limit
    # One game more than shown tells whether there are more.
    with database.archive(target, readonly=True) as opened:
        rows = database.query_games(opened, selection, limit=None if shown is None else shown + 1)
    more = shown is not None and len(rows) > shown
    rows = rows[:shown] if shown is not None else rows
    with_ply = selection is not None and selection.position is not None
    with_pattern = selection is not None and selection.pattern is not None
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if as_lines:
        listing.write_json_lines(rows, sys.stdout)
        return
    if as_csv or as_tsv:
        listing.write_delimited(
            rows, sys.stdout, tabs=as_tsv, with_ply=with_ply, with_pattern=with_pattern
        )
        return
    counted = count(len(rows), "game")
    if not terminal:
        listing.write_plain_table(rows, sys.stdout, with_ply=with_ply, with_pattern=with_pattern)
        typer.echo(counted + (" (more with a larger --limit)" if more else ""), err=True)
        return
    from rich.table import Table

    console = stdout_console()
    # The opening column when a game has a name and the terminal has room for it
    # (squeezed, the other columns would lose what they show).
    names = [name for name in listing.TABLE_COLUMNS if name != "opening"]
    named = any(row.get("opening") for row in rows)
    if named and console.width >= OPENING_WIDTH:
        names.append("opening")
    table = Table(*names)
    if with_ply:
        table.add_column("at ply")
        # Whole on a narrow terminal: "mainline", "var. 12" (variation 12).
        table.add_column("found", no_wrap=True, min_width=len("mainline"))
    if with_pattern:
        table.add_column("pattern at ply")
    for row in rows:
        cells = [listing.cell(row, name) for name in names]
        if with_ply:
            cells.append(listing.cell(row, "ply"))
            variation = row.get("variation")
            cells.append("mainline" if variation is None else f"var. {variation}")
        if with_pattern:
            cells.append(listing.cell(row, "pattern_ply"))
        table.add_row(*(plain(cell) for cell in cells))
    console.print(table)
    if more:
        note = f"first {counted} shown; --limit N for more, or pipe the output (| less) for all"
    else:
        note = counted
    if named and "opening" not in names:
        note += f" (opening names: a terminal of {OPENING_WIDTH} columns, or --csv, --json)"
    console.print(note, markup=False)


class ExportFormat(StrEnum):
    pgr = "pgr"
    ndjson = "ndjson"
    csv = "csv"


@app.command()
@filter_options()
def export(
    db: ArchiveOption = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            help="Write here instead of stdout (-: stdout; a new folder with --split-by or "
            "--per-file).",
        ),
    ] = None,
    output_format: Annotated[
        ExportFormat,
        typer.Option("--format", help="pgr, ndjson (one JSON object per game) or csv."),
    ] = ExportFormat.pgr,
    canonical: Annotated[
        bool,
        typer.Option(
            "--canonical",
            help="Rewrite records with problems in canonical form too (their problems "
            "may then not survive a re-import).",
        ),
    ] = False,
    no_comments: Annotated[
        bool, typer.Option("--no-comments", help="Leave the comments out.")
    ] = False,
    no_nags: Annotated[
        bool, typer.Option("--no-nags", help="Leave NAGs ($N) and move suffixes (! ?) out.")
    ] = False,
    no_variations: Annotated[
        bool, typer.Option("--no-variations", help="Leave the variations out (mainline only).")
    ] = False,
    width: Annotated[
        int, typer.Option("--width", help="Longest movetext line.", min=10, max=100_000)
    ] = 80,
    limit: Annotated[
        int | None, typer.Option("--limit", help="At most this many games.", min=0, max=LARGEST)
    ] = None,
    split_by: Annotated[
        str | None,
        typer.Option(
            "--split-by",
            metavar="TAG",
            help="One file per value of this tag (Event, Date...), in the folder -o names.",
        ),
    ] = None,
    per_file: Annotated[
        int | None,
        typer.Option(
            "--per-file",
            help="At most N games a file, in the folder -o names.",
            min=1,
            max=LARGEST,
        ),
    ] = None,
    selection: "GameFilter | None" = None,
) -> None:
    """Write the matching games as canonical PGR (or NDJSON, CSV).

    Records with problems are written as they were imported, so that a re-import
    finds the same problems; --canonical rewrites them too, and so do --no-comments,
    --no-nags, --no-variations and --width.
    """
    from partita.notation.inputs import is_stdin

    target = archive_path(db)
    options = database.ExportOptions(
        format=output_format.value,
        canonical=canonical,
        comments=not no_comments,
        nags=not no_nags,
        variations=not no_variations,
        width=width,
    )
    if output is not None and is_stdin(output):
        output = None  # -o -: standard output
    into_folder = split_by is not None or per_file is not None
    if into_folder:
        if output is None:
            raise typer.BadParameter("--split-by and --per-file write into a folder: give -o DIR")
        if not output.parent.is_dir():
            raise typer.BadParameter(f"there is no folder {output.parent}", param_hint="--output")
    else:
        check_output(output, "--output")
    # The archive first: a missing or foreign one stops before the output is made.
    with database.archive(target, readonly=True) as opened:
        total = database.count_games(opened, selection, limit=limit)
        streams = output is None
        with progress_bar("exporting", total=total, streams_output=streams, unit="games") as update:
            if into_folder and output is not None:
                files = database.export_to_folder(
                    opened, output, split_by=split_by, per_file=per_file, options=options,
                    progress=update, selection=selection, limit=limit,
                )  # fmt: skip
                written = sum(files.values())
            elif output is None:
                with writing(None):
                    stream: Any = EscapingStream(sys.stdout) if sys.stdout.isatty() else sys.stdout
                    written = database.export_games(
                        opened,
                        stream,
                        options=options,
                        progress=update,
                        selection=selection,
                        limit=limit,
                    )
                    sys.stdout.flush()
            else:
                with writing(output), replaced_file(output) as stream:
                    written = database.export_games(
                        opened,
                        stream,
                        options=options,
                        progress=update,
                        selection=selection,
                        limit=limit,
                    )
    if into_folder:
        stderr_console().print(
            plain(f"{count(written, 'game')} written to {count(len(files), 'file')} in {output}"),
            markup=False,
        )
        return
    if output is not None:
        stderr_console().print(plain(f"{count(written, 'game')} written to {output}"), markup=False)
