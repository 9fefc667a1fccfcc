"""Commands on record files: validate, show, games.

The reader, the replay and rich are imported by the commands that use them, so
that start-up stays light (see :mod:`partita.cli.app`).
"""

import json
import sys
from contextlib import closing
from enum import StrEnum
from itertools import accumulate
from typing import TYPE_CHECKING, Annotated, Any

import typer

from partita.cli.app import app
from partita.cli.display import count, plain, printable, wrap_units
from partita.cli.inputs import record_inputs
from partita.cli.options import (
    LARGEST,
    ArchiveOption,
    ExcludeOption,
    JsonOption,
    OpeningsOption,
    RecordPaths,
    SchedulerOption,
    StrictOption,
    archive_path,
    checked_scheduler,
    complete_record_source,
    reading_workers_option,
)
from partita.cli.output import progress_bar, stdout_console, warn
from partita.errors import PartitaError

if TYPE_CHECKING:
    from rich.console import Console

    from partita.notation.problems import Problem
    from partita.notation.replay import ReplayedRecord


@app.command()
def validate(
    files: RecordPaths,
    exclude: ExcludeOption = None,
    strict: StrictOption = False,
    workers: Annotated[int | None, reading_workers_option("this one")] = None,
    scheduler: SchedulerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Replay every record and report its problems.

    Exit 0 when every record is valid, 1 otherwise (and when a path holds no records).
    A path - reads standard input; gzip, bzip2, xz and Zstandard files are read as
    they are. The output is the same whatever the number of workers.
    """
    from partita.bulk.validation import validate_files
    from partita.notation.inputs import input_size

    scheduler = checked_scheduler(scheduler)
    console = stdout_console()
    inputs = record_inputs(files, exclude)
    total = invalid = 0
    counts = dict.fromkeys(inputs.files, 0)
    sizes = [input_size(file) for file in inputs.files]
    starts = [0, *accumulate(sizes)]  # where each file begins in the input
    with (
        # Closed on the way out, Ctrl-C included: the workers stop at once.
        closing(
            validate_files(inputs.files, strict=strict, workers=workers, scheduler=scheduler)
        ) as checks,
        progress_bar(
            "validating", total=sum(sizes) or 1, streams_output=True, unit="bytes"
        ) as update,
    ):
        finished = 0  # files whose records are all reported

        def finish_files(until: int) -> None:
            nonlocal finished
            while finished < until:
                update(starts[finished] + sizes[finished])
                finished += 1

        for number, check in checks:
            finish_files(number)
            counts[inputs.files[number]] += 1
            total += 1
            invalid += not check.valid
            if as_json:  # JSON lines: one object per record, as it is read
                typer.echo(json.dumps(check.as_dict(), ensure_ascii=False))
            else:
                _print_problems(check.problem_list(), console)
            update(starts[number] + check.byte_offset)
        finish_files(len(inputs.files))
    inputs.check_records(counts)
    if not as_json:
        mode = "strict" if strict else "lenient"
        console.print(
            f"{count(total, 'record')}, {total - invalid:,} valid, {invalid:,} invalid ({mode})",
            markup=False,
        )
    for warning in inputs.warnings:
        warn(str(warning))
    raise typer.Exit(int(invalid > 0 or bool(inputs.warnings)))


def _print_problems(problems: "list[Problem]", console: "Console") -> None:
    """One line per problem, as plain text: the record's own characters are shown
    escaped, and no colour code of ours can be mistaken for one of a record's."""
    for problem in problems:
        place = f"{problem.file}:{problem.line}:{problem.column}"
        where = f" [record {problem.record + 1}"
        if problem.context:
            where += f": {problem.context}"
        if problem.ply is not None:
            where += f", ply {problem.ply}, move {problem.move_number}"
        where += "]"
        line = printable(f"{place}: {problem.severity}: {problem.message}{where}")
        console.print(line, soft_wrap=True, markup=False, highlight=False)


class ShowFormat(StrEnum):
    text = "text"
    position = "position"
    pgr = "pgr"
    json = "json"
    svg = "svg"


@app.command()
def show(
    source: Annotated[
        str,
        typer.Argument(
            help="A record file (-: standard input), or the id of a game in the archive.",
            autocompletion=complete_record_source,
        ),
    ],
    index: Annotated[
        int,
        typer.Option("--index", help="Which record of the file (from 0).", min=0, max=LARGEST),
    ] = 0,
    ply: Annotated[
        int | None,
        typer.Option(
            "--ply",
            help="Show the position after this many plies (0: the start).",
            min=0,
            max=LARGEST,
        ),
    ] = None,
    output_format: Annotated[
        ShowFormat,
        typer.Option("--format", help="text, position, pgr, json or svg (a board diagram)."),
    ] = ShowFormat.text,
    db: ArchiveOption = None,
    openings: OpeningsOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the game as JSON (the same as --format json).")
    ] = False,
) -> None:
    """Show a game: its tags, its opening name, moves and a diagram of a position."""
    from partita.cli.inputs import load_source
    from partita.notation.replay import replay
    from partita.notation.writer import write_record

    if as_json:
        if output_format not in (ShowFormat.text, ShowFormat.json):
            raise typer.BadParameter(
                f"--json and --format {output_format.value}: choose one", param_hint="--json"
            )
        output_format = ShowFormat.json
    record = load_source(source, index, archive_path(db))
    replayed = replay(record)
    game = replayed.game
    if game is None or replayed.initial_state is None:
        _print_problems(replayed.problems, stdout_console())
        raise PartitaError(f"{source}: cannot show this record (its game or setup is unusable)")
    plies = replayed.plies if ply is None else ply
    if plies > replayed.plies:
        raise PartitaError(f"--ply {plies}: the game has only {replayed.plies} legal plies")
    state = replayed.state_at(plies)
    position = game.format_position(state)
    from partita.database.openings import opening_of_line

    named = opening_of_line(game.name, replayed.keys, openings or (), replayed.configuration)
    opening = None if named is None else named.name
    if output_format is ShowFormat.position:
        typer.echo(printable(position))
    elif output_format is ShowFormat.pgr:
        _echo_document(write_record(record, game))
    elif output_format is ShowFormat.svg:
        from partita.analysis.diagrams import render_diagram
        from partita.analysis.report.positions import changed_cells

        before = replayed.state_at(max(plies - 1, 0))  # the last move's cells ringed
        last = changed_cells(game, before, state) if plies > 0 else []
        _echo_document(
            render_diagram(game, state, caption=_caption(record, plies), last=last) + "\n"
        )
    elif output_format is ShowFormat.json:
        data = replayed.as_dict()
        data.update(
            tags=record.tags,
            moves=replayed.moves,
            ply=plies,
            position=position,
            opening=opening,
            diagram=game.diagram(state),
        )
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        _show_text(replayed, state, plies, opening)


