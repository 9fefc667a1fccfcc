"""Circular Reasoning: The Well of Power, for 2 to 4 sides.

Three concentric tracks of 16 segments (outer ``O``, middle ``M``, inner ``I``,
numbered clockwise, segment k of one track beside segment k of the next) around the
Goal Area ``G``. Each side has a circle (moves 2), a triangle (3) and a square (4),
entered through the Player Entrance. Three gateways join the tracks: the large one
(on the outer track) joins outer and middle, the medium one (middle) joins middle
and inner, the small one (inner) joins inner and the Goal Area. After every round
each gateway moves clockwise by the number of tokens on its own track, and the
next round starts with the next seat. The first side with all three tokens in the
Goal Area wins.

The reading of the rulebook's gaps is the project's spec (see
``docs/circular-reasoning.md``): one token moves per turn using exactly its value
in steps, one direction for the whole turn, occupied segments jumped for free,
entering costs a step, a gateway pass costs a step, is optional, blocked by a token
on the far side, and is made at most once per gateway per turn; the Goal Area ends
the move (basic play drops left-over steps, advanced play needs the exact count).

A move is one token's whole path, identified by the token and its destination
(:class:`Move`); the direction written in the notation is checked by the notation
layer against :meth:`CircularReasoningRules.reach`.

Cells are ints: ``track * 16 + (segment - 1)`` for track 0 (outer), 1 (middle),
2 (inner); :data:`GOAL` for the Goal Area and :data:`RESERVE` for a token not yet
entered. A token is ``seat * 3 + shape`` with shapes circle 0, triangle 1, square 2.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from partita.errors import SetupError, TagError
from partita.game.rules import POSITIVE, Outcome, Rules, TagSpec

__all__ = [
    "COLOR_LETTERS",
    "DEFAULT_COLORS",
    "DEFAULT_LAYOUT",
    "GOAL",
    "PASS",
    "RESERVE",
    "SHAPES",
    "BoardLayout",
    "CircularReasoningRules",
    "CircularReasoningState",
    "Move",
    "Pass",
    "cell_name",
    "parse_cell",
]

SEGMENTS = 16
TRACKS = "OMI"
TRACK_WORDS = ("outer", "middle", "inner")
#: The Goal Area, and a token still in its side's reserve (off the board).
GOAL = 48
RESERVE = 49
#: Token shapes by index: circle, triangle, square; their movement values.
SHAPES = "CTS"
SHAPE_WORDS = ("circle", "triangle", "square")
VALUES = (2, 3, 4)
#: Gateways by index: large (on the outer track), medium (middle), small (inner).
GATEWAY_WORDS = ("large", "medium", "small")
#: The colours a side may have, with their letters in diagrams.
COLOR_LETTERS = {"red": "r", "blue": "b", "green": "g", "white": "w"}
DEFAULT_COLORS = ("red", "blue", "green", "white")
VARIANTS = ("basic", "advanced")

_CELL = re.compile(rf"([OMI])({POSITIVE})|G")


def cell_name(cell: int) -> str:
    """``O1``..``I16``, ``G`` for the Goal Area, ``@`` for the reserve."""
    if cell == GOAL:
        return "G"
    if cell == RESERVE:
        return "@"
    return f"{TRACKS[cell >> 4]}{(cell & 15) + 1}"


def parse_cell(text: str) -> int:
    """The cell a canonical name gives (``O1``..``I16``, ``G``); ``ValueError``
    otherwise (the message names the text and why)."""
    match = _CELL.fullmatch(text)
    if match is None:
        raise ValueError(f"'{text}' is no cell: a cell is O, M or I and a segment 1-16, or G")
    if text == "G":
        return GOAL
    segment = int(match.group(2))
    if not 1 <= segment <= SEGMENTS:
        raise ValueError(f"'{text}' is no cell: segments run from 1 to {SEGMENTS}")
    return TRACKS.index(match.group(1)) * SEGMENTS + segment - 1


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """Where the rulebook's named places lie: the Player Entrance (a cell of the
    outer track) and the starting segments (0-15) of the large, medium and small
    gateways on their own tracks."""

    entrance: int = 0
    large: int = 8
    medium: int = 4
    small: int = 12

    @property
    def gateways(self) -> tuple[int, int, int]:
        return (self.large, self.medium, self.small)

    def text(self) -> str:
        """The `Layout` tag's form: ``entrance=O1 large=O9 medium=M5 small=I13``."""
        return " ".join(
            [f"entrance={cell_name(self.entrance)}"]
            + [
                f"{word}={cell_name(track * SEGMENTS + segment)}"
                for track, (word, segment) in enumerate(
                    zip(GATEWAY_WORDS, self.gateways, strict=True)
                )
            ]
        )

    @classmethod
    def parse(cls, text: str) -> BoardLayout:
        """A layout from the `Layout` tag's form; places not named keep the default.

        ``ValueError`` naming the bad part: unknown or repeated names, a cell that
        does not exist, a gateway off its own track, an entrance off the outer track.
        """
        places: dict[str, int] = {}
        words = text.split()
        if not words:
            raise ValueError("the layout is empty: name places as in 'entrance=O1 large=O9'")
        for word in words:
            name, equals, value = word.partition("=")
            if not equals:
                raise ValueError(f"'{word}' is not of the form place=cell (as in large=O9)")
            if name not in ("entrance", *GATEWAY_WORDS):
                raise ValueError(
                    f"'{name}' is no place of the board (entrance, large, medium, small)"
                )
            if name in places:
                raise ValueError(f"'{name}' is given twice")
            try:
                cell = parse_cell(value)
            except ValueError as error:
                raise ValueError(f"{name}: {error}") from None
            if name == "entrance":
                if cell >> 4 != 0 or cell == GOAL:
                    raise ValueError(
                        f"the entrance must be a segment of the outer track, not {value}"
                    )
            else:
                track = GATEWAY_WORDS.index(name)
                if cell == GOAL or cell >> 4 != track:
                    raise ValueError(
                        f"the {name} gateway lies on the {TRACK_WORDS[track]} track "
                        f"({TRACKS[track]}1-{TRACKS[track]}16), not on {value}"
                    )
                cell &= 15
            places[name] = cell
        return cls(**places)


