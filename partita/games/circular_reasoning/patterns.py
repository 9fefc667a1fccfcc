"""Position patterns of Circular Reasoning (``partita query --pattern``).

A pattern is a list of conditions separated by spaces (BNF and examples in
``docs/circular-reasoning.md``); what it leaves out may be anything:

* a side, as in a position: ``2:C@,TO4,S?``, each token's place a segment
  (``O4``), ``@`` (the reserve), ``G`` (the Goal Area), ``?`` (anywhere) or ``*``
  (on a track);
* a segment: ``O3=.`` (empty), ``O3=*`` (a token), ``O3=2`` (a token of side 2),
  ``O3=2T`` (side 2's triangle);
* ``P2``: side 2 is to move.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyparsing as pp

from partita.errors import NotationError
from partita.game.notation import parse_position_text
from partita.games.circular_reasoning.rules import (
    GOAL,
    RESERVE,
    SHAPES,
    CircularReasoningRules,
    CircularReasoningState,
    parse_cell,
)

__all__ = ["PATTERN", "CircularReasoningPattern", "parse_pattern"]

_PLACE = r"(?:[OMI]\d+|[@G?*])"
_SIDE = pp.Regex(rf"(?P<seat>[1-4]):C(?P<C>{_PLACE}),T(?P<T>{_PLACE}),S(?P<S>{_PLACE})").set_name(
    "side (as 1:C@,TO3,S?)"
)
_SEGMENT = pp.Regex(r"(?P<segment>[OMI]\d+)=(?P<what>\.|\*|[1-4][CTS]?)").set_name(
    "segment condition (as O3=., O3=*, O3=2, O3=2T)"
)
_MOVER = pp.Regex(r"P(?P<mover>[1-4])").set_name("side to move (as P2)")
_ITEM = pp.Group(_SIDE | _SEGMENT | _MOVER).set_name("condition")
#: A pattern: conditions separated by spaces, or ``?`` for none.
PATTERN = (pp.Literal("?")("any") | pp.OneOrMore(_ITEM)("items")).set_name("pattern")

#: Places a token may be told to be at: a cell, or one of these sets.
_ANYWHERE, _ON_TRACK = -1, -2


@dataclass(frozen=True, slots=True)
class CircularReasoningPattern:
    """A parsed pattern: ``places`` (token index, wanted cell or ``-1`` anywhere,
    ``-2`` on a track), ``segments`` (cell, ``None`` empty / ``-1`` any token / a
    seat / ``(seat, shape)`` as a token index ``>= 100``), and the seat to move."""

    text: str
    places: tuple[tuple[int, int], ...]
    segments: tuple[tuple[int, int | None], ...]
    mover: int | None
    rules: CircularReasoningRules

    def matches(self, state: CircularReasoningState) -> bool:
        tokens = state.tokens
        for index, wanted in self.places:
            if index >= len(tokens):
                return False
            cell = tokens[index]
            if wanted == _ON_TRACK:
                if cell in (GOAL, RESERVE):
                    return False
            elif wanted != _ANYWHERE and cell != wanted:
                return False
        for segment, needed in self.segments:
            holders = [index for index, place in enumerate(tokens) if place == segment]
            if needed is None:
                if holders:
                    return False
            elif needed == -1:
                if not holders:
                    return False
            elif needed >= 100:
                if needed - 100 not in holders:
                    return False
            elif not any(index // 3 == needed for index in holders):
                return False
        return self.mover is None or self.rules.side_to_move(state) == self.mover


def parse_pattern(rules: CircularReasoningRules, text: str) -> CircularReasoningPattern:
    """The pattern ``text``; ``NotationError`` naming what is wrong (malformed, a
    segment that does not exist, a side given twice)."""
    fields = parse_position_text(PATTERN, text, "pattern")

    def cell(name: str) -> int:
        try:
            return parse_cell(name)
        except ValueError as error:
            raise NotationError(f"pattern '{text}': {error}") from None

    places: list[tuple[int, int]] = []
    segments: list[tuple[int, int | None]] = []
    mover = None
    seen: set[int] = set()
    for item in fields.get("items", []):
        if item.get("mover"):
            mover = int(item["mover"]) - 1
        elif item.get("seat"):
            seat = int(item["seat"]) - 1
            if seat in seen:
                raise NotationError(f"pattern '{text}': side {seat + 1} is given twice")
            seen.add(seat)
            for shape, letter in enumerate(SHAPES):
                place = item[letter]
                wanted = {"?": _ANYWHERE, "*": _ON_TRACK, "@": RESERVE}.get(place)
                places.append((seat * 3 + shape, cell(place) if wanted is None else wanted))
        else:
            what = item["what"]
            if what == ".":
                value: int | None = None
            elif what == "*":
                value = -1
            elif len(what) == 1:
                value = int(what) - 1
            else:
                value = 100 + (int(what[0]) - 1) * 3 + SHAPES.index(what[1])
            segments.append((cell(item["segment"]), value))
    return CircularReasoningPattern(text, tuple(places), tuple(segments), mover, rules)