def _echo_document(text: str) -> None:
    """A PGR or SVG text: exact into a file or a pipe (not through click, which would
    drop what looks like a colour code), escaped on a terminal."""
    sys.stdout.write(printable(text, lines=True) if sys.stdout.isatty() else text)


def _caption(record, plies: int) -> str:
    players = " - ".join(
        record.tags[name] for name in sorted(record.tags) if name.startswith("Player")
    )
    return f"{record.game}: {players}, after ply {plies}" if players else f"after ply {plies}"


def _show_text(replayed: "ReplayedRecord", state, plies: int, opening: str | None) -> None:
    record, game = replayed.record, replayed.game
    assert game is not None  # the record named a known game
    console = stdout_console()
    for name, value in record.tags.items():
        console.print(plain(f"{name}: {value}"))
    if opening is not None:
        console.print(plain(f"Opening: {opening}"))
    console.print()
    # Wrapped between moves, never inside one (a card game's turn can be one long token).
    for line in wrap_units(_numbered(replayed), console.width if console.is_terminal else 80):
        console.print(printable(line), markup=False, soft_wrap=True)
    console.print()
    last = _last_move(replayed, plies)
    console.print(
        f"after ply {plies}" + (f", last move {last}" if last else "") + ":", markup=False
    )
    diagram = game.diagram(state, last=_before_last(replayed, plies))
    console.print(printable(diagram, lines=True), markup=False, soft_wrap=True)
    outcome = game.rules.outcome(state)
    if outcome is not None and outcome.reason not in " ".join(diagram.split()):
        console.print(plain(f"game over: {outcome.result_token()} ({outcome.reason})"))
    for problem in replayed.problems:
        console.print(plain(f"{problem.severity}: {problem.message} (line {problem.line})"))


def _before_last(replayed: "ReplayedRecord", plies: int) -> Any:
    """The position the move to ply ``plies`` was played from (``None`` at ply 0)."""
    return None if plies == 0 else replayed.state_at(plies - 1)


def _last_move(replayed: "ReplayedRecord", plies: int) -> str:
    """The move that led to the position after ``plies`` (``12... t4``), or ``""``."""
    from partita.notation.replay import move_label

    game = replayed.game
    assert game is not None  # the record named a known game
    state = _before_last(replayed, plies)
    if state is None:
        return ""
    return f"{move_label(game.rules, state)} {replayed.moves[plies - 1]}"


def _numbered(replayed: "ReplayedRecord") -> list[str]:
    """The legal mainline with move numbers, each number with its move (``1. t4``,
    ``2... r5`` for a record that starts with the second side), and the result."""
    game = replayed.game
    assert game is not None  # the record named a known game
    rules = game.rules
    state = replayed.initial_state
    parts = []
    for position, token in enumerate(replayed.moves):
        number, opens = rules.move_number(state)
        if opens:
            parts.append(f"{number}. {token}")
        elif position == 0:
            parts.append(f"{number}... {token}")
        else:
            parts.append(token)
        state = rules.apply(state, game.parse_move(state, token))
    parts.append(replayed.record.result or "*")
    return parts


@app.command()
def games(as_json: JsonOption = False) -> None:
    """The supported games: their tags and a summary of their notation."""
    from partita.game.registry import all_games

    data: list[dict[str, Any]] = []
    for game in all_games():
        rules = game.rules
        data.append(
            {
                "game": rules.name,
                "title": rules.title,
                "sides": [rules.min_sides, rules.max_sides],
                "symmetries": rules.symmetry_count,
                "tags": [
                    {
                        "name": spec.name,
                        "description": spec.description,
                        "values": list(spec.values) if spec.values else None,
                        "default": spec.default,
                    }
                    for spec in rules.tags
                ],
                "notation": rules.notation_summary,
                "start": game.format_position(game.initial(rules.min_sides)),
            }
        )
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    console = stdout_console()
    for entry in data:
        sides = entry["sides"]
        count = str(sides[0]) if sides[0] == sides[1] else f"{sides[0]}-{sides[1]}"
        console.print(f"{entry['game']}: {entry['title']} ({count} sides)", markup=False)
        console.print(f"  moves: {entry['notation']}", markup=False)
        console.print(f"  start: {entry['start']}", markup=False)
        for tag in entry["tags"]:
            values = f" ({', '.join(tag['values'])})" if tag["values"] else ""
            console.print(f"  [{tag['name']}] {tag['description']}{values}", markup=False)
