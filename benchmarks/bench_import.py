"""Import throughput: parse, replay, store and the full import, against python-chess.

Run from the repository root::

    .venv/bin/python benchmarks/bench_import.py [--big] [--workdir DIR]
    .venv/bin/python benchmarks/bench_import.py --stages [--games 10000] [--profile] [--layouts]

By default (:mod:`import_scaling`): the CLI end to end against python-chess at
300, 3,000, 30,000 and 100,000 games (plies/s, the ratio of the best runs and the
median of the runs' ratios, peak RSS; A/B interleaved, best of 9 runs up to 3,000
games, 3 at 30,000, one at 100,000), and storage per ply (time, bytes written, peak
memory) of real imports at 10,000 and 100,000 archived games; ``--big`` adds
:mod:`storage_scaling` at 10,000, 100,000 and 1,000,000; ``--no-storage``: the
end-to-end comparison alone.
Before timing, partita's modules are compiled into ``__pycache__`` (compileall),
so that the CLI runs from bytecode as a wheel install, and python-chess, do:
an editable install under ``PYTHONDONTWRITEBYTECODE=1`` would compile them from
source on every run (``--no-compile`` measures that). The run prints which, and
the load average around each size. Run it niced (``nice -n 10``) on a shared
machine. :mod:`storage_scaling` measures storage per ply from rows prepared once (no
million-game corpus to write and read). docs/archive.md has the figures.

``--stages``, all seeded and deterministic:

1. writes a corpus of ``--games`` Forza 4x4 records (random play with a little
   sense, mixed results; :mod:`corpus`) into a temporary folder;
2. times the stages on it (best of ``--repeat`` runs, wall and CPU time), each as
   what it adds to a streamed pipeline in one process: parse (the streaming
   reader), + replay (the rules), + store (the canonical writer, then rows, key
   folding and SQLite, into a fresh archive), the sum being the full import
   (``import_paths(..., workers=1)``); then the full import as it runs by default
   (``workers=None``: worker processes read and replay while the main process
   writes), and ``--workers 2,3`` adds runs with those counts;
3. measures peak memory of the full import at a quarter of the corpus and at the
   whole of it (each in a fresh process: tracemalloc peak and peak RSS; for the
   parallel import, of the main process and of the largest worker), to show
   memory is flat in the input's size;
4. writes random legal chess games of about the same total ply count as PGN and
   times python-chess's reader on them (``chess.pgn.read_game`` in a loop), and
   prints the ratio of our full imports' plies/s (serial and parallel) to
   python-chess's;
5. ``--profile``: cProfile of the full import, by part and by function;
   ``--ablate``: the full import with one piece of the archive's work switched off
   at a time (the canonical writer, the positions inserts, the final position...);
   ``--layouts``: the row-layout and pragma measurements behind the archive's
   schema (docs/archive.md quotes them); ``--crossover``: one process against
   several on small corpora, the measurement behind ``PARALLEL_MIN_BYTES``;
   ``--full-path`` (instead of the stages): the import's fast path against the
   full path (``PARTITA_FULL_PATH=1``), A/B, alternating runs: the CPU per ply of
   ``prepare_chunk``, the full import with one process and with the default
   workers, and the CLI end to end against python-chess at ``--end-to-end`` sizes;
   ``--native`` (instead of the stages): the compiled gravity key replay against
   the forced Python loop (``PARTITA_PYTHON_REPLAY=1``), A/B, alternating runs:
   the gravity games' ``fast_replay`` alone, the CPU per ply of ``prepare_chunk`` and of a one-process
   import.

A ply is one stored move of a game's mainline (python-chess: one mainline move).
CPU time counts the worker processes too (``os.times``, children included).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from partita.database.schema import archive as opened_archive

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import write_chess_corpus, write_forza_corpus  # noqa: E402

# The archive's modules load on first use (partita.database is lazy): a worker process
# of a parallel import re-imports this script, and should not pay for SQLite.
from partita import bulk  # noqa: E402
from partita.notation.files import expand_paths  # noqa: E402
from partita.notation.reader import read_records  # noqa: E402
from partita.notation.replay import replay  # noqa: E402
from partita.notation.writer import write_record  # noqa: E402


def cpu_time() -> float:
    """CPU seconds of this process and of its finished children (an import's
    worker processes are joined before it returns)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def best_of(repeat: int, run: Callable[[], object]) -> tuple[float, float, object]:
    """The shortest wall time and the shortest CPU time (:func:`cpu_time`) of
    ``repeat`` runs (the others are noise; CPU time is what a busy machine does not
    inflate), and the last run's value."""
    wall = cpu = float("inf")
    value = None
    for _ in range(repeat):
        gc.collect()
        start, start_cpu = time.perf_counter(), cpu_time()
        value = run()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, cpu_time() - start_cpu)
    return wall, cpu, value


