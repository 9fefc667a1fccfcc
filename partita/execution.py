"""One execution layer: where partita's parallel work runs.

Self-play, opening books and balance counts spread their work over processes or
machines through :func:`open_executor`, which gives a
:class:`concurrent.futures.Executor`. An import's or a validation's chunks go
through it on a cluster (``--scheduler``), and locally through the bulk wing's
own tuned process pool (:mod:`partita.bulk.workers`, where this process also
works while it waits, and whose workers may start with :class:`QuietForkContext`):

* ``workers=1``: the work runs inline, in this process, as it is submitted (no
  process to start, nothing pickled: the library's default and the reference
  every parallel run must match);
* ``workers=N``: ``N`` local worker processes (a ``ProcessPoolExecutor``, started
  with ``spawn``: a fresh interpreter, the same on every platform);
* ``scheduler=ADDRESS``: a Dask distributed cluster (``distributed.Client(ADDRESS)
  .get_executor()`` offers the same interface). ``ADDRESS`` is a scheduler's
  address (``tcp://10.0.0.5:8786``), or ``local:N`` for a ``LocalCluster`` of ``N``
  single-threaded worker processes started here for the run (tests, benchmarks, a
  try-out of the cluster path on one machine). Dask is the optional extra
  ``partita[cluster]``; without it :func:`check_scheduler` says what to install.

Tasks are module-level functions of plain values: seeds, positions as text,
finished rows come back. Results stream back with :meth:`Execution.map_ordered`,
in input order, a bounded number in flight, so the one process that writes
SQLite consumes them as they come and memory stays flat.

Ctrl-C: local worker processes start with SIGINT blocked and then ignore it (the
terminal sends it to the whole process group, even while they start), and a local
cluster's processes start with it ignored; this process gets ``KeyboardInterrupt``,
cancels what has not started, stops the workers and leaves without their
tracebacks. A worker process whose parent dies exits too, instead of waiting for
work forever.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import re
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, InvalidStateError, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from multiprocessing.context import ForkContext, ForkProcess, SpawnContext, SpawnProcess
from typing import Any

from partita.cores import usable_cpus
from partita.errors import PartitaError

__all__ = [
    "CLUSTER_EXTRA",
    "IN_FLIGHT_PER_WORKER",
    "INTERRUPT_CHECK_SECONDS",
    "SCHEDULER_VARIABLE",
    "ClusterUnavailable",
    "Execution",
    "InlineExecutor",
    "QuietForkContext",
    "QuietSpawnContext",
    "check_scheduler",
    "default_workers",
    "open_executor",
    "quiet_context",
    "waited",
]

#: The environment variable a command reads when ``--scheduler`` is not given.
SCHEDULER_VARIABLE = "PARTITA_SCHEDULER"
#: What to install for the cluster path.
CLUSTER_EXTRA = "pip install 'partita[cluster]'"
#: Tasks in flight per worker in :meth:`Execution.map_ordered`: enough that no
#: worker waits for the next task, few enough that memory stays small.
IN_FLIGHT_PER_WORKER = 3
#: The longest a wait for a task's result goes without looking for a Ctrl-C: Python
#: runs its SIGINT handler in the main thread, and a signal the kernel gives to
#: another thread (a pool's, a progress bar's) does not end the main thread's wait.
INTERRUPT_CHECK_SECONDS = 0.2
#: How long to wait for a scheduler to answer.
CONNECT_TIMEOUT = "20s"

_LOCAL = re.compile(r"local(?::([1-9][0-9]*))?")


class ClusterUnavailable(PartitaError):
    """The cluster path was asked for and cannot be used (not installed, an
    address that is none, a scheduler that does not answer)."""


def check_scheduler(address: str) -> None:
    """Refuse, before any work, a scheduler address partita cannot use: Dask not
    installed (naming what to install), or an address of the wrong form."""
    address = address.strip()
    if not address:
        raise ClusterUnavailable("the scheduler address is empty")
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ClusterUnavailable(
            f"--scheduler needs Dask's distributed package: {CLUSTER_EXTRA}"
        ) from None
    if address.startswith("local") and _LOCAL.fullmatch(address) is None:
        raise ClusterUnavailable(
            f"scheduler '{address}': a local cluster is local:N, N worker processes (local:2)"
        )


def default_workers(tasks: int) -> int:
    """Local workers for ``tasks`` tasks when none is asked for: one per CPU this
    process may use, no more than there are tasks (1: inline)."""
    return max(1, min(usable_cpus(), tasks))


class InlineExecutor(Executor):
    """Runs each task in this process when it is submitted: ``workers=1``."""

    def __init__(self) -> None:
        self._shut = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if self._shut:
            raise RuntimeError("cannot submit to an executor that was shut down")
        future: Future = Future()
        future.set_running_or_notify_cancel()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:
            if not isinstance(error, Exception):
                raise  # Ctrl-C and exits are not a task's result
            future.set_exception(error)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._shut = True


class Execution(Executor):
    """An executor as partita uses it: ``kind`` (``"inline"``, ``"processes"`` or
    ``"dask"``), ``workers`` (tasks that run at once), and results in input order
    through :meth:`map_ordered`. Made by :func:`open_executor`."""

    def __init__(self, inner: Executor, kind: str, workers: int, close: Callable[[], None]):
        self.inner = inner
        self.kind = kind
        self.workers = workers
        self._close = close
        self._pending: set[Future] = set()

    @property
    def inline(self) -> bool:
        return self.kind == "inline"

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future = self.inner.submit(fn, *args, **kwargs)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)
        return future

    def map_ordered(
        self,
        fn: Callable[[Any], Any],
        items: Iterable[Any],
        *,
        window: int | None = None,
    ) -> Iterator[Any]:
        """``fn(item)`` for each item, in input order, at most ``window`` tasks in
        flight (default: a few per worker). A task's exception is raised here, in
        its turn; leaving the loop early (or Ctrl-C) cancels the tasks not started."""
        if window is None:
            window = max(1, IN_FLIGHT_PER_WORKER * self.workers)
        if self.inline:
            for item in items:
                yield fn(item)
            return
        iterator = iter(items)
        in_flight: deque[Future] = deque()  # in input order
        in_workers = 0
        try:
            while True:
                while in_workers < window:
                    item = next(iterator, _END)
                    if item is _END:
                        break
                    in_flight.append(self.submit(fn, item))
                    in_workers += 1
                if not in_flight:
                    return
                head = in_flight.popleft()
                in_workers -= 1
                yield waited(head)
        finally:
            for entry in in_flight:
                entry.cancel()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if cancel_futures:
            for future in list(self._pending):
                future.cancel()
        self._close()

    def __repr__(self) -> str:
        return f"<Execution {self.kind}, {self.workers} worker{'s' * (self.workers != 1)}>"


_END = object()


def waited(future: Future) -> Any:
    """The result of ``future``, looking for a Ctrl-C several times a second while
    it runs (a plain ``result()`` would hold it off until the task ends)."""
    try:
        while not wait((future,), timeout=INTERRUPT_CHECK_SECONDS).done:
            pass
        return future.result()
    except BrokenProcessPool as error:
        error.add_note(
            "a worker process stopped (killed, out of memory, or it could not start: a "
            "script that uses several workers must start them under "
            "'if __name__ == \"__main__\":', as any program that starts processes); "
            "what was written before is kept, and running again completes it"
        )
        raise


@contextmanager
def open_executor(
    workers: int = 1,
    *,
    scheduler: str | None = None,
    initializer: Callable[..., object] | None = None,
    initargs: tuple = (),
    inline: bool = True,
) -> Iterator[Execution]:
    """An :class:`Execution` for the block (see the module docstring), shut down
    at its end; on an exception (Ctrl-C too) the tasks not started are dropped and
    the local workers stopped at once.

    ``inline=False``: ``workers=1`` is one worker process, not this process.

    ``initializer(*initargs)`` runs once in every worker process (local or on the
    cluster), never in this process: inline work runs where everything is set up.
    ``scheduler`` (an address, ``local:N``) takes precedence over ``workers``.
    """
    if scheduler is not None:
        with _dask(scheduler, initializer, initargs) as execution:
            yield execution
        return
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if workers == 1 and inline:
        executor = InlineExecutor()
        yield Execution(executor, "inline", 1, executor.shutdown)
        return
    pool = ProcessPoolExecutor(
        workers,
        mp_context=QuietSpawnContext(),
        initializer=_start_worker,
        initargs=(initializer, initargs),
    )
    execution = Execution(pool, "processes", workers, lambda: None)
    try:
        yield execution
    except BaseException:
        _stop_pool(pool)
        raise
    else:
        pool.shutdown(wait=True)


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """SIGINT blocked in this thread while it starts a worker process: the process
    inherits the mask (through a fork, and an exec too), so a Ctrl-C while it
    starts up (before its initializer ignores SIGINT) prints no traceback; here a
    Ctrl-C meanwhile waits, or goes to another thread, and is not lost."""
    if not hasattr(signal, "pthread_sigmask"):  # not on every platform
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


class _QuietSpawnProcess(SpawnProcess):
    """A spawned worker process that never sees Ctrl-C (:func:`_ctrl_c_held`); the
    process that started it stops the run and the workers."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:  # noqa: N802 (multiprocessing's name)
        with _ctrl_c_held():
            return SpawnProcess._Popen(process_obj)


