"""A game's heuristic and playout policy as searches see them: found through its spec.

A game package may declare, in its :class:`~partita.game.spec.GameSpec`, an
``evaluation`` (a factory ``evaluation(rules) -> evaluate``, ``evaluate(state)``
giving the expected score of every side in a position that is not over) and a
``rollout`` (a factory ``rollout(rules) -> policy``, ``policy(state, rng)`` giving a
move for the side to move), and ``rollout_plies``, the playout length before the
evaluation takes over. A game without them gets the defaults: every side equally
likely to win, uniformly random moves (``Rules.sample_move``), and the search's
own playout length.

Expected scores are floats in seat order, each from 0 (lost) to 1 (won), a shared
draw 1/2 each: the scale of :class:`~partita.game.rules.Outcome`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from partita.errors import PartitaError, UnknownGameError
from partita.game.registry import get_spec
from partita.game.rules import Outcome, Rules
from partita.game.spec import GameSpec

__all__ = [
    "Evaluation",
    "Policy",
    "evaluation_for",
    "expected_scores",
    "rollout_for",
    "rollout_plies_for",
    "rules_of",
    "uniform_evaluation",
]

#: ``evaluate(state) -> expected score of every side``.
Evaluation = Callable[[Any], tuple[float, ...]]
#: ``policy(state, rng) -> move`` for the side to move.
Policy = Callable[[Any, Any], Any]


def rules_of(game: Any) -> Rules:
    """The rules engine of a notation (``GameNotation``) or the engine itself."""
    rules = getattr(game, "rules", game)
    if not isinstance(rules, Rules):
        raise PartitaError(f"{game!r} is neither a game nor a rules engine")
    return rules


def expected_scores(outcome: Outcome) -> tuple[float, ...]:
    """An outcome's scores as floats (1 won, 0 lost, 1/2 a shared draw)."""
    return tuple(float(score) for score in outcome.scores)


def uniform_evaluation(rules: Rules) -> Evaluation:
    """The default heuristic: every side equally likely to win (1/n each)."""

    def evaluate(state: Any) -> tuple[float, ...]:
        sides = rules.sides(state)
        return (1.0 / sides,) * sides

    return evaluate


def _spec(rules: Rules) -> GameSpec | None:
    try:
        return get_spec(rules.name)
    except UnknownGameError:  # an engine no game registers (a test's configuration)
        return None


def evaluation_for(game: Any) -> Evaluation:
    """The heuristic of ``game`` (configured as a record's tags say), or the default."""
    rules = rules_of(game)
    spec = _spec(rules)
    factory = spec.evaluation_factory() if spec is not None else None
    return factory(rules) if factory is not None else uniform_evaluation(rules)


def rollout_plies_for(game: Any, default: int) -> int:
    """How many plies the playouts of ``game`` run before its heuristic scores the
    position: the spec's ``rollout_plies``, else ``default``."""
    spec = _spec(rules_of(game))
    plies = spec.rollout_plies if spec is not None else None
    return default if plies is None else plies


def rollout_for(game: Any) -> Policy:
    """The playout policy of ``game``, or uniformly random moves."""
    rules = rules_of(game)
    spec = _spec(rules)
    factory = spec.rollout_factory() if spec is not None else None
    return factory(rules) if factory is not None else rules.sample_move
