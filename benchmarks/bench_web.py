"""Server time of `partita serve`'s pages at 10,000 and 100,000 games: a page of 50
games (the first, a late page sorted by date, a player's games), a game's page
(first visit and again), its board, and the API's page of games.

Run from the repository root::

    nice -n 10 .venv/bin/python benchmarks/bench_web.py [--sizes 10000,100000] [--workdir DIR]

The archives are those of ``bench_queries.py`` (a seeded Forza 4x4 corpus, built
once in the work folder and reused). Each request goes through the whole ASGI app
(middleware, routing, templates) in this process, without a socket: the time is the
server's, best of ``--repeat`` (a game's first visit: the median over different
games). The ratio column is the time at the largest size over the time at the
first; the target is under 100 ms at 100,000 games.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TARGET_MS = 100.0


async def _call(app: Any, path: str) -> tuple[int, int]:
    """One GET through the ASGI app: (status, body bytes)."""
    raw_path, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": raw_path,
        "raw_path": raw_path.encode(),
        "query_string": query.encode(),
        "headers": [(b"host", b"127.0.0.1:8000")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "root_path": "",
    }
    status = 0
    size = 0

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        nonlocal status, size
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            size += len(message.get("body", b""))

    await app(scope, receive, send)
    return status, size


def timed(app: Any, path: str, loop: asyncio.AbstractEventLoop) -> float:
    started = time.perf_counter()
    status, _ = loop.run_until_complete(_call(app, path))
    elapsed = time.perf_counter() - started
    assert status == 200, f"{path}: {status}"
    return elapsed


def measure(db: Path, repeat: int) -> dict[str, float]:
    from partita.database.schema import open_archive
    from partita.web.app import create_app

    app = create_app(db)
    loop = asyncio.new_event_loop()
    conn = open_archive(db, readonly=True)
    count = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    player = conn.execute("SELECT player1 FROM games WHERE id = ?", (count // 2,)).fetchone()[0]
    conn.conn.close()
    last_page = max(1, count // 50 - 3)
    probes = {
        "games page 1": "/",
        "games late page, by date": f"/?sort=date&desc=1&page={last_page}",
        "a player's games": f"/?player={player.split()[0]}",
        "API games page": "/api/games?page=7",
        "game page (again)": f"/games/{count // 3}",
        "game board (again)": f"/games/{count // 3}/board.svg?node=12",
    }
    timed(app, "/", loop)  # imports and templates, once
    timed(app, probes["game page (again)"], loop)
    figures = {}
    for name, path in probes.items():
        figures[name] = min(timed(app, path, loop) for _ in range(repeat))
    firsts = [timed(app, f"/games/{1 + (count * k) // 23}", loop) for k in range(1, 12)]
    figures["game page (first visit)"] = statistics.median(firsts)
    loop.close()
    return figures


def main(argv: list[str] | None = None) -> int:
    from bench_queries import build_archive

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    work = (
        args.workdir
        or Path(os.environ.get("PARTITA_BENCH_DIR", tempfile.gettempdir())) / "partita-bench"
    )
    work.mkdir(parents=True, exist_ok=True)
    results: dict[int, dict[str, float]] = {}
    for size in sizes:
        started = time.perf_counter()
        db = build_archive(work, size, args.seed)
        print(
            f"archive of {size:,} games: {db} ({time.perf_counter() - started:.1f} s to build or find)"
        )
        results[size] = measure(db, args.repeat)
    names = list(results[sizes[0]])
    header = f"{'request':34}" + "".join(f"{size:>12,}" for size in sizes) + f"{'ratio':>8}"
    print(f"\nserver time, ms (best of {args.repeat}; first visits: median of 11 games)")
    print(header)
    failed = False
    for name in names:
        values = [results[size][name] * 1000 for size in sizes]
        ratio = values[-1] / values[0] if values[0] else float("nan")
        print(f"{name:34}" + "".join(f"{v:12.1f}" for v in values) + f"{ratio:8.2f}")
        failed |= values[-1] > TARGET_MS
    print(f"\ntarget: every request under {TARGET_MS:.0f} ms at {sizes[-1]:,} games: "
          + ("NOT MET" if failed else "met"))  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
