"""Self-play at scale and what is built on it: simulate, balance, book.

Each command is a thin layer over one library function
(:func:`partita.analysis.selfplay.simulate`, :func:`partita.analysis.balance.balance`,
:func:`partita.analysis.book.build_exact_book` and ``build_statistics_book``); the
work runs through :mod:`partita.execution` (``--workers``, ``--scheduler``).
"""

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from partita.cli.app import app
from partita.cli.display import count
from partita.cli.filters import filter_options
from partita.cli.game_options import SetupSidesOption, SetupTagOption, configured_game, pairs
from partita.cli.options import (
    ArchiveOption,
    JsonOption,
    SchedulerOption,
    archive_path,
    checked_scheduler,
    complete_agent,
    complete_game_id,
)
from partita.cli.output import progress_bar, replaced_file, stdout_console, warn, writing
from partita.errors import PartitaError

if TYPE_CHECKING:
    from partita.database.filters import GameFilter


# -- options shared by the commands of this module --------------------------------------------

WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        max=64,
        help="Local worker processes (1: all in this process). Default: one per CPU.",
    ),
]


# -- book ---------------------------------------------------------------------------------------


@app.command()
def book(
    game_name: Annotated[
        str,
        typer.Argument(
            metavar="GAME",
            help="The game (see `partita games`).",
            autocompletion=complete_game_id,
        ),
    ],
    depth: Annotated[
        int,
        typer.Option("--depth", min=0, max=64, help="Plies from the root that the book covers."),
    ] = 4,
    moves: Annotated[
        str | None,
        typer.Option(
            "--moves", help='The root: these moves from the start (or --position): "t4 t4".'
        ),
    ] = None,
    position: Annotated[
        str | None,
        typer.Option("--position", help="The root position, in the game's position notation."),
    ] = None,
    sides: SetupSidesOption = None,
    tags: SetupTagOption = None,
    db: ArchiveOption = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            help="Write the book to this book file (SQLite) instead of the archive's book table.",
            dir_okay=False,
        ),
    ] = None,
    statistics: Annotated[
        bool,
        typer.Option(
            "--statistics",
            help="A book of the moves played in the archive's games (the default for "
            "games without an exact solver).",
        ),
    ] = False,
    budget: Annotated[
        int,
        typer.Option(
            "--budget",
            min=0,
            max=10**15,
            help="Most nodes the solver searches per position of the last ply (0: no limit); "
            "harder ones are stored unsolved, and a rerun with more tries them again.",
        ),
    ] = 5_000_000,
    seconds: Annotated[
        float | None,
        typer.Option(
            "--seconds", min=0, max=1e8, help="Most seconds per position of the last ply."
        ),
    ] = None,
    workers: WorkersOption = None,
    scheduler: SchedulerOption = None,
    show: Annotated[
        bool,
        typer.Option("--show", help="Print the book's entry for the root instead of building."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Build an opening book: every position of the first plies, folded by symmetry.

    Exact (a game with a solver): each position's score and every move's, found by
    search at the last ply and backed up to the root; solve and annotate then
    answer these positions at once. Statistics (any game): the moves played from
    each position of the archive's games, with wins, draws and losses. A rerun
    skips the positions already stored; an interrupted build can be rerun.
    """
    from partita.analysis import book as books

    game, configuration = configured_game(
        game_name, pairs(tags, "--tag"), sides, settings_only=True, game_option="GAME"
    )
    scheduler = checked_scheduler(scheduler)
    rules = game.rules
    if position is not None:
        root = game.parse_position(position, configuration.sides)
    else:
        root = rules.initial(configuration.sides)
    if moves:
        root = game.play_line(moves, root)
    from partita.game.registry import get_spec

    exact = not statistics and get_spec(game_name).solver is not None
    target = output if output is not None else archive_path(db)
    if show:
        _show_entry(books, target, game, configuration, root, exact, as_json)
        return
    with progress_bar("building the book", enabled=not as_json, unit="positions") as bar:

        def report(done: books.BookProgress) -> None:
            if done.phase == "search":
                bar(done.done, done.total)

        if exact:
            summary = books.build_exact_book(
                target,
                game,
                depth,
                configuration=configuration,
                root=root,
                budget=budget or None,
                seconds=seconds,
                archive=output is None,
                workers=workers,
                scheduler=scheduler,
                progress=report,
            )
        else:
            if moves or position:
                raise typer.BadParameter(
                    "a statistics book starts at the start of the games", param_hint="--moves"
                )
            source = archive_path(db)
            if not source.is_file():
                raise PartitaError(f"no archive at {source} to gather the games from")
            from partita.database.schema import archive

            with archive(source, readonly=True) as opened:
                summary = books.build_statistics_book(
                    target,
                    opened,
                    game_name,
                    depth,
                    archive=output is None,
                    configuration=configuration,
                    progress=report,
                )
    if as_json:
        typer.echo(json.dumps(summary.as_dict(), ensure_ascii=False, indent=2))
        return
    per_ply = ", ".join(str(count) for count in summary.per_ply)
    if exact:
        stdout_console().print(
            f"{target}: {count(summary.positions, 'position')} of {game_name} "
            f"({summary.setup}) to {depth} plies from the root ({per_ply} per ply): "
            f"{summary.solved:,} solved ({summary.searched:,} searched, "
            f"{summary.backed_up:,} backed up, {summary.skipped:,} stored before), "
            f"{summary.unsolved:,} beyond the budget; "
            f"{count(summary.nodes, 'node')} in {summary.seconds:.1f} s",
            markup=False,
        )
        if summary.root is not None and summary.root["score"] is not None:
            score = summary.root["score"]
            stdout_console().print(
                f"the root {summary.root['position']}: {_score_value(score)} for the side to "
                f"move (score {score:+d}); best {' '.join(summary.root['best'])}",
                markup=False,
            )
    else:
        stdout_console().print(
            f"{target}: {count(summary.positions, 'position')} of {game_name} "
            f"({summary.setup}) from {count(summary.games, 'game')}, to {depth} plies "
            f"({per_ply} per ply) in "
            f"{summary.seconds:.1f} s",
            markup=False,
        )


def _show_entry(books, target: Path, game, configuration, root, exact: bool, as_json: bool) -> None:
    if not target.is_file():
        raise PartitaError(f"no book at {target}")
    with books.Book(target, tags=configuration.tags()) as found:
        entry = found.entry(game, root, books.EXACT if exact else books.STATISTICS)
    text = game.format_position(root)
    if entry is None:
        raise PartitaError(f"{target}: the book has no entry for {text}")
    data = {
        "position": text,
        "kind": entry.kind,
        "ply": entry.ply,
        "score": entry.score,
        "games": entry.games,
        "moves": books.book_moves(entry, game, root),
    }
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if entry.kind == books.EXACT:
        value = "beyond the budget" if entry.score is None else f"score {entry.score:+d}"
        stdout_console().print(f"{text}: {value}", markup=False)
        for item in data["moves"]:
            stdout_console().print(f"  {item['move']:<8} {item['score']:+3d}", markup=False)
    else:
        stdout_console().print(f"{text}: {count(entry.games, 'game')}", markup=False)
        for item in data["moves"]:
            stdout_console().print(
                f"  {item['move']:<12} {item['games']:>6} games  +{item['won']} "
                f"={item['drawn']} -{item['lost']}",
                markup=False,
            )


# -- simulate -----------------------------------------------------------------------------------


@app.command()
def simulate(
    game_name: Annotated[
        str,
        typer.Argument(
            metavar="GAME",
            help="The game (see `partita games`).",
            autocompletion=complete_game_id,
        ),
    ],
    games: Annotated[int, typer.Option("--games", min=0, max=10**12, help="How many games.")] = 100,
    agents: Annotated[
        str,
        typer.Option(
            "--agents",
            autocompletion=complete_agent,
            help='One agent for every seat or one per seat, in seat order: "mcts:500,random" '
            "(random, greedy, mcts:N; options after a comma: mcts:500,c=0.7).",
        ),
    ] = "random",
    seed: Annotated[
        int,
        typer.Option("--seed", min=0, max=2**63 - 1, help="The run's seed: same seed, same games."),
    ] = 0,
    sides: SetupSidesOption = None,
    tags: SetupTagOption = None,
    rotate: Annotated[
        bool, typer.Option("--rotate", help="Turn the agents round the seats from game to game.")
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            help="A folder for the records, as shards of PGR (shard-00000.pgr, ...).",
            file_okay=False,
        ),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            help="Import the games into this archive. Default without -o: $PARTITA_DB, or "
            "partita.db here.",
            dir_okay=False,
        ),
    ] = None,
    shard_size: Annotated[
        int,
        typer.Option(
            "--shard-size", min=1, max=10**9, help="Games per shard file and per transaction."
        ),
    ] = 100,
    max_plies: Annotated[
        int,
        typer.Option(
            "--max-plies", min=1, max=10**9, help="Stop a game after this many plies (*)."
        ),
    ] = 1000,
    workers: WorkersOption = None,
    scheduler: SchedulerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Play games between agents: seeded per game, the same records on any number of
    workers or machines.

    A rerun with the same settings completes a run that was cut short: the shards
    and archive games already there are kept, the missing ones played.
    """
    from partita.analysis.agents import agent_workers
    from partita.analysis.selfplay import seat_agents, split_agents
    from partita.analysis.selfplay import simulate as run
    from partita.cores import usable_cpus

    game, configuration = configured_game(
        game_name, pairs(tags, "--tag"), sides, settings_only=True, game_option="GAME"
    )
    specs = split_agents(agents)
    try:
        widest = max((agent_workers(spec) for spec in specs), default=1)
        seat_agents(specs, configuration.sides, 0, rotate)
    except PartitaError as error:
        raise typer.BadParameter(str(error), param_hint="--agents") from None
    scheduler = checked_scheduler(scheduler)
    if scheduler is None and workers is not None and workers * widest > usable_cpus():
        warn(
            f"{workers} games at once, each agent searching in up to {widest} processes, "
            f"on {count(usable_cpus(), 'CPU')}: they slow each other down "
            "(without --workers the games share the CPUs)"
        )
    target = db if db is not None else (archive_path(None) if output is None else None)
    from contextlib import nullcontext

    from partita.database.schema import archive

    with (
        archive(target) if target is not None else nullcontext() as opened,
        _simulation_progress(bar=not as_json, lines=as_json) as report,
    ):
        summary = run(
            game,
            games,
            specs,
            configuration=configuration,
            seed=seed,
            rotate=rotate,
            output=output,
            db=opened,
            shard_size=shard_size,
            max_plies=max_plies,
            workers=workers,
            scheduler=scheduler,
            progress=report,
        )
    if as_json:
        typer.echo(json.dumps({"type": "summary", **summary.as_dict()}, ensure_ascii=False))
        return
    where = {"inline": "in this process", "processes": "local workers", "dask": "Dask workers"}
    places = []
    if output is not None:
        places.append(f"{summary.shards} shards written to {output}")
    if target is not None:
        places.append(f"{summary.imported} imported into {target}")
    results = ", ".join(f"{token} {count}" for token, count in sorted(summary.results.items()))
    stdout_console().print(
        f"{game_name} ({summary.configuration}), {' vs '.join(specs)}, seed {seed}: "
        f"{count(summary.played, 'game')} played, {summary.skipped:,} there already; "
        + "; ".join(places)
        + (f"; results {results}" if results else "")
        + f"; {summary.games_per_second:.1f} games/s on {summary.workers} "
        f"{where[summary.where] if summary.where != 'inline' else 'process'}",
        markup=False,
        soft_wrap=True,  # one line, as long as it is (a pipe reads it whole)
    )


@contextmanager
def _simulation_progress(*, bar: bool, lines: bool) -> Iterator[Callable[[Any], None]]:
    """What a run of self-play shows as it plays: with ``bar``, the progress bar
    (games played of those to play, games per second, time left; on a terminal
    only); with ``lines`` (``simulate --json``), one JSON line per game stored."""
    import time

    with progress_bar("simulating", enabled=bar, unit="games") as update:
        started: float | None = None

        def report(done: Any) -> None:
            nonlocal started
            now = time.perf_counter()
            if started is None or not done.done:  # a run begins (balance --strengths: several)
                started = now
            seconds = now - started
            rate = done.done / seconds if done.done and seconds > 0 else None
            if lines:
                left = (done.total - done.done) / rate if rate else None
                line = {
                    "type": "progress",
                    "played": done.done,
                    "to_play": done.total,
                    "skipped": done.skipped,
                    "seconds": round(seconds, 3),
                    "games_per_second": None if rate is None else round(rate, 3),
                    "seconds_left": None if left is None else round(left, 1),
                }
                sys.stdout.write(json.dumps(line) + "\n")
                sys.stdout.flush()
            skipped = f"({done.skipped:,} there before) " if done.skipped else ""
            speed = "" if rate is None else f"{rate:.2f} games/s"
            update(done.done, done.total, note=skipped + speed)

        yield report


# -- balance ------------------------------------------------------------------------------------


@app.command("balance")
@filter_options()
def balance_command(
    selection: "GameFilter",
    db: ArchiveOption = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            help="Write the figures with their charts to this page (.html; .md without charts).",
            dir_okay=False,
        ),
    ] = None,
    strengths: Annotated[
        str | None,
        typer.Option(
            "--strengths",
            help='Play the --game (its --sides) first at these strengths: "greedy,mcts:20,'
            'mcts:200" (each agent in every seat, each search against greedy), then report '
            "on those games.",
        ),
    ] = None,
    games: Annotated[
        int,
        typer.Option("--games", min=1, max=10**9, help="With --strengths: games per run."),
    ] = 100,
    seed: Annotated[
        int,
        typer.Option("--seed", min=0, max=2**63 - 1, help="With --strengths: the runs' seed."),
    ] = 0,
    workers: WorkersOption = None,
    scheduler: SchedulerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Is the game fair? Each seat's score with 95% intervals, the first seat's
    advantage, the agents' strength, game lengths and how often each rule fires,
    per configuration.

    Works on any archive's games (simulated or played); the filters are those of
    `partita query`. With --strengths it plays the games first (restricted play:
    does the first seat's advantage grow or shrink with skill?).
    """
    from partita.analysis.balance import balance
    from partita.analysis.report.balance import describe_advantage, render_balance

    scheduler = checked_scheduler(scheduler)
    if strengths is not None:
        selection = _play_strengths(
            selection, strengths, games, seed, db, workers, scheduler, as_json
        )
    source = archive_path(db)
    if not source.is_file():
        raise PartitaError(f"no archive at {source}")
    from partita.database.schema import archive

    with archive(source, readonly=True) as opened:
        entries = balance(opened, workers=workers, scheduler=scheduler, selection=selection)
    if output is not None:
        markdown = output.suffix.lower() in (".md", ".markdown")
        with writing(output), replaced_file(output) as stream:
            stream.write(render_balance(entries, markdown=markdown))
    if as_json:
        typer.echo(json.dumps([entry.as_dict() for entry in entries], ensure_ascii=False, indent=2))
        return
    if not entries:
        typer.echo("no valid game matches")
        return
    for entry in entries:
        lengths = entry.length_figures()
        typer.echo(
            f"{entry.title} ({entry.label}): {count(entry.games, 'game')}, "
            f"{entry.decided:,} decided"
        )
        for seat in entry.seats:
            if seat.score is None:
                continue
            low, high = seat.interval
            typer.echo(
                f"  Player{seat.seat + 1}: {seat.score:.3f} ({low:.3f}-{high:.3f})  "
                f"+{seat.won} ={seat.drawn} -{seat.lost}"
            )
        typer.echo(f"  {describe_advantage(entry)}")
        if entry.agents is not None and entry.agents.games:
            for line in entry.agents.describe():
                typer.echo(f"  {line}")
        if lengths["games"]:
            typer.echo(
                f"  length: {lengths['mean']} plies on average, median {lengths['median']}, "
                f"{lengths['min']} to {lengths['max']}"
            )
        rows = entry.event_rows()
        if rows:
            typer.echo(
                "  rules: "
                + ", ".join(
                    f"{name} {per_game:.2f}/game ({share:.0%} of games)"
                    for name, _, per_game, share in rows
                )
            )
    if output is not None:
        typer.echo(f"written to {output}", err=True)


def _play_strengths(
    selection: "GameFilter",
    strengths: str,
    games: int,
    seed: int,
    db: Path | None,
    workers: int | None,
    scheduler: str | None,
    as_json: bool,
) -> "GameFilter":
    """``balance --strengths``: play the runs into the archive, and the selection
    of their games (exit 2 for a missing game or a bad agent)."""
    import dataclasses

    from partita.analysis.agent_strength import STRENGTHS_EVENT, play_strengths
    from partita.analysis.agents import parse_agent_spec
    from partita.analysis.selfplay import split_agents

    if len(selection.games) != 1 or len(selection.sides) > 1:
        raise typer.BadParameter(
            "name one game (--game) and at most one side count (--sides) to play",
            param_hint="--strengths",
        )
    agents = split_agents(strengths)
    try:
        for agent in agents:
            parse_agent_spec(agent)
    except PartitaError as error:
        raise typer.BadParameter(str(error), param_hint="--strengths") from None
    if not agents:
        raise typer.BadParameter("name at least one agent", param_hint="--strengths")
    game, configuration = configured_game(
        selection.games[0], {}, selection.sides[0] if selection.sides else None
    )
    from partita.database.schema import archive

    with (
        archive(archive_path(db)) as opened,
        _simulation_progress(bar=not as_json, lines=False) as report,
    ):
        play_strengths(
            game,
            configuration,
            agents,
            games,
            opened,
            seed=seed,
            workers=workers,
            scheduler=scheduler,
            progress=report,
        )
    return dataclasses.replace(selection, events=(STRENGTHS_EVENT,))


def _score_value(score: int) -> str:
    from partita.analysis.solving import score_value

    return score_value(score)
