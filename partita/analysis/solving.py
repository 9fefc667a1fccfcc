"""Exact solvers as the framework sees them: found through a game's spec.

A game with an exact solver names its factory in the ``solver`` field of its
:class:`~partita.game.spec.GameSpec`; the contract (a factory, the solver, its
solutions, an optional ``solution(state, scores)`` for an opening book in front of
it) is the protocols of :mod:`partita.game.solver`. ``solve``, ``annotate``,
``endgame``, the book and the web app use nothing else. A factory may also take
``memory=`` (bytes) to size its transposition table (:func:`takes_memory`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from partita.errors import PartitaError
from partita.game.registry import get_spec

if TYPE_CHECKING:  # only named in annotations: the CLI imports this module at start-up
    from partita.game.notation import GameNotation
    from partita.game.solver import ExactSolver

__all__ = [
    "DEFAULT_TABLE_SIZE",
    "has_solver",
    "score_value",
    "solvable_games",
    "solver_for",
    "takes_memory",
]

#: Default bound of a solver's transposition table, in positions.
DEFAULT_TABLE_SIZE = 1 << 20


def score_value(score: int) -> str:
    """``"win"``, ``"draw"`` or ``"loss"``: the result a score means for the side to move."""
    return "win" if score > 0 else "loss" if score < 0 else "draw"


def has_solver(game: GameNotation | str) -> bool:
    name = game if isinstance(game, str) else game.name
    return get_spec(name).solver is not None


def solvable_games() -> list[str]:
    """The games that have an exact solver."""
    from partita.game.registry import all_specs

    return [spec.name for spec in all_specs() if spec.solver is not None]


def takes_memory(factory: Any) -> bool:
    """Whether a solver factory sizes its table by ``memory=``."""
    import inspect

    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    return "memory" in parameters or any(
        item.kind is inspect.Parameter.VAR_KEYWORD for item in parameters.values()
    )


def solver_for(
    game: GameNotation,
    *,
    table_size: int = DEFAULT_TABLE_SIZE,
    book: Any = None,
    memory: int | None = None,
) -> ExactSolver:
    """An exact solver for ``game`` (configured as a record's tags say), or
    ``PartitaError`` naming the games that have one; with ``book`` (a
    :class:`~partita.analysis.book.Book`), the positions the book has solved are
    answered from it at once. ``memory`` (bytes), when given, is passed on to a
    factory that takes ``memory=`` (it sizes the transposition table instead of
    ``table_size``); another factory gets ``table_size`` alone."""
    factory = get_spec(game.name).solver_factory()
    if factory is None:
        known = ", ".join(solvable_games()) or "none"
        raise PartitaError(f"{game.name} has no exact solver (games with one: {known})")
    solver: ExactSolver
    if memory is not None and takes_memory(factory):
        solver = factory(game, table_size=table_size, memory=memory)  # type: ignore[call-arg]
    else:
        solver = factory(game, table_size=table_size)
    if book is None:
        return solver
    from partita.analysis.book import BookSolver

    return BookSolver(solver, book, game)
