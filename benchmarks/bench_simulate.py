"""Self-play throughput on one process, two local workers and a two-worker Dask
LocalCluster (as ratios, in one run), the exact book's build time per depth on
Connect Four, and memory.

Run from the repository root (the Dask part needs ``pip install -e '.[cluster]'``)::

    .venv/bin/python benchmarks/bench_simulate.py [--games N] [--agents SPEC] [--depths 0,1,2]

Self-play: ``--games`` games (default 200) of Connect Four between ``--agents``
(default ``mcts:40``), seed 1, written as shards to a temporary folder; for each way
of running them, games per second overall (worker start-up included: what a user
waits for) and steady (from the first finished task to the end), the start-up time,
and the ratios to one process (the records are checked byte-identical).

Book: from a Connect Four position 12 plies in (columns 3 and 4 full: the empty
board's searches take hours with this solver), books of depth 0, 1, 2... are built
into fresh book files with one process: time, positions per ply, nodes searched.

Memory: the peak resident set of this process and of its largest child (``ru_maxrss``).
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import tempfile
import time
from pathlib import Path

from partita.analysis.book import build_exact_book
from partita.analysis.selfplay import simulate
from partita.games.registry import get_game

ROOT_MOVES = "t4 t4 t4 t4 t4 t4 t3 t3 t3 t3 t3 t3"


def shards(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.glob("shard-*.pgr"))}


def self_play(games: int, agents: str, folder: Path) -> list[tuple[str, float, float, dict]]:
    game = get_game("connect4")
    runs = [("1 process", {"workers": 1}), ("2 local workers", {"workers": 2})]
    if importlib.util.find_spec("distributed") is not None:
        runs.append(("Dask LocalCluster, 2 workers", {"scheduler": "local:2"}))
    else:
        print("(Dask's distributed is not installed: the cluster run is left out)")
    results = []
    print(f"  {'':<30} {'games/s':>8} {'steady':>8} {'start-up':>9} {'total':>7}")
    for label, where in runs:
        output = folder / label.split()[0].replace(",", "")
        seen: list[tuple[float, int]] = []
        started = time.perf_counter()
        summary = simulate(
            game,
            games,
            agents.split("+"),
            seed=1,
            output=output,
            shard_size=10,
            progress=lambda done, seen=seen: seen.append((time.perf_counter(), done.done)),
            **where,
        )
        seconds = time.perf_counter() - started
        # steady: from the first finished task to the end (start-up left out)
        first = next((point for point in seen if point[1] > 0), seen[-1])
        span = seen[-1][0] - first[0]
        steady = (summary.played - first[1]) / span if span > 0 else 0.0
        results.append((label, summary.played / seconds, steady, shards(output)))
        print(
            f"  {label:<30} {summary.played / seconds:8.2f} {steady:8.2f} "
            f"{first[0] - started:8.1f}s {seconds:6.1f}s"
        )
    _, rate_one, steady_one, reference = results[0]
    for label, rate, steady, written in results:
        same = "identical" if written == reference else "DIFFERENT"
        print(
            f"  {label:<30} x{rate / rate_one:5.2f} overall, x{steady / (steady_one or 1):5.2f} "
            f"steady, of one process; records {same}"
        )
    return results


def books(depths: list[int], folder: Path) -> None:
    game = get_game("connect4")
    root = game.play_line(ROOT_MOVES)
    print(f"  root: {game.format_position(root)} (12 plies in)")
    print(f"  {'depth':>5} {'positions':>10} {'per ply':<24} {'nodes':>12} {'seconds':>8}")
    for depth in depths:
        path = folder / f"book-{depth}.book"
        summary = build_exact_book(path, game, depth, root=root, budget=None, workers=1)
        per_ply = ",".join(map(str, summary.per_ply))
        print(
            f"  {depth:>5} {summary.positions:>10} {per_ply:<24} {summary.nodes:>12} "
            f"{summary.seconds:>8.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--agents", default="mcts:40", help="one spec, or specs joined by +")
    parser.add_argument("--depths", default="0,1,2,3")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        print(f"self-play: {arguments.games} games of connect4, {arguments.agents}")
        self_play(arguments.games, arguments.agents, folder)
        print("exact book of connect4, one process")
        books([int(depth) for depth in arguments.depths.split(",")], folder)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"memory: peak {own:.0f} MB in this process, {children:.0f} MB in the largest worker")


if __name__ == "__main__":
    main()
