"""The Forceball table: each player's hand, speed pile and maneuver pile, the draw
and discard piles between them, and a status line.

Player2 sits at the top, Player1 at the bottom, each with three rows of card slots
(from the edge inwards: hand, speed pile bottom to top, maneuver pile oldest first
with the cards laid across each maneuver, drawn dashed); the middle row shows the draw pile's top
card and the discard pile's top card with their sizes. The static drawing
(:meth:`ForceballBoard.svg`) draws cards as small rectangles (id, type letters,
force/speed, a mark for a special symbol, ``=S`` for a foul declared as a Shot);
the replay viewer draws from
:attr:`layout` and :meth:`cells`: one cell per slot, codes ``1c17`` (the seat's
colour, then the card id), ``3c40`` for the draw pile's top and ``4c12`` for the
discard pile's top. A row holds up to its number of slots; a longer row shows its
first cards and a count.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from html import escape

from partita.analysis.diagrams import PIECE_STYLES, Board, Label, Layout, Shape, svg_open
from partita.games.forceball.notation import ForceballNotation
from partita.games.forceball.rules import ForceballRules
from partita.games.forceball.values import TYPE_LETTERS, ForceballState

__all__ = ["ForceballBoard"]

SLOTS = {"hand": 14, "speed": 10, "pile": 14}
CARD_W, CARD_H, GAP = 38, 52, 6
LEFT = 84
WIDTH = LEFT + SLOTS["hand"] * (CARD_W + GAP) + 10
ROW = CARD_H + 12
TOP = 34
HEIGHT = TOP + 7 * ROW + 10
#: Rows from the top: Player2 hand, speed, pile; the middle; Player1 pile, speed, hand.
ROWS = (
    (1, "hand"),
    (1, "speed"),
    (1, "pile"),
    (None, "middle"),
    (0, "pile"),
    (0, "speed"),
    (0, "hand"),
)
_ROW_NAMES = {"hand": "hand", "speed": "speed", "pile": "maneuvers", "middle": "piles"}


def _row_y(row: int) -> float:
    return TOP + row * ROW + CARD_H / 2


def _slot_x(slot: int) -> float:
    return LEFT + slot * (CARD_W + GAP) + CARD_W / 2


class ForceballBoard(Board):
    """The table of a Forceball game (see the module docstring)."""

    rules: ForceballRules

    def __init__(self, game: ForceballNotation) -> None:
        super().__init__(game)
        self.rules = game.rules

    @cached_property
    def layout(self) -> Layout:
        cells: list[tuple[float, float]] = []
        labels: list[Label] = []
        shapes: list[Shape] = []
        for row, (seat, kind) in enumerate(ROWS):
            y = _row_y(row)
            who = "" if seat is None else f"P{seat + 1} "
            labels.append(Label(LEFT / 2 - 2, y + 4, f"{who}{_ROW_NAMES[kind]}"))
            slots = 2 if kind == "middle" else SLOTS[kind]
            for slot in range(slots):
                x = _slot_x(slot * 3 if kind == "middle" else slot)
                cells.append((x, y))
        shapes.append(
            Shape(
                "rect",
                (
                    ("x", 4),
                    ("y", TOP + 3 * ROW - 4),
                    ("width", WIDTH - 8),
                    ("height", ROW),
                    ("fill", "#eef3ee"),
                    ("stroke", "#9ab09a"),
                ),
            )
        )
        return Layout(
            kind="forceball",
            width=WIDTH,
            height=HEIGHT,
            shapes=tuple(shapes),
            labels=tuple(labels),
            cells=tuple(cells),
            radius=CARD_W * 0.45,
            title=f"Forceball, {self.rules.league} league",
        )

    def _rows(self, state: ForceballState) -> list[list[tuple[str, int]]]:
        """Each row's cards as (colour key, card index), in slot order; the colour key
        of a card laid across a maneuver is the seat's key followed by ``+``, that of
        a fouled maneuver is followed by ``=`` and the declared type's letter."""
        rows: list[list[tuple[str, int]]] = []
        for seat, kind in ROWS:
            if kind == "middle":
                middle = []
                if state.draw:
                    middle.append(("3", state.draw[0]))
                if state.discard:
                    middle.append(("4", state.discard[-1]))
                rows.append(middle)
                continue
            assert seat is not None  # only the middle row belongs to nobody
            key = str(seat + 1)
            if kind == "hand":
                cards = list(state.hands[seat])
            elif kind == "speed":
                cards = list(state.speed[seat])
            else:
                laid: list[tuple[str, int]] = []
                for maneuver in state.piles[seat]:
                    foul = f"={TYPE_LETTERS[maneuver.type]}" if maneuver.foul else ""
                    laid.append((key + foul, maneuver.card))
                    laid.extend((key + "+", card) for card in maneuver.increases)
                rows.append(laid)
                continue
            rows.append([(key, card) for card in cards])
        return rows

    def cells(self, state: ForceballState) -> list[str]:
        ids = self.rules.ids
        codes: list[str] = []
        for (_seat, kind), row in zip(ROWS, self._rows(state), strict=True):
            slots = 2 if kind == "middle" else SLOTS[kind]
            if kind == "middle":
                draw = [f"3{ids[c]}" for k, c in row if k == "3"]
                discard = [f"4{ids[c]}" for k, c in row if k == "4"]
                codes += [draw[0] if draw else "", discard[0] if discard else ""]
                continue
            row_codes = [f"{key[0]}{ids[card]}" for key, card in row[:slots]]
            codes += row_codes + [""] * (slots - len(row_codes))
        return codes

    def svg(
        self,
        state: ForceballState,
        *,
        caption: str = "",
        last: Sequence[int] = (),
        scale: float = 1.0,
    ) -> str:
        layout = self.layout
        title = caption or layout.title
        parts = svg_open(
            layout,
            WIDTH,
            HEIGHT,
            title=title,
            scale=scale,
            label_style='font-size="10" fill="#444"',
        )
        parts.append(
            f'<text x="8" y="18" font-family="sans-serif" font-size="12" fill="#000">'
            f"{escape(self._status(state))}</text>"
        )
        for row, ((_seat, kind), cards) in enumerate(zip(ROWS, self._rows(state), strict=True)):
            y = _row_y(row)
            if kind == "middle":
                for slot, (key, card) in enumerate(cards):
                    parts.append(self._card(_slot_x(slot * 3), y, key, card))
                notes = (
                    f"draw pile {len(state.draw)}",
                    f"discard pile {len(state.discard)}",
                )
                for slot, note in enumerate(notes):
                    parts.append(
                        f'<text x="{_slot_x(slot * 3) + CARD_W / 2 + 6:g}" y="{y + 4:g}" '
                        f'font-family="sans-serif" font-size="11" fill="#333">{note}</text>'
                    )
                continue
            slots = SLOTS[kind]
            shown = cards if len(cards) <= slots else cards[: slots - 1]
            for slot, (key, card) in enumerate(shown):
                parts.append(self._card(_slot_x(slot), y, key, card))
            if len(shown) < len(cards):
                parts.append(
                    f'<text x="{_slot_x(slots - 1):g}" y="{y + 4:g}" text-anchor="middle" '
                    f'font-family="sans-serif" font-size="11" fill="#333">'
                    f"+{len(cards) - len(shown)}</text>"
                )
        parts.append("</svg>")
        return "\n".join(parts)

    def _status(self, state: ForceballState) -> str:
        rules = self.rules
        text = f"period {state.period}/{rules.periods}, score {state.scores[0]}-{state.scores[1]}"
        if state.phase == "turn":
            text += (
                f"; P{state.attacker + 1} attacks, P{state.to_move + 1} to move, force to "
                f"beat {rules.force_to_beat(state)}, a goal is worth {state.worth}"
            )
        elif state.phase == "over":
            text += "; game over"
        else:
            text += f"; next: {'the shuffle' if state.phase == 'shuffle' else 'a face-off'}"
        return text

    def _card(self, x: float, y: float, key: str, card: int) -> str:
        info = self.rules.cards[card]
        fill, stroke = PIECE_STYLES.get(key[0], ("#777", "#333"))
        dash = ' stroke-dasharray="4,3"' if key.endswith("+") else ""
        letters = "/".join(TYPE_LETTERS[kind] for kind in info.types)
        if "=" in key:  # a foul: the type it was declared as
            letters += key[key.index("=") :]
        special = {"referee": "R", "lucky-shot": "L", "goalie": "G", "stress": "!"}.get(
            info.special or "", ""
        )
        left, top = x - CARD_W / 2, y - CARD_H / 2
        return (
            f'<g class="piece piece-{key[0]}{escape(info.id)}">'
            f'<rect x="{left:g}" y="{top:g}" width="{CARD_W}" height="{CARD_H}" rx="4" '
            f'fill="#ffffff" stroke="{stroke}" stroke-width="2"{dash}/>'
            f'<rect x="{left:g}" y="{top:g}" width="{CARD_W}" height="12" rx="4" fill="{fill}"/>'
            f'<text x="{x:g}" y="{top + 10:g}" text-anchor="middle" font-family="sans-serif" '
            f'font-size="9" fill="#000">{escape(info.id)}</text>'
            f'<text x="{x:g}" y="{top + 26:g}" text-anchor="middle" font-family="sans-serif" '
            f'font-size="11" fill="#000">{letters}</text>'
            f'<text x="{x:g}" y="{top + 40:g}" text-anchor="middle" font-family="sans-serif" '
            f'font-size="10" fill="#000">{info.force}/{info.speed}</text>'
            + (
                f'<text x="{x:g}" y="{top + 50:g}" text-anchor="middle" font-family="sans-serif" '
                f'font-size="9" fill="#a00">{special}</text>'
                if special
                else ""
            )
            + "</g>"
        )
