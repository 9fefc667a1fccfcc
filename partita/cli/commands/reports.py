"""Opening analysis commands: tree, novelty, report.

The analysis code (networkx, matplotlib, jinja2) and rich are imported by the
commands that use them, so that start-up stays light (see :mod:`partita.cli.app`).
"""

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from partita.cli.app import app
from partita.cli.display import count
from partita.cli.filters import filter_options
from partita.cli.options import (
    LARGEST,
    ArchiveOption,
    JsonOption,
    archive_path,
    check_game_id,
    check_record_file,
    complete_game_id,
    complete_record_source,
    existing_archive,
)
from partita.cli.output import check_output, progress_bar, stderr_console, stdout_console, writing

if TYPE_CHECKING:
    from partita.analysis.novelty import Novelty
    from partita.analysis.tree import OpeningTree
    from partita.database.filters import GameFilter

DepthOption = Annotated[
    int, typer.Option("--depth", help="Plies of the tree after its root.", min=1, max=200)
]
MinGamesOption = Annotated[
    int | None,
    typer.Option(
        "--min-games",
        help="Leave out moves played by fewer games (default: 1, and 1 more per 20,000 games).",
        min=1,
        max=LARGEST,
    ),
]
SymmetryOption = Annotated[
    bool,
    typer.Option(
        "--symmetry",
        help="Merge positions equal under a symmetry of the board (`partita games` lists their number).",
    ),
]


