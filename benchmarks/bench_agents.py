"""Search agents on every game: strength, speed, agreement with the solver, OpenSpiel.

Run from the repository root (the documented full run uses ``--games 200``)::

    .venv/bin/python benchmarks/bench_agents.py [--games 20] [--agent mcts:200]
        [--only connect4,forza4x4,...] [--sides 2,3,4] [--max-plies 3000]
        [--round-limit 40] [--pons end-easy,middle-easy,begin-easy] [--pons-limit 50]
        [--speed-playouts 500] [--no-openspiel] [--seed 0] [--skip matches,speed,pons]
        [--workers 2] [--opponents random,greedy]

What it prints (Markdown tables):

* **Playouts per second** of ``--agent``'s search for every game and side count:
  ``--speed-playouts`` playouts from each of five positions reached by random play.
* **Matches**: for every game and side count, ``--agent`` in one seat against
  ``random`` and against ``greedy`` in all the others (``--opponents``: either one,
  say to run the two rows in two processes), over ``--games`` games, the
  search's seat rotating game by game. Its mean score (1 a win, 0 a loss, a shared
  draw 1/2 or a share of a tie as the rules give it) with a 95 % interval (Wilson's
  score interval), next to the even share 1/n; games still going after
  ``--max-plies`` plies are counted apart (and as a share of 1/n). Universal
  Forces is played with ``RoundLimit`` ``--round-limit`` (the rulebook's fixed period of
  play): against random opponents a game can otherwise go on for ever. In a
  hidden-information game (Forceball) an agent's move may hold cards drawn from its
  guess of the table (a reward's draw, a referee check's card); where the real table
  does not allow it, its best playable move is played instead, as in ``partita
  play`` (``playable_choice``), and counted under *replaced moves* (a reward
  taking the real cards instead of the guessed ones is the same move: not
  counted). *seconds* is the match's wall time, *CPU s/game* the processor time
  of one game (both seats' searches), which the machine's load changes less.
* **Connect Four test positions**: on positions of Pascal Pons' test sets
  (``../shared/data/connect4-pons``, the first ``--pons-limit`` of each set in
  ``--pons``), how often the agent's move is one of the solver's best moves (every
  move with the best exact score); and the same for OpenSpiel's MCTS bot.
* **OpenSpiel** (``pip install open_spiel``; if it does not import, this part says
  so and is skipped): its ``MCTSBot`` on Connect Four (UCT with ``uct_c`` 2 on
  returns from -1 to 1, which is partita's ``c`` 1 on 0-1, one random rollout per
  simulation, its solver on) as the anchor: simulations per second side by side at
  the same budget on the same positions, and a match at equal budgets (partita's
  Connect Four also plays out at random), seats alternating.

Everything is seeded (``--seed``): the same command gives the same games, with any
``--workers`` (each game is seeded by its number; the matches' games run in that
many processes).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

from partita.analysis.agents import Agent, agent_from_spec, parse_agent_spec, playable_choice
from partita.game.registry import get_game
from partita.game.rules import CHANCE
from partita.games.gravity.solver import Solver

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "connect4-pons"
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
Z95 = 1.959964


def wilson(mean: float, count: int) -> tuple[float, float]:
    """Wilson's 95 % score interval for a mean score of ``count`` games."""
    if not count:
        return (0.0, 1.0)
    z2 = Z95 * Z95
    centre = (mean + z2 / (2 * count)) / (1 + z2 / count)
    half = Z95 * math.sqrt(mean * (1 - mean) / count + z2 / (4 * count * count)) / (1 + z2 / count)
    return (max(0.0, centre - half), min(1.0, centre + half))


def configured(name: str, round_limit: int) -> object:
    game = get_game(name)
    if name == "universal-forces" and round_limit:
        return game.configure({"RoundLimit": str(round_limit)})
    return game


def play_game(rules, agents: list[Agent], rng: random.Random, max_plies: int):
    """One game; ``(scores or None if unfinished, plies, replaced)``: ``replaced``
    counts the hidden-information agents' moves that the real table did not allow
    (each replaced by the agent's best playable one, as ``partita play`` does)."""
    state = rules.initial(len(agents))
    history: list = []
    hidden = rules.hidden_information
    plies = replaced = 0
    while rules.outcome(state) is None and plies < max_plies:
        side = rules.side_to_move(state)
        if side == CHANCE:
            move = rules.sample_move(state, rng)
        else:
            move, swapped = playable_choice(agents[side], state, rng, history if hidden else ())
            replaced += swapped
        history.append((state, move))
        state = rules.apply(state, move)
        plies += 1
    outcome = rules.outcome(state)
    return (None if outcome is None else [float(s) for s in outcome.scores]), plies, replaced


