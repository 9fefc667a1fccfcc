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
from partita.database import import_paths, importer, parallel


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
        with parallel.Preparer(2, fork=True) as preparer:
            assert preparer.start_method == "spawn"
    finally:
        release.set()
        thread.join()
    with parallel.Preparer(2) as preparer:  # not allowed to fork
        assert preparer.start_method == "spawn"
    with parallel.Preparer(1, fork=True) as preparer:  # no worker at all
        assert preparer.start_method is None


def test_the_cli_import_allows_forked_workers(tmp_path, monkeypatch):
    from cli_runner import run_cli

    from partita import database

    seen = {}
    real = database.import_paths

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(database, "import_paths", spy)
    write_games(tmp_path / "a.pgr", 3, seed=30)
    code, _, err = run_cli(["import", str(tmp_path / "a.pgr"), "--db", str(tmp_path / "db")])
    assert code == 0, err
    assert seen["fork_workers"] is True


#: A parallel import with forked workers, in a process of its own (the test runner
#: runs threads, so it would spawn): prints the start method, the summary, the
#: progress calls, and whether a worker held the archive open.
FORKED_IMPORT = """
import json, multiprocessing, os, sys
from partita import cores
from partita.database import import_paths, importer

importer.CHUNK_BYTES = 1500  # several chunks a file
methods = []
choose = cores.worker_start_method
cores.worker_start_method = lambda *a, **k: methods.append(choose(*a, **k)) or methods[-1]
database = os.path.realpath(sys.argv[1])
events, archive_in_a_worker = [], []

def progress(done):
    events.append([done.records, done.bytes_done, done.bytes_total, done.imported,
                   done.duplicates, done.file])
    for worker in multiprocessing.active_children():
        folder = f"/proc/{worker.pid}/fd"
        for fd in os.listdir(folder):
            try:
                target = os.readlink(os.path.join(folder, fd))
            except OSError:
                continue
            archive_in_a_worker.append(target.startswith(database))

summary = import_paths(sys.argv[1], [sys.argv[2]], strict=sys.argv[4] == "strict",
                       batch_size=7, progress=progress, workers=int(sys.argv[3]),
                       fork_workers=True)
print(json.dumps([methods, summary.as_dict(), events, any(archive_in_a_worker)]))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="workers fork on Linux only")
@pytest.mark.parametrize(("workers", "strict"), [(2, False), (3, True)])
def test_forked_workers_give_the_archive_of_one_process(tmp_path, monkeypatch, workers, strict):
    monkeypatch.setattr(importer, "CHUNK_BYTES", 1500)
    write_corpus(tmp_path / "in")
    events = []
    serial = import_paths(
        tmp_path / "serial.sqlite",
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
    methods, summary, progress, archive_in_a_worker = json.loads(run.stdout)
    assert methods == ["fork"]
    assert summary == json.loads(json.dumps(serial.as_dict()))  # refusals and problems too
    assert progress == [
        [e.records, e.bytes_done, e.bytes_total, e.imported, e.duplicates, e.file] for e in events
    ]
    assert not archive_in_a_worker  # forked before the archive was opened
    assert dump(tmp_path / "serial.sqlite") == dump(database)  # every row, ids included
    check_whole_games(database)


KILLED_FORKED_IMPORT = """
import multiprocessing, sys
from partita.database import import_paths, importer

importer.CHUNK_BYTES = 2000  # the workers take part from the start

def progress(done):
    workers = [process.pid for process in multiprocessing.active_children()]
    print(done.imported, *workers, flush=True)

import_paths(sys.argv[1], [sys.argv[2]], batch_size=5, progress=progress, workers=3,
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
    rerun = import_paths(database, [tmp_path / "in"], batch_size=50)
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
    summary = import_paths(tmp_path / "db.sqlite", [tmp_path / "a.pgr"], workers=2)
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
from partita.database import import_paths, importer, parallel
from partita.games import registry
from partita.games.gravity.notation import GravityNotation
from partita.games.spec import GameSpec

class RenamedForza(GravityNotation):
    name = "forza-here"

forza = registry.get_game("forza4x4")
registry.register(GameSpec("forza-here", "Forza here", RenamedForza(forza.rules)))
importer.CHUNK_BYTES = 1  # one record a chunk
parallel._QUEUED_HERE = 0  # every chunk goes to the worker
here = []
real_prepare_here = parallel._prepare_here
parallel._prepare_here = lambda chunk: here.append(chunk) or real_prepare_here(chunk)
methods = []
choose = cores.worker_start_method
cores.worker_start_method = lambda *a, **k: methods.append(choose(*a, **k)) or methods[-1]
summary = import_paths(sys.argv[1], [sys.argv[2]], workers=2, fork_workers=True)
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
from partita.database import parallel
with parallel.Preparer(2, fork=True) as preparer:
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
