"""Start-up time of the `partita` command against a bare interpreter's.

Run from the repository root::

    .venv/bin/python benchmarks/bench_startup.py [--runs N]

Times ``python -c pass``, ``python -m partita --help``, ``python -m partita games``
and ``python -m partita import ONE.pgr --db NEW --json`` (one record into a new
archive: the start-up of a small import, schema creation included; ``--runs`` runs each, interleaved so that machine load affects all alike) and
prints the medians of the wall-clock time and of the CPU time (user + system) the
process used, each with its ratio to the bare interpreter's. The CPU time is the
steadier figure on a shared machine: waiting for a core does not count. Two settings:

* *as configured*: this environment as it is. With ``PYTHONDONTWRITEBYTECODE=1``
  (set here and in CI) Python caches no bytecode, so every partita module imported
  at start-up is compiled from source on every run;
* *bytecode cached*: ``PYTHONPYCACHEPREFIX`` names a fresh folder and
  ``PYTHONDONTWRITEBYTECODE`` is unset; one untimed run fills the cache, and the
  timed runs read it (as an installed, non-editable partita would).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "partita --help": ["-m", "partita", "--help"],
    "partita games": ["-m", "partita", "games"],
}
BARE = "python -c pass"
IMPORT = "partita import (1)"
ONE_RECORD = (
    '[Game "forza4x4"]\n[Result "0-1"]\n[Termination "normal"]\n\n'
    "1. r7 t6 2. r2 l5 3. b2 t8 4. r6 b8 5. t8 b8 0-1\n"
)


def run_once(arguments: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run (the command must succeed); an
    archive named after ``--db`` is removed first, so that each import makes it."""
    if "--db" in arguments:
        archive = arguments[arguments.index("--db") + 1]
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(archive + suffix):
                os.unlink(archive + suffix)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, *arguments],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def medians(env: dict[str, str], runs: int) -> dict[str, tuple[float, float]]:
    """Median wall-clock and CPU seconds of every command, after one untimed round."""
    for arguments in COMMANDS.values():
        run_once(arguments, env)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, arguments in COMMANDS.items():
            times[name].append(run_once(arguments, env))
    return {
        name: (
            statistics.median(wall for wall, _ in values),
            statistics.median(cpu for _, cpu in values),
        )
        for name, values in times.items()
    }


def report(title: str, found: dict[str, tuple[float, float]]) -> None:
    print(title)
    bare_wall, bare_cpu = found[BARE]
    for name, (wall, cpu) in found.items():
        line = f"  {name:<18} wall {wall * 1000:7.1f} ms"
        if name != BARE:
            line += f" ({wall / bare_wall:4.1f} x)"
        line += f"   cpu {cpu * 1000:7.1f} ms"
        if name != BARE:
            line += f" ({cpu / bare_cpu:4.1f} x)"
        print(line)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each command")
    options = parser.parse_args(argv)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPYCACHEPREFIX"}
    env.setdefault("COLUMNS", "80")
    writes = "off" if env.get("PYTHONDONTWRITEBYTECODE") else "on"
    print(f"{sys.executable}, Python {sys.version.split()[0]}, {options.runs} runs, medians")
    with tempfile.TemporaryDirectory(prefix="partita-startup-") as work:
        record = os.path.join(work, "one.pgr")
        with open(record, "w", encoding="utf-8") as handle:
            handle.write(ONE_RECORD)
        archive = os.path.join(work, "new.db")
        COMMANDS[IMPORT] = ["-m", "partita", "import", record, "--db", archive, "--json"]
        report(f"as configured (bytecode writing {writes}):", medians(env, options.runs))
        cache = os.path.join(work, "pycache")
        cached = {key: value for key, value in env.items() if key != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = cache
        report("bytecode cached (PYTHONPYCACHEPREFIX):", medians(cached, options.runs))


if __name__ == "__main__":
    main()
