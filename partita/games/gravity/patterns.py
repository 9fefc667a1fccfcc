"""Position patterns of the gravity games (``partita query --pattern``).

A pattern is written like a position (rows from the top separated by ``/``), with
wildcards; the BNF and examples are in ``docs/forza4x4.md``:

* ``x``, ``o``: that side's piece; a number or ``.``: so many empty cells (``.``: one);
* ``?``: any cell (empty or not); ``*``: any piece;
* an optional side to move after a space: ``x``, ``o`` or ``?`` (the default).

A pattern is four bitboards, so matching a position is a few ``and`` operations.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyparsing as pp

from partita.errors import NotationError
from partita.game.notation import parse_position_text
from partita.game.rules import POSITIVE
from partita.games.gravity.notation import row_cells
from partita.games.gravity.rules import GravityRules, GravityState

__all__ = ["PATTERN", "GravityPattern", "parse_pattern"]

_ROW = pp.Regex(rf"(?:[xo.?*]|{POSITIVE})+").set_name(
    "row (x, o, ., ?, * and counts of empty cells)"
)
_BOARD = pp.Group(_ROW + pp.ZeroOrMore(pp.Suppress("/") - _ROW))("rows").set_name(
    "rows separated by '/'"
)
_SIDE = pp.Regex(r"[xo?]")("side").set_name("side to move (x, o or ?)")
#: A pattern: rows from the top separated by ``/``, then optionally the side to move.
PATTERN = (
    (_BOARD + pp.Opt(pp.Suppress(pp.White(" \t")) - _SIDE)).leave_whitespace().set_name("pattern")
)


@dataclass(frozen=True, slots=True)
class GravityPattern:
    """A parsed pattern: the cells that must hold ``x``'s pieces, ``o``'s, any
    piece, nothing, and the side to move (``None``: either)."""

    text: str
    x: int
    o: int
    piece: int
    empty: int
    side: int | None

    def matches(self, state: GravityState) -> bool:
        x, o = state.x, state.o
        return (
            x & self.x == self.x
            and o & self.o == self.o
            and (x | o) & self.piece == self.piece
            and not (x | o) & self.empty
            and (self.side is None or state.ply & 1 == self.side)
        )


def parse_pattern(rules: GravityRules, text: str) -> GravityPattern:
    """The pattern ``text`` on ``rules``'s board; ``NotationError`` naming what is
    wrong (malformed, or rows that do not fit the board)."""
    fields = parse_position_text(PATTERN, text, "pattern")
    rows = list(fields["rows"])
    if len(rows) != rules.height:
        raise NotationError(f"pattern '{text}' has {len(rows)} rows, the board has {rules.height}")
    masks = {"x": 0, "o": 0, "*": 0, ".": 0}
    for row_number, row in enumerate(rows, start=1):
        cells, covered = row_cells(row, rules.width)
        if covered != rules.width:
            raise NotationError(
                f"pattern '{text}': row {row_number} ('{row}') covers {covered} cells, "
                f"the board is {rules.width} wide"
            )
        for column, char in cells:
            if char != "?":
                masks[char] |= 1 << rules.bit(column, row_number)
    side = fields.get("side", "?")
    return GravityPattern(
        text,
        masks["x"],
        masks["o"],
        masks["*"],
        masks["."],
        None if side == "?" else "xo".index(side),
    )
