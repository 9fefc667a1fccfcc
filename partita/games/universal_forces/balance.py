"""Universal Forces' rule events for the balance report: what each action does
(stacks, takes, pins, double takes, take-and-pins, sacrifices, conversions,
third-side takes, forces home, forced passes), every force eliminated, and how
the game ended."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from partita.games.universal_forces.rules import UniversalForcesRules, UniversalForcesState

__all__ = ["rule_counters"]

#: The words of :meth:`UniversalForcesRules.describe` counted, and their event names.
EVENTS = {
    "stack": "stack",
    "take": "take",
    "pin": "pin",
    "double take": "double take",
    "take and pin": "take and pin",
    "sacrifice": "sacrifice",
    "conversion": "conversion",
    "third-side take": "third-side take",
    "home": "force home",
    "pass": "forced pass",
}

#: How a game ends, by the start of the outcome's reason.
ENDINGS = (
    ("has a mountain, a wind, a water and a fire at home", "end: all four kinds home"),
    ("pins every force", "end: every other force pinned"),
    ("round limit reached", "end: round limit"),
    ("no side can move", "end: no side can move"),
)


def rule_counters(
    rules: UniversalForcesRules, state: UniversalForcesState, move: Any, after: UniversalForcesState
) -> Iterator[str]:
    """The events of one action (entries and plain steps fire none of their own)."""
    event = EVENTS.get(rules.describe(state, move))
    if event is not None:
        yield event
    eliminated = sum(map(sum, after.eliminated)) - sum(map(sum, state.eliminated))
    for _ in range(eliminated):
        yield "elimination"
    if after.outcome is not None:
        for words, ending in ENDINGS:
            if words in after.outcome.reason:
                yield ending
                break
