"""Search agents on every game: the skill gradient, speed, the solver, OpenSpiel.

Run from the repository root (the documented full run uses ``--games 200``)::

    .venv/bin/python benchmarks/bench_agents.py [--games 200] [--low mcts:50]
        [--high mcts:200] [--pairs high-low,high-greedy,low-greedy]
        [--only connect4,forza4x4,...] [--sides 2,3,4] [--max-plies 3000]
        [--round-limit 40] [--tag forceball:League=senior] [--seed 0]
        [--workers 2 | --scheduler local:2]
        [--skip speed,pons,openspiel] [--speed-playouts 500]
        [--pons end-easy,middle-easy,begin-easy] [--pons-limit 50] [--out [FILE]]

What it prints (Markdown tables):

* **Matches** (the skill gradient): for every game and side count, each pair of
  ``--pairs``: the first agent in one seat, the second in all the others, over
  ``--games`` games, the first agent's seat rotating game by game. ``high`` and
  ``low`` are the two search budgets (``--high``, ``--low``), ``greedy`` and
  ``random`` the one-ply and random agents. The first agent's mean score (1 a
  win, 0 a loss, a shared draw 1/2 or a share of a tie as the rules give it) with
  Wilson's 95 % score interval, next to the even share 1/n, and whether the
  interval lies above it (*significant*). Games still going after
  ``--max-plies`` plies are counted apart (and as a share of 1/n). Universal
  Forces is played with ``RoundLimit`` ``--round-limit`` (the rulebook's fixed
  period of play); ``--tag GAME:NAME=VALUE`` sets one game's tag for its matches
  (Forceball's ``League``), shown beside the game's name. In a hidden-information
  game (Forceball) a move the real table refuses is replaced by the agent's best
  playable move, as in ``partita play``
  (``playable_choice``), and counted under *replaced*; the choices of the other
  seat within a move (Forceball's answer to raised stakes, the attack's winner's
  reward) are that seat's agent's (``answered``). *CPU s/game* is the
  processor time of one game (every seat's search, with the search processes of
  an agent with ``workers=``), which the machine's load
  changes less than the wall time; *agent CPU s/game* the first agent's share
  of it (its own moves, with the other seat's answers within them).
* **Playouts per second** of ``--high``'s search for every game and side count:
  ``--speed-playouts`` playouts from each of five positions reached by random play.
* **Connect Four test positions**: on positions of Pascal Pons' test sets
  (``../shared/data/connect4-pons``, the first ``--pons-limit`` of each set in
  ``--pons``), how often ``--high``'s move is one of the solver's best moves (every
  move with the best exact score); and the same for OpenSpiel's MCTS bot.
* **OpenSpiel** (``pip install open_spiel``; if it does not import, this part says
  so and is skipped): its ``MCTSBot`` on Connect Four (UCT with ``uct_c`` 2 on
  returns from -1 to 1, one random rollout per simulation, its solver on) at
  ``--high``'s budget: simulations per second on the same positions, and a match.

The games run on the execution layer (:mod:`partita.execution`): ``--workers N``
local processes (1: in this process), or ``--scheduler`` a Dask cluster.
Everything is seeded (``--seed``): the same command gives the same games with any
number of workers (each game is seeded by its number). ``--out`` writes the
tables, with the command and the machine's load, to a dated file under
``benchmarks/results/`` (or to the file it names), whole or not at all.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import random
import shlex
import sys
import time
from pathlib import Path

from partita.analysis.agents import (
    Agent,
    agent_from_spec,
    answered,
    parse_agent_spec,
    playable_choice,
)
from partita.execution import open_executor
from partita.game.configuration import PairError, parse_pairs
from partita.game.registry import get_game
from partita.game.rules import CHANCE
from partita.games.gravity.solver import Solver

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "connect4-pons"
RESULTS = ROOT / "benchmarks" / "results"
#: Every game with every side count it is played by.
SEATINGS = [
    ("connect4", 2),
    ("forza4x4", 2),
    ("universal-forces", 2),
    ("universal-forces", 3),
    ("universal-forces", 4),
    ("circular-reasoning", 2),
    ("circular-reasoning", 3),
    ("circular-reasoning", 4),
    ("forceball", 2),
]
ROLES = ("high", "low", "greedy", "random")
Z95 = 1.959964


def wilson(mean: float, count: int) -> tuple[float, float]:
    """Wilson's 95 % score interval for a mean score of ``count`` games."""
    if not count:
        return (0.0, 1.0)
    z2 = Z95 * Z95
    centre = (mean + z2 / (2 * count)) / (1 + z2 / count)
    half = Z95 * math.sqrt(mean * (1 - mean) / count + z2 / (4 * count * count)) / (1 + z2 / count)
    return (max(0.0, centre - half), min(1.0, centre + half))