DEFAULT_LAYOUT = BoardLayout()


@dataclass(frozen=True, slots=True)
class Move:
    """One turn: the side to move's token ``shape`` (``C``, ``T``, ``S``) goes to
    ``destination`` (a cell) by some legal path. Token and destination decide the
    resulting position; the direction of the notation is checked, not stored."""

    shape: str
    destination: int

    def __post_init__(self) -> None:
        if self.shape not in SHAPES or len(self.shape) != 1:
            raise ValueError(f"a token is C, T or S, not {self.shape!r}")
        if type(self.destination) is not int or not 0 <= self.destination <= GOAL:
            raise ValueError(f"a destination is a cell 0-48, not {self.destination!r}")


@dataclass(frozen=True, slots=True)
class Pass:
    """The forced pass of a side with no legal move (``--``)."""


PASS = Pass()


@dataclass(frozen=True, slots=True)
class CircularReasoningState:
    """A position.

    ``tokens`` holds the cell of every token, ``seat * 3 + shape`` (so its length is
    three times the number of sides); ``gates`` the segments (0-15) of the large,
    medium and small gateways on their own tracks; ``round`` counts from 1 and
    ``turn`` is how many sides have played in it (the side to move is seat
    ``(round - 1 + turn) mod sides``); ``ply`` counts plies from the start.
    """

    tokens: tuple[int, ...]
    gates: tuple[int, int, int]
    round: int = 1
    turn: int = 0
    ply: int = 0


