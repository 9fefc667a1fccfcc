"""A game's heuristic and playout policy as searches see them: found through its spec.

A game package may declare, in its :class:`~partita.game.spec.GameSpec`, an
``evaluation`` (a factory ``evaluation(rules) -> evaluate``, ``evaluate(state)``
giving the expected score of every side in a position that is not over) and a
``rollout`` (a factory ``rollout(rules) -> policy``, ``policy(state, rng)`` giving a
move for the side to move), and ``rollout_plies``, the playout length before the
evaluation takes over. A game without them gets the defaults: every side equally
likely to win, uniformly random moves (``Rules.sample_move``), and the search's
own playout length. Its spec's ``extra["search"]`` may set the search's
``widening`` and ``minimax`` weights (:func:`search_settings_for`).

Expected scores are floats in seat order, each from 0 (lost) to 1 (won), a shared
draw 1/2 each: the scale of :class:`~partita.game.rules.Outcome`.

A game may build its evaluation as a *learned* one: :class:`SoftmaxEvaluation`
scores each side by a weighted sum of features the game names (a feature vector
per side) and gives each side its softmax share (a multinomial logit: a side's
chance to win against the others). :func:`self_play_samples` plays games to
collect feature vectors with the outcome each position led to, and
:func:`fit_softmax` fits the weights to them (maximum likelihood, Newton's
method); the game package ships the weights it fitted.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from partita.errors import PartitaError, UnknownGameError
from partita.game.registry import get_spec
from partita.game.rules import CHANCE, Outcome, Rules
from partita.game.spec import GameSpec

__all__ = [
    "Evaluation",
    "Policy",
    "Sample",
    "SoftmaxEvaluation",
    "evaluation_for",
    "expected_scores",
    "fit_softmax",
    "rollout_for",
    "rollout_plies_for",
    "search_settings_for",
    "rules_of",
    "self_play_samples",
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


def search_settings_for(game: Any) -> dict[str, float]:
    """The search settings ``game``'s spec declares in ``extra["search"]`` (such as
    ``{"widening": 2.0}``, see :class:`~partita.analysis.mcts.Mcts`): what suits its
    branching and its heuristic, measured by ``benchmarks/bench_agents.py``."""
    spec = _spec(rules_of(game))
    settings = spec.extra.get("search", {}) if spec is not None else {}
    return {str(key): float(value) for key, value in settings.items()}


def rollout_for(game: Any) -> Policy:
    """The playout policy of ``game``, or uniformly random moves."""
    rules = rules_of(game)
    spec = _spec(rules)
    factory = spec.rollout_factory() if spec is not None else None
    return factory(rules) if factory is not None else rules.sample_move


#: ``features(state) -> one feature vector per side`` (seat order).
Features = Callable[[Any], Sequence[Sequence[float]]]
#: One fitting sample: every side's feature vector and the scores the game ended with.
Sample = tuple[Sequence[Sequence[float]], Sequence[float]]


class SoftmaxEvaluation:
    """An evaluation from features and weights: side ``i``'s expected score is
    ``exp(w . f_i) / sum_j exp(w . f_j)`` (``f_i`` its feature vector)."""

    def __init__(self, features: Features, weights: Sequence[float]) -> None:
        self.features = features
        self.weights = tuple(weights)

    def __call__(self, state: Any) -> tuple[float, ...]:
        weights = self.weights
        logits = [
            sum(w * x for w, x in zip(weights, vector, strict=True))
            for vector in self.features(state)
        ]
        top = max(logits)
        shares = [math.exp(logit - top) for logit in logits]
        total = sum(shares)
        return tuple(share / total for share in shares)


def self_play_samples(
    rules: Rules,
    sides: int,
    features: Features,
    *,
    games: int,
    seed: int,
    choose: Callable[[Any, random.Random], Any],
    explore: float = 0.1,
    every: int = 1,
    max_plies: int = 2000,
) -> list[Sample]:
    """Feature vectors of the positions of ``games`` seeded games (every
    ``every``-th ply; ``choose(state, rng)`` plays, a random move instead with
    probability ``explore``, so the positions vary), each with the scores its
    game ended with; unfinished games are left out."""
    samples: list[Sample] = []
    for number in range(games):
        rng = random.Random(seed * 1_000_003 + number)
        state = rules.initial(sides)
        seen = []
        plies = 0
        while rules.outcome(state) is None and plies < max_plies:
            chance = rules.side_to_move(state) == CHANCE
            if not chance and plies % every == 0:
                seen.append(features(state))
            if chance or rng.random() < explore:
                move = rules.sample_move(state, rng)
            else:
                move = choose(state, rng)
            state = rules.apply(state, move)
            plies += 1
        outcome = rules.outcome(state)
        if outcome is None:
            continue
        scores = expected_scores(outcome)
        samples += [(vectors, scores) for vectors in seen]
    return samples


def fit_softmax(
    samples: Sequence[Sample], *, l2: float = 1e-3, iterations: int = 25
) -> tuple[float, ...]:
    """The weights of a :class:`SoftmaxEvaluation` that best predict the samples'
    scores (maximum likelihood of a multinomial logit, the scores normalised to
    one as the targets; an ``l2`` penalty keeps weights finite where a feature
    separates the outcomes): Newton's method, in pure Python (a handful of
    features)."""
    if not samples:
        raise PartitaError("no samples to fit")
    size = len(samples[0][0][0])
    weights = [0.0] * size
    count = len(samples)
    for _ in range(iterations):
        gradient = [-l2 * count * w for w in weights]
        hessian = [
            [(l2 * count if row == col else 0.0) for col in range(size)] for row in range(size)
        ]
        for vectors, scores in samples:
            total = sum(scores) or 1.0
            logits = [
                sum(w * x for w, x in zip(weights, vector, strict=True)) for vector in vectors
            ]
            top = max(logits)
            shares = [math.exp(logit - top) for logit in logits]
            norm = sum(shares)
            probabilities = [share / norm for share in shares]
            mean = [
                sum(p * vector[k] for p, vector in zip(probabilities, vectors, strict=True))
                for k in range(size)
            ]
            for vector, p, score in zip(vectors, probabilities, scores, strict=True):
                residual = score / total - p
                for k in range(size):
                    gradient[k] += residual * vector[k]
                    centred = vector[k] - mean[k]
                    if centred:
                        row = hessian[k]
                        for j in range(size):
                            row[j] += p * centred * (vector[j] - mean[j])
        step = _solve(hessian, gradient)
        weights = [w + d for w, d in zip(weights, step, strict=True)]
        if max(abs(d) for d in step) < 1e-6:
            break
    return tuple(weights)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``x`` with ``matrix x = vector`` (Gaussian elimination, partial pivoting)."""
    size = len(vector)
    rows = [list(row) + [value] for row, value in zip(matrix, vector, strict=True)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col][col]
        if abs(head) < 1e-12:
            continue
        for r in range(size):
            if r != col and rows[r][col]:
                factor = rows[r][col] / head
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][size] / rows[i][i] if abs(rows[i][i]) >= 1e-12 else 0.0 for i in range(size)]
