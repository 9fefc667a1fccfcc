"""Board diagrams as SVG: one layout per game, drawn by a template and by the viewer.

A :class:`Board` knows, for one game, how its board looks (a :class:`Layout`: the
view box, background shapes, coordinate labels, the centre of every cell) and what
stands on each cell of a state (``cells``: one short piece code per cell, ``""``
for an empty one) and which cells to emphasise (``marks``: a winning line). The
same layout feeds the static diagrams of the report (rendered by the Jinja2
template ``diagram.svg.j2``) and the JavaScript replay viewer (which draws the
pieces of each ply from the same cell list), so both always agree.

A game's package supplies its board (the ``board`` of its
:class:`~partita.game.spec.GameSpec`); a game without one gets a :class:`TextBoard`,
an SVG of its text diagram, so every game has a picture from the day it lands.

A board may also say where its moves are clicked (:meth:`Board.regions`,
:meth:`Board.move_regions`, :meth:`Board.move_text`): the regions of a position
(cells, edge entries, cards, buttons), the regions each legal move is clicked as,
and the move a sequence of clicks spells, so that a page can narrow the legal
moves click by click. A board that declares no regions (the default) is played
through its list of legal moves. In a game with hidden information a board is
drawn for a viewer seat (:meth:`Board.svg_for`), hiding what that seat cannot see.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from html import escape
from typing import Any, ClassVar

from jinja2 import Environment, PackageLoader, select_autoescape

from partita.game.notation import GameNotation
from partita.game.registry import get_spec

__all__ = [
    "PIECE_STYLES",
    "READABLE_TEXT",
    "Board",
    "Layout",
    "Region",
    "TextBoard",
    "board_for",
    "readable_scale",
    "render_diagram",
    "resize_diagram",
    "svg_open",
    "xml_text",
]

#: Fill and stroke of each piece code (the viewer uses the same table).
PIECE_STYLES: dict[str, tuple[str, str]] = {
    "x": ("#d7263d", "#8c1020"),  # Player1: red
    "o": ("#f5c400", "#a07d00"),  # Player2: yellow
    "1": ("#d7263d", "#8c1020"),
    "2": ("#f5c400", "#a07d00"),
    "3": ("#2e86de", "#15508c"),
    "4": ("#27ae60", "#14653a"),
    # Games whose sides have named colours (a colours tag) start
    # their codes with the colour's letter.
    "r": ("#d7263d", "#8c1020"),
    "b": ("#2e86de", "#15508c"),
    "g": ("#27ae60", "#14653a"),
    "w": ("#f7f7f2", "#555555"),
}


@dataclass(frozen=True, slots=True)
class Shape:
    """One background element: ``kind`` is an SVG element name (rect, circle,
    path, line), ``attrs`` its attributes (numbers or strings)."""

    kind: str
    attrs: tuple[tuple[str, Any], ...]

    def as_dict(self) -> dict:
        return {"kind": self.kind, "attrs": dict(self.attrs)}


@dataclass(frozen=True, slots=True)
class Label:
    """A coordinate label: text centred on ``x``, ``y``."""

    x: float
    y: float
    text: str

    def as_dict(self) -> dict:
        return {"x": self.x, "y": self.y, "text": self.text}


@dataclass(frozen=True, slots=True)
class Region:
    """A clickable part of a drawn position: ``id`` (what :meth:`Board.move_regions`
    names), ``label`` (its accessible name: ``t4``, ``card c17``, ``draw``) and the
    ``shape`` it covers on the drawing (drawn transparent over the board)."""

    id: str
    label: str
    shape: Shape


@dataclass(frozen=True, slots=True)
class Layout:
    """How a board is drawn: the view box, the background, the labels, the centre
    of each cell (in the order of :meth:`Board.cells`) and the piece radius."""

    kind: str
    width: float
    height: float
    shapes: tuple[Shape, ...]
    labels: tuple[Label, ...]
    cells: tuple[tuple[float, float], ...]
    radius: float
    title: str = ""
    notes: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict:
        """The layout as JSON data for the viewer."""
        return {
            "kind": self.kind,
            "width": self.width,
            "height": self.height,
            "shapes": [shape.as_dict() for shape in self.shapes],
            "labels": [label.as_dict() for label in self.labels],
            "cells": [list(cell) for cell in self.cells],
            "radius": self.radius,
            "title": self.title,
        }


class Board:
    """The picture of one game's positions (see the module docstring)."""

    #: The colours of the pieces this board draws: ``(fill, stroke)`` by the first
    #: character of a piece code (:meth:`cells`). A board whose codes are not those
    #: of :data:`PIECE_STYLES` declares its own; the conformance suite refuses a code
    #: the board declares no colour for.
    piece_colours: ClassVar[Mapping[str, tuple[str, str]]] = PIECE_STYLES

    def __init__(self, game: GameNotation) -> None:
        self.game = game

    @property
    def layout(self) -> Layout:
        raise NotImplementedError

    def cells(self, state: Any) -> list[str]:
        """One piece code per cell of :attr:`layout` (``""`` for an empty cell)."""
        raise NotImplementedError

    def marks(self, state: Any) -> set[int]:
        """Cells to emphasise in ``state`` (a winning line); none by default."""
        return set()

    def text(self, state: Any) -> str | None:
        """A text picture for boards without cells (:class:`TextBoard`)."""
        return None

    def legend(self, state: Any) -> list[tuple[str, str, str]]:
        """``(label, fill, stroke)`` of each side's colour in ``state``, for a
        legend beside the diagrams; by default ``Player1``... in the styles of the
        seat digits (``1`` red, ``2`` yellow, ``3`` blue, ``4`` green)."""
        return [
            (f"Player{seat + 1}", *PIECE_STYLES.get(str(seat + 1), ("#777777", "#333333")))
            for seat in range(self.game.rules.sides(state))
        ]

    def svg(
        self, state: Any, *, caption: str = "", last: Sequence[int] = (), scale: float = 1.0
    ) -> str | None:
        """A board's own static drawing of ``state`` (stacks, pins, token shapes
        that the generic cell template cannot show); ``None``: use the template."""
        return None

    def svg_for(
        self,
        state: Any,
        viewer: int | None,
        *,
        caption: str = "",
        last: Sequence[int] = (),
        scale: float = 1.0,
        interactive: bool = False,
    ) -> str | None:
        """:meth:`svg` as seat ``viewer`` sees the table (``None``: all of it), and
        with room for the regions' controls when ``interactive``. Boards of games with
        hidden information or with controls beside the board override it."""
        return self.svg(state, caption=caption, last=last, scale=scale)

    # -- where moves are clicked ---------------------------------------------------------------
    def regions(self, state: Any, viewer: int | None = None) -> tuple[Region, ...]:
        """Every clickable region of ``state`` as ``viewer`` sees it; none by default
        (the game is then played through its list of legal moves)."""
        return ()

    def move_regions(self, state: Any, move: Any) -> tuple[str, ...]:
        """The ids of the regions a legal ``move`` is clicked as, in order (``()``: a
        move that is not clicked, played from the list)."""
        return ()

    def move_text(self, state: Any, regions: Sequence[str]) -> str | None:
        """The move token a sequence of clicked regions spells, legal or not (so the
        rules can say why an illegal one is refused); ``None`` while the clicks do
        not complete a move."""
        return None

    def frame(self, state: Any) -> dict:
        """What the viewer needs to draw ``state``: the cells as one string when
        every code is one character (compact JSON), the marked cells, the text."""
        cells = self.cells(state)
        if all(len(code) <= 1 for code in cells):
            packed: str | list[str] = "".join(code or "." for code in cells)
        else:
            packed = cells
        data: dict[str, Any] = {"cells": packed}
        marks = self.marks(state)
        if marks:
            data["marks"] = sorted(marks)
        text = self.text(state)
        if text is not None:
            data["text"] = text
        return data