def configured(name: str, round_limit: int, tags: tuple[tuple[str, str], ...] = ()) -> object:
    """The game ``name`` as the matches play it: ``tags`` (``--tag``) set, and
    Universal Forces with ``RoundLimit`` ``round_limit``."""
    game = get_game(name)
    settings = dict(tags)
    if name == "universal-forces" and round_limit:
        settings.setdefault("RoundLimit", str(round_limit))
    return game.configure(settings) if settings else game


def play_game(
    rules, agents: list[Agent], rng: random.Random, max_plies: int, cpu: list | None = None
):
    """One game; ``(scores or None if unfinished, plies, replaced)``: ``replaced``
    counts the hidden-information agents' moves that the real table did not allow
    (each replaced by the agent's best playable one, as ``partita play`` does);
    ``cpu``, if given (one number a seat), gets each seat's processor seconds added."""
    state = rules.initial(len(agents))
    history: list = []
    hidden = rules.hidden_information
    plies = replaced = 0
    while rules.outcome(state) is None and plies < max_plies:
        side = rules.side_to_move(state)
        if side == CHANCE:
            move = rules.sample_move(state, rng)
        else:
            began = time.process_time()
            move, swapped = playable_choice(agents[side], state, rng, history if hidden else ())
            move = answered(dict(enumerate(agents)), state, move, rng, history if hidden else ())
            if cpu is not None:
                cpu[side] += time.process_time() - began
            replaced += swapped
        history.append((state, move))
        state = rules.apply(state, move)
        plies += 1
    outcome = rules.outcome(state)
    return (None if outcome is None else [float(s) for s in outcome.scores]), plies, replaced


def match_game(job: tuple) -> tuple[float | None, int, int, float, float]:
    """One game of a match (a task of the execution layer: plain values in and
    out): the first agent's score (``None`` unfinished), the plies, the moves
    replaced (see :func:`play_game`), the processor seconds it took and the
    first agent's share of them."""
    began = time.process_time()
    name, round_limit, sides, spec, opponent, number, seed, max_plies, tags = job
    game = configured(name, round_limit, tags)
    seat = number % sides
    seed = seed * 100_003 + number
    agents = [agent_from_spec(opponent, game, seed=seed * 7 + other) for other in range(sides)]
    agents[seat] = agent_from_spec(spec, game, seed=seed)
    cpu = [0.0] * sides
    try:
        scores, length, replaced = play_game(
            game.rules, agents, random.Random(seed), max_plies, cpu
        )
    finally:
        searchers = [closed(agent) for agent in agents]
    seconds = time.process_time() - began + sum(searchers)
    own = cpu[seat] + searchers[seat]
    return (None if scores is None else scores[seat]), length, replaced, seconds, own


def closed(agent: Agent) -> float:
    """Close ``agent``: the processor seconds its search processes (``workers=``)
    spent, which this process's own time leaves out (counted once they are reaped)."""
    before = children_cpu()
    agent.close()
    return children_cpu() - before


def children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def match(execution, name: str, sides: int, spec: str, opponent: str, args) -> dict:
    """``spec`` in one seat (rotating) against ``opponent`` in the others."""
    tags = tuple(args.tags.get(name, ()))
    total = 0.0
    unfinished = plies = replaced = 0
    processor = own = 0.0
    started = time.perf_counter()
    games = args.games
    jobs = [
        (name, args.round_limit, sides, spec, opponent, number, args.seed, args.max_plies, tags)
        for number in range(games)
    ]
    for score, length, swapped, seconds, mine in execution.map_ordered(match_game, jobs):
        plies += length
        replaced += swapped
        processor += seconds
        own += mine
        if score is None:
            unfinished += 1
            total += 1.0 / sides
        else:
            total += score
    mean = total / games if games else 0.0
    low, high = wilson(mean, games)
    return {
        "game": name,
        "sides": sides,
        "agent": spec,
        "opponent": opponent,
        "games": games,
        "score": mean,
        "low": low,
        "high": high,
        "even": 1.0 / sides,
        "significant": low > 1.0 / sides,
        "unfinished": unfinished,
        "plies": plies / games if games else 0.0,
        "replaced": replaced,
        "seconds": time.perf_counter() - started,
        "cpu": processor / games if games else 0.0,
        "agent_cpu": own / games if games else 0.0,
    }


