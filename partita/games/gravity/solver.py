"""Exact solver for the gravity games (Connect Four, Forza 4x4).

Scores follow the convention of Pascal Pons' Connect Four test sets, generalised:
from the side to move, 0 is a draw, a win is ``W*H/2 + 1`` minus the stones the
winner has played when the game ends (22 - stones on the 7x6 Connect Four board,
33 - stones on the 8x8 Forza 4x4 board), a loss the negative of the opponent's win.
So the sooner the win, the higher the score, and perfect play maximises it.

Two search cores do the work (see :mod:`partita.games.gravity._topentry` for
top-entry boards, :mod:`partita.games.gravity._anyentry` for boards with entries from
several sides); a compiled core (``partita.games.gravity._native``) is used instead
when it was built, and gives the same answers. This module turns the engine's
states into theirs, scores every legal move and enforces the budgets.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from partita.analysis.solving import DEFAULT_TABLE_SIZE, score_value
from partita.errors import PartitaError
from partita.games.gravity._anyentry import AnyEntrySearch
from partita.games.gravity._search import BudgetExceeded, SearchExhausted
from partita.games.gravity._topentry import TopEntrySearch
from partita.games.gravity.rules import GravityRules, GravityState

__all__ = [
    "DEFAULT_TABLE_SIZE",
    "BudgetExceeded",
    "MoveScore",
    "Solution",
    "Solver",
    "native_available",
    "plies_from_score",
    "score_from_plies",
    "score_value",
    "solve",
]


try:  # the optional compiled core
    from partita.games.gravity import _native  # type: ignore[attr-defined, unused-ignore]
except ImportError:  # pragma: no cover - depends on the build
    _native = None


class _Core(Protocol):
    """What the solver asks of a search core (the Python ones and the compiled one)."""

    table_size: int

    @property
    def nodes(self) -> int: ...

    def clear(self) -> None: ...

    def score(self, x: int, o: int) -> int: ...

    def set_budget(self, node_limit: int | None, deadline: float | None) -> None: ...


def native_available() -> bool:
    """Whether the compiled search core was built and can be used."""
    return _native is not None


def plies_from_score(score: int, cells: int, stones: int) -> int | None:
    """Plies from a position with ``stones`` on a board of ``cells`` to the end of a
    game won with this score (``None`` for a draw, whose length the score does not
    tell). The winner's stones at the end are ``cells // 2 + 1 - |score|``; x, who
    moves first, ends a game it wins with one stone more than o."""
    if score == 0:
        return None
    winner_stones = cells // 2 + 1 - abs(score)
    side_to_move_is_x = stones % 2 == 0
    winner_is_x = side_to_move_is_x == (score > 0)
    total = 2 * winner_stones - 1 if winner_is_x else 2 * winner_stones
    return total - stones


def score_from_plies(value: str, plies: int | None, cells: int, stones: int) -> int:
    """The score of a position with ``stones`` whose result for the side to move is
    ``value`` (``"win"``, ``"draw"``, ``"loss"``), the game ending ``plies`` later."""
    if value == "draw":
        return 0
    if plies is None:
        raise ValueError("a win or a loss needs its distance in plies")
    winner_stones = (stones + plies + 1) // 2
    score = cells // 2 + 1 - winner_stones
    return score if value == "win" else -score


@dataclass(frozen=True, slots=True)
class MoveScore:
    """One legal move and the score the side to move gets by playing it."""

    move: Any
    score: int

    @property
    def value(self) -> str:
        return score_value(self.score)


@dataclass(frozen=True, slots=True)
class Solution:
    """A solved position: its score, every legal move with its score (in the
    engine's order of legal moves), and what it cost.

    ``stones`` and ``cells`` (stones on the board, cells of the board) turn scores
    into distances: see :meth:`own_moves` and :func:`plies_from_score`.
    """

    score: int
    moves: tuple[MoveScore, ...]
    stones: int
    cells: int
    nodes: int
    seconds: float

    @property
    def value(self) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` for the side to move."""
        return score_value(self.score)

    @property
    def best(self) -> tuple[Any, ...]:
        """The moves that keep the score, in the engine's order."""
        return tuple(item.move for item in self.moves if item.score == self.score)

    def own_moves(self, score: int) -> int | None:
        """How many moves the side to move plays until a game with this score ends,
        the next one included ("wins in 7"); ``None`` for a draw."""
        plies = plies_from_score(score, self.cells, self.stones)
        return None if plies is None else (plies + 1) // 2

    def as_dict(self, token: Callable[[Any], str]) -> dict[str, Any]:
        """The data ``partita solve --json`` prints; ``token`` writes a move."""
        return {
            "value": self.value,
            "score": self.score,
            "best": [token(move) for move in self.best],
            "moves": [
                {"move": token(item.move), "score": item.score, "value": item.value}
                for item in self.moves
            ],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
        }


class Solver:
    """Exact solver for the positions of one gravity game.

    ``game`` is a :class:`~partita.games.gravity.GravityRules` engine (or a
    notation wrapping one) with lines of four. The transposition table keeps at
    most ``table_size`` positions and lives as long as the solver, so solving
    related positions with one solver is faster. ``backend`` is ``"auto"`` (the
    compiled core if built), ``"python"`` or ``"native"``.
    """

    def __init__(
        self, game: Any, *, table_size: int = DEFAULT_TABLE_SIZE, backend: str = "auto"
    ) -> None:
        rules = getattr(game, "rules", game)
        if not isinstance(rules, GravityRules):
            name = getattr(rules, "name", type(rules).__name__)
            raise PartitaError(
                f"the solver handles the gravity games (forza4x4, connect4), not {name}"
            )
        if rules.line_length != 4:
            raise PartitaError(
                f"the solver handles lines of four, not of {rules.line_length} ({rules.name})"
            )
        if backend not in ("auto", "python", "native"):
            raise ValueError(f"backend is auto, python or native, not {backend!r}")
        native_fits = _native is not None and _native.supports(
            rules.width, rules.height, rules.entry_sides
        )
        if backend == "native" and not native_fits:
            raise PartitaError(
                "the compiled solver core is not built on this installation"
                if _native is None
                else f"the compiled solver core does not handle {rules.name}"
            )
        self.rules = rules
        self.cells = rules.width * rules.height
        use_native = native_fits and backend != "python"
        self.backend = "native" if use_native else "python"
        self.core: _Core
        symmetries = _symmetries(rules) if rules.entry_sides != "t" else None
        if use_native:
            self.core = _native.Search(
                rules.width, rules.height, rules.entry_sides, symmetries or [], table_size
            )
        elif rules.entry_sides == "t":
            self.core = TopEntrySearch(rules.width, rules.height, table_size=table_size)
        else:
            self.core = AnyEntrySearch(
                rules.width,
                rules.height,
                rules.entry_sides,
                symmetries=symmetries,
                table_size=table_size,
            )

    @property
    def table_size(self) -> int:
        return self.core.table_size

    @property
    def nodes(self) -> int:
        """Nodes searched by this solver so far."""
        return self.core.nodes

    def clear(self) -> None:
        """Forget every position (empty the transposition table)."""
        self.core.clear()

    # -- solving ---------------------------------------------------------------------------
    def score(
        self,
        state: GravityState,
        *,
        max_nodes: int | None = None,
        max_seconds: float | None = None,
    ) -> int:
        """The exact score of ``state`` for the side to move.

        ``BudgetExceeded`` if ``max_nodes`` nodes or ``max_seconds`` seconds are not
        enough (``None``: no limit).
        """
        outcome_score = self._terminal_score(state)
        if outcome_score is not None:
            return outcome_score
        with self._budget(max_nodes, max_seconds):
            return self.core.score(state.x, state.o)

    def solve(
        self,
        state: GravityState,
        *,
        max_nodes: int | None = None,
        max_seconds: float | None = None,
    ) -> Solution:
        """The score of ``state`` and of each of its legal moves (budget as in
        :meth:`score`, for the whole call)."""
        start_nodes = self.nodes
        started = time.perf_counter()
        rules = self.rules
        scores: list[tuple[Any, int]] = []
        if self._terminal_score(state) is None:
            by_landing: dict[int, int] = {}
            with self._budget(max_nodes, max_seconds):
                for move in rules.legal_moves(state):
                    child = rules.apply(state, move)
                    landing = (child.x | child.o) ^ (state.x | state.o)
                    if landing not in by_landing:
                        child_score = self._terminal_score(child)
                        if child_score is None:
                            child_score = self.core.score(child.x, child.o)
                        by_landing[landing] = -child_score
                    scores.append((move, by_landing[landing]))
        return self.solution(
            state,
            scores,
            nodes=self.nodes - start_nodes,
            seconds=time.perf_counter() - started,
        )

    def solution(
        self,
        state: GravityState,
        scores: Sequence[tuple[Any, int]],
        *,
        nodes: int = 0,
        seconds: float = 0.0,
    ) -> Solution:
        """The :class:`Solution` of ``state`` from its legal moves' scores found
        elsewhere (an opening book), without searching: ``scores`` pairs each legal
        move (in the engine's order) with its score; a finished game needs none."""
        terminal = self._terminal_score(state)
        moves = () if terminal is not None else tuple(MoveScore(m, s) for m, s in scores)
        if terminal is None and not moves:
            raise ValueError("a position that is not over needs the scores of its moves")
        return Solution(
            score=terminal if terminal is not None else max(item.score for item in moves),
            moves=moves,
            stones=(state.x | state.o).bit_count(),
            cells=self.cells,
            nodes=nodes,
            seconds=seconds,
        )

    def _terminal_score(self, state: GravityState) -> int | None:
        """The score of a finished game for the side to move, ``None`` if not over."""
        outcome = self.rules.outcome(state)
        if outcome is None:
            return None
        if outcome.winner is None:
            return 0
        winner = outcome.winner
        winner_stones = (state.x if winner == 0 else state.o).bit_count()
        score = self.cells // 2 + 1 - winner_stones
        return score if winner == self.rules.side_to_move(state) else -score

    @contextmanager
    def _budget(self, max_nodes: int | None, max_seconds: float | None) -> Iterator[None]:
        """Set the core's limits for one call; running out becomes ``BudgetExceeded``."""
        core = self.core
        limit = None if max_nodes is None else core.nodes + max_nodes
        deadline = None if max_seconds is None else time.perf_counter() + max_seconds
        core.set_budget(limit, deadline)
        try:
            yield
        except SearchExhausted as error:
            if error.reason == "time":
                raise BudgetExceeded(
                    f"the time budget of {max_seconds:g} s ran out before the position was solved"
                ) from None
            raise BudgetExceeded(
                f"the budget of {max_nodes} nodes ran out before the position was solved"
            ) from None
        finally:
            core.set_budget(None, None)


def _symmetries(rules: GravityRules) -> list[list[int]]:
    """Each symmetry of the board as a permutation of the engine's cell indices."""
    permutations = []
    for symmetry in range(rules.symmetry_count):
        images = []
        for bit in range(rules.width * rules.height):
            single = GravityState(1 << bit, 0, 0, 0)
            images.append(rules.transform(single, symmetry).x.bit_length() - 1)
        permutations.append(images)
    return permutations


def solve(
    game: Any,
    state: GravityState,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    table_size: int = DEFAULT_TABLE_SIZE,
) -> Solution:
    """Solve one position of a gravity game with a fresh :class:`Solver`."""
    solver = Solver(game, table_size=table_size)
    return solver.solve(state, max_nodes=max_nodes, max_seconds=max_seconds)
