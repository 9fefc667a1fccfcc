"""Opening analysis commands: tree, novelty, report."""

from __future__ import annotations

import json
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from partita.analysis.novelty import Novelty, novelty_against_archive, novelty_against_file
from partita.analysis.report import (
    ReportOptions,
    build_report,
    render_html,
    render_markdown,
    write_report,
)
from partita.analysis.tree import OpeningTree, tree_from_archive
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
    ResultFilter,
    SidesFilter,
    TagFilter,
    archive_path,
    check_record_file,
    filters,
)
from partita.errors import PartitaError
from partita.notation.inputs import is_stdin

console = Console(highlight=False)

DepthOption = Annotated[
    int, typer.Option("--depth", help="Plies of the tree after its root.", min=1, max=200)
]
MinGamesOption = Annotated[
    int | None,
    typer.Option(
        "--min-games",
        help="Leave out moves played by fewer games (default: 1, and 1 more per 20,000 games).",
        min=1,
    ),
]
SymmetryOption = Annotated[
    bool,
    typer.Option(
        "--symmetry",
        help="Merge positions equal under a symmetry of the board (`partita games` lists their number).",
    ),
]


def _existing(db: Path | None) -> Path:
    target = archive_path(db)
    if not target.exists():
        raise PartitaError(f"no archive at {target} (import records first: partita import FILE...)")
    return target


@app.command()
def tree(
    game: Annotated[str, typer.Option("--game", help="Game tag (see `partita games`).")],
    db: ArchiveOption = None,
    player: PlayerFilter = None,
    result: ResultFilter = None,
    event: EventFilter = None,
    date_from: DateFromFilter = None,
    date_to: DateToFilter = None,
    opening: OpeningFilter = None,
    position: PositionFilter = None,
    sides: SidesFilter = None,
    tag: TagFilter = None,
    root: Annotated[
        str | None,
        typer.Option("--from", help="Start the tree at this position (position notation)."),
    ] = None,
    depth: DepthOption = 8,
    min_games: MinGamesOption = None,
    symmetry: SymmetryOption = False,
    as_json: JsonOption = False,
    dot: Annotated[
        Path | None,
        typer.Option("--dot", help="Write the tree as Graphviz DOT to this file (-: stdout)."),
    ] = None,
    graphml: Annotated[
        Path | None,
        typer.Option("--graphml", help="Write the tree as GraphML to this file (-: stdout)."),
    ] = None,
) -> None:
    """The opening tree of the archive's games: moves from a position with their
    games, share, results (W/D/L of the side that moved), score and transpositions."""
    to_stdout = [path for path in (dot, graphml) if path is not None and is_stdin(path)]
    if len(to_stdout) + as_json > 1:
        raise typer.BadParameter("only one of --json, --dot - and --graphml - can use stdout")
    target = _existing(db)
    chosen = filters(None, player, result, event, date_from, date_to, opening, position, sides, tag)
    built = tree_from_archive(
        target,
        game,
        root=root,
        depth=depth,
        min_games=min_games,
        symmetry=symmetry,
        **{name: value for name, value in chosen.items() if name != "game"},
    )
    if dot is not None:
        if is_stdin(dot):
            typer.echo(built.to_dot(), nl=False)
        else:
            built.write_dot(dot)
    if graphml is not None:
        if is_stdin(graphml):
            with tempfile.TemporaryDirectory() as folder:
                built.write_graphml(Path(folder) / "tree.graphml")
                typer.echo((Path(folder) / "tree.graphml").read_text(encoding="utf-8"), nl=False)
        else:
            built.write_graphml(graphml)
    if to_stdout:
        return
    if as_json:
        typer.echo(built.to_json())
        return
    _print_tree(built)
    for path, kind in ((dot, "DOT"), (graphml, "GraphML")):
        if path is not None:
            console.print(f"{kind} written to {path}", markup=False)


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _print_tree(built: OpeningTree) -> None:
    table = Table(
        "move",
        "games",
        "share",
        "W/D/L",
        "score",
        "transp.",
        "last",
        "examples",
        title=f"{built.game.rules.title}"
        + (f" ({built.configuration.label})" if built.configuration else "")
        + f": {built.position()}",
        caption=(
            f"{built.node_games()} games at the root, {built.games} in the selection; "
            f"{len(built.nodes)} positions and {built.move_count} "
            f"moves to depth {built.depth}"
            + (" (symmetric positions merged)" if built.symmetry else "")
        ),
    )
    for column in (1, 2, 3, 4, 5):
        table.columns[column].justify = "right"
    for stats in built.moves():
        won, drawn, lost = stats.wdl
        table.add_row(
            stats.move,
            str(stats.games),
            _percent(stats.share),
            f"{won}/{drawn}/{lost}",
            _percent(stats.score),
            str(stats.transpositions),
            stats.last_date or "",
            " ".join(str(game_id) for game_id in stats.examples),
        )
    console.print(table)
    if not built.moves():
        console.print("no game of the selection continues from this position", markup=False)


