"""Forceball's rule events for the balance report, read off the rules' turn
summaries (:meth:`ForceballRules.summarize`): how attacks are won (by the
maneuver that won them, or the ball taken), fouls seen and unseen, Stress, Lucky
shots and Goalies, goals, stakes raised, accepted and declined."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from partita.games.forceball.rules import ForceballRules

__all__ = ["rule_counters"]


def rule_counters(rules: ForceballRules, state: Any, move: Any, after: Any) -> Iterator[str]:
    """The events of one turn (shuffles and face-offs fire none)."""
    summary = rules.summarize(state, move)
    if summary is None:
        return
    if summary.attack_won_by is not None:
        how = summary.won_with if summary.won_with is not None else "the ball taken"
        yield f"attack won: {how}"
        if summary.ended_by == "stress":
            yield "attack lost to Stress"
    if summary.foul:
        yield "foul seen" if summary.foul_seen else "foul unseen"
    if summary.special is not None:
        yield summary.special
    if any(summary.points) and not summary.stakes_declined:
        yield "goal"
    for _ in range(summary.stakes_accepted):
        yield "stakes accepted"
    if summary.stakes_declined:
        yield "stakes declined"
