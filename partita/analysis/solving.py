"""Exact solvers as the framework sees them: found through a game's spec.

A game with an exact solver names its factory in the ``solver`` field of its
:class:`~partita.games.spec.GameSpec`: ``factory(notation, table_size=N)`` returns an
object whose ``solve(state, max_nodes=..., max_seconds=...)`` gives a solution with
``value`` (``"win"``, ``"draw"`` or ``"loss"`` for the side to move), ``score``
(positive a win, 0 a draw, negative a loss; larger is better), ``best`` (the best
moves), ``moves`` (every legal move with its ``score``), ``nodes`` and ``seconds``,
and ``own_moves(score)``, and that raises
:class:`~partita.errors.BudgetExceeded` when its budget runs out. ``solve`` and
``annotate`` use nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from partita.errors import PartitaError
from partita.games.registry import get_spec

if TYPE_CHECKING:  # only named in annotations: the CLI imports this module at start-up
    from partita.notation.base import GameNotation

__all__ = ["DEFAULT_TABLE_SIZE", "has_solver", "score_value", "solver_for", "solvable_games"]

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
    from partita.games.registry import all_specs

    return [spec.name for spec in all_specs() if spec.solver is not None]


def solver_for(game: GameNotation, *, table_size: int = DEFAULT_TABLE_SIZE) -> Any:
    """An exact solver for ``game`` (configured as a record's tags say), or
    ``PartitaError`` naming the games that have one."""
    factory = get_spec(game.name).solver_factory()
    if factory is None:
        known = ", ".join(solvable_games()) or "none"
        raise PartitaError(f"{game.name} has no exact solver (games with one: {known})")
    return factory(game, table_size=table_size)
