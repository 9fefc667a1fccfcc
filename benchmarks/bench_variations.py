"""Position search with variations (schema version 5) on a large archive: ``query
--position`` with and without ``--mainline-only``, and migration 5 of the same
archive made a version 4 one.

Run from the repository root (the corpus and the archive are kept in the workdir)::

    nice -n 10 .venv/bin/python benchmarks/bench_variations.py --workdir DIR [--games 100000]

Each command runs as a user runs it (a fresh ``partita`` process, piped), best of
``--repeat``, wall and CPU (of the child) times. Probes, chosen from the archive: a
position after two plies of the first game (thousands of games), one after eight
plies (a few), and a position only a variation reaches (no mainline). The migration
runs on fresh copies of the archive with ``variation_positions`` dropped and the
schema version set back to 4 (as partita wrote it before version 5).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from partita.database.schema import archive as opened_archive

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def build_archive(work: Path, games: int, seed: int) -> tuple[Path, float]:
    """The archive of the first ``games`` records of the seeded corpus (imported
    once, kept), and the seconds the import took (0 when it was already there)."""
    from import_scaling import forza_corpus

    from partita.bulk import import_paths

    path = work / f"variations-{games}-{seed}.db"
    if path.exists():
        return path, 0.0
    corpus = forza_corpus(work, games, seed)
    partial = work / f"variations-{games}-{seed}.partial.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{partial}{suffix}").unlink(missing_ok=True)
    start = time.perf_counter()
    with opened_archive(partial) as opened:
        import_paths(opened, [corpus], workers=None)
    seconds = time.perf_counter() - start
    partial.rename(path)
    return path, seconds


def probes(path: Path) -> dict[str, list[str]]:
    from partita.database.schema import open_archive
    from partita.game.registry import get_game

    notation = get_game("forza4x4")
    rules = notation.rules
    db = open_archive(path, readonly=True)
    try:
        first = db.execute("SELECT moves FROM games WHERE plies >= 8 ORDER BY id").fetchone()[0]
        # A variation's last ply whose key no mainline has: its game's text replayed.
        only = db.execute(
            "SELECT v.game_id, v.line, v.ply FROM variation_positions v "
            "WHERE v.next_move IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM positions p WHERE p.key = v.key) ORDER BY v.game_id LIMIT 1"
        ).fetchone()
        pgr = db.execute("SELECT pgr FROM games WHERE id = ?", (only[0],)).fetchone()[0]
    finally:
        db.close()
    from partita.notation.reader import parse_record
    from partita.notation.replay import replay

    replayed = replay(parse_record(pgr))
    line = replayed.variations[only[1] - 1]
    tokens = replayed.moves[: line.plies_before] + line.moves
    positions = {}
    for name, moves in (("after 2 plies", first.split()[:2]), ("after 8 plies", first.split()[:8]),
                        ("only in a variation", tokens)):  # fmt: skip
        state = notation.initial()
        for token in moves:
            state = rules.apply(state, notation.parse_move(state, token))
        positions[name] = ["--game", "forza4x4", "--position", notation.format_position(state)]
    return positions


def timed(command: list[str], repeat: int) -> tuple[float, float, str]:
    """Best wall and CPU times of ``repeat`` runs, and the last run's output."""
    best_wall = best_cpu = float("inf")
    out = ""
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}: {done.stderr[-1000:]}")
        best_wall, best_cpu, out = min(best_wall, wall), min(best_cpu, cpu), done.stdout
    return best_wall, best_cpu, out


def in_process(
    path: Path, game: str, position: str, mainline_only: bool, repeat: int
) -> tuple[float, float, int]:
    """Best wall and CPU times of :func:`query_games` in this process (no start-up)."""
    from partita.database import query_games

    best_wall = best_cpu = float("inf")
    found = 0
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        with opened_archive(path, readonly=True) as opened:
            found = len(
                query_games(opened, game=game, position=position, mainline_only=mainline_only)
            )
        best_wall = min(best_wall, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu, found


def as_version_4(path: Path, copy: Path) -> None:
    shutil.copy(path, copy)
    connection = sqlite3.connect(copy)
    connection.execute("DROP TABLE variation_positions")
    connection.execute("DELETE FROM schema_version WHERE version >= 5")
    connection.commit()
    connection.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--migrations", type=int, default=2)
    parser.add_argument("--workdir", type=Path, required=True)
    args = parser.parse_args(argv)
    work = args.workdir
    work.mkdir(parents=True, exist_ok=True)
    partita = str(Path(sys.executable).with_name("partita"))
    print(f"load: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    path, imported = build_archive(work, args.games, args.seed)
    connection = sqlite3.connect(path)
    games, positions, rows, with_variations = connection.execute(
        "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM positions), "
        "(SELECT count(*) FROM variation_positions), "
        "(SELECT count(DISTINCT game_id) FROM variation_positions)"
    ).fetchone()
    connection.close()
    print(
        f"{games:,} games, {positions:,} positions, {rows:,} variation rows of "
        f"{with_variations:,} games ({path.stat().st_size / 1e6:.0f} MB)"
        + (f"; imported in {imported:.1f} s" if imported else "")
    )
    print(f"{'query --position':<34}{'options':<18}{'wall s':>8}{'CPU s':>8}{'games':>8}  found")
    for name, arguments in probes(path).items():
        for options in ([], ["--mainline-only"]):
            command = [partita, "query", "--db", str(path), *arguments, *options, "--csv"]
            wall, cpu, out = timed(command, args.repeat)
            lines = out.splitlines()[1:]
            found = sorted({line.split(",")[-2] for line in lines})
            print(
                f"{name:<34}{' '.join(options) or '-':<18}{wall:>8.2f}{cpu:>8.2f}"
                f"{len(lines):>8}  {', '.join(found) or '-'}"
            )
    print(
        f"{'query_games, in process':<34}{'mainline_only':<18}{'wall s':>8}{'CPU s':>8}{'games':>8}"
    )
    for name, arguments in probes(path).items():
        for mainline_only in (False, True):
            wall, cpu, found = in_process(path, arguments[1], arguments[3], mainline_only, 5)
            print(f"{name:<34}{mainline_only!s:<18}{wall:>8.4f}{cpu:>8.4f}{found:>8}")
    start, cpu_start = time.perf_counter(), time.process_time()
    connection = sqlite3.connect(path)
    candidates = connection.execute(
        "SELECT count(*) FROM games WHERE instr(pgr, '(') > 0"
    ).fetchone()[0]
    connection.close()
    print(
        f"games whose text holds '(': {candidates:,}, found in "
        f"{time.perf_counter() - start:.2f} s ({time.process_time() - cpu_start:.2f} s CPU)"
    )
    for run in range(args.migrations):
        older = work / "variations-v4.db"
        as_version_4(path, older)
        wall, cpu, out = timed([partita, "migrate", "--db", str(older)], 1)
        print(f"migrate (4 to 5), run {run + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU: {out.strip()}")
        connection = sqlite3.connect(older)
        again = connection.execute("SELECT count(*) FROM variation_positions").fetchone()[0]
        connection.close()
        assert again == rows, f"the migration wrote {again} rows, the import {rows}"
        older.unlink()
    print(f"load after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
