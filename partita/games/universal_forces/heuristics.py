"""Universal Forces' heuristic and playout policy (after the examples' player).

A force's *progress* is how far along its way home it is: rings inward, then
closeness to the centre quadrant of its colour (the examples' ``potential``, scaled
to 0-1; 0.92 on its own quadrant, one move from home).

* Evaluation: a side's strength is the number of kinds it has home plus, for each
  kind still missing, 0.05 for having a force of that kind on the board and 0.9
  times the progress of its most advanced one (nothing for a kind only in reserve; a penalty for a kind it has lost
  altogether, since it can then never bring all four home). Expected scores are
  the softmax of the strengths (temperature 0.6: a kind home ahead is worth odds
  of about 5 to 1).
* Playout policy: a force on its own quadrant goes home; else, most of the time,
  the move with the most progress (an entry of a kind not yet home, a step inward,
  a step onto an opponent's cell: a take or a pin), with a little noise; now and
  then (one move in ten) a random move.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import compress
from typing import Any

from partita.games.universal_forces.rules import (
    HOME,
    PASS,
    Entry,
    Step,
    UniversalForcesRules,
    UniversalForcesState,
)

__all__ = ["UniversalForcesHeuristics", "evaluation", "rollout"]

TEMPERATURE = 0.6
#: Strength of a kind a side can no longer bring home (all three forces lost).
LOST_KIND = -0.5
#: Strength of a missing kind for having a force on the board at all: an entry
#: is the first step home (a rim cell's progress is 0).
ENTERED = 0.05
#: Chance of a random move in a playout.
RANDOM_MOVE = 0.1


class UniversalForcesHeuristics:
    """Progress tables and move scores of one board."""

    def __init__(self, rules: UniversalForcesRules) -> None:
        self.rules = rules
        geometry = rules.geometry
        self.index = geometry.index
        self.progress = tuple(
            tuple(_potential(geometry, cell, kind) for kind in range(4))
            for cell in range(geometry.size)
        )
        self._steps: dict[Any, tuple[int, int]] = {}

    def best_progress(self, state: UniversalForcesState) -> list[float]:
        """The best progress of each force (piece = side * 4 + kind; -1: none on
        the board), over the occupied cells only (a few dozen of the board's)."""
        best = [-1.0] * (4 * len(state.reserve))
        progress = self.progress
        cells = state.cells
        for cell, contents in compress(enumerate(cells), cells):
            row = progress[cell]
            for piece in contents:
                value = row[piece & 3]
                if value > best[piece]:
                    best[piece] = value
        return best

    def strengths(self, state: UniversalForcesState) -> list[float]:
        sides = len(state.reserve)
        best = self.best_progress(state)
        strengths = []
        for side in range(sides):
            home, reserve = state.home[side], state.reserve[side]
            strength = 0.0
            for kind in range(4):
                if home[kind]:
                    strength += 1.0
                elif best[side * 4 + kind] >= 0.0:
                    strength += ENTERED + 0.9 * best[side * 4 + kind]
                elif not reserve[kind]:
                    strength += LOST_KIND
            strengths.append(strength)
        return strengths

    def evaluate(self, state: UniversalForcesState) -> tuple[float, ...]:
        strengths = self.strengths(state)
        top = max(strengths)
        weights = [math.exp((strength - top) / TEMPERATURE) for strength in strengths]
        total = sum(weights)
        return tuple(weight / total for weight in weights)

    def _cells(self, move: Step) -> tuple[int, int]:
        """Origin and target cell indices of a step (target -1: home), cached."""
        cells = self._steps.get(move)
        if cells is None:
            target = -1 if move.target == HOME else self.index[move.target]
            cells = self._steps[move] = (self.index[move.origin], target)
        return cells

    def choose(self, state: UniversalForcesState, rng: Any) -> Any:
        moves = self.rules.legal_moves(state)
        if len(moves) == 1 or rng.random() < RANDOM_MOVE:
            return moves[int(rng.random() * len(moves))]
        side = state.to_move
        home = state.home[side]
        cells = state.cells
        progress = self.progress
        best: Any = PASS
        best_score = -math.inf
        for move in moves:
            if type(move) is Step:
                origin, target = self._cells(move)
                if target < 0:
                    return move  # home
                kind = cells[origin][-1] & 3
                score = 100.0 * (progress[target][kind] - progress[origin][kind])
                occupant = cells[target]
                if occupant and occupant[-1] >> 2 != side:
                    score += 30.0
                if home[kind]:
                    score -= 5.0
            elif type(move) is Entry:
                score = 2.0 if home["GYBR".index(move.force)] else 6.0
            else:
                score = 0.0
            score += rng.random() * 6.0
            if score > best_score:
                best, best_score = move, score
        return best


def _potential(geometry: Any, cell: int, kind: int) -> float:
    """Progress of a force of ``kind`` on ``cell``, from 0 (the rim) to 0.92."""
    if geometry.quadrant_kind[cell] == kind:
        return 120.0 / 130.0
    ring = geometry.ring_of[cell]
    low, high = geometry.spans[cell]
    distance = abs(float(low + high) / 2 - (kind + 0.5) / 4)
    distance = min(distance, 1 - distance)
    potential = float(ring * 10 - (distance * 40 if ring >= 3 else 0))
    return max(potential, 0.0) / 130.0


def evaluation(rules: UniversalForcesRules) -> Callable[[UniversalForcesState], tuple[float, ...]]:
    """The spec's ``evaluation`` factory."""
    return UniversalForcesHeuristics(rules).evaluate


def rollout(rules: UniversalForcesRules) -> Callable[[UniversalForcesState, Any], Any]:
    """The spec's ``rollout`` factory."""
    return UniversalForcesHeuristics(rules).choose