def fresh_db(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def import_into(path: Path, paths: list[Path], **options):
    """``import_paths`` into the archive at ``path`` (opened for the import)."""
    with opened_archive(path) as opened:
        return bulk.import_paths(opened, paths, **options)


def rate(count: float, seconds: float) -> str:
    return f"{count / seconds:>10,.0f}"


# -- stages ------------------------------------------------------------------------------------


def measure_stages(corpus: Path, work: Path, repeat: int, workers: list[int]) -> dict:
    """Each stage as the increment it adds to a streamed pipeline over the files:
    parse (read every record), + replay, + the canonical writer, and the full import
    in one process (which adds the writer and the archive). Streaming is how an
    import runs; stages timed on lists held in memory come out slower (a heap of
    10,000 record trees costs the allocator and the collector), and would not add up
    to the full import. Then the full import with worker processes: as chosen by
    default (``workers=None``), and with each count in ``workers``."""
    from partita.bulk import workers as parallel  # here: the module level stays light

    files = expand_paths([corpus])

    def pipeline(replaying: bool, writing: bool) -> Callable[[], int]:
        def run() -> int:
            plies = 0
            for file in files:
                for record in read_records(file):
                    if replaying:
                        replayed = replay(record)
                        plies += replayed.plies
                        if writing:  # as the importer does: from the replay
                            write_record(record, replayed.game, replayed=replayed)
            return plies

        return run

    seconds: dict[str, tuple[float, float]] = {}
    *seconds["parse"], _ = best_of(repeat, pipeline(False, False))
    *seconds["parse+replay"], plies = best_of(repeat, pipeline(True, False))
    *seconds["parse+replay+writer"], _ = best_of(repeat, pipeline(True, True))

    def full(workers: int | None = 1) -> Callable[[], object]:
        def run() -> object:
            return import_into(fresh_db(work / "full.db"), [corpus], workers=workers)

        return run

    *seconds["full"], summary = best_of(repeat, full())
    assert summary.plies == plies
    reference = _dump(work / "full.db")
    *seconds["parallel"], summary = best_of(repeat, full(None))
    assert summary.plies == plies and _dump(work / "full.db") == reference
    for count in workers:
        *seconds[f"workers={count}"], summary = best_of(repeat, full(count))
        assert summary.plies == plies
    figures = {stage: {"wall": wall, "cpu": cpu} for stage, (wall, cpu) in seconds.items()}
    for name, total, before in (
        ("replay", "parse+replay", "parse"),
        ("store", "full", "parse+replay"),
        ("store_canonical_writer", "parse+replay+writer", "parse+replay"),
        ("store_archive", "full", "parse+replay+writer"),
    ):
        figures[name] = {
            clock: figures[total][clock] - figures[before][clock] for clock in ("wall", "cpu")
        }
    size = sum(file.stat().st_size for file in files)
    return {
        "records": summary.records,
        "plies": plies,
        "bytes": size,
        "auto_workers": parallel.auto_workers(size),
        "seconds": figures,
    }


def _dump(archive_path: Path) -> list:
    """The games of an archive (ids, hashes, positions per game), to check that the
    parallel import stores what the serial one does."""
    connection = sqlite3.connect(archive_path)
    try:
        return connection.execute(
            "SELECT g.id, g.hash, count(p.key), total(p.key % 1000003) FROM games g "
            "LEFT JOIN positions p ON p.game_id = g.id GROUP BY g.id ORDER BY g.id"
        ).fetchall()
    finally:
        connection.close()


# -- memory ------------------------------------------------------------------------------------

MEMORY_PROBE = """
import json, resource, sys
from partita.bulk import import_paths
from partita.database.schema import archive
traced = sys.argv[3] == "traced"
workers = None if sys.argv[4] == "auto" else int(sys.argv[4])
if traced:
    import tracemalloc
    tracemalloc.start()
with archive(sys.argv[1]) as opened:
    summary = import_paths(opened, [sys.argv[2]], workers=workers)
figures = {"records": summary.records, "plies": summary.plies}
if traced:
    figures["traced_peak"] = tracemalloc.get_traced_memory()[1]
else:  # VmHWM: this process's peak resident set (ru_maxrss would count the parent's)
    status = open("/proc/self/status").read().split("VmHWM:")[1].split()
    figures["peak_rss"] = int(status[0]) * 1024
    # The largest worker's peak (the workers are joined, so they are counted).
    figures["worker_peak_rss"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps(figures))
"""


def measure_memory(corpus: Path, work: Path, workers: str = "1") -> dict:
    """Peak memory of a full import in a fresh process: traced Python allocations
    (tracemalloc) in one run, the peak resident set in another (without tracemalloc,
    whose own bookkeeping would count). ``workers``: "1", "auto" or a count."""
    figures: dict = {"workers": workers}
    for mode in ("traced", "rss"):
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                MEMORY_PROBE,
                str(fresh_db(work / "memory.db")),
                str(corpus),
                mode,
                workers,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        figures.update(json.loads(result.stdout))
    return figures


# -- python-chess ---------------------------------------------------------------------------------


def measure_chess(path: Path, repeat: int) -> dict:
    import chess.pgn

    def read() -> tuple[int, int]:
        games = plies = 0
        with path.open(encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                games += 1
                plies += game.end().ply()
        return games, plies

    wall, cpu, (games, plies) = best_of(repeat, read)
    return {"records": games, "plies": plies, "seconds": {"wall": wall, "cpu": cpu}}


# -- profile -----------------------------------------------------------------------------------------

#: Where the time of an import goes: (label, file fragment, function) whose
#: cumulative time is that part. SQLite is the time spent inside its C methods.
PARTS = (
    ("parse: splitting files into records", "notation/splitter.py", "cut_records"),
    ("parse: tokens and the record tree", "notation/driver.py", "drive"),
    ("replay through the rules", "notation/replay.py", "replay"),
    ("canonical writer (stored text)", "notation/writer.py", "write_record"),
    ("archive: key folding (blake2b)", "database/keys.py", "fold"),
    ("archive: final position notation", "notation/gravity.py", "format_position"),
    ("archive: batches (Python side)", "database/archive_writer.py", "flush"),
)


def profile_import(corpus: Path, work: Path) -> dict:
    profiler = cProfile.Profile()
    profiler.enable()
    import_into(fresh_db(work / "profile.db"), [corpus], workers=1)  # one process
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    parts: dict[str, float] = {}
    sqlite = 0.0
    for (filename, _, function), (_, _, tottime, cumtime, _) in stats.stats.items():
        for label, fragment, name in PARTS:
            if function == name and filename.endswith(fragment):
                parts[label] = parts.get(label, 0.0) + cumtime
        if "sqlite3.Connection" in function or "sqlite3.Cursor" in function:
            sqlite += tottime
    batches = "archive: batches (Python side)"
    parts[batches] = parts.get(batches, 0.0) - sqlite
    parts["SQLite (executemany, execute)"] = sqlite
    parts["everything else"] = total - sum(parts.values())
    stream = io.StringIO()
    pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(15)
    return {"total": total, "parts": parts, "top": stream.getvalue()}


# -- ablation ----------------------------------------------------------------------------------------


def measure_ablation(corpus: Path, work: Path, repeat: int) -> list[tuple[str, float]]:
    """CPU time of the full import (in one process: the switches are patches) with
    one piece of the archive's work switched off at a time (the archive is then
    wrong: this only weighs the pieces)."""
    import partita.bulk.importer as importer
    import partita.database.prepare as prepare
    from partita.notation.replay import ReplayedRecord

    def full() -> object:
        # The key folders are cached across imports.
        prepare.archive_folder.cache_clear()
        prepare._RECORD_FOLDERS.clear()
        return import_into(fresh_db(work / "ablation.db"), [corpus], workers=1)

    results = [("full import", best_of(repeat, full)[1])]
    switches = {
        "canonical writer (raw text stored instead)": (
            prepare,
            "stored_text",
            lambda replayed: replayed.record.text + "\n",
        ),
        "positions inserts (INSERT ... SELECT from json_each)": (
            importer.ArchiveWriter,
            "_insert_positions",
            lambda self, *rows: None,
        ),
        "final position notation": (
            ReplayedRecord,
            "final_position",
            property(lambda self: None),
        ),
    }
    for label, (owner, name, stand_in) in switches.items():
        original = owner.__dict__[name]
        setattr(owner, name, stand_in)
        try:
            results.append((f"without {label}", best_of(repeat, full)[1]))
        finally:
            setattr(owner, name, original)
    gc.disable()
    try:
        results.append(("without the cyclic garbage collector", best_of(repeat, full)[1]))
    finally:
        gc.enable()
    return results


# -- layouts -------------------------------------------------------------------------------------------

_KEY_FIRST = "PRIMARY KEY (key, game_id, ply)) WITHOUT ROWID"
_GAME_FIRST = "PRIMARY KEY (game_id, ply)) WITHOUT ROWID"
_COLUMNS = "key INTEGER NOT NULL, game_id INTEGER NOT NULL, ply INTEGER NOT NULL"
_MOVES = ", move TEXT NOT NULL, next_move TEXT"
_BY_KEY = "CREATE INDEX positions_key ON positions (key)"
_BY_GAME = "CREATE INDEX positions_game ON positions (game_id, ply)"

#: name: (CREATE TABLE, extra indexes, sort rows by key per batch, with the moves)
LAYOUTS = {
    "chosen: WITHOUT ROWID, PK (key, game_id, ply), sorted": (
        f"CREATE TABLE positions ({_COLUMNS}{_MOVES}, {_KEY_FIRST}",
        (),
        True,
        True,
    ),
    "same, rows in game order (unsorted)": (
        f"CREATE TABLE positions ({_COLUMNS}{_MOVES}, {_KEY_FIRST}",
        (),
        False,
        True,
    ),
    "same, next_move only (no move)": (
        f"CREATE TABLE positions ({_COLUMNS}, next_move TEXT, {_KEY_FIRST}",
        (),
        True,
        "next",
    ),
    "same, without move and next_move": (
        f"CREATE TABLE positions ({_COLUMNS}, {_KEY_FIRST}",
        (),
        True,
        False,
    ),
    "WITHOUT ROWID, PK (game_id, ply) + index (key)": (
        f"CREATE TABLE positions ({_COLUMNS}{_MOVES}, {_GAME_FIRST}",
        (_BY_KEY,),
        False,
        True,
    ),
    "rowid table + index (key)": (
        f"CREATE TABLE positions ({_COLUMNS}{_MOVES})",
        (_BY_KEY,),
        False,
        True,
    ),
    "rowid table + index (key) + index (game_id, ply)": (
        f"CREATE TABLE positions ({_COLUMNS}{_MOVES})",
        (_BY_KEY, _BY_GAME),
        False,
        True,
    ),
}


def _position_rows(archive_path: Path) -> list[list[tuple]]:
    """The positions rows of an imported archive, batched as the importer batches."""
    connection = sqlite3.connect(archive_path)
    rows = connection.execute(
        "SELECT key, game_id, ply, move, next_move FROM positions ORDER BY game_id, ply"
    ).fetchall()
    connection.close()
    batches: list[list[tuple]] = []
    current: list[tuple] = []
    last_game = None
    games = 0
    for row in rows:
        if row[1] != last_game:
            last_game = row[1]
            games += 1
            if games > 1 and (games - 1) % 1000 == 0:
                batches.append(current)
                current = []
        current.append(row)
    batches.append(current)
    return batches


def measure_layouts(archive_path: Path, work: Path, scale: int) -> list[dict]:
    """Insert the corpus's positions rows (``scale`` copies, as more games) into each
    layout; rows/s (CPU time), bytes per row, and a position lookup's time."""
    base = _position_rows(archive_path)
    games = max(row[1] for batch in base for row in batch)
    probe_keys = [batch[len(batch) // 2][0] for batch in base]
    results = []
    configurations = [(name, *spec, ("WAL", "NORMAL")) for name, spec in LAYOUTS.items()]
    chosen = next(iter(LAYOUTS))
    configurations += [
        ("chosen; journal DELETE, synchronous FULL", *LAYOUTS[chosen], ("DELETE", "FULL")),
        ("chosen; WAL, synchronous OFF", *LAYOUTS[chosen], ("WAL", "OFF")),
    ]
    for name, create, indexes, sort, with_moves, (journal, synchronous) in configurations:
        path = fresh_db(work / "layout.db")
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute(f"PRAGMA journal_mode={journal}")
        connection.execute(f"PRAGMA synchronous={synchronous}")
        connection.execute(create)
        for index in indexes:
            connection.execute(index)
        if with_moves == "next":
            sql = "INSERT INTO positions (key, game_id, ply, next_move) VALUES (?, ?, ?, ?)"
        elif with_moves:
            sql = (
                "INSERT INTO positions (key, game_id, ply, move, next_move) VALUES (?, ?, ?, ?, ?)"
            )
        else:
            sql = "INSERT INTO positions (key, game_id, ply) VALUES (?, ?, ?)"
        count = 0
        cpu = wall = 0.0
        for copy in range(scale):
            offset = copy * games
            for batch in base:
                rows = [(row[0], row[1] + offset, *row[2:]) for row in batch]
                if with_moves == "next":
                    rows = [(*row[:3], row[4]) for row in rows]
                elif not with_moves:
                    rows = [row[:3] for row in rows]
                start, start_cpu = time.perf_counter(), time.process_time()
                if sort:
                    rows.sort(key=lambda row: row[0])
                connection.execute("BEGIN IMMEDIATE")
                connection.executemany(sql, rows)
                connection.execute("COMMIT")
                wall += time.perf_counter() - start
                cpu += time.process_time() - start_cpu
                count += len(rows)
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = path.stat().st_size
        lookup = "SELECT game_id, min(ply) FROM positions WHERE key = ? GROUP BY game_id"
        start = time.perf_counter()
        for key in probe_keys * 20:
            connection.execute(lookup, (key,)).fetchall()
        lookup_us = (time.perf_counter() - start) / (len(probe_keys) * 20) * 1e6
        plan = connection.execute(f"EXPLAIN QUERY PLAN {lookup}", (0,)).fetchall()
        connection.close()
        results.append(
            {
                "layout": name,
                "rows": count,
                "rows_per_s": count / cpu,
                "rows_per_s_wall": count / wall,
                "bytes_per_row": size / count,
                "lookup_us": lookup_us,
                "plan": "; ".join(row[-1] for row in plan),
            }
        )
    results.append(measure_insert_all(base, games, work, scale))
    return results


def measure_insert_all(base: list[list[tuple]], games: int, work: Path, scale: int) -> dict:
    """sqlite-utils ``insert_all`` into the chosen layout, for comparison."""
    from sqlite_utils import Database

    path = fresh_db(work / "layout.db")
    db = Database(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(LAYOUTS[next(iter(LAYOUTS))][0])
    names = ("key", "game_id", "ply", "move", "next_move")
    count = 0
    cpu = wall = 0.0
    for batch in base:
        start, start_cpu = time.perf_counter(), time.process_time()
        rows = sorted(batch, key=lambda row: row[0])
        with db.atomic():
            db["positions"].insert_all(
                (dict(zip(names, row, strict=True)) for row in rows), batch_size=1000
            )
        wall += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        count += len(rows)
    db.close()
    return {
        "layout": "chosen, written with sqlite-utils insert_all",
        "rows": count,
        "rows_per_s": count / cpu,
        "rows_per_s_wall": count / wall,
        "bytes_per_row": path.stat().st_size / count,
        "lookup_us": float("nan"),
        "plan": "",
    }


#: Corpus sizes of ``--crossover`` (300 to 100,000 games).
CROSSOVER_GAMES = (300, 1_000, 3_000, 10_000, 30_000)


def measure_crossover(work: Path, seed: int, repeat: int) -> list[dict]:
    """The full import at each of :data:`CROSSOVER_GAMES` in one process and in two,
    A/B interleaved run by run (so that the machine's load weighs on both alike),
    with the load average around each size: where a second process starts to pay,
    the measurement behind ``FORK_PARALLEL_MIN_BYTES`` and ``auto_workers``. The
    workers start as the CLI's import starts them (forked where that is safe)."""
    results = []
    for games in CROSSOVER_GAMES:
        corpus = work / f"forza-{games}-{seed}-small"
        if not corpus.exists():
            write_forza_corpus(corpus, games, seed=seed)
        size = sum(file.stat().st_size for file in expand_paths([corpus]))
        load_before = os.getloadavg()[0]
        walls: dict[int, float] = {1: float("inf"), 2: float("inf")}
        cpus: dict[int, float] = {1: float("inf"), 2: float("inf")}
        for _ in range(repeat):
            for count in (1, 2):
                wall, cpu, _ = best_of(
                    1,
                    lambda count=count, corpus=corpus: import_into(
                        fresh_db(work / "crossover.db"),
                        [corpus],
                        workers=count,
                        fork_workers=True,
                    ),
                )
                walls[count] = min(walls[count], wall)
                cpus[count] = min(cpus[count], cpu)
        results.append(
            {
                "games": games,
                "bytes": size,
                "wall": walls,
                "cpu": cpus,
                "load": (load_before, os.getloadavg()[0]),
            }
        )
    return results


def measure_batch_sizes(corpus: Path, work: Path, repeat: int) -> list[tuple[int, float, int]]:
    """Full import time by batch size (in one process)."""
    results = []
    for size in (50, 200, 1000, 5000):
        _, cpu, summary = best_of(
            repeat,
            lambda size=size: import_into(
                fresh_db(work / "batch.db"), [corpus], batch_size=size, workers=1
            ),
        )
        results.append((size, cpu, summary.plies))
    return results


# -- main -----------------------------------------------------------------------------------------


# -- the fast path against the full path ------------------------------------------------------

FULL_PATH = "PARTITA_FULL_PATH"  # partita.bulk.prepare.FULL_PATH_VARIABLE


def _with_path(full: bool, run: Callable[[], object]) -> Callable[[], object]:
    """``run`` with the fast path off (``full``) or on; worker processes and the CLI
    inherit the setting through the environment."""

    def switched() -> object:
        previous = os.environ.get(FULL_PATH)
        os.environ[FULL_PATH] = "1" if full else "0"
        try:
            return run()
        finally:
            if previous is None:
                del os.environ[FULL_PATH]
            else:
                os.environ[FULL_PATH] = previous

    return switched


def alternate(repeat: int, runs: dict[str, Callable[[], object]]) -> dict[str, dict]:
    """The best wall and CPU time of each of ``runs`` over ``repeat`` rounds, the
    runs alternating within a round (so a change of load hits both), and each
    run's last value."""
    best: dict[str, dict] = {name: {"wall": float("inf"), "cpu": float("inf")} for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            wall, cpu, value = best_of(1, run)
            best[name]["wall"] = min(best[name]["wall"], wall)
            best[name]["cpu"] = min(best[name]["cpu"], cpu)
            best[name]["value"] = value
    return best


def measure_fast_path(
    corpus: Path, work: Path, repeat: int, sizes: list[int], seed: int, base: int
) -> dict:
    """The import's fast path (:mod:`partita.bulk.prepare`) against the full
    path (``PARTITA_FULL_PATH=1``), A/B in one run, alternating: the CPU per ply of
    ``prepare_chunk`` over the corpus's chunks (the work of a worker process), the
    full import in one process and with the default workers, and the CLI end to
    end against python-chess at ``sizes`` games (:mod:`import_scaling`; corpora cut
    from the seeded corpus of ``base`` records)."""
    from partita.bulk.chunks import CHUNK_BYTES, chunks
    from partita.bulk.prepare import prepare_chunk

    data = [chunk.data for chunk in chunks(expand_paths([corpus]), False, CHUNK_BYTES)]

    def prepare() -> list:
        return [stored for item in data for stored in prepare_chunk(item)]

    figures: dict = {}
    prepared = alternate(
        repeat, {"full": _with_path(True, prepare), "fast": _with_path(False, prepare)}
    )
    assert prepared["full"].pop("value") == prepared["fast"].pop("value"), "fast != full"
    fast_rows = _with_path(False, prepare)()
    plies = sum(len(stored.moves) for stored in fast_rows)
    from partita.bulk.chunks import raw_records
    from partita.bulk.prepare import fast_prepare

    taken = sum(fast_prepare(raw, False) is not None for item in data for raw in raw_records(item))
    figures["prepare_chunk"] = {
        **prepared,
        "plies": plies,
        "records": len(fast_rows),
        "fast_records": taken,
    }
    for label, workers in (("workers=1", 1), ("workers=auto", None)):

        def run(workers: int | None = workers) -> object:
            return import_into(fresh_db(work / "ab.db"), [corpus], workers=workers)

        result = alternate(repeat, {"full": _with_path(True, run), "fast": _with_path(False, run)})
        for side in ("full", "fast"):
            assert result[side].pop("value").plies == plies
        figures[label] = result
    if sizes:
        import import_scaling

        runs = {
            side: _with_path(
                side == "full",
                lambda: import_scaling.measure_end_to_end(work, sizes, seed, base),
            )
            for side in ("full", "fast")
        }
        ends: dict[str, list[list[dict]]] = {"full": [], "fast": []}
        for _ in range(repeat):
            for side, run in runs.items():
                ends[side].append(run())  # type: ignore[arg-type]
        # Best of the rounds, each side's import against the best python-chess run
        # of all rounds (both sides ran it: the same reader on the same files).
        best_ends: dict[str, list[dict]] = {"full": [], "fast": []}
        for i in range(len(sizes)):
            chess_wall = min(rounds[i]["chess_wall"] for side in ends for rounds in ends[side])
            chess_cpu = min(rounds[i]["chess_cpu"] for side in ends for rounds in ends[side])
            for side, results in ends.items():
                item = dict(min((rounds[i] for rounds in results), key=_partita_wall))
                item["partita_cpu"] = min(rounds[i]["partita_cpu"] for rounds in results)
                item["chess_wall"] = chess_wall
                item["chess_cpu"] = chess_cpu
                item["chess_plies_per_s"] = item["chess_plies"] / chess_wall
                item["ratio"] = item["partita_plies_per_s"] / item["chess_plies_per_s"]
                item["ratio_cpu"] = (item["plies"] / item["partita_cpu"]) / (
                    item["chess_plies"] / chess_cpu
                )
                best_ends[side].append(item)
        figures["end_to_end"] = best_ends
    return figures


def _partita_wall(item: dict) -> float:
    return item["partita_wall"]


# -- the compiled gravity key replay against the Python loop ---------------------------------


def _with_replay(native: bool, run: Callable[[], object]) -> Callable[[], object]:
    """``run`` with the compiled key replay on (``native``) or the Python loop forced
    (:mod:`partita.games.gravity.native_replay`: its flag here, its environment
    variable for any child process)."""
    from partita.games.gravity import native_replay

    def switched() -> object:
        variable = native_replay.PYTHON_REPLAY_VARIABLE
        previous, before = os.environ.get(variable), native_replay.enabled
        os.environ[variable] = "0" if native else "1"
        native_replay.enabled = native and native_replay.available
        try:
            return run()
        finally:
            native_replay.enabled = before
            if previous is None:
                del os.environ[variable]
            else:
                os.environ[variable] = previous

    return switched


def measure_native_replay(corpus: Path, work: Path, repeat: int) -> dict:
    """The compiled gravity key replay against the forced Python loop, A/B in one
    run, alternating: the gravity games' ``fast_replay`` alone over the plain records' move lists, the
    CPU per ply of ``prepare_chunk`` over the corpus's chunks (a worker's work) and a
    one-process import."""
    from partita.bulk.chunks import CHUNK_BYTES, chunks, raw_records
    from partita.bulk.plain import replay_raw
    from partita.bulk.prepare import prepare_chunk
    from partita.games.gravity import native_replay
    from partita.games.gravity.native_replay import fast_replay
    from partita.games.gravity.notation import FORZA4X4

    if not native_replay.available:
        raise SystemExit("the compiled core is not built: nothing to compare")
    data = [chunk.data for chunk in chunks(expand_paths([corpus]), False, CHUNK_BYTES)]
    lines = []
    for item in data:
        for raw in raw_records(item):
            plain = replay_raw(raw, False, text=False)
            if plain is not None:
                lines.append(plain[0].moves)
    start = FORZA4X4.rules.initial()
    replay_keys = fast_replay(FORZA4X4)

    def replay_lines() -> list:
        return [replay_keys(start, line) for line in lines]

    def prepare() -> list:
        return [stored for item in data for stored in prepare_chunk(item)]

    def one_process() -> object:
        return import_into(fresh_db(work / "native.db"), [corpus], workers=1)

    figures: dict = {"lines": len(lines), "line_plies": sum(map(len, lines))}
    for label, run in (
        ("replay_keys", replay_lines),
        ("prepare_chunk", prepare),
        ("workers=1", one_process),
    ):
        figures[label] = _both_orders(
            repeat, {"python": _with_replay(False, run), "native": _with_replay(True, run)}
        )
    figures["plies"] = sum(len(stored.moves) for stored in prepare())
    # Key folding in the same C call (hashlib's blake2b called from C) against the
    # compiled replay's keys folded by keys.key_folder, as prepare_record folds them.
    from hashlib import blake2b

    from partita.database.keys import key_folder

    replay = native_replay.native_replay(8, 8, "tblr", 4)
    assert replay is not None
    board = bytes(16)
    fold = key_folder("forza4x4")
    copy = blake2b(b"forza4x4\x00", digest_size=8).copy

    def fold_in_python() -> list:
        folded = []
        for line in lines:
            replayed = replay.keys(board, 0, line)
            assert replayed is not None
            folded.append([fold(key) for key in replayed[0]])
        return folded

    def fold_in_c() -> list:
        folded = []
        for line in lines:
            replayed = replay.keys(board, 0, line, copy)
            assert replayed is not None
            folded.append(replayed[0])
        return folded

    figures["folding"] = _both_orders(repeat, {"python": fold_in_python, "native": fold_in_c})
    return figures


def _both_orders(repeat: int, runs: dict[str, Callable[[], object]]) -> dict[str, dict]:
    """:func:`alternate` with the order of the runs swapped every other round (a
    load that changes within a round hits each side first as often): the best and
    the median CPU of each, and the median over the rounds of the first run's CPU
    over each other's in the same round (the figure a drifting load disturbs
    least); the runs must give equal values."""
    cpus: dict[str, list[float]] = {name: [] for name in runs}
    walls: dict[str, list[float]] = {name: [] for name in runs}
    values = {}
    for round_number in range(repeat):
        names = list(runs) if round_number % 2 == 0 else list(reversed(runs))
        for name in names:
            wall, cpu, values[name] = best_of(1, runs[name])
            cpus[name].append(cpu)
            walls[name].append(wall)
    first, *others = values.values()
    kept = first.plies if hasattr(first, "plies") else first
    for other in others:
        assert (other.plies if hasattr(other, "plies") else other) == kept, "the sides differ"
    base = next(iter(runs))
    return {
        name: {
            "cpu": min(cpus[name]),
            "cpu_median": sorted(cpus[name])[len(cpus[name]) // 2],
            "wall": min(walls[name]),
            "paired_ratio": sorted(
                ours / theirs if theirs else float("inf")
                for ours, theirs in zip(cpus[base], cpus[name], strict=True)
            )[repeat // 2],
        }
        for name in runs
    }


def print_native_replay(figures: dict) -> None:
    print(f"\ncompiled key replay against the Python loop (A/B, alternating, order swapped "
          "every other round; speed-up of the best, and the median of the paired ratios): "
          f"{figures['lines']:,} plain records ({figures['line_plies']:,} plies) for "
          f"replay_keys, {figures['plies']:,} plies in all")  # fmt: skip
    print(f"{'CPU, best (median)':<34}{'python s':>15}{'native s':>15}{'us/ply py':>15}"
          f"{'us/ply nat':>15}{'saved/ply':>10}{'speed-up':>10}{'paired':>10}")  # fmt: skip
    for label, key, plies in (
        ("replay_keys alone", "replay_keys", figures["line_plies"]),
        ("prepare_chunk (a worker's work)", "prepare_chunk", figures["plies"]),
        ("full import, workers=1", "workers=1", figures["plies"]),
        ("compiled replay + fold: py / C", "folding", figures["line_plies"]),
    ):
        python, native = figures[key]["python"], figures[key]["native"]
        cells = []
        for side in (python, native):
            cells.append(f"{side['cpu']:.2f} ({side['cpu_median']:.2f})")
        for side in (python, native):
            cells.append(
                f"{side['cpu'] / plies * 1e6:.2f} ({side['cpu_median'] / plies * 1e6:.2f})"
            )
        saved = (python["cpu"] - native["cpu"]) / plies * 1e6
        print(f"{label:<34}" + "".join(f"{cell:>15}" for cell in cells)
              + f"{saved:>10.2f}{python['cpu'] / native['cpu']:>9.2f}x"
              f"{native['paired_ratio']:>9.2f}x")  # fmt: skip


def print_fast_path(figures: dict) -> None:
    prepared = figures["prepare_chunk"]
    plies = prepared["plies"]
    print(f"\nfast path against full path (A/B, alternating, best of each): "
          f"{prepared['records']:,} records, {plies:,} plies, "
          f"{prepared['fast_records']:,} records plain (fast path)")  # fmt: skip
    print(f"{'':<34}{'full cpu s':>11}{'fast cpu s':>11}{'us/ply full':>12}"
          f"{'us/ply fast':>12}{'speed-up':>10}{'wall x':>8}")  # fmt: skip
    for label, key in (
        ("prepare_chunk (a worker's work)", "prepare_chunk"),
        ("full import, workers=1", "workers=1"),
        ("full import, workers=auto", "workers=auto"),
    ):
        item = figures[key]
        full, fast = item["full"], item["fast"]
        print(f"{label:<34}{full['cpu']:>11.2f}{fast['cpu']:>11.2f}"
              f"{full['cpu'] / plies * 1e6:>12.2f}{fast['cpu'] / plies * 1e6:>12.2f}"
              f"{full['cpu'] / fast['cpu']:>9.2f}x{full['wall'] / fast['wall']:>7.2f}x")  # fmt: skip
    ends = figures.get("end_to_end")
    if ends:
        print("CLI end to end against python-chess read_game (fresh processes, best of "
              "the rounds; ratio = partita plies/s over python-chess plies/s):")  # fmt: skip
        print(f"{'games':>9}{'':>3}{'wall s':>8}{'cpu s':>7}{'ratio wall':>11}{'ratio cpu':>10}"
              f"   python-chess wall, cpu")  # fmt: skip
        for full, fast in zip(ends["full"], ends["fast"], strict=True):
            for side, item in (("full", full), ("fast", fast)):
                print(f"{item['games']:>9,} {side:<4}{item['partita_wall']:>7.2f}"
                      f"{item['partita_cpu']:>7.2f}{item['ratio']:>10.2f}x"
                      f"{item['ratio_cpu']:>9.2f}x   {item['chess_wall']:.2f}s, "
                      f"{item['chess_cpu']:.2f}s")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--stages",
        action="store_true",
        help="the in-process stages (and --profile, --ablate, --layouts, --crossover) "
        "instead of the default end-to-end and storage scaling run",
    )
    parser.add_argument(
        "--big",
        action="store_true",
        help="also storage at 10,000, 100,000 and 1,000,000 games from prepared rows "
        "(storage_scaling.py; about 4 GB of disk while it runs)",
    )
    parser.add_argument(
        "--no-storage",
        action="store_true",
        help="the end-to-end comparison only (storage_scaling.py measures storage from "
        "prepared rows)",
    )
    parser.add_argument("--games", type=int, default=10_000, help="Forza 4x4 records")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best kept)")
    parser.add_argument("--workdir", type=Path, help="keep corpora and archives here")
    parser.add_argument("--profile", action="store_true", help="profile the full import")
    parser.add_argument("--layouts", action="store_true", help="measure row layouts, pragmas")
    parser.add_argument("--ablate", action="store_true", help="weigh the archive's pieces")
    parser.add_argument(
        "--crossover", action="store_true", help="one process against several, small inputs"
    )
    parser.add_argument("--layout-scale", type=int, default=1, help="copies of the rows")
    parser.add_argument("--no-chess", action="store_true", help="skip python-chess")
    parser.add_argument(
        "--no-compile",
        action="store_true",
        help="end to end: run partita as configured, without compiling its modules into "
        "__pycache__ first (an editable install under PYTHONDONTWRITEBYTECODE=1 then "
        "compiles them from source on every run)",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the memory runs")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--full-path",
        action="store_true",
        help="with --stages: the import's fast path against the full path, A/B "
        "(instead of the stages)",
    )
    parser.add_argument(
        "--native",
        action="store_true",
        help="with --stages: the compiled gravity key replay against the forced Python "
        "loop, A/B (instead of the stages)",
    )
    parser.add_argument(
        "--end-to-end",
        default="300,3000",
        help="with --full-path: CLI end-to-end sizes (games, comma-separated; '' for none)",
    )
    parser.add_argument(
        "--workers",
        default="",
        help="also time the full import with these worker counts (comma-separated)",
    )
    args = parser.parse_args(argv)

    temporary = None
    if args.workdir is None:
        temporary = tempfile.TemporaryDirectory(prefix="partita-bench-")
        work = Path(temporary.name)
    else:
        work = args.workdir
        work.mkdir(parents=True, exist_ok=True)
    figures: dict = {"games": args.games, "seed": args.seed}
    if not args.stages:
        import import_scaling

        try:
            figures = import_scaling.main(
                work, args.seed, args.big, not args.no_storage, not args.no_compile
            )
        finally:
            if temporary is not None:
                temporary.cleanup()
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2, default=str), encoding="utf-8")
        return 0
    try:
        corpus = work / f"forza-{args.games}-{args.seed}"
        if not corpus.exists():
            start = time.perf_counter()
            write_forza_corpus(corpus, args.games, seed=args.seed)
            print(f"corpus: {args.games:,} Forza 4x4 records written in "
                  f"{time.perf_counter() - start:.1f}s to {corpus}")  # fmt: skip
        if args.native:  # the A/B alone, instead of the stages
            native = measure_native_replay(corpus, work, args.repeat)
            figures["native_replay"] = native
            print_native_replay(native)
            if args.json:
                args.json.write_text(json.dumps(figures, indent=2, default=str), "utf-8")
            return 0
        if args.full_path:  # the A/B alone, instead of the stages
            sizes = [int(size) for size in args.end_to_end.split(",") if size.strip()]
            fast_path = measure_fast_path(corpus, work, args.repeat, sizes, args.seed, args.games)
            figures["fast_path"] = fast_path
            print_fast_path(fast_path)
            if args.json:
                args.json.write_text(json.dumps(figures, indent=2, default=str), "utf-8")
            return 0
        counts = [int(count) for count in args.workers.split(",") if count.strip()]
        stages = measure_stages(corpus, work, args.repeat, counts)
        figures["stages"] = stages
        records, plies = stages["records"], stages["plies"]
        print(f"\nForza 4x4: {records:,} records, {plies:,} plies, "
              f"{stages['bytes'] / 1e6:.1f} MB (best of {args.repeat} runs; a stage "
              "marked + is what it adds to the stages above it, streamed)")  # fmt: skip
        print(f"{'stage':<34}{'wall s':>8}{'cpu s':>8}{'records/s':>11}{'plies/s':>11}"
              f"{'plies/s (cpu)':>15}")  # fmt: skip
        labels = {
            "parse": "parse (reader)",
            "replay": "+ replay (rules)",
            "store": "+ store (writer, rows, SQLite)",
            "store_canonical_writer": "  of which the canonical writer",
            "store_archive": "  of which the archive",
            "full": "full import, workers=1",
            "parallel": f"full import, workers=auto ({stages['auto_workers']})",
            **{f"workers={count}": f"full import, workers={count}" for count in counts},
        }
        for key, label in labels.items():
            wall, cpu = stages["seconds"][key]["wall"], stages["seconds"][key]["cpu"]
            print(f"{label:<34}{wall:>8.2f}{cpu:>8.2f}{rate(records, wall)} "
                  f"{rate(plies, wall)}     {rate(plies, cpu)}")  # fmt: skip
        print("(the cpu of an import with workers counts every process)")

        if not args.no_chess:
            chess_path = work / f"chess-{plies}-{args.seed}.pgn"
            if not chess_path.exists():
                start = time.perf_counter()
                games, chess_plies = write_chess_corpus(chess_path, plies, seed=args.seed)
                print(f"\nchess corpus: {games:,} random games, {chess_plies:,} plies, "
                      f"written in {time.perf_counter() - start:.1f}s")  # fmt: skip
            chess = measure_chess(chess_path, args.repeat)
            figures["python_chess"] = chess
            wall, cpu = chess["seconds"]["wall"], chess["seconds"]["cpu"]
            print(f"\npython-chess read_game: {chess['records']:,} games, {chess['plies']:,} "
                  f"plies in {wall:.2f}s wall, {cpu:.2f}s cpu: {rate(chess['plies'], wall).strip()}"
                  f" plies/s ({rate(chess['plies'], cpu).strip()} cpu)")  # fmt: skip
            figures["ratio"] = {}
            for key in ("full", "parallel", *(f"workers={count}" for count in counts)):
                ratio = {
                    clock: (plies / stages["seconds"][key][clock])
                    / (chess["plies"] / chess["seconds"][clock])
                    for clock in ("wall", "cpu")
                }
                figures["ratio"][key] = ratio
                print(f"ratio, {labels[key]} / python-chess read: {ratio['wall']:.2f}x wall, "
                      f"{ratio['cpu']:.2f}x cpu (target 5x)")  # fmt: skip

        if not args.no_memory:
            # One file each: memory must stay flat however many records a file holds.
            memory = []
            for workers in ("1", "2"):
                for count in (args.games // 4, args.games):
                    single = work / f"forza-{count}-{args.seed}-one-file"
                    if not single.exists():
                        write_forza_corpus(single, count, seed=args.seed, files=1)
                    memory.append(measure_memory(single, work, workers))
            figures["memory"] = memory
            print("\npeak memory of the full import (fresh process each):")
            for item in memory:
                workers = ""
                if item["workers"] != "1":
                    workers = f", largest worker {item['worker_peak_rss'] / 1e6:6.1f} MB"
                print(f"  workers={item['workers']:<4} {item['records']:>7,} records: "
                      f"tracemalloc peak {item['traced_peak'] / 1e6:6.1f} MB, peak RSS "
                      f"{item['peak_rss'] / 1e6:6.1f} MB{workers}")  # fmt: skip

        if args.profile:
            profile = profile_import(corpus, work)
            figures["profile"] = {"total": profile["total"], "parts": profile["parts"]}
            print(f"\nprofile of the full import (cProfile, {profile['total']:.2f}s in total):")
            for name, seconds in profile["parts"].items():
                print(f"  {name:<40}{seconds:>7.2f}s {100 * seconds / profile['total']:5.1f}%")
            print(profile["top"])

        if args.ablate:
            ablation = measure_ablation(corpus, work, args.repeat)
            figures["ablation"] = ablation
            base = ablation[0][1]
            print("\nfull import with one piece switched off (cpu):")
            for label, seconds in ablation:
                print(f"  {seconds:6.2f}s ({seconds - base:+.2f}s)  {label}")

        if args.crossover:
            crossover = measure_crossover(work, args.seed, args.repeat)
            figures["crossover"] = crossover
            print(f"\none process against two (wall and cpu, best of {args.repeat}, "
                  "interleaved; 1-min load before and after):")  # fmt: skip
            for item in crossover:
                one, two = item["wall"][1], item["wall"][2]
                print(f"  {item['games']:>6,} games {item['bytes'] / 1e6:5.2f} MB: workers=1 "
                      f"{one:.3f}s ({item['cpu'][1]:.3f} cpu), workers=2 {two:.3f}s "
                      f"({item['cpu'][2]:.3f} cpu): {one / two:.2f}x, load "
                      f"{item['load'][0]:.1f}-{item['load'][1]:.1f}")  # fmt: skip

        if args.layouts:
            layouts = measure_layouts(work / "full.db", work, args.layout_scale)
            figures["layouts"] = layouts
            print(f"\npositions layouts ({layouts[0]['rows']:,} rows, batches of 1,000 games):")
            for item in layouts:
                print(f"  {item['rows_per_s']:>9,.0f} rows/s cpu {item['rows_per_s_wall']:>9,.0f} wall "
                      f"{item['bytes_per_row']:5.1f} B/row {item['lookup_us']:6.1f} us/lookup  "
                      f"{item['layout']}")  # fmt: skip
            batches = measure_batch_sizes(corpus, work, args.repeat)
            figures["batch_sizes"] = batches
            print("\nfull import by batch size (cpu):")
            for size, seconds, count in batches:
                print(f"  {size:>5} records/batch: {seconds:6.2f}s {rate(count, seconds)} plies/s")
    finally:
        if temporary is not None:
            temporary.cleanup()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
