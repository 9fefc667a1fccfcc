"""How an import starts its worker processes: ``fork`` where it is safe, else ``spawn``;
either way the same archive as one process, and a stopped import leaves whole games."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_import import (
    ROOT,
    check_whole_games,
    counts,
    dump,
    random_game,
    record_text,
    running,
    write_corpus,
    write_games,
)

from partita import cores
from partita.bulk import import_paths, importer
from partita.bulk import workers as parallel
from partita.bulk.chunks import chunks
from partita.bulk.prepare import prepare_chunk
from partita.database.archive_writer import ArchiveWriter
from partita.database.schema import archive


@pytest.mark.parametrize(
    ("fork", "platform", "threads", "expected"),
    [
        (True, "linux", 1, "fork"),  # the CLI's import, nothing else running
        (False, "linux", 1, "spawn"),  # a library caller: its state is its own
        (True, "linux", 2, "spawn"),  # another thread might hold a lock the copy needs
        (True, "linux", None, "spawn"),  # threads that cannot be counted
        (True, "darwin", 1, "spawn"),  # system libraries unsafe after a fork
        (True, "win32", 1, "spawn"),  # no fork at all
    ],
)
def test_workers_fork_only_when_allowed_on_linux_with_no_other_thread(
    fork, platform, threads, expected
):
    assert cores.worker_start_method(fork, platform=platform, threads=threads) == expected


#: Threads counted in a fresh process: alone, with a thread Python started, after it.
COUNT_THREADS = """
import threading, time
from partita.cores import running_threads
counted = [running_threads()]
release = threading.Event()
thread = threading.Thread(target=release.wait)
thread.start()
counted.append(running_threads())
release.set()
thread.join()
deadline = time.monotonic() + 5  # a joined thread's task can linger a moment
while running_threads() != 1 and time.monotonic() < deadline:
    time.sleep(0.001)
counted.append(running_threads())
print(counted)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/task is Linux's")
def test_running_threads_counts_every_thread_of_the_process():
    run = subprocess.run(
        [sys.executable, "-c", COUNT_THREADS],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=True,
    )  # fmt: skip
    assert run.stdout.strip() == "[1, 2, 1]"


def test_a_process_running_a_thread_starts_spawned_workers():
    """The check is made when the workers start: with a thread running (here: one
    more than the test runner's), an import allowed to fork spawns instead."""
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        with parallel.Workers(prepare_chunk, 2, fork=True) as preparer:
            assert preparer.start_method == "spawn"
    finally:
        release.set()
        thread.join()
    with parallel.Workers(prepare_chunk, 2) as preparer:  # not allowed to fork
        assert preparer.start_method == "spawn"
    with parallel.Workers(prepare_chunk, 1, fork=True) as preparer:  # no worker at all
        assert preparer.start_method is None


def test_the_cli_import_allows_forked_workers(tmp_path, monkeypatch):
    from cli_runner import run_cli

    from partita import bulk

    seen = {}
    real = bulk.import_paths

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(bulk, "import_paths", spy)
    write_games(tmp_path / "a.pgr", 3, seed=30)
    code, _, err = run_cli(["import", str(tmp_path / "a.pgr"), "--db", str(tmp_path / "db")])
    assert code == 0, err
    assert seen["fork_workers"] is True


