"""The CLI's import end to end, this checkout against another one, A/B interleaved.

Run from the repository root (the other checkout needs its compiled core built in
place, ``python setup.py build_ext --inplace``, for a fair comparison)::

    nice -n 10 .venv/bin/python benchmarks/import_ab.py --base ../baseline [--games 3000]
        [--runs 9] [--workers N] [--workdir DIR]

Each run imports the same seeded Forza 4x4 corpus (:func:`import_scaling.forza_corpus`)
into a fresh archive with ``python -m partita import DIR --db NEW --json`` in a fresh
process, once with this checkout's code and once with ``--base``'s on
``PYTHONPATH`` (in alternating order), then reads a chess PGN of the same ply count
with python-chess (:data:`import_scaling.CHESS_READER`). It prints the medians and
bests of the wall and CPU times (the process and its workers), their ratios (this
checkout over the base), and each side's plies/s over python-chess's (the median of
the runs' ratios). Both sides are compiled to bytecode first
(:func:`import_scaling.compile_partita` for this checkout).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import import_scaling  # noqa: E402


def import_command(
    pythonpath: Path, corpus: Path, database: Path, workers: str | None = None
) -> list[str]:
    """The CLI's import with ``pythonpath``'s partita (``env`` runs it from ``/``, so
    the current folder's checkout is not imported instead)."""
    return [
        "env",
        "-C",
        "/",
        f"PYTHONPATH={pythonpath}",
        sys.executable,
        "-m",
        "partita",
        "import",
        str(corpus),
        "--db",
        str(database),
        "--json",
        *(["--workers", workers] if workers else []),
    ]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--workers",
        default=None,
        help="the import's --workers (default: the command's own choice, which follows "
        "the idle cores at the time and so varies on a busy machine)",
    )
    args = parser.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="partita-import-ab-"))
    sides = {"base": args.base.resolve(), "this": HERE.parent}
    print(import_scaling.compile_partita())
    compileall.compile_dir(str(sides["base"] / "partita"), quiet=1)
    corpus = import_scaling.forza_corpus(work, args.games, args.seed, base=args.games)
    walls: dict[str, list[float]] = {name: [] for name in sides}
    cpus: dict[str, list[float]] = {name: [] for name in sides}
    ratios: dict[str, list[float]] = {name: [] for name in sides}
    chess_path = None
    plies = chess_plies = 0
    load = os.getloadavg()[0]
    for run in range(args.runs):
        order = list(sides) if run % 2 == 0 else list(reversed(sides))
        for name in order:
            database = import_scaling._fresh(work / f"ab-{name}.db")
            wall, stdout, _, cpu = import_scaling._run(
                import_command(sides[name], corpus, database, args.workers)
            )
            plies = json.loads(stdout)["plies"]
            walls[name].append(wall)
            cpus[name].append(cpu)
        chess_path = chess_path or import_scaling.chess_corpus(work, plies, args.seed)
        chess_wall, chess_out, _, _ = import_scaling._run(
            [sys.executable, "-c", import_scaling.CHESS_READER, str(chess_path)]
        )
        chess_plies = int(chess_out.split()[1])
        for name in sides:
            ratios[name].append((plies / walls[name][-1]) / (chess_plies / chess_wall))
    median = statistics.median
    print(
        f"{args.games:,} games, {plies:,} plies, {args.runs} runs each, "
        f"load {load:.2f} -> {os.getloadavg()[0]:.2f} (1 min)"
    )
    for name in sides:
        print(
            f"{name:>5}: wall median {median(walls[name]):.3f} s, best {min(walls[name]):.3f} s; "
            f"CPU median {median(cpus[name]):.3f} s; "
            f"plies/s over python-chess's {median(ratios[name]):.2f}"
        )
    figures = {
        "games": args.games,
        "plies": plies,
        "runs": args.runs,
        "wall_median_ratio": median(walls["this"]) / median(walls["base"]),
        "wall_best_ratio": min(walls["this"]) / min(walls["base"]),
        "cpu_median_ratio": median(cpus["this"]) / median(cpus["base"]),
        "walls": walls,
        "cpus": cpus,
    }
    print(
        f"this/base: wall median {figures['wall_median_ratio']:.3f}, best "
        f"{figures['wall_best_ratio']:.3f}; CPU median {figures['cpu_median_ratio']:.3f}"
    )
    return figures


if __name__ == "__main__":
    main()
