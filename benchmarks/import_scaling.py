"""The import measurements, side by side in one run (``bench_import.py``'s default).

* The CLI end to end (``partita import DIR --db NEW``, a fresh process: start-up,
  reading, replay, storage) against a Python process that reads a chess PGN of
  the same ply count with ``chess.pgn.read_game`` (parse and validate only), at
  several corpus sizes: plies/s of each and the ratio, and the CLI's peak RSS.
* Storage alone (the time inside the archive writer's batches and the final
  sort of a bulk import, wall and CPU) per ply, and the bytes the import process
  wrote (``/proc/self/io`` ``write_bytes``) per ply, for an import of N games into
  a new archive, and for a further 5,000 games into an archive that holds N
  (10,000 and 100,000); with ``big``, also at 10,000, 100,000 and 1,000,000 games
  from rows prepared once (:mod:`storage_scaling`).

Corpora are cut from one seeded Forza 4x4 corpus (:mod:`corpus`) and one seeded
chess corpus, so the sizes share their records.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import chess_pgn_games, write_forza_corpus  # noqa: E402

_RECORD_START = re.compile(r"\n\n(?=\[Game )")


def forza_corpus(work: Path, games: int, seed: int, base: int = 100_000) -> Path:
    """A folder holding one file of the first ``games`` records of the seeded corpus
    (the corpus is written once, at ``base`` records or more, so that the sizes
    share their records)."""
    target = work / f"forza-cut-{games}-{seed}"
    if target.exists():
        return target
    source = work / f"forza-{max(games, base)}-{seed}"
    if not source.exists():
        write_forza_corpus(source, max(games, base), seed=seed)
    records: list[str] = []
    for path in sorted(source.rglob("*.pgr")):
        for record in _RECORD_START.split(path.read_text(encoding="utf-8")):
            records.append(record.strip("\n") + "\n")
            if len(records) == games:
                break
        if len(records) == games:
            break
    assert len(records) == games, f"the corpus holds {len(records)} records, not {games}"
    target.mkdir()
    (target / "games.pgr").write_text("\n".join(records), encoding="utf-8")
    return target


#: Distinct random chess games generated (python-chess makes them slowly); larger
#: corpora repeat them under new Event tags (read_game caches nothing, so a
#: repeated game costs it what a new one does).
CHESS_BASE_PLIES = 200_000


def chess_corpus(work: Path, plies: int, seed: int) -> Path:
    """Random chess games of at least ``plies`` plies in all."""
    target = work / f"chess-cut-{plies}-{seed}.pgn"
    if target.exists():
        return target
    base = work / f"chess-base-{seed}.json"
    if not base.exists():
        base.write_text(json.dumps(list(chess_pgn_games(CHESS_BASE_PLIES, seed))))
    games = json.loads(base.read_text())
    chosen = []
    total = 0
    number = 0
    while total < plies:
        text, count = games[number % len(games)]
        number += 1
        chosen.append(re.sub(r'\[Event "[^"]*"\]', f'[Event "Random {number}"]', text, count=1))
        total += count
    target.write_text("\n".join(chosen), encoding="utf-8")
    return target


CHESS_READER = """
import sys, time
start = time.perf_counter()
import chess.pgn
games = plies = 0
with open(sys.argv[1], encoding="utf-8") as handle:
    while (game := chess.pgn.read_game(handle)) is not None:
        games += 1
        plies += game.end().ply()
print(games, plies)
"""


PROBE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
peak = usage.ru_maxrss * 1024
print(json.dumps({"wall": wall, "code": done.returncode, "stdout": done.stdout,
                  "stderr": done.stderr[-2000:], "peak": peak,
                  "cpu": usage.ru_utime + usage.ru_stime}))
"""


def _run(command: list[str]) -> tuple[float, str, int, float]:
    """Wall seconds, stdout, peak RSS (bytes: the largest of the process and its
    descendants) and CPU seconds (user + system, the process and its descendants)
    of one run of ``command``, in a fresh probe process of its own."""
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, *command], capture_output=True, text=True, check=True
    )
    result = json.loads(probe.stdout)
    if result["code"] != 0:
        raise RuntimeError(f"{command[:3]} failed ({result['code']}): {result['stderr']}")
    return result["wall"], result["stdout"], result["peak"], result["cpu"]


