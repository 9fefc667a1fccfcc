"""`partita endgame`: a position solved by retrograde analysis of its endgame graph.

A thin layer over :func:`partita.analysis.endgame.endgame`; the library is imported
in the command's body (see :mod:`partita.cli.commands`).
"""

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from partita.cli.app import app
from partita.cli.game_options import TagOption, configured_game, pairs
from partita.cli.options import (
    LARGEST,
    ArchiveOption,
    JsonOption,
    archive_path,
    check_game_id,
    complete_game_id,
)
from partita.cli.output import progress_bar, writing
from partita.errors import PartitaError
from partita.outfiles import replaced_binary_file

#: Default bound of `partita endgame`, in positions (about 100 MB).
DEFAULT_ENDGAME_POSITIONS = 1_000_000


@app.command()
def endgame(
    source: Annotated[
        str | None,
        typer.Argument(help="A record file, or the id of a game in the archive (or --position)."),
    ] = None,
    index: Annotated[
        int, typer.Option("--index", help="Which record of the file (from 0).", min=0, max=LARGEST)
    ] = 0,
    ply: Annotated[
        int | None,
        typer.Option(
            "--ply",
            help="The position after this many plies (default: the record's last).",
            min=0,
            max=LARGEST,
        ),
    ] = None,
    position: Annotated[
        str | None,
        typer.Option("--position", help="A position in the game's notation, instead of a record."),
    ] = None,
    game_name: Annotated[
        str | None,
        typer.Option(
            "--game",
            help="The game of --position (see `partita games`).",
            callback=check_game_id,
            autocompletion=complete_game_id,
        ),
    ] = None,
    tags: TagOption = None,
    max_positions: Annotated[
        int,
        typer.Option(
            "--max-positions",
            help="Most positions to explore (memory: about 100 bytes each).",
            min=1,
            max=LARGEST,
        ),
    ] = DEFAULT_ENDGAME_POSITIONS,
    seconds: Annotated[
        float | None, typer.Option("--seconds", help="Most seconds to explore.", min=0, max=LARGEST)
    ] = None,
    symmetry: Annotated[
        bool,
        typer.Option(
            "--symmetry/--no-symmetry",
            help="Fold positions a symmetry of the game makes equivalent (default: fold).",
        ),
    ] = True,
    whole: Annotated[
        bool,
        typer.Option(
            "--whole",
            help="Explore the whole endgame or give no answer (distances then exact).",
        ),
    ] = False,
    as_json: JsonOption = False,
    graphml: Annotated[
        Path | None,
        typer.Option(
            "--graphml",
            help="Write the graph shown (the best line and every move along it) as GraphML.",
            dir_okay=False,
        ),
    ] = None,
    db: ArchiveOption = None,
) -> None:
    """Solve an endgame of any two-sided game: value, distance to the end, best line.

    Every position reachable from the one given is explored (breadth first, up to
    --max-positions) and solved backwards from the finished games: the value for the
    side to move (win, draw or loss), the plies to the end under perfect play (the
    winner hurries, the loser resists), the best line, and every move's result. Past
    the limits, what the positions explored prove is still proven, its distances
    upper bounds; an unproven position is an error (exit 1) that says what was
    proven. For a game with an exact solver, a position the graph's first stage does
    not prove is answered by the solver (exact distances; no graph to write).
    """
    if graphml is not None and not graphml.resolve().parent.is_dir():
        raise typer.BadParameter(
            f"no folder {graphml.parent} to write into", param_hint="--graphml"
        )
    game, state = _position(source, index, ply, position, game_name, pairs(tags, "--tag"), db)

    from partita.analysis.endgame import UNKNOWN, answer_endgame

    with progress_bar("exploring", enabled=not as_json, unit="positions") as bar:

        def report(positions: int, expanded: int) -> None:
            bar(positions, note=f"{expanded:,} expanded")

        data, graph, tried_solver = answer_endgame(
            game,
            state,
            max_positions=max_positions,
            fold_symmetry=symmetry,
            whole=whole,
            max_seconds=seconds,
            progress=report,
        )
    if data["value"] == UNKNOWN:
        raise PartitaError(_not_proven(game, graph, data, tried_solver))
    if graphml is not None:
        if data.get("answered_by") == "solver":
            raise PartitaError(
                "the exact solver answered, so there is no graph to write: "
                "--whole builds the whole endgame graph"
            )
        import networkx as nx

        with writing(graphml), replaced_binary_file(graphml) as stream:
            nx.write_graphml(graph.pruned_graph(game, state), stream)
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    _print(data)


