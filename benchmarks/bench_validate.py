"""Validation throughput in one process, with two local workers and on a two-worker
Dask LocalCluster (as ratios, in one run), by corpus size: where two workers start
to win (the crossover behind ``validate``'s default), and what travels per record.

Run from the repository root (the Dask part needs ``pip install -e '.[cluster]'``)::

    nice -n 10 .venv/bin/python benchmarks/bench_validate.py [--games 500,2000,10000] [--repeat 1]

For each corpus (seeded Forza 4x4 records, ``benchmarks/corpus.py``, in 4 files),
:func:`partita.bulk.validation.validate_files` runs to its end with
``workers=1``, ``workers=2`` and ``scheduler="local:2"``; the time includes starting
the workers (or the cluster): what a user waits for. Printing is left out (the
command adds the same to every way). The checks are compared: every run must give
the same, in the same order; under each run, its CPU time in this process and in
its worker processes (what the work cost, whatever the load lets the wall clock
show). ``workers=2`` is one worker process and this one
(which reads and replays while it waits); ``local:2`` a LocalCluster of 2 worker
processes (and this one). Then the size of what travels: a chunk's data (to a
worker) and its checks (back), pickled, per record.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pickle
import resource
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import write_forza_corpus  # noqa: E402

from partita.bulk.chunks import CHUNK_BYTES, chunks  # noqa: E402
from partita.bulk.validation import check_chunk, validate_files  # noqa: E402
from partita.notation.files import expand_paths  # noqa: E402


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def cpu_text(here: float, children: float) -> str:
    return f"cpu {here:.1f}+{children:.1f} s"


def timed(files: list[Path], repeat: int, **where: object) -> tuple[float, float, float, list]:
    """The best wall time of ``repeat`` runs, the CPU time of the last one in this
    process and in its (ended) child processes, and its checks."""
    best = float("inf")
    checks: list = []
    here = children = 0.0
    for _ in range(repeat):
        here, children = cpu_seconds(resource.RUSAGE_SELF), cpu_seconds(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        checks = list(validate_files(files, **where))  # type: ignore[arg-type]
        best = min(best, time.perf_counter() - started)
        here = cpu_seconds(resource.RUSAGE_SELF) - here
        children = cpu_seconds(resource.RUSAGE_CHILDREN) - children
    return best, here, children, checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", default="250,500,1000,2000,5000,10000", help="corpus sizes (records)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per timing (best kept)")
    parser.add_argument("--seed", type=int, default=2024)
    options = parser.parse_args()
    runs: list[tuple[str, dict]] = [("workers=1", {"workers": 1}), ("workers=2", {"workers": 2})]
    if importlib.util.find_spec("distributed") is not None:
        runs.append(("local:2", {"scheduler": "local:2"}))
    else:
        print("(Dask's distributed is not installed: the cluster run is left out)")
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1, 5 min)")
    header = "".join(f"{label + ' rec/s':>22}" for label, _ in runs)
    ratios = "".join(f"{'x ' + label:>18}" for label, _ in runs[1:])
    print(f"{'records':>8} {'bytes':>10}{header}{ratios}  same")
    crossover: dict[str, int | None] = {label: None for label, _ in runs[1:]}
    with tempfile.TemporaryDirectory() as work:
        for games in (int(text) for text in options.games.split(",")):
            folder = Path(work) / f"forza-{games}"
            write_forza_corpus(folder, games, seed=options.seed)
            files = expand_paths([folder])
            size = sum(file.stat().st_size for file in files)
            seconds: dict[str, float] = {}
            results: dict[str, list] = {}
            cpu: dict[str, tuple[float, float]] = {}
            for label, where in runs:
                seconds[label], here, children, results[label] = timed(
                    files, options.repeat, **where
                )
                cpu[label] = (here, children)
            serial = seconds[runs[0][0]]
            same = all(result == results[runs[0][0]] for result in results.values())
            line = f"{games:>8} {size:>10}"
            line += "".join(f"{games / seconds[label]:>22.0f}" for label, _ in runs)
            line += "".join(f"{serial / seconds[label]:>18.2f}" for label, _ in runs[1:])
            print(f"{line}  {'yes' if same else 'NO'}", flush=True)
            print(
                " " * 19
                + "".join(f"{cpu_text(*cpu[label]):>22}" for label, _ in runs)
                + "  (CPU here + in workers)",
                flush=True,
            )
            for label, _ in runs[1:]:
                if seconds[label] < serial and crossover[label] is None:
                    crossover[label] = games
                elif seconds[label] >= serial:
                    crossover[label] = None  # it must stay ahead from there on
        for label, games in crossover.items():
            print(
                f"crossover, {label}: "
                + (f"wins from {games} records on" if games else "never wins in these sizes")
            )
        sample = next(chunks(files, False, CHUNK_BYTES))
        sent = len(pickle.dumps(sample.data, protocol=pickle.HIGHEST_PROTOCOL))
        back = len(pickle.dumps(check_chunk(sample.data), protocol=pickle.HIGHEST_PROTOCOL))
        count = len(sample.offsets)
        print(
            f"per record: {sent / count:.0f} bytes to a worker (the record's text and "
            f"place), {back / count:.0f} bytes back (its check); a chunk holds {count} records"
        )
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1, 5 min)")


if __name__ == "__main__":
    main()