def _match_game(job: tuple) -> tuple[float | None, int, int, float]:
    """One game of a match: the search's score (``None`` unfinished), its plies, the
    moves replaced (see :func:`play_game`) and the processor seconds it took."""
    began = time.process_time()
    name, sides, spec, opponent, number, args = job
    game = configured(name, args.round_limit)
    seat = number % sides
    seed = args.seed * 100_003 + number
    agents = [agent_from_spec(opponent, game, seed=seed * 7 + other) for other in range(sides)]
    agents[seat] = agent_from_spec(spec, game, seed=seed)
    scores, length, replaced = play_game(game.rules, agents, random.Random(seed), args.max_plies)
    seconds = time.process_time() - began
    return (None if scores is None else scores[seat]), length, replaced, seconds


def in_parallel(function, jobs: list, workers: int) -> list:
    """``function`` over ``jobs`` in order, in ``workers`` processes (1: here)."""
    if workers <= 1:
        return [function(job) for job in jobs]
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return pool.map(function, jobs, chunksize=1)


def match(name: str, sides: int, spec: str, opponent: str, games: int, args) -> dict:
    total = 0.0
    unfinished = 0
    plies = replaced = 0
    processor = 0.0
    started = time.perf_counter()
    jobs = [(name, sides, spec, opponent, number, args) for number in range(games)]
    for score, length, swapped, seconds in in_parallel(_match_game, jobs, args.workers):
        plies += length
        replaced += swapped
        processor += seconds
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
        "opponent": opponent,
        "games": games,
        "score": mean,
        "low": low,
        "high": high,
        "even": 1.0 / sides,
        "unfinished": unfinished,
        "plies": plies / games if games else 0.0,
        "replaced": replaced,
        "seconds": time.perf_counter() - started,
        "cpu": processor / games if games else 0.0,
    }


def speed(name: str, sides: int, spec: str, args) -> dict:
    game = configured(name, args.round_limit)
    rules = game.rules
    _, settings = parse_agent_spec(spec)
    settings.pop("seconds", None)
    settings["playouts"] = args.speed_playouts
    rng = random.Random(args.seed)
    playouts = 0
    seconds = 0.0
    for start in range(5):
        state = rules.initial(sides)
        for _ in range(start * 10):
            after = rules.apply(state, rules.sample_move(state, rng))
            if rules.outcome(after) is not None:
                break
            state = after
        while rules.side_to_move(state) == CHANCE:
            state = rules.apply(state, rules.sample_move(state, rng))
        agent = agent_from_spec(spec, game, seed=start)
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
        agent = agent_from_spec(spec, game, seed=args.seed + number)
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
        agent = agent_from_spec(spec, game, seed=number)
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


def _openspiel_game(job: tuple) -> float:
    """One game against OpenSpiel's bot: partita's score."""
    spec, number, args = job
    spiel = openspiel()
    game = get_game("connect4")
    rules = game.rules
    playouts = parse_agent_spec(spec)[1].get("playouts", 1000)
    seed = args.seed * 100_003 + number
    ours_seat = number % 2
    agent = agent_from_spec(spec, game, seed=seed)
    spiel_game, bot = openspiel_bot(spiel, playouts, seed)
    state = rules.initial()
    theirs = spiel_game.new_initial_state()
    rng = random.Random(seed)
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


def openspiel_match(spec: str, games: int, args) -> dict:
    jobs = [(spec, number, args) for number in range(games)]
    total = sum(in_parallel(_openspiel_game, jobs, args.workers))
    mean = total / games if games else 0.0
    low, high = wilson(mean, games)
    return {"games": games, "score": mean, "low": low, "high": high}