@app.command()
@filter_options(game=False)
def tree(
    game: Annotated[
        str,
        typer.Option(
            "--game",
            help="Game tag (see `partita games`).",
            callback=check_game_id,
            autocompletion=complete_game_id,
        ),
    ],
    db: ArchiveOption = None,
    root: Annotated[
        str | None,
        typer.Option("--from", help="Start the tree at this position (position notation)."),
    ] = None,
    depth: DepthOption = 8,
    min_games: MinGamesOption = None,
    symmetry: SymmetryOption = False,
    ratings: Annotated[
        bool,
        typer.Option(
            "--ratings/--no-ratings",
            help="Each move's average rating and performance (AvElo, Perf; in --json "
            "rating and performance); --no-ratings leaves them out and skips computing "
            "the archive's Elo.",
        ),
    ] = True,
    as_json: JsonOption = False,
    dot: Annotated[
        Path | None,
        typer.Option("--dot", help="Write the tree as Graphviz DOT to this file (-: stdout)."),
    ] = None,
    graphml: Annotated[
        Path | None,
        typer.Option("--graphml", help="Write the tree as GraphML to this file (-: stdout)."),
    ] = None,
    flat: Annotated[
        bool,
        typer.Option(
            "--flat",
            help="One row per move with its whole line from the root, instead of "
            "moves indented by depth.",
        ),
    ] = False,
    selection: "GameFilter | None" = None,
) -> None:
    """The opening tree of the archive's games: moves from a position to --depth,
    with their games, share, results (W/D/L of the side that moved), score and
    transpositions; indented by depth (or --flat)."""
    from partita.analysis.tree import tree_from_archive
    from partita.notation.inputs import is_stdin

    to_stdout = [path for path in (dot, graphml) if path is not None and is_stdin(path)]
    if len(to_stdout) + as_json > 1:
        raise typer.BadParameter("only one of --json, --dot - and --graphml - can use stdout")
    target = existing_archive(db)
    check_output(dot, "--dot")
    check_output(graphml, "--graphml")
    from partita.database.schema import archive

    with (
        archive(target, readonly=True) as opened,
        progress_bar("reading games", unit="games") as update,
    ):
        built = tree_from_archive(
            opened,
            game,
            root=root,
            depth=depth,
            min_games=min_games,
            symmetry=symmetry,
            progress=update,
            rated=ratings,
            selection=selection,
        )
    if dot is not None:
        if is_stdin(dot):
            with writing(None):
                sys.stdout.write(built.to_dot())
        else:
            with writing(dot):
                built.write_dot(dot)
    if graphml is not None:
        if is_stdin(graphml):
            with writing(None):
                sys.stdout.write(built.to_graphml())
        else:
            with writing(graphml):
                built.write_graphml(graphml)
    if to_stdout:
        return
    if as_json:
        typer.echo(built.to_json())
        return
    _print_tree(built, flat=flat)
    for path, kind in ((dot, "DOT"), (graphml, "GraphML")):
        if path is not None:
            stdout_console().print(f"{kind} written to {path}", markup=False)


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _print_tree(built: "OpeningTree", *, flat: bool = False) -> None:
    """Every move of the tree to its depth, depth first, most played first: the
    move indented by its depth (``flat``: the whole line from the root in a
    ``line`` column instead), a position reached again by a transposition not
    expanded twice. The AvElo, Perf and opening columns only when some move has
    a value for them."""
    from partita.cli.listing import print_table

    walked = list(built.walk(built.depth))
    moves = [stats for _, stats in walked]
    rated = any(stats.rating is not None for stats in moves)
    performed = any(stats.performance is not None for stats in moves)
    named = any(stats.opening for stats in moves)
    columns = ["line" if flat else "move", "games", "share", "W/D/L", "score", "transp."]
    columns += ["AvElo"] * rated + ["Perf"] * performed + ["last", "examples"]
    columns += ["opening"] * named
    title = (
        f"{built.game.rules.title}"
        + (f" ({built.configuration.label})" if built.configuration else "")
        + f": {built.position()}"
    )
    rows = []
    line: list[str] = []
    for level, stats in walked:
        del line[level - 1 :]
        line.append(stats.move)
        won, drawn, lost = stats.wdl
        cells = [
            " ".join(line) if flat else "  " * (level - 1) + stats.move,
            str(stats.games),
            _percent(stats.share),
            f"{won}/{drawn}/{lost}",
            _percent(stats.score),
            str(stats.transpositions),
        ]
        if rated:
            cells.append("" if stats.rating is None else f"{stats.rating:.0f}")
        if performed:
            cells.append("" if stats.performance is None else f"{stats.performance:.0f}")
        cells += [stats.last_date or "", " ".join(str(game_id) for game_id in stats.examples)]
        if named:
            cells.append(stats.opening or "")
        rows.append(cells)
    right = range(1, 6 + rated + performed)
    wrap = {len(columns) - 1 - named, len(columns) - 1} | ({0} if flat else set())
    optional = [len(columns) - 1] if named else []
    print_table(columns, rows, right=right, title=title, wrap=wrap, optional=optional)
    caption = (
        f"{count(built.node_games(), 'game')} at the root, {built.games:,} in the selection; "
        f"{count(len(built.nodes), 'position')} and {count(built.move_count, 'move')} "
        f"to depth {built.depth}" + (" (symmetric positions merged)" if built.symmetry else "")
    )
    console = stdout_console()
    console.print(caption, markup=False, soft_wrap=True)
    if not moves:
        console.print("no game of the selection continues from this position", markup=False)


