"""Gravity boards: Forza 4x4 and Connect Four as two configurations of one engine.

A move names an entry cell on the border (``t4``: column 4 from the top). The
entry cell must be empty; the piece slides away from that side and stops on the
last empty cell before an occupied one, or on the far border cell. The first side
to make an unbroken line of at least ``line_length`` own pieces (horizontal,
vertical or diagonal) wins; a side to move with no free entry cell draws.

Coordinates (fixed by ``docs/forza4x4.md``): columns 1..W from left to right, rows
1..H from top to bottom. Cell (column c, row r) is bit ``(r - 1) * W + (c - 1)`` of
a bitboard, so row 1 holds the lowest bits. Player1 is ``x`` (seat 0) and moves
first; Player2 is ``o`` (seat 1).

Everything that can be precomputed is: each entry's slide path, the lines of
``line_length`` through each cell, the free entries for each border occupancy, and
the bit permutations of the symmetries. ``apply`` then costs a few integer
operations and one small loop over the lines through the landing cell.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from partita.errors import NotationError, SetupError
from partita.game.rules import POSITIVE, Outcome, PlacementImages, Rules

__all__ = [
    "ConnectFourRules",
    "Entry",
    "Forza4x4Rules",
    "GravityRules",
    "GravityState",
    "columns_from_entries",
    "entries_from_columns",
]

#: The four sides a piece may enter from, in the order legal moves are listed.
SIDES = "tblr"
#: Seat labels: Player1 is x, Player2 is o.
PIECES = "xo"

_SIDE_WORDS = {"t": "top", "b": "bottom", "l": "left", "r": "right"}
_COUNT_WORDS = {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
#: Win reasons kept per rules object (:meth:`GravityRules._line_words`).
_LINE_REASONS_KEPT = 4096
_CANONICAL_ENTRY = re.compile(rf"([tblr])({POSITIVE})")


@dataclass(frozen=True, slots=True)
class Entry:
    """One move: the side a piece enters by (``t``, ``b``, ``l``, ``r``) and the
    column (``t``, ``b``) or row (``l``, ``r``) it enters, counted from 1."""

    side: str
    index: int

    def __post_init__(self) -> None:
        if self.side not in SIDES or len(self.side) != 1:
            raise ValueError(f"entry side must be one of t, b, l, r, not {self.side!r}")
        if type(self.index) is not int or self.index < 1:
            raise ValueError(f"entry index must be a whole number from 1, not {self.index!r}")

    def notation(self) -> str:
        """The canonical entry code: ``t4``."""
        return f"{self.side}{self.index}"

    def __str__(self) -> str:
        return self.notation()

    @classmethod
    def parse(cls, text: str) -> Entry:
        """The entry a canonical code names (``"t4"``); ``NotationError`` otherwise.

        Only the canonical spelling is read here; the notation layer
        (:mod:`partita.games.gravity.notation`) also accepts ``T4`` and ``t04``.
        """
        match = _CANONICAL_ENTRY.fullmatch(text)
        if match is None:
            raise NotationError(
                f"malformed move '{text}': an entry code is a side t, b, l or r "
                "and a number from 1, as in t4"
            )
        return cls(match.group(1), int(match.group(2)))


@dataclass(frozen=True, slots=True)
class GravityState:
    """A position: Player1's (``x``) and Player2's (``o``) pieces as bitboards, the
    ply counter and the winning line, if any.

    ``ply`` counts from the start of the record and gives the side to move (``x``
    when even): a setup position with ``o`` to move starts at ply 1. ``line`` is
    the union of the lines of ``line_length`` the last move made (every one through
    the piece it placed, so a line of five or two crossing lines are there whole),
    0 if none; it is what makes ``outcome`` cheap.
    """

    x: int
    o: int
    ply: int = 0
    line: int = 0


# A fast constructor for the trusted path: a frozen dataclass's __init__ sets each
# field through object.__setattr__; the slot descriptors do the same job quicker.
_new_object = object.__new__
_set_x = GravityState.__dict__["x"].__set__
_set_o = GravityState.__dict__["o"].__set__
_set_ply = GravityState.__dict__["ply"].__set__
_set_line = GravityState.__dict__["line"].__set__


def _make_state(x: int, o: int, ply: int, line: int) -> GravityState:
    state = _new_object(GravityState)
    _set_x(state, x)
    _set_o(state, o)
    _set_ply(state, ply)
    _set_line(state, line)
    return state


class _FreeEntries(dict[int, tuple[Entry, ...]]):
    """Free entries of one side keyed by that side's border occupancy (masked
    bitboard), filled on first use: at most 2**W (or 2**H) small tuples."""

    __slots__ = ("cells",)

    def __init__(self, cells: Sequence[tuple[int, Entry]]) -> None:
        super().__init__()
        self.cells = tuple(cells)

    def __missing__(self, occupied: int) -> tuple[Entry, ...]:
        free = tuple(entry for bit, entry in self.cells if not occupied & bit)
        self[occupied] = free
        return free


# Cell maps of the symmetries of a W x H board, on 0-based (column, row). Rotations
# are clockwise. Those that need a square board are marked.
_SYMMETRY_MAPS: tuple[tuple[str, bool, Callable[[int, int, int, int], tuple[int, int]]], ...] = (
    ("identity", False, lambda c, r, w, h: (c, r)),
    ("rotation by 90 degrees", True, lambda c, r, w, h: (h - 1 - r, c)),
    ("rotation by 180 degrees", False, lambda c, r, w, h: (w - 1 - c, h - 1 - r)),
    ("rotation by 270 degrees", True, lambda c, r, w, h: (r, w - 1 - c)),
    ("left-right mirror", False, lambda c, r, w, h: (w - 1 - c, r)),
    ("top-bottom mirror", False, lambda c, r, w, h: (c, h - 1 - r)),
    ("reflection in the main diagonal", True, lambda c, r, w, h: (r, c)),
    ("reflection in the anti-diagonal", True, lambda c, r, w, h: (h - 1 - r, w - 1 - c)),
)

# Slide direction (dc, dr) of each side, and back.
_SLIDE = {"t": (0, 1), "b": (0, -1), "l": (1, 0), "r": (-1, 0)}
_SIDE_OF_SLIDE = {direction: side for side, direction in _SLIDE.items()}


def _byte_table(images: Sequence[int], chunk: int) -> tuple[int, ...]:
    """For each byte value at byte ``chunk`` of a bitboard, the OR of the
    ``images`` of its set bits (bits past the board have none)."""
    table = [0] * 256
    for value in range(1, 256):
        low = value & -value
        bit = chunk * 8 + low.bit_length() - 1
        table[value] = table[value ^ low] | (images[bit] if bit < len(images) else 0)
    return tuple(table)


class GravityRules(Rules[GravityState, Entry]):
    """A gravity board: ``width`` x ``height`` cells, pieces entering from the
    ``entry_sides`` (a subset of ``"tblr"``), a line of ``line_length`` wins.

    The engine is stateless apart from its configuration and precomputed tables;
    :class:`Forza4x4Rules` and :class:`ConnectFourRules` are its two registered
    configurations. ``symmetry_count`` is the number of symmetries of the
    rectangle that map the entry sides onto themselves (8 for Forza 4x4, 2 for
    Connect Four).
    """

    name: ClassVar[str] = "gravity"
    title: ClassVar[str] = "Gravity board"
    notation_summary: ClassVar[str] = (
        "entry codes: t, b, l or r and a column or row number (t4 drops a piece "
        "into column 4 from the top)"
    )

    def __init__(
        self, width: int, height: int, entry_sides: str = SIDES, line_length: int = 4
    ) -> None:
        if not (2 <= width <= 16 and 2 <= height <= 16):
            raise ValueError(
                f"a gravity board is 2 to 16 cells wide and high, not {width}x{height}"
            )
        if not entry_sides or any(
            side not in SIDES or entry_sides.count(side) > 1 for side in entry_sides
        ):
            raise ValueError(
                f"entry sides must be a non-empty subset of 'tblr', not {entry_sides!r}"
            )
        if not 2 <= line_length <= max(width, height):
            raise ValueError(f"a line of {line_length} does not fit a {width}x{height} board")
        self.width = width
        self.height = height
        #: Entry sides in the fixed order t, b, l, r.
        self.entry_sides = "".join(side for side in SIDES if side in entry_sides)
        self.line_length = line_length
        self.cell_count = width * height
        self._full = (1 << self.cell_count) - 1
        #: The reason of a win, by the line and the winner (:meth:`_line_words`).
        self._line_reasons: dict[tuple[int, int], str] = {}
        self._build_entries()
        self._build_lines()
        self._build_symmetries()

    # -- geometry ---------------------------------------------------------------
    def bit(self, column: int, row: int) -> int:
        """The bit index of the cell at ``column``, ``row`` (both from 1)."""
        return (row - 1) * self.width + (column - 1)

    def cell(self, bit: int) -> tuple[int, int]:
        """``(column, row)`` (both from 1) of a bit index."""
        row, column = divmod(bit, self.width)
        return column + 1, row + 1

    def _path(self, side: str, index: int) -> list[tuple[int, int]]:
        """0-based cells an entry's piece passes, from the entry cell on."""
        w, h = self.width, self.height
        if side == "t":
            return [(index - 1, r) for r in range(h)]
        if side == "b":
            return [(index - 1, r) for r in reversed(range(h))]
        if side == "l":
            return [(c, index - 1) for c in range(w)]
        return [(c, index - 1) for c in reversed(range(w))]

    def _count(self, side: str) -> int:
        return self.width if side in "tb" else self.height

    def _build_entries(self) -> None:
        w = self.width
        #: side -> [None, slide of index 1, ...]; a slide is
        #: (entry bit, path mask, forward, step, far bit).
        self._slides: dict[str, list[tuple[int, int, bool, int, int] | None]] = {}
        #: Every entry of this board, in legal-move order.
        self.entries: tuple[Entry, ...] = tuple(
            Entry(side, index)
            for side in self.entry_sides
            for index in range(1, self._count(side) + 1)
        )
        self._entry_by_token = {entry.notation(): entry for entry in self.entries}
        self._entry_mask = 0
        self._free_tables: list[tuple[int, _FreeEntries]] = []
        for side in self.entry_sides:
            slides: list[tuple[int, int, bool, int, int] | None] = [None]
            cells = []
            side_mask = 0
            for index in range(1, self._count(side) + 1):
                path = [r * w + c for c, r in self._path(side, index)]
                mask = 0
                for bit in path:
                    mask |= 1 << bit
                forward = path[1] > path[0] if len(path) > 1 else True
                step = abs(path[1] - path[0]) if len(path) > 1 else 0
                entry_bit = 1 << path[0]
                slides.append((entry_bit, mask, forward, step, 1 << path[-1]))
                cells.append((entry_bit, Entry(side, index)))
                side_mask |= entry_bit
            self._slides[side] = slides
            self._entry_mask |= side_mask
            self._free_tables.append((side_mask, _FreeEntries(cells)))
        self._single_table = self._free_tables[0] if len(self._free_tables) == 1 else None

    def _build_lines(self) -> None:
        """Every window of ``line_length`` cells in a line, and those through each cell."""
        w, h, n = self.width, self.height, self.line_length
        self._windows: list[int] = []
        through: list[list[int]] = [[] for _ in range(self.cell_count)]
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            for r in range(h):
                for c in range(w):
                    end_c, end_r = c + dc * (n - 1), r + dr * (n - 1)
                    if not (0 <= end_c < w and 0 <= end_r < h):
                        continue
                    bits = [(r + dr * k) * w + (c + dc * k) for k in range(n)]
                    mask = sum(1 << bit for bit in bits)
                    self._windows.append(mask)
                    for bit in bits:
                        through[bit].append(mask)
        self._windows_through: tuple[tuple[int, ...], ...] = tuple(map(tuple, through))
        # The cells of the windows through each cell: fewer than ``line_length`` own
        # pieces there, and no window through it can be full (most moves).
        reach = [0] * self.cell_count
        for cell, windows in enumerate(through):
            for window in windows:
                reach[cell] |= window
        self._reach: tuple[int, ...] = tuple(reach)

    def _build_symmetries(self) -> None:
        w, h = self.width, self.height
        self._symmetry_names: list[str] = []
        self._cell_maps: list[list[int]] = []
        self._move_maps: list[dict[Entry, Entry]] = []
        for label, needs_square, cell_map in _SYMMETRY_MAPS:
            if needs_square and w != h:
                continue
            move_map = {}
            for entry in self.entries:
                (c0, r0), (c1, r1) = self._path(entry.side, entry.index)[:2]
                (d0, s0), (d1, s1) = cell_map(c0, r0, w, h), cell_map(c1, r1, w, h)
                side = _SIDE_OF_SLIDE[(d1 - d0, s1 - s0)]
                move_map[entry] = Entry(side, d0 + 1 if side in "tb" else s0 + 1)
            if set(move_map.values()) != set(self.entries):
                continue  # maps an entry side onto one this board does not have
            permutation = [0] * self.cell_count
            for r in range(h):
                for c in range(w):
                    d, s = cell_map(c, r, w, h)
                    permutation[r * w + c] = s * w + d
            self._symmetry_names.append(label)
            self._cell_maps.append(permutation)
            self._move_maps.append(move_map)
        #: How many symmetries this configuration has (0 is the identity).
        self.symmetry_count = len(self._cell_maps)  # type: ignore[misc]

    # Byte tables: the image of each byte value at each byte position, for each
    # symmetry; and the images under every symmetry at once, packed into one int with
    # a slot of 2 * W * H bits per symmetry (for canonical_key). Built on first use:
    # listing the games or replaying records without symmetry needs neither.
    def _single_images(self) -> list[list[int]]:
        return [
            [1 << permutation[bit] for bit in range(self.cell_count)]
            for permutation in self._cell_maps
        ]

    @cached_property
    def _bit_tables(self) -> list[tuple[tuple[int, ...], ...]]:
        chunks = (self.cell_count + 7) // 8
        return [
            tuple(_byte_table(images, chunk) for chunk in range(chunks))
            for images in self._single_images()
        ]

    @cached_property
    def _packed_tables(self) -> tuple[tuple[int, ...], ...]:
        slot = 2 * self.cell_count
        single_images = self._single_images()
        packed_images = [
            sum(images[bit] << (k * slot) for k, images in enumerate(single_images))
            for bit in range(self.cell_count)
        ]
        chunks = (self.cell_count + 7) // 8
        return tuple(_byte_table(packed_images, chunk) for chunk in range(chunks))

    # -- contract: states -----------------------------------------------------------
    def initial(self, sides: int = 2) -> GravityState:
        self._check_sides(sides)
        return GravityState(0, 0, 0, 0)

    def _check_sides(self, sides: int) -> None:
        if sides != 2:
            raise SetupError(f"{self.title} is played by 2 sides, not {sides}")

    def sides(self, state: GravityState) -> int:
        return 2

    def side_to_move(self, state: GravityState) -> int:
        return state.ply & 1

    def move_number(self, state: GravityState) -> tuple[int, bool]:
        """Rounds of two plies; x opens each (a setup with o to move has ply 1)."""
        ply = state.ply
        return (ply >> 1) + 1, not ply & 1

    def ply(self, state: GravityState) -> int:
        return state.ply

    def legal_moves(self, state: GravityState) -> Sequence[Entry]:
        """The free entries, sides in the order t, b, l, r, each by index; empty
        once a line is made."""
        if state.line:
            return ()
        occupied = state.x | state.o
        single = self._single_table
        if single is not None:
            return single[1][occupied & single[0]]
        moves: tuple[Entry, ...] = ()
        for mask, table in self._free_tables:
            moves += table[occupied & mask]
        return moves

    def illegal_reason(self, state: GravityState, move: object) -> str | None:
        if type(move) is Entry and not state.line:  # the common case, decided at once
            row = self._slides.get(move.side)
            if row is not None and move.index < len(row):
                slide = row[move.index]
                # A free entry cell: the board is not blocked, and the move is legal.
                if slide is not None and not (state.x | state.o) & slide[0]:
                    return None
        over = self._over_reason(state)
        if over is not None:
            return f"the game is over: {over}"
        if not isinstance(move, Entry):
            return f"{move!r} is not an entry code"
        reason = self.entry_problem(move)
        if reason is not None:
            return reason
        slide = self._slides[move.side][move.index]
        assert slide is not None
        if (state.x | state.o) & slide[0]:
            if self.entry_sides == "t":
                return f"column {move.index} is full"
            return f"entry cell {move.notation()} is occupied"
        return None

    def entry_problem(self, move: Entry) -> str | None:
        """Why ``move`` is no entry of this board at all (whatever the position),
        or ``None``: a side pieces do not enter by, a column or row off the board."""
        if move.side not in self.entry_sides:
            return f"pieces enter from the {self._sides_words()} only ({self._entry_ranges()})"
        if move.index > self._count(move.side):
            kind = "column" if move.side in "tb" else "row"
            return f"there is no {kind} {move.index} ({kind}s 1-{self._count(move.side)})"
        return None

    def _sides_words(self) -> str:
        words = [_SIDE_WORDS[side] for side in self.entry_sides]
        if len(words) == 1:
            return words[0]
        return ", ".join(words[:-1]) + " and " + words[-1]

    def _entry_ranges(self) -> str:
        return ", ".join(f"{side}1-{side}{self._count(side)}" for side in self.entry_sides)

    def apply(self, state: GravityState, move: Entry) -> GravityState:
        """Trusted path: the state after a legal ``move`` (not checked)."""
        entry_bit, path, forward, step, far = self._slides[move.side][move.index]  # type: ignore[misc]
        x = state.x
        o = state.o
        blocked = (x | o) & path
        if not blocked:
            landing = far
        elif forward:
            landing = (blocked & -blocked) >> step
        else:
            landing = 1 << (blocked.bit_length() - 1 + step)
        ply = state.ply
        if ply & 1:
            o |= landing
            own = o
        else:
            x |= landing
            own = x
        line = 0
        cell = landing.bit_length() - 1
        if (own & self._reach[cell]).bit_count() >= self.line_length:
            for window in self._windows_through[cell]:
                if own & window == window:
                    line |= window
        return _make_state(x, o, ply + 1, line)

    def landing(self, state: GravityState, move: Entry) -> tuple[int, int]:
        """``(column, row)`` where ``move`` would come to rest (``move`` legal)."""
        after = self.apply(state, move)
        placed = (after.x | after.o) & ~(state.x | state.o)
        return self.cell(placed.bit_length() - 1)

    def replay_entries(
        self, state: GravityState, moves: Iterable[Entry]
    ) -> tuple[list[GravityState], str | None]:
        """Checked fast replay for importers: the state after each move of the
        legal prefix of ``moves``, and the reason the next move was refused (``None``
        if all were legal). The refused move is ``moves[len(states)]``."""
        states: list[GravityState] = []
        append = states.append
        slides = self._slides
        reach = self._reach
        windows_through = self._windows_through
        length = self.line_length
        # The body of :meth:`apply`, inlined: the slide is looked up once, for the
        # check and the move (the conformance suite holds this to ``apply``).
        x, o, ply, line = state.x, state.o, state.ply, state.line
        for move in moves:
            slide = None
            if not line and type(move) is Entry:
                row = slides.get(move.side)
                if row is not None and move.index < len(row):
                    slide = row[move.index]
            if slide is None or (x | o) & slide[0]:
                return states, self.illegal_reason(state, move)
            _, path, forward, step, far = slide
            blocked = (x | o) & path
            if not blocked:
                landing = far
            elif forward:
                landing = (blocked & -blocked) >> step
            else:
                landing = 1 << (blocked.bit_length() - 1 + step)
            if ply & 1:
                o |= landing
                own = o
            else:
                x |= landing
                own = x
            line = 0
            cell = landing.bit_length() - 1
            if (own & reach[cell]).bit_count() >= length:
                for window in windows_through[cell]:
                    if own & window == window:
                        line |= window
            ply += 1
            state = _make_state(x, o, ply, line)
            append(state)
        return states, None

    def replay_entry_keys(
        self, state: GravityState, moves: Sequence[Entry]
    ) -> tuple[list[Hashable], list[tuple[int, bool]], GravityState] | None:
        """Checked key replay for importers of plain records: when every move of
        ``moves`` is legal, the :meth:`key` after each, the :meth:`move_number`
        before each and the state after the last (the only state built); ``None``
        at the first illegal move. :meth:`replay_entries`' loop, keys for states."""
        keys: list[Hashable] = []
        labels: list[tuple[int, bool]] = []
        add_key = keys.append
        add_label = labels.append
        slides = self._slides
        reach = self._reach
        windows_through = self._windows_through
        length = self.line_length
        n = self.cell_count
        side_bit = 1 << (2 * n)
        x, o, ply, line = state.x, state.o, state.ply, state.line
        for move in moves:
            slide = None
            if not line and type(move) is Entry:
                row = slides.get(move.side)
                if row is not None and move.index < len(row):
                    slide = row[move.index]
            if slide is None or (x | o) & slide[0]:
                return None
            _, path, forward, step, far = slide
            blocked = (x | o) & path
            if not blocked:
                landing = far
            elif forward:
                landing = (blocked & -blocked) >> step
            else:
                landing = 1 << (blocked.bit_length() - 1 + step)
            if ply & 1:
                add_label(((ply >> 1) + 1, False))
                o |= landing
                own = o
            else:
                add_label(((ply >> 1) + 1, True))
                x |= landing
                own = x
            line = 0
            cell = landing.bit_length() - 1
            if (own & reach[cell]).bit_count() >= length:
                for window in windows_through[cell]:
                    if own & window == window:
                        line |= window
            ply += 1
            add_key(x | o << n | side_bit if ply & 1 else x | o << n)
        if keys:
            state = _make_state(x, o, ply, line)
        return keys, labels, state

    def outcome(self, state: GravityState) -> Outcome | None:
        if state.line:
            winner = 1 - (state.ply & 1)
            return Outcome.win_for(winner, 2, self._line_words(state, winner))
        occupied = state.x | state.o
        if occupied & self._entry_mask == self._entry_mask:
            return Outcome.draw(2, self._blocked_words(occupied))
        return None

    def _over_reason(self, state: GravityState) -> str | None:
        if state.line:
            return self._line_words(state, 1 - (state.ply & 1))
        occupied = state.x | state.o
        if occupied & self._entry_mask == self._entry_mask:
            return self._blocked_words(occupied)
        return None

    def _blocked_words(self, occupied: int) -> str:
        if occupied == self._full:
            return "the board is full"
        return "the board has no free entry cell"

    def _line_words(self, state: GravityState, winner: int) -> str:
        """How ``winner`` won, the line described cell by cell: kept per line (the
        reason of every decided replay, and few lines occur)."""
        key = (state.line, winner)
        words = self._line_reasons.get(key)
        if words is None:
            if len(self._line_reasons) >= _LINE_REASONS_KEPT:
                self._line_reasons.clear()
            words = self._line_reasons[key] = self._describe_win(state.line, winner)
        return words

    def _describe_win(self, line: int, winner: int) -> str:
        cells = self.line_cells(line)
        count = _COUNT_WORDS.get(len(cells), str(len(cells)))
        return f"{PIECES[winner]} has {count} in a row ({self.describe_line(cells)})"

    def line_cells(self, line: int) -> list[tuple[int, int]]:
        """The cells of one line in ``line`` (a union of lines of ``line_length``,
        as in :attr:`GravityState.line`): horizontal first, then vertical, then
        diagonal; ``(column, row)`` pairs from the top (or left) end."""
        window = self.find_line(line)
        bits = [bit for bit in range(self.cell_count) if window >> bit & 1]
        (c0, r0), (c1, r1) = self.cell(bits[0]), self.cell(bits[1])
        dc, dr = c1 - c0, r1 - r0
        c, r = c0, r0
        while self._on_board(c - dc, r - dr) and line >> self.bit(c - dc, r - dr) & 1:
            c, r = c - dc, r - dr
        cells = []
        while self._on_board(c, r) and line >> self.bit(c, r) & 1:
            cells.append((c, r))
            c, r = c + dc, r + dr
        return cells

    def _on_board(self, column: int, row: int) -> bool:
        return 1 <= column <= self.width and 1 <= row <= self.height

    @staticmethod
    def describe_line(cells: Sequence[tuple[int, int]]) -> str:
        """A line of cells in words: ``row 5, columns 1-4``."""
        (c0, r0), (c1, r1) = cells[0], cells[-1]
        if r0 == r1:
            return f"row {r0}, columns {min(c0, c1)}-{max(c0, c1)}"
        if c0 == c1:
            return f"column {c0}, rows {min(r0, r1)}-{max(r0, r1)}"
        return f"diagonal from column {c0}, row {r0} to column {c1}, row {r1}"

    def lines_in(self, bits: int) -> int:
        """The union of every line of ``line_length`` cells all in ``bits``, or 0."""
        union = 0
        for window in self._windows:
            if bits & window == window:
                union |= window
        return union

    def find_line(self, bits: int) -> int:
        """A window of ``line_length`` cells all in ``bits``, or 0 (whole board)."""
        for window in self._windows:
            if bits & window == window:
                return window
        return 0

    # -- setup positions ------------------------------------------------------------
    def setup(self, x: int, o: int, side: int) -> GravityState:
        """A position set up with pieces ``x`` and ``o`` (bitboards) and ``side``
        (0 for x, 1 for o) to move; ``SetupError`` if it cannot occur.

        Checked: x moves first, so x is to move when the counts are equal and o
        when x has one more; every piece could have come to rest where it is (a
        piece or the board edge stops it in a direction pieces slide); the game is
        not already decided (no line, a free entry cell left).
        """
        if x & o or (x | o) & ~self._full:
            raise ValueError("the bitboards overlap or leave the board")
        if side not in (0, 1):
            raise ValueError(f"the side to move is 0 (x) or 1 (o), not {side!r}")
        xs, os = x.bit_count(), o.bit_count()
        if xs == os:
            if side != 0:
                raise SetupError(
                    f"x and o have {xs} pieces each, so x is to move, not o (x moves first)"
                )
        elif xs == os + 1:
            if side != 1:
                raise SetupError(
                    f"x has {xs} pieces and o has {os}, so o is to move, not x (x moves first)"
                )
        else:
            raise SetupError(
                f"x has {xs} pieces and o has {os}: x moves first, so x has as many "
                "pieces as o or one more"
            )
        occupied = x | o
        for bit in range(self.cell_count):
            if occupied >> bit & 1 and not self._could_rest(occupied, bit):
                column, row = self.cell(bit)
                piece = "x" if x >> bit & 1 else "o"
                raise SetupError(
                    f"the {piece} on column {column}, row {row} could never have come to "
                    f"rest there: {self._rest_rule()}"
                )
        for seat, bits in enumerate((x, o)):
            lines = self.lines_in(bits)
            if lines:
                state = GravityState(x, o, side, lines)
                raise SetupError(f"the game is already decided: {self._line_words(state, seat)}")
        if occupied & self._entry_mask == self._entry_mask:
            raise SetupError(f"the game is already decided: {self._blocked_words(occupied)}")
        return GravityState(x, o, side, 0)

    def _could_rest(self, occupied: int, bit: int) -> bool:
        column, row = self.cell(bit)
        for side in self.entry_sides:
            dc, dr = _SLIDE[side]
            c, r = column + dc, row + dr
            if not self._on_board(c, r) or occupied >> self.bit(c, r) & 1:
                return True
        return False

    def _rest_rule(self) -> str:
        if self.entry_sides == "t":
            return "it is neither on the bottom row nor on another piece"
        return "no piece or board edge next to it could have stopped its slide"

    # -- keys and symmetry ------------------------------------------------------------
    def key(self, state: GravityState) -> int:
        """``x | o << W*H | side << 2*W*H``: stable, and the same for equal
        positions whatever the ply."""
        n = self.cell_count
        return state.x | state.o << n | (state.ply & 1) << (2 * n)

    def symmetry_name(self, symmetry: int) -> str:
        """What symmetry number ``symmetry`` does (``"left-right mirror"``)."""
        return self._symmetry_names[symmetry]

    def _permute(self, bits: int, symmetry: int) -> int:
        tables = self._bit_tables[symmetry]
        image = 0
        for table in tables:
            if bits:
                image |= table[bits & 255]
                bits >>= 8
            else:
                break
        return image

    def _check_symmetry(self, symmetry: int) -> None:
        if not 0 <= symmetry < self.symmetry_count:
            raise ValueError(
                f"{self.name} has symmetries 0-{self.symmetry_count - 1}, not {symmetry}"
            )

    def transform(self, state: GravityState, symmetry: int) -> GravityState:
        self._check_symmetry(symmetry)
        if symmetry == 0:
            return state
        permute = self._permute
        return _make_state(
            permute(state.x, symmetry),
            permute(state.o, symmetry),
            state.ply,
            permute(state.line, symmetry),
        )

    def transform_move(self, move: Entry, symmetry: int) -> Entry:
        self._check_symmetry(symmetry)
        try:
            return self._move_maps[symmetry][move]
        except KeyError:
            raise ValueError(f"{move!r} is no entry of {self.name}") from None

    def _packed_images(self, state: GravityState) -> int:
        """The boards of every symmetric image of ``state``, packed side by side:
        image k's x and o bits in slot k (``2 * cell_count`` bits wide)."""
        x, o = state.x, state.o
        images_x = images_o = 0
        for table in self._packed_tables:
            if not (x or o):
                break
            images_x |= table[x & 255]
            images_o |= table[o & 255]
            x >>= 8
            o >>= 8
        return images_x | images_o << self.cell_count

    def symmetric_keys(self, state: GravityState) -> tuple[int, ...]:
        """``key(transform(state, k))`` for every symmetry k, in one pass over the
        packed tables (for graphs that fold symmetric positions)."""
        slot = 2 * self.cell_count
        mask = (1 << slot) - 1
        side = (state.ply & 1) << slot
        images = self._packed_images(state)
        keys = []
        for _ in range(self.symmetry_count):
            keys.append(images & mask | side)
            images >>= slot
        return tuple(keys)

    def placement_images(self) -> PlacementImages:
        """The images of every symmetry packed into one int (a slot of ``2 * W * H``
        bits per symmetry, each holding ``x | o << W*H`` of that image), built from
        :meth:`transform` on one-piece positions (see the contract)."""
        count = self.symmetry_count
        cells = self.cell_count
        slot = 2 * cells
        chunks = (cells + 7) // 8
        piece = [
            sum(
                self.transform(GravityState(1 << bit, 0, 0, 0), symmetry).x << (symmetry * slot)
                for symmetry in range(count)
            )
            for bit in range(cells)
        ]
        steps = tuple(piece) + tuple(images << cells for images in piece)
        tables = []
        for chunk in range(chunks):
            images = [0] * 256
            for value in range(1, 256):
                low = value & -value
                bit = chunk * 8 + low.bit_length() - 1
                images[value] = images[value ^ low] | (piece[bit] if bit < cells else 0)
            tables.append(tuple(images))

        def packed_images(state: GravityState) -> int:
            x, o = state.x, state.o
            px = po = 0
            for table in tables:
                if not (x or o):
                    break
                px |= table[x & 255]
                po |= table[o & 255]
                x >>= 8
                o >>= 8
            return px | po << cells

        shifts = tuple(symmetry * slot for symmetry in range(count))
        return PlacementImages(steps, packed_images, slot, (1 << slot) - 1, shifts, slot)

    def canonical_key(self, state: GravityState) -> int:
        """The smallest key over the symmetries (same value as the contract's
        default, computed in one pass over packed tables)."""
        slot = 2 * self.cell_count
        images = self._packed_images(state)
        mask = (1 << slot) - 1
        best = images & mask
        for _ in range(1, self.symmetry_count):
            images >>= slot
            candidate = images & mask
            if candidate < best:
                best = candidate
        return best | (state.ply & 1) << slot

    # -- display ----------------------------------------------------------------------
    def diagram(self, state: GravityState) -> str:
        """The board with its entry codes around it, ``.`` empty, then who moves
        (or how the game ended)."""
        return self._diagram(state, 0)

    def diagram_marked(
        self, state: GravityState, last: GravityState, viewer: int | None = None
    ) -> str:
        """The diagram with the piece the last move put in upper case (``X``, ``O``)
        and a line saying so."""
        placed = (state.x | state.o) & ~(last.x | last.o)
        text = self._diagram(state, placed)
        return text + "\nupper case: the last move's piece" if placed else text

    def _diagram(self, state: GravityState, marked: int) -> str:
        w, h, sides = self.width, self.height, self.entry_sides
        label_width = max(len(f"l{h}"), 2)

        def header(prefix: str) -> str:
            cells = "".join(f"{prefix}{c}".rjust(3) for c in range(1, w + 1))
            return " " * label_width + cells

        lines = [header("t" if "t" in sides else "")]
        for r in range(1, h + 1):
            left = (f"l{r}" if "l" in sides else str(r)).rjust(label_width)
            cells = []
            for c in range(1, w + 1):
                bit = self.bit(c, r)
                piece = "x" if state.x >> bit & 1 else "o" if state.o >> bit & 1 else "."
                cells.append(piece.upper() if marked >> bit & 1 else piece)
            row = left + "".join(cell.rjust(3) for cell in cells)
            if "r" in sides:
                row += f"  r{r}"
            lines.append(row)
        if "b" in sides:
            lines.append(header("b"))
        outcome = self.outcome(state)
        if outcome is None:
            lines.append(f"{PIECES[state.ply & 1]} to move (ply {state.ply})")
        elif outcome.winner is not None:
            lines.append(f"{PIECES[outcome.winner]} wins: {outcome.reason}")
        else:
            lines.append(f"draw: {outcome.reason}")
        return "\n".join(lines)


