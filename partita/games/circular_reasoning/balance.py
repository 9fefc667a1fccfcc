"""Circular Reasoning's rule events for the balance report: gateway passes inward
and outward, entries, jumps over occupied segments, reaching the Goal Area,
gateways that blocked a move, forced passes.

A move is a token and its destination, not its path. Passes and jumps are counted
on the simplest path that reaches the destination (fewest gateway passes, then
fewest jumps); a blocked gateway is counted when the far side's token kept the
mover's token from a destination it could otherwise reach, once per gateway and
turn.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from partita.games.circular_reasoning.rules import (
    GOAL,
    RESERVE,
    SHAPES,
    VALUES,
    CircularReasoningRules,
    CircularReasoningState,
    Move,
    Pass,
    _relaxed_reach,
)

__all__ = ["path_counts", "rule_counters"]


def path_counts(
    rules: CircularReasoningRules, state: CircularReasoningState, index: int, destination: int
) -> tuple[int, int, int] | None:
    """``(passes inward, passes outward, jumps)`` of the simplest path of token
    ``index`` to ``destination`` (the rules' search, counting as it goes), or
    ``None`` if none reaches it."""
    tokens, gates = state.tokens, state.gates
    origin = tokens[index]
    occupied = 0
    for other, cell in enumerate(tokens):
        if cell < GOAL and other != index:
            occupied |= 1 << cell
    value = VALUES[index % 3]
    if origin == RESERVE:
        start, steps = rules.layout.entrance, value - 1
    else:
        start, steps = origin, value
    best: tuple[int, int, int] | None = None
    for delta in (1, -1):
        stack = [(start, steps, 0, 0, 0, 0)]
        while stack:
            cell, left, used, inward, outward, jumps = stack.pop()
            if left == 0 or cell == GOAL:
                if cell == destination:
                    found = (inward, outward, jumps)
                    if best is None or (sum(found[:2]), found[2]) < (sum(best[:2]), best[2]):
                        best = found
                continue
            track, segment = cell >> 4, cell & 15
            base = track << 4
            step, jumped = segment, 0
            while True:
                step = (step + delta) & 15
                if not occupied >> (base + step) & 1:
                    break
                jumped += 1
            stack.append((base + step, left - 1, used, inward, outward, jumps + jumped))
            for gate, far, way in (
                (track, GOAL if track == 2 else base + 16 + segment, 1),
                (track - 1, base - 16 + segment, -1),
            ):
                if gate < 0 or used >> gate & 1 or gates[gate] != segment:
                    continue
                if far == GOAL:
                    if not rules.exact_goal or left == 1:
                        stack.append((GOAL, 0, used, inward + 1, outward, jumps))
                elif not occupied >> far & 1:
                    stack.append(
                        (
                            far,
                            left - 1,
                            used | 1 << gate,
                            inward + (way > 0),
                            outward + (way < 0),
                            jumps,
                        )
                    )
    return best


def _blocked_gateways(rules: CircularReasoningRules, state: CircularReasoningState) -> int:
    """Gateways whose far side kept a token of the side to move from a destination
    it could otherwise reach."""
    seat = rules.side_to_move(state)
    blocked = 0
    for gate in (0, 1):  # the small gateway leads to the Goal Area, which never fills
        for shape in range(3):
            index = seat * 3 + shape
            if state.tokens[index] == GOAL:
                continue
            args = (state.tokens, state.gates, index, rules.layout.entrance, rules.exact_goal)
            if _relaxed_reach(*args, open_gate=gate) - set(rules.reach(state, index)):
                blocked += 1
                break
    return blocked


def rule_counters(
    rules: CircularReasoningRules,
    state: CircularReasoningState,
    move: Any,
    after: CircularReasoningState,
) -> Iterator[str]:
    """The events of one turn."""
    for _ in range(_blocked_gateways(rules, state)):
        yield "blocked gateway"
    if isinstance(move, Pass):
        yield "forced pass"
        return
    assert isinstance(move, Move)
    index = rules.side_to_move(state) * 3 + SHAPES.index(move.shape)
    if state.tokens[index] == RESERVE:
        yield "entry"
    counts = path_counts(rules, state, index, move.destination)
    if counts is not None:
        inward, outward, jumps = counts
        yield from ["gateway pass inward"] * inward
        yield from ["gateway pass outward"] * outward
        yield from ["jump"] * jumps
    if move.destination == GOAL:
        yield "token into the Goal Area"
