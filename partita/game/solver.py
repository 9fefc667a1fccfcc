"""The exact-solver contract: what a game's ``GameSpec.solver`` factory makes.

A game with an exact solver names a :class:`SolverFactory` in the ``solver`` field
of its :class:`~partita.game.spec.GameSpec`. ``partita solve``, ``annotate``,
``endgame``, the opening book and the web app's analysis use a solver through
these protocols alone (:mod:`partita.analysis.solving` finds and makes it), so a
plugin's solver needs no base class: any object with these members will do.

Scores are negamax scores for the side to move: positive a win, 0 a draw,
negative a loss, larger better (a faster win, a slower loss); a move's score for
its mover is minus the score of the position it leads to for the side to move
there (or that score, when the same side moves again). Every solution is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

__all__ = ["BookableSolver", "ExactSolution", "ExactSolver", "MoveScore", "SolverFactory"]


class MoveScore(Protocol):
    """One legal move of a solved position and the score its mover gets."""

    @property
    def move(self) -> Any: ...

    @property
    def score(self) -> int: ...


class ExactSolution(Protocol):
    """A solved position."""

    @property
    def score(self) -> int:
        """The position's score for the side to move."""
        ...

    @property
    def value(self) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` for the side to move."""
        ...

    @property
    def best(self) -> Sequence[Any]:
        """The moves that keep the score."""
        ...

    @property
    def moves(self) -> Sequence[MoveScore]:
        """Every legal move with its score."""
        ...

    @property
    def nodes(self) -> int:
        """Positions searched (0 for an answer from a book)."""
        ...

    @property
    def seconds(self) -> float: ...

    @property
    def engine(self) -> str:
        """What answered: ``"search"``, ``"book"``, or an engine the game names."""
        ...

    def own_moves(self, score: int) -> int | None:
        """How many moves the side to move plays until a game with this score ends,
        the next one included ("wins in 7"); ``None`` for a draw."""
        ...

    def as_dict(self, token: Callable[[Any], str]) -> dict[str, Any]:
        """The data ``partita solve --json`` prints (``value``, ``score``, ``best``,
        ``moves``, ``exact``, ``engine``, ``nodes``, ``seconds``); ``token`` writes
        a move."""
        ...


class ExactSolver(Protocol):
    """Solves positions of one configured game."""

    def solve(
        self, state: Any, *, max_nodes: int | None = None, max_seconds: float | None = None
    ) -> ExactSolution:
        """The solution of ``state``; :class:`~partita.errors.BudgetExceeded` when
        ``max_nodes`` or ``max_seconds`` runs out first, with what was found in its
        ``found`` (bounds, the moves solved, the best move so far)."""
        ...


class BookableSolver(ExactSolver, Protocol):
    """A solver that can also make a solution from move scores found elsewhere,
    without search: an opening book can then answer in front of it
    (``solver_for(game, book=...)``)."""

    def solution(
        self,
        state: Any,
        scores: Sequence[tuple[Any, int]],
        *,
        nodes: int = 0,
        seconds: float = 0.0,
    ) -> ExactSolution:
        """The solution of ``state`` from each legal move's score (in the order of
        the game's legal moves); a finished position needs none."""
        ...


class SolverFactory(Protocol):
    """What ``GameSpec.solver`` names: ``factory(notation, table_size=N)`` makes a
    solver for ``notation`` (configured by a record's tags) whose transposition
    table holds at most ``N`` positions. A factory may also take ``memory=``
    (bytes), which then sizes the table instead."""

    def __call__(self, game: Any, *, table_size: int) -> ExactSolver: ...