def _not_proven(game: Any, graph: Any, data: dict[str, Any], tried_solver: bool) -> str:
    """Why no answer, what the positions explored did prove, and what buys more."""
    proven = [item for item in data["moves"] if item["value"] != "unknown"]
    found = ""
    if proven:
        shown = ", ".join(
            f"{item['move']} {_describe(item['value'], item['distance'], False)}" for item in proven
        )
        found = f"; proven so far: {shown}"
    else:
        found = "; no move of it proven yet"
    from partita.analysis.endgame import SOLVER_NODES
    from partita.analysis.solving import has_solver

    solver = (
        f"; the exact solver ran out of its {SOLVER_NODES:,} nodes too"
        if tried_solver
        else (
            f"; or ask the exact solver: partita solve --game {game.name} '{data['position']}'"
            if has_solver(game)
            else ""
        )
    )
    return (
        f"not proven within the {len(graph):,} positions explored in {graph.seconds:.1f} s "
        f"(the endgame is larger){found}; raise --max-positions (about 100 bytes a "
        f"position) or --seconds{solver}"
    )


def _position(
    source: str | None,
    index: int,
    ply: int | None,
    position: str | None,
    game_name: str | None,
    tags: dict[str, str],
    db: Path | None,
) -> tuple[Any, Any]:
    """The game and the state to solve, from a record or from --position."""
    if position is not None:
        if source is not None or ply is not None:
            raise typer.BadParameter(
                "give either a record (SOURCE, --ply) or --position", param_hint="--position"
            )
        if game_name is None:
            raise typer.BadParameter("name the game of the position", param_hint="--game")
        game, _ = configured_game(game_name, tags)
        return game, game.parse_position(position)
    if source is None:
        raise typer.BadParameter("give a record (SOURCE) or --position", param_hint="SOURCE")
    if game_name is not None or tags:
        raise typer.BadParameter(
            "a record names its own game and tags; --game and --tag go with --position",
            param_hint="--game" if game_name is not None else "--tag",
        )
    from partita.cli.inputs import load_source
    from partita.notation.replay import replay

    record = load_source(source, index, archive_path(db))
    replayed = replay(record)
    if replayed.game is None or replayed.initial_state is None:
        reason = "; ".join(problem.message for problem in replayed.problems[:1])
        raise PartitaError(f"{source}: cannot replay this record: {reason or 'unknown game'}")
    plies = replayed.plies
    if ply is None:
        ply = plies
    if ply > plies:
        raise PartitaError(
            f"{source}: the record has {plies} legal plies, so there is no position after ply {ply}"
        )
    return replayed.game, replayed.state_at(ply)


def _describe(value: str, distance: int | None, exact: bool) -> str:
    """``win in 3 plies``, ``loss in at most 7 plies``, ``draw``."""
    if distance is None:
        return value
    bound = "" if exact else "at most "
    return f"{value} in {bound}{distance} {'ply' if distance == 1 else 'plies'}"


def _print(data: dict[str, Any]) -> None:
    exact = data["exact"]
    if data.get("answered_by") == "solver":
        _print_solved(data)
        return
    typer.echo(f"{data['position']}  ({data['game']})")
    if data["outcome"] is not None:
        typer.echo(f"the game is over: {data['outcome']}")
    else:
        side = f"Player{data['side_to_move']}"
        typer.echo(f"{side} to move: {_describe(data['value'], data['distance'], exact)}")
        if data["line"]:
            typer.echo(f"best line: {' '.join(data['line'])}")
        width = max((len(item["move"]) for item in data["moves"]), default=0)
        for item in data["moves"]:
            described = _describe(item["value"], item["distance"], exact)
            typer.echo(f"  {item['move']:<{width}}  {described}")
    folded = " (symmetric positions folded)" if data["fold_symmetry"] else ""
    if data["complete"]:
        scope = f"{data['positions']:,} positions, the whole endgame{folded}"
    else:
        scope = (
            f"{data['positions']:,} positions explored{folded}: part of the endgame, so "
            "the distances are upper bounds"
        )
    typer.echo(f"{scope}; {data['seconds']:.2f} s")


def _print_solved(data: dict[str, Any]) -> None:
    """An endgame the exact solver answered."""
    typer.echo(f"{data['position']}  ({data['game']})")
    if data["outcome"] is not None:
        typer.echo(f"the game is over: {data['outcome']}")
        return
    typer.echo(
        f"Player{data['side_to_move']} to move: {_describe(data['value'], data['distance'], True)}"
    )
    if data["line"]:
        typer.echo(f"best line: {' '.join(data['line'])}")
    width = max((len(item["move"]) for item in data["moves"]), default=0)
    for item in data["moves"]:
        typer.echo(f"  {item['move']:<{width}}  {_describe(item['value'], item['distance'], True)}")
    typer.echo(
        f"exact, by the game's solver ({data['nodes']:,} nodes; the endgame graph was "
        f"larger than its first stage); {data['seconds']:.2f} s"
    )
