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

Drawn for a viewer seat (:meth:`ForceballBoard.svg_for`), the opponent's hand and
speed pile and the discard pile's top are card backs. Interactive, the table gets a
row of action buttons under it (draw, speed up, maneuver, increases, fouls, the
referee check, stakes, the end of the attack, rewards): a turn is clicked as its
actions, each a button and, where it names a card of the hand, that card
(:meth:`ForceballBoard.move_regions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property, lru_cache
from html import escape
from typing import Any

from partita.analysis.diagrams import PIECE_STYLES, Board, Label, Layout, Region, Shape, svg_open
from partita.games.forceball.notation import ForceballNotation
from partita.games.forceball.rules import ForceballRules
from partita.games.forceball.values import (
    JUNIOR,
    PRO,
    SENIOR,
    TURN,
    TYPE_LETTERS,
    Action,
    Draw,
    End,
    ForceballState,
    ForceHand,
    ForceSpeed,
    Play,
    RefereeCheck,
    Rehand,
    RewardHand,
    RewardSpeed,
    Special,
    SpeedDown,
    SpeedSwap,
    SpeedUp,
    Stakes,
    Transform,
    Turn,
)

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
        return self._svg(state, caption, scale, None, ())

    def svg_for(
        self,
        state: ForceballState,
        viewer: int | None,
        *,
        caption: str = "",
        last: Sequence[int] = (),
        scale: float = 1.0,
        interactive: bool = False,
    ) -> str:
        buttons = _button_boxes(self._buttons(state)) if interactive else ()
        return self._svg(state, caption, scale, viewer, buttons)

    # -- where moves are clicked ---------------------------------------------------------------
    def _seat(self, state: ForceballState, viewer: int | None) -> int | None:
        """Whose hand is clicked: the viewer's, or the player's to move."""
        if viewer is not None:
            return viewer
        return state.to_move if state.phase == TURN else None

    def regions(self, state: ForceballState, viewer: int | None = None) -> tuple[Region, ...]:
        """The cards of the hand of ``viewer`` (else of the player to move) and the
        action buttons under the table."""
        regions = []
        seat = self._seat(state, viewer)
        if seat is not None:
            row = next(r for r, (s, kind) in enumerate(ROWS) if s == seat and kind == "hand")
            y = _row_y(row) - CARD_H / 2
            ids = self.rules.ids
            for slot, card in enumerate(state.hands[seat]):
                x = _slot_x(min(slot, SLOTS["hand"] - 1)) - CARD_W / 2
                shape = Shape("rect", (("x", x), ("y", y), ("width", CARD_W), ("height", CARD_H)))
                regions.append(Region(f"card:{ids[card]}", f"card {ids[card]}", shape))
            if state.draw:  # the draw pile's top card, face up: a draw brings it
                top = ids[state.draw[0]]
                row = next(r for r, (_, kind) in enumerate(ROWS) if kind == "middle")
                shape = Shape(
                    "rect",
                    (
                        ("x", _slot_x(0) - CARD_W / 2),
                        ("y", _row_y(row) - CARD_H / 2),
                        ("width", CARD_W),
                        ("height", CARD_H),
                    ),
                )
                regions.append(Region(f"card:{top}", f"card {top}, top of the draw pile", shape))
        if state.phase == TURN:
            for button, (x, y, w, h) in _button_boxes(self._buttons(state)):
                shape = Shape("rect", (("x", x), ("y", y), ("width", w), ("height", h)))
                regions.append(Region(f"act:{button}", _button_label(button), shape))
        return tuple(regions)

    def move_regions(self, state: ForceballState, move: Any) -> tuple[str, ...]:
        if not isinstance(move, Turn) or state.phase != TURN:
            return ()
        clicks = tuple(region for action in move.actions for region in _action_regions(action))
        ids = self.rules.ids
        shown = {f"card:{ids[card]}" for card in state.hands[state.to_move]}
        if state.draw:
            shown.add(f"card:{ids[state.draw[0]]}")
        buttons = {f"act:{button}" for button in self._buttons(state)}
        if any(click not in shown and click not in buttons for click in clicks):
            # a card drawn from below the top, a referee card or a reward no button
            # shows: the turn is typed or played from the list
            return ()
        return clicks

    def move_text(self, state: ForceballState, regions: Sequence[str]) -> str | None:
        text = ""
        previous = ""
        for region in regions:
            kind, _, value = region.partition(":")
            if kind == "card":
                if previous.startswith("card:"):
                    text += ","
                elif previous not in _WANTS_CARD:
                    return None
                text += value
            elif kind == "act":
                if previous in _WANTS_CARD:
                    return None
                text += value
            else:
                return None
            previous = region
        if not text or previous in _WANTS_CARD:
            return None
        return text

    def _buttons(self, state: ForceballState) -> tuple[str, ...]:
        """The action buttons of a turn: the league's fixed ones, then those the
        turns listed now need (referee checks, speed rewards)."""
        if state.phase != TURN:
            return ()
        return _buttons(self.rules, state)

    def _svg(
        self,
        state: ForceballState,
        caption: str,
        scale: float,
        viewer: int | None,
        buttons: Sequence[tuple[str, tuple[float, float, float, float]]],
    ) -> str:
        layout = self.layout
        title = caption or layout.title
        height = HEIGHT + (_buttons_height(buttons) if buttons else 0)
        parts = svg_open(
            layout,
            WIDTH,
            height,
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
                    if viewer is not None and key == "4":  # the discard pile lies face down
                        parts.append(_back(_slot_x(slot * 3), y))
                    else:
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
            hidden = viewer is not None and _seat_of_row(row) != viewer and kind != "pile"
            for slot, (key, card) in enumerate(shown):
                if hidden:
                    parts.append(_back(_slot_x(slot), y))
                else:
                    parts.append(self._card(_slot_x(slot), y, key, card))
            if len(shown) < len(cards):
                parts.append(
                    f'<text x="{_slot_x(slots - 1):g}" y="{y + 4:g}" text-anchor="middle" '
                    f'font-family="sans-serif" font-size="11" fill="#333">'
                    f"+{len(cards) - len(shown)}</text>"
                )
        for button, (x, y, w, h) in buttons:
            parts.append(
                f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="4" '
                f'fill="#f3f3f3" stroke="#666"/>'
                f'<text x="{x + w / 2:g}" y="{y + h / 2 + 4:g}" text-anchor="middle" '
                f'font-family="monospace" font-size="12" fill="#000">{escape(button)}</text>'
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


def _seat_of_row(row: int) -> int | None:
    return ROWS[row][0]


def _back(x: float, y: float) -> str:
    """A card lying face down."""
    left, top = x - CARD_W / 2, y - CARD_H / 2
    return (
        f'<g class="card-back"><rect x="{left:g}" y="{top:g}" width="{CARD_W}" '
        f'height="{CARD_H}" rx="4" fill="#5b6f91" stroke="#2f3d57" stroke-width="2"/>'
        f'<rect x="{left + 5:g}" y="{top + 5:g}" width="{CARD_W - 10}" height="{CARD_H - 10}" '
        'rx="3" fill="none" stroke="#c9d3e6" stroke-dasharray="3,2"/></g>'
    )


#: The buttons after which a card of the hand is clicked.
_WANTS_CARD = frozenset({"act:+", "act:~", "act:@", "act:^", "act:#", "act:|"})


def _action_regions(action: Action) -> tuple[str, ...]:
    """The regions one action is clicked as (see the module docstring)."""
    match action:
        case Draw():
            return ("act:>",)
        case SpeedUp(card):
            return ("act:+", f"card:{card}")
        case SpeedDown():
            return ("act:-",)
        case SpeedSwap(card):
            return ("act:~", f"card:{card}")
        case Transform(draws):
            return (f"act:%{draws}",)
        case Rehand(discards, draws):
            return ("act:#", *(f"card:{card}" for card in discards), f"act:>{draws}")
        case Play(card, declared):
            foul = (f"act:={TYPE_LETTERS[declared]}",) if declared else ()
            return ("act:@", f"card:{card}", *foul)
        case ForceSpeed(count):
            return (f"act:^{count}",)
        case ForceHand(card):
            return ("act:^", f"card:{card}")
        case RefereeCheck(card):
            return (f"act::{card}",)
        case Stakes(accepted):
            return ("act:*y" if accepted else "act:*n",)
        case End():
            return ("act:/",)
        case Special(card):
            return ("act:|", f"card:{card}")
        case RewardHand(draws):
            return (f"act:>{draws}",)
        case RewardSpeed(cards):
            return (f"act:>{','.join(cards)}",)
    raise ValueError(f"{action!r} is no Forceball action")


@lru_cache(maxsize=64)
def _buttons(rules: ForceballRules, state: ForceballState) -> tuple[str, ...]:
    """The league's fixed buttons, then a referee check and a speed reward naming
    the draw pile's top card (the cards below it are not seen: a turn naming them
    is typed)."""
    fixed = [">", "+", "@"]
    if rules.level >= JUNIOR:
        fixed += ["-", "~", "%0", "%1", "%2", "#", "^", "^1", "^2", "^3"]
    if rules.level >= SENIOR:
        fixed += ["=" + letter for letter in TYPE_LETTERS.values()]
    if rules.level >= PRO:
        fixed += ["*y", "*n"]
    fixed += ["/"]
    if rules.level >= SENIOR:
        fixed += ["|"]
    fixed += [">1", ">2", ">3"]
    found = dict.fromkeys(fixed)
    ids = rules.ids
    if state.draw:
        # the draw pile's top card, the one card of the piles a player sees: a
        # referee check and a reward may name it
        top = ids[state.draw[0]]
        if rules.level >= SENIOR:
            found.setdefault(f":{top}")
        found.setdefault(f">{top}")
        if len(state.draw) == 1:
            found.setdefault(f">{top},_")
    return tuple(found)


_BUTTON_H, _BUTTON_GAP = 26, 6


def _button_boxes(
    buttons: Sequence[str],
) -> tuple[tuple[str, tuple[float, float, float, float]], ...]:
    """Each button with its box (x, y, width, height), in rows under the table."""
    boxes = []
    x, y = 8.0, HEIGHT + 4.0
    for button in buttons:
        width = max(30.0, 8.0 * len(button) + 14)
        if x + width > WIDTH - 8:
            x, y = 8.0, y + _BUTTON_H + _BUTTON_GAP
        boxes.append((button, (x, y, width, float(_BUTTON_H))))
        x += width + _BUTTON_GAP
    return tuple(boxes)


def _buttons_height(boxes: Sequence[tuple[str, tuple[float, float, float, float]]]) -> float:
    bottom = max(y + h for _, (_, y, _, h) in boxes)
    return bottom - HEIGHT + 8


_BUTTON_WORDS = {
    ">": "draw",
    "+": "speed up with a card",
    "-": "speed down",
    "~": "swap the top speed card with a card",
    "#": "restructure the hand",
    "@": "make a maneuver with a card",
    "^": "increase the force with a card",
    "/": "end the attack",
    "|": "Lucky shot or Goalie with a card",
    "*y": "raise the stakes, accepted",
    "*n": "raise the stakes, declined",
}


def _button_label(button: str) -> str:
    """The accessible name of an action button."""
    if button in _BUTTON_WORDS:
        return f"{_BUTTON_WORDS[button]} ({button})"
    sign, rest = button[0], button[1:]
    words = {
        "%": f"transform the speed, drawing {rest}",
        "^": f"increase the force with {rest} speed cards",
        "=": f"declared as {rest} (a foul)",
        ":": f"the referee check reveals {rest}",
        ">": f"the reward: {rest} to the speed pile"
        if not rest.isdigit()
        else f"the reward: draw {rest}",
    }
    return f"{words.get(sign, button)} ({button})"