def random_positions(rules, sides: int, count: int, step: int, rng) -> list:
    """``count`` positions reached by random play of 0, ``step``, 2 ``step``...
    plies (stopping short of an ended game), each a side's turn."""
    found = []
    for number in range(count):
        state = rules.initial(sides)
        for _ in range(number * step):
            after = rules.apply(state, rules.sample_move(state, rng))
            if rules.outcome(after) is not None:
                break
            state = after
        while rules.side_to_move(state) == CHANCE:
            state = rules.apply(state, rules.sample_move(state, rng))
        found.append(state)
    return found


def speed(name: str, sides: int, spec: str, args) -> dict:
    game = configured(name, args.round_limit)
    rules = game.rules
    playouts = 0
    seconds = 0.0
    for start, state in enumerate(random_positions(rules, sides, 5, 10, random.Random(args.seed))):
        with agent_from_spec(spec, game, seed=start) as agent:
            agent.playouts, agent.seconds = args.speed_playouts, None
            began = time.perf_counter()
            result = agent.evaluate(state)
            seconds += time.perf_counter() - began
        playouts += result.playouts
    return {"game": name, "sides": sides, "playouts": playouts, "rate": playouts / seconds}


# -- Connect Four: the test positions and OpenSpiel ------------------------------------------


def pons_positions(sets: list[str], limit: int) -> list[tuple[str, str]]:
    found = []
    for name in sets:
        path = DATA / name
        if not path.is_file():
            print(f"(no test set {path})")
            continue
        lines = path.read_text().splitlines()[:limit]
        found += [(name, line.split()[0]) for line in lines]
    return found


def connect4_state(columns: str):
    game = get_game("connect4")
    state = game.rules.initial()
    for move in game.moves_from_columns(columns):
        state = game.rules.apply(state, move)
    return state


def openspiel():
    """``(pyspiel, mcts module, numpy)`` or ``None`` with the reason printed."""
    try:
        import numpy
        import pyspiel
        from open_spiel.python.algorithms import mcts
    except ImportError as error:
        print(f"OpenSpiel is not installed here ({error}): its part is skipped.")
        return None
    return pyspiel, mcts, numpy


def openspiel_bot(spiel, simulations: int, seed: int):
    pyspiel, mcts, numpy = spiel
    game = pyspiel.load_game("connect_four")
    evaluator = mcts.RandomRolloutEvaluator(1, numpy.random.RandomState(seed))
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=simulations,
        evaluator=evaluator,
        solve=True,
        random_state=numpy.random.RandomState(seed + 1),
    )
    return game, bot


def openspiel_state(game, columns: str):
    state = game.new_initial_state()
    for char in columns:
        state.apply_action(int(char) - 1)
    return state


def agreement(spec: str, positions: list[tuple[str, str]], spiel, args) -> list[dict]:
    game = get_game("connect4")
    solver = Solver(game)
    playouts = parse_agent_spec(spec)[1].get("playouts", 1000)
    rows: dict[str, dict] = {}
    for number, (name, columns) in enumerate(positions):
        state = connect4_state(columns)
        solution = solver.solve(state)
        best = {move.index for move in solution.best}
        row = rows.setdefault(name, {"set": name, "positions": 0, "partita": 0, "openspiel": 0})
        row["positions"] += 1
        with agent_from_spec(spec, game, seed=args.seed + number) as agent:
            row["partita"] += agent.choose(state).index in best
        if spiel is not None:
            spiel_game, bot = openspiel_bot(spiel, playouts, args.seed + number)
            row["openspiel"] += bot.step(openspiel_state(spiel_game, columns)) + 1 in best
    return list(rows.values())


def openspiel_speed(spec: str, spiel, args) -> dict:
    game = get_game("connect4")
    rules = game.rules
    playouts = parse_agent_spec(spec)[1].get("playouts", 1000)
    rng = random.Random(args.seed)
    ours = theirs = 0.0
    for number in range(5):
        state, columns = rules.initial(), ""
        for _ in range(number * 3):  # a few random plies: positions of every stage
            move = rng.choice(rules.legal_moves(state))
            after = rules.apply(state, move)
            if rules.outcome(after) is not None:
                break
            state, columns = after, columns + str(move.index)
        with agent_from_spec(spec, game, seed=number) as agent:
            began = time.perf_counter()
            agent.evaluate(state)
            ours += time.perf_counter() - began
        spiel_game, bot = openspiel_bot(spiel, playouts, number)
        began = time.perf_counter()
        bot.step(openspiel_state(spiel_game, columns))
        theirs += time.perf_counter() - began
    return {
        "playouts": playouts,
        "partita": 5 * playouts / ours,
        "openspiel": 5 * playouts / theirs,
    }


