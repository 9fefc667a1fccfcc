"""The Universal Forces board as SVG: rings of annular sectors round four quadrants.

The layout (for the report's viewer) has one cell centre per cell of the
geometry, in the engine's cell order, and the board drawn as sector paths: the
coloured rim sections and centre quadrants in their force's colour, the three
sectors in three tones, ring names along twelve o'clock and the rim's section
numbers round the outside. A cell's code starts with its top force (the side's
digit, the colour key, then the force letter): ``1G`` one force, ``1B+1G`` a stack
(Player1's water on its own mountain), ``2Yx1Y`` a pin (Player2's wind pins
Player1's). The board's own drawing (:meth:`UniversalForcesBoard.svg`) shows a
stack as a small disc on a large one of the same side, and a pin as a small disc
with a dashed black rim on the pinned force; reserves, homes and eliminated
forces are listed under the board, and each side's home card stands in a corner
(seat 1 top left, then clockwise) with a disc for every kind at home.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from html import escape

from partita.analysis.diagrams import PIECE_STYLES, Board, Label, Layout, Region, Shape, svg_open
from partita.games.universal_forces.notation import UniversalForcesNotation
from partita.games.universal_forces.rules import (
    FORCE_NAMES,
    FORCES,
    HOME,
    Entry,
    Step,
    UniversalForcesRules,
    UniversalForcesState,
)

__all__ = ["UniversalForcesBoard"]

SIZE = 680
CENTRE = SIZE / 2
#: Outer radius of each ring, from the rim inward (O1 first), and of the centre.
RADII = (310, 280, 250, 220, 190, 160, 130, 102, 74, 46)
PIECE_RADIUS = 11
FORCE_FILLS = ("#63b56b", "#efd04b", "#5b9bd5", "#e06055")
SECTOR_FILLS = ("#f6f1e7", "#ebe3d2", "#ddd2bb")
LINE = "#8a7f6a"
PANEL_LINE = 20


def _point(radius: float, turn: float) -> tuple[float, float]:
    """The point at ``radius`` from the centre, ``turn`` of a circle clockwise from
    twelve o'clock."""
    angle = 2 * math.pi * turn
    return (
        round(CENTRE + radius * math.sin(angle), 2),
        round(CENTRE - radius * math.cos(angle), 2),
    )


def _sector(inner: float, outer: float, start: float, end: float) -> str:
    """An SVG path: the annular sector between two radii and two turns."""
    large = 1 if end - start > 0.5 else 0
    x0, y0 = _point(outer, start)
    x1, y1 = _point(outer, end)
    if inner == 0:
        return f"M{CENTRE},{CENTRE} L{x0},{y0} A{outer},{outer} 0 {large} 1 {x1},{y1} Z"
    x2, y2 = _point(inner, end)
    x3, y3 = _point(inner, start)
    return (
        f"M{x0},{y0} A{outer},{outer} 0 {large} 1 {x1},{y1} "
        f"L{x2},{y2} A{inner},{inner} 0 {large} 0 {x3},{y3} Z"
    )


