"""Start-up of small imports, two checkouts side by side.

``partita import FILE --db NEW --json`` in a fresh process, for a 1-record file and
for a corpus of 300 games, and python-chess's ``chess.pgn.read_game`` over a chess
PGN of the same ply count as the 300 games (what ``import_scaling.measure_end_to_end``
compares with), run in rounds that alternate old, new and chess, so that the load
of a shared machine falls on all of them alike. The best of the rounds is kept
(wall and CPU apart: under load the CPU is the figure to read), with the median
and the 1-minute load before and after.

``--old`` is another checkout of partita (for example a ``git worktree`` of main):
it runs with ``PYTHONPATH`` set to it, so that its ``partita`` package is found
before the one installed in this environment. Both checkouts are byte-compiled
first (see :func:`import_scaling.compile_partita`)::

    python benchmarks/import_startup.py --old /tmp/old --runs 5 \\
        --corpus /tmp/ipw/forza-cut-300-2024 --chess /tmp/ipw/chess-cut-8816-2024.pgn
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from import_scaling import CHESS_READER, PROBE  # noqa: E402

ONE_RECORD = (
    '[Game "forza4x4"]\n[Result "0-1"]\n[Termination "normal"]\n\n'
    "1. r7 t6 2. r2 l5 3. b2 t8 4. r6 b8 5. t8 b8 0-1\n"
)


def run(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system) and stdout of one run, in a probe."""
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, *command], capture_output=True, text=True, env=env, check=True
    )
    result = json.loads(probe.stdout)
    if result["code"] != 0:
        raise RuntimeError(f"{command[:3]} failed ({result['code']}): {result['stderr']}")
    return result["wall"], result["cpu"], result["stdout"]


def fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def summary(runs: list[tuple[float, float]]) -> dict[str, float]:
    walls = [wall for wall, _ in runs]
    cpus = [cpu for _, cpu in runs]
    return {
        "best_wall": min(walls),
        "median_wall": statistics.median(walls),
        "best_cpu": min(cpus),
        "median_cpu": statistics.median(cpus),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="the other checkout")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus", type=Path, required=True, help="the 300-game corpus")
    parser.add_argument("--chess", type=Path, required=True, help="a chess PGN, same plies")
    arguments = parser.parse_args()
    for checkout in (arguments.old, ROOT):
        if not compileall.compile_dir(checkout / "partita", quiet=1):
            raise RuntimeError(f"compileall failed on {checkout}")
    script = str(Path(sys.executable).with_name("partita"))
    base = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    variants = {"old": {**base, "PYTHONPATH": str(arguments.old.resolve())}, "new": base}
    runs: dict[str, list[tuple[float, float]]] = {}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as work:
        one = Path(work) / "one.pgr"
        one.write_text(ONE_RECORD, encoding="utf-8")
        database = Path(work) / "new.db"
        for _ in range(arguments.runs):
            for name, env in variants.items():
                for label, source in (("1 record", one), ("300 games", arguments.corpus)):
                    command = [script, "import", str(source), "--db", str(fresh(database))]
                    wall, cpu, out = run([*command, "--json"], env)
                    assert json.loads(out)["imported"] >= 1
                    runs.setdefault(f"{name}, {label}", []).append((wall, cpu))
            wall, cpu, _ = run([sys.executable, "-c", CHESS_READER, str(arguments.chess)], base)
            runs.setdefault("python-chess, same plies as 300 games", []).append((wall, cpu))
    results = {name: summary(values) for name, values in runs.items()}
    print(
        f"load {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after; {arguments.runs} runs"
    )
    print(f"{'':42} {'best wall':>10} {'median':>8} {'best CPU':>9} {'median':>8}")
    for name, figures in results.items():
        print(
            f"{name:42} {figures['best_wall']:10.3f} {figures['median_wall']:8.3f} "
            f"{figures['best_cpu']:9.3f} {figures['median_cpu']:8.3f}"
        )
    chess = results["python-chess, same plies as 300 games"]
    for name in variants:
        mine = results[f"{name}, 300 games"]
        print(
            f"{name}: 300 games against python-chess, best wall "
            f"{chess['best_wall'] / mine['best_wall']:.2f}x, best CPU "
            f"{chess['best_cpu'] / mine['best_cpu']:.2f}x"
        )
    print(json.dumps({"load_before": load_before, "results": results}))


if __name__ == "__main__":
    main()