class QuietSpawnContext(SpawnContext):
    """The ``spawn`` start method, with workers that start deaf to Ctrl-C: the
    context of every local worker pool (here and an import's)."""

    Process = _QuietSpawnProcess


class _QuietForkProcess(ForkProcess):
    """A forked worker process that never sees Ctrl-C (:func:`_ctrl_c_held`)."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:  # noqa: N802 (multiprocessing's name)
        with _ctrl_c_held():
            return ForkProcess._Popen(process_obj)


class QuietForkContext(ForkContext):
    """The ``fork`` start method, with workers that start deaf to Ctrl-C: only
    where :func:`partita.cores.worker_start_method` says it is safe."""

    Process = _QuietForkProcess


def quiet_context(method: str) -> QuietForkContext | QuietSpawnContext:
    """The quiet context of a start method (:func:`partita.cores.worker_start_method`)."""
    return QuietForkContext() if method == "fork" else QuietSpawnContext()


def _start_worker(initializer: Callable[..., object] | None, initargs: tuple) -> None:
    """Set up a local worker process: Ctrl-C is this process's to handle, and a
    worker exits when this process dies (killed, it cannot shut them down)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()  # returns when the parent's end of the start-up pipe closes
    os._exit(1)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Drop the queued tasks and end the workers now, without waiting for the
    tasks they run (their results would be thrown away)."""
    # Taken before the shutdown, which forgets them (and would wait, at the
    # interpreter's exit, for each to finish the task it runs).
    processes = dict(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=False, cancel_futures=True)
    for process in list(processes.values()):
        with suppress(Exception):
            process.terminate()
    for process in list(processes.values()):
        with suppress(Exception):
            process.join(5)


# -- the Dask path ----------------------------------------------------------------------------


@contextmanager
def _dask(
    address: str, initializer: Callable[..., object] | None, initargs: tuple
) -> Iterator[Execution]:
    check_scheduler(address)
    import distributed

    address = address.strip()
    cluster = None
    local = _LOCAL.fullmatch(address)
    try:
        if local is not None:
            count = int(local.group(1) or 2)
            with _ctrl_c_blocked():  # its processes start deaf to Ctrl-C
                cluster = distributed.LocalCluster(
                    n_workers=count,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # any free port: 8787 may be taken
                    silence_logs=logging.ERROR,
                )
                client = distributed.Client(cluster)
        else:
            client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as error:
        if cluster is not None:
            cluster.close()
        raise ClusterUnavailable(f"cannot reach the Dask scheduler at {address}: {error}") from None
    race = _CancelledRace()
    logging.getLogger("tornado.application").addFilter(race)
    try:
        if initializer is not None:
            client.register_plugin(_setup_plugin(initializer, initargs), name="partita-setup")
        threads = sum(client.nthreads().values()) or 1
        execution = Execution(client.get_executor(pure=False), "dask", threads, lambda: None)
        try:
            yield execution
        except BaseException:
            race.stopping = True
            execution.shutdown(cancel_futures=True)
            raise
    finally:
        with suppress(Exception):
            client.close()
        if cluster is not None:
            with suppress(Exception):
                cluster.close()
        logging.getLogger("tornado.application").removeFilter(race)


class _CancelledRace(logging.Filter):
    """Drops the errors Dask's client logs (through tornado) when a run is cut
    short (leaving a loop early, Ctrl-C): a task's result arriving just as its
    future is cancelled (it sets the result of the cancelled future), and, once
    ``stopping``, results still being fetched as the cluster closes. Races of the
    stopping, not failures of the work; the run's own exception says what happened."""

    def __init__(self) -> None:
        super().__init__()
        self.stopping = False

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (self.stopping or isinstance(error, InvalidStateError))


@contextmanager
def _ctrl_c_blocked() -> Iterator[None]:
    """Ctrl-C held back for the block, and kept from the processes started in it
    (a local cluster's nannies and workers, started from its event loop's thread):
    SIGINT is blocked in this thread (a thread started here inherits that) and
    ignored (a process started meanwhile inherits that, and its Python then leaves
    SIGINT ignored), so a Ctrl-C, which the terminal sends to the whole process
    group, reaches this process alone and prints no worker's traceback. A Ctrl-C
    while the cluster starts (a few seconds) is lost, as a thread of the cluster
    takes it while it is ignored: the next one stops the run."""
    if not hasattr(signal, "pthread_sigmask"):  # not on every platform
        yield
        return
    main = threading.current_thread() is threading.main_thread()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    handler = signal.getsignal(signal.SIGINT) if main else None
    if handler is not None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _setup_plugin(initializer: Callable[..., object], initargs: tuple) -> Any:
    """A Dask worker plugin running ``initializer(*initargs)`` on every worker,
    those that join later included."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class PartitaSetup(WorkerPlugin):
        def setup(self, worker: Any) -> None:
            initializer(*initargs)

    return PartitaSetup()
