"""Query times against the archive's size: ``query`` by position, player, opening and
tag, ``tree`` and ``report``, at 10,000 and 100,000 games, with the query plans.

Run from the repository root::

    .venv/bin/python benchmarks/bench_queries.py [--sizes 10000,100000] [--workdir DIR]

Each command runs as a user runs it (a fresh ``partita`` process, its output piped,
so plain), best of ``--repeat``; the ratio column is the time at a size over the time
at the first size, to compare with the ratio of the sizes (linear). The plans are
SQLite's ``EXPLAIN QUERY PLAN`` of each filter's selection
(:meth:`partita.database.filters.GameFilter.sql`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from partita.database.schema import archive as opened_archive

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def build_archive(work: Path, games: int, seed: int) -> Path:
    from import_scaling import forza_corpus

    from partita.bulk import import_paths

    path = work / f"queries-{games}-{seed}.db"
    if not path.exists():
        partial = work / f"queries-{games}-{seed}.partial.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{partial}{suffix}").unlink(missing_ok=True)
        with opened_archive(partial) as opened:
            import_paths(opened, [forza_corpus(work, games, seed)], workers=None)
        partial.rename(path)
    return path


def probes(path: Path) -> dict[str, list[str]]:
    """The filters timed, chosen from the archive: a position after two plies of
    its first game, its most played first move, a player's first name, an event
    (5% of the games), the site (every game of the corpus), a round (a number)."""
    from partita.database.schema import open_archive
    from partita.game.registry import get_game

    db = open_archive(path, readonly=True)
    try:
        moves = db.execute("SELECT moves FROM games WHERE status = 'valid' ORDER BY id").fetchone()
        first = db.execute(
            "SELECT substr(moves, 1, instr(moves, ' ') - 1) AS m, count(*) FROM games "
            "WHERE game = 'forza4x4' GROUP BY m ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()[0]
    finally:
        db.close()
    notation = get_game("forza4x4")
    state = notation.initial()
    for token in moves[0].split()[:2]:
        state = notation.rules.apply(state, notation.parse_move(state, token))
    return {
        "position": ["--game", "forza4x4", "--position", notation.format_position(state)],
        "player": ["--player", "anna"],
        "opening": ["--game", "forza4x4", "--opening", first],
        "tag": ["--tag", "Event=Benchmark Open 3"],  # one event in twenty
        "tag, every game": ["--tag", "Site=Milano"],
        "tag, number": ["--tag", "Round>=9"],
    }


def plan(path: Path, arguments: list[str]) -> str:
    from partita.database.filters import GameFilter
    from partita.database.schema import open_archive

    options = dict(zip(arguments[::2], arguments[1::2], strict=True))
    names = {"--game": "games", "--position": "position", "--player": "players",
             "--opening": "openings", "--tag": "tags"}  # fmt: skip
    selection = GameFilter(**{names[key]: value for key, value in options.items()})
    joins, where, params = selection.sql()
    db = open_archive(path, readonly=True)
    try:
        rows = db.execute(f"EXPLAIN QUERY PLAN SELECT g.id FROM {joins} WHERE {where}", params)
        return " | ".join(row[-1] for row in rows)
    finally:
        db.close()


def timed(command: list[str], repeat: int) -> tuple[float, int]:
    """Best wall time of ``repeat`` runs, and the lines printed."""
    best = float("inf")
    lines = 0
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}: {done.stderr[-1000:]}")
        lines = done.stdout.count("\n")
    return best, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    temporary = None
    if args.workdir is None:
        temporary = tempfile.TemporaryDirectory(prefix="partita-queries-")
        work = Path(temporary.name)
    else:
        work = args.workdir
        work.mkdir(parents=True, exist_ok=True)
    partita = str(Path(sys.executable).with_name("partita"))
    sizes = [int(size) for size in args.sizes.split(",")]
    print(f"load: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    try:
        times: dict[str, dict[int, tuple[float, int]]] = {}
        for games in sizes:
            path = build_archive(work, games, args.seed)
            chosen = probes(path)
            commands = {
                f"query {name}": [partita, "query", "--db", str(path), *arguments]
                for name, arguments in chosen.items()
            }
            commands["tree --game forza4x4"] = [
                partita, "tree", "--game", "forza4x4", "--db", str(path),
            ]  # fmt: skip
            commands["report"] = [
                partita, "report", "--db", str(path), "-o", str(work / "report.html"),
            ]  # fmt: skip
            print(f"\n{games:,} games ({path.stat().st_size / 1e6:.0f} MB):")
            for label, command in commands.items():
                seconds, lines = timed(command, args.repeat)
                times.setdefault(label, {})[games] = (seconds, lines)
                print(f"  {label:<26}{seconds:>8.2f}s {lines:>8,} lines")
            print("  query plans:")
            for name, arguments in chosen.items():
                print(f"    {name:<16}{plan(path, arguments)}")
        if len(sizes) > 1:
            base = sizes[0]
            print(f"\ntime ratios to {base:,} games (sizes: "
                  + ", ".join(f"{size / base:g}x" for size in sizes[1:]) + "):")  # fmt: skip
            for label, by_size in times.items():
                ratios = ", ".join(
                    f"{by_size[size][0] / by_size[base][0]:.2f}x" for size in sizes[1:]
                )
                print(f"  {label:<26}{ratios}")
    finally:
        if temporary is not None:
            temporary.cleanup()
    print(f"load after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
