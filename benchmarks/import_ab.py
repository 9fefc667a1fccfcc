"""End-to-end import, A/B between installed trees, against python-chess in the same run.

    nice -n 10 .venv/bin/python benchmarks/import_ab.py \\
        base=/path/to/old/.venv/bin/partita new=.venv/bin/partita [--games 3000,30000] [--rounds 5]

Each ``name=PARTITA`` is the ``partita`` command of one installed tree (a checkout of
another commit with its own venv: ``python -m venv .venv && .venv/bin/pip install
-e .``). For each size, the seeded Forza 4x4 corpus of :mod:`import_scaling` is
imported by every tree in turn, then read by python-chess's PGN reader (a corpus of
about the same number of plies), round after round, so that the machine's load
weighs on all of them alike. Printed per size and tree: the best wall time and CPU
(the process and its workers), plies per second, the ratio to python-chess's
plies per second (best against best, and the median of each round's ratio), and
each tree's CPU relative to the first tree's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from import_scaling import CHESS_READER, _fresh, _run, chess_corpus, forza_corpus  # noqa: E402


def measure(trees: dict[str, str], sizes: list[int], rounds: int, seed: int, work: Path) -> list:
    results = []
    for games in sizes:
        corpus = forza_corpus(work, games, seed)
        best = {name: (float("inf"), float("inf")) for name in trees}
        ratios: dict[str, list[float]] = {name: [] for name in trees}
        chess_best = float("inf")
        plies = chess_plies = 0
        chess_path = None
        for _ in range(rounds):
            walls = {}
            for name, partita in trees.items():
                database = _fresh(work / f"{name}.db")
                wall, stdout, _, cpu = _run(
                    [partita, "import", str(corpus), "--db", str(database), "--json"]
                )
                found = json.loads(stdout)["plies"]
                if plies and found != plies:
                    raise RuntimeError(f"{name} stored {found} plies, another tree {plies}")
                plies = found
                walls[name] = wall
                best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
            chess_path = chess_path or chess_corpus(work, plies, seed)
            chess_wall, chess_out, _, _ = _run(
                [sys.executable, "-c", CHESS_READER, str(chess_path)]
            )
            chess_plies = int(chess_out.split()[1])
            chess_best = min(chess_best, chess_wall)
            for name, wall in walls.items():
                ratios[name].append((plies / wall) / (chess_plies / chess_wall))
        first = next(iter(trees))
        for name in trees:
            wall, cpu = best[name]
            results.append(
                {
                    "games": games,
                    "tree": name,
                    "plies": plies,
                    "wall": wall,
                    "cpu": cpu,
                    "plies_per_s": plies / wall,
                    "ratio_to_chess": (plies / wall) / (chess_plies / chess_best),
                    "ratio_median": statistics.median(ratios[name]),
                    "cpu_vs_first": cpu / best[first][1],
                }
            )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", help="NAME=PATH/TO/partita, two or more")
    parser.add_argument("--games", default="3000,30000", help="corpus sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    trees = dict(item.split("=", 1) for item in args.trees)
    sizes = [int(size) for size in args.games.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        work = args.workdir or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        results = measure(trees, sizes, args.rounds, args.seed, work)
    print(f"{'games':>7} {'tree':<8} {'plies':>9} {'wall s':>8} {'CPU s':>8} {'plies/s':>10} "
          f"{'x chess':>8} {'median':>7} {'CPU/first':>9}")  # fmt: skip
    for row in results:
        print(f"{row['games']:>7,} {row['tree']:<8} {row['plies']:>9,} {row['wall']:>8.2f} "
              f"{row['cpu']:>8.2f} {row['plies_per_s']:>10,.0f} {row['ratio_to_chess']:>8.2f} "
              f"{row['ratio_median']:>7.2f} {row['cpu_vs_first']:>9.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