#: A parallel import with forked workers, in a process of its own (the test runner
#: runs threads, so it would spawn): prints the start method, the summary and the
#: progress calls. (The workers fork after the caller opened the archive: they
#: inherit its file, and never use it.)
FORKED_IMPORT = """
import json, sys
from partita import cores
from partita.database import archive
from partita.bulk import import_paths, importer

importer.CHUNK_BYTES = 1500  # several chunks a file
methods = []
choose = cores.worker_start_method
cores.worker_start_method = lambda *a, **k: methods.append(choose(*a, **k)) or methods[-1]
events = []

def progress(done):
    events.append([done.records, done.bytes_done, done.bytes_total, done.imported,
                   done.duplicates, done.file])

with archive(sys.argv[1]) as opened:
    summary = import_paths(opened, [sys.argv[2]], strict=sys.argv[4] == "strict",
                           batch_size=7, progress=progress, workers=int(sys.argv[3]),
                           fork_workers=True)
print(json.dumps([methods, summary.as_dict(), events]))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="workers fork on Linux only")
@pytest.mark.parametrize(("workers", "strict"), [(2, False), (3, True)])
def test_forked_workers_give_the_archive_of_one_process(tmp_path, monkeypatch, workers, strict):
    monkeypatch.setattr(importer, "CHUNK_BYTES", 1500)
    write_corpus(tmp_path / "in")
    events = []
    with archive(tmp_path / "serial.sqlite") as opened:
        serial = import_paths(
            opened,
            [tmp_path / "in"],
            strict=strict,
            batch_size=7,
            progress=events.append,
        )
    database = tmp_path / "forked.sqlite"
    run = subprocess.run(
        [sys.executable, "-c", FORKED_IMPORT, str(database), str(tmp_path / "in"),
         str(workers), "strict" if strict else "lenient"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    methods, summary, progress = json.loads(run.stdout)
    assert methods == ["fork"]
    assert summary == json.loads(json.dumps(serial.as_dict()))  # refusals and problems too
    assert progress == [
        [e.records, e.bytes_done, e.bytes_total, e.imported, e.duplicates, e.file] for e in events
    ]
    assert dump(tmp_path / "serial.sqlite") == dump(database)  # every row, ids included
    check_whole_games(database)


KILLED_FORKED_IMPORT = """
import multiprocessing, sys
from partita.database import archive
from partita.bulk import import_paths, importer

importer.CHUNK_BYTES = 2000  # the workers take part from the start

def progress(done):
    workers = [process.pid for process in multiprocessing.active_children()]
    print(done.imported, *workers, flush=True)

with archive(sys.argv[1]) as opened:
    import_paths(opened, [sys.argv[2]], batch_size=5, progress=progress, workers=3,
                 fork_workers=True)
print("finished", flush=True)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="workers fork on Linux only")
@pytest.mark.parametrize("stop", ["kill", "ctrl-c"])
def test_a_stopped_import_with_forked_workers_holds_whole_games(tmp_path, stop):
    """Killed, or Ctrl-C to the process group: forked workers exit as spawned ones
    do, the archive holds whole batches, and a rerun completes it."""
    plies = write_games(tmp_path / "in" / "a.pgr", 400, seed=8)
    database = tmp_path / "db.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_FORKED_IMPORT, str(database), str(tmp_path / "in")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # the KeyboardInterrupt's traceback
        text=True,
        cwd=ROOT,
        start_new_session=True,  # its own process group, as a terminal's job
    )
    assert child.stdout is not None
    for _ in range(3):  # three batches committed
        line = child.stdout.readline()
    if stop == "kill":
        os.kill(child.pid, signal.SIGKILL)
    else:
        os.killpg(child.pid, signal.SIGINT)
    assert "finished" not in child.stdout.read()
    child.wait(timeout=20)
    worker_pids = [int(pid) for pid in line.split()[1:]]
    assert len(worker_pids) == 2
    deadline = time.monotonic() + 10
    while any(running(pid) for pid in worker_pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(pid) for pid in worker_pids)
    stored = counts(database)["games"]
    assert 15 <= stored < 400 and stored % 5 == 0
    check_whole_games(database)
    with archive(database) as opened:
        rerun = import_paths(opened, [tmp_path / "in"], batch_size=50)
    assert (rerun.imported + rerun.duplicates, rerun.duplicates) == (400, stored)
    assert counts(database) == {"games": 400, "positions": sum(plies), "problems": 0}
    check_whole_games(database)


