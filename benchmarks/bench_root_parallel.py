"""Root parallelism: the wall time of one search, ``mcts:N`` against ``mcts:N,workers=K``.

Run from the repository root::

    .venv/bin/python benchmarks/bench_root_parallel.py [--playouts 2000] [--workers 2]
        [--only connect4,universal-forces] [--positions 4] [--rounds 3] [--seed 0]

On ``--positions`` positions of each game (reached by seeded random play, at
several stages), each round searches every position once with each agent,
interleaved (A, B, A, B...), so a change in the machine's load falls on both: A
is ``mcts:N`` (one search here), B ``mcts:N,workers=K`` (K searches of N/K
playouts in K processes, merged). B's processes are started and warmed up (one
search of another position) before the timing, as in a game, where they live as
long as the agent. Printed per game: the median wall seconds of a search for
each, their ratio B/A (below 1: B is faster), and the processor seconds of all
of each one's timed searches (B: this process's and its workers', the workers'
counted once they are stopped, so with its warm-up search and their start-up,
which the line says). The machine's load before and after is printed: on a
machine others share, the ratio is what to read.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

from partita.analysis.agents import agent_from_spec
from partita.game.registry import get_game

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_agents import children_cpu, random_positions  # noqa: E402

GAMES = {"connect4": {}, "universal-forces": {"RoundLimit": "40"}}


def positions(name: str, count: int, seed: int) -> list:
    """``count`` positions of ``name``: random play of 0, 4, 8... plies, each a
    side's turn."""
    game = get_game(name).configure(GAMES.get(name, {}))
    rules = game.rules
    return random_positions(rules, 2, count, 4, random.Random(seed))


def measure(name: str, args: argparse.Namespace) -> dict:
    game = get_game(name).configure(GAMES.get(name, {}))
    states = positions(name, args.positions + 1, args.seed)
    warm, states = states[-1], states[:-1]
    plain = f"mcts:{args.playouts}"
    parallel = f"mcts:{args.playouts},workers={args.workers}"
    walls: dict[str, list[float]] = {plain: [], parallel: []}
    cpu = {plain: 0.0, parallel: 0.0}
    agreed = 0
    before_children = children_cpu()
    with agent_from_spec(parallel, game, seed=args.seed) as split:
        split.evaluate(warm)  # the processes start and import the game
        for round_ in range(args.rounds):
            for number, state in enumerate(states):
                one = agent_from_spec(plain, game, seed=args.seed + round_ * 1000 + number)
                began, processor = time.perf_counter(), time.process_time()
                first = one.evaluate(state)
                walls[plain].append(time.perf_counter() - began)
                cpu[plain] += time.process_time() - processor
                began, processor = time.perf_counter(), time.process_time()
                second = split.evaluate(state)
                walls[parallel].append(time.perf_counter() - began)
                cpu[parallel] += time.process_time() - processor
                agreed += first.best == second.best
                assert second.playouts <= args.playouts
    cpu[parallel] += children_cpu() - before_children
    a, b = statistics.median(walls[plain]), statistics.median(walls[parallel])
    return {
        "game": name,
        "searches": len(walls[plain]),
        "plain": a,
        "parallel": b,
        "ratio": b / a,
        "ratios": [y / x for x, y in zip(walls[plain], walls[parallel], strict=True)],
        "cpu_plain": cpu[plain],
        "cpu_parallel": cpu[parallel],
        "agreed": agreed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--playouts", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", default=",".join(GAMES))
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"load before: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    print(
        f"| game | searches | mcts:{args.playouts} wall s | "
        f"mcts:{args.playouts},workers={args.workers} wall s | ratio of the medians | "
        "ratio per search: median, range | CPU s, one search | CPU s, workers (all) | "
        "same best move |"
    )
    print("|" + " --- |" * 9)
    for name in args.only.split(","):
        row = measure(name, args)
        ratios = sorted(row["ratios"])
        print(
            f"| {name} | {row['searches']} | {row['plain']:.3f} | {row['parallel']:.3f} | "
            f"{row['ratio']:.2f} | {statistics.median(ratios):.2f}, "
            f"{ratios[0]:.2f}-{ratios[-1]:.2f} | {row['cpu_plain']:.2f} | "
            f"{row['cpu_parallel']:.2f} | {row['agreed']}/{row['searches']} |",
            flush=True,
        )
    print(f"load after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