def svg_open(
    layout: Layout,
    width: float,
    height: float,
    *,
    title: str,
    scale: float = 1.0,
    label_style: str = 'font-size="11" fill="#555"',
) -> list[str]:
    """The first lines of a board's own drawing (see :meth:`Board.svg`): the
    ``<svg>`` element, its accessible title, a white ground, the layout's shapes
    and labels. Every text is escaped; the caller appends pieces and ``</svg>``."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="diagram" role="img" '
        f'viewBox="0 0 {width:g} {height:g}" width="{round(width * scale, 1):g}" '
        f'height="{round(height * scale, 1):g}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{width:g}" height="{height:g}" fill="#ffffff"/>',
    ]
    for shape in layout.shapes:
        attrs = " ".join(f'{name}="{escape(str(value))}"' for name, value in shape.attrs)
        parts.append(f"<{shape.kind} {attrs}/>")
    for label in layout.labels:
        parts.append(
            f'<text x="{label.x:g}" y="{label.y:g}" text-anchor="middle" '
            f'font-family="sans-serif" {label_style}>{escape(label.text)}</text>'
        )
    return parts


class TextBoard(Board):
    """The fallback for games without a drawn board: the text diagram in an SVG."""

    @property
    def layout(self) -> Layout:
        return Layout(
            kind="text",
            width=0,
            height=0,
            shapes=(),
            labels=(),
            cells=(),
            radius=0,
            title=getattr(self.game, "title", self.game.name),
        )

    def cells(self, state: Any) -> list[str]:
        return []

    def text(self, state: Any) -> str:
        return self.game.diagram(state)


BoardFactory = Callable[[GameNotation], Board]

#: The least size of a report diagram's text, in CSS pixels: see :func:`readable_scale`.
READABLE_TEXT = 8.0

_SVG_OPEN = re.compile(r"<svg\b[^>]*>")
_VIEW_BOX = re.compile(r'viewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"')
_FONT_SIZE = re.compile(r'font-size="([\d.]+)(?:px)?"')


def readable_scale(
    svg: str, *, scale: float, min_text: float = READABLE_TEXT, max_scale: float = 1.0
) -> float:
    """The scale at which to show a diagram (an ``<svg>`` element with a view box):
    ``scale``, or more when its smallest text would then be under ``min_text``
    pixels (up to ``max_scale``), so that a board with small print gets a bigger
    card instead of unreadable text."""
    sizes = [float(size) for size in _FONT_SIZE.findall(svg) if float(size) > 0]
    if not sizes:
        return scale
    return max(scale, min(max_scale, min_text / min(sizes)))


def resize_diagram(svg: str, scale: float) -> tuple[str, float]:
    """``svg`` drawn at ``scale`` of its view box (its ``width`` and ``height``
    rewritten), and its width in pixels (0 when it has no view box)."""
    opening = _SVG_OPEN.search(svg)
    box = _VIEW_BOX.search(opening.group(0)) if opening else None
    if opening is None or box is None:
        return svg, 0.0
    width, height = float(box.group(1)) * scale, float(box.group(2)) * scale
    tag = re.sub(r'\s(?:width|height)="[^"]*"', "", opening.group(0))
    tag = tag[:-1].rstrip("/").rstrip() + f' width="{width:.1f}" height="{height:.1f}">'
    return svg[: opening.start()] + tag + svg[opening.end() :], round(width, 1)


def board_for(game: GameNotation) -> Board:
    """The board that draws ``game``'s positions: its spec's board (see
    :class:`~partita.game.spec.GameSpec`), or a :class:`TextBoard` if it has none."""
    factory = get_spec(game.name).board_factory()
    return (factory or TextBoard)(game)


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("partita.analysis", "templates"),
        autoescape=select_autoescape(["html", "svg", "j2"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def render_diagram(
    game: GameNotation,
    state: Any,
    *,
    caption: str = "",
    last: Sequence[int] = (),
    scale: float = 1.0,
    viewer: int | None = None,
    interactive: bool = False,
) -> str:
    """An SVG diagram of ``state`` (a standalone ``<svg>`` element, no script, no
    external reference). ``last``: cells to ring as the last move; ``caption``:
    the accessible title; ``viewer``: drawn as that seat sees the table (a game
    with hidden information); ``interactive``: the board's regions drawn over it,
    each an element with ``data-region`` and an ``aria-label``. Every text is
    escaped by the template, and characters XML forbids (a record's player name may
    hold an escape or a bell) are dropped, so the SVG is always well-formed XML."""
    board = board_for(game)
    if viewer is not None and not game.rules.hidden_information:
        viewer = None
    if viewer is None and not interactive:
        svg = _render_diagram(game, state, caption=caption, last=last, scale=scale)
    else:
        own = board.svg_for(
            state, viewer, caption=caption, last=last, scale=scale, interactive=interactive
        )
        svg = own or _render_diagram(game, state, caption=caption, last=last, scale=scale)
    if interactive:
        svg = _with_regions(svg, board.regions(state, viewer))
    return xml_text(svg)


def _with_regions(svg: str, regions: Sequence[Region]) -> str:
    """``svg`` with each region drawn over it: a transparent shape that a click
    (or a test) finds by ``data-region`` and a screen reader by ``aria-label``."""
    if not regions:
        return svg
    parts = ['<g class="regions">']
    for region in regions:
        attrs = " ".join(
            f'{name}="{escape(str(value))}"'
            for name, value in region.shape.attrs
            if name not in ("fill", "stroke", "stroke-width", "class")
        )
        label = escape(region.label)
        parts.append(
            f'<{region.shape.kind} {attrs} class="region" fill="transparent" '
            f'data-region="{escape(region.id)}" aria-label="{label}">'
            f"<title>{label}</title></{region.shape.kind}>"
        )
    parts.append("</g>")
    end = svg.rstrip().rfind("</svg>")
    return svg[:end] + "\n".join(parts) + "\n</svg>"


#: Characters XML 1.0 forbids in a document: C0 controls but tab, LF and CR;
#: surrogates; U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` without the characters XML forbids (they cannot even be escaped)."""
    return _NOT_XML.sub("", text)