def _fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def compile_partita() -> str:
    """Compile partita's modules into their ``__pycache__`` folders (compileall), so
    that the CLI runs from bytecode as a wheel install does, and python-chess (a
    wheel, its .pyc installed with it) is met like with like. An editable install
    has no .pyc, and ``PYTHONDONTWRITEBYTECODE=1`` (this sandbox, CI) keeps Python
    from writing them: every run would compile partita's modules from source again
    (about 150 ms of a 0.5 s start-up). Python still reads .pyc files with that
    setting, and recompiles (in memory) a module whose source is newer. Returns what
    the run measures, for the report."""
    import compileall

    import partita

    package = Path(partita.__file__).resolve().parent
    if not compileall.compile_dir(package, quiet=1):
        raise RuntimeError(f"compileall failed on {package}")
    return f"bytecode: partita compiled into __pycache__ (compileall {package})"


def runs_at(games: int) -> int:
    """Runs of each side at ``games`` (interleaved partita, chess, partita...; the best
    kept, and each pair's ratio): several where a run takes seconds (the machine's
    speed moves by a tenth from run to run), one at 100,000 games (python-chess takes
    minutes there)."""
    return 9 if games <= 3_000 else 3 if games <= 30_000 else 1


def measure_end_to_end(work: Path, sizes: list[int], seed: int, base: int = 100_000) -> list[dict]:
    """The CLI's import and python-chess's reader, side by side at each size (A/B
    interleaved, best of :func:`runs_at`; the corpora cut from the seeded corpus of
    ``base`` records, see :func:`forza_corpus`), with the 1-minute load around each
    size. CPU is that of the fastest run of each side."""
    partita = str(Path(sys.executable).with_name("partita"))
    results = []
    for games in sizes:
        corpus = forza_corpus(work, games, seed, base)
        load_before = os.getloadavg()[0]
        wall = chess_wall = float("inf")
        chess_path = None
        pairwise = []  # each run's ratio, python-chess's wall per ply over partita's
        for _ in range(runs_at(games)):
            database = _fresh(work / "cli.db")
            run = _run([partita, "import", str(corpus), "--db", str(database), "--json"])
            if run[0] < wall:
                wall, stdout, peak, cpu = run
            plies = json.loads(stdout)["plies"]
            chess_path = chess_path or chess_corpus(work, plies, seed)
            chess_run = _run([sys.executable, "-c", CHESS_READER, str(chess_path)])
            if chess_run[0] < chess_wall:
                chess_wall, chess_cpu = chess_run[0], chess_run[3]
            chess_plies = int(chess_run[1].split()[1])
            pairwise.append((chess_run[0] / chess_plies) / (run[0] / plies))
        results.append(
            {
                "games": games,
                "plies": plies,
                "runs": runs_at(games),
                "partita_wall": wall,
                "partita_cpu": cpu,
                "partita_plies_per_s": plies / wall,
                "chess_plies": chess_plies,
                "chess_wall": chess_wall,
                "chess_cpu": chess_cpu,
                "chess_plies_per_s": chess_plies / chess_wall,
                "ratio": (plies / wall) / (chess_plies / chess_wall),
                "pairwise_median": statistics.median(pairwise),
                "peak_rss": peak,
                "load": (load_before, os.getloadavg()[0]),
            }
        )
    return results


STORAGE_PROBE = """
import json, os, sys, time
from partita.bulk import import_paths, importer
from partita.database.archive_writer import ArchiveWriter
from partita.database.schema import archive

def write_bytes():
    with open("/proc/self/io") as io:
        for line in io:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    return 0

spent = {"wall": 0.0, "cpu": 0.0, "final_sort": 0.0}

def timed(function, final=False):
    def run(*args):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args)
        finally:
            spent["wall"] += time.perf_counter() - wall
            spent["cpu"] += time.process_time() - cpu
            if final:
                spent["final_sort"] += time.perf_counter() - wall
    return run

ArchiveWriter.flush = timed(ArchiveWriter.flush)
importer.finish_loading = timed(importer.finish_loading, final=True)
bulk = {"auto": None, "bulk": True, "batched": False}[sys.argv[3]]
before = write_bytes()
start = time.perf_counter()
with archive(sys.argv[1]) as opened:
    summary = import_paths(opened, [sys.argv[2]], workers=1, bulk=bulk)
wall = time.perf_counter() - start
written = write_bytes() - before
status = open("/proc/self/status").read().split("VmHWM:")[1].split()
print(json.dumps({"plies": summary.plies, "games": summary.imported, "wall": wall,
                  "storage": spent, "written": written, "peak_rss": int(status[0]) * 1024,
                  "size": os.path.getsize(sys.argv[1])}))
"""


