"""Position patterns of Universal Forces (``partita query --pattern``).

A pattern lists conditions on cells, like the board field of a position, and
optionally the side to move after a space (BNF and examples in
``docs/universal-forces.md``); a cell it leaves out may hold anything:

* ``O1:9=1G``: exactly these forces, bottom first (``M1:4=2Y1Y``), where a seat
  may be ``?`` (any side) and a force letter ``?`` (any kind): ``O1:9=1?``, ``C3=?R``;
* ``O1:9=.``: the cell is empty; ``O1:9=*``: it holds at least one force;
* ``?`` alone: no condition on the board.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pyparsing as pp

from partita.errors import NotationError
from partita.game.notation import parse_position_text
from partita.games.universal_forces.rules import FORCES, UniversalForcesRules, UniversalForcesState

__all__ = ["PATTERN", "UniversalForcesPattern", "parse_pattern"]

_CELL = r"(?:[OMIomi]\d+:\d+|[Cc]\d+)"
_SPEC = pp.Regex(r"\.|\*|(?:[1-9?][GYBR?])+").set_name(
    "forces (seat or ?, then G, Y, B, R or ?), '.' (empty) or '*' (occupied)"
)
_CONDITION = pp.Group(
    pp.Regex(_CELL).set_name("cell")("cell") + pp.Suppress("=") - _SPEC("spec")
).set_name("cell condition (cell=forces)")
_BOARD = (
    pp.Literal("?").set_name("'?' (any board)")("any")
    | pp.Group(pp.DelimitedList(_CONDITION, ","))("conditions")
).set_name("cell conditions or '?'")
_SIDE = pp.Regex(r"[1-9?]")("to_move").set_name("side to move (a seat or ?)")
#: A pattern: cell conditions (or ``?``), then optionally a space and the side to move.
PATTERN = (_BOARD + pp.Opt(pp.Suppress(pp.White(" \t")) - _SIDE)).leave_whitespace()

#: One cell's test: does its tuple of forces fit?
CellTest = Callable[[tuple[int, ...]], bool]


def _force_test(seat: str, kind: str) -> Callable[[int], bool]:
    side = None if seat == "?" else int(seat) - 1
    kind_index = None if kind == "?" else FORCES.index(kind)

    def fits(piece: int) -> bool:
        owner, what = divmod(piece, 4)
        return (side is None or owner == side) and (kind_index is None or what == kind_index)

    return fits


def _cell_test(spec: str) -> CellTest:
    if spec == ".":
        return lambda forces: not forces
    if spec == "*":
        return lambda forces: bool(forces)
    tests = [_force_test(spec[at], spec[at + 1]) for at in range(0, len(spec), 2)]

    def fits(forces: tuple[int, ...]) -> bool:
        return len(forces) == len(tests) and all(
            test(piece) for test, piece in zip(tests, forces, strict=True)
        )

    return fits


@dataclass(frozen=True, slots=True)
class UniversalForcesPattern:
    """A parsed pattern: per constrained cell index its test, and the seat to move
    (from 0; ``None``: any)."""

    text: str
    cells: tuple[tuple[int, CellTest], ...]
    to_move: int | None

    def matches(self, state: UniversalForcesState) -> bool:
        if self.to_move is not None and state.to_move != self.to_move:
            return False
        board = state.cells
        return all(test(board[cell]) for cell, test in self.cells)


def parse_pattern(rules: UniversalForcesRules, text: str) -> UniversalForcesPattern:
    """The pattern ``text``; ``NotationError`` naming what is wrong (malformed, a
    cell the board does not have, a cell given twice)."""
    fields = parse_position_text(PATTERN, text, "pattern")
    index = rules.geometry.index
    cells: dict[int, CellTest] = {}
    for condition in fields.get("conditions", []):
        written = condition["cell"]
        if ":" in written:
            ring, section = written.split(":")
            name = f"{ring[0].upper()}{int(ring[1:])}:{int(section)}"
        else:
            name = f"C{int(written[1:])}"
        if name not in index:
            raise NotationError(f"pattern '{text}': there is no cell {written}")
        if index[name] in cells:
            raise NotationError(f"pattern '{text}': {name} is given twice")
        cells[index[name]] = _cell_test(condition["spec"])
    seat = fields.get("to_move", "?")
    return UniversalForcesPattern(
        text,
        tuple(sorted(cells.items(), key=lambda item: item[0])),
        None if seat == "?" else int(seat) - 1,
    )