@lru_cache(maxsize=65536)
def _reach(
    tokens: tuple[int, ...],
    gates: tuple[int, int, int],
    index: int,
    entrance: int,
    exact_goal: bool,
) -> dict[int, int]:
    """Every destination of token ``index`` with the directions that reach it: a
    mask, 1 for clockwise, 2 for counter-clockwise (a path of gateway passes only
    reaches its end both ways)."""
    origin = tokens[index]
    if origin == GOAL:
        return {}
    occupied = 0
    for other, cell in enumerate(tokens):
        if cell < GOAL and other != index:
            occupied |= 1 << cell
    value = VALUES[index % 3]
    if origin == RESERVE:
        if occupied >> entrance & 1:
            return {}
        start, steps = entrance, value - 1
    else:
        start, steps = origin, value
    found: dict[int, int] = {}
    for mask, delta in ((1, 1), (2, -1)):
        stack = [(start, steps, 0)]
        while stack:
            cell, left, used = stack.pop()
            if left == 0:
                found[cell] = found.get(cell, 0) | mask
                continue
            track, segment = cell >> 4, cell & 15
            base = track << 4
            step = segment
            while True:  # the next free segment that way; occupied ones are jumped
                step = (step + delta) & 15
                if not occupied >> (base + step) & 1:
                    break
            stack.append((base + step, left - 1, used))
            # inward through the gateway on this track, outward through the one on
            # the track outside it
            for gate, far in (
                (track, GOAL if track == 2 else base + 16 + segment),
                (track - 1, base - 16 + segment),
            ):
                if gate < 0 or used >> gate & 1 or gates[gate] != segment:
                    continue
                if far == GOAL:
                    if not exact_goal or left == 1:
                        found[GOAL] = found.get(GOAL, 0) | mask
                elif not occupied >> far & 1:
                    stack.append((far, left - 1, used | 1 << gate))
    return found


def _relaxed_reach(
    tokens: tuple[int, ...],
    gates: tuple[int, int, int],
    index: int,
    entrance: int,
    exact_goal: bool,
    *,
    open_gate: int = -1,
    repeat: bool = False,
    turn: bool = False,
) -> set[int]:
    """Destinations under a relaxed rule, to explain a refusal: ``open_gate`` ignores
    the far side of that gateway being occupied, ``repeat`` lets a gateway be used
    twice in a turn, ``turn`` lets the direction change after any gateway pass.
    With no relaxation it gives the destinations of :func:`_reach` (a test checks it)."""
    origin = tokens[index]
    if origin == GOAL:
        return set()
    occupied = 0
    for other, cell in enumerate(tokens):
        if cell < GOAL and other != index:
            occupied |= 1 << cell
    value = VALUES[index % 3]
    if origin == RESERVE:
        if occupied >> entrance & 1:
            return set()
        start, steps = entrance, value - 1
    else:
        start, steps = origin, value
    found: set[int] = set()
    stack = [(start, steps, 0, 0)]
    while stack:
        cell, left, used, direction = stack.pop()
        if left == 0:
            found.add(cell)
            continue
        track, segment = cell >> 4, cell & 15
        base = track << 4
        for delta in (direction,) if direction else (1, -1):
            step = segment
            while True:
                step = (step + delta) & 15
                if not occupied >> (base + step) & 1:
                    break
            stack.append((base + step, left - 1, used, delta))
        for gate, far in (
            (track, GOAL if track == 2 else base + 16 + segment),
            (track - 1, base - 16 + segment),
        ):
            if gate < 0 or gates[gate] != segment or (used >> gate & 1 and not repeat):
                continue
            if far == GOAL:
                if not exact_goal or left == 1:
                    found.add(GOAL)
            elif not occupied >> far & 1 or gate == open_gate:
                stack.append((far, left - 1, used | 1 << gate, 0 if turn else direction))
    return found