def openspiel_game(job: tuple) -> float:
    """One game against OpenSpiel's bot (a task of the execution layer): partita's score."""
    spec, number, seed = job
    spiel = openspiel()
    game = get_game("connect4")
    rules = game.rules
    playouts = parse_agent_spec(spec)[1].get("playouts", 1000)
    seed = seed * 100_003 + number
    ours_seat = number % 2
    agent = agent_from_spec(spec, game, seed=seed)
    spiel_game, bot = openspiel_bot(spiel, playouts, seed)
    state = rules.initial()
    theirs = spiel_game.new_initial_state()
    rng = random.Random(seed)
    with agent:
        while rules.outcome(state) is None:
            if rules.side_to_move(state) == ours_seat:
                move = agent.choose(state, rng)
                action = move.index - 1
            else:
                action = bot.step(theirs)
                move = game.moves_from_columns(str(action + 1))[0]
            state = rules.apply(state, move)
            theirs.apply_action(action)
    return float(rules.outcome(state).scores[ours_seat])


def openspiel_match(execution, spec: str, games: int, args) -> dict:
    jobs = [(spec, number, args.seed) for number in range(games)]
    total = sum(execution.map_ordered(openspiel_game, jobs))
    mean = total / games if games else 0.0
    low, high = wilson(mean, games)
    return {"games": games, "score": mean, "low": low, "high": high}


# -- the report --------------------------------------------------------------------------------


