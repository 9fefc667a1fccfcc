"""A/B of `prepare_chunk` (a worker's work) between source trees, alternating.

    .venv/bin/python benchmarks/prepare_ab.py CORPUS --rounds 7 base=/tmp/base new=-

Each ``name=tree`` starts one persistent process whose ``partita`` is imported from
``tree`` (``-``: the installed one; for another commit, ``git archive COMMIT partita
| tar -x -C TREE``). Every process prepares the corpus's chunks once (warm-up, and
the ply count, which must agree), then the rounds run the trees one after the other,
each one pass over the chunks, so that a change of load hits all of them. Printed:
each tree's best and median CPU per ply, and its best wall time per ply; on a
loaded machine read the best CPU. Each tree is byte-compiled first, as an installed
wheel would be.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

_WORKER = "--worker"


def worker(corpus: Path) -> None:
    """Prepare the corpus once, then once per line read; print the times as JSON."""
    from partita.bulk.chunks import CHUNK_BYTES, chunks
    from partita.bulk.prepare import prepare_chunk
    from partita.notation.files import expand_paths

    data = [chunk.data for chunk in chunks(expand_paths([corpus]), False, CHUNK_BYTES)]
    plies = sum(len(stored.moves) for item in data for stored in prepare_chunk(item))
    print(json.dumps({"plies": plies}), flush=True)
    for _ in sys.stdin:
        cpu, wall = time.process_time(), time.perf_counter()
        for item in data:
            prepare_chunk(item)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(json.dumps({"cpu": cpu, "wall": wall}), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("trees", nargs="+", help="name=tree (tree '-': the installed partita)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    trees = dict(item.split("=", 1) for item in args.trees)
    processes = {}
    for name, tree in trees.items():
        environment = dict(os.environ)
        if tree != "-":
            environment["PYTHONPATH"] = tree
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", f"{tree}/partita"], check=True
            )
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            _WORKER,
            str(args.corpus.resolve()),
        ]
        processes[name] = subprocess.Popen(  # noqa: S603 (this interpreter, this script)
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=environment,
            cwd="/",  # so that no tree is imported from the working directory
        )
    plies = {
        name: json.loads(process.stdout.readline())["plies"] for name, process in processes.items()
    }  # type: ignore[union-attr]
    if len(set(plies.values())) != 1:
        raise SystemExit(f"the trees disagree on the plies: {plies}")
    count = next(iter(plies.values()))
    runs: dict[str, list[dict]] = {name: [] for name in processes}
    for _ in range(args.rounds):
        for name, process in processes.items():
            process.stdin.write("go\n")  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]
            runs[name].append(json.loads(process.stdout.readline()))  # type: ignore[union-attr]
    for process in processes.values():
        process.stdin.close()  # type: ignore[union-attr]
        process.wait()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"{count:,} plies, {args.rounds} alternating rounds, load average now {load}")
    for name, items in runs.items():
        cpu = [item["cpu"] / count * 1e6 for item in items]
        wall = min(item["wall"] for item in items) / count * 1e6
        print(
            f"{name}: best {min(cpu):.2f} µs/ply CPU, median {statistics.median(cpu):.2f}, "
            f"best wall {wall:.2f}"
        )
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == _WORKER:
        worker(Path(sys.argv[2]))
    else:
        sys.exit(main())
