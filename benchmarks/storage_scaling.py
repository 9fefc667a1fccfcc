"""Storage per ply at 10,000, 100,000 and 1,000,000 archived games, from prepared rows.

Run from the repository root::

    nice -n 10 .venv/bin/python benchmarks/storage_scaling.py [--sizes 10000,100000,1000000]
        [--base 10000] [--workdir DIR] [--keep-heap] [--no-bracket]

Writing a million-game corpus and reading it back takes hours on a small machine,
and only the archive's side is measured here, so the records are read, replayed and
turned into rows once (:func:`~partita.database.prepare.prepare_record`, ``--base``
records of the seeded Forza 4x4 corpus), and the archive gets copies of them: copy
``c`` of a record has the sha256 of ``c`` and its content hash as its hash (as
random as a real one; an earlier version made a copy's hash the original prefixed with
``c``, which kept the hash index's inserts in order) and each position key
XORed with a random 64-bit number of its own (so keys stay spread over the whole
range, as folded keys are), everything else as prepared. Each size is a fresh
process that imports its copies the way ``import_paths`` does into a new archive:
bulk mode, batches from :func:`~partita.bulk.importer.batch_limit`, the import's
cache and checkpoint settings, :func:`~partita.database.indexed.finish_loading` at
the end. It times what ``benchmarks/import_scaling.py`` calls storage (the
writer's batches and the final sort, wall and CPU), and the bytes the process wrote
(``/proc/self/io``), per ply; the archive is deleted after each size.
The first size is the base: it runs again after each larger size (``--no-bracket``:
not), and each larger size's time per ply is compared with the mean of the base
runs just before and after it, side by side, as the machine's speed drifts (the
10,000-game figure moved by a quarter from one day to the next, ±2.5% within one run).
``--keep-heap`` stops each size before the final sort and keeps its archive
(``storage-N.db``, its positions in ``game_positions`` only, the mark set).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PROBE = """
import json, os, pickle, random, sys, time
from hashlib import sha256
from partita.bulk import importer
from partita.database.archive_writer import ArchiveWriter
from partita.bulk.importer import _tuned_for_import, batch_limit
from partita.database.indexed import finish_loading
from partita.database.schema import archive

def write_bytes():
    with open("/proc/self/io") as io:
        for line in io:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    return 0

if os.environ.get("PARTITA_IMPORT_CACHE_KIB"):  # --cache-kib: another page cache
    importer.IMPORT_CACHE_KIB = int(os.environ["PARTITA_IMPORT_CACHE_KIB"])
    importer.BULK_CACHE_KIB = importer.IMPORT_CACHE_KIB
set_bulk_cache = getattr(importer, "set_bulk_cache", lambda conn, stored: None)  # older trees
database, rows_path, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
keep_heap = sys.argv[4] == "keep"
with open(rows_path, "rb") as handle:
    base = pickle.load(handle)
HASH = 20  # the games row's content hash (see prepare_record)
rng = random.Random(16)
spent = {"wall": 0.0, "cpu": 0.0, "final_sort": 0.0, "final_sort_cpu": 0.0}

def timed(run, final=False):
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    spent["wall"] += time.perf_counter() - wall
    spent["cpu"] += time.process_time() - cpu
    if final:
        spent["final_sort"] += time.perf_counter() - wall
        spent["final_sort_cpu"] += time.process_time() - cpu

before = write_bytes()
start = time.perf_counter()
with archive(database) as db, _tuned_for_import(db.conn):
    writer = ArchiveWriter(db, bulk=True)
    limit = batch_limit(None, 0)
    set_bulk_cache(db.conn, 0)
    copy = -1
    for number in range(games):
        index = number % len(base)
        if index == 0:
            copy += 1
            mask = rng.getrandbits(64) - (1 << 63)
        item = base[index]
        # A copy's hash as random as a real one (not the original with a prefix,
        # which would put each copy's hashes in one run of the hash index).
        digest = sha256(f"{copy}/{item.hash}".encode()).hexdigest() if copy else item.hash
        game = (*item.game[:HASH], digest, *item.game[HASH + 1 :])
        keys = [key ^ mask for key in item.keys] if copy else item.keys
        variations = (
            [variation._replace(keys=[key ^ mask for key in variation.keys])
             for variation in item.variations]
            if copy else item.variations
        )
        record = item._replace(hash=digest, game=game, keys=keys, variations=variations)
        # Timed: a bulk writer writes its batch in pieces as records arrive.
        timed(lambda: writer.add_prepared(record))
        if writer.pending >= limit:
            timed(writer.flush)
            limit = batch_limit(None, writer.summary.imported)
            set_bulk_cache(db.conn, writer.summary.imported)
    timed(writer.flush)
    if not keep_heap:
        timed(lambda: finish_loading(db.conn), final=True)
    summary = writer.summary
wall = time.perf_counter() - start
written = write_bytes() - before
status = open("/proc/self/status").read().split("VmHWM:")[1].split()
print(json.dumps({"games": summary.imported, "plies": summary.plies, "wall": wall,
                  "storage": spent, "written": written, "peak_rss": int(status[0]) * 1024,
                  "size": os.path.getsize(database)}))
