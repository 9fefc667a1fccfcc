"""The archive tools on a large archive: twins, players, merge, delete, tag changes.

Run from the repository root::

    .venv/bin/python benchmarks/bench_archive_tools.py [--games 100000] [--twins 2000]
        [--archive FILE] [--skip-writes]

What it does, seeded and deterministic:

1. makes an archive of ``--games`` Forza 4x4 records (:mod:`corpus`, imported as
   ``partita import`` does), plus ``--twins`` of those records again with another
   Event and an added comment (twins, not duplicates); ``--archive`` keeps it and
   reuses it when it already holds them;
2. times, best of ``--repeat`` runs: exact twins, fuzzy twins at ply 8, player
   statistics (with Elo ratings), a head-to-head, an event's crosstable, and prints
   the query plans (``EXPLAIN QUERY PLAN``) of the twins and players queries;
3. times deleting 1,000 games (in a copy), a tag change, and merging the archive
   into an empty one (not with ``--skip-writes``);
4. times the queries no index serves, or that work around one: a regular
   expression on a tag, every game listed with its opening name, the opening-name
   filter, pattern searches, and the opening tree with its ratings; prints their
   plans.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from partita.database.schema import archive as opened_archive

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import write_forza_corpus  # noqa: E402

from partita.analysis.tree import tree_from_archive  # noqa: E402
from partita.bulk import import_paths  # noqa: E402
from partita.database.filters import GameFilter  # noqa: E402
from partita.database.maintenance import delete_games, set_tag  # noqa: E402
from partita.database.merge import merge_archive  # noqa: E402
from partita.database.players import (  # noqa: E402
    crosstables,
    games_sql,
    head_to_head,
    player_stats,
)
from partita.database.query import query_games  # noqa: E402
from partita.database.schema import register_filter_functions  # noqa: E402
from partita.database.twins import _groups_sql, find_twins  # noqa: E402
from partita.notation.reader import split_records  # noqa: E402


def best_of(repeat: int, run: Callable[[], object]) -> tuple[tuple[float, float], object]:
    """The shortest wall time and the shortest CPU time of ``repeat`` runs (the
    machine is shared: CPU time is the steadier one), and the last run's value."""
    wall = cpu = float("inf")
    value = None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        value = run()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return (wall, cpu), value


