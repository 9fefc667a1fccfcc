"""A scoresheet: a game written down move by move as it is played.

The record layer of `partita play`, usable without a terminal: moves go in as
tokens, checked exactly as replay checks a record's (so a refused move carries the
message `validate` gives), or as moves an agent or a shuffle chose; plies can be
taken back; comments go on the last move; a result can be claimed (resignation,
agreement, a result token) with the ``Termination`` the record format asks for; and
the sheet becomes a :class:`~partita.notation.model.Record` with the tags a record
needs (Game, Date, the players, Result, the set-up and the game's tags).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from partita.errors import IllegalMoveError, PartitaError
from partita.game.notation import GameNotation
from partita.game.rules import CHANCE, WIN, Outcome, Rules, parse_result_token
from partita.notation.model import Node, Record
from partita.notation.problems import Problem
from partita.notation.replay import PASS_TOKEN, TERMINATIONS, move_label, play_token
from partita.notation.writer import write_record

__all__ = ["Claim", "Ply", "Scoresheet", "SET_BY_THE_SHEET"]

#: Tags the scoresheet writes itself; a caller's tags may not set them.
SET_BY_THE_SHEET = ("Game", "Result", "Termination", "SetUp", "Position")

#: The terminations that explain a claimed result, by kind of result (the record
#: format's rule), the default first.
_DECISIVE = ("resignation", "time", "abandoned", "adjudication")
_SHARED = ("agreement", "abandoned", "adjudication")
_UNFINISHED = ("unterminated", "abandoned", "adjudication", "resignation", "time", "agreement")


@dataclass(slots=True)
class Ply:
    """One ply on the sheet: the canonical token, the move, the states around it,
    and the comments after it."""

    token: str
    move: Any
    before: Any
    after: Any
    comments: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Claim:
    """A result the players gave, not the rules: the token and the termination."""

    result: str
    termination: str


class Scoresheet:
    """The sheet of one game of ``game`` (a notation configured for the game's tags).

    ``players`` names the seats in order (their number is the game's sides);
    ``tags`` are further tags to write (Event, Site, Round, the game's own tags),
    ``start`` a set-up position (default: the initial one), ``date`` the Date tag
    (default: today).
    """

    def __init__(
        self,
        game: GameNotation[Any, Any],
        players: Sequence[str],
        *,
        tags: Mapping[str, str] | None = None,
        start: Any = None,
        date: str | None = None,
    ) -> None:
        self.game = game
        self.rules: Rules[Any, Any] = game.rules
        sides = len(players)
        if not self.rules.min_sides <= sides <= self.rules.max_sides:
            raise PartitaError(
                f"{game.name} is played by {self.rules.min_sides} to {self.rules.max_sides} "
                f"sides, not {sides}"
            )
        if start is None:
            start = game.initial(sides)
        elif self.rules.sides(start) != sides:
            raise PartitaError(
                f"the position is for {self.rules.sides(start)} sides, not {sides} players"
            )
        self.start = start
        self.setup = start != game.initial(sides)
        self.players = list(players)
        extra = dict(tags or {})
        for name in extra:
            if name in SET_BY_THE_SHEET or name.startswith("Player"):
                raise PartitaError(f"the tag {name} is written by the scoresheet itself")
        self.tags = extra
        self.date = date or datetime.date.today().strftime("%Y.%m.%d")
        self.plies: list[Ply] = []
        #: Comments before the first move.
        self.opening_comments: list[str] = []
        self.claim: Claim | None = None

    # -- where the game stands -------------------------------------------------------------
    @property
    def state(self) -> Any:
        return self.plies[-1].after if self.plies else self.start

    @property
    def outcome(self) -> Outcome | None:
        """How the rules ended the game, or ``None``."""
        return self.rules.outcome(self.state)

    @property
    def over(self) -> bool:
        """Whether the game has ended, by the rules or by a claim."""
        return self.claim is not None or self.outcome is not None

    @property
    def result(self) -> str:
        """The Result tag: the rules' result, the claimed one, or ``*``."""
        outcome = self.outcome
        if outcome is not None:
            return outcome.result_token()
        return self.claim.result if self.claim is not None else "*"

    @property
    def termination(self) -> str | None:
        if self.outcome is not None:
            return "normal"
        return self.claim.termination if self.claim is not None else None

    @property
    def side_to_move(self) -> int:
        """The seat to move (from 0), or ``CHANCE``."""
        return self.rules.side_to_move(self.state)

    @property
    def lists_every_move(self) -> bool:
        """Whether :meth:`legal_tokens` is every legal move (a game that overrides
        ``sample_move``, like a card game's composite turns, lists a subset)."""
        return type(self.rules).sample_move is Rules.sample_move

    def legal_tokens(self) -> list[str]:
        """The canonical tokens of the legal moves (see :attr:`lists_every_move`)."""
        if self.over:
            return []
        state = self.state
        return [self.game.format_move(state, move) for move in self.rules.legal_moves(state)]

    def forced_pass(self) -> Any:
        """The pass the rules force on the side to move, or ``None``."""
        if self.over:
            return None
        return self.rules.forced_pass(self.state)

    def history(self) -> list[tuple[Any, Any]]:
        """The ``(state, move)`` pairs that led to the current state, oldest first."""
        return [(ply.before, ply.move) for ply in self.plies]

    def move_number(self) -> str:
        """The record's number of the next ply, as a player reads it: ``12.`` or ``12...``."""
        return move_label(self.rules, self.state)

    # -- writing moves -------------------------------------------------------------------------
    def play(self, token: str) -> tuple[list[Ply], list[Problem]]:
        """Play a written move (a forced pass the record would leave out is played
        first): the plies it made and the warnings (a non-canonical spelling).
        :class:`~partita.notation.replay.MoveRefused` with the problem `validate`
        reports when the move cannot be played, and ``PartitaError`` after a claim."""
        self._refuse_after_claim()
        made, warnings = play_token(self.game, self.state, token.strip(), len(self.plies))
        plies = [self._add(before, move, after) for before, move, after in made]
        return plies, warnings

    def play_move(self, move: Any) -> Ply:
        """Play a move value (an agent's choice, a sampled shuffle), checked by the
        rules: ``IllegalMoveError`` with the reason if it is not legal."""
        self._refuse_after_claim()
        state = self.state
        reason = self.rules.illegal_reason(state, move)
        if reason is not None:
            raise IllegalMoveError(f"illegal move '{self.game.format_move(state, move)}': {reason}")
        return self._add(state, move, self.rules.apply(state, move))

    def _add(self, before: Any, move: Any, after: Any) -> Ply:
        token = PASS_TOKEN if self.rules.is_pass(move) else self.game.format_move(before, move)
        ply = Ply(token, move, before, after)
        self.plies.append(ply)
        return ply

    def _refuse_after_claim(self) -> None:
        if self.claim is not None:
            raise PartitaError(
                f"the game is over: {self.claim.termination} ({self.claim.result}); "
                "undo takes the claim back"
            )

    def undo(self) -> Claim | Ply | None:
        """Take back the claim if there is one, else the last ply; what was taken
        back (``None``: nothing was written yet)."""
        if self.claim is not None:
            claim, self.claim = self.claim, None
            return claim
        return self.plies.pop() if self.plies else None

    def comment(self, text: str) -> None:
        """A comment after the last ply (before the first move if none was played)."""
        text = " ".join(text.split())
        if not text:
            raise PartitaError("a comment needs some text: comment TEXT")
        if "}" in text:
            raise PartitaError("a comment cannot hold '}': it would end the comment in PGR")
        (self.plies[-1].comments if self.plies else self.opening_comments).append(text)

    # -- results the players give ------------------------------------------------------------------
    def claim_result(self, result: str, termination: str | None = None) -> Claim:
        """End the game with a result the rules did not give: ``result`` a result
        token (``1-0``, ``0-1-0``, ``1/2-1/2``, ``*``), ``termination`` how it came
        about; by default ``resignation`` for a result with one winner, ``agreement``
        for a shared one, ``unterminated`` for ``*``. ``PartitaError`` (the reason)
        for a result the record format would not accept here."""
        outcome = self.outcome
        if outcome is not None:
            raise PartitaError(
                f"the rules have ended the game: {outcome.reason} ({outcome.result_token()})"
            )
        self._refuse_after_claim()
        sides = self.rules.sides(self.state)
        try:
            scores = parse_result_token(result, sides)
        except ValueError as error:
            raise PartitaError(str(error)) from None
        allowed: tuple[str, ...]
        if scores is None:
            kind, allowed = "an unfinished game", _UNFINISHED
        elif sum(1 for score in scores if score == WIN) == 1:
            kind, allowed = "a result with one winner", _DECISIVE
        else:
            kind, allowed = "a shared result", _SHARED
        chosen = allowed[0] if termination is None else termination
        if chosen not in TERMINATIONS:
            raise PartitaError(f"termination '{chosen}' is not one of {', '.join(TERMINATIONS)}")
        if chosen not in allowed:
            raise PartitaError(
                f"{chosen} does not explain {kind} ({result}) the rules have not given: "
                f"say {', '.join(allowed)}"
            )
        self.claim = Claim(result, chosen)
        return self.claim

    def resign(self) -> Claim:
        """The side to move resigns (two sides: the other wins)."""
        sides = self.rules.sides(self.state)
        mover = self.side_to_move
        if sides != 2:
            raise PartitaError(
                f"with {sides} sides a resignation names no winner: claim the result, as in 0-1-0"
            )
        if mover == CHANCE:
            raise PartitaError("no side is to move (a shuffle or a reveal comes next)")
        return self.claim_result("0-1" if mover == 0 else "1-0", "resignation")

    def agree_draw(self) -> Claim:
        """The sides agree to share the result."""
        return self.claim_result("-".join(["1/2"] * self.rules.sides(self.state)), "agreement")

    # -- the record ---------------------------------------------------------------------------------
    def record(self) -> Record:
        """The game as a record, with the tags a record needs."""
        tags: dict[str, str] = {"Game": self.game.name, "Date": self.date}
        for seat, name in enumerate(self.players, start=1):
            tags[f"Player{seat}"] = name
        tags["Result"] = self.result
        termination = self.termination
        if termination is not None:
            tags["Termination"] = termination
        if self.setup:
            tags["SetUp"] = "1"
            tags["Position"] = self.game.format_position(self.start)
        tags.update(self.tags)
        record = Record(tags=tags, result=self.result)
        record.root.comments.extend(self.opening_comments)
        node = record.root
        for ply in self.plies:
            node = node.add(Node(ply.token, comments=list(ply.comments)))
        return record

    def text(self) -> str:
        """The record in canonical PGR."""
        return write_record(self.record(), self.game)