@app.command()
def novelty(
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
    from partita.analysis.novelty import novelty_against_archive, novelty_against_file
    from partita.cli.inputs import load_source, source_game_id

    game_id = source_game_id(source)
    if reference is not None:
        record = load_source(source, index, archive_path(db))
        found = novelty_against_file(record, reference)
    else:
        target = existing_archive(db)
        record = load_source(source, index, target)
        from partita.database.schema import archive

        with archive(target, readonly=True) as opened:
            found = novelty_against_archive(record, opened, game_id=game_id)
    if as_json:
        typer.echo(json.dumps(found.as_dict(), ensure_ascii=False, indent=2))
        return
    _print_novelty(found)


def _print_novelty(found: "Novelty") -> None:
    from partita.cli.listing import print_table

    console = stdout_console()
    console.print(
        f"{count(found.plies, 'ply', 'plies')} against "
        f"{count(found.reference_games, 'reference game')}",
        markup=False,
    )
    if found.ply is None:
        console.print(found.reason, markup=False)
        return
    console.print(
        f"novelty at ply {found.ply}: {found.move_number} {found.move}", style="bold", markup=False
    )
    console.print(
        f"the position before it ({found.position}) was reached by {count(found.reached, 'game')}",
        markup=False,
        soft_wrap=True,
    )
    if not found.played:
        console.print("no reference game continued from it", markup=False)
        return
    rows = [
        [
            entry.move,
            str(entry.games),
            f"{entry.won}/{entry.drawn}/{entry.lost}",
            _percent(entry.score),
            entry.last_date or "",
            " ".join(str(game_id) for game_id in entry.examples),
        ]
        for entry in found.played
    ]
    headers = ["played before", "games", "W/D/L", "score", "last", "examples"]
    print_table(headers, rows, right=(1, 2, 3), wrap=(5,))


#: The report's progress bar: its steps are each game's part's sections, each game
#: replayed for the viewer and each chart drawn.
REPORT_PROGRESS = "building the report"
REPORT_UNIT = "steps (sections, games, charts)"


class ReportFormat(StrEnum):
    html = "html"
    md = "md"


@app.command()
@filter_options()
def report(
    output: Annotated[
        Path,
        typer.Option(
            "-o", "--output", help="The report file (.html, or .md for Markdown; -: stdout)."
        ),
    ],
    db: ArchiveOption = None,
    output_format: Annotated[
        ReportFormat | None,
        typer.Option("--format", help="html or md (default: from the file name)."),
    ] = None,
    depth: Annotated[
        int,
        typer.Option(
            "--depth",
            help="Players' moves of the opening tree (chance moves not counted).",
            min=1,
            max=40,
        ),
    ] = 4,
    min_games: MinGamesOption = None,
    symmetry: SymmetryOption = False,
    viewer_games: Annotated[
        int,
        typer.Option(
            "--viewer-games",
            help="Games listed (the latest first), each with a replay button; the viewer "
            "also holds every game another button names.",
            min=0,
            max=LARGEST,
        ),
    ] = 200,
    title: Annotated[str | None, typer.Option("--title", help="The report's title.")] = None,
    charts: Annotated[
        bool,
        typer.Option(
            "--charts/--no-charts",
            help="Draw the charts (a Markdown file gets them as SVG files in a folder "
            "beside it, FILE-charts/; --no-charts is much faster).",
        ),
    ] = True,
    selection: "GameFilter | None" = None,
) -> None:
    """A report on the archive: one self-contained HTML page (charts, board diagrams,
    opening tree, a replay viewer) or Markdown (its charts as SVG files beside it)."""
    from partita.analysis.report import ReportOptions, write_report
    from partita.database.schema import archive
    from partita.notation.inputs import is_stdin

    target = existing_archive(db)
    check_output(output, "--output")
    options = ReportOptions(
        depth=depth,
        min_games=min_games,
        symmetry=symmetry,
        viewer_games=viewer_games,
        title=title,
        charts=charts,
    )
    if is_stdin(output):
        from partita.analysis.report import build_report, render_html, render_markdown

        with (
            archive(target, readonly=True) as opened,
            progress_bar(REPORT_PROGRESS, unit=REPORT_UNIT) as update,
            writing(None),
        ):
            data = build_report(opened, options=options, progress=update, selection=selection)
            markdown = output_format is ReportFormat.md
            sys.stdout.write(render_markdown(data) if markdown else render_html(data, update))
        return
    with (
        archive(target, readonly=True) as opened,
        progress_bar(REPORT_PROGRESS, unit=REPORT_UNIT) as update,
        writing(output),
    ):
        written = write_report(
            opened,
            output,
            output_format=output_format.value if output_format is not None else None,
            options=options,
            progress=update,
            selection=selection,
        )
    stderr_console().print(f"report written to {written}", markup=False)