@cache
def _layout(inner_sections: int) -> Layout:
    rules = UniversalForcesRules(inner_sections=inner_sections)
    geometry = rules.geometry
    shapes = []
    cells = []
    for cell in range(geometry.size):
        ring = geometry.ring_of[cell]
        outer = RADII[ring]
        inner = RADII[ring + 1] if ring + 1 < len(RADII) else 0
        start, end = (float(turn) for turn in geometry.spans[cell])
        colour = max(geometry.entry_colour[cell], geometry.quadrant_kind[cell])
        fill = FORCE_FILLS[colour] if colour >= 0 else SECTOR_FILLS[min(ring // 3, 2)]
        shapes.append(
            Shape(
                "path",
                (
                    ("d", _sector(inner, outer, start, end)),
                    ("fill", fill),
                    ("stroke", LINE),
                    ("stroke-width", 0.8),
                ),
            )
        )
        middle = (start + end) / 2
        radius = (inner + outer) / 2 if inner else outer * 0.55
        cells.append(_point(radius, middle))
    for radius in (RADII[3], RADII[6], RADII[9]):  # sector boundaries
        shapes.append(
            Shape(
                "circle",
                (
                    ("cx", CENTRE),
                    ("cy", CENTRE),
                    ("r", radius),
                    ("fill", "none"),
                    ("stroke", "#4a4232"),
                    ("stroke-width", 2),
                ),
            )
        )
    labels = []
    for ring, (name, _) in enumerate(geometry.rings[:-1]):
        x, y = _point((RADII[ring] + RADII[ring + 1]) / 2, 0)
        labels.append(Label(x, y + 4, name))
    for section in range(1, 33):
        x, y = _point(RADII[0] + 12, (section - 0.5) / 32)
        labels.append(Label(x, y + 4, str(section)))
    return Layout(
        kind="cells",
        width=SIZE,
        height=SIZE,
        shapes=tuple(shapes),
        labels=tuple(labels),
        cells=tuple(cells),
        radius=PIECE_RADIUS,
        title=rules.title,
    )


def _code(piece: int) -> str:
    return f"{(piece >> 2) + 1}{FORCES[piece & 3]}"


class UniversalForcesBoard(Board):
    """The ring board of Universal Forces (see the module docstring)."""

    rules: UniversalForcesRules

    def __init__(self, game: UniversalForcesNotation) -> None:
        super().__init__(game)
        self.rules = game.rules

    @property
    def layout(self) -> Layout:
        return _layout(self.rules.geometry.inner_sections)

    def cells(self, state: UniversalForcesState) -> list[str]:
        codes = []
        for contents in state.cells:
            if not contents:
                codes.append("")
            elif len(contents) == 1:
                codes.append(_code(contents[0]))
            else:
                bottom, top = contents
                joint = "+" if bottom >> 2 == top >> 2 else "x"
                codes.append(f"{_code(top)}{joint}{_code(bottom)}")
        return codes

    def svg(
        self,
        state: UniversalForcesState,
        *,
        caption: str = "",
        last: Sequence[int] = (),
        scale: float = 1.0,
    ) -> str:
        return self._svg(state, caption, last, scale, controls=False)

    def svg_for(
        self,
        state: UniversalForcesState,
        viewer: int | None,
        *,
        caption: str = "",
        last: Sequence[int] = (),
        scale: float = 1.0,
        interactive: bool = False,
    ) -> str:
        """With ``interactive``, a row of reserve buttons under the board (one per
        kind of force, for entries)."""
        return self._svg(state, caption, last, scale, controls=interactive)

    # -- where moves are clicked ---------------------------------------------------------------
    def regions(self, state: UniversalForcesState, viewer: int | None = None) -> tuple[Region, ...]:
        """Every cell (its sector), the side to move's reserve of each kind (the
        buttons under the board) and its home card (a force going home)."""
        layout = self.layout
        names = self.rules.geometry.names
        regions = [Region(name, name, layout.shapes[cell]) for cell, name in enumerate(names)]
        side = state.to_move
        for kind, letter in enumerate(FORCES):
            x, y, w, h = _reserve_button(state.sides, kind)
            shape = Shape("rect", (("x", x), ("y", y), ("width", w), ("height", h)))
            regions.append(
                Region(f"reserve:{letter}", f"{FORCE_NAMES[kind]} from the reserve", shape)
            )
        x, y = HOME_CORNERS[side]
        shape = Shape(
            "rect", (("x", x), ("y", y), ("width", 4 * HOME_SLOT + 8), ("height", HOME_SLOT + 16))
        )
        regions.append(Region(HOME, "home", shape))
        return tuple(regions)

    def move_regions(self, state: UniversalForcesState, move: object) -> tuple[str, ...]:
        if isinstance(move, Entry):
            return (f"reserve:{move.force}", move.cell)
        if isinstance(move, Step):
            return (move.origin, move.target)
        return ()

    def move_text(self, state: UniversalForcesState, regions: Sequence[str]) -> str | None:
        if len(regions) != 2:
            return None
        first, second = regions
        if first.startswith("reserve:"):
            return f"{first.removeprefix('reserve:')}@{second}"
        if first == HOME or second.startswith("reserve:"):
            return None
        if second == HOME:
            return f"{first}-{HOME}"
        for move in self.rules.legal_moves(state):
            if isinstance(move, Step) and (move.origin, move.target) == (first, second):
                return self.game.format_move(state, move)
        index = self.rules.geometry.index
        target = state.cells[index[second]] if second in index else ()
        if not target:
            operator = "-"
        elif target[-1] >> 2 == state.to_move:
            operator = "+"
        else:
            operator = "x"
        return f"{first}{operator}{second}"

    def _svg(
        self,
        state: UniversalForcesState,
        caption: str,
        last: Sequence[int],
        scale: float,
        controls: bool,
    ) -> str:
        layout = self.layout
        sides = state.sides
        height = SIZE + PANEL_LINE * (sides + 1) + 10 + (BUTTON_ROW if controls else 0)
        out = svg_open(
            layout,
            SIZE,
            height,
            title=caption or layout.title,
            scale=scale,
            label_style='font-size="10" fill="#333" stroke="#ffffff" stroke-width="2.5" '
            'paint-order="stroke" class="label"',
        )
        for cell, contents in enumerate(state.cells):
            if contents:
                out.extend(self._forces(contents, *layout.cells[cell]))
        for cell in last:
            x, y = layout.cells[cell]
            out.append(
                f'<circle cx="{x}" cy="{y}" r="{PIECE_RADIUS + 4}" fill="none" stroke="#00c853" '
                'stroke-width="3" class="last"/>'
            )
        for side in range(sides):
            out.extend(_home_card(side, state.home[side]))
        out.extend(self._panel(state))
        if controls:
            for kind, letter in enumerate(FORCES):
                x, y, w, h = _reserve_button(sides, kind)
                count = state.reserve[state.to_move][kind]
                out.append(
                    f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" '
                    f'fill="{FORCE_FILLS[kind]}" stroke="{LINE}"/>'
                    f'<text x="{x + w / 2}" y="{y + h / 2 + 5}" text-anchor="middle" '
                    f'font-family="sans-serif" font-size="13" fill="#000">'
                    f"{letter} ({count})</text>"
                )
        out.append("</svg>")
        return "\n".join(out)

    def _forces(self, contents: tuple[int, ...], x: float, y: float) -> list[str]:
        """One force as a disc of its side's colour with its letter; a stack or pin
        as the bottom force with a smaller disc for the top one."""
        if len(contents) == 1:
            return [_disc(contents[0], x, y, PIECE_RADIUS, "piece")]
        bottom, top = contents
        kind = "stack" if bottom >> 2 == top >> 2 else "pin"
        parts = [f'<g class="{kind}">']
        parts.append(
            _disc(bottom, x - 3, y + 3, PIECE_RADIUS, "piece bottom", letter_dx=-3, letter_dy=3)
        )
        parts.append(_disc(top, x + 5, y - 5, PIECE_RADIUS * 0.7, f"piece top {kind}-top"))
        parts.append("</g>")
        return parts

    def _panel(self, state: UniversalForcesState) -> list[str]:
        lines = []
        y = SIZE + PANEL_LINE
        for side in range(state.sides):
            fill, stroke = PIECE_STYLES[str(side + 1)]
            text = (
                f"Player{side + 1}: reserve {_letters(state.reserve[side])} · home "
                f"{_letters(state.home[side])} · eliminated {_letters(state.eliminated[side])}"
            )
            lines.append(
                f'<circle cx="18" cy="{y - 4}" r="7" fill="{fill}" stroke="{stroke}"/>'
                f'<text x="32" y="{y}" font-family="sans-serif" font-size="13" fill="#000" '
                f'class="side">{escape(text)}</text>'
            )
            y += PANEL_LINE
        if state.outcome is not None:
            status = f"{state.outcome.result_token()}: {state.outcome.reason}"
        else:
            must = ", must pass" if state.stuck else ""
            status = f"Player{state.to_move + 1} to move{must} (round {state.round})"
        lines.append(
            f'<text x="12" y="{y}" font-family="sans-serif" font-size="13" fill="#000" '
            f'class="status">{escape(status)}</text>'
        )
        return lines


def _disc(
    piece: int,
    x: float,
    y: float,
    radius: float,
    css: str,
    letter_dx: float = 0,
    letter_dy: float = 0,
) -> str:
    fill, stroke = PIECE_STYLES[str((piece >> 2) + 1)]
    dashed = ' stroke-dasharray="3 2"' if "pin-top" in css else ""
    outline = "#000000" if "pin-top" in css else stroke
    width = 2.5 if "pin-top" in css else 1.5
    size = 11 if radius >= PIECE_RADIUS else 8
    return (
        f'<circle cx="{round(x, 2)}" cy="{round(y, 2)}" r="{round(radius, 2)}" fill="{fill}" '
        f'stroke="{outline}" stroke-width="{width}"{dashed} class="{css} piece-{_code(piece)}"/>'
        f'<text x="{round(x + letter_dx, 2)}" y="{round(y + letter_dy + size / 3, 2)}" '
        f'text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="{size}" '
        f'fill="#000">{FORCES[piece & 3]}</text>'
    )


#: The height of the row of reserve buttons under an interactive board.
BUTTON_ROW = 44


def _reserve_button(sides: int, kind: int) -> tuple[float, float, float, float]:
    """x, y, width, height of the reserve button of a kind of force."""
    y = SIZE + PANEL_LINE * (sides + 1) + 14
    return (12 + kind * 84, y, 76, 30)


HOME_SLOT = 22
#: Where each seat's home card stands: the board's corners, clockwise from top left.
_RIGHT = SIZE - 8 - 4 * HOME_SLOT - 8
HOME_CORNERS: tuple[tuple[float, float], ...] = (
    (8, 8),
    (_RIGHT, 8),
    (_RIGHT, SIZE - 46),
    (8, SIZE - 46),
)


def _home_card(side: int, counts: Sequence[int]) -> list[str]:
    """A side's home card in its corner: four slots, G Y B R, each holding a disc of
    the side's colour once a force of that kind is home (with the count past one)."""
    x, y = HOME_CORNERS[side]
    fill, stroke = PIECE_STYLES[str(side + 1)]
    width = 4 * HOME_SLOT + 8
    parts = [
        f'<g class="home-card"><rect x="{x}" y="{y}" width="{width}" height="{HOME_SLOT + 16}" '
        f'rx="5" fill="#fbf8f1" stroke="{stroke}" stroke-width="1.5"/>'
        f'<text x="{x + width / 2}" y="{y + 10}" text-anchor="middle" font-family="sans-serif" '
        f'font-size="9" fill="#333">Player{side + 1} home</text>'
    ]
    for kind, count in enumerate(counts):
        cx = x + 4 + HOME_SLOT * kind + HOME_SLOT / 2
        cy = y + 12 + HOME_SLOT / 2
        parts.append(
            f'<circle cx="{cx}" cy="{cy}" r="8" fill="none" stroke="{FORCE_FILLS[kind]}" '
            'stroke-width="1.5" stroke-dasharray="2 2"/>'
        )
        if count:
            parts.append(_disc(side * 4 + kind, cx, cy, 8, "piece home"))
            if count > 1:
                parts.append(
                    f'<text x="{cx + 9}" y="{cy + 9}" font-family="sans-serif" font-size="8" '
                    f'fill="#000">{count}</text>'
                )
    parts.append("</g>")
    return parts


def _letters(counts: Sequence[int]) -> str:
    return "".join(letter * count for letter, count in zip(FORCES, counts, strict=True)) or "-"
