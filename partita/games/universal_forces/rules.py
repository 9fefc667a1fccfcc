"""Universal Forces: 2-4 sides race forces of four kinds through a ring board home.

The reading of the rulebook's gaps is ``docs/universal-forces.md`` (after the
project spec). In short: nine rings of cells and a centre of four quadrants, from
the rim inward ``O1``-``O3`` (32 sections each), ``M1``-``M3`` (16), ``I1``-``I3``
(8, a board parameter) and ``C1``-``C4``; two cells adjoin when their closed areas
touch (same ring: neighbouring sections; neighbouring rings: angular spans that
meet, an end point included; the four quadrants all touch). A turn is one action:
an entry on an empty rim section of the force's colour, a step onto an adjoining
cell (empty, an own force: a stack, opponents: a take, pin, double take,
take-and-pin, sacrifice, conversion or third-side take), or a force on its own
centre quadrant going home. A side with no action passes.

Forces are small ints, ``side * 4 + kind`` with kinds ``G`` mountain, ``Y`` wind,
``B`` water, ``R`` fire (0-3). A cell holds a tuple of forces, bottom first: empty,
one force, a stack (two of one side) or a pin (the top, of another side, pins the
bottom; pins are always between equal kinds). Moves name cells by their notation
(``O1:9``), so a move is a plain value whatever the board's parameters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import compress
from typing import ClassVar

from partita.errors import SetupError, TagError
from partita.game.rules import DRAW, LOSS, Outcome, Rules, TagSpec
from partita.games.universal_forces.geometry import Geometry, board_geometry

__all__ = [
    "FORCES",
    "FORCE_NAMES",
    "HOME",
    "PASS",
    "Entry",
    "Geometry",
    "Pass",
    "Step",
    "UniversalForcesRules",
    "UniversalForcesState",
    "beats",
]

#: Force letters in kind order: mountain (green), wind (yellow), water (blue), fire (red).
FORCES = "GYBR"
FORCE_NAMES = ("mountain", "wind", "water", "fire")
COLOUR_NAMES = ("green", "yellow", "blue", "red")
#: The home location's name in moves (``C1-H``).
HOME = "H"
#: Forces of each kind per side.
PER_KIND = 3

# _BEATS[a] is the set of kinds a beats: G beats Y and B; Y beats R and B; B beats R;
# R beats G.
_BEATS: tuple[tuple[bool, ...], ...] = (
    (False, True, True, False),
    (False, False, True, True),
    (False, False, False, True),
    (True, False, False, False),
)


def beats(mover: int, other: int) -> bool:
    """Whether kind ``mover`` is stronger than kind ``other`` (kinds 0-3)."""
    return _BEATS[mover][other]


def _seat(side: int) -> str:
    return f"Player{side + 1}"


def _force_words(piece: int) -> str:
    return f"{_seat(piece >> 2)}'s {FORCE_NAMES[piece & 3]}"


# -- moves ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """Put a force of kind ``force`` (``G``, ``Y``, ``B``, ``R``) from reserve on the
    rim section ``cell`` (``O1:9``)."""

    force: str
    cell: str

    def notation(self) -> str:
        return f"{self.force}@{self.cell}"


@dataclass(frozen=True, slots=True)
class Step:
    """Move the top force of ``origin`` to the adjoining ``target`` (or ``H``, home).

    What happens there (a plain move, stack, take, pin...) follows from the
    position; the notation's operator only names it.
    """

    origin: str
    target: str


@dataclass(frozen=True, slots=True)
class Pass:
    """The forced pass of a side with no legal action (``--``)."""

    def notation(self) -> str:
        return "--"


PASS = Pass()

#: A move of Universal Forces: an entry, a step (home included) or the forced pass.
Move = Entry | Step | Pass
#: Per side, a count per kind (G, Y, B, R): reserves, homes, eliminated forces.
Counts = tuple[tuple[int, ...], ...]


# -- states ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UniversalForcesState:
    """A position.

    ``cells``: one tuple of forces per cell of the geometry, bottom first.
    ``reserve``, ``home``, ``eliminated``: per side, a count per kind (G, Y, B, R).
    ``to_move``: the seat to move; ``ply``: plies (passes included) from the start of
    the record, ``(round - 1) * sides + to_move`` for a set-up position.
    ``stuck``: the side to move has no action and must pass. ``outcome``: how the
    game ended, ``None`` while it goes on (both are worked out by ``apply``).
    """

    cells: tuple[tuple[int, ...], ...]
    reserve: tuple[tuple[int, ...], ...]
    home: tuple[tuple[int, ...], ...]
    eliminated: tuple[tuple[int, ...], ...]
    to_move: int
    ply: int
    stuck: bool = False
    outcome: Outcome | None = None

    @property
    def sides(self) -> int:
        return len(self.reserve)

    @property
    def round(self) -> int:
        return self.ply // len(self.reserve) + 1


#: What a step does, by name (for commentary and tests).
PLAIN, STACK, TAKE, PIN = "move", "stack", "take", "pin"
DOUBLE_TAKE, TAKE_AND_PIN, SACRIFICE = "double take", "take and pin", "sacrifice"
CONVERSION, THIRD_SIDE_TAKE, HOME_MOVE = "conversion", "third-side take", "home"


def _bump(counts: Counts, side: int, kind: int, by: int) -> Counts:
    row = list(counts[side])
    row[kind] += by
    return counts[:side] + (tuple(row),) + counts[side + 1 :]


class UniversalForcesRules(Rules[UniversalForcesState, Move]):
    """The Universal Forces rules engine, optionally with a round limit."""

    name: ClassVar[str] = "universal-forces"
    title: ClassVar[str] = "Universal Forces"
    min_sides: ClassVar[int] = 2
    max_sides: ClassVar[int] = 4
    tags: ClassVar[tuple[TagSpec, ...]] = (
        TagSpec(
            "RoundLimit",
            "the rulebook's fixed period of play: after this many full rounds the side "
            "with the most distinct forces at home wins (a positive whole number)",
        ),
        TagSpec(
            "Level",
            "the level of play; the masters' level rules are not in the rulebook, so "
            "masters records are refused",
            ("basic", "masters"),
            "basic",
        ),
    )
    notation_summary: ClassVar[str] = (
        "entry G@O1:9, step O1:9-O2:10, stack O2:10+O2:11, onto opponents M1:3xM1:4, "
        "home C1-H, pass --"
    )

    def __init__(self, round_limit: int | None = None, inner_sections: int = 8) -> None:
        if round_limit is not None and round_limit < 1:
            raise ValueError(f"a round limit is a positive number of rounds, not {round_limit}")
        self.round_limit = round_limit
        self.geometry = board_geometry(inner_sections)
        geometry = self.geometry
        self._index = geometry.index
        self._names = geometry.names
        self._neighbours = geometry.neighbours
        self._inner = geometry.inner
        self._colour = geometry.entry_colour
        self._quadrant = geometry.quadrant_kind
        self._entry_cells = geometry.entry_cells
        self._cell_range = range(geometry.size)
        self._cell_bits = geometry.size.bit_length()
        # Move values made once: entries per kind and cell, steps per neighbour.
        self._entry_moves = tuple(
            tuple(Entry(FORCES[kind], geometry.names[cell]) for cell in cells)
            for kind, cells in enumerate(geometry.entry_cells)
        )
        self._step_moves = tuple(
            tuple(Step(geometry.names[a], geometry.names[b]) for b in geometry.neighbours[a])
            for a in range(geometry.size)
        )
        self._home_moves = {
            cell: Step(geometry.names[cell], HOME)
            for cell in range(geometry.size)
            if geometry.quadrant_kind[cell] >= 0
        }

    # -- configuration ----------------------------------------------------------------
    def configure(self, tags: Mapping[str, str]) -> UniversalForcesRules:
        level = tags.get("Level", "basic")
        if level == "masters":
            raise TagError(
                "level 'masters': the masters' level rules (Edition Two) are not in the "
                "rulebook, so partita cannot replay a masters record",
                tag="Level",
            )
        if level != "basic":
            raise TagError(
                f"level '{level}' is not a level of Universal Forces (basic, masters)", tag="Level"
            )
        text = tags.get("RoundLimit")
        if text is None:
            limit = None
        else:
            if not (text.isascii() and text.isdigit()) or int(text) < 1 or text[0] == "0":
                raise TagError(
                    f"RoundLimit '{text}' is not a positive whole number of rounds",
                    tag="RoundLimit",
                )
            limit = int(text)
        if limit == self.round_limit:
            return self
        return _configured(limit, self.geometry.inner_sections)

    # -- states -----------------------------------------------------------------------
    def initial(self, sides: int = 2) -> UniversalForcesState:
        if not self.min_sides <= sides <= self.max_sides:
            raise SetupError(f"Universal Forces is played by 2 to 4 sides, not {sides}")
        full = tuple((PER_KIND,) * 4 for _ in range(sides))
        none = tuple((0,) * 4 for _ in range(sides))
        return UniversalForcesState(((),) * self.geometry.size, full, none, none, 0, 0, False, None)

    def sides(self, state: UniversalForcesState) -> int:
        return len(state.reserve)

    def side_to_move(self, state: UniversalForcesState) -> int:
        return state.to_move

    def ply(self, state: UniversalForcesState) -> int:
        return state.ply

    # -- what a step does ---------------------------------------------------------------
    def effect(
        self, cells: Sequence[tuple[int, ...]], piece: int, target: int
    ) -> tuple[str, str, tuple[int, ...], tuple[int, ...]] | str:
        """What moving force ``piece`` onto cell ``target`` does: ``(what, operator,
        the target's forces after it, the forces eliminated)``, or why it is illegal.

        Adjacency and the mover's freedom to move are checked by the caller.
        """
        kind = piece & 3
        side = piece >> 2
        mover = FORCE_NAMES[kind]
        colour = self._colour[target]
        name = self._names[target]
        if colour >= 0 and colour != kind:
            return f"a {mover} cannot enter {name}, a {COLOUR_NAMES[colour]} entry section"
        contents = cells[target]
        if not contents:
            return PLAIN, "-", (piece,), ()
        if len(contents) == 1:
            other = contents[0]
            if other >> 2 == side:
                if self._inner[target]:
                    return f"no stacks in the inner sector ({name})"
                if colour >= 0:
                    return f"no stacks on an entry section ({name})"
                return STACK, "+", (other, piece), ()
            if colour >= 0:
                return f"a force on an entry section ({name}) cannot be taken or pinned"
            other_kind = other & 3
            if beats(kind, other_kind):
                return TAKE, "x", (piece,), (other,)
            if other_kind == kind:
                if self._inner[target]:
                    return (
                        f"no pins in the inner sector: the {mover} cannot pin the {mover} on {name}"
                    )
                return PIN, "x", (other, piece), ()
            return f"{mover} cannot take {FORCE_NAMES[other_kind]}"
        bottom, top = contents
        top_side, bottom_side = top >> 2, bottom >> 2
        top_kind, bottom_kind = top & 3, bottom & 3
        top_name = FORCE_NAMES[top_kind]
        if top_side == bottom_side:
            if top_side == side:
                return f"{name} already holds a stack of two of your forces (two at most)"
            if not beats(kind, top_kind):
                if top_kind == kind:
                    return f"the {mover} cannot pin the {top_name} on top of a stack"
                return f"{mover} cannot take {top_name}"
            if beats(kind, bottom_kind):
                return DOUBLE_TAKE, "x", (piece,), (top, bottom)
            if bottom_kind == kind:
                return TAKE_AND_PIN, "x", (bottom, piece), (top,)
            return SACRIFICE, "x", (bottom,), (top, piece)
        if top_side == side:
            return (
                f"your own {top_name} pins the {FORCE_NAMES[bottom_kind]} on {name}: "
                "move the pinner off first"
            )
        if not beats(kind, top_kind):
            if bottom_side == side:
                return f"{mover} cannot take the {top_name} pinning your {top_name} on {name}"
            return f"{mover} cannot take the pinning {top_name} on {name}"
        if bottom_side == side:
            return CONVERSION, "x", (bottom, piece), (top,)
        return THIRD_SIDE_TAKE, "x", (piece,), (top, bottom)

    def describe(self, state: UniversalForcesState, move: object) -> str:
        """What a legal move does, in one word or two: ``entry``, ``move``, ``stack``,
        ``take``, ``pin``, ``double take``, ``take and pin``, ``sacrifice``,
        ``conversion``, ``third-side take``, ``home`` or ``pass``."""
        if isinstance(move, Pass):
            return "pass"
        if isinstance(move, Entry):
            return "entry"
        assert isinstance(move, Step)
        if move.target == HOME:
            return HOME_MOVE
        origin = self._index[move.origin]
        result = self.effect(state.cells, state.cells[origin][-1], self._index[move.target])
        assert not isinstance(result, str), result
        return result[0]

    def operator(self, state: UniversalForcesState, move: Step) -> str:
        """The exact operator of a legal step: ``-``, ``+`` (stack) or ``x``."""
        if move.target == HOME:
            return "-"
        origin = self._index[move.origin]
        result = self.effect(state.cells, state.cells[origin][-1], self._index[move.target])
        assert not isinstance(result, str), result
        return result[1]

    # -- legal actions ----------------------------------------------------------------
    def legal_moves(self, state: UniversalForcesState) -> list[Move]:
        if state.outcome is not None:
            return []
        if state.stuck:
            return [PASS]
        return self._actions(state.cells, state.reserve[state.to_move], state.to_move)

    def _actions(
        self, cells: Sequence[tuple[int, ...]], reserve: Sequence[int], side: int
    ) -> list[Move]:
        moves: list[Move] = []
        for kind in range(4):
            if reserve[kind]:
                entries = self._entry_moves[kind]
                for position, cell in enumerate(self._entry_cells[kind]):
                    if not cells[cell]:
                        moves.append(entries[position])
        effect = self.effect
        quadrant = self._quadrant
        for origin in compress(self._cell_range, cells):  # the occupied cells
            contents = cells[origin]
            if contents[-1] >> 2 != side:
                continue
            piece = contents[-1]
            steps = self._step_moves[origin]
            for position, target in enumerate(self._neighbours[origin]):
                if not isinstance(effect(cells, piece, target), str):
                    moves.append(steps[position])
            if quadrant[origin] == piece & 3:
                moves.append(self._home_moves[origin])
        return moves

    def _can_act(self, cells: Sequence[tuple[int, ...]], reserve: Sequence[int], side: int) -> bool:
        """Whether ``side`` has any action (the early-exit form of ``_actions``)."""
        for kind in range(4):
            if reserve[kind]:
                for cell in self._entry_cells[kind]:
                    if not cells[cell]:
                        return True
        effect = self.effect
        quadrant = self._quadrant
        neighbours = self._neighbours
        for origin in compress(self._cell_range, cells):  # the occupied cells
            contents = cells[origin]
            if contents[-1] >> 2 != side:
                continue
            piece = contents[-1]
            if quadrant[origin] == piece & 3:
                return True
            for target in neighbours[origin]:
                if not isinstance(effect(cells, piece, target), str):
                    return True
        return False

    def forced_pass(self, state: UniversalForcesState) -> Pass | None:
        return PASS if state.stuck and state.outcome is None else None

    def is_pass(self, move: object) -> bool:
        return isinstance(move, Pass)

    def illegal_reason(self, state: UniversalForcesState, move: object) -> str | None:
        if state.outcome is not None:
            return f"the game is over: {state.outcome.reason}"
        side = state.to_move
        if isinstance(move, Pass):
            if state.stuck:
                return None
            return "a pass is allowed only when the side to move has no legal action"
        if isinstance(move, Entry):
            return self._entry_problem(state, move, side)
        if isinstance(move, Step):
            return self._step_problem(state, move, side)
        return f"{move!r} is no move of Universal Forces"

    def _cell(self, name: object) -> int | None:
        return self._index.get(name) if isinstance(name, str) else None

    def _entry_problem(self, state: UniversalForcesState, move: Entry, side: int) -> str | None:
        if move.force not in FORCES or len(move.force) != 1:
            return f"'{move.force}' is no force (G, Y, B or R)"
        kind = FORCES.index(move.force)
        cell = self._cell(move.cell)
        if cell is None:
            return f"there is no cell {move.cell}"
        colour = self._colour[cell]
        mover = FORCE_NAMES[kind]
        if colour < 0:
            return f"{move.cell} is no entry section: forces enter on the coloured sections of O1"
        if colour != kind:
            return (
                f"{move.cell} is a {COLOUR_NAMES[colour]} entry section; a {mover} enters "
                f"on a {COLOUR_NAMES[kind]} one"
            )
        if not state.reserve[side][kind]:
            return f"{_seat(side)} has no {mover} left in reserve"
        if state.cells[cell]:
            return f"entry section {move.cell} is occupied"
        return None

    def _step_problem(self, state: UniversalForcesState, move: Step, side: int) -> str | None:
        origin = self._cell(move.origin)
        if origin is None:
            return f"there is no cell {move.origin}"
        contents = state.cells[origin]
        if not contents:
            return f"there is no force on {move.origin}"
        piece = contents[-1]
        if piece >> 2 != side:
            if contents[0] >> 2 == side:
                return f"your {FORCE_NAMES[contents[0] & 3]} on {move.origin} is pinned by {_force_words(piece)}"
            return f"the {FORCE_NAMES[piece & 3]} on {move.origin} is {_seat(piece >> 2)}'s"
        kind = piece & 3
        if move.target == HOME:
            quadrant = self._quadrant[origin]
            if quadrant < 0:
                return (
                    f"only a force on the centre quadrant of its colour goes home; "
                    f"{move.origin} is no centre quadrant"
                )
            if quadrant != kind:
                own = self._names[self._home_cell(kind)]
                return f"a {FORCE_NAMES[kind]} goes home from {own}, not from {move.origin}"
            return None
        target = self._cell(move.target)
        if target is None:
            return f"there is no cell {move.target}"
        if target not in self._neighbours[origin]:
            return f"{move.target} does not adjoin {move.origin}"
        result = self.effect(state.cells, piece, target)
        return result if isinstance(result, str) else None

    def _home_cell(self, kind: int) -> int:
        return self._quadrant.index(kind)

    # -- playing ----------------------------------------------------------------------
    def apply(self, state: UniversalForcesState, move: object) -> UniversalForcesState:
        side = state.to_move
        cells = state.cells
        reserve, home, eliminated = state.reserve, state.home, state.eliminated
        if type(move) is Pass:
            return self._after(cells, reserve, home, eliminated, side, state.ply, acted=False)
        index = self._index
        if type(move) is Entry:
            kind = FORCES.index(move.force)
            cell = index[move.cell]
            cells = cells[:cell] + ((side * 4 + kind,),) + cells[cell + 1 :]
            reserve = _bump(reserve, side, kind, -1)
            return self._after(cells, reserve, home, eliminated, side, state.ply, acted=True)
        origin = index[move.origin]  # type: ignore[attr-defined]
        contents = cells[origin]
        piece = contents[-1]
        board = list(cells)
        board[origin] = contents[:-1]
        if move.target == HOME:  # type: ignore[attr-defined]
            home = _bump(home, side, piece & 3, 1)
        else:
            target = index[move.target]  # type: ignore[attr-defined]
            result = self.effect(cells, piece, target)
            assert not isinstance(result, str), result  # trusted: the move is legal
            _, _, landing, gone = result
            board[target] = landing
            for force in gone:
                eliminated = _bump(eliminated, force >> 2, force & 3, 1)
        return self._after(tuple(board), reserve, home, eliminated, side, state.ply, acted=True)

    def _after(
        self,
        cells: tuple[tuple[int, ...], ...],
        reserve: Counts,
        home: Counts,
        eliminated: Counts,
        mover: int,
        ply: int,
        acted: bool,
    ) -> UniversalForcesState:
        """The state after ``mover``'s ply: next side, end of the game, forced pass."""
        sides = len(reserve)
        ply += 1
        following = (mover + 1) % sides
        outcome = self._ending(cells, reserve, home, mover if acted else None, ply)
        stuck = False
        if outcome is None and not self._can_act(cells, reserve[following], following):
            stuck = True
            if not any(self._can_act(cells, reserve[s], s) for s in range(sides) if s != following):
                outcome = self._by_homes(home, "no side can move")
        return UniversalForcesState(
            cells, reserve, home, eliminated, following, ply, stuck, outcome
        )

    def _ending(
        self,
        cells: Sequence[tuple[int, ...]],
        reserve: Sequence[Sequence[int]],
        home: Sequence[Sequence[int]],
        acting: int | None,
        ply: int,
    ) -> Outcome | None:
        """The end of the game after a ply, bar the no-action end (``_after``)."""
        sides = len(reserve)
        if acting is not None:
            if all(home[acting]):
                return Outcome.win_for(
                    acting,
                    sides,
                    f"{_seat(acting)} has a mountain, a wind, a water and a fire at home",
                )
            if self._pins_everyone(cells, reserve, acting):
                return Outcome.win_for(
                    acting,
                    sides,
                    f"{_seat(acting)} pins every force the other sides have on the board "
                    "and none of them can move",
                )
        if self.round_limit is not None and ply >= self.round_limit * sides:
            return self._by_homes(home, f"round limit reached ({self.round_limit} rounds)")
        return None

    def _pins_everyone(
        self, cells: Sequence[tuple[int, ...]], reserve: Sequence[Sequence[int]], acting: int
    ) -> bool:
        """The pin win: every other side still in play has forces on the board, all
        pinned by ``acting``'s forces, and no other side can act."""
        sides = len(reserve)
        on_board = [0] * sides
        for contents in filter(None, cells):  # the occupied cells
            for depth, piece in enumerate(contents):
                owner = piece >> 2
                if owner == acting:
                    continue
                pinned = depth == 0 and len(contents) == 2 and contents[1] >> 2 == acting
                if not pinned:
                    return False
                on_board[owner] += 1
        in_play = [s for s in range(sides) if s != acting and (on_board[s] or any(reserve[s]))]
        if not in_play or any(not on_board[s] for s in in_play):
            return False
        return not any(self._can_act(cells, reserve[s], s) for s in range(sides) if s != acting)

    def _by_homes(self, home: Sequence[Sequence[int]], why: str) -> Outcome:
        """Most distinct kinds at home wins; sides tied for most share a draw."""
        counts = [sum(1 for count in row if count) for row in home]
        best = max(counts)
        leaders = [s for s, count in enumerate(counts) if count == best]
        detail = ", ".join(f"{_seat(s)} {count}" for s, count in enumerate(counts))
        reason = f"{why}; distinct forces at home: {detail}"
        if len(leaders) == 1:
            return Outcome.win_for(leaders[0], len(counts), reason)
        scores = tuple(DRAW if s in leaders else LOSS for s in range(len(counts)))
        return Outcome(scores, reason)

    def outcome(self, state: UniversalForcesState) -> Outcome | None:
        return state.outcome

    # -- set-up positions ----------------------------------------------------------------
    def setup(
        self,
        cells: Sequence[tuple[int, ...]],
        reserve: Sequence[Sequence[int]],
        home: Sequence[Sequence[int]],
        eliminated: Sequence[Sequence[int]],
        to_move: int,
        round_number: int,
    ) -> UniversalForcesState:
        """A position from its parts; ``SetupError`` (with the reason) if it cannot
        occur: counts that do not add up to three forces of each kind per side, more
        than two forces on a cell, a stack or pin where none may be, a force on an
        entry section of another colour, a pin of unequal forces, a round past the
        limit, or a game already decided."""
        sides = len(reserve)
        if not self.min_sides <= sides <= self.max_sides:
            raise SetupError(f"Universal Forces is played by 2 to 4 sides, not {sides}")
        if len(home) != sides or len(eliminated) != sides:
            raise SetupError("every side needs its reserve, home and eliminated forces")
        if len(cells) != self.geometry.size:
            raise SetupError(f"the board has {self.geometry.size} cells, not {len(cells)}")
        if not 0 <= to_move < sides:
            raise SetupError(f"there is no side {to_move + 1} to move in a {sides}-sided game")
        if round_number < 1:
            raise SetupError(f"rounds count from 1, not {round_number}")
        on_board = [[0] * 4 for _ in range(sides)]
        for cell, contents in enumerate(cells):
            name = self._names[cell]
            if len(contents) > 2:
                raise SetupError(f"{name} holds {len(contents)} forces; a cell holds two at most")
            for piece in contents:
                if not 0 <= piece >> 2 < sides:
                    raise SetupError(f"{name} holds a force of side {(piece >> 2) + 1}")
                on_board[piece >> 2][piece & 3] += 1
            colour = self._colour[cell]
            if colour >= 0 and any(piece & 3 != colour for piece in contents):
                raise SetupError(
                    f"{name} is a {COLOUR_NAMES[colour]} entry section: no other kind stands on it"
                )
            if len(contents) == 2:
                bottom, top = contents
                what = "stack" if bottom >> 2 == top >> 2 else "pin"
                if self._inner[cell]:
                    raise SetupError(
                        f"{name} holds a {what}, but there is none in the inner sector"
                    )
                if colour >= 0:
                    raise SetupError(
                        f"{name} holds a {what}, but there is none on an entry section"
                    )
                if what == "pin" and bottom & 3 != top & 3:
                    raise SetupError(
                        f"{name}: a {FORCE_NAMES[top & 3]} cannot pin a "
                        f"{FORCE_NAMES[bottom & 3]} (a pin is between forces of one kind)"
                    )
        for side in range(sides):
            for kind in range(4):
                total = (
                    on_board[side][kind]
                    + reserve[side][kind]
                    + home[side][kind]
                    + eliminated[side][kind]
                )
                if min(reserve[side][kind], home[side][kind], eliminated[side][kind]) < 0:
                    raise SetupError("counts of forces cannot be negative")
                if total != PER_KIND:
                    raise SetupError(
                        f"{_seat(side)} has {total} {FORCE_NAMES[kind]} forces on the board, "
                        f"in reserve, at home and eliminated; a side has {PER_KIND}"
                    )
        ply = (round_number - 1) * sides + to_move
        if self.round_limit is not None and ply >= self.round_limit * sides:
            raise SetupError(
                f"round {round_number} is past the round limit of {self.round_limit} rounds"
            )

        def frozen(rows: Sequence[Sequence[int]]) -> Counts:
            return tuple(tuple(row) for row in rows)

        board = tuple(tuple(contents) for contents in cells)
        last = (to_move - 1) % sides
        outcome = None
        if any(all(row) for row in home):
            winner = next(s for s, row in enumerate(home) if all(row))
            outcome = f"{_seat(winner)} has a mountain, a wind, a water and a fire at home"
        elif self._pins_everyone(board, reserve, last):
            outcome = f"{_seat(last)} pins every force the other sides have on the board"
        elif not any(self._can_act(board, reserve[s], s) for s in range(sides)):
            outcome = "no side can move"
        if outcome is not None:
            raise SetupError(f"the game is already decided: {outcome}")
        stuck = not self._can_act(board, reserve[to_move], to_move)
        return UniversalForcesState(
            board, frozen(reserve), frozen(home), frozen(eliminated), to_move, ply, stuck, None
        )

    # -- keys ---------------------------------------------------------------------------
    def key(self, state: UniversalForcesState) -> tuple[bytes, int, int]:
        """Every cell's forces (two bytes: bottom and top, force + 1 or 0), then each
        side's reserve and home counts; the side to move; the round when a round
        limit makes it matter (0 otherwise)."""
        data = bytearray()
        for contents in state.cells:
            if not contents:
                data += b"\0\0"
            elif len(contents) == 1:
                data.append(contents[0] + 1)
                data.append(0)
            else:
                data.append(contents[0] + 1)
                data.append(contents[1] + 1)
        for row in state.reserve:
            data.extend(row)
        for row in state.home:
            data.extend(row)
        round_number = state.round if self.round_limit is not None else 0
        return (bytes(data), state.to_move, round_number)

    def endgame_key(self, state: UniversalForcesState, fold_symmetry: bool = False) -> int:
        """Only what changes the future, packed in an int: each occupied cell with its
        forces, each side's reserve and the kinds it has at home (not how many: one of
        a kind is what wins, and what the count of distinct kinds counts), the side to
        move, and the round where a round limit makes it count. Eliminated forces are
        left out. With ``fold_symmetry``, in a two-sided game without a round limit, a
        position and the one with the two sides' roles exchanged (every force, reserve
        and home changing hands, the other side to move) get the same key: the rules
        treat both sides alike. No other symmetry: the quadrants' colours and the
        strengths of the kinds break the board's rotations and reflections."""
        cells = state.cells
        sides = len(state.reserve)
        swap = fold_symmetry and sides == 2 and self.round_limit is None
        # Each occupied cell is a record (the cell + 1, then its two forces + 1, 0 for
        # none: 16 bits with two sides) above the fixed fields, so the code is unique
        # whatever their number. ``other`` is the same with the sides exchanged (the
        # side bit of every force flipped).
        force_bits, _, side_bits = _widths(sides)
        width = self._cell_bits + 2 * force_bits
        code = other = 0
        for cell in compress(self._cell_range, cells):
            contents = cells[cell]
            bottom = contents[0]
            place = (cell + 1) << 2 * force_bits
            if len(contents) == 2:
                top = contents[1]
                code = code << width | place | (bottom + 1) << force_bits | (top + 1)
                other = other << width | place | ((bottom ^ 4) + 1) << force_bits | ((top ^ 4) + 1)
            else:
                code = code << width | place | (bottom + 1) << force_bits
                other = other << width | place | ((bottom ^ 4) + 1) << force_bits
        parts = [_reserve_and_home(state.reserve[side], state.home[side]) for side in range(sides)]
        for part in parts:
            code = code << 12 | part
        code = code << side_bits | state.to_move
        if self.round_limit is not None:
            code = code << (self.round_limit + 1).bit_length() | state.round
        if not swap:
            return code
        other = ((other << 12 | parts[1]) << 12 | parts[0]) << side_bits | (state.to_move ^ 1)
        return min(code, other)

    def endgame_state(self, key: object, root: UniversalForcesState) -> UniversalForcesState:
        """The position :meth:`endgame_key` packed in ``key`` (as many sides as
        ``root``): one force of a kind at home where the key says the kind is home,
        the eliminated forces what the counts leave, the round (with a round limit)
        from the key, else ``root``'s."""
        if not isinstance(key, int):
            raise TypeError(f"a Universal Forces endgame key is an int, not {key!r}")
        sides = len(root.reserve)
        code = key
        round_number = root.round
        if self.round_limit is not None:
            bits = (self.round_limit + 1).bit_length()
            round_number = code & ((1 << bits) - 1)
            code >>= bits
        force_bits, force_mask, side_bits = _widths(sides)
        to_move = code & ((1 << side_bits) - 1)
        code >>= side_bits
        rows = []
        for _ in range(sides):
            rows.append(code & 0xFFF)
            code >>= 12
        rows.reverse()
        reserve = tuple((r >> 10 & 3, r >> 8 & 3, r >> 6 & 3, r >> 4 & 3) for r in rows)
        home = tuple((r >> 3 & 1, r >> 2 & 1, r >> 1 & 1, r & 1) for r in rows)
        cells: list[tuple[int, ...]] = [()] * self.geometry.size
        on_board = [[0] * 4 for _ in range(sides)]
        width = self._cell_bits + 2 * force_bits
        mask = (1 << width) - 1
        while code:
            record = code & mask
            code >>= width
            bottom = (record >> force_bits & force_mask) - 1
            top = (record & force_mask) - 1
            contents = (bottom,) if top < 0 else (bottom, top)
            cells[(record >> 2 * force_bits) - 1] = contents
            for force in contents:
                on_board[force >> 2][force & 3] += 1
        eliminated = tuple(
            tuple(
                PER_KIND - on_board[side][kind] - reserve[side][kind] - home[side][kind]
                for kind in range(4)
            )
            for side in range(sides)
        )
        board = tuple(cells)
        stuck = not self._can_act(board, reserve[to_move], to_move)
        ply = (round_number - 1) * sides + to_move
        return UniversalForcesState(board, reserve, home, eliminated, to_move, ply, stuck, None)

    # -- display ------------------------------------------------------------------------
    def diagram(self, state: UniversalForcesState) -> str:
        """The board in two halves (sections clockwise from twelve o'clock: the right
        half, then the left), each ring a row named by its ring, its sections in
        columns under their numbers, and a cell lined up with the cells it touches on
        the rings beside it (a medial section under two outer ones, an inner one
        under four). A cell shows ``.`` empty, ``g y b r`` an empty entry section or
        quadrant of that colour, or its top force: side digit and force letter
        (``1G``), followed by ``+`` for a stack (an own force under it) or ``x`` for a
        pin (an opponent's force under it). Then every occupied cell in full (forces
        bottom to top, as in the position notation), each side's reserve, home and
        eliminated forces, and who moves."""
        return self._diagram(state, frozenset())

    def diagram_marked(
        self, state: UniversalForcesState, last: UniversalForcesState, viewer: int | None = None
    ) -> str:
        """The diagram with a ``*`` before every cell the last move changed (the
        column before a cell is always blank) and a line saying so."""
        changed = frozenset(
            cell
            for cell, (old, new) in enumerate(zip(last.cells, state.cells, strict=True))
            if old != new
        )
        text = self._diagram(state, changed)
        return text + "\n*: a cell the last move changed" if changed else text

    def _diagram(self, state: UniversalForcesState, marked: frozenset[int]) -> str:
        lines: list[str] = []
        for half in (0, 1):
            lines.extend(self._diagram_half(state, half, marked))
            lines.append("")
        occupied = [
            f"{self._names[cell]} {format_forces(contents)}"
            for cell, contents in enumerate(state.cells)
            if contents
        ]
        # Wrapped between cells, never inside one.
        line = "forces:"
        for entry in occupied:
            if len(line) + 1 + len(entry) > 72:
                lines.append(line)
                line = "       "
            line += f" {entry}"
        if occupied:
            lines.append(line)
        for side in range(state.sides):
            lines.append(
                f"{_seat(side)}: reserve {_letters(state.reserve[side])}, "
                f"home {_letters(state.home[side])}, "
                f"eliminated {_letters(state.eliminated[side])}"
            )
        if state.outcome is not None:
            lines.append(f"over: {state.outcome.result_token()} ({state.outcome.reason})")
        else:
            passing = ", must pass" if state.stuck else ""
            lines.append(f"{_seat(state.to_move)} to move{passing} (round {state.round})")
        return "\n".join(lines)

    #: Characters of a half ring's row (the 16 outer sections of a half, 4 each).
    _HALF_WIDTH = 64

    def _diagram_half(
        self, state: UniversalForcesState, half: int, marked: frozenset[int] = frozenset()
    ) -> list[str]:
        """The rows of one half of the board (``half`` 0: sections starting in
        [0, 180) degrees, 1: in [180, 360)), with a row of section numbers above each
        sector (outer, medial, inner, centre)."""
        lines = []
        start = 0
        numbered = -1  # the section count of the last row of numbers
        for ring, count in self.geometry.rings:
            shown = [
                section
                for section in range(1, count + 1)
                if half * count <= 2 * (section - 1) < (half + 1) * count
            ]

            def column(section: int, count: int = count) -> int:
                return (section - 1) * 2 * self._HALF_WIDTH // count - half * self._HALF_WIDTH

            if count != numbered:
                header = [" "] * self._HALF_WIDTH
                for section in shown:
                    label = f"C{section}" if ring == "C" else str(section)
                    at = column(section)
                    header[at : at + len(label)] = label
                lines.append(("    " + "".join(header)).rstrip())
                numbered = count
            # The ring's name in 4 columns, then the cells; a mark goes in the blank
            # column before a cell (the last of the name's for section 1).
            row = list(f"{ring:<4}") + [" "] * self._HALF_WIDTH
            for section in shown:
                cell = start + section - 1
                text = self._diagram_cell(state.cells[cell], cell)
                at = 4 + column(section)
                row[at : at + len(text)] = text
                if cell in marked:
                    row[at - 1] = "*"
            lines.append("".join(row).rstrip())
            start += count
        return lines

    def _diagram_cell(self, contents: tuple[int, ...], cell: int) -> str:
        """A cell of the text diagram: ``.``, an entry or quadrant colour, or the top
        force (``1G``) with ``+`` over an own force or ``x`` over an opponent's."""
        if not contents:
            colour = max(self._colour[cell], self._quadrant[cell])
            return "gybr"[colour] if colour >= 0 else "."
        top = contents[-1]
        text = f"{(top >> 2) + 1}{FORCES[top & 3]}"
        if len(contents) == 2:
            text += "+" if contents[0] >> 2 == top >> 2 else "x"
        return text


@cache
def _configured(round_limit: int | None, inner_sections: int) -> UniversalForcesRules:
    """One engine per configuration: records of one league share it."""
    return UniversalForcesRules(round_limit, inner_sections)


def _widths(sides: int) -> tuple[int, int, int]:
    """Bits of :meth:`UniversalForcesRules.endgame_key`'s fields for ``sides`` sides:
    a force + 1 (and its mask), the side to move."""
    force_bits = (4 * sides).bit_length()
    return force_bits, (1 << force_bits) - 1, max(1, (sides - 1).bit_length())


def _reserve_and_home(reserve: Sequence[int], home: Sequence[int]) -> int:
    """A side's part of :meth:`UniversalForcesRules.endgame_key`: its reserve (2 bits
    a kind) and which kinds it has at home (a bit each)."""
    return (
        reserve[0] << 10
        | reserve[1] << 8
        | reserve[2] << 6
        | reserve[3] << 4
        | (home[0] > 0) << 3
        | (home[1] > 0) << 2
        | (home[2] > 0) << 1
        | (home[3] > 0)
    )


def format_forces(contents: Sequence[int]) -> str:
    """A cell's forces bottom to top, each a side digit and a force letter: ``1B1G``."""
    return "".join(f"{(piece >> 2) + 1}{FORCES[piece & 3]}" for piece in contents)


def _letters(counts: Sequence[int]) -> str:
    """Counts per kind as repeated letters (``GGYB``), ``-`` for none."""
    text = "".join(FORCES[kind] * count for kind, count in enumerate(counts))
    return text or "-"
