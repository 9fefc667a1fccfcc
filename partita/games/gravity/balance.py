"""The gravity games' rule events for the balance report: the side each piece
entered by (boards with more than one entry side), and the direction of the line
that won."""

from __future__ import annotations

from collections.abc import Iterator

from partita.games.gravity.rules import Entry, GravityRules, GravityState

__all__ = ["rule_counters"]

_SIDE_WORDS = {"t": "top", "b": "bottom", "l": "left", "r": "right"}


def line_directions(rules: GravityRules, state: GravityState) -> list[str]:
    """The directions of the winning lines the last move made, each once:
    ``horizontal``, ``vertical``, ``falling diagonal`` (down to the right, rows
    counting from the top) and ``rising diagonal``."""
    found = []
    placed = state.line
    for window in rules._windows:
        if window & placed != window:
            continue
        low = window & -window
        rest = window ^ low
        step = (rest & -rest).bit_length() - low.bit_length()
        (c0, _), (c1, _) = rules.cell(low.bit_length() - 1), rules.cell(low.bit_length() - 1 + step)
        if step == 1:
            name = "horizontal"
        elif step == rules.width:
            name = "vertical"
        elif c1 > c0:
            name = "falling diagonal"
        else:
            name = "rising diagonal"
        if name not in found:
            found.append(name)
    return found


def rule_counters(
    rules: GravityRules, state: GravityState, move: Entry, after: GravityState
) -> Iterator[str]:
    """``entry from the top`` (and the other sides, where there are several), and
    ``winning line: horizontal`` (vertical, falling or rising diagonal) on the
    winning move."""
    if len(rules.entry_sides) > 1:
        yield f"entry from the {_SIDE_WORDS[move.side]}"
    if after.line:
        for direction in line_directions(rules, after):
            yield f"winning line: {direction}"
