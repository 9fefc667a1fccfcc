"""The contract every rules engine implements (after OpenSpiel's one game API).

A rules engine is pure: no I/O, no text parsing beyond what a move value knows of
itself, nothing imported from the rest of partita. The notation layer wraps an
engine with its grammars (see :mod:`partita.game.registry`).

Shapes chosen so that all five rule sets fit without change:

* a *state* is an immutable value; ``apply`` returns a new one;
* a *move* is one turn of one side (possibly composite: a card game's whole turn,
  one token's whole path) and is an immutable, hashable value; a pass is a move;
* whose turn it is always comes from the state (rotating first players, two turns in
  a row, passes), never from counting plies;
* randomness and hidden information are moves of a chance side (``CHANCE``), so a
  position stays a pure function of the moves before it;
* the outcome is one value per side plus how it came about;
* a move may hold choices another side makes within it (the answer to raised
  stakes): :meth:`Rules.decisions` names who makes each, so that searches and
  tables of agents let every side choose for itself.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, Self, TypeVar

from partita.errors import IllegalMoveError

if TYPE_CHECKING:
    import random

#: A game's state type (an immutable position value).
StateT = TypeVar("StateT")
#: A game's move type (an immutable, hashable value).
MoveT = TypeVar("MoveT", bound=Hashable)

#: The side to move when the next move is a chance event (a shuffle, a reveal).
CHANCE = -1

#: The most digits a number in a record may have (a move number, a NAG, a cell's
#: segment, a count, a round): no game counts further, and Python refuses to turn
#: more than 4,300 digits into a number. Longer runs of digits are malformed.
MAX_DIGITS = 9
#: The games' grammars read numbers with these patterns: 1 to :data:`MAX_DIGITS`
#: digits (``DIGITS``), or a positive number without leading zeros (``POSITIVE``),
#: never followed by another digit.
DIGITS = rf"[0-9]{{1,{MAX_DIGITS}}}(?![0-9])"
POSITIVE = rf"[1-9][0-9]{{0,{MAX_DIGITS - 1}}}(?![0-9])"

WIN = Fraction(1)
DRAW = Fraction(1, 2)
LOSS = Fraction(0)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: one score per side (1 won, 0 lost, 1/2 shared a draw).

    ``reason`` says in a player's words how it came about ("four in a row",
    "no legal move left", "round limit reached"). ``winner`` is the seat index of
    the sole winner, or ``None``.
    """

    scores: tuple[Fraction, ...]
    reason: str

    @property
    def winner(self) -> int | None:
        winners = [side for side, score in enumerate(self.scores) if score == WIN]
        return winners[0] if len(winners) == 1 else None

    def result_token(self) -> str:
        """The PGR result token: ``1-0``, ``0-1``, ``1/2-1/2``, ``0-1-0`` ..."""
        return "-".join(_score_text(score) for score in self.scores)

    @classmethod
    def win_for(cls, winner: int, sides: int, reason: str) -> Outcome:
        """The outcome of a sole winner, seat ``winner`` of ``sides``."""
        return cls(_win_scores(winner, sides), reason)

    @classmethod
    def draw(cls, sides: int, reason: str) -> Outcome:
        """The outcome of a draw shared by all ``sides``."""
        return cls(tuple(DRAW for _ in range(sides)), reason)


@lru_cache(maxsize=1024)
def _win_scores(winner: int, sides: int) -> tuple[Fraction, ...]:
    """The scores of a sole winner (every decided replay asks)."""
    return tuple(WIN if side == winner else LOSS for side in range(sides))


def _score_text(score: Fraction) -> str:
    return "1/2" if score == DRAW else str(int(score))


def parse_result_token(token: str, sides: int) -> tuple[Fraction, ...] | None:
    """Scores of a result token, ``None`` for ``*``; ``ValueError`` if malformed.

    A two-sided draw is written ``1/2-1/2``; every field is ``1``, ``0`` or ``1/2``
    and there is exactly one field per side.
    """
    if token == "*":
        return None
    fields = token.split("-")
    if len(fields) != sides:
        raise ValueError(
            f"result '{token}' has {len(fields)} fields but the game has {sides} sides"
        )
    values = {"1": WIN, "0": LOSS, "1/2": DRAW}
    scores = []
    for field in fields:
        if field not in values:
            raise ValueError(f"result '{token}': '{field}' is not 1, 0 or 1/2")
        scores.append(values[field])
    return tuple(scores)