@app.command()
def novelty(
    source: Annotated[
        str,
        typer.Argument(
            help="A record file (-: standard input), or the id of a game in the archive."
        ),
    ],
    index: Annotated[
        int, typer.Option("--index", help="Which record of the file (from 0).", min=0)
    ] = 0,
    db: ArchiveOption = None,
    reference: Annotated[
        Path | None,
        typer.Option(
            "--reference",
            help="Compare with the records of this file instead of the archive (-: stdin).",
            callback=check_record_file,
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """The first move of a game that leaves the reference (the archive, or --reference
    FILE): how often the position before it was reached and what was played there."""
    from partita.cli.commands.archive import load_source

    path = Path(source)
    game_id = int(source) if not path.is_file() and source.isdigit() else None
    if reference is not None:
        record = load_source(source, index, archive_path(db))
        found = novelty_against_file(record, reference)
    else:
        target = _existing(db)
        record = load_source(source, index, target)
        found = novelty_against_archive(record, target, game_id=game_id)
    if as_json:
        typer.echo(json.dumps(found.as_dict(), ensure_ascii=False, indent=2))
        return
    _print_novelty(found)


def _print_novelty(found: Novelty) -> None:
    console.print(
        f"{found.plies} plies against {found.reference_games} reference games", markup=False
    )
    if found.ply is None:
        console.print(found.reason, markup=False)
        return
    console.print(
        f"novelty at ply {found.ply}: {found.move_number} {found.move}", style="bold", markup=False
    )
    console.print(
        f"the position before it ({found.position}) was reached by {found.reached} games",
        markup=False,
    )
    if not found.played:
        console.print("no reference game continued from it", markup=False)
        return
    table = Table("played before", "games", "W/D/L", "score", "last", "examples")
    for column in (1, 2, 3):
        table.columns[column].justify = "right"
    for entry in found.played:
        table.add_row(
            entry.move,
            str(entry.games),
            f"{entry.won}/{entry.drawn}/{entry.lost}",
            _percent(entry.score),
            entry.last_date or "",
            " ".join(str(game_id) for game_id in entry.examples),
        )
    console.print(table)


class ReportFormat(StrEnum):
    html = "html"
    md = "md"


@app.command()
def report(
    output: Annotated[
        Path,
        typer.Option(
            "-o", "--output", help="The report file (.html, or .md for Markdown; -: stdout)."
        ),
    ],
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
    output_format: Annotated[
        ReportFormat | None,
        typer.Option("--format", help="html or md (default: from the file name)."),
    ] = None,
    depth: Annotated[
        int, typer.Option("--depth", help="Plies of the opening tree.", min=1, max=40)
    ] = 4,
    min_games: MinGamesOption = None,
    symmetry: SymmetryOption = False,
    viewer_games: Annotated[
        int, typer.Option("--viewer-games", help="Games the replay viewer holds.", min=0)
    ] = 200,
    title: Annotated[str | None, typer.Option("--title", help="The report's title.")] = None,
) -> None:
    """A report on the archive: one self-contained HTML page (charts, board diagrams,
    opening tree, a replay viewer) or Markdown."""
    target = _existing(db)
    options = ReportOptions(
        depth=depth,
        min_games=min_games,
        symmetry=symmetry,
        viewer_games=viewer_games,
        title=title,
    )
    chosen = filters(game, player, result, event, date_from, date_to, opening, position, sides, tag)
    if is_stdin(output):
        data = build_report(target, options=options, **chosen)
        markdown = output_format is ReportFormat.md
        typer.echo(render_markdown(data) if markdown else render_html(data), nl=False)
        return
    written = write_report(
        target,
        output,
        output_format=output_format.value if output_format is not None else None,
        options=options,
        **chosen,
    )
    Console(stderr=True).print(f"report written to {written}", markup=False)