class Forza4x4Rules(GravityRules):
    """Forza 4x4 (Richard Rognlie, 1995): 8x8, pieces enter from all four sides."""

    name: ClassVar[str] = "forza4x4"
    title: ClassVar[str] = "Forza 4x4"
    symmetry_count: ClassVar[int] = 8
    notation_summary: ClassVar[str] = (
        "entry codes t1-t8, b1-b8, l1-l8, r1-r8: the border cell a piece enters by "
        "(t4: column 4 from the top); it slides to the far side"
    )

    def __init__(self) -> None:
        super().__init__(8, 8, SIDES, 4)


class ConnectFourRules(GravityRules):
    """Connect Four: 7 columns by 6 rows, pieces dropped from the top."""

    name: ClassVar[str] = "connect4"
    title: ClassVar[str] = "Connect Four"
    symmetry_count: ClassVar[int] = 2
    notation_summary: ClassVar[str] = (
        "entry codes t1-t7: the column a piece is dropped into (t4: column 4)"
    )

    def __init__(self) -> None:
        super().__init__(7, 6, "t", 4)


def entries_from_columns(columns: str, width: int = 7) -> tuple[Entry, ...]:
    """The top entries a column string names (``"4453"``: t4 t4 t5 t3).

    Syntax only (digits 1..``width``); whether the moves are legal is the rules'
    business. ``NotationError`` names the first bad character.
    """
    moves = []
    for position, char in enumerate(columns, start=1):
        if not ("1" <= char <= "9") or int(char) > width:
            raise NotationError(
                f"column string '{columns}': {char!r} (move {position}) is no column "
                f"(columns 1-{width})"
            )
        moves.append(Entry("t", int(char)))
    return tuple(moves)


def columns_from_entries(moves: Iterable[Entry]) -> str:
    """The column string of top entries (t4 t4 t5 t3: ``"4453"``); ``NotationError``
    for a move that is not a top entry of a column 1-9."""
    chars = []
    for position, move in enumerate(moves, start=1):
        if not isinstance(move, Entry) or move.side != "t" or move.index > 9:
            raise NotationError(
                f"move {position} ({move}) has no column string form: only t1-t9 do"
            )
        chars.append(str(move.index))
    return "".join(chars)
