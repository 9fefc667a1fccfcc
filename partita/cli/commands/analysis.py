"""Analysis commands: solve, annotate.

The solvers and the annotator are imported by the commands that use them, so that
start-up stays light (see :mod:`partita.cli.app`).
"""

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from partita.analysis.defaults import DEFAULT_AGENT, DEFAULT_POSITION_BUDGET
from partita.analysis.solving import DEFAULT_TABLE_SIZE
from partita.cli.app import app
from partita.cli.commands.selfplay import BookOption, NoBookOption, open_default_book
from partita.cli.display import count, printable
from partita.cli.options import (
    LARGEST,
    ArchiveOption,
    JsonOption,
    archive_path,
    check_game_id,
    complete_agent,
    complete_game_id,
)
from partita.cli.output import check_output, progress_bar, replaced_file, writing
from partita.errors import PartitaError

#: Default node budget of `partita solve` (under a second compiled, about 30 s in pure Python).
DEFAULT_SOLVE_BUDGET = 10_000_000

#: The largest node budget (10^15 nodes: years of search at ten million a second).
MAX_BUDGET = 10**15
#: The largest search time, in seconds (about three years).
MAX_SECONDS = 1e8
#: The largest transposition table: 2^28 positions, about 4.5 GB (17 bytes a position).
MAX_TABLE_SIZE = 1 << 28


def _a_number(value: float | None) -> float | None:
    """Refuse ``nan`` (it passes every range check, and would never stop a search)."""
    if value is not None and value != value:
        raise typer.BadParameter("give a number of seconds, not nan")
    return value


BudgetOption = Annotated[
    int,
    typer.Option(
        "--budget",
        help="Most nodes to search (0: no limit); past it, stop and say so.",
        min=0,
        max=MAX_BUDGET,
    ),
]
SecondsOption = Annotated[
    float | None,
    typer.Option(
        "--seconds",
        help="Most seconds to search; past it, stop and say so.",
        min=0,
        max=MAX_SECONDS,
        callback=_a_number,
    ),
]
TableSizeOption = Annotated[
    int,
    typer.Option(
        "--table-size",
        help="Most positions the transposition table keeps (memory: 17 bytes each).",
        min=1,
        max=MAX_TABLE_SIZE,
    ),
]


@app.command()
def solve(
    position: Annotated[
        str | None,
        typer.Argument(help="The position, in the game's position notation (default: the start)."),
    ] = None,
    game_name: Annotated[
        str | None,
        typer.Option(
            "--game",
            help="A game with an exact solver (see `partita games`).",
            callback=check_game_id,
            autocompletion=complete_game_id,
        ),
    ] = None,
    moves: Annotated[
        str | None,
        typer.Option("--moves", help='Moves played from POSITION (or the start): "t4 t4 t5".'),
    ] = None,
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns",
            help='Columns played from the start, "4453" (top-entry boards\' column strings).',
        ),
    ] = None,
    budget: BudgetOption = DEFAULT_SOLVE_BUDGET,
    seconds: SecondsOption = None,
    table_size: TableSizeOption = DEFAULT_TABLE_SIZE,
    book: BookOption = None,
    no_book: NoBookOption = False,
    as_json: JsonOption = False,
) -> None:
    """Solve a position exactly: its value, the best moves, every move's score.

    Scores are from the side to move: 0 a draw, positive a win (the sooner, the
    higher), negative a loss; the game's docs page gives its scale.
    """
    from partita.analysis.solving import solvable_games, solver_for
    from partita.games.registry import get_game

    if game_name is None:
        with_columns = [name for name in solvable_games() if get_game(name).has_column_strings]
        if columns is None or len(with_columns) != 1:
            raise typer.BadParameter("name the game with --game", param_hint="--game")
        game_name = with_columns[0]
    game = get_game(game_name)
    rules = game.rules
    if columns is not None:
        if position is not None:
            raise typer.BadParameter("give either POSITION or --columns", param_hint="--columns")
        state = rules.initial()
        for move in game.moves_from_columns(columns, state):
            state = rules.apply(state, move)
    else:
        state = game.parse_position(position) if position is not None else rules.initial()
    if moves:
        state = game.play_line(moves, state)
    solver = solver_for(game, table_size=table_size, book=open_default_book(book, no_book))
    solution = solver.solve(state, max_nodes=budget or None, max_seconds=seconds)
    if as_json:
        data = {"position": game.format_position(state), "game": game.name}
        data.update(solution.as_dict(lambda move: game.format_move(state, move)))
        typer.echo(json.dumps(data, indent=2))
        return
    typer.echo(f"{game.format_position(state)}  ({game.name})")
    outcome = rules.outcome(state)
    if outcome is not None:
        typer.echo(f"the game is over: {outcome.reason} (score {solution.score:+d})")
        return
    side = "xo"[rules.side_to_move(state)]
    typer.echo(f"{side} to move: {_describe(solution, solution.score)} (score {solution.score:+d})")
    best = " ".join(game.format_move(state, move) for move in solution.best)
    typer.echo(f"best: {best}")
    for item in solution.moves:
        token = game.format_move(state, item.move)
        typer.echo(f"  {token:<4} {item.score:+3d}  {_describe(solution, item.score)}")
    typer.echo(f"{count(solution.nodes, 'node')} in {solution.seconds:.2f} s")