def twin_texts(files: list[Path], count: int, total: int) -> list[str]:
    """``count`` records of the corpus (spread over it) with another Event and a comment."""
    step = max(total // count, 1)
    chosen = []
    number = 0
    for file in files:
        for raw in split_records(file):
            if number % step == 0 and len(chosen) < count:
                lines = [
                    '[Event "Twin copy"]' if line.startswith("[Event ") else line
                    for line in raw.text.splitlines()
                ]
                chosen.append("\n".join(lines).replace(" 1-0", " {a twin} 1-0") + "\n")
            number += 1
    return chosen


def make_archive(path: Path, games: int, twins: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        files = write_forza_corpus(Path(folder) / "corpus", games)
        print(f"corpus of {games:,} records written in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        with opened_archive(path) as opened:
            summary = import_paths(opened, files, workers=None)
        print(f"imported in {time.perf_counter() - started:.1f} s: {summary.imported:,} games")
        extra = Path(folder) / "twins.pgr"
        extra.write_text("\n".join(twin_texts(files, twins, games)), encoding="utf-8")
        with opened_archive(path) as opened:
            summary = import_paths(opened, [extra])
        print(f"{summary.imported:,} twin records imported, {len(summary.twins):,} twins reported")


def plan(conn: sqlite3.Connection, sql: str, params: list) -> str:
    return "; ".join(row[-1] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--twins", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--archive", type=Path, default=None)
    parser.add_argument("--skip-writes", action="store_true")
    args = parser.parse_args()

    keep = args.archive is not None
    folder = Path(tempfile.mkdtemp())
    path = args.archive or folder / "bench.db"
    if path.exists():
        with sqlite3.connect(path) as conn:
            count = conn.execute("SELECT count(*) FROM games").fetchone()[0]
        print(f"reusing {path}: {count:,} games")
    else:
        make_archive(path, args.games, args.twins)
    with sqlite3.connect(path) as conn:
        games, positions = (
            conn.execute("SELECT count(*) FROM games").fetchone()[0],
            conn.execute("SELECT count(*) FROM positions").fetchone()[0],
        )
    print(f"archive: {games:,} games, {positions:,} positions, {path.stat().st_size / 1e6:.0f} MB")

    timings = {}
    seconds, groups = best_of(args.repeat, lambda: find_twins(path))
    timings["twins"] = (seconds, f"{len(groups):,} groups")
    seconds, groups = best_of(args.repeat, lambda: find_twins(path, game="forza4x4"))
    timings["twins --game forza4x4"] = (seconds, f"{len(groups):,} groups")
    seconds, groups = best_of(args.repeat, lambda: find_twins(path, fuzzy_depth=8))
    timings["twins --fuzzy-depth 8"] = (seconds, f"{len(groups):,} groups")
    seconds, rows = best_of(args.repeat, lambda: player_stats(path))
    timings["players (with Elo)"] = (seconds, f"{len(rows):,} rows")
    seconds, rows = best_of(args.repeat, lambda: player_stats(path, game="forza4x4"))
    timings["players --game forza4x4"] = (seconds, f"{len(rows):,} rows")
    seconds, rows = best_of(args.repeat, lambda: head_to_head(path, "Anna", "Bruno"))
    timings["players --player Anna --vs Bruno"] = (
        seconds,
        f"{rows[0].games if rows else 0:,} games",
    )
    seconds, rows = best_of(args.repeat, lambda: crosstables(path, event="Benchmark Open 200"))
    timings["players --event 'Benchmark Open 200' --crosstable"] = (
        seconds,
        f"{len(rows[0].players) if rows else 0} players",
    )
    for name, selection in QUERIES.items():
        seconds, rows = best_of(
            args.repeat, lambda selection=selection: query_games(path, selection)
        )
        timings[name] = (seconds, f"{len(rows):,} games")
    for rated in (False, True):
        seconds, tree = best_of(
            args.repeat,
            lambda rated=rated: tree_from_archive(path, "forza4x4", depth=8, rated=rated),
        )
        name = "tree --game forza4x4" + (" (ratings)" if rated else " (no ratings)")
        timings[name] = (seconds, f"{tree.move_count:,} moves")
    if not args.skip_writes:
        timings.update(write_timings(path, games))
    report(timings)
    tool_plans(path)
    with sqlite3.connect(path) as conn:
        register_filter_functions(conn)
        for name, selection in QUERIES.items():
            joins, where, params = selection.sql()
            sql = f"SELECT g.id FROM {joins} WHERE {where}"
            print(f"plan, {name}: {plan(conn, sql, params)}")
    if not keep:
        shutil.rmtree(folder)


#: The queries timed, by the command line they stand for.
QUERIES = {
    "query --tag 'Event~^Benchmark Open 1[0-9]$'": GameFilter(
        tags=("Event~^Benchmark Open 1[0-9]$",)
    ),
    "query --tag 'Event~Open 7' --date-from 2024.06": GameFilter(
        tags=("Event~Open 7",), date_from="2024.06"
    ),
    "query (every game, with its opening name)": GameFilter(),
    "query --opening-name 'centre (t4)'": GameFilter(opening_names=("centre (t4)",)),
    "query --opening-name rulebook": GameFilter(opening_names=("rulebook",)),
    "query --opening-name entry --game forza4x4": GameFilter(
        opening_names=("entry",), games=("forza4x4",)
    ),
    "query --pattern (a 2x2 square of x)": GameFilter(
        pattern="????????/????????/????????/???xx???/???xx???/????????/????????/????????"
    ),
    "query --pattern (the square) --event 'Open 7'": GameFilter(
        pattern="????????/????????/????????/???xx???/???xx???/????????/????????/????????",
        events=("Open 7",),
    ),
    "query --pattern (the square) --opening t4": GameFilter(
        pattern="????????/????????/????????/???xx???/???xx???/????????/????????/????????",
        openings=("t4",),
    ),
}


def report(timings: dict) -> None:
    width = max(len(name) for name in timings)
    print(f"{'':<{width}}     wall      CPU")
    for name, ((wall, cpu), what) in timings.items():
        print(f"{name:<{width}}  {wall:7.3f}  {cpu:7.3f} s  {what}")


def write_timings(path: Path, games: int) -> dict:
    """Deleting 1,000 games and a tag change (in a copy), and a merge."""
    timings = {}
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "copy.db"
        shutil.copy(path, copy)
        doomed = list(range(1, games + 1, max(games // 1000, 1)))[:1000]
        seconds, deletion = best_of(1, lambda: delete_games(copy, doomed))
        timings["delete 1,000 games"] = (seconds, f"{deletion.positions:,} positions")
        seconds, _ = best_of(1, lambda: set_tag(copy, games // 2, "Event", "Renamed"))
        timings["tag set"] = (seconds, "1 game")
        seconds, merged = best_of(1, lambda: merge_archive(Path(scratch) / "merged.db", path))
        timings["merge into an empty archive"] = (
            seconds,
            f"{merged.copied:,} games, {merged.positions:,} positions",
        )
    return timings


def tool_plans(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        sql, params = _groups_sql(None, {})
        print(f"\nplan, twins: {plan(conn, sql, params)}")
        sql, params = _groups_sql(8, {})
        print(f"plan, twins --fuzzy-depth 8: {plan(conn, sql, params)}")
        sql, params = _groups_sql(None, {"game": "forza4x4"})
        print(f"plan, twins --game forza4x4: {plan(conn, sql, params)}")
        sql, params = games_sql({})
        print(f"plan, players: {plan(conn, sql, params)}")
        sql, params = games_sql({"game": "forza4x4"})
        print(f"plan, players --game forza4x4: {plan(conn, sql, params)}")


if __name__ == "__main__":
    main()