class CircularReasoningRules(Rules[CircularReasoningState, Move | Pass]):
    """The rules engine, configured by a variant (``basic``, ``advanced``), a
    :class:`BoardLayout` and the sides' colours (names, seat order)."""

    name: ClassVar[str] = "circular-reasoning"
    title: ClassVar[str] = "Circular Reasoning"
    min_sides: ClassVar[int] = 2
    max_sides: ClassVar[int] = 4
    tags: ClassVar[tuple[TagSpec, ...]] = (
        TagSpec(
            "Variant",
            "basic: the Goal Area needs no exact count; advanced: it does",
            VARIANTS,
            "basic",
        ),
        TagSpec(
            "Layout",
            "where the Player Entrance and the gateways start, as "
            "'entrance=O1 large=O9 medium=M5 small=I13'",
            None,
            DEFAULT_LAYOUT.text(),
        ),
        TagSpec(
            "Colors",
            "the sides' colours in seat order, one per side, from red, blue, green and "
            "white, as 'white red' (absent: red, blue, green, white in seat order)",
            cosmetic=True,
        ),
    )
    notation_summary: ClassVar[str] = (
        "token C, T or S, direction > (clockwise) or < and destination: T>M10, S<G; "
        "@ enters a token from the reserve (@C>O2); -- is a forced pass"
    )

    def __init__(
        self,
        variant: str = "basic",
        layout: BoardLayout = DEFAULT_LAYOUT,
        colors: Sequence[str] = DEFAULT_COLORS,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be basic or advanced, not {variant!r}")
        self.variant = variant
        self.exact_goal = variant == "advanced"
        self.layout = layout
        self.colors = tuple(colors)
        self.color_letters = tuple(COLOR_LETTERS[color] for color in self.colors)

    # -- configuration ----------------------------------------------------------------
    def configure(self, tags: Mapping[str, str]) -> CircularReasoningRules:
        variant = tags.get("Variant", "basic")
        if variant not in VARIANTS:
            raise TagError(f"Variant '{variant}' is not one of basic, advanced", "Variant")
        layout = DEFAULT_LAYOUT
        if "Layout" in tags:
            try:
                layout = BoardLayout.parse(tags["Layout"])
            except ValueError as error:
                raise TagError(f"Layout '{tags['Layout']}': {error}", "Layout") from None
        colors: tuple[str, ...] = DEFAULT_COLORS
        if "Colors" in tags:
            colors = _parse_colors(tags["Colors"], tags)
        if (variant, layout, colors) == (self.variant, self.layout, self.colors):
            return self
        return CircularReasoningRules(variant, layout, colors)

    # -- states -------------------------------------------------------------------------
    def initial(self, sides: int = 2) -> CircularReasoningState:
        self._check_sides(sides)
        return CircularReasoningState((RESERVE,) * (3 * sides), self.layout.gateways)

    def _check_sides(self, sides: int) -> None:
        if not 2 <= sides <= 4:
            raise SetupError(f"Circular Reasoning is played by 2 to 4 sides, not {sides}")
        if sides > len(self.colors):
            raise SetupError(f"{len(self.colors)} colours are given for {sides} sides")

    def sides(self, state: CircularReasoningState) -> int:
        return len(state.tokens) // 3

    def side_to_move(self, state: CircularReasoningState) -> int:
        return (state.round - 1 + state.turn) % (len(state.tokens) // 3)

    def first_seat(self, round_number: int, sides: int) -> int:
        """The seat (from 0) that opens round ``round_number``."""
        return (round_number - 1) % sides

    def reach(self, state: CircularReasoningState, index: int) -> dict[int, int]:
        """Destinations of token ``index`` (``seat * 3 + shape``) in ``state``, each
        with a mask of the directions that reach it (1 clockwise, 2 counter-)."""
        return _reach(state.tokens, state.gates, index, self.layout.entrance, self.exact_goal)

    def _moves(self, state: CircularReasoningState) -> list[Move]:
        seat = self.side_to_move(state)
        moves: list[Move] = []
        for shape in range(3):
            destinations = self.reach(state, seat * 3 + shape)
            moves.extend(Move(SHAPES[shape], cell) for cell in sorted(destinations))
        return moves

    def legal_moves(self, state: CircularReasoningState) -> Sequence[Move | Pass]:
        if self.winner(state) is not None:
            return []
        return self._moves(state) or [PASS]

    def forced_pass(self, state: CircularReasoningState) -> Pass | None:
        if self.winner(state) is not None or self._moves(state):
            return None
        return PASS

    def is_pass(self, move: object) -> bool:
        return isinstance(move, Pass)

    def illegal_reason(self, state: CircularReasoningState, move: object) -> str | None:
        winner = self.winner(state)
        if winner is not None:
            return f"the game is over: {self._win_words(winner)}"
        seat = self.side_to_move(state)
        if isinstance(move, Pass):
            if self._moves(state):
                return "a pass is allowed only when no move is possible, and here there is one"
            return None
        if not isinstance(move, Move):
            return f"{move!r} is no move of Circular Reasoning"
        index = seat * 3 + SHAPES.index(move.shape)
        token = self.token_words(index)
        origin = state.tokens[index]
        if origin == GOAL:
            return f"the {token} is in the Goal Area and moves no more"
        if origin == RESERVE and self._occupied(state) >> self.layout.entrance & 1:
            entrance = cell_name(self.layout.entrance)
            return f"the Player Entrance {entrance} is occupied, so the {token} cannot enter"
        destinations = self.reach(state, index)
        if move.destination in destinations:
            return None
        value = VALUES[index % 3]
        where = "from the reserve" if origin == RESERVE else f"from {cell_name(origin)}"
        if move.destination == GOAL and self.exact_goal:
            basic = _reach(state.tokens, state.gates, index, self.layout.entrance, False)
            if GOAL in basic:
                return (
                    f"the {token} would enter the Goal Area with steps to spare: advanced "
                    "play needs the exact count"
                )
        why = self._why_not(state, index, move.destination)
        if why:
            return f"the {token} cannot reach {cell_name(move.destination)} {where}: {why}"
        reachable = ", ".join(cell_name(cell) for cell in sorted(destinations))
        return (
            f"the {token} cannot reach {cell_name(move.destination)} {where} with exactly "
            f"{value} steps (it can reach {reachable})"
        )

    def _why_not(self, state: CircularReasoningState, index: int, destination: int) -> str:
        """Which rule keeps token ``index`` from ``destination``, if one relaxation
        of the rules would let it get there; ``""`` otherwise."""
        args = (state.tokens, state.gates, index, self.layout.entrance, self.exact_goal)
        where = {cell: other for other, cell in enumerate(state.tokens) if cell < GOAL}
        for gate in range(3):
            if destination in _relaxed_reach(*args, open_gate=gate):
                ends = [
                    gate * SEGMENTS + state.gates[gate],
                    (gate + 1) * SEGMENTS + state.gates[gate],
                ]
                blocked = [cell for cell in ends if cell in where and where[cell] != index]
                taken = blocked[0] if blocked else ends[1]
                return (
                    f"the {GATEWAY_WORDS[gate]} gateway is blocked, {cell_name(taken)} on its "
                    f"far side is taken by the {self.token_words(where.get(taken, index))} "
                    "(no jumping through a gateway)"
                )
        if destination in _relaxed_reach(*args, repeat=True):
            return "a token goes through each gateway at most once in a turn"
        if destination in _relaxed_reach(*args, turn=True):
            return (
                "the direction is kept for the whole turn; it is chosen after a gateway "
                "pass only when that pass is the turn's first step"
            )
        return ""

    def _occupied(self, state: CircularReasoningState) -> int:
        occupied = 0
        for cell in state.tokens:
            if cell < GOAL:
                occupied |= 1 << cell
        return occupied

    def apply(self, state: CircularReasoningState, move: Move | Pass) -> CircularReasoningState:
        tokens = state.tokens
        sides = len(tokens) // 3
        seat = (state.round - 1 + state.turn) % sides
        if type(move) is Move:
            index = seat * 3 + SHAPES.index(move.shape)
            tokens = tokens[:index] + (move.destination,) + tokens[index + 1 :]
            if tokens[seat * 3] == tokens[seat * 3 + 1] == tokens[seat * 3 + 2] == GOAL:
                return CircularReasoningState(
                    tokens, state.gates, state.round, state.turn + 1, state.ply + 1
                )
        turn = state.turn + 1
        if turn < sides:
            return CircularReasoningState(tokens, state.gates, state.round, turn, state.ply + 1)
        return CircularReasoningState(
            tokens, self.moved_gates(tokens, state.gates), state.round + 1, 0, state.ply + 1
        )

    @staticmethod
    def moved_gates(tokens: Sequence[int], gates: Sequence[int]) -> tuple[int, int, int]:
        """The gateways after a round: each moves clockwise by the number of tokens
        on its own track (Goal Area and reserve count for none)."""
        counts = [0, 0, 0]
        for cell in tokens:
            if cell < GOAL:
                counts[cell >> 4] += 1
        return (
            (gates[0] + counts[0]) & 15,
            (gates[1] + counts[1]) & 15,
            (gates[2] + counts[2]) & 15,
        )

    def winner(self, state: CircularReasoningState) -> int | None:
        """The seat with all three tokens in the Goal Area, if any."""
        tokens = state.tokens
        for seat in range(len(tokens) // 3):
            if tokens[seat * 3] == tokens[seat * 3 + 1] == tokens[seat * 3 + 2] == GOAL:
                return seat
        return None

    def outcome(self, state: CircularReasoningState) -> Outcome | None:
        winner = self.winner(state)
        if winner is None:
            return None
        return Outcome.win_for(winner, len(state.tokens) // 3, self._win_words(winner))

    def _win_words(self, seat: int) -> str:
        return f"{self.side_words(seat)} has all three tokens in the Goal Area"

    # -- words ---------------------------------------------------------------------------
    def side_words(self, seat: int) -> str:
        """``red (Player1)``."""
        return f"{self.colors[seat]} (Player{seat + 1})"

    def token_words(self, index: int) -> str:
        """``red triangle``."""
        return f"{self.colors[index // 3]} {SHAPE_WORDS[index % 3]}"

    # -- numbering -------------------------------------------------------------------------
    def move_number(self, state: CircularReasoningState) -> tuple[int, bool]:
        """The round, and whether the next ply opens it (its first side's turn)."""
        return state.round, state.turn == 0

    def ply(self, state: CircularReasoningState) -> int:
        return state.ply

    # -- setup positions -------------------------------------------------------------------
    def setup(
        self,
        tokens: Sequence[int],
        gates: Sequence[int],
        round_number: int,
        mover: int,
    ) -> CircularReasoningState:
        """A position set up from token cells (``seat * 3 + shape``), gateway cells
        (on their own tracks), the round (from 1) and the seat to move (from 0);
        ``SetupError`` with the reason if it cannot occur."""
        tokens = tuple(tokens)
        sides, extra = divmod(len(tokens), 3)
        if extra or not 2 <= sides <= 4:
            raise SetupError(f"Circular Reasoning is played by 2 to 4 sides, not {len(tokens) / 3}")
        if sides > len(self.colors):
            raise SetupError(f"{len(self.colors)} colours are given for {sides} sides")
        seen: dict[int, int] = {}
        for index, cell in enumerate(tokens):
            if not 0 <= cell <= RESERVE:
                raise ValueError(f"token cell {cell!r} is no cell")
            if cell < GOAL:
                if cell in seen:
                    raise SetupError(
                        f"the {self.token_words(seen[cell])} and the {self.token_words(index)} "
                        f"are both on {cell_name(cell)}: a segment holds one token"
                    )
                seen[cell] = index
        segments = []
        for track, cell in enumerate(gates):
            if cell == GOAL or cell >> 4 != track:
                raise SetupError(
                    f"the {GATEWAY_WORDS[track]} gateway lies on the {TRACK_WORDS[track]} "
                    f"track, not on {cell_name(cell)}"
                )
            segments.append(cell & 15)
        if len(segments) != 3:
            raise SetupError("a position has three gateways: large, medium and small")
        if round_number < 1:
            raise SetupError(f"rounds count from 1, not {round_number}")
        if not 0 <= mover < sides:
            raise SetupError(f"there is no Player{mover + 1} among {sides} sides")
        state = CircularReasoningState(
            tokens,
            (segments[0], segments[1], segments[2]),
            round_number,
            (mover - (round_number - 1)) % sides,
        )
        winner = self.winner(state)
        if winner is not None:
            raise SetupError(f"the game is already decided: {self._win_words(winner)}")
        return CircularReasoningState(
            state.tokens,
            state.gates,
            state.round,
            state.turn,
            (round_number - 1) * sides + state.turn,
        )

    # -- keys --------------------------------------------------------------------------------
    def key(self, state: CircularReasoningState) -> bytes:
        """Bytes: the sides, every token's cell, the gateways' segments, the round's
        place in the rotation of first players and the turn in the round. The round
        itself is left out: only its rotation changes the future."""
        sides = len(state.tokens) // 3
        return bytes((sides, *state.tokens, *state.gates, (state.round - 1) % sides, state.turn))

    def endgame_key(self, state: CircularReasoningState, fold_symmetry: bool = False) -> int:
        """:meth:`key` packed in an int (6 bits a token, 4 a gateway). With
        ``fold_symmetry``, two symmetries of the rules fold positions together:

        * once no token is left in a reserve, the Player Entrance no longer matters
          and nothing else is tied to a segment: turning every token and gateway by
          the same number of segments gives a position with the same future, so the
          position is turned until the large gateway lies on segment 1;
        * with two sides, exchanging them (their tokens, and which of them opens the
          rounds) gives the same future with the roles exchanged; the smaller code
          of the two is the key.

        Reflections are no symmetry: the gateways always move clockwise."""
        tokens, gates = state.tokens, state.gates
        sides = len(tokens) // 3
        rotation = (state.round - 1) % sides
        if fold_symmetry and RESERVE not in tokens:
            turn = gates[0]
            tokens = tuple(
                cell if cell >= GOAL else (cell & 48) | (cell - turn) & 15 for cell in tokens
            )
            gates = (0, (gates[1] - turn) & 15, (gates[2] - turn) & 15)
        key = _pack_position(tokens, gates, rotation, state.turn)
        if fold_symmetry and sides == 2:
            swapped = _pack_position(tokens[3:] + tokens[:3], gates, rotation ^ 1, state.turn)
            return min(key, swapped)
        return key

    def endgame_state(self, key: object, root: CircularReasoningState) -> CircularReasoningState:
        """The position :meth:`endgame_key` packed in ``key`` (as many sides as
        ``root``); its round is the first with the key's rotation of first players
        (only the rotation changes the future), its ply 0."""
        if not isinstance(key, int):
            raise TypeError(f"a Circular Reasoning endgame key is an int, not {key!r}")
        turn, rotation = key & 7, key >> 3 & 3
        gates = (key >> 13 & 15, key >> 9 & 15, key >> 5 & 15)
        code = key >> 17
        tokens = []
        for _ in range(len(root.tokens)):
            tokens.append(code & 63)
            code >>= 6
        return CircularReasoningState(tuple(reversed(tokens)), gates, rotation + 1, turn, 0)

    # -- display -------------------------------------------------------------------------------
    def diagram(self, state: CircularReasoningState) -> str:
        """The three tracks as rows of 16 segments (``[..]`` a gateway, ``*`` after
        the entrance, ``rT`` red's triangle), the Goal Area, the reserves, the
        gateways and the entrance by name, who moves."""
        return self._diagram(state, None)

    def diagram_marked(
        self,
        state: CircularReasoningState,
        last: CircularReasoningState,
        viewer: int | None = None,
    ) -> str:
        """The diagram with every token the last move moved in upper case (``RT``), on
        the board or in the Goal Area, and ``:`` on a segment one of them left, with
        a line saying so."""
        text = self._diagram(state, last)
        moved = any(a != b for a, b in zip(last.tokens, state.tokens, strict=True))
        legend = "\nupper case: a token the last move moved; ':' a segment it left"
        return text + legend if moved else text

    def _diagram(self, state: CircularReasoningState, last: CircularReasoningState | None) -> str:
        sides = len(state.tokens) // 3
        moved = (
            set()
            if last is None
            else {
                index
                for index, (a, b) in enumerate(zip(last.tokens, state.tokens, strict=True))
                if a != b
            }
        )
        left_cells = set() if last is None else {last.tokens[index] for index in moved}
        where = {cell: index for index, cell in enumerate(state.tokens) if cell < GOAL}
        lines = ["    " + "".join(f" {segment:>2} " for segment in range(1, SEGMENTS + 1)).rstrip()]
        for track in range(3):
            row = []
            for segment in range(SEGMENTS):
                cell = track * SEGMENTS + segment
                index = where.get(cell)
                if index is None:
                    content = " :" if cell in left_cells else " ."
                else:
                    content = self._token_code(index, index in moved)
                gate = state.gates[track] == segment
                left = "[" if gate else " "
                right = "]" if gate else "*" if cell == self.layout.entrance else " "
                row.append(f"{left}{content}{right}")
            lines.append((f"{TRACKS[track]}   " + "".join(row)).rstrip())
        goal = [
            self._token_code(i, i in moved) for i, cell in enumerate(state.tokens) if cell == GOAL
        ]
        lines.append("G   " + (" ".join(goal) if goal else "-"))
        reserves = []
        for seat in range(sides):
            shapes = "".join(
                SHAPES[shape] for shape in range(3) if state.tokens[seat * 3 + shape] == RESERVE
            )
            reserves.append(f"{self.colors[seat]} {shapes or '-'}")
        lines.append("reserve: " + ", ".join(reserves))
        lines.append(
            f"gateways: large O{state.gates[0] + 1}, medium M{state.gates[1] + 1}, "
            f"small I{state.gates[2] + 1}; entrance {cell_name(self.layout.entrance)} (*)"
        )
        winner = self.winner(state)
        if winner is not None:
            lines.append(f"{self.side_words(winner)} wins: {self._win_words(winner)}")
        else:
            mover = self.side_to_move(state)
            lines.append(f"round {state.round}: {self.side_words(mover)} to move")
        return "\n".join(lines)

    def _token_code(self, index: int, marked: bool = False) -> str:
        colour = self.color_letters[index // 3]
        return f"{colour.upper() if marked else colour}{SHAPES[index % 3]}"


def _parse_colors(text: str, tags: Mapping[str, str]) -> tuple[str, ...]:
    """The `Colors` tag: distinct colour names, one per side of the record."""
    names = tuple(text.split())
    for name in names:
        if name not in COLOR_LETTERS:
            raise TagError(
                f"Colors '{text}': '{name}' is no colour (red, blue, green, white)", "Colors"
            )
    if len(set(names)) != len(names):
        raise TagError(f"Colors '{text}': a colour is given twice", "Colors")
    if not 2 <= len(names) <= 4:
        raise TagError(f"Colors '{text}' names {len(names)} colours, not 2 to 4", "Colors")
    # A record's Player tags give its sides; without them (a configuration from an
    # archive's tags) the count is checked when the sides are known.
    players = sum(1 for name in tags if re.fullmatch(rf"Player{POSITIVE}", name))
    if players and len(names) != players:
        raise TagError(f"Colors '{text}' names {len(names)} colours for {players} sides", "Colors")
    return names


def _pack_position(tokens: Sequence[int], gates: Sequence[int], rotation: int, turn: int) -> int:
    """A position's parts in one int: the tokens' cells (6 bits each, seat order),
    the gateways (4 bits each), the rotation of first players (2 bits), the turn in
    the round (3 bits)."""
    code = 0
    for cell in tokens:
        code = code << 6 | cell
    return ((code << 12 | gates[0] << 8 | gates[1] << 4 | gates[2]) << 2 | rotation) << 3 | turn