# -- the report --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per match (full run: 200)")
    parser.add_argument("--agent", default="mcts:200", help="the search agent (default mcts:200)")
    parser.add_argument("--only", default=None, help="comma-separated games (default all)")
    parser.add_argument("--sides", default=None, help="comma-separated side counts (default all)")
    parser.add_argument("--max-plies", type=int, default=3000, help="plies before a game stops")
    parser.add_argument("--round-limit", type=int, default=40, help="Universal Forces' RoundLimit")
    parser.add_argument("--pons", default="end-easy,middle-easy,begin-easy", help="test sets")
    parser.add_argument("--pons-limit", type=int, default=50, help="positions per test set")
    parser.add_argument("--speed-playouts", type=int, default=500, help="playouts per position")
    parser.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel")
    parser.add_argument("--skip", default="", help="parts to skip: matches,speed,pons,openspiel")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="processes for the matches")
    parser.add_argument(
        "--opponents", default="random,greedy", help="comma-separated: random, greedy"
    )
    args = parser.parse_args(argv)
    spec = args.agent
    kind, _ = parse_agent_spec(spec)
    if kind != "mcts":
        parser.error("--agent must be mcts:N (it plays against random and greedy)")
    opponents = [name for name in args.opponents.split(",") if name]
    if not opponents or set(opponents) - {"random", "greedy"}:
        parser.error("--opponents are random and/or greedy")
    skip = set(filter(None, args.skip.split(",")))
    only = set(args.only.split(",")) if args.only else None
    sides_wanted = {int(n) for n in args.sides.split(",")} if args.sides else None
    seatings = [
        (name, sides)
        for name, sides in SEATINGS
        if (only is None or name in only) and (sides_wanted is None or sides in sides_wanted)
    ]
    print(
        f"agent {spec}; seed {args.seed}; {args.workers} worker(s); Python {sys.version.split()[0]}"
    )
    if "speed" not in skip:
        print(f"\n## Playouts per second ({args.speed_playouts} playouts from 5 positions)\n")
        print("| game | sides | playouts/s |")
        print("| --- | --- | --- |")
        for name, sides in seatings:
            row = speed(name, sides, spec, args)
            print(f"| {name} | {sides} | {row['rate']:,.0f} |", flush=True)
    if "matches" not in skip:
        print(f"\n## {spec} against random and greedy ({args.games} games each)\n")
        print(
            "| game | sides | opponent | score | 95 % interval | even share | unfinished "
            "| plies/game | replaced moves | seconds | CPU s/game |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for name, sides in seatings:
            for opponent in opponents:
                row = match(name, sides, spec, opponent, args.games, args)
                print(
                    f"| {name} | {sides} | {opponent} | {row['score']:.3f} | "
                    f"{row['low']:.3f}-{row['high']:.3f} | {row['even']:.3f} | "
                    f"{row['unfinished']} | {row['plies']:.0f} | {row['replaced']} | "
                    f"{row['seconds']:.0f} | {row['cpu']:.2f} |",
                    flush=True,
                )
    spiel = None if args.no_openspiel or "openspiel" in skip else openspiel()
    if "pons" not in skip and (only is None or "connect4" in only):
        positions = pons_positions(args.pons.split(","), args.pons_limit)
        print("\n## Connect Four test positions: the move is one of the solver's best\n")
        print("| set | positions | partita " + spec + " | OpenSpiel MCTS (same budget) |")
        print("| --- | --- | --- | --- |")
        for row in agreement(spec, positions, spiel, args):
            n = row["positions"]
            theirs = f"{row['openspiel'] / n:.1%}" if spiel is not None else "not installed"
            print(f"| {row['set']} | {n} | {row['partita'] / n:.1%} | {theirs} |", flush=True)
    if spiel is not None and (only is None or "connect4" in only):
        rates = openspiel_speed(spec, spiel, args)
        print(f"\n## OpenSpiel's MCTS bot on Connect Four ({rates['playouts']} simulations)\n")
        print("| | partita | OpenSpiel |")
        print("| --- | --- | --- |")
        print(f"| simulations/s | {rates['partita']:,.0f} | {rates['openspiel']:,.0f} |")
        row = openspiel_match(spec, args.games, args)
        print(
            f"\npartita {spec} against OpenSpiel MCTS ({rates['playouts']} simulations), "
            f"{row['games']} games, seats alternating: score {row['score']:.3f} "
            f"(95 % {row['low']:.3f}-{row['high']:.3f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