@dataclass(frozen=True, slots=True)
class PlacementImages:
    """Packed symmetry images of a placement game (see :meth:`Rules.placement_images`).

    A state's key is a bitboard below bit ``side_shift`` plus the side to move at
    ``side_shift``. ``of_piece[bit]`` packs the images of one piece on key bit
    ``bit`` (one ``slot``-bit field per symmetry, at ``shifts``); ``of_state(state)``
    packs a whole state's; ``mask`` keeps one field.
    """

    of_piece: tuple[int, ...]
    of_state: Callable[[Any], int]
    slot: int
    mask: int
    shifts: tuple[int, ...]
    side_shift: int


@dataclass(frozen=True, slots=True)
class TagSpec:
    """A game-specific tag: its name, what it means, the values it accepts.

    ``values`` is ``None`` for free-form values checked by the engine's
    ``configure``; ``default`` is what an absent tag means. A ``cosmetic`` tag
    changes how positions look (the sides' colours), never the rules or the
    positions: games differing only in it are one configuration for analysis.
    """

    name: str
    description: str
    values: tuple[str, ...] | None = None
    default: str | None = None
    cosmetic: bool = False


class Decision(NamedTuple):
    """One choice within a move (:meth:`Rules.decisions`): the side that makes it
    (``CHANCE`` for a draw of the table) and what it chose (any hashable value)."""

    side: int
    choice: Hashable


