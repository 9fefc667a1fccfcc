"""Circular Reasoning's heuristic and playout policy (after the examples' player).

Progress to the goal: a token in reserve counts 0, on the outer track 1, the
middle 2, the inner 3, in the Goal Area 4.5; a token standing on its track's
gateway (its way inward next turn) half a step more.

* Evaluation: a side's strength is its tokens' progress (0 to 13.5); expected
  scores are the softmax of the strengths (temperature 1.5: a token one track
  further in is worth odds of about 2 to 1).
* Playout policy: the move that completes the Goal Area if there is one; else,
  three times in four, the move with the most progress (the Goal Area first, then
  inward, then onto a gateway), with a little noise; else a random move.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from partita.games.circular_reasoning.rules import (
    GOAL,
    RESERVE,
    SHAPES,
    CircularReasoningRules,
    CircularReasoningState,
    Move,
)

__all__ = ["CircularReasoningHeuristics", "evaluation", "rollout"]

TEMPERATURE = 1.5
#: Chance of a random move in a playout.
RANDOM_MOVE = 0.25
_GOAL_PROGRESS = 4.5


def progress(cell: int, gates: tuple[int, int, int]) -> float:
    """How far in a token on ``cell`` is (see the module docstring)."""
    if cell == RESERVE:
        return 0.0
    if cell == GOAL:
        return _GOAL_PROGRESS
    track = cell >> 4
    return track + 1.0 + (0.5 if gates[track] == cell & 15 else 0.0)


class CircularReasoningHeuristics:
    def __init__(self, rules: CircularReasoningRules) -> None:
        self.rules = rules

    def evaluate(self, state: CircularReasoningState) -> tuple[float, ...]:
        tokens, gates = state.tokens, state.gates
        strengths = [
            sum(progress(cell, gates) for cell in tokens[seat * 3 : seat * 3 + 3])
            for seat in range(len(tokens) // 3)
        ]
        top = max(strengths)
        weights = [math.exp((strength - top) / TEMPERATURE) for strength in strengths]
        total = sum(weights)
        return tuple(weight / total for weight in weights)

    def choose(self, state: CircularReasoningState, rng: Any) -> Any:
        moves = self.rules.legal_moves(state)
        if len(moves) == 1:
            return moves[0]
        tokens, gates = state.tokens, state.gates
        seat = self.rules.side_to_move(state)
        own = tokens[seat * 3 : seat * 3 + 3]
        if sum(1 for cell in own if cell == GOAL) == 2:
            for move in moves:
                if type(move) is Move and move.destination == GOAL:
                    return move  # the third token home: the game is won
        if rng.random() < RANDOM_MOVE:
            return moves[int(rng.random() * len(moves))]
        best, best_score = moves[0], -math.inf
        for move in moves:
            if type(move) is not Move:
                continue
            origin = own[SHAPES.index(move.shape)]
            score = progress(move.destination, gates) - progress(origin, gates)
            score += rng.random() * 0.5
            if score > best_score:
                best, best_score = move, score
        return best


def evaluation(
    rules: CircularReasoningRules,
) -> Callable[[CircularReasoningState], tuple[float, ...]]:
    """The spec's ``evaluation`` factory."""
    return CircularReasoningHeuristics(rules).evaluate


def rollout(rules: CircularReasoningRules) -> Callable[[CircularReasoningState, Any], Any]:
    """The spec's ``rollout`` factory."""
    return CircularReasoningHeuristics(rules).choose
