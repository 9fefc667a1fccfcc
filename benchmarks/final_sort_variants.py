"""The bulk import's final step under SQLite settings, A/B on copies of one heap.

Run from the repository root::

    nice -n 10 .venv/bin/python benchmarks/final_sort_variants.py HEAP.db
        '{"cache": 4096}' '{"cache": 65536}' '{"pragmas": ["threads=2"]}' ...

``HEAP.db`` is an archive a bulk import stopped before its final step (its
positions in ``positions_load``: ``storage_scaling.py --keep-heap`` leaves one).
Each variant (JSON: ``cache``, the page cache in KiB; ``pragmas``, more settings;
``ranges``, the heap moved in that many key ranges) runs in a fresh process on a
fresh copy, the steps of :func:`~partita.database.indexed.finish_loading` timed
one by one (wall s, CPU s, MB written): the sorted insert into ``positions``, the
heap's deletion, ``positions_game``'s build, the commit (with its checkpoint).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path


def _written() -> int:
    with open("/proc/self/io") as io:
        for line in io:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    return 0


def _fresh_copy(source: Path, target: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(source, target)


def run_variant(source: Path, variant: dict) -> dict:
    """The final step on a copy of ``source`` under ``variant``, step by step."""
    target = source.with_name(f"{source.stem}-variant.db")
    _fresh_copy(source, target)
    conn = sqlite3.connect(target, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(f"PRAGMA cache_size=-{variant.get('cache', 65536)}")
    conn.execute("PRAGMA wal_autocheckpoint=10000")
    for pragma in variant.get("pragmas", []):
        conn.execute(f"PRAGMA {pragma}")
    steps: dict[str, tuple[float, float, int]] = {}

    def step(name: str, statements: list[str]) -> None:
        wall, cpu, written = time.perf_counter(), time.process_time(), _written()
        for statement in statements:
            conn.execute(statement)
        steps[name] = (
            round(time.perf_counter() - wall, 2),
            round(time.process_time() - cpu, 2),
            (_written() - written) // 1_000_000,
        )

    rows = conn.execute("SELECT count(*) FROM positions_load").fetchone()[0]
    ranges = variant.get("ranges", 1)
    low, span = -(1 << 63), (1 << 64) // ranges
    moves = []
    for number in range(ranges):
        first = low + number * span
        last = first + span - 1 if number < ranges - 1 else (1 << 63) - 1
        moves.append(
            "INSERT INTO positions (key, game_id, ply) "
            "SELECT key, game_id, ply FROM positions_load "
            f"WHERE key BETWEEN {first} AND {last} ORDER BY key, game_id, ply"
        )
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("DROP INDEX IF EXISTS positions_game")
    step("insert", moves)
    step("delete", ["DELETE FROM positions_load"])
    step("index", ["CREATE INDEX IF NOT EXISTS positions_game ON positions(game_id)"])
    step("commit", ["COMMIT"])
    conn.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    total = [round(sum(values[i] for values in steps.values()), 2) for i in range(3)]
    status = Path("/proc/self/status").read_text().split("VmHWM:")[1].split()
    return {
        "variant": variant,
        "rows": rows,
        "steps": steps,
        "total": total,
        "peak_rss_mb": int(status[0]) // 1024,
        "load": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> list[dict]:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--one":
        print(json.dumps(run_variant(Path(args[1]), json.loads(args[2]))))
        return []
    source, variants = Path(args[0]), args[1:] or ["{}"]
    results = []
    for variant in variants:
        done = subprocess.run(
            [sys.executable, __file__, "--one", str(source), variant],
            capture_output=True,
            text=True,
            check=True,
        )
        result = json.loads(done.stdout)
        results.append(result)
        print(json.dumps(result), flush=True)
    return results


if __name__ == "__main__":
    main()
