"""The bulk wing's one worker layer: chunks of raw records read and replayed in
worker processes, the results back in input order.

This process splits the files into raw records and sends chunks of them to worker
processes, which run one task on each (an import's
:func:`~partita.bulk.prepare.prepare_chunk`: the rows; a validation's
:func:`~partita.bulk.validation.check_chunk`: the verdicts), the function a run in
one process calls here. It runs the task on chunks itself when it would otherwise
wait (:class:`_Helping`), and gets the results back in input order, so the archive
or the report is the same whatever the number of workers. :func:`auto_workers` is
the one rule for how many processes both use when the caller does not say.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from partita import cores
from partita.bulk.chunks import Chunk, ChunkData
from partita.game.registry import all_games, all_specs

if TYPE_CHECKING:
    import multiprocessing.process
    from concurrent.futures import Executor, Future

# concurrent.futures, multiprocessing and partita.execution load only when an import
# starts worker processes: a small import in one process does without them.

__all__ = [
    "FORK_PARALLEL_MIN_BYTES",
    "MAX_AUTO_WORKERS",
    "PARALLEL_MIN_BYTES",
    "Workers",
    "auto_workers",
    "known_games",
    "start_worker",
]

#: With ``workers=None``, inputs smaller than this import in one process: a
#: spawned worker process takes about 0.25 s of CPU to start, which on less than
#: about 0.6 MB costs more than it saves (benchmarks/results/2026-12-01-import.md);
#: this leaves a margin for slower process starts elsewhere.
PARALLEL_MIN_BYTES = 1_000_000

#: The same for workers that start with ``fork``: a copy of this process, no
#: interpreter to start and no partita to import again (about 0.07 s of CPU with
#: the games loaded). At 0.1 MB a second process saves nothing, at 0.33 MB it
#: takes 0.1-0.3 s off this process's CPU
#: (benchmarks/results/2026-12-02-import.md); this leaves a margin, as the spawned threshold does.
FORK_PARALLEL_MIN_BYTES = 500_000

#: The most processes ``workers=None`` uses (one process writes SQLite, and past a
#: few workers the writer is the limit).
MAX_AUTO_WORKERS = 4

#: Chunks queued for each local worker process (a cluster's worker, further away:
#: more), and chunks this process may hold that it prepared itself: enough that no
#: process waits for another, few enough that memory stays a few megabytes. A
#: local worker's queue covers a chunk's writing or preparing here (this process
#: refills it between the two) with one to spare; a longer one left this process
#: no chunk to take when the worker was the slower (all sixteen chunks of a
#: 3,000-game import were queued by the end: benchmarks/results/2026-12-03-import.md).
_QUEUED_PER_WORKER = 3
_QUEUED_PER_CLUSTER_WORKER = 8
_QUEUED_HERE = 8

#: What preparing a chunk in this process is taken to cost (seconds) until it
#: has timed one (about a 64 KB chunk of the shipped games' records here), and
#: the waits for the workers it banks at most, in chunks' preparations
#: (:class:`_Helping`).
_FIRST_PREPARE_ESTIMATE = 0.05
_MAX_BANKED_CHUNKS = 2


#: What a stopped worker process means to an import (:class:`Workers`' ``stopped``).
IMPORT_WORKER_STOPPED = (
    "a worker process of the import stopped (killed, or out of memory?); the "
    "archive holds whole batches, and running the import again completes it"
)


def auto_workers(total_bytes: int, *, fork: bool = False) -> int:
    """The processes an import or a validation of ``total_bytes`` uses when the
    caller does not say (this one included):
    one for an input under :data:`PARALLEL_MIN_BYTES`, or
    :data:`FORK_PARALLEL_MIN_BYTES` when its workers would fork (``fork``: the
    caller allows it, and :func:`partita.cores.worker_start_method` agrees now):
    starting a worker costs more than it saves there. Else this process and one
    worker per further idle core, at most :data:`MAX_AUTO_WORKERS` in all. A worker
    on a core other work keeps busy only takes turns with it, and the single
    writer then waits for the worker (benchmarks/results/2026-12-06-archive.md)."""
    forked = fork and cores.worker_start_method(True) == "fork"
    if total_bytes < (FORK_PARALLEL_MIN_BYTES if forked else PARALLEL_MIN_BYTES):
        return 1
    return cores.processes_for_idle_cores(MAX_AUTO_WORKERS)


class Workers:
    """Runs ``task`` on chunks, the results in input order: all in this process (one
    worker), or in ``workers - 1`` worker processes and this one.

    This process consumes the results (an import writes the batches). Each worker
    process has a few chunks queued, so it never waits for this one; and while the
    oldest chunk is still in a worker, this process runs the task on the next chunk
    itself rather than idle (so it works while the workers start, and whenever
    consuming leaves it time). Chunks in flight are bounded, so memory stays flat.
    ``stopped``: the note on the error when a worker process stops.

    Workers are started with ``fork`` when the caller allows it (``fork``: the
    CLI's import) and :func:`partita.cores.worker_start_method` finds it safe
    (Linux, no other thread running at the time): a copy of this process, ready
    in milliseconds, started here at once while that check holds. Else with
    ``spawn`` (a fresh interpreter, which imports partita again: safe whatever
    threads this process runs, the same on every platform), at the first chunk;
    and if a spawned worker does not know the same games as this process (one
    registered at run time), this process prepares everything itself, so that
    the archive (or the report) is the same. :attr:`start_method` says which it was.

    With ``scheduler`` (a Dask scheduler's address, or ``local:N``) the chunks go to
    that cluster's workers through :func:`partita.execution.open_executor` instead
    (``workers`` is then the cluster's, plus this process): only the raw records
    travel there, and the results back, to this process.
    """

    def __init__(
        self,
        task: Callable[[ChunkData], list[Any]],
        workers: int,
        scheduler: str | None = None,
        *,
        fork: bool = False,
        stopped: str = IMPORT_WORKER_STOPPED,
    ) -> None:
        self.task = task
        #: The note added to the error when a worker process stops.
        self.stopped = stopped
        self.workers = workers
        self.scheduler = scheduler
        self.fork = fork
        #: How the local workers started (``"fork"``, ``"spawn"``), None without.
        self.start_method: str | None = None
        self._pool: Executor | None = None
        self._cluster: ExitStack | None = None

    def __enter__(self) -> Workers:
        if self.scheduler is not None:
            from partita.execution import open_executor

            stack = ExitStack()
            execution = stack.enter_context(
                open_executor(scheduler=self.scheduler, initializer=start_worker)
            )
            self._cluster, self._pool = stack, execution
            self.workers = execution.workers + 1
        elif self.workers > 1:
            from concurrent.futures import ProcessPoolExecutor

            from partita.execution import quiet_context

            self.start_method = cores.worker_start_method(self.fork)
            if self.start_method == "fork":
                # The games' entry points read once, here, for the copies too. Not
                # the games' rules: each process loads those of the games its
                # records name (all of them took about 60 ms here, on the path to
                # the first batch, for an input of one game:
                # benchmarks/results/2026-12-03-import.md).
                all_specs()
            self._pool = ProcessPoolExecutor(
                self.workers - 1,
                mp_context=quiet_context(self.start_method),
                initializer=start_worker,
            )
            if self.start_method == "fork":
                # Forked now, while the check holds (a first task makes the pool
                # fork its workers, then start its threads). A copy knows the
                # games this process knows: no probe.
                self._pool.submit(os.getpid)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._cluster is not None:
            cluster, self._cluster, self._pool = self._cluster, None, None
            cluster.__exit__(*exc_info)  # an exception (Ctrl-C) cancels what is queued
            return
        if self._pool is not None:
            # Chunks not started are dropped; the running ones end within a chunk.
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def run(self, chunks: Iterable[Chunk]) -> Iterator[tuple[Chunk, list]]:
        """Each chunk with its task's result, in input order. An unexpected error of
        the task (a bug: bad input makes problems, not errors) is raised in its
        turn, with a note naming the records."""
        chunks = iter(chunks)  # next() on it gives None once it is exhausted
        task = self.task
        pool = self._pool
        if pool is None:
            for chunk in chunks:
                yield chunk, _run_here(task, chunk)
            return
        probe: Future | None = None if self.start_method == "fork" else pool.submit(known_games)
        queued = (self.workers - 1) * (
            _QUEUED_PER_WORKER if self._cluster is None else _QUEUED_PER_CLUSTER_WORKER
        )
        # Chunks in input order, each with its Future (in a worker) or its records.
        in_flight: deque[tuple[Chunk, Future | list]] = deque()
        in_workers = 0
        helping = _Helping(self.workers - 1)
        while True:
            while in_workers < queued and (queued_chunk := next(chunks, None)) is not None:
                in_flight.append((queued_chunk, _submit(pool, task, queued_chunk, self.stopped)))
                in_workers += 1
                helping.sent += 1
            if not in_flight:
                return
            chunk, head = in_flight[0]
            if isinstance(head, list):
                result = chunk, head
            else:
                if not head.done() and len(in_flight) < queued + _QUEUED_HERE:
                    if not helping.now():
                        helping.wait(head)
                        continue
                    helped = next(chunks, None)
                    if helped is not None:
                        started = time.perf_counter()
                        in_flight.append((helped, _run_here(task, helped)))
                        helping.prepared(time.perf_counter() - started)
                        continue
                if probe is not None:
                    if _worker_games(probe) != known_games():
                        pool.shutdown(wait=True, cancel_futures=True)
                        self._pool = None
                        for chunk, entry in in_flight:
                            yield (
                                chunk,
                                entry if isinstance(entry, list) else _run_here(task, chunk),
                            )
                        for chunk in chunks:
                            yield chunk, _run_here(task, chunk)
                        return
                    probe = None
                in_workers -= 1
                result = _result(chunk, head, self.stopped)
            in_flight.popleft()
            handed = time.perf_counter()
            yield result
            helping.written(time.perf_counter() - handed)


class _Helping:
    """When the writing process prepares a chunk itself rather than wait for the
    workers' (the oldest chunk is not back, and it may hold more).

    It takes its share of the chunks, the share with which it and the workers
    finish together: it writes every chunk (``write`` seconds each, what its caller
    takes between two chunks) and prepares a share ``h`` of them (``prepare``
    seconds each), the ``k`` workers the rest, each taken to prepare a chunk as
    fast as this process, so ``h p + w = (1 - h) p / k``, ``h = (p - k w) / (p
    (k + 1))``; none when writing is the slower. Helping whenever the oldest
    chunk was not back had it prepare a third of a 3,000-game import with one
    worker, where writing a chunk costs about what preparing one does: those
    chunks waited behind the worker's to be written, and were written at the
    end, the worker idle (benchmarks/results/2026-12-03-import.md).

    And when the workers are slower than that (starting, or on a busy core), it
    helps once its waits add up to a chunk's preparation: waiting up to what
    helping costs, then helping, costs at most twice the better choice. The
    waits banked are capped (:data:`_MAX_BANKED_CHUNKS`), so that an old one
    (the workers starting) buys no help when writing has become the slower.
    Before the first chunk is handed it only waits, so: for the worker's first
    chunk, at most a chunk's preparation. Both times are running means, the
    newest weighing half.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.prepare = _FIRST_PREPARE_ESTIMATE
        self.write: float | None = None  # not known until a chunk is handed
        self.sent = 0  # chunks sent to the workers
        self.helped = 0  # chunks prepared here
        self.waited = 0.0

    def share(self) -> float:
        """The share of the chunks this process prepares to finish with the workers
        (none before a chunk's writing is timed: it waits first)."""
        if self.write is None:
            return 0.0
        k, p = self.workers, self.prepare
        return max(0.0, (p - k * self.write) / (p * (k + 1)))

    def now(self) -> bool:
        """Whether to prepare the next chunk here now (rather than wait)."""
        taken = self.sent + self.helped
        return self.helped < self.share() * taken or self.waited >= self.prepare

    def wait(self, head: Future) -> None:
        """Wait for ``head`` until the waits banked reach a chunk's preparation."""
        from concurrent.futures import wait  # loaded with the pool

        started = time.perf_counter()
        wait([head], timeout=self.prepare - self.waited)
        self.waited = min(
            self.waited + time.perf_counter() - started, _MAX_BANKED_CHUNKS * self.prepare
        )

    def prepared(self, seconds: float) -> None:
        """A chunk prepared here in ``seconds``."""
        self.helped += 1
        self.prepare = (self.prepare + seconds) / 2
        self.waited = max(0.0, self.waited - seconds)

    def written(self, seconds: float) -> None:
        """A chunk handed to the caller, who took ``seconds`` before the next."""
        self.write = seconds if self.write is None else (self.write + seconds) / 2


def known_games() -> list[tuple[str, str]]:
    """The games this process can replay (name, class), to check a worker knows the same."""
    return [
        (game.name, f"{type(game).__module__}.{type(game).__qualname__}") for game in all_games()
    ]


def start_worker() -> None:
    """Set up a worker process: Ctrl-C goes to the whole process group, and the main
    process stops the work (an import after its last whole batch) and shuts the
    workers down, so they ignore it; and a worker exits when the main process dies
    (killed, it cannot shut them down), instead of waiting for work forever."""
    import multiprocessing  # here: a run in one process does without it

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()  # returns when the parent's end of the start-up pipe closes
    os._exit(1)


def _submit(
    pool: Executor, task: Callable[[ChunkData], list[Any]], chunk: Chunk, stopped: str
) -> Future:
    """The chunk sent to a worker (the pool may already know that one died)."""
    from concurrent.futures.process import BrokenProcessPool  # loaded with the pool

    try:
        return pool.submit(task, chunk.data)
    except BrokenProcessPool as error:
        error.add_note(stopped)
        raise


def _worker_games(probe: Future) -> list[tuple[str, str]]:
    """The games a worker knows (the first task, so it also checks workers start)."""
    from concurrent.futures.process import BrokenProcessPool  # loaded with the pool

    try:
        return probe.result()
    except BrokenProcessPool as error:
        error.add_note(
            "the worker processes could not start (their error is above); a script "
            "that imports or validates with several workers must call import_paths or "
            "validate under 'if __name__ == \"__main__\":', as any program that starts "
            "processes, or pass workers=1"
        )
        raise


def _run_here(task: Callable[[ChunkData], list[Any]], chunk: Chunk) -> list[Any]:
    try:
        return task(chunk.data)
    except Exception as error:
        _add_place(error, chunk, "in this process")
        raise


def _result(chunk: Chunk, future: Future, stopped: str) -> tuple[Chunk, list]:
    from concurrent.futures.process import BrokenProcessPool  # loaded with the pool

    try:
        return chunk, future.result()
    except BrokenProcessPool as error:
        error.add_note(stopped)
        raise
    except Exception as error:
        _add_place(error, chunk, "in a worker process")
        raise


def _add_place(error: Exception, chunk: Chunk, where: str) -> None:
    """Say which records an unexpected error (a bug: bad input makes problems, not
    errors) came from."""
    name, _, records = chunk.data
    first, last = records[0][1], records[-1][1]
    which = f"record {first}" if first == last else f"records {first} to {last}"
    error.add_note(f"while reading and replaying {which} (from 0) of {name}, {where}")
