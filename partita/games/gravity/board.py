"""The board of the gravity games: a rectangular grid with entry codes around it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from partita.analysis.diagrams import Board, Label, Layout, Region, Shape
from partita.games.gravity.notation import GravityNotation
from partita.games.gravity.rules import GravityRules

__all__ = ["GravityBoard"]

CELL = 40
MARGIN = 26


class GravityBoard(Board):
    """The rectangular grid of the gravity games, entry codes around it."""

    rules: GravityRules

    def __init__(self, game: GravityNotation) -> None:
        super().__init__(game)
        self.rules = game.rules

    @property
    def layout(self) -> Layout:
        return _gravity_layout(
            self.rules.width, self.rules.height, self.rules.entry_sides, self.rules.title
        )

    def cells(self, state: Any) -> list[str]:
        codes = []
        x, o = state.x, state.o
        for bit in range(self.rules.cell_count):
            codes.append("x" if x >> bit & 1 else "o" if o >> bit & 1 else "")
        return codes

    def marks(self, state: Any) -> set[int]:
        line = state.line  # every cell of the winning line(s), as a bitboard
        return {bit for bit in range(self.rules.cell_count) if line >> bit & 1}

    def regions(self, state: Any, viewer: int | None = None) -> tuple[Region, ...]:
        """One region per edge entry, named by its token: the whole column of a
        top-entry board, else the strip of the edge beside the row or column."""
        return _entry_regions(self.rules.width, self.rules.height, self.rules.entry_sides)

    def move_regions(self, state: Any, move: Any) -> tuple[str, ...]:
        return (self.game.format_move(state, move),)

    def move_text(self, state: Any, regions: Sequence[str]) -> str | None:
        return regions[0] if len(regions) == 1 else None


@cache
def _gravity_layout(width: int, height: int, sides: str, title: str) -> Layout:
    left = MARGIN if "l" in sides else MARGIN // 2 + 14
    top = MARGIN
    board_w, board_h = width * CELL, height * CELL
    total_w = left + board_w + (MARGIN if "r" in sides else MARGIN // 2)
    total_h = top + board_h + (MARGIN if "b" in sides else MARGIN // 2)
    shapes = [
        Shape(
            "rect",
            (
                ("x", left),
                ("y", top),
                ("width", board_w),
                ("height", board_h),
                ("rx", 6),
                ("fill", "#1f4e9c"),
                ("stroke", "#163a75"),
            ),
        ),
    ]
    cells = []
    for row in range(height):
        for column in range(width):
            cx = left + column * CELL + CELL / 2
            cy = top + row * CELL + CELL / 2
            cells.append((cx, cy))
            shapes.append(
                Shape(
                    "circle",
                    (
                        ("cx", cx),
                        ("cy", cy),
                        ("r", CELL * 0.4),
                        ("fill", "#ffffff"),
                        ("stroke", "#163a75"),
                    ),
                )
            )
    labels = []
    for column in range(1, width + 1):
        cx = left + (column - 1) * CELL + CELL / 2
        labels.append(Label(cx, top - 8, f"t{column}" if "t" in sides else str(column)))
        if "b" in sides:
            labels.append(Label(cx, top + board_h + 17, f"b{column}"))
    for row in range(1, height + 1):
        cy = top + (row - 1) * CELL + CELL / 2 + 4
        labels.append(Label(left - 13, cy, f"l{row}" if "l" in sides else str(row)))
        if "r" in sides:
            labels.append(Label(left + board_w + 13, cy, f"r{row}"))
    return Layout(
        kind="cells",
        width=total_w,
        height=total_h,
        shapes=tuple(shapes),
        labels=tuple(labels),
        cells=tuple(cells),
        radius=CELL * 0.4,
        title=title,
    )


@cache
def _entry_regions(width: int, height: int, sides: str) -> tuple[Region, ...]:
    layout = _gravity_layout(width, height, sides, "")
    left = MARGIN if "l" in sides else MARGIN // 2 + 14
    top = MARGIN
    board_w, board_h = width * CELL, height * CELL
    regions = []

    def rect(x: float, y: float, w: float, h: float) -> Shape:
        return Shape("rect", (("x", x), ("y", y), ("width", w), ("height", h)))

    for side in sides:
        count = width if side in "tb" else height
        for index in range(1, count + 1):
            if side in "tb":
                x = left + (index - 1) * CELL
                if sides == "t":
                    shape = rect(x, 0, CELL, top + board_h)
                elif side == "t":
                    shape = rect(x, 0, CELL, top)
                else:
                    shape = rect(x, top + board_h, CELL, layout.height - top - board_h)
            else:
                y = top + (index - 1) * CELL
                if side == "l":
                    shape = rect(0, y, left, CELL)
                else:
                    shape = rect(left + board_w, y, layout.width - left - board_w, CELL)
            regions.append(Region(f"{side}{index}", f"{side}{index}", shape))
    return tuple(regions)