def test_forked_workers_are_not_used_by_a_library_import(tmp_path, monkeypatch):
    """import_paths' default keeps spawn: a script's own threads and state are
    not partita's to copy."""
    chosen = []
    choose = cores.worker_start_method
    monkeypatch.setattr(
        cores, "worker_start_method", lambda *a, **k: chosen.append(choose(*a, **k)) or chosen[-1]
    )
    write_games(tmp_path / "a.pgr", 5, seed=31)
    with archive(tmp_path / "db.sqlite") as opened:
        summary = import_paths(opened, [tmp_path / "a.pgr"], workers=2)
    assert summary.imported == 5 and chosen == ["spawn"]
    assert Path(tmp_path / "db.sqlite").exists()


@pytest.mark.parametrize("redraw_thread", [True, False])
def test_the_import_progress_bar_can_be_drawn_without_a_thread(monkeypatch, redraw_thread):
    """The import's bar (``redraw_thread=False``) is drawn at each update by no
    thread of its own, so the workers may still fork on a terminal; rich's own
    redraw thread is the contrast."""
    from partita.cli.output import progress_bar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", Terminal())
    before = set(threading.enumerate())
    with progress_bar("importing", total=10, unit="bytes", redraw_thread=redraw_thread) as update:
        update(5)
        started = [thread for thread in threading.enumerate() if thread not in before]
        assert len(started) == redraw_thread
        assert "importing" in sys.stderr.getvalue()
        if not redraw_thread:  # drawn at the update itself
            assert "5/10" in sys.stderr.getvalue()


@pytest.mark.parametrize(
    ("method", "size", "expected"),
    [
        ("fork", parallel.FORK_PARALLEL_MIN_BYTES - 1, 1),
        ("fork", parallel.FORK_PARALLEL_MIN_BYTES, 2),  # a forked worker pays from here
        ("spawn", parallel.FORK_PARALLEL_MIN_BYTES, 1),  # a spawned one does not yet
        ("spawn", parallel.PARALLEL_MIN_BYTES - 1, 1),
        ("spawn", parallel.PARALLEL_MIN_BYTES, 2),
    ],
)
def test_automatic_workers_start_lower_when_they_fork(monkeypatch, method, size, expected):
    monkeypatch.setattr(cores, "processes_for_idle_cores", lambda limit: 2)
    monkeypatch.setattr(cores, "worker_start_method", lambda fork, **how: method)
    assert parallel.auto_workers(size, fork=True) == expected
    # Not allowed to fork (a library import): the spawn threshold, whatever the check says.
    assert parallel.auto_workers(size) == (2 if size >= parallel.PARALLEL_MIN_BYTES else 1)


#: A game registered at run time, imported with forked workers that prepare every
#: chunk: prints the start method, what this process prepared itself, the summary.
FORKED_RUN_TIME_GAME = """
import json, sys
from partita import cores
from partita.database import archive
from partita.bulk import import_paths, importer
from partita.bulk import workers as parallel
from partita.game import registry
from partita.games.gravity.notation import GravityNotation
from partita.game.spec import GameSpec

class RenamedForza(GravityNotation):
    name = "forza-here"

forza = registry.get_game("forza4x4")
registry.register(GameSpec("forza-here", "Forza here", RenamedForza(forza.rules)))
importer.CHUNK_BYTES = 1  # one record a chunk
parallel._QUEUED_HERE = 0  # every chunk goes to the worker
here = []
real_run_here = parallel._run_here
parallel._run_here = lambda task, chunk: here.append(chunk) or real_run_here(task, chunk)
methods = []
choose = cores.worker_start_method
cores.worker_start_method = lambda *a, **k: methods.append(choose(*a, **k)) or methods[-1]
with archive(sys.argv[1]) as opened:
    summary = import_paths(opened, [sys.argv[2]], workers=2, fork_workers=True)
print(json.dumps([methods, len(here), summary.imported, summary.invalid]))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="workers fork on Linux only")
def test_forked_workers_know_a_game_registered_at_run_time(tmp_path):
    """A copy of the importing process knows its run-time games: the worker
    prepares them (no fallback to this process), and they are valid."""
    rng = random.Random(15)
    texts = [record_text(random_game(rng, 10), event=f"game {n}") for n in range(6)]
    text = "\n".join(texts).replace('[Game "forza4x4"]', '[Game "forza-here"]')
    (tmp_path / "a.pgr").write_text(text, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-c", FORKED_RUN_TIME_GAME, str(tmp_path / "db.sqlite"),
         str(tmp_path / "a.pgr")],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [["fork"], 0, 6, 0]


#: Forked workers started for an import, in a process of its own (the test runner
#: runs threads): prints the start method and the game modules loaded by then.
FORK_START = """
import json, sys
from partita.bulk import workers as parallel
from partita.bulk.prepare import prepare_chunk
with parallel.Workers(prepare_chunk, 2, fork=True) as preparer:
    loaded = sorted(name for name in sys.modules
                    if name.startswith("partita.games.") and name.endswith(".rules"))
    print(json.dumps([preparer.start_method, loaded]))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="workers fork on Linux only")
