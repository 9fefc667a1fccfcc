"""Forza 4x4 solve times by ply: seeded positions, a time cap, two table sizes.

Run from the repository root::

    nice -n 10 .venv/bin/python benchmarks/bench_forza_solver.py [--plies 20,24,28,32]
        [--positions 5] [--cap 60] [--memory 256M] [--seed 1]

For each ply, ``--positions`` positions are reached by seeded random play from the
start (a game that ends before the ply is replayed with the next seed), and each is
solved (every move's score, as ``partita solve`` does) twice, one configuration
after the other on the same position: with the default transposition table
(``DEFAULT_TABLE_SIZE`` positions) and with one sized to ``--memory``. Printed per
ply and configuration: positions solved within the cap, median and worst time (a
position over the cap counts as the cap), median and worst nodes (a position over
the cap counts the nodes searched until then; nodes do not depend on the machine's
load, times do), and the ratio of the median times.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from partita.analysis.solving import DEFAULT_TABLE_SIZE
from partita.errors import BudgetExceeded
from partita.game.registry import get_game
from partita.games.gravity.solver import Solver


def memory_bytes(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1:].upper() in units:
        return int(float(text[:-1]) * units[text[-1].upper()])
    return int(text)


def positions_at(ply: int, count: int, seed: int) -> list:
    rules = get_game("forza4x4").rules
    found = []
    attempt = 0
    while len(found) < count:
        generator = random.Random(seed * 1_000_003 + ply * 1_009 + attempt)
        attempt += 1
        state = rules.initial()
        for _ in range(ply):
            if rules.outcome(state) is not None:
                break
            state = rules.apply(state, generator.choice(rules.legal_moves(state)))
        if rules.outcome(state) is None and rules.ply(state) == ply:
            found.append(state)
    return found


def timed(solver: Solver, state, cap: float) -> tuple[float, bool, int]:
    solver.clear()
    nodes = solver.nodes
    started = time.perf_counter()
    try:
        solver.solve(state, max_seconds=cap)
    except BudgetExceeded:
        return cap, False, solver.nodes - nodes
    return time.perf_counter() - started, True, solver.nodes - nodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plies", default="20,24,28,32")
    parser.add_argument("--positions", type=int, default=5)
    parser.add_argument("--cap", type=float, default=60.0)
    parser.add_argument("--memory", default="256M")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args(argv)
    game = get_game("forza4x4")
    configurations = {
        f"table {DEFAULT_TABLE_SIZE:,}": Solver(game, table_size=DEFAULT_TABLE_SIZE),
        f"memory {options.memory}": Solver(game, memory=memory_bytes(options.memory)),
    }
    names = list(configurations)
    print(f"forza4x4, {configurations[names[0]].backend} core, cap {options.cap:g} s a position")
    print(
        f"{'ply':>4} {'configuration':<22} {'solved':>7} {'median s':>9} {'worst s':>9}"
        f" {'median nodes':>13} {'worst nodes':>13}"
    )
    for ply in [int(item) for item in options.plies.split(",")]:
        times: dict[str, list[float]] = {name: [] for name in names}
        nodes: dict[str, list[int]] = {name: [] for name in names}
        solved = dict.fromkeys(names, 0)
        for state in positions_at(ply, options.positions, options.seed):
            for name in names:
                seconds, done, searched = timed(configurations[name], state, options.cap)
                times[name].append(seconds)
                nodes[name].append(searched)
                solved[name] += done
        medians = {}
        for name in names:
            medians[name] = statistics.median(times[name])
            print(
                f"{ply:>4} {name:<22} {solved[name]:>3}/{len(times[name]):<3} "
                f"{medians[name]:>9.2f} {max(times[name]):>9.2f}"
                f" {statistics.median(nodes[name]):>13,.0f} {max(nodes[name]):>13,}",
                flush=True,
            )
        ratio = medians[names[1]] / max(medians[names[0]], 1e-9)
        print(f"{ply:>4} {'ratio of medians':<22} {ratio:>27.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
