"""Analysis commands: solve, annotate.

The solvers and the annotator are imported by the commands that use them, so that
start-up stays light (see :mod:`partita.cli.app`).
"""

import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated

import typer

from partita.analysis.defaults import DEFAULT_AGENT, DEFAULT_POSITION_BUDGET
from partita.analysis.solving import DEFAULT_TABLE_SIZE
from partita.cli.app import app
from partita.cli.display import count, printable
from partita.cli.options import (
    LARGEST,
    ArchiveOption,
    BookOption,
    JsonOption,
    NoBookOption,
    archive_path,
    check_game_id,
    chosen_book,
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
        "--time",
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


def _memory(value: str | None) -> int | None:
    """``256M``, ``1G``, ``500K`` or a number of bytes."""
    if value is None:
        return None
    text = value.strip().upper().removesuffix("B")
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    factor = units.get(text[-1:], 1)
    number = text[:-1] if text[-1:] in units else text
    try:
        amount = int(float(number) * factor)
    except ValueError:
        raise typer.BadParameter(
            f"give a size such as 256M or 1G, not {value!r}", param_hint="--memory"
        ) from None
    if not 1 << 16 <= amount <= 1 << 36:
        raise typer.BadParameter(f"give between 64K and 64G, not {value!r}", param_hint="--memory")
    return amount


#: Default memory of `partita solve`'s transposition table.
DEFAULT_SOLVE_MEMORY = "64M"

MemoryOption = Annotated[
    str | None,
    typer.Option(
        "--memory",
        help="Memory for the transposition table, e.g. 256M or 1G (more: fewer "
        "positions searched again).",
    ),
]

#: What answered, in a player's words.
_ENGINE_WORDS = {"search": "partita's search", "book": "the opening book"}


def _ran_out(error: Exception) -> PartitaError:
    """A solve that ran out, with the options that buy more."""
    limit = getattr(error, "limit", None)
    more = (
        "raise --time (or drop it), or give --memory more"
        if limit == "time"
        else "raise --budget (0: no limit), give --memory more, or set --time"
    )
    return PartitaError(f"{error}; {more}")


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
    table_size: Annotated[
        int | None,
        typer.Option(
            "--table-size",
            help="Most positions the transposition table keeps (instead of --memory).",
            min=1,
            max=MAX_TABLE_SIZE,
        ),
    ] = None,
    memory: MemoryOption = None,
    book: BookOption = None,
    no_book: NoBookOption = False,
    as_json: JsonOption = False,
) -> None:
    """Solve a position exactly: its value, the best moves, every move's score.

    Scores are from the side to move: 0 a draw, positive a win (the sooner, the
    higher), negative a loss; the game's docs page gives its scale. The output says
    what answered (the search, the opening book, or an engine the game names).
    Past the budget, what was found is said: the moves solved, bounds on the one
    being searched, the best move so far.
    """
    from partita.analysis.solving import solvable_games, solver_for
    from partita.errors import BudgetExceeded
    from partita.game.registry import get_game

    if table_size is not None and memory is not None:
        raise typer.BadParameter("give either --table-size or --memory", param_hint="--memory")
    memory_bytes = _memory(memory if memory is not None or table_size else DEFAULT_SOLVE_MEMORY)

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
    solver = solver_for(
        game,
        table_size=table_size or DEFAULT_TABLE_SIZE,
        book=chosen_book(book, no_book),
        memory=memory_bytes,
    )
    try:
        solution = solver.solve(state, max_nodes=budget or None, max_seconds=seconds)
    except BudgetExceeded as error:
        raise _ran_out(error) from None
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
    typer.echo(
        f"{count(solution.nodes, 'node')} in {solution.seconds:.2f} s; {_answered_by(solution)}"
    )