def _render_diagram(
    game: GameNotation, state: Any, *, caption: str, last: Sequence[int], scale: float
) -> str:
    board = board_for(game)
    own = board.svg(state, caption=caption, last=last, scale=scale)
    if own is not None:
        return own
    layout = board.layout
    if layout.kind == "text":
        lines = (board.text(state) or "").splitlines()
        width = max((len(line) for line in lines), default=1) * 8.5 + 16
        height = len(lines) * 16 + 16
        return (
            _environment()
            .get_template("diagram_text.svg.j2")
            .render(lines=lines, width=width, height=height, caption=caption, scale=scale)
        )
    cells = board.cells(state)
    pieces = []
    for index, code in enumerate(cells):
        if not code:
            continue
        fill, stroke = board.piece_colours.get(code[:1], ("#777", "#333"))
        cx, cy = layout.cells[index]
        pieces.append(
            {
                "cx": cx,
                "cy": cy,
                "fill": fill,
                "stroke": stroke,
                "code": code,
                "label": code if len(code) > 1 else "",
            }
        )
    marks = [layout.cells[index] for index in sorted(board.marks(state))]
    rings = [layout.cells[index] for index in last]
    return (
        _environment()
        .get_template("diagram.svg.j2")
        .render(
            layout=layout,
            pieces=pieces,
            marks=marks,
            rings=rings,
            caption=caption,
            scale=scale,
            radius=layout.radius,
        )
    )
