"""Pieces shared by the gravity search cores: budgets, the table, bit tricks."""

from __future__ import annotations

import time
from collections.abc import Callable

from partita.errors import BudgetExceeded

__all__ = ["BudgetExceeded", "SearchExhausted", "checkpoint"]

#: What a core's ``_build`` returns: the negamax closure, a reader of its node
#: count and a call that makes it look at the budget at the next node.
Closures = tuple[Callable[..., int], Callable[[], int], Callable[[], None]]


class SearchExhausted(Exception):
    """Raised inside a search core when its node or time limit is reached.

    ``low`` and ``high`` bound the score of the position being solved as far as the
    search got (``None`` when it stopped before its first question was answered:
    then the bounds are the board's)."""

    def __init__(
        self, nodes: int, reason: str, low: int | None = None, high: int | None = None
    ) -> None:
        super().__init__(f"search stopped after {nodes} nodes ({reason})")
        self.nodes = nodes
        self.reason = reason
        self.low = low
        self.high = high


#: Nodes searched between two looks at the clock.
CHECK_EVERY = 4096


def checkpoint(nodes: int, node_limit: int | None, deadline: float | None) -> int:
    """Raise :class:`SearchExhausted` if the budget is spent, else return the node
    count at which to look again."""
    if node_limit is not None and nodes >= node_limit:
        raise SearchExhausted(nodes, "nodes")
    if deadline is not None and time.perf_counter() > deadline:
        raise SearchExhausted(nodes, "time")
    next_check = nodes + CHECK_EVERY
    if node_limit is not None and node_limit < next_check:
        return node_limit
    return next_check


class SearchCore:
    """What the search cores share: the bounded transposition table, the node count
    and the budget. A subclass's ``_build`` returns its negamax closure and two
    helpers of the closure: one that reads its node count and one that makes it
    look at the budget again at the next node."""

    def __init__(
        self, table_size: int, node_limit: int | None = None, deadline: float | None = None
    ) -> None:
        #: Most positions the transposition table holds; it is emptied when full.
        self.table_size = max(1, table_size)
        self.node_limit = node_limit
        self.deadline = deadline
        self.table: dict[int, int] = {}

    def _start(self) -> None:
        self._negamax, self._count, self._recheck = self._build()

    def _build(self) -> Closures:  # pragma: no cover - every core defines it
        raise NotImplementedError

    @property
    def nodes(self) -> int:
        """Nodes searched so far by this core."""
        return self._count()

    def clear(self) -> None:
        """Empty the transposition table."""
        self.table.clear()

    def entries(self) -> int:
        """How many positions the transposition table holds."""
        return len(self.table)

    def set_budget(self, node_limit: int | None, deadline: float | None) -> None:
        """Stop once :attr:`nodes` reaches ``node_limit`` (a total, not a difference)
        or ``time.perf_counter()`` passes ``deadline`` (``None``: no limit)."""
        self.node_limit = node_limit
        self.deadline = deadline
        self._recheck()

    def _checkpoint(self, nodes: int) -> int:
        """Raise if the budget is spent; else the node count of the next check."""
        return checkpoint(nodes, self.node_limit, self.deadline)


def winning_cells(stones: int, stride: int) -> int:
    """Cells (occupied or not) that would complete a line of four of ``stones`` on a
    board whose lines are one bit apart one way and ``stride`` bits the other, with a
    spare bit closing each line of bits (so that no shift wraps onto the next)."""
    r = 0
    for shift in (1, stride, stride - 1, stride + 1):
        q = (stones << shift) & (stones << 2 * shift)
        r |= q & (stones << 3 * shift)
        r |= q & (stones >> shift)
        q = (stones >> shift) & (stones >> 2 * shift)
        r |= q & (stones << shift)
        r |= q & (stones >> 3 * shift)
    return r


def bisect_score(window: Callable[[int, int], int], low: int, high: int) -> int:
    """The exact score in ``[low, high]`` by null-window searches: ``window(alpha,
    beta)`` is a fail-soft negamax. Each search asks "is the score above m?", with m
    first halving the distance to 0 (Pons: draws and near results are common)."""
    while low < high:
        middle = low + (high - low) // 2
        if middle <= 0 and low // 2 < middle:
            middle = low // 2
        elif middle >= 0 and high // 2 > middle:
            middle = high // 2
        try:
            result = window(middle, middle + 1)
        except SearchExhausted as error:
            error.low, error.high = low, high
            raise
        if result <= middle:
            high = result
        else:
            low = result
    return low


class BitMap:
    """A fixed map of bits (bit ``i`` to bit ``targets[i]``), applied a byte at a
    time through precomputed tables: how a position in the engine's layout is turned
    into a core's layout, or into its image under a symmetry."""

    __slots__ = ("tables",)

    def __init__(self, targets: list[int]) -> None:
        self.tables: list[list[int]] = []
        for start in range(0, len(targets), 8):
            chunk = targets[start : start + 8]
            table = [0] * 256
            for value in range(256):
                image = 0
                for offset, target in enumerate(chunk):
                    if value >> offset & 1:
                        image |= 1 << target
                table[value] = image
            self.tables.append(table)

    def __call__(self, bits: int) -> int:
        image = 0
        for table in self.tables:
            if not bits:
                break
            image |= table[bits & 255]
            bits >>= 8
        return image