"""


def prepared_rows(work: Path, games: int, seed: int) -> Path:
    """The prepared records of the first ``games`` records of the seeded corpus,
    pickled (made once)."""
    import import_scaling

    from partita.database.prepare import prepare_record
    from partita.notation.files import expand_paths
    from partita.notation.reader import read_records
    from partita.notation.replay import replay

    target = work / f"prepared-{games}-{seed}.pickle"
    if target.exists():
        return target
    corpus = import_scaling.forza_corpus(work, games, seed, base=games)
    prepared = [
        prepare_record(replay(record), False)
        for path in expand_paths([corpus])
        for record in read_records(path)
    ]
    target.write_bytes(pickle.dumps(prepared, protocol=pickle.HIGHEST_PROTOCOL))
    return target


def _fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def run_order(sizes: list[int], bracket: bool) -> list[int]:
    """The sizes in the order they run: with ``bracket``, the first (the base) again
    after each larger one, so that each is compared with the base runs just before
    and after it (the machine's speed drifts by a quarter from one day to the next, and a
    million-game run takes minutes)."""
    if not bracket or len(sizes) < 2:
        return sizes
    base, order = sizes[0], [sizes[0]]
    for games in sizes[1:]:
        order += [games, base]
    return order


def cpu_per_ply(run: dict) -> float:
    return run["storage"]["cpu"] / run["plies"]


def wall_per_ply(run: dict) -> float:
    return run["storage"]["wall"] / run["plies"]


def ratio_lines(results: list[dict], base: int) -> list[str]:
    """Each larger size's time per ply against the base size's: the mean of the base
    runs on either side of it when there are (``run_order``), else the first."""
    lines = []
    base_runs = [run for run in results if run["games"] == base]
    if len(base_runs) > 1:
        figures = ", ".join(f"{cpu_per_ply(run) * 1e6:.2f}" for run in base_runs)
        lines.append(f"{base:,} games, CPU us/ply of its {len(base_runs)} runs: {figures}")
    for position, run in enumerate(results):
        if run["games"] == base:
            continue
        neighbours = [
            results[place]
            for place in (position - 1, position + 1)
            if 0 <= place < len(results) and results[place]["games"] == base
        ] or base_runs[:1]
        cpu = sum(cpu_per_ply(near) for near in neighbours) / len(neighbours)
        wall = sum(wall_per_ply(near) for near in neighbours) / len(neighbours)
        side = "the base runs either side" if len(neighbours) == 2 else "the base run"
        lines.append(
            f"CPU per ply at {run['games']:,} against {base:,} ({side}): "
            f"{cpu_per_ply(run) / cpu:.2f}x (wall {wall_per_ply(run) / wall:.2f}x; "
            "the aim: within 1.25x)"
        )
    return lines


def measure_size(
    work: Path, rows: Path, games: int, keep_heap: bool, cache_kib: int | None
) -> dict:
    """One size in a fresh process (the probe): its figures, the load after it."""
    database = _fresh(work / f"storage-{games}.db")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(database), str(rows), str(games),
         "keep" if keep_heap else "sort"],
        capture_output=True,
        text=True,
        env={**os.environ, "PARTITA_IMPORT_CACHE_KIB": str(cache_kib or "")},
    )  # fmt: skip
    if not keep_heap:
        _fresh(database)
    if done.returncode:
        raise SystemExit(f"{games:,} games: the probe failed: {done.stderr[-2000:]}")
    run = json.loads(done.stdout)
    run["load"] = os.getloadavg()[0]
    return run


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="archive sizes (games)")
    parser.add_argument("--base", type=int, default=10_000, help="records prepared once")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workdir", type=Path, default=None, help="keep the prepared rows here")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--cache-kib", type=int, default=None, help="the import's page cache (default: its own)"
    )
    parser.add_argument(
        "--keep-heap", action="store_true", help="stop before the final sort, keep the archive"
    )
    parser.add_argument(
        "--no-bracket",
        dest="bracket",
        action="store_false",
        help="run each size once (by default the first size runs again after each "
        "larger one, and each is compared with the runs either side of it)",
    )
    args = parser.parse_args(argv)
    work = args.workdir or Path(f"/tmp/partita-storage-{os.getpid()}")
    work.mkdir(parents=True, exist_ok=True)
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    start = time.perf_counter()
    rows = prepared_rows(work, args.base, args.seed)
    print(f"{args.base:,} records prepared in {time.perf_counter() - start:.1f}s "
          f"({rows.stat().st_size / 1e6:.1f} MB pickled)")  # fmt: skip
    print(f"load: {' '.join(f'{value:.2f}' for value in os.getloadavg())} (1, 5, 15 min)")
    print(f"{'archive':>10}{'plies':>13}{'us/ply':>9}{'cpu':>7}{'sort s':>8}{'cpu':>7}{'B written/ply':>15}"
          f"{'B stored/ply':>14}{'peak RSS':>10}{'load':>7}")  # fmt: skip
    order = run_order(sizes, args.bracket)
    results = []
    for games in order:
        run = measure_size(work, rows, games, args.keep_heap, args.cache_kib)
        results.append(run)
        plies = run["plies"]
        print(f"{games:>10,}{plies:>13,}{run['storage']['wall'] / plies * 1e6:>9.2f}"
              f"{run['storage']['cpu'] / plies * 1e6:>7.2f}{run['storage']['final_sort']:>8.1f}"
              f"{run['storage']['final_sort_cpu']:>7.1f}"
              f"{run['written'] / plies:>15,.0f}{run['size'] / plies:>14,.0f}"
              f"{run['peak_rss'] / 1e6:>8.0f}MB{run['load']:>7.2f}", flush=True)  # fmt: skip
    for line in ratio_lines(results, sizes[0]):
        print(line)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return {"storage": results}


if __name__ == "__main__":
    main()