class Report:
    """Prints as it goes and keeps every line, for ``--out``."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str = "") -> None:
        print(line, flush=True)
        self.lines.append(line)


def pairs_of(text: str) -> list[tuple[str, str]]:
    pairs = []
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        first, _, second = part.partition("-")
        if first not in ROLES or second not in ROLES or first == second:
            raise ValueError(
                f"'{part}' is no pair: a pair is two of {', '.join(ROLES)}, 'high-low'"
            )
        pairs.append((first, second))
    return pairs


def out_path(value: str) -> Path:
    """The file ``--out`` names, or a new dated one under benchmarks/results/."""
    if value:
        return Path(value)
    day = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    path = RESULTS / f"{day}-agents.md"
    number = 2
    while path.exists():
        path = RESULTS / f"{day}-agents-{number}.md"
        number += 1
    return path


def write_whole(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per match (default 200)")
    parser.add_argument("--low", default="mcts:50", help="the smaller budget (default mcts:50)")
    parser.add_argument("--high", default="mcts:200", help="the larger budget (default mcts:200)")
    parser.add_argument(
        "--pairs",
        default="high-low,high-greedy,low-greedy",
        help="matches: first-second, each of high, low, greedy, random",
    )
    parser.add_argument("--only", default=None, help="comma-separated games (default all)")
    parser.add_argument("--sides", default=None, help="comma-separated side counts (default all)")
    parser.add_argument("--max-plies", type=int, default=3000, help="plies before a game stops")
    parser.add_argument("--round-limit", type=int, default=40, help="Universal Forces' RoundLimit")
    parser.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="GAME:NAME=VALUE",
        help="a setting of one game's matches (forceball:League=senior); repeatable",
    )
    parser.add_argument("--pons", default="end-easy,middle-easy,begin-easy", help="test sets")
    parser.add_argument("--pons-limit", type=int, default=50, help="positions per test set")
    parser.add_argument("--speed-playouts", type=int, default=500, help="playouts per position")
    parser.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel")
    parser.add_argument(
        "--skip", default="speed,pons,openspiel", help="parts to skip: matches,speed,pons,openspiel"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="local processes (1: here)")
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler (local:N, an address)")
    parser.add_argument(
        "--out",
        nargs="?",
        const="",
        default=None,
        help="write the tables to this file (alone: benchmarks/results/<date>-agents.md)",
    )
    args = parser.parse_args(argv)
    specs = {"high": args.high, "low": args.low, "greedy": "greedy", "random": "random"}
    for role in ("high", "low"):
        try:
            kind, _ = parse_agent_spec(specs[role])
        except Exception as error:  # noqa: BLE001 - the spec's own message
            parser.error(f"--{role}: {error}")
        if kind != "mcts":
            parser.error(f"--{role} must be mcts:N")
    try:
        pairs = pairs_of(args.pairs)
    except ValueError as error:
        parser.error(f"--pairs: {error}")
    skip = set(filter(None, args.skip.split(",")))
    by_game: dict[str, list[str]] = {}
    for text in args.tag:
        game_name, _, setting = text.partition(":")
        if not (game_name and setting.partition("=")[2]):
            parser.error(f"--tag {text!r}: write GAME:NAME=VALUE (forceball:League=senior)")
        by_game.setdefault(game_name, []).append(setting)
    try:
        args.tags = {name: list(parse_pairs(texts).items()) for name, texts in by_game.items()}
    except PairError as error:
        parser.error(f"--tag: {error} (write GAME:NAME=VALUE, forceball:League=senior)")
    only = set(args.only.split(",")) if args.only else None
    sides_wanted = {int(n) for n in args.sides.split(",")} if args.sides else None
    seatings = [
        (name, sides)
        for name, sides in SEATINGS
        if (only is None or name in only) and (sides_wanted is None or sides in sides_wanted)
    ]
    report = Report()
    command = shlex.join(["benchmarks/bench_agents.py", *(sys.argv[1:] if argv is None else argv)])
    now = datetime.datetime.now(datetime.UTC)
    report(f"# {now:%Y-%m-%d}: search agents' skill gradient (`benchmarks/bench_agents.py`)")
    report()
    report(f"    {command}")
    report()
    report(
        f"high {args.high}, low {args.low}; seed {args.seed}; "
        f"{args.scheduler or str(args.workers) + ' worker(s)'}; Python {sys.version.split()[0]}; "
        f"started {now:%H:%M} UTC, load {os.getloadavg()[0]:.2f}"
    )
    began = time.perf_counter()
    with open_executor(args.workers, scheduler=args.scheduler) as execution:
        if "matches" not in skip:
            report()
            report(f"## Matches ({args.games} games each, the first agent's seat rotating)")
            report()
            report(
                "| game | sides | agent | against | score | 95 % interval | even share "
                "| significant | unfinished | plies/game | replaced | CPU s/game "
                "| agent CPU s/game |"
            )
            report("|" + " --- |" * 13)

            def shown(name: str) -> str:
                settings = args.tags.get(name, ())
                return name + "".join(f" {key}={value}" for key, value in settings)

            for name, sides in seatings:
                for first, second in pairs:
                    row = match(execution, name, sides, specs[first], specs[second], args)
                    report(
                        f"| {shown(name)} | {sides} | {row['agent']} | {row['opponent']} | "
                        f"{row['score']:.3f} | {row['low']:.3f}-{row['high']:.3f} | "
                        f"{row['even']:.3f} | {'yes' if row['significant'] else 'no'} | "
                        f"{row['unfinished']} | {row['plies']:.0f} | {row['replaced']} | "
                        f"{row['cpu']:.2f} | {row['agent_cpu']:.2f} |"
                    )
        if "speed" not in skip:
            report()
            report(f"## Playouts per second ({args.speed_playouts} playouts from 5 positions)")
            report()
            report("| game | sides | playouts/s |")
            report("| --- | --- | --- |")
            for name, sides in seatings:
                row = speed(name, sides, args.high, args)
                report(f"| {name} | {sides} | {row['rate']:,.0f} |")
        spiel = None if args.no_openspiel or "openspiel" in skip else openspiel()
        if "pons" not in skip and (only is None or "connect4" in only):
            positions = pons_positions(args.pons.split(","), args.pons_limit)
            report()
            report("## Connect Four test positions: the move is one of the solver's best")
            report()
            report(f"| set | positions | partita {args.high} | OpenSpiel MCTS (same budget) |")
            report("| --- | --- | --- | --- |")
            for row in agreement(args.high, positions, spiel, args):
                n = row["positions"]
                theirs = f"{row['openspiel'] / n:.1%}" if spiel is not None else "not installed"
                report(f"| {row['set']} | {n} | {row['partita'] / n:.1%} | {theirs} |")
        if spiel is not None and (only is None or "connect4" in only):
            rates = openspiel_speed(args.high, spiel, args)
            report()
            report(f"## OpenSpiel's MCTS bot on Connect Four ({rates['playouts']} simulations)")
            report()
            report("| | partita | OpenSpiel |")
            report("| --- | --- | --- |")
            report(f"| simulations/s | {rates['partita']:,.0f} | {rates['openspiel']:,.0f} |")
            row = openspiel_match(execution, args.high, args.games, args)
            report()
            report(
                f"partita {args.high} against OpenSpiel MCTS ({rates['playouts']} simulations), "
                f"{row['games']} games, seats alternating: score {row['score']:.3f} "
                f"(95 % {row['low']:.3f}-{row['high']:.3f})"
            )
    end = datetime.datetime.now(datetime.UTC)
    report()
    report(
        f"Finished {end:%H:%M} UTC after {time.perf_counter() - began:.0f} s, "
        f"load {os.getloadavg()[0]:.2f}."
    )
    if args.out is not None:
        path = out_path(args.out)
        write_whole(path, "\n".join(report.lines) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
