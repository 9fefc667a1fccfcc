"""A report's progress: the steps done and planned (each section of each game's
part, each game replayed for the viewer, each chart drawn), reported to the
caller's ``progress(done, total)``."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Steps"]


class Steps:
    """A count of work done and planned, reported as ``progress(done, total)``."""

    def __init__(self, progress: Callable[[int, int], object] | None, done: int = 0) -> None:
        self.progress = progress
        self.done = done
        self.total = done

    def add(self, count: int) -> None:
        """Plan ``count`` more steps."""
        self.total += count
        self._report()

    def advance(self, count: int = 1) -> None:
        """``count`` steps done."""
        self.done += count
        self._report()

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self.done, self.total)
