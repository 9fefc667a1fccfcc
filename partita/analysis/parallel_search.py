"""Root parallelism: independent searches of one position in worker processes.

An ``mcts:N,workers=K`` agent (:class:`~partita.analysis.agents.MctsAgent`) searches
each position ``K`` times at once, each search seeded on its own and given a share
of the budget, and adds up their root statistics (:meth:`Mcts.merge`). The searches
run in ``K`` local worker processes of the execution layer
(:func:`partita.execution.open_executor`), started on the first search and kept
for the agent's life: :meth:`SearchPool.close` (the agent's ``close``) stops them.

What travels: the configured rules engine and the search's settings once per
worker (its initializer builds the :class:`Mcts` there, with the game's own
heuristic and playout policy, which need not pickle), then per search plain
values: the seed, the budget, the position and, in a hidden-information game, the
viewer and what it saw happen (``history``). The workers ignore Ctrl-C; this
process gets it while it waits (it looks for it several times a second), stops
the workers at once and lets it go on; one that comes while the workers are
handed their searches (and start, the first time) waits until they are. A
process that may not start processes (a daemonic one: a worker of a Dask
cluster) runs the same searches one after another itself: the same seeds, the
same results.
"""

from __future__ import annotations

import multiprocessing
import random
import signal
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from partita.analysis.mcts import Mcts, SearchResult
from partita.execution import Execution, open_executor, waited
from partita.game.rules import Rules

__all__ = ["SearchPool", "Share"]

#: One search of a position: its seed, its playouts (``None``: no cap) and its
#: seconds (``None``: no limit).
Share = tuple[int, int | None, float | None]

#: The search of this worker process (:func:`_start`).
_SEARCH: Mcts | None = None


class SearchPool:
    """``workers`` processes searching positions of one configured game with one
    search's settings (``settings``: the keyword arguments of :class:`Mcts`)."""

    def __init__(self, rules: Rules, settings: Mapping[str, Any], workers: int) -> None:
        self.rules = rules
        self.settings = dict(settings)
        self.workers = workers
        self._stack: ExitStack | None = None
        self._execution: Execution | None = None
        self._inline: Mcts | None = None

    @property
    def running(self) -> bool:
        """Whether worker processes are started (and not yet stopped)."""
        return self._execution is not None and not self._execution.inline

    def search(
        self,
        state: Any,
        shares: Sequence[Share],
        *,
        viewer: int | None = None,
        history: Sequence[tuple[Any, Any]] = (),
        within: Sequence[Any] | None = None,
    ) -> list[SearchResult]:
        """One search of ``state`` per share, at once, in share order (see
        :meth:`Mcts.search` for ``viewer``, ``history`` and ``within``)."""
        jobs = [
            (seed, state, playouts, seconds, viewer, tuple(history), within)
            for seed, playouts, seconds in shares
        ]
        if multiprocessing.current_process().daemon:  # may not start processes
            if self._inline is None:
                self._inline = Mcts(self.rules, **self.settings)
            return [_search_with(self._inline, job) for job in jobs]
        execution = self._execution or self._open()
        try:
            with _ctrl_c_deferred():  # a worker starts as a task is handed out
                futures = [execution.submit(_search, job) for job in jobs]
            return [waited(future) for future in futures]
        except BaseException as error:  # Ctrl-C too: the workers stop now
            self._stop(error)
            raise

    def close(self) -> None:
        """Stop the worker processes (once the searches they run are done: none
        is, between two searches); the next search starts new ones."""
        stack, self._stack, self._execution = self._stack, None, None
        if stack is not None:
            stack.close()

    def _open(self) -> Execution:
        stack = ExitStack()
        self._execution = stack.enter_context(
            open_executor(
                self.workers,
                inline=False,
                initializer=_start,
                initargs=(self.rules, self.settings),
            )
        )
        self._stack = stack
        return self._execution

    def _stop(self, error: BaseException) -> None:
        """End the workers at once, without waiting for what they search."""
        stack, self._stack, self._execution = self._stack, None, None
        if stack is not None:
            stack.__exit__(type(error), error, error.__traceback__)

    def __repr__(self) -> str:
        return f"<SearchPool {self.workers} workers{' running' * self.running}>"


@contextmanager
def _ctrl_c_deferred() -> Iterator[None]:
    """A Ctrl-C during the block raised at its end. The pool starts a worker
    process as it is handed a task, and a Ctrl-C between the start and the pool's
    note of the process would leave it unstopped, to fail as this process goes
    (a traceback on the terminal); handing out K tasks takes no time, but the
    first search's start-up is a few tenths of a second, each game."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread gets KeyboardInterrupt
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught and callable(previous):
        previous(signal.SIGINT, None)  # Python's own raises KeyboardInterrupt


def _start(rules: Rules, settings: Mapping[str, Any]) -> None:
    """A worker's set-up: the one search it runs for its pool."""
    global _SEARCH
    _SEARCH = Mcts(rules, **settings)


def _search(job: tuple) -> SearchResult:
    """One search in a worker (a task of the execution layer)."""
    if _SEARCH is None:
        raise RuntimeError("a search worker was not set up")
    return _search_with(_SEARCH, job)


def _search_with(search: Mcts, job: tuple) -> SearchResult:
    seed, state, playouts, seconds, viewer, history, within = job
    return search.search(
        state,
        random.Random(seed),
        playouts=playouts,
        seconds=seconds,
        viewer=viewer,
        history=history,
        within=within,
    )
