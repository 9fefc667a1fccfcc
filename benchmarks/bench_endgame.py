"""Endgame graphs: how fast they are built and solved, and what a position costs.

Run from the repository root::

    .venv/bin/python benchmarks/bench_endgame.py [--full] [--synthetic N] [--cases a,b]

For each case it builds and solves the endgame graph twice: once timed, once under
``tracemalloc`` (which slows Python down, so it is not timed), and prints the
positions and moves of the graph, the seconds and positions per second, the peak of
the memory traced while building and solving divided by the positions (everything:
the index, the arrays, the queue of states waiting to be expanded, the solve's
predecessor arrays), the bytes the finished graph's arrays hold per position, and
what ten million positions would take at the peak rate.

Cases: Universal Forces endings (the last fires racing home with a round limit; the
same race without one, folded and not), Circular Reasoning's last squares (the first
``--cr-positions`` positions breadth first, or with ``--full`` the whole ending,
1,179,136 positions, several minutes), and ``synthetic``: a game of the contract
whose rules cost almost nothing (a position is an int; three moves; a position
divisible by 97 is lost for the side to move), to show the storage at millions of
positions (``--synthetic N``, default 2,000,000).
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Sequence
from typing import Any

from partita.analysis.endgame import endgame
from partita.game.registry import get_game
from partita.game.rules import Outcome, Rules

UF_RACE = "I3:7=1R,I3:2=2R 1:-/GYB/GGYYBBRR 2:-/GYB/GGYYBBRR 1 37"
UF_OPEN = "C3=1R,I3:6=2R 1:-/GYB/GGYYBBRR 2:-/GYB/GGYYBBRR 1 30"
CR_SQUARES = "1:CG,TG,SM3 2:CG,TG,SI10 / O11 M6 I1 / 7 P1"


class Synthetic(Rules[int, int]):
    """Positions ``0 .. size-1`` times two sides, packed in one int
    (``position * 2 + side``); a move multiplies and shifts the position (three
    moves); a position divisible by 97 (but 0) is lost for the side to move. Every
    position reachable from 1 is explored."""

    name = "synthetic"
    title = "Synthetic endgame"

    def __init__(self, size: int) -> None:
        self.size = size

    def initial(self, sides: int = 2) -> int:
        return 2

    def sides(self, state: int) -> int:
        return 2

    def side_to_move(self, state: int) -> int:
        return state & 1

    def legal_moves(self, state: int) -> Sequence[int]:
        return () if self.outcome(state) is not None else (1, 2, 3)

    def illegal_reason(self, state: int, move: int) -> str | None:
        return None if move in self.legal_moves(state) else "no such move"

    def apply(self, state: int, move: int) -> int:
        position = state >> 1
        position = (position * (move + 2) + move) % self.size
        return position << 1 | (1 - (state & 1))

    def outcome(self, state: int) -> Outcome | None:
        position = state >> 1
        if position and position % 97 == 0:
            return Outcome.win_for(1 - (state & 1), 2, "a multiple of 97")
        return None

    def ply(self, state: int) -> int:
        return 0

    def key(self, state: int) -> int:
        return state

    def diagram(self, state: int) -> str:
        return str(state)


def cases(args: argparse.Namespace) -> dict[str, tuple[Any, Any, dict[str, Any]]]:
    """name -> (rules, state, endgame options)."""
    limited = get_game("universal-forces").configure({"RoundLimit": "40"})
    uf = get_game("universal-forces")
    cr = get_game("circular-reasoning")
    squares = {"fold_symmetry": True, "max_positions": 2_000_000}
    if not args.full:
        squares.update(max_positions=args.cr_positions, partial=True)
    return {
        "uf-race (round limit)": (limited.rules, limited.parse_position(UF_RACE), {}),
        "uf-open-race folded": (uf.rules, uf.parse_position(UF_OPEN), {"fold_symmetry": True}),
        "uf-open-race": (uf.rules, uf.parse_position(UF_OPEN), {}),
        "cr-squares": (cr.rules, cr.parse_position(CR_SQUARES), squares),
        "synthetic": (
            Synthetic(args.synthetic),
            2,
            {"max_positions": 4 * args.synthetic},
        ),
    }


def measure(rules: Any, state: Any, options: dict[str, Any]) -> dict[str, Any]:
    gc.collect()
    started = time.perf_counter()
    graph = endgame(rules, state, **options)
    seconds = time.perf_counter() - started
    positions, edges, complete = len(graph), graph.edges, graph.complete
    result = graph.result()
    arrays = graph.nbytes()
    del graph
    gc.collect()
    tracemalloc.start()
    graph = endgame(rules, state, **options)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del graph
    return {
        "positions": positions,
        "edges": edges,
        "complete": complete,
        "result": result,
        "seconds": seconds,
        "peak": peak / positions,
        "arrays": arrays / positions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="the whole Circular Reasoning ending")
    parser.add_argument("--cr-positions", type=int, default=200_000)
    parser.add_argument("--synthetic", type=int, default=2_000_000, help="synthetic positions")
    parser.add_argument("--cases", help="comma-separated names (default: all)")
    args = parser.parse_args()
    chosen = cases(args)
    if args.cases:
        wanted = args.cases.split(",")
        chosen = {name: case for name, case in chosen.items() if name.split()[0] in wanted}
    print(
        "| case | positions | moves | whole | value | seconds | positions/s "
        "| peak bytes/position | arrays bytes/position | 10^7 positions at the peak rate |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, (rules, state, options) in chosen.items():
        row = measure(rules, state, options)
        value, distance = row["result"]
        shown = value if distance is None else f"{value} in {distance}"
        print(
            f"| {name} | {row['positions']:,} | {row['edges']:,} | "
            f"{'yes' if row['complete'] else 'no'} | {shown} | {row['seconds']:.1f} | "
            f"{row['positions'] / row['seconds']:,.0f} | {row['peak']:.0f} | "
            f"{row['arrays']:.0f} | {row['peak'] * 1e7 / 2**30:.2f} GB |",
            flush=True,
        )


if __name__ == "__main__":
    main()