def test_forking_workers_loads_no_game_rules_first(tmp_path):
    """Before the fork only the games' entry points are read: each process loads the
    rules of the games its records name (every game's took about 60 ms, on the way
    to an import's first batch, for an input of one game)."""
    run = subprocess.run(
        [sys.executable, "-c", FORK_START],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == ["fork", []]


class _SlowWorkerPool(ThreadPoolExecutor):
    """One worker that takes ``delay`` seconds over each chunk, in a thread: what
    the writing process sees of a worker process that is quick or stalled."""

    def __init__(self, delay: float) -> None:
        super().__init__(1)
        self.delay = delay

    def submit(self, fn, /, *args, **kwargs):
        return super().submit(self._slowly, fn, *args, **kwargs)

    def _slowly(self, fn, *args, **kwargs):
        time.sleep(self.delay)
        return fn(*args, **kwargs)


def _prepared_with(pool, files, monkeypatch, *, writing: float = 0.0) -> tuple[list, int]:
    """The prepared records of ``files`` (chunks of a few records) through a
    Preparer whose worker is ``pool``, taking ``writing`` seconds over each chunk
    handed (what writing it costs); and how many chunks it prepared itself."""
    here = []
    real_run_here = parallel._run_here
    monkeypatch.setattr(
        parallel, "_run_here", lambda task, chunk: here.append(chunk) or real_run_here(task, chunk)
    )
    prepared = []
    with parallel.Workers(prepare_chunk, 1) as preparer:  # no processes of its own
        # One worker, a copy of this process (so no games probe): the pool.
        preparer.workers, preparer._pool, preparer.start_method = 2, pool, "fork"
        for _, items in preparer.run(chunks(files, False, 300)):
            time.sleep(writing)
            prepared.extend(items)
    return prepared, len(here)


def _prepared_here(files) -> list:
    return [item for chunk in chunks(files, False, 300) for item in prepare_chunk(chunk.data)]


def test_the_writer_prepares_nothing_itself_when_writing_is_the_slower(tmp_path, monkeypatch):
    """Helping whenever the oldest chunk was not back had the writing process
    prepare a third of a 3,000-game import, whose writes then waited behind the
    worker's chunks and came after the worker had finished. When writing a chunk
    takes longer than preparing one, the worker keeps up alone: no help."""
    write_games(tmp_path / "a.pgr", 30, seed=41)
    files = [tmp_path / "a.pgr"]
    monkeypatch.setattr(parallel, "_FIRST_PREPARE_ESTIMATE", 0.02)
    prepared, helped = _prepared_with(_SlowWorkerPool(0.005), files, monkeypatch, writing=0.03)
    assert helped == 0
    assert prepared == _prepared_here(files)


def test_the_writer_prepares_chunks_itself_once_it_has_waited_a_chunk(tmp_path, monkeypatch):
    """A stalled worker (starting, or on a busy core): the writing process waits a
    chunk's worth, then prepares chunks itself; the records still come in order."""
    write_games(tmp_path / "a.pgr", 40, seed=42)
    files = [tmp_path / "a.pgr"]
    monkeypatch.setattr(parallel, "_FIRST_PREPARE_ESTIMATE", 0.01)
    prepared, helped = _prepared_with(_SlowWorkerPool(0.5), files, monkeypatch)
    # Chunks left to help with, beyond those queued for the worker; it prepares
    # as many as it may hold before the worker's first is back.
    assert (
        len(list(chunks(files, False, 300))) > parallel._QUEUED_PER_WORKER + parallel._QUEUED_HERE
    )
    assert helped >= parallel._QUEUED_HERE
    assert prepared == _prepared_here(files)


@pytest.mark.parametrize(
    ("workers", "prepare", "write"),
    [(1, 0.04, 0.03), (1, 0.04, 0.0), (2, 0.05, 0.01), (3, 0.06, 0.005), (1, 0.02, 0.019)],
)
def test_the_writers_share_of_chunks_lets_it_finish_with_the_workers(workers, prepare, write):
    """Its share h of the chunks: writing all and preparing h of them takes it as
    long as the workers take over the rest (prepared as fast as here)."""
    helping = parallel._Helping(workers)
    helping.prepare, helping.write = prepare, write
    share = helping.share()
    assert 0 < share < 1
    assert share * prepare + write == pytest.approx((1 - share) * prepare / workers)


@pytest.mark.parametrize(
    ("workers", "prepare", "write"), [(1, 0.03, 0.03), (1, 0.03, 0.05), (2, 0.04, 0.03)]
)
def test_the_writer_takes_no_share_when_writing_is_the_slower(workers, prepare, write):
    helping = parallel._Helping(workers)
    helping.prepare, helping.write = prepare, write
    assert helping.share() == 0.0


@pytest.mark.parametrize(("small_archive", "per_chunk"), [(True, True), (False, False)])
def test_a_parallel_import_writes_each_chunk_as_it_comes_into_a_small_archive(
    tmp_path, monkeypatch, small_archive, per_chunk
):
    """Into an archive of fewer than WRITE_EACH_CHUNK_MAX_GAMES games, the batch is
    written chunk by chunk (one commit still), so that the writes overlap the
    worker's preparing; past it, whole (one sorted insert into a large tree)."""
    monkeypatch.setattr(importer, "CHUNK_BYTES", 300)
    if not small_archive:
        monkeypatch.setattr(importer, "WRITE_EACH_CHUNK_MAX_GAMES", 0)
    write_games(tmp_path / "a.pgr", 12, seed=43)
    writes, commits = [], []
    real_insert, real_flush = ArchiveWriter._insert_positions, ArchiveWriter.flush

    def insert_positions(self, conn, first_id, keys_json):
        writes.append(first_id)
        real_insert(self, conn, first_id, keys_json)

    def flush(self):
        if self.pending:
            commits.append(self.pending)
        real_flush(self)

    monkeypatch.setattr(ArchiveWriter, "_insert_positions", insert_positions)
    monkeypatch.setattr(ArchiveWriter, "flush", flush)
    with archive(tmp_path / "db.sqlite") as opened:
        summary = import_paths(
            opened, [tmp_path / "a.pgr"], batch_size=100, workers=2, fork_workers=True
        )
    assert summary.imported == 12
    assert commits == [12]  # one batch
    chunk_count = len(list(chunks([tmp_path / "a.pgr"], False, 300)))
    assert len(writes) == (chunk_count if per_chunk else 1)
    assert writes == sorted(writes) and writes[0] == 1
    check_whole_games(tmp_path / "db.sqlite")