class Rules(ABC, Generic[StateT, MoveT]):
    """One rule set, possibly configured (board size, variant, layout, deck...).

    Engines are stateless apart from their configuration; states carry everything
    that changes. ``configure`` returns a new engine for a record's tags. A game
    declares its state and move types: ``class BoardRules(Rules[BoardState, Drop])``.
    """

    #: The `Game` tag value.
    name: ClassVar[str]
    #: A human title.
    title: ClassVar[str]
    min_sides: ClassVar[int] = 2
    max_sides: ClassVar[int] = 2
    #: Game-specific tags this game understands.
    tags: ClassVar[tuple[TagSpec, ...]] = ()
    #: One line on the move notation, for `partita games`.
    notation_summary: ClassVar[str] = ""

    # -- configuration ------------------------------------------------------
    def configure(self, tags: Mapping[str, str]) -> Self:
        """The engine for a record with these tags; ``TagError`` on a bad value."""
        return self

    # -- states --------------------------------------------------------------
    @abstractmethod
    def initial(self, sides: int = 2) -> StateT:
        """The starting position for this many sides."""

    @abstractmethod
    def sides(self, state: StateT) -> int:
        """How many sides play in this state."""

    @abstractmethod
    def side_to_move(self, state: StateT) -> int:
        """Seat index (from 0) of the side to move, or ``CHANCE``."""

    @abstractmethod
    def legal_moves(self, state: StateT) -> Sequence[MoveT]:
        """Every legal move, in a fixed order; empty once the game is over."""

    def sample_move(self, state: StateT, rng: random.Random) -> MoveT:
        """A random legal move (``rng`` is a ``random.Random``), for playouts and tests.

        Uniform over :meth:`legal_moves` by default. A game whose moves cannot all be
        listed (a shuffle: n! deck orders; a card game's composite turns) overrides
        it, and its ``legal_moves`` may then list a representative subset: legality
        is always decided by :meth:`illegal_reason`, never by membership in that list.
        """
        return rng.choice(list(self.legal_moves(state)))

    # -- choices made by another side within a move -----------------------------
    def decisions(self, state: StateT, move: MoveT) -> tuple[Decision, ...]:
        """The choices ``move`` is made of, in the order they are made, each with the
        side that makes it. A move is one ply of a record, but a game may let another
        side decide part of it (the answer to raised stakes asked within a turn, the
        reward of the attack's winner): a search then lets that side make that
        choice for itself (:mod:`partita.analysis.mcts`), and a table of agents asks
        that side's agent (:func:`partita.analysis.agents.answered`), instead of the
        mover choosing for everybody. Two moves whose first ``k`` decisions are
        equal share their first ``k`` choices. The default: one decision, the
        mover's, the move itself."""
        return (Decision(self.side_to_move(state), move),)

    def answers(self, state: StateT, move: MoveT, index: int) -> Sequence[MoveT]:
        """Legal moves that make the same first ``index`` decisions as ``move``
        (:meth:`decisions`) and another choice at ``index``: at least one for every
        other choice the side deciding there has (where that choice lets the mover
        go on, a few of his ways to go on). A game whose :meth:`decisions` splits a
        move overrides this; the default has nothing to add."""
        return ()

    # -- hidden information ----------------------------------------------------
    #: Whether a side may not see the whole state (a card game's hands, a face-down
    #: pile). Searches then look at a game only through :meth:`determinize`.
    hidden_information: ClassVar[bool] = False

    def determinize(
        self, state: Any, side: int, rng: Any, history: Sequence[tuple[Any, Any]] = ()
    ) -> Any:
        """A state drawn at random (``rng``) among those ``side`` cannot tell from
        ``state``: what ``side`` sees is kept, the rest (an opponent's hand, the order
        of a face-down pile) resampled consistently with it and with what ``side``
        saw happen in ``history`` (the ``(state, move)`` pairs that led to ``state``,
        oldest first, if the caller has them), every card conserved.

        For searches that must play from one side's information only. The default,
        for games of perfect information, is the state itself.
        """
        return state

    def realize(self, state: StateT, move: MoveT) -> MoveT:
        """``move``, chosen on a table from :meth:`determinize`, as the real ``state``
        plays it: where a move names what its mover cannot see (the cards a reward
        takes off a face-down pile), the real ones. The mover's choices (how many,
        which action) are kept; a move this cannot mend is returned as it is, and
        :meth:`illegal_reason` then says why it does not fit the real table.

        For agents of hidden-information games. The default is the move itself.
        """
        return move

    @abstractmethod
    def illegal_reason(self, state: StateT, move: MoveT) -> str | None:
        """Why ``move`` is illegal here, in a player's words; ``None`` if legal."""

    @abstractmethod
    def apply(self, state: StateT, move: MoveT) -> StateT:
        """Trusted fast path: the state after a move known to be legal."""

    def play(self, state: StateT, move: MoveT) -> StateT:
        """Checked path: the state after ``move``, or ``IllegalMoveError``."""
        reason = self.illegal_reason(state, move)
        if reason is not None:
            raise IllegalMoveError(reason)
        return self.apply(state, move)

    @abstractmethod
    def outcome(self, state: StateT) -> Outcome | None:
        """The outcome if the rules have ended the game, else ``None``."""

    def is_over(self, state: StateT) -> bool:
        return self.outcome(state) is not None

    def forced_pass(self, state: StateT) -> MoveT | None:
        """The pass move if the rules force the side to move to pass, else ``None``.

        Readers insert an omitted forced pass with it; games without passes keep
        the default.
        """
        return None

    def is_pass(self, move: MoveT) -> bool:
        return False

    # -- numbering -------------------------------------------------------------
    def move_number(self, state: StateT) -> tuple[int, bool]:
        """The record's move number for the next move and whether it opens it.

        Two-sided games number rounds of two plies; a game may rotate the first
        side or number whole turns. The default counts plies in rounds of
        ``sides`` from the state's ply counter.
        """
        ply = self.ply(state)
        sides = self.sides(state)
        return ply // sides + 1, ply % sides == 0

    @abstractmethod
    def ply(self, state: StateT) -> int:
        """Plies (turns of any side, passes included) played from the initial state."""

    # -- keys and symmetry -------------------------------------------------------
    @abstractmethod
    def key(self, state: StateT) -> Hashable:
        """A position key for graphs and the archive: equal for positions with the
        same future, stable across runs (ints, strings, bytes, tuples of those)."""

    #: How many symmetries the game has (1: only the identity).
    symmetry_count: ClassVar[int] = 1

    def transform(self, state: StateT, symmetry: int) -> StateT:
        """The state mapped by symmetry number ``symmetry`` (0 is the identity)."""
        if symmetry != 0:
            raise ValueError(f"{self.name} has no symmetry {symmetry}")
        return state

    def transform_move(self, move: MoveT, symmetry: int) -> MoveT:
        """The move mapped by the same symmetry as :meth:`transform`."""
        if symmetry != 0:
            raise ValueError(f"{self.name} has no symmetry {symmetry}")
        return move

    def symmetric_keys(self, state: StateT) -> tuple[Hashable, ...]:
        """``key(transform(state, k))`` for every symmetry ``k`` in order (the
        identity first), for graphs that fold symmetric positions. Games with a
        faster way (one pass over packed tables) override it with the same values."""
        return (self.key(state),) + tuple(
            self.key(self.transform(state, symmetry)) for symmetry in range(1, self.symmetry_count)
        )

    def placement_images(self) -> PlacementImages | None:
        """An optional fast path for placement games whose key is a bitboard: the
        images of every symmetry packed into one int, so that a child position's
        images are its parent's plus those of the one piece its move placed (the
        opening tree uses it). ``None`` (the default): keys come from
        :meth:`symmetric_keys`."""
        return None

    def canonical_key(self, state: StateT) -> Hashable:
        """The smallest key over all symmetries: equal for symmetric positions."""
        if self.symmetry_count == 1:
            return self.key(state)
        # One game's keys are of one kind (ints, strings, tuples) and compare.
        keys: list[Any] = [self.key(self.transform(state, k)) for k in range(self.symmetry_count)]
        smallest: Hashable = min(keys)
        return smallest

    def endgame_key(self, state: StateT, fold_symmetry: bool = False) -> Hashable:
        """The key of ``state`` in an endgame graph (:mod:`partita.analysis.endgame`):
        equal only for positions whose futures are the same up to renaming, so that
        they have the same value for their side to move and the same distance to the
        end. It may leave out more than :meth:`key` (what can no longer change the
        outcome) and, with ``fold_symmetry``, fold positions a symmetry of the game
        maps onto each other (the board's, or one exchanging the sides' roles).

        An int below 2**63 keeps the graph's index compact (16 bytes a position);
        any other hashable works, at the memory cost of a dict. The default is
        :meth:`key`, and :meth:`canonical_key` with ``fold_symmetry``."""
        return self.canonical_key(state) if fold_symmetry else self.key(state)

    def endgame_state(self, key: Hashable, root: StateT) -> StateT | None:
        """A state whose :meth:`endgame_key` is ``key``, in a graph explored from
        ``root`` (which gives what the key leaves out: the sides, the board); ``None``
        if the game cannot tell (the default). A game that can lets an endgame graph
        keep the key of a position waiting to be explored instead of its state (a few
        bytes instead of a board)."""
        return None

    # -- display -----------------------------------------------------------------
    @abstractmethod
    def diagram(self, state: StateT) -> str:
        """A text diagram of the position, for terminals."""

    def diagram_for(self, state: StateT, viewer: int) -> str:
        """The text diagram as seat ``viewer`` sees the table: what the rules hide
        from that seat (an opponent's hand, a face-down pile) is left out. Games with
        :attr:`hidden_information` override it; the default is :meth:`diagram`."""
        return self.diagram(state)

    def diagram_marked(self, state: StateT, last: StateT, viewer: int | None = None) -> str:
        """The text diagram (as seat ``viewer`` sees it, ``None``: the whole table) with
        the last move marked: ``last`` is the position it was played from, so the game
        marks what changed in its own way (one that survives copy-paste and plain
        text) and says how in a line of the diagram. The default marks nothing: it is
        :meth:`diagram` (or :meth:`diagram_for`)."""
        if viewer is None or not self.hidden_information:
            return self.diagram(state)
        return self.diagram_for(state, viewer)

    def playable_moves(self, state: StateT) -> Sequence[MoveT]:
        """Every move the side to move can choose here, each once, for a player's
        list of moves: :meth:`legal_moves` by default. A game whose
        :meth:`legal_moves` lists a representative subset (composite turns)
        overrides it with the whole list."""
        return self.legal_moves(state)

    def events(
        self, state: StateT, move: MoveT, after: StateT, viewer: int | None = None
    ) -> list[str]:
        """What ``move`` made happen, in a player's words (a goal, a foul, the end of
        a period), for a game being played; ``viewer``: told to that seat, naming
        nothing the rules hide from it. None by default."""
        return []