def _answered_by(solution) -> str:
    """``exact, by partita's search``: how sure, and what answered."""
    engine = getattr(solution, "engine", "search")
    return f"exact, by {_ENGINE_WORDS.get(engine, engine)}"


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
        int | None,
        typer.Option(
            "--index",
            help="Annotate only this record of the file (from 0); default: every record.",
            min=0,
            max=LARGEST,
        ),
    ] = None,
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
            help="What values the positions the exact solver does not: mcts:N (each "
            "position searched to N playouts, the tree kept from move to move), mcts:2s "
            "(seconds) or greedy.",
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
            help="Write the annotated records here (default, and -: stdout).",
            dir_okay=False,
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print what was found, a JSON line a record (the records go to -o only).",
        ),
    ] = False,
    db: ArchiveOption = None,
    book: BookOption = None,
    no_book: NoBookOption = False,
) -> None:
    """Value every move with each side's expected score; mark mistakes ? and ??.

    Every record of the file is annotated (or the one --index names). The exact
    solver values the positions within its budget (games that have one), the agent
    (MCTS by default) the others. After each move a comment [%eval 0.62,0.38]
    [%evalsrc mcts:1000 n=1000 ±0.04] gives every side's expected score and where it
    comes from (end, exact, or a search with its playouts and interval). A move is
    judged inside the search of the position before it: one that drops its mover's
    expected score by more than 0.15 gets ?, by more than 0.35 ??, with a better
    move; for a searched move, the drop beyond the two moves' intervals. The annotated records
    are written in canonical form, all or none; a summary goes to stderr.
    """
    from partita.analysis.agents import parse_agent_spec
    from partita.analysis.annotate import annotate_record, workers_refused
    from partita.cli.inputs import load_sources
    from partita.game.registry import get_game
    from partita.notation.inputs import is_stdin
    from partita.notation.replay import replay

    check_output(output, "--output")
    try:
        kind, settings = parse_agent_spec(agent)
    except PartitaError as error:
        raise typer.BadParameter(str(error), param_hint="--agent") from None
    if kind == "random":
        raise typer.BadParameter(
            "the random agent does not value positions: use mcts:N or greedy",
            param_hint="--agent",
        )
    records = load_sources(source, index, archive_path(db))
    workers = settings.get("workers", 1)
    for record in records if workers > 1 else ():  # refused before any work
        try:
            refused = workers_refused(agent, workers, get_game(record.game or "").rules)
        except PartitaError:
            continue  # said below, in the record's turn
        if refused is not None:
            raise typer.BadParameter(refused, param_hint="--agent")
    # The bar counts positions over every record: a record's count is its plies
    # from --from-ply (and the position before them) until the library says.
    expected = [max(replay(record).plies - from_ply + 1, 0) + 1 for record in records]
    annotations = []
    label = "annotating" if len(records) == 1 else f"annotating {len(records)} records"
    with progress_bar(label, unit="positions") as bar:
        done_before = 0
        for number, record in enumerate(records):
            where = "" if len(records) == 1 else f"record {number}: "

            def report(
                done: int, total: int, number: int = number, base: int = done_before
            ) -> None:
                expected[number] = total
                bar(base + done, sum(expected))

            if record.game is None:
                raise PartitaError(f"{source}: {where}the record has no Game tag")
            try:
                # A book per record (its tags choose the set-up), closed after it.
                with chosen_book(book, no_book, db) or nullcontext() as record_book:
                    annotation = annotate_record(
                        record,
                        solver=_book_solver(record, table_size, record_book),
                        agent=agent,
                        seed=seed,
                        from_ply=from_ply,
                        max_nodes=budget or None,
                        max_seconds=seconds,
                        table_size=table_size,
                        progress=report,
                    )
            except PartitaError as error:
                if not where:
                    raise
                raise PartitaError(f"{source}: {where}{error}") from None
            annotations.append(annotation)
            done_before += expected[number]
    text = _records_text(records)
    if as_json:
        for number, annotation in enumerate(annotations):
            data = {"index": index if index is not None else number, **annotation.as_dict()}
            typer.echo(json.dumps(data, ensure_ascii=False))
    if output is not None and not is_stdin(output):
        with writing(output), replaced_file(output) as stream:
            stream.write(text)
    elif not as_json:
        sys.stdout.write(printable(text, lines=True) if sys.stdout.isatty() else text)
    typer.echo(_annotate_summary(annotations), err=True)


def _records_text(records: list) -> str:
    import io

    from partita.notation.writer import write_records

    stream = io.StringIO()
    write_records(records, stream)
    return stream.getvalue()


def _annotate_summary(annotations: list) -> str:
    """``3 moves marked ??, 1 marked ?; 40 positions solved exactly, 12 valued by
    mcts:1000 (9,100 playouts, 4,200 reused)`` (with the record count when several)."""
    blunders = sum(len(item.blunders) for item in annotations)
    dubious = sum(len(item.marked) for item in annotations) - blunders
    solved = sum(item.solved for item in annotations)
    searched = sum(item.searched for item in annotations)
    summary = (
        f"{count(blunders, 'move')} marked ??, {dubious} marked ?; "
        f"{count(solved, 'position')} solved exactly"
    )
    if searched:
        playouts = sum(item.playouts for item in annotations)
        reused = sum(item.reused for item in annotations)
        summary += f", {searched} valued by {annotations[0].agent}"
        if playouts:
            summary += f" ({playouts:,} playouts, {reused:,} reused)"
    if len(annotations) > 1:
        summary = f"{len(annotations)} records: {summary}"
    return summary


def _book_solver(record, table_size: int, book) -> object | None:
    """The game's solver with the opening book in front (``None``: no book, or no
    solver: annotate_record then chooses)."""
    from partita.analysis.solving import has_solver, solver_for
    from partita.game.registry import get_game

    if book is None or record.game is None or not has_solver(record.game):
        return None
    book.tags = dict(record.tags)
    return solver_for(
        get_game(record.game).configure(record.tags), table_size=table_size, book=book
    )
