"""Universal Forces' learned evaluation: a multinomial logit over features of each
side, its weights fitted from self-play (:func:`fit`, ``python -m
partita.games.universal_forces.evaluation``) and shipped here, per side count.

A side's features (:func:`features`): kinds at home; the summed progress (0.1 for
being on the board, plus rings inward, then closeness to its own quadrant:
:mod:`.heuristics`) of the most advanced force of each kind still missing; kinds lost altogether; kinds one step from home (a force on its own
quadrant); whether it is to move, alone and with those ready kinds; and, where a
round limit ends the game by the kinds at home, the share ``t`` of the rounds
played, times the kinds at home, the progress and the ready kinds, and ``t**4``
times the kinds at home (at the limit only the kinds at home count). Without a
round limit ``t`` is 0.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from partita.analysis.heuristics import SoftmaxEvaluation, fit_softmax, self_play_samples
from partita.games.universal_forces.heuristics import UniversalForcesHeuristics
from partita.games.universal_forces.rules import UniversalForcesRules, UniversalForcesState

__all__ = ["FEATURES", "WEIGHTS", "evaluation", "features", "fit"]

#: The features' names, in order.
FEATURES = (
    "home",
    "progress",
    "lost",
    "ready",
    "to move",
    "ready to move",
    "home t",
    "progress t",
    "ready t",
    "home t^4",
)
#: Fitted weights per side count (see :func:`fit`; the module's ``main`` prints them).
WEIGHTS: dict[int, tuple[float, ...]] = {
    # fit(sides, 400, seed=sides): 400 games each, every second position
    2: (1.7484, 1.3058, 0.2733, -0.1181, 0.0024, -0.0452, 1.0754, 1.7508, -0.0062, 0.7290),
    3: (1.5170, 1.3221, 0.6888, -0.2856, 0.0790, 0.0197, 0.9364, 1.6083, 0.0595, 0.9878),
    4: (1.4935, 1.2492, 0.4228, -0.2712, -0.0012, 0.0147, 1.1236, 1.7214, 0.1419, 0.9468),
}
#: Progress of a force on the board at all (a rim cell's progress is 0): the
#: first step home.
ENTERED = 0.1
#: On the quadrant of its colour: one step from home (the progress tables' value).
READY = 120.0 / 130.0


def features(rules: UniversalForcesRules) -> Callable[[UniversalForcesState], list[list[float]]]:
    """The feature vectors of every side of a position of ``rules``' board."""
    best_progress = UniversalForcesHeuristics(rules).best_progress
    limit = rules.round_limit

    def of(state: UniversalForcesState) -> list[list[float]]:
        sides = len(state.reserve)
        best = best_progress(state)
        share = min(state.ply / (limit * sides), 1.0) if limit else 0.0
        late = share**4
        vectors = []
        for side in range(sides):
            home, reserve = state.home[side], state.reserve[side]
            at_home = advanced = lost = ready = 0.0
            for kind in range(4):
                if home[kind]:
                    at_home += 1.0
                    continue
                value = best[side * 4 + kind]
                if value >= 0.0:
                    advanced += ENTERED + value
                    if value >= READY:
                        ready += 1.0
                elif not reserve[kind]:
                    lost += 1.0
            moving = 1.0 if side == state.to_move else 0.0
            vectors.append(
                [
                    at_home,
                    advanced,
                    lost,
                    ready,
                    moving,
                    ready * moving,
                    at_home * share,
                    advanced * share,
                    ready * share,
                    at_home * late,
                ]
            )
        return vectors

    return of


def evaluation(rules: UniversalForcesRules) -> Callable[[UniversalForcesState], tuple[float, ...]]:
    """The spec's ``evaluation`` factory: the fitted logit where weights for the
    side count are shipped, else the hand-made softmax of :mod:`.heuristics`."""
    handmade = UniversalForcesHeuristics(rules).evaluate
    learned = {
        sides: SoftmaxEvaluation(features(rules), weights) for sides, weights in WEIGHTS.items()
    }

    def evaluate(state: UniversalForcesState) -> tuple[float, ...]:
        model = learned.get(len(state.reserve))
        return model(state) if model is not None else handmade(state)

    return evaluate


def fit(
    sides: int, games: int, seed: int = 0, round_limit: int = 40, every: int = 2
) -> tuple[float, ...]:
    """Weights fitted on ``games`` games of ``greedy`` play (with the hand-made
    heuristic, one move in ten at random) with a round limit."""
    rules = UniversalForcesRules(round_limit=round_limit)
    handmade = UniversalForcesHeuristics(rules)
    greedy = _greedy(rules, handmade.evaluate)
    samples = self_play_samples(
        rules, sides, features(rules), games=games, seed=seed, choose=greedy, every=every
    )
    return fit_softmax(samples)


def _greedy(rules: UniversalForcesRules, evaluate: Callable[[Any], Sequence[float]]) -> Any:
    def choose(state: UniversalForcesState, rng: Any) -> Any:
        side = state.to_move
        best, best_score = None, -1.0
        for move in rules.legal_moves(state):
            after = rules.apply(state, move)
            if after.outcome is not None:
                score = float(after.outcome.scores[side])
            else:
                score = evaluate(after)[side]
            score += rng.random() * 1e-9
            if score > best_score:
                best, best_score = move, score
        return best

    return choose


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    games = int(args[0]) if args else 300
    for sides in (2, 3, 4):
        weights = fit(sides, games, seed=sides)
        print(f"    {sides}: ({', '.join(f'{w:.4f}' for w in weights)}),", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
