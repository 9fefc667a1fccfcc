"""Commands on record files: validate, show, games."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from partita.cli.app import app
from partita.cli.options import (
    ArchiveOption,
    JsonOption,
    RecordPaths,
    StrictOption,
    archive_path,
)
from partita.errors import PartitaError
from partita.games.registry import all_games
from partita.notation.files import validate_paths
from partita.notation.replay import ReplayedRecord, replay
from partita.notation.writer import write_record

console = Console(highlight=False)
errors = Console(stderr=True, highlight=False)


@app.command()
def validate(
    files: RecordPaths,
    strict: StrictOption = False,
    as_json: JsonOption = False,
) -> None:
    """Replay every record and report its problems.

    Exit 0 when every record is valid, 1 otherwise.
    """
    results = []
    total = invalid = 0
    for replayed in validate_paths(files, strict=strict):
        total += 1
        invalid += not replayed.valid
        if as_json:
            results.append(replayed.as_dict())
        else:
            _print_problems(replayed)
    if as_json:
        typer.echo(json.dumps(results, ensure_ascii=False, indent=2))
    else:
        mode = "strict" if strict else "lenient"
        console.print(f"{total} records, {total - invalid} valid, {invalid} invalid ({mode})")
    raise typer.Exit(int(invalid > 0))


def _print_problems(replayed: ReplayedRecord) -> None:
    for problem in replayed.problems:
        place = f"{problem.file}:{problem.line}:{problem.column}"
        where = f" [record {problem.record + 1}"
        if problem.context:
            where += f": {problem.context}"
        if problem.ply is not None:
            where += f", ply {problem.ply}, move {problem.move_number}"
        where += "]"
        style = "red" if problem.severity == "error" else "yellow"
        line = Text(f"{place}: ")
        line.append(problem.severity, style=style)
        line.append(f": {problem.message}{where}")
        console.print(line, soft_wrap=True)


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
            help="A record file (-: standard input), or the id of a game in the archive."
        ),
    ],
    index: Annotated[
        int, typer.Option("--index", help="Which record of the file (from 0).", min=0)
    ] = 0,
    ply: Annotated[
        int | None,
        typer.Option(
            "--ply", help="Show the position after this many plies (0: the start).", min=0
        ),
    ] = None,
    output_format: Annotated[
        ShowFormat,
        typer.Option("--format", help="text, position, pgr, json or svg (a board diagram)."),
    ] = ShowFormat.text,
    db: ArchiveOption = None,
) -> None:
    """Show a game: its tags, moves and a diagram of a position."""
    from partita.cli.commands.archive import load_source

    record = load_source(source, index, archive_path(db))
    replayed = replay(record)
    game = replayed.game
    if game is None or replayed.initial_state is None:
        _print_problems(replayed)
        raise PartitaError(f"{source}: cannot show this record (its game or setup is unusable)")
    plies = replayed.plies if ply is None else ply
    if plies > replayed.plies:
        raise PartitaError(f"--ply {plies}: the game has only {replayed.plies} legal plies")
    state = replayed.initial_state
    for token in replayed.moves[:plies]:
        state = game.rules.apply(state, game.parse_move(state, token))
    position = game.format_position(state)
    if output_format is ShowFormat.position:
        typer.echo(position)
    elif output_format is ShowFormat.pgr:
        typer.echo(write_record(record, game), nl=False)
    elif output_format is ShowFormat.svg:
        from partita.analysis.diagrams import render_diagram

        typer.echo(render_diagram(game, state, caption=_caption(record, plies)))
    elif output_format is ShowFormat.json:
        data = replayed.as_dict()
        data.update(
            tags=record.tags,
            moves=replayed.moves,
            ply=plies,
            position=position,
            diagram=game.diagram(state),
        )
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        _show_text(replayed, state, plies)


def _caption(record, plies: int) -> str:
    players = " - ".join(
        record.tags[name] for name in sorted(record.tags) if name.startswith("Player")
    )
    return f"{record.game}: {players}, after ply {plies}" if players else f"after ply {plies}"


def _show_text(replayed: ReplayedRecord, state, plies: int) -> None:
    record, game = replayed.record, replayed.game
    assert game is not None  # the record named a known game
    for name, value in record.tags.items():
        console.print(f"{name}: {value}", markup=False)
    console.print()
    console.print(_numbered(replayed), markup=False, soft_wrap=False)
    console.print()
    console.print(f"after ply {plies}:", markup=False)
    diagram = game.diagram(state)
    console.print(diagram, markup=False)
    outcome = game.rules.outcome(state)
    if outcome is not None and outcome.reason not in " ".join(diagram.split()):
        console.print(f"game over: {outcome.result_token()} ({outcome.reason})", markup=False)
    for problem in replayed.problems:
        console.print(f"{problem.severity}: {problem.message} (line {problem.line})", markup=False)


def _numbered(replayed: ReplayedRecord) -> str:
    """The legal mainline with move numbers, as one paragraph."""
    game = replayed.game
    assert game is not None  # the record named a known game
    rules = game.rules
    state = replayed.initial_state
    parts = []
    for position, token in enumerate(replayed.moves):
        number, opens = rules.move_number(state)
        if opens:
            parts.append(f"{number}.")
        elif position == 0:
            parts.append(f"{number}...")
        parts.append(token)
        state = rules.apply(state, game.parse_move(state, token))
    parts.append(replayed.record.result or "*")
    return " ".join(parts)


@app.command()
def games(as_json: JsonOption = False) -> None:
    """The supported games: their tags and a summary of their notation."""
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
    for entry in data:
        sides = entry["sides"]
        count = str(sides[0]) if sides[0] == sides[1] else f"{sides[0]}-{sides[1]}"
        console.print(f"{entry['game']}: {entry['title']} ({count} sides)", markup=False)
        console.print(f"  moves: {entry['notation']}", markup=False)
        console.print(f"  start: {entry['start']}", markup=False)
        for tag in entry["tags"]:
            values = f" ({', '.join(tag['values'])})" if tag["values"] else ""
            console.print(f"  [{tag['name']}] {tag['description']}{values}", markup=False)
