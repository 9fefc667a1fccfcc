"""The Circular Reasoning board: three rings of 16 segments around the Goal Area.

Segment 1 of every track is at the top and numbers run clockwise; the outer track
is the outer ring. The static drawing (:meth:`CircularReasoningBoard.svg`) shows the
segments, their numbers, the Player Entrance, the three gateways as bars across the
ring boundary they join (large, medium, small: wide to narrow), the tokens in their
colours and shapes (circle, triangle, square), the Goal Area's tokens and each
side's reserve beside the board.

The replay viewer of the HTML report draws from :attr:`layout` and :meth:`cells`:
one cell per segment (tokens ``1T``: seat and shape), one per place on a ring
boundary where a gateway may stand (``GL``, ``GM``, ``GS``), twelve places in the
Goal Area and twelve reserve places (one per token, seat by seat).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache
from html import escape
from typing import ClassVar

from partita.analysis.diagrams import PIECE_STYLES, Board, Label, Layout, Region, Shape, svg_open
from partita.games.circular_reasoning.notation import CircularReasoningNotation
from partita.games.circular_reasoning.rules import (
    COLOR_LETTERS,
    GOAL,
    RESERVE,
    SEGMENTS,
    SHAPE_WORDS,
    SHAPES,
    TRACKS,
    CircularReasoningRules,
    CircularReasoningState,
    Move,
    cell_name,
)

__all__ = ["CircularReasoningBoard"]

CENTRE = 264.0
RING = 56.0  # the width of a track; the Goal Area's radius too
RADIUS = 11.0  # a token
WIDTH, HEIGHT = 660.0, 530.0
RESERVE_X = (570.0, 600.0, 630.0)
TRACK_FILLS = ("#e8dcc4", "#d9c9a6", "#c9b487")
GATE_WIDTHS = (18.0, 13.0, 9.0)
GATE_LETTERS = ("L", "M", "S")
#: Fill and stroke per colour name: the viewer's styles of the colour letters.
COLOR_STYLES = {name: PIECE_STYLES[letter] for name, letter in COLOR_LETTERS.items()}

# Cell indices of the viewer's layout.
_SEGMENT_CELLS = 0
_GATE_CELLS = 48  # boundary of track t (outer side of track t + 1) at segment k
_GOAL_CELLS = 96
_RESERVE_CELLS = 108


def _angle(segment: int) -> float:
    """The angle (radians, SVG: clockwise from the x axis) of segment ``segment``'s
    middle (0-based); segment 0 is at the top."""
    return math.radians(-90.0 + (segment + 0.5) * 360.0 / SEGMENTS)


def _point(radius: float, angle: float) -> tuple[float, float]:
    return (
        round(CENTRE + radius * math.cos(angle), 2),
        round(CENTRE + radius * math.sin(angle), 2),
    )


def _track_radius(track: int) -> float:
    """The middle radius of track ``track`` (0 outer, 1 middle, 2 inner)."""
    return RING * (3 - track) + RING / 2


def _boundary_radius(gate: int) -> float:
    """The radius of the boundary gateway ``gate`` crosses (its track's inner edge)."""
    return RING * (3 - gate)


def _sector(track: int, segment: int) -> str:
    outer, inner = RING * (4 - track), RING * (3 - track)
    start = math.radians(-90.0 + segment * 360.0 / SEGMENTS)
    end = math.radians(-90.0 + (segment + 1) * 360.0 / SEGMENTS)
    x1, y1 = _point(outer, start)
    x2, y2 = _point(outer, end)
    x3, y3 = _point(inner, end)
    x4, y4 = _point(inner, start)
    return (
        f"M{x1},{y1} A{outer},{outer} 0 0 1 {x2},{y2} L{x3},{y3} A{inner},{inner} 0 0 0 {x4},{y4} Z"
    )


def _goal_place(seat: int, shape: int) -> tuple[float, float]:
    return (CENTRE + (shape - 1) * 20.0, CENTRE + (seat - 1.5) * 20.0)


def _reserve_place(seat: int, shape: int) -> tuple[float, float]:
    return (RESERVE_X[shape], 70.0 + seat * 34.0)


@cache
def _layout(entrance: int, title: str) -> Layout:
    shapes = [
        Shape("circle", (("cx", CENTRE), ("cy", CENTRE), ("r", RING * 4 + 1), ("fill", "#8a6d3b"))),
    ]
    for track in range(3):
        for segment in range(SEGMENTS):
            shapes.append(
                Shape(
                    "path",
                    (
                        ("d", _sector(track, segment)),
                        ("fill", TRACK_FILLS[track]),
                        ("stroke", "#ffffff"),
                        ("stroke-width", 1),
                    ),
                )
            )
    shapes.append(  # the entrance, outlined over its neighbours
        Shape(
            "path",
            (
                ("d", _sector(entrance >> 4, entrance & 15)),
                ("fill", "none"),
                ("stroke", "#b8860b"),
                ("stroke-width", 3),
            ),
        )
    )
    shapes.append(
        Shape(
            "circle",
            (
                ("cx", CENTRE),
                ("cy", CENTRE),
                ("r", RING),
                ("fill", "#fff4c2"),
                ("stroke", "#b8860b"),
                ("stroke-width", 2),
            ),
        )
    )
    labels = []
    for segment in range(SEGMENTS):
        x, y = _point(RING * 4 + 14, _angle(segment))
        labels.append(Label(x, y + 4, str(segment + 1)))
    for track in range(3):
        x, y = _point(_track_radius(track), math.radians(-90.0))
        labels.append(Label(x, y + 4, TRACKS[track]))
    labels.append(Label(60.0, HEIGHT - 12, f"entrance {cell_name(entrance)}"))
    labels.append(Label(RESERVE_X[1], 40.0, "reserve"))
    cells: list[tuple[float, float]] = []
    for track in range(3):
        for segment in range(SEGMENTS):
            cells.append(_point(_track_radius(track), _angle(segment)))
    for gate in range(3):
        for segment in range(SEGMENTS):
            cells.append(_point(_boundary_radius(gate), _angle(segment)))
    for seat in range(4):
        for shape in range(3):
            cells.append(_goal_place(seat, shape))
    for seat in range(4):
        for shape in range(3):
            cells.append(_reserve_place(seat, shape))
    return Layout(
        kind="cells",
        width=WIDTH,
        height=HEIGHT,
        shapes=tuple(shapes),
        labels=tuple(labels),
        cells=tuple(cells),
        radius=RADIUS,
        title=title,
    )


class CircularReasoningBoard(Board):
    """Draws Circular Reasoning positions (see the module docstring)."""

    rules: CircularReasoningRules
    #: The tokens by their side's colour letter; the gateways (``GL``, ``GM``,
    #: ``GS``) in the purple of the board's own drawing.
    piece_colours: ClassVar[Mapping[str, tuple[str, str]]] = {
        **PIECE_STYLES,
        "G": ("#4b2c82", "#2a1850"),
    }

    def __init__(self, game: CircularReasoningNotation) -> None:
        super().__init__(game)
        self.rules = game.rules

    @property
    def layout(self) -> Layout:
        return _layout(self.rules.layout.entrance, self.rules.title)

    def cells(self, state: CircularReasoningState) -> list[str]:
        codes = [""] * (_RESERVE_CELLS + 12)
        for index, cell in enumerate(state.tokens):
            seat, shape = divmod(index, 3)
            # The colour's letter first: the viewer colours a piece by it.
            code = f"{self.rules.color_letters[seat].lower()}{SHAPES[shape]}"
            if cell == GOAL:
                codes[_GOAL_CELLS + index] = code
            elif cell == RESERVE:
                codes[_RESERVE_CELLS + index] = code
            else:
                codes[_SEGMENT_CELLS + cell] = code
        for gate, segment in enumerate(state.gates):
            codes[_GATE_CELLS + gate * SEGMENTS + segment] = f"G{GATE_LETTERS[gate]}"
        return codes

    # -- where moves are clicked ---------------------------------------------------------------
    def regions(
        self, state: CircularReasoningState, viewer: int | None = None
    ) -> tuple[Region, ...]:
        """Every segment (``O1``..``I16``), the Goal Area (``G``) and the side to
        move's tokens (``token:C``...), on the board or in the reserve; a move is
        its token, then its destination."""
        layout = self.layout
        regions = []
        for cell in range(3 * SEGMENTS):
            # the segments' paths follow the board's disc in the layout's shapes
            regions.append(Region(cell_name(cell), cell_name(cell), layout.shapes[1 + cell]))
        goal = Shape("circle", (("cx", CENTRE), ("cy", CENTRE), ("r", RING)))
        regions.append(Region("G", "Goal Area", goal))
        seat = self.rules.side_to_move(state)
        for shape in range(3):
            index = seat * 3 + shape
            cell = state.tokens[index]
            if cell == GOAL:
                continue
            x, y = _reserve_place(seat, shape) if cell == RESERVE else layout.cells[cell]
            where = "reserve" if cell == RESERVE else cell_name(cell)
            token = Shape("circle", (("cx", x), ("cy", y), ("r", RADIUS + 2)))
            regions.append(Region(f"token:{SHAPES[shape]}", f"{SHAPE_WORDS[shape]} {where}", token))
        return tuple(regions)

    def move_regions(self, state: CircularReasoningState, move: object) -> tuple[str, ...]:
        if isinstance(move, Move):
            return (f"token:{move.shape}", cell_name(move.destination))
        return ()

    def move_text(self, state: CircularReasoningState, regions: Sequence[str]) -> str | None:
        if len(regions) != 2 or not regions[0].startswith("token:"):
            return None
        shape, destination = regions[0].removeprefix("token:"), regions[1]
        if shape not in SHAPES or destination.startswith("token:"):
            return None
        for move in self.rules.legal_moves(state):
            if isinstance(move, Move) and (move.shape, cell_name(move.destination)) == (
                shape,
                destination,
            ):
                return self.game.format_move(state, move)
        index = self.rules.side_to_move(state) * 3 + SHAPES.index(shape)
        entering = "@" if state.tokens[index] == RESERVE else ""
        return f"{entering}{shape}>{destination}"

    def legend(self, state: CircularReasoningState) -> list[tuple[str, str, str]]:
        """Each side in its colour (the Colors tag's, or the default ones)."""
        colors = self.rules.colors
        return [
            (f"Player{seat + 1} ({colors[seat]})", *COLOR_STYLES[colors[seat]])
            for seat in range(self.rules.sides(state))
        ]

    def svg(
        self,
        state: CircularReasoningState,
        *,
        caption: str = "",
        last: Sequence[int] = (),
        scale: float = 1.0,
    ) -> str:
        layout = self.layout
        rules = self.rules
        title = caption or layout.title
        parts = svg_open(
            layout,
            WIDTH,
            HEIGHT,
            title=title,
            scale=scale,
            label_style='font-size="11" fill="#444"',
        )
        parts.append(
            f'<text x="{CENTRE:g}" y="{CENTRE + RING + 14:g}" text-anchor="middle" '
            'font-family="sans-serif" font-size="10" fill="#6b5200">Goal Area</text>'
        )
        for gate, segment in enumerate(state.gates):
            parts.append(self._gate(gate, segment))
        for index, cell in enumerate(state.tokens):
            seat, shape = divmod(index, 3)
            if cell == GOAL:
                x, y = _goal_place(seat, shape)
            elif cell == RESERVE:
                x, y = _reserve_place(seat, shape)
            else:
                x, y = layout.cells[cell]
            where = cell_name(cell) if cell != RESERVE else "reserve"
            size = RADIUS * 0.8 if cell == GOAL else RADIUS
            words = f"{rules.token_words(index)} {where}"
            parts.append(self._token(seat, shape, x, y, words, size))
        for seat in range(rules.sides(state)):
            _, y = _reserve_place(seat, 0)
            parts.append(
                f'<text x="{RESERVE_X[0] - 18:g}" y="{y + 4:g}" text-anchor="end" '
                f'font-family="sans-serif" font-size="11" fill="#444">'
                f"{escape(rules.colors[seat])}</text>"
            )
        for index in last:
            x, y = layout.cells[index]
            parts.append(
                f'<circle cx="{x:g}" cy="{y:g}" r="{RADIUS + 4:g}" fill="none" '
                'stroke="#00c853" stroke-width="3" class="last"/>'
            )
        parts.append(
            f'<text x="{WIDTH - 10:g}" y="{HEIGHT - 12:g}" text-anchor="end" '
            f'font-family="sans-serif" font-size="12" fill="#222">'
            f"{escape(self._status(state))}</text>"
        )
        parts.append("</svg>")
        return "\n".join(parts)

    def _status(self, state: CircularReasoningState) -> str:
        rules = self.rules
        outcome = rules.outcome(state)
        if outcome is not None:
            return f"{rules.side_words(outcome.winner)} wins"  # type: ignore[arg-type]
        return f"round {state.round}: {rules.side_words(rules.side_to_move(state))} to move"

    def _gate(self, gate: int, segment: int) -> str:
        """A gateway: a bar across the boundary it joins, with its letter."""
        angle = _angle(segment)
        radius = _boundary_radius(gate)
        # across the boundary, mostly over the gateway's own (outer) track
        inner, outer = _point(radius - 2, angle), _point(radius + 17, angle)
        cell = gate * SEGMENTS + segment
        return (
            f'<g class="gateway" data-cell="{cell_name(cell)}">'
            f'<line x1="{inner[0]:g}" y1="{inner[1]:g}" x2="{outer[0]:g}" y2="{outer[1]:g}" '
            f'stroke="#4b2c82" stroke-width="{GATE_WIDTHS[gate]:g}" stroke-linecap="round" '
            'opacity="0.85"/>'
            f'<text x="{_point(radius + 7, angle)[0]:g}" y="{_point(radius + 7, angle)[1] + 4:g}" '
            'text-anchor="middle" font-family="sans-serif" font-size="10" '
            f'fill="#ffffff">{GATE_LETTERS[gate]}</text></g>'
        )

    def _token(self, seat: int, shape: int, x: float, y: float, words: str, r: float) -> str:
        color = self.rules.colors[seat]
        fill, stroke = COLOR_STYLES[color]
        common = (
            f'fill="{fill}" stroke="{stroke}" stroke-width="2" '
            f'class="piece piece-{seat + 1}{SHAPES[shape]}"'
        )
        title = f"<title>{escape(words)}</title>"
        if shape == 0:
            return f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" {common}>{title}</circle>'
        if shape == 1:
            points = f"{x:g},{y - r:g} {x + r:g},{y + r * 0.8:g} {x - r:g},{y + r * 0.8:g}"
            return f'<polygon points="{points}" {common}>{title}</polygon>'
        side = r * 1.7
        return (
            f'<rect x="{x - side / 2:g}" y="{y - side / 2:g}" width="{side:g}" '
            f'height="{side:g}" {common}>{title}</rect>'
        )