def storage_run(database: Path, corpus: Path, mode: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", STORAGE_PROBE, str(database), str(corpus), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def measure_storage(work: Path, sizes: list[int], seed: int) -> list[dict]:
    """Storage per ply: N games into a new archive (the default mode: bulk from
    1 MB), and 5,000 more games into that archive (batched: it holds positions);
    and the N games into a new archive batched (``bulk=False``), for comparison."""
    extra = forza_corpus(work, 5_000, seed + 1, base=5_000)  # only these are needed
    results = []
    for games in sizes:
        corpus = forza_corpus(work, games, seed)
        database = _fresh(work / f"storage-{games}.db")
        new = storage_run(database, corpus, "auto")
        more = storage_run(database, extra, "auto")
        batched = storage_run(_fresh(database), corpus, "batched")
        results.append({"games": games, "new": new, "added": more, "batched": batched})
        _fresh(database)
    return results


def print_end_to_end(results: list[dict]) -> None:
    print("\nCLI end to end (partita import, fresh process) against python-chess read_game "
          "(fresh process), same ply count, wall, best of the runs (ratio: of the bests; "
          "pairwise: the median of each run's ratio):")  # fmt: skip
    print(f"{'games':>8}{'plies':>11}{'runs':>5}{'partita s':>11}{'plies/s':>10}{'chess s':>9}"
          f"{'plies/s':>10}{'ratio':>8}{'pairwise':>9}{'peak RSS':>10}{'load':>11}")  # fmt: skip
    for item in results:
        load = f"{item['load'][0]:.1f}-{item['load'][1]:.1f}"
        print(f"{item['games']:>8,}{item['plies']:>11,}{item['runs']:>5}"
              f"{item['partita_wall']:>11.2f}"
              f"{item['partita_plies_per_s']:>10,.0f}{item['chess_wall']:>9.2f}"
              f"{item['chess_plies_per_s']:>10,.0f}{item['ratio']:>7.2f}x"
              f"{item['pairwise_median']:>8.2f}x"
              f"{item['peak_rss'] / 1e6:>8.0f}MB{load:>11}")  # fmt: skip


def print_storage(results: list[dict]) -> None:
    print("\nstorage per ply (time inside the writer's batches and the final sort; one "
          "process):")  # fmt: skip
    print(f"{'archive':>10}  {'import':<28}{'us/ply':>8}{'cpu':>7}{'sort s':>8}"
          f"{'B written/ply':>15}{'B stored/ply':>14}{'peak RSS':>10}")  # fmt: skip
    for item in results:
        for label, run, held in (
            ("new archive, bulk (default)", item["new"], 0),
            ("new archive, batched", item["batched"], 0),
            ("+5,000 games (batched)", item["added"], item["games"]),
        ):
            plies = run["plies"]
            # The archive's size per ply it holds (not per ply added).
            stored = "-" if held else f"{run['size'] / plies:,.0f}"
            print(f"{held or item['games']:>10,}  {label:<28}"
                  f"{run['storage']['wall'] / plies * 1e6:>8.2f}"
                  f"{run['storage']['cpu'] / plies * 1e6:>7.2f}"
                  f"{run['storage']['final_sort']:>8.2f}{run['written'] / plies:>15,.0f}"
                  f"{stored:>14}{run['peak_rss'] / 1e6:>8.0f}MB")  # fmt: skip


def main(work: Path, seed: int, big: bool, storage: bool = True, compiled: bool = True) -> dict:
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} "
          f"(1, 5, 15 min), {os.cpu_count()} CPUs")  # fmt: skip
    figures: dict = {}
    if compiled:
        figures["bytecode"] = compile_partita()
    else:
        writes = "off" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
        figures["bytecode"] = (
            f"bytecode: as configured (--no-compile; writing .pyc {writes}, partita is "
            "compiled from source on every run if no __pycache__ holds it)"
        )
    print(figures["bytecode"])
    figures["end_to_end"] = measure_end_to_end(work, [300, 3_000, 30_000, 100_000], seed)
    print_end_to_end(figures["end_to_end"])
    if storage:
        figures["storage"] = measure_storage(work, [10_000, 100_000], seed)
        print_storage(figures["storage"])
    if storage and big:
        # A million-game corpus would take hours to write and read here: storage at
        # 10k, 100k and 1M games from rows prepared once (storage_scaling.py).
        import storage_scaling

        print("\nstorage per ply from prepared rows (storage_scaling.py, --big):")
        sizes = "10000,100000,1000000"
        scaling = storage_scaling.main(
            ["--sizes", sizes, "--seed", str(seed), "--workdir", str(work)]
        )
        figures["storage_scaling"] = scaling["storage"]
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f}")  # fmt: skip
    return figures