def _describe(solution, score: int) -> str:
    """``win in 3 moves``, ``draw``, ``loss in 5 moves``: moves of the side to move."""
    if score == 0:
        return "draw"
    count = solution.own_moves(score)
    word = "move" if count == 1 else "moves"
    return f"{'win' if score > 0 else 'loss'} in {count} {word}"


@app.command()
def annotate(
    source: Annotated[
        str,
        typer.Argument(
            help="A record file (-: standard input), or the id of a game in the archive."
        ),
    ],
    index: Annotated[
        int,
        typer.Option("--index", help="Which record of the file (from 0).", min=0, max=LARGEST),
    ] = 0,
    from_ply: Annotated[
        int,
        typer.Option(
            "--from-ply", help="Judge the moves from this ply on (from 1).", min=1, max=LARGEST
        ),
    ] = 1,
    agent: Annotated[
        str,
        typer.Option(
            "--agent",
            autocompletion=complete_agent,
            help="What values the positions the exact solver does not: mcts:N (N playouts "
            "a position), mcts:2s (seconds) or greedy.",
        ),
    ] = DEFAULT_AGENT,
    seed: Annotated[
        int,
        typer.Option(
            "--seed", min=0, max=LARGEST, help="Seed of the searches (same seed, same annotation)."
        ),
    ] = 0,
    budget: Annotated[
        int,
        typer.Option(
            "--budget",
            help="Most nodes the exact solver searches per position (0: no limit); "
            "harder positions go to the agent.",
            min=0,
            max=MAX_BUDGET,
        ),
    ] = DEFAULT_POSITION_BUDGET,
    seconds: Annotated[
        float | None,
        typer.Option(
            "--seconds",
            help="Most seconds the exact solver spends per position; harder ones go to the agent.",
            min=0,
            max=MAX_SECONDS,
            callback=_a_number,
        ),
    ] = None,
    table_size: TableSizeOption = DEFAULT_TABLE_SIZE,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            help="Write the annotated record here (default, and -: stdout).",
            dir_okay=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print what was found as JSON instead of the record.")
    ] = False,
    db: ArchiveOption = None,
    book: BookOption = None,
    no_book: NoBookOption = False,
) -> None:
    """Value every move with each side's expected score; mark mistakes ? and ??.

    The exact solver values the positions within its budget (games that have one), the
    agent (MCTS by default) the others. After each move a comment [%eval 0.62,0.38]
    gives every side's expected score; a move that drops its mover's by more than
    0.15 gets ?, by more than 0.35 ??, with a better move. The annotated record is
    written in canonical form; a summary goes to stderr.
    """
    from partita.analysis.agents import parse_agent_spec
    from partita.analysis.annotate import annotate_record
    from partita.cli.commands.archive import load_source
    from partita.notation.inputs import is_stdin
    from partita.notation.writer import write_record

    check_output(output, "--output")
    try:
        kind, _ = parse_agent_spec(agent)
    except PartitaError as error:
        raise typer.BadParameter(str(error), param_hint="--agent") from None
    if kind == "random":
        raise typer.BadParameter(
            "the random agent does not value positions: use mcts:N or greedy",
            param_hint="--agent",
        )
    record = load_source(source, index, archive_path(db))
    game_name = record.game
    if game_name is None:
        raise PartitaError(f"{source}: the record has no Game tag")
    with progress_bar("annotating", enabled=not as_json, unit="positions") as report:
        annotation = annotate_record(
            record,
            solver=_book_solver(record, table_size, open_default_book(book, no_book, db)),
            agent=agent,
            seed=seed,
            from_ply=from_ply,
            max_nodes=budget or None,
            max_seconds=seconds,
            table_size=table_size,
            progress=report,
        )
    text = write_record(record)
    if as_json:
        typer.echo(json.dumps(annotation.as_dict(), ensure_ascii=False, indent=2))
    elif output is not None and not is_stdin(output):
        with writing(output), replaced_file(output) as stream:
            stream.write(text)
    else:
        sys.stdout.write(printable(text, lines=True) if sys.stdout.isatty() else text)
    marked = len(annotation.blunders)
    dubious = len(annotation.marked) - marked
    summary = (
        f"{_count(marked, 'move')} marked ??, {dubious} marked ?; "
        f"{_count(annotation.solved, 'position')} solved exactly"
    )
    if annotation.searched:
        summary += f", {annotation.searched} valued by {annotation.agent}"
    typer.echo(summary, err=True)


def _book_solver(record, table_size: int, book) -> object | None:
    """The game's solver with the opening book in front (``None``: no book, or no
    solver: annotate_record then chooses)."""
    from partita.analysis.solving import has_solver, solver_for
    from partita.games.registry import get_game

    if book is None or record.game is None or not has_solver(record.game):
        return None
    book.tags = dict(record.tags)
    return solver_for(
        get_game(record.game).configure(record.tags), table_size=table_size, book=book
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
