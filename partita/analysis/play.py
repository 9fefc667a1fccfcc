"""A game being played at the scoresheet: people at some seats, agents at others.

:class:`PlaySession` is what `partita play` runs, without the terminal: it knows
whose turn it is, lets the agents (``mcts:2000``, ``greedy``...) play theirs, plays
forced passes and, when nobody at the table types them, the chance moves (shuffles,
face-offs), and reads what a person types, one line at a time: a move in the game's
notation, or one of the commands (:data:`COMMANDS`). It writes everything on a
:class:`~partita.notation.scoresheet.Scoresheet`.

In a game whose rules declare hidden information (a card game), the people at the
table see only what their seat sees (:attr:`PlaySession.viewer`): the diagram,
the position, the moves announced and the narration are drawn for that seat, and
chance (shuffles, face-offs) is drawn by the session, never typed, since typing it
names hidden cards. ``open_table=True`` keeps the open scoresheet of a real table,
where the scorer writes down everything.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Self

from partita.analysis.agents import Agent, agent_from_spec, answered, playable_choice
from partita.errors import PartitaError
from partita.game.rules import CHANCE, Rules
from partita.notation.problems import Problem
from partita.notation.replay import move_label, play_token
from partita.notation.scoresheet import Claim, Ply, Scoresheet

__all__ = ["COMMANDS", "HUMAN", "PlaySession", "Reply", "Turn"]

#: The name a seat without an agent gets when no player name is given.
HUMAN = "Human"

#: What a person may type besides a move, with what it does.
COMMANDS: dict[str, str] = {
    "moves": "list the legal moves (every turn you can choose, one a line where they are long)",
    "undo": "take back your last move (and the moves played after it), or a claim",
    "comment TEXT": "write a comment after the last move",
    "resign": "the side to move resigns (two sides)",
    "draw": "the sides agree to a draw",
    "RESULT [HOW]": "claim a result, as 1-0, 0-1-0 or 1/2-1/2 (HOW: resignation, time, "
    "agreement, abandoned, adjudication; * for an unfinished game)",
    "random": "at a shuffle or a face-off: let chance choose (an empty line too)",
    "board": "draw the position again",
    "position": "the position in the game's notation",
    "save": "save the record and end (end of input does the same)",
    "help": "this list",
}
_WORDS = ("moves", "undo", "comment", "resign", "draw", "random", "board", "position", "save")
_SAVE_WORDS = ("save", "end", "quit", "exit")


@dataclass(frozen=True, slots=True)
class Turn:
    """Who plays next: ``kind`` is ``"human"`` (a person at ``seat`` types a move),
    ``"answer"`` (a person at ``seat`` makes his choice within an agent's move: the
    answer to raised stakes; :meth:`PlaySession.question`), ``"chance"`` (a shuffle
    or face-off that a person types, or leaves to chance), ``"auto"`` (an agent, a
    forced pass or chance plays it: :meth:`PlaySession.step`), or ``"over"``."""

    kind: str
    seat: int | None = None


@dataclass(slots=True)
class _Asked:
    """An agent's move waiting for a person's choice within it: the move as it
    stands, the decision the person makes (:meth:`Rules.decisions`), and the moves
    each of his choices names (the agent goes on as it chooses among them)."""

    state: Any
    move: Any
    index: int
    seat: int
    options: dict[str, list[Any]]


@dataclass(slots=True)
class Reply:
    """What one typed line did: ``plies`` played, ``text`` to show (``answer``: it
    answers a question, ``moves`` or ``help``, rather than confirming what was
    done), ``warnings`` (a move accepted in another spelling), whether the position
    changed (to draw it again) and whether the session is to end (``save``)."""

    plies: list[Ply] = field(default_factory=list)
    text: str = ""
    answer: bool = False
    warnings: list[Problem] = field(default_factory=list)
    changed: bool = False
    finished: bool = False


class PlaySession:
    """One game: ``sheet`` is written on; ``seats`` gives the agent spec of each
    seat an agent plays (seats from 0); ``seed`` seeds the agents and chance (one
    game for one seed, with budgets in playouts)."""

    def __init__(
        self,
        sheet: Scoresheet,
        seats: Mapping[int, str] | None = None,
        seed: int | None = None,
        *,
        open_table: bool = False,
    ) -> None:
        self.sheet = sheet
        #: Everything shown to everybody (the scoresheet of a real table), or only
        #: what :attr:`viewer` sees in a hidden-information game.
        self.open_table = open_table or not sheet.rules.hidden_information
        self.game = sheet.game
        self.rules = sheet.rules
        sides = len(sheet.players)
        self.agents: dict[int, Agent] = {}
        for seat, spec in (seats or {}).items():
            if not 0 <= seat < sides:
                raise PartitaError(f"there is no seat {seat + 1} in a game of {sides} sides")
            agent_seed = None if seed is None else seed * 1_000_003 + seat
            self.agents[seat] = agent_from_spec(spec, self.game, seed=agent_seed)
        self.rng = random.Random(seed)
        #: Who played each ply of the sheet: a seat's person (``"human"``), or the
        #: session itself (``"auto"``: an agent, a forced pass, a chance move it drew).
        self.played_by: list[str] = []
        #: Agents' moves that the real table did not allow (see :meth:`step`).
        self.replaced = 0
        #: An agent's move waiting for a person's choice within it.
        self.asked: _Asked | None = None

    def close(self) -> None:
        """Stop what the agents hold (the search processes of ``mcts:N,workers=K``);
        they start again if the game goes on."""
        for agent in self.agents.values():
            agent.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def humans(self) -> list[int]:
        return [seat for seat in range(len(self.sheet.players)) if seat not in self.agents]

    @property
    def viewer(self) -> int | None:
        """The seat whose view of the table is shown (``None``: the whole table):
        in a hidden-information game, the person at the table, or with several
        people the one to move (else the last of them who moved)."""
        humans = self.humans
        if self.open_table or not humans:
            return None
        if len(humans) == 1:
            return humans[0]
        side = self.sheet.side_to_move
        if side in humans and not self.sheet.over:
            return side
        for ply, who in zip(reversed(self.sheet.plies), reversed(self.played_by), strict=True):
            seat = self.rules.side_to_move(ply.before)
            if who == "human" and seat in humans:
                return seat
        return humans[0]

    # -- what the people at the table see -----------------------------------------------------
    def diagram(self, state: Any = None, last: Any = None) -> str:
        """The text diagram of ``state`` (default: now) as :attr:`viewer` sees it;
        ``last``: the position the last move was played from, marked on the board."""
        return self.game.diagram(
            self.sheet.state if state is None else state, self.viewer, last=last
        )

    def position(self) -> str:
        """The position notation as :attr:`viewer` sees it."""
        return self.game.format_position_for(self.sheet.state, self.viewer)

    def move_text(self, ply: Ply) -> str:
        """A ply's token as :attr:`viewer` sees it played."""
        return self.game.format_move_for(ply.before, ply.move, self.viewer)

    def ply_heading(self, ply: Ply) -> tuple[str, str]:
        """A ply's move number as a reader sees it (``12.``, ``12...``) and who played
        it (a seat's player, or ``chance``)."""
        side = self.rules.side_to_move(ply.before)
        who = "chance" if side < 0 else self.player(side)
        return move_label(self.rules, ply.before), who

    def events(self, ply: Ply) -> list[str]:
        """What a ply made happen, told to :attr:`viewer` (the rules' own words)."""
        return self.rules.events(ply.before, ply.move, ply.after, viewer=self.viewer)

    def playable_tokens(self) -> list[str]:
        """Every move the side to move can choose (the rules' ``playable_moves``); a
        person asked within an agent's move: his choices."""
        sheet = self.sheet
        if self.asked is not None:
            return list(self.asked.options)
        if sheet.over:
            return []
        state = sheet.state
        return [self.game.format_move(state, move) for move in self.playable_moves()]

    def playable_moves(self) -> list[Any]:
        """Every move the side to move can choose (the rules' ``playable_moves``),
        each once for the choices that are his: the agents make theirs within it
        (moves that differ only in an agent's part, its reward, are one), and a move
        that makes an agent's choice for it is left out (:meth:`_chosen_for_an_agent`)."""
        state = self.sheet.state
        rules = self.rules
        moves = list(rules.playable_moves(state))
        if not self.agents or type(rules).decisions is Rules.decisions:
            return moves
        kept: list[Any] = []
        seen: set[tuple[Any, ...]] = set()
        for move in moves:
            mine = tuple(
                None if step.side in self.agents else step.choice
                for step in rules.decisions(state, move)
            )
            if mine in seen or self._chosen_for_an_agent(state, move) is not None:
                continue
            seen.add(mine)
            kept.append(move)
        return kept

    # -- whose turn ------------------------------------------------------------------------------
    def turn(self) -> Turn:
        sheet = self.sheet
        if self.asked is not None:
            return Turn("answer", self.asked.seat)
        if sheet.over:
            return Turn("over")
        if sheet.forced_pass() is not None:
            return Turn("auto")
        side = sheet.side_to_move
        if side == CHANCE:
            return Turn("chance") if self.humans and self.open_table else Turn("auto")
        if side in self.agents:
            return Turn("auto", side)
        return Turn("human", side)

    def step(self) -> Ply | None:
        """Play the next ply that needs nobody at the table: a forced pass, an
        agent's move (see :meth:`_agents_move` for a hidden-information game), or a
        chance move drawn at random. ``None`` where the agent's move holds a
        person's choice: it waits for his answer (:meth:`question`)."""
        sheet = self.sheet
        state = sheet.state
        forced = sheet.forced_pass()
        side = sheet.side_to_move
        if self.asked is not None:
            raise PartitaError(f"{self.player(self.asked.seat)} is asked: {self.question()}")
        if forced is not None:
            move = forced
        elif side == CHANCE:
            move = self.rules.sample_move(state, self.rng)
        elif side in self.agents:
            move = self._agents_move(self.agents[side], state)
            if move is None:
                return None
        else:
            raise PartitaError(f"it is {self.player(side)}'s turn to type a move")
        ply = sheet.play_move(move)
        self.played_by.append("auto")
        return ply

    def _agents_move(self, agent: Agent, state: Any) -> Any:
        """The agent's choice, made from its own information; in a hidden-information
        game replaced by its best move playable on the real table where the one it
        chose is not (:func:`~partita.analysis.agents.playable_choice`). The choices
        in it that other agents make are theirs (:func:`~partita.analysis.agents.answered`);
        ``None`` where a person makes one: :attr:`asked` then holds the move."""
        history = self.sheet.history()
        move, replaced = playable_choice(agent, state, history=history)
        self.replaced += replaced
        return self._ask(state, answered(self.agents, state, move, history=history), 1)

    def _ask(self, state: Any, move: Any, start: int) -> Any:
        """``move``, or ``None`` with :attr:`asked` set where a person at the table
        makes one of its choices from ``start`` on."""
        rules = self.rules
        mover = rules.side_to_move(state)
        steps = rules.decisions(state, move)
        for index in range(start, len(steps)):
            seat = steps[index].side
            if seat in (mover, CHANCE) or seat in self.agents:
                continue
            options: dict[str, list[Any]] = {}
            for other in (move, *rules.answers(state, move, index)):
                options.setdefault(self.game.format_choice(state, other, index), []).append(other)
            if len(options) > 1:  # in label order: the agent's own guess stays unsaid
                self.asked = _Asked(state, move, index, seat, dict(sorted(options.items())))
                return None
        return move

    def question(self) -> str:
        """What a person asked within an agent's move is told: the move so far as he
        sees it, and his choices."""
        asked = self.asked
        if asked is None:
            return ""
        mover = self.rules.side_to_move(asked.state)
        done = self.game.format_asking(asked.state, asked.move, asked.index, asked.seat)
        played = f" plays {done}" if done else "'s move asks you"
        return (
            f"{self.player(mover)}{played}: {self.player(asked.seat)}, your choice: "
            + " or ".join(asked.options)
        )

    def _answer(self, text: str) -> Reply:
        """Make the person's choice within the agent's move, which then goes on as
        the agent chooses, and play the move (or ask the next question)."""
        asked = self.asked
        assert asked is not None
        group = asked.options.get(text)
        if group is None:
            raise PartitaError(
                f"'{text}' is not one of your choices here: " + " or ".join(asked.options)
            )
        state = asked.state
        mover = self.rules.side_to_move(state)
        if asked.move in group:
            move = asked.move
        elif len(group) == 1:
            move = group[0]
        else:  # the agent goes on after the person's choice
            move = self.agents[mover].choose(state, history=self.sheet.history(), within=group)
        self.asked = None
        move = self._ask(state, move, asked.index + 1)
        if move is None:
            return Reply(text=self.question(), changed=True)
        ply = self.sheet.play_move(move)
        self.played_by.append("auto")
        return Reply(plies=[ply], changed=True)

    def player(self, seat: int) -> str:
        """``Player2 (mcts:2000)``: the seat and who sits there."""
        return f"Player{seat + 1} ({self.sheet.players[seat]})"

    # -- what a person types ---------------------------------------------------------------------
    def handle(self, line: str) -> Reply:
        """Carry out one typed line (see :data:`COMMANDS`); ``PartitaError`` (a
        :class:`~partita.notation.replay.MoveRefused` for a move, with the problem
        `validate` reports) when it cannot be done."""
        text = line.strip()
        word, _, rest = text.partition(" ")
        word = word.lower()
        sheet = self.sheet
        turn = self.turn()
        if word in ("help", "?"):
            width = max(len(name) for name in COMMANDS)
            lines = [f"  {name:<{width}}  {what}" for name, what in COMMANDS.items()]
            return Reply(text="type a move, or:\n" + "\n".join(lines), answer=True)
        if word in _SAVE_WORDS and not rest:
            return Reply(finished=True)
        if word == "moves" and not rest:
            return Reply(text=self._moves_text(), answer=True)
        if word == "board" and not rest:
            return Reply(changed=True)
        if word == "position" and not rest:
            return Reply(text=self.position(), answer=True)
        if word == "comment":
            sheet.comment(rest)
            return Reply(text="comment written")
        if word == "undo" and not rest:
            return self._undo()
        if turn.kind == "answer":
            if word in ("resign", "draw") or _looks_like_result(word):
                raise PartitaError(f"answer first: {self.question()}")
            return self._answer(text)
        if word == "resign" and not rest:
            return self._claimed(sheet.resign())
        if word == "draw" and not rest:
            return self._claimed(sheet.agree_draw())
        if _looks_like_result(word):
            return self._claimed(sheet.claim_result(word, rest or None))
        if turn.kind == "chance" and (not text or (word == "random" and not rest)):
            drawn = self.step()  # a chance move: never waits for anybody
            return Reply(plies=[drawn] if drawn is not None else [], changed=True)
        if not text:
            return Reply()
        if turn.kind == "over":
            if sheet.claim is not None:
                raise PartitaError(
                    f"the game is over: {sheet.claim.termination} ({sheet.claim.result}); "
                    "undo takes the claim back"
                )
        elif turn.kind == "auto":
            raise PartitaError("it is not your turn: the agents and chance play now")
        plies, warnings = self._play_typed(text)
        self.played_by.extend("human" for _ in plies)
        return Reply(plies=plies, warnings=warnings, changed=True)

    def _play_typed(self, text: str) -> tuple[list[Ply], list[Problem]]:
        """Play a person's move; the choices in it that agents make (the answer to
        his raised stakes, the reward of an attack an agent won) are theirs
        (:func:`~partita.analysis.agents.answered`). A move that makes such a choice
        for an agent in a way that leaves it no other (declining for it, where
        accepting would have him go on) is refused: he writes how he goes on."""
        sheet = self.sheet
        rules = self.rules
        if not self.agents or type(rules).decisions is Rules.decisions or sheet.claim is not None:
            return sheet.play(text)
        made, _ = play_token(self.game, sheet.state, text.strip(), len(sheet.plies))
        if len(made) != 1:
            return sheet.play(text)
        state, move, _ = made[0]
        refused = self._chosen_for_an_agent(state, move)
        if refused is not None:
            raise PartitaError(refused)
        played = answered(self.agents, state, move, history=sheet.history())
        if played == move:
            return sheet.play(text)
        return [sheet.play_move(played)], []

    def completions(self, prefix: str) -> list[str]:
        """What a line starting with ``prefix`` can be: the legal moves (those the
        game lists) and the command words."""
        words = self._tokens() + list(_WORDS) + ["help"]
        return sorted({word for word in words if word.startswith(prefix)})

    def _tokens(self) -> list[str]:
        """The moves a person may type now: every playable move at a player's turn,
        the listed chance moves where people type chance."""
        turn = self.turn()
        if turn.kind in ("human", "answer"):
            return self.playable_tokens()
        if turn.kind == "chance":
            return self.sheet.legal_tokens()
        return []

    def _moves_text(self) -> str:
        turn = self.turn()
        if turn.kind == "over":
            return "no legal moves: the game is over"
        if turn.kind == "auto":
            return "no moves of yours now: the agents and chance play"
        tokens = self._tokens()
        if turn.kind == "chance":
            return "some of the chance moves: " + " ".join(tokens)
        if turn.kind == "answer":
            return "your choices: " + " ".join(tokens)
        every = type(self.rules).playable_moves is not Rules.playable_moves
        some = "" if self.sheet.lists_every_move or every else "some of the legal moves: "
        if len(tokens) <= 40 and max(map(len, tokens), default=0) <= 12:
            return some + " ".join(tokens)
        # Long lists one move a line, so that no token is ever cut across lines.
        return f"{some or ''}{len(tokens)} moves:\n" + "\n".join(tokens)

    def _chosen_for_an_agent(self, state: Any, move: Any) -> str | None:
        """Why a person may not play ``move``: it ends with a choice an agent makes
        (declining raised stakes for it) where its other choices would have him go
        on, which only he can write; ``None`` if he may."""
        rules = self.rules
        steps = rules.decisions(state, move)
        last = len(steps) - 1
        seat = steps[last].side
        if not last or seat not in self.agents or seat == rules.side_to_move(state):
            return None
        if not any(
            len(rules.decisions(state, other)) > last + 1
            for other in rules.answers(state, move, last)
        ):
            return None
        who = self.player(seat)
        return (
            f"'{self.game.format_choice(state, move, last)}' is {who}'s choice, and it may "
            f"choose to let you go on: write your turn as you would go on, and {who} chooses"
        )

    def _undo(self) -> Reply:
        sheet = self.sheet
        self.asked = None  # the agent's move waiting for an answer is not played
        if sheet.claim is not None:
            claim = sheet.undo()
            assert isinstance(claim, Claim)
            return Reply(
                text=f"claim {claim.result} ({claim.termination}) taken back", changed=True
            )
        humans = [index for index, who in enumerate(self.played_by) if who == "human"]
        if not humans:
            raise PartitaError("there is no move of yours to take back")
        taken = []
        while len(sheet.plies) > humans[-1]:
            ply = sheet.undo()
            assert isinstance(ply, Ply)
            self.played_by.pop()
            taken.append(ply.token)
        return Reply(text=f"taken back: {' '.join(reversed(taken))}", changed=True)

    def _claimed(self, claim: Claim) -> Reply:
        return Reply(text=f"result {claim.result} ({claim.termination})", changed=False)


def _looks_like_result(word: str) -> bool:
    """A result token's shape: ``*``, or fields of 1, 0 and 1/2 joined by ``-``."""
    if word == "*":
        return True
    fields = word.split("-")
    return len(fields) >= 2 and all(field in ("1", "0", "1/2") for field in fields)
