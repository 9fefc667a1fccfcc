"""The text side of a game: move and position notation around a rules engine.

A :class:`GameNotation` is the one interface the rest of partita uses for a game.
It pairs a pure rules engine (``rules``, from :mod:`partita.games`) with its
pyparsing grammars. Syntax first, then meaning: the grammar recognises a token,
the position resolves it against the rules, and three distinct errors come out:
:class:`~partita.errors.NotationError` (malformed),
:class:`~partita.errors.IllegalMoveError` (not allowed here) and
:class:`~partita.errors.AmbiguousMoveError`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Generic, Protocol, Self, TypeVar

from partita.errors import NotationError
from partita.game.rules import MoveT, Rules, StateT

if TYPE_CHECKING:  # pyparsing is imported when a position is parsed (start-up)
    import pyparsing as pp


def parse_position_text(
    grammar: pp.ParserElement, text: str, what: str = "position"
) -> pp.ParseResults:
    """``text`` (stripped) parsed whole by a game's position (or pattern: ``what``)
    grammar, or ``NotationError`` naming the column and what the grammar expected
    there."""
    import pyparsing as pp

    try:
        return grammar.parse_string(text.strip(), parse_all=True)
    except pp.ParseBaseException as error:
        expected = error.msg[:1].lower() + error.msg[1:]
        raise NotationError(
            f"malformed {what} '{text}' at column {error.col}: {expected}"
        ) from None


_PatternState = TypeVar("_PatternState", contravariant=True)


class Pattern(Protocol[_PatternState]):
    """A parsed position pattern (``query --pattern``): ``text`` as given, and
    ``matches(state)``, whether a position fits it."""

    @property
    def text(self) -> str: ...

    def matches(self, state: _PatternState) -> bool: ...


class GameNotation(ABC, Generic[StateT, MoveT]):
    """A game as partita sees it: rules plus notation, configured for a record.

    Generic over the game's state and move types, like its rules engine
    (``class BoardNotation(GameNotation[BoardState, Drop])``); a game narrows
    :attr:`rules` to its own engine class with a class-level annotation.
    """

    rules: Rules[StateT, MoveT]

    def __init__(self, rules: Rules[StateT, MoveT]) -> None:
        self.rules = rules

    @property
    def name(self) -> str:
        return self.rules.name

    def configure(self, tags: Mapping[str, str]) -> Self:
        """This game configured by a record's tags (``TagError`` on a bad value)."""
        rules = self.rules.configure(tags)
        return self if rules is self.rules else type(self)(rules)

    def variants(self) -> Sequence[Mapping[str, str]]:
        """Tag sets that select each distinct rule variant (a league, a level, a
        layout), so the conformance suite runs every one; ``{}`` is the default."""
        return ({},)

    # -- moves ---------------------------------------------------------------------
    @abstractmethod
    def canonical_token(self, text: str) -> str:
        """The canonical spelling of a move token (``T4`` -> ``t4``), checking only
        its syntax; ``NotationError`` if it is no move of this game at all."""

    @abstractmethod
    def parse_move(self, state: StateT, text: str) -> MoveT:
        """The legal move ``text`` names in ``state``.

        Raises ``NotationError`` (malformed), ``IllegalMoveError`` (with the reason)
        or ``AmbiguousMoveError``. Non-canonical spellings are accepted here; the
        replay reports them as warnings by comparing with :meth:`canonical_token`.
        """

    @abstractmethod
    def format_move(self, state: StateT, move: MoveT) -> str:
        """The canonical token of ``move`` played in ``state``."""

    #: Whether :meth:`moves_from_columns` reads this game's compact column strings
    #: (the published test sets' format for top-entry boards: ``"4453"``).
    has_column_strings: bool = False

    def moves_from_columns(self, text: str, state: StateT | None = None) -> list[MoveT]:
        """The moves of a column string, each checked legal in turn; games without
        column strings say so with ``NotationError``."""
        raise NotationError(f"{self.name} has no column strings")

    # -- positions -------------------------------------------------------------------
    @abstractmethod
    def parse_position(self, text: str, sides: int | None = None) -> StateT:
        """The state a position-notation string describes.

        ``NotationError`` if malformed, ``SetupError`` if impossible in principle
        (counts inconsistent with the side to move, already decided).
        """

    @abstractmethod
    def format_position(self, state: StateT) -> str:
        """The position notation of ``state``; ``parse_position`` reads it back."""

    def parse_pattern(self, text: str) -> Pattern[StateT]:
        """A position pattern with wildcards (``query --pattern``; each game's docs
        page gives its syntax). ``NotationError`` if malformed, or when the game has
        no pattern search (this default)."""
        raise NotationError(f"{self.rules.title} has no pattern search")

    # -- conveniences ------------------------------------------------------------------
    def initial(self, sides: int = 2) -> StateT:
        return self.rules.initial(sides)

    def diagram(self, state: StateT, viewer: int | None = None, last: StateT | None = None) -> str:
        """The text diagram; ``viewer``: as that seat sees it (see
        :meth:`~partita.game.rules.Rules.diagram_for`); ``last``: the position the
        last move was played from, to mark that move on the board (see
        :meth:`~partita.game.rules.Rules.diagram_marked`; ``None`` marks nothing)."""
        if last is not None:
            return self.rules.diagram_marked(state, last, viewer)
        if viewer is None or not self.rules.hidden_information:
            return self.rules.diagram(state)
        return self.rules.diagram_for(state, viewer)

    def format_move_for(self, state: StateT, move: MoveT, viewer: int | None) -> str:
        """``move`` as seat ``viewer`` sees it played (``None``: everybody sees all):
        the canonical token, with what the rules hide from that seat (a card put
        face down) left out. Games with hidden information override it; the result
        then need not parse."""
        return self.format_move(state, move)

    def format_choice(self, state: StateT, move: MoveT, index: int) -> str:
        """How a person names the choice ``move`` makes at its decision ``index``
        (:meth:`Rules.decisions`), when that choice is his within another side's
        move: what he types at a table to make it. Games whose rules split a move
        override it; the default is the choice's text."""
        return str(self.rules.decisions(state, move)[index].choice)

    def format_asking(self, state: StateT, move: MoveT, index: int, viewer: int | None) -> str:
        """What ``move`` does before its decision ``index``, as seat ``viewer`` sees
        it: what the side asked has seen done when it chooses. The default shows
        nothing."""
        return ""

    def format_position_for(self, state: StateT, viewer: int | None) -> str:
        """The position notation as seat ``viewer`` sees the table (``None``: all of
        it); a game with hidden information writes ``?`` for what the seat cannot
        see, so the text then need not parse."""
        return self.format_position(state)

    def play_line(self, text: str, state: StateT | None = None) -> StateT:
        """The state after a space-separated line of moves (checked path)."""
        if state is None:
            state = self.rules.initial()
        for token in text.split():
            state = self.rules.apply(state, self.parse_move(state, token))
        return state

    def format_line(self, state: StateT, moves: Sequence[MoveT]) -> list[str]:
        tokens = []
        for move in moves:
            tokens.append(self.format_move(state, move))
            state = self.rules.apply(state, move)
        return tokens
