"""Forceball's heuristic and playout policy.

* Evaluation: the lead on points against what is left to play. Goals come at about
  one per 15 cards drawn (the example games), so the rest of the game is worth
  ``cards left / 15`` goals, each of which may go either way; the player ahead by
  ``d`` points wins with a probability of about ``Phi(d' / sigma)``, ``sigma`` the
  square root of the goals left, and ``d'`` the lead with a little credit for holding
  the ball (a third of a goal, times what the next goal is worth) and for holding
  more cards (a twentieth of a goal a card). A tie counts half.
  The evaluation reads only what both players see: scores, piles' sizes, who
  attacks, how many cards each holds.
* Playout policy: the examples' seeded heuristic player
  (:func:`partita.games.forceball.player.heuristic_turn`): draw unless the top
  card is a Stress card it can avoid, keep the speed near 3, answer with the
  cheapest maneuver that beats the force to beat, take the reward, play Lucky
  shot and Goalie when it can. It is a weak player (it loses every game to
  ``greedy``), so searches run no playout by default (the spec's
  ``rollout_plies`` is 0: the evaluation scores each new position at once);
  they draw composite candidate turns from it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from partita.games.forceball.rules import ForceballRules
from partita.games.forceball.values import ForceballState

__all__ = ["ForceballHeuristics", "evaluation", "rollout"]

#: Cards drawn per goal scored, in the example games.
CARDS_PER_GOAL = 15.0
#: The credit, in goals, for holding the ball and for each card more in hand.
POSSESSION = 1.0 / 3.0
PER_CARD = 1.0 / 20.0


class ForceballHeuristics:
    def __init__(self, rules: ForceballRules) -> None:
        self.rules = rules
        self.deck = len(rules.cards)

    def evaluate(self, state: ForceballState) -> tuple[float, float]:
        periods_after = self.rules.periods - state.period  # periods not yet started
        dealt = self.deck - 14  # the draw pile after a deal of 7 each
        cards_left = periods_after * dealt
        if state.phase != "shuffle":  # a period is under way: its draw pile is left
            cards_left += len(state.draw)
        goals_left = cards_left / CARDS_PER_GOAL
        lead: float = state.scores[0] - state.scores[1]
        lead += POSSESSION * state.worth * (1 if state.attacker == 0 else -1)
        lead += PER_CARD * (len(state.hands[0]) - len(state.hands[1]))
        sigma = math.sqrt(goals_left + 0.25)
        first = 0.5 * (1.0 + math.erf(lead / (sigma * math.sqrt(2.0))))
        return (first, 1.0 - first)

    def choose(self, state: ForceballState, rng: Any) -> Any:
        from partita.games.forceball.player import heuristic_turn

        return heuristic_turn(self.rules, state, rng)


def evaluation(rules: ForceballRules) -> Callable[[ForceballState], tuple[float, float]]:
    """The spec's ``evaluation`` factory."""
    return ForceballHeuristics(rules).evaluate


def rollout(rules: ForceballRules) -> Callable[[ForceballState, Any], Any]:
    """The spec's ``rollout`` factory."""
    return ForceballHeuristics(rules).choose
