"""Forceball: the rules engine for the four leagues (little, junior, senior, pro).

A two-player card game: one attack after another, each a sequence of turns in
which the players answer each other's maneuvers until one cannot or will not;
periods end when a player must draw from the empty draw pile. The rulebook is
``rules/forceball.txt``; the readings of its gaps are in ``docs/forceball.md``.

Plies (moves) are of three kinds:

* :class:`Shuffle` (the ``CHANCE`` side): the order of the whole deck at the start
  of a period, top card first; the deal follows from it;
* :class:`FaceOff` (the ``CHANCE`` side, the two players' simultaneous choice):
  the card each player shows, Player1's first;
* :class:`Turn` (a player): the turn's actions in the order they happened, the
  winner's Lucky shot or Goalie and reward included when the attack ends within
  the turn.

Cards are the deck's indices inside states (``hands`` sorted by index, piles
bottom first except the draw pile, whose top is first); moves name cards by id,
as records do. Every card is in exactly one place at every moment (the draw
pile, the discard pile, a hand, a speed pile or a maneuver pile), which
:meth:`ForceballRules.card_places` exposes for the conservation tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from partita.errors import IllegalMoveError, SetupError, TagError
from partita.games.base import CHANCE, Outcome, Rules, TagSpec
from partita.games.forceball.cards import ATTACK_TYPES, DEFENCE_TYPES, Card, Deck

__all__ = [
    "LEAGUES",
    "TYPE_LETTERS",
    "FaceOff",
    "ForceballRules",
    "ForceballState",
    "Maneuver",
    "Shuffle",
    "Turn",
    "TurnSummary",
]

#: The leagues in order; each adds rules to the one before.
LEAGUES = ("little", "junior", "senior", "pro")
LITTLE, JUNIOR, SENIOR, PRO = range(4)
#: The default league of a record without a League tag (pro holds every rule, and
#: a game without raised stakes plays the same under pro as under senior).
DEFAULT_LEAGUE = "pro"
#: Cards dealt to each player at the start of a period and after a face-off ran dry.
DEAL = 7

#: One letter per maneuver type, as the notation writes a declared (foul) type.
TYPE_LETTERS = {
    "Shot": "S",
    "Pass": "P",
    "Dribble": "D",
    "Interception": "I",
    "Block": "B",
    "Tackle": "T",
}
TYPE_OF_LETTER = {letter: name for name, letter in TYPE_LETTERS.items()}

# Phases of a state.
SHUFFLE, FACEOFF, TURN, OVER = "shuffle", "faceoff", "turn", "over"

# -- actions of a turn (tuples: kind first) -------------------------------------------
DRAW = "draw"  # ("draw",): the draw at the start of the turn
SPEED_UP = "speed+"  # ("speed+", id): increase the speed with a card from the hand
SPEED_DOWN = "speed-"  # ("speed-",): decrease the speed
SPEED_SWAP = "speed~"  # ("speed~", id): restructure the speed
TRANSFORM = "transform"  # ("transform", n): transform the speed, drawing n
REHAND = "rehand"  # ("rehand", (ids...), n): restructure the hand, drawing n
PLAY = "play"  # ("play", id, declared type or None): make a maneuver
FORCE_SPEED = "force-speed"  # ("force-speed", n): n speed-pile cards onto the maneuver
FORCE_HAND = "force-hand"  # ("force-hand", id): a hand card onto the maneuver
REFEREE = "referee"  # ("referee", id): the card the referee check reveals
STAKES = "stakes"  # ("stakes", accepted): request raised stakes and the answer
END = "end"  # ("end",): the attack ends here (not responding, Stress, a seen foul)
SPECIAL = "special"  # ("special", id): the winner's Lucky shot or Goalie card
REWARD_HAND = "reward-hand"  # ("reward-hand", n): Pass/Block reward, n draws
REWARD_SPEED = "reward-speed"  # ("reward-speed", (ids...)): Dribble/Tackle reward
#: In a Dribble/Tackle reward: a draw attempted on the empty draw pile.
EMPTY = "_"

ADJUSTMENTS = (SPEED_UP, SPEED_DOWN, SPEED_SWAP, TRANSFORM, REHAND)
_ADJUSTMENT_WORDS = {
    SPEED_UP: "increasing the speed",
    SPEED_DOWN: "decreasing the speed",
    SPEED_SWAP: "restructuring the speed",
    TRANSFORM: "transforming the speed into maneuvers",
    REHAND: "restructuring the hand",
}


@dataclass(frozen=True, slots=True)
class Shuffle:
    """The deck order at the start of a period (``CHANCE``), top card first."""

    order: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FaceOff:
    """One showing of a face-off (``CHANCE``): Player1's card, Player2's card."""

    first: str
    second: str


@dataclass(frozen=True, slots=True)
class Turn:
    """One player's turn: its actions in order (see the action kinds above)."""

    actions: tuple[tuple, ...]


@dataclass(frozen=True, slots=True)
class Maneuver:
    """A maneuver on a maneuver pile: its card, the type it counts as (declared on a
    foul), whether it is a foul, the increase cards laid across it, its total force."""

    card: int
    type: str
    foul: bool
    increases: tuple[int, ...]
    force: int


@dataclass(frozen=True, slots=True)
class TurnSummary:
    """What one turn did, read off the rules (for statistics and reports).

    ``maneuver`` is the type the turn's maneuver counted as (the declared type on a
    foul), ``None`` without one. ``attack_won_by`` is the seat that won the attack
    in this turn (``None``: the attack goes on, or a declined doubling or the end of
    the period interrupted it); ``won_with`` the maneuver type it was won with after
    a Lucky shot or Goalie (``None``: the winner had no maneuver and takes the
    ball); ``ended_by`` how the turn gave the attack away: ``"no answer"``,
    ``"stress"`` or ``"foul seen"``. ``points`` are the points each seat scored in
    the turn (a goal, or a declined doubling).
    """

    seat: int
    attacker: int
    period: int
    maneuver: str | None
    foul: bool
    foul_seen: bool
    stakes_accepted: int
    stakes_declined: bool
    attack_won_by: int | None
    won_with: str | None
    special: str | None
    ended_by: str | None
    points: tuple[int, int]
    period_ended: bool


@dataclass(frozen=True, slots=True)
class ForceballState:
    """The whole table.

    ``draw`` lists the draw pile top first; ``discard`` and the speed and maneuver
    piles bottom first (their top is last); hands are sorted by deck order.
    ``period`` counts periods started (0 before the first shuffle); ``to_move`` is
    the seat to move in a turn (``CHANCE`` for a shuffle or a face-off).
    ``worth`` is what the next goal is worth, ``requester`` the seat that asked
    for the last doubling in this attack (-1: none); ``dealt`` is the size of
    the draw pile right after the period's deal (the referee's threshold).
    """

    ply: int
    phase: str
    to_move: int
    period: int
    scores: tuple[int, int]
    attacker: int
    worth: int
    requester: int
    dealt: int
    draw: tuple[int, ...]
    discard: tuple[int, ...]
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    speed: tuple[tuple[int, ...], tuple[int, ...]]
    piles: tuple[tuple[Maneuver, ...], tuple[Maneuver, ...]]


def _seat(seat: int) -> str:
    return f"Player{seat + 1}"


def _a(maneuver_type: str) -> str:
    """The type with its article: "a Shot", "an Interception"."""
    return f"an {maneuver_type}" if maneuver_type == "Interception" else f"a {maneuver_type}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


class ForceballRules(Rules):
    """Forceball for one deck and one league."""

    name: ClassVar[str] = "forceball"
    title: ClassVar[str] = "Forceball"
    tags: ClassVar[tuple[TagSpec, ...]] = (
        TagSpec("Deck", "the deck the game is played with", None, "example"),
        TagSpec(
            "League",
            "the league whose rules apply (each adds rules to the one before)",
            LEAGUES,
            DEFAULT_LEAGUE,
        ),
        TagSpec("FirstAttacker", "who attacks first in the little league", ("1", "2"), "1"),
    )
    notation_summary: ClassVar[str] = (
        "one token per turn: > draw, +c speed up, @c maneuver (=S foul), ^n/^c force, "
        "/ the attack ends; deck:... shuffles, face:c,c face-offs"
    )
    #: Hands, speed piles, the discard pile and the draw pile below its top are hidden.
    hidden_information: ClassVar[bool] = True

    def __init__(self, deck: Deck, league: str = DEFAULT_LEAGUE, first_attacker: int = 0) -> None:
        if league not in LEAGUES:
            raise ValueError(f"league must be one of {', '.join(LEAGUES)}, not {league!r}")
        if first_attacker not in (0, 1):
            raise ValueError("the first attacker is seat 0 or 1")
        self.deck = deck
        self.league = league
        self.level = LEAGUES.index(league)
        self.first_attacker = first_attacker
        self.periods = 1 if self.level == LITTLE else 3
        cards: tuple[Card, ...] = deck.cards
        self.cards = cards
        self.ids = tuple(card.id for card in cards)
        self.index = {card_id: i for i, card_id in enumerate(self.ids)}
        self.force = tuple(card.force for card in cards)
        self.speed_of = tuple(card.speed for card in cards)
        # Specials only act from the senior league on.
        active = self.level >= SENIOR
        self.stress = tuple(active and card.special == "stress" for card in cards)
        self.referee = tuple(active and card.special == "referee" for card in cards)
        self.lucky = tuple(active and card.special == "lucky-shot" for card in cards)
        self.goalie = tuple(active and card.special == "goalie" for card in cards)

    # -- configuration ----------------------------------------------------------------
    def configure(self, tags: Mapping[str, str]) -> ForceballRules:
        """The engine for these League and FirstAttacker tags (the Deck tag is the
        notation's business: it resolves the deck and calls :meth:`with_deck`)."""
        league = tags.get("League", DEFAULT_LEAGUE)
        if league not in LEAGUES:
            raise TagError(f"league '{league}' is not one of {', '.join(LEAGUES)}", "League")
        first = tags.get("FirstAttacker", "1")
        if first not in ("1", "2"):
            raise TagError(f"FirstAttacker '{first}' must be 1 or 2", "FirstAttacker")
        if "FirstAttacker" in tags and league != "little":
            raise TagError(
                f"FirstAttacker is a little league tag: in the {league} league a "
                "face-off decides who attacks first",
                "FirstAttacker",
            )
        seat = int(first) - 1
        if league == self.league and seat == self.first_attacker:
            return self
        return ForceballRules(self.deck, league, seat)

    def with_deck(self, deck: Deck) -> ForceballRules:
        if deck == self.deck:
            return self
        return ForceballRules(deck, self.league, self.first_attacker)

    # -- states -----------------------------------------------------------------------
    def initial(self, sides: int = 2) -> ForceballState:
        """Before the first shuffle: the deck lies in the draw pile in file order."""
        if sides != 2:
            raise SetupError(f"Forceball is played by 2 sides, not {sides}")
        return ForceballState(
            ply=0,
            phase=SHUFFLE,
            to_move=CHANCE,
            period=0,
            scores=(0, 0),
            attacker=self.first_attacker,
            worth=1,
            requester=-1,
            dealt=0,
            draw=tuple(range(len(self.cards))),
            discard=(),
            hands=((), ()),
            speed=((), ()),
            piles=((), ()),
        )

    def sides(self, state: ForceballState) -> int:
        return 2

    def side_to_move(self, state: ForceballState) -> int:
        return state.to_move

    def ply(self, state: ForceballState) -> int:
        return state.ply

    def move_number(self, state: ForceballState) -> tuple[int, bool]:
        """Forceball numbers turns: every ply (shuffles and face-offs too) has its own."""
        return state.ply + 1, True

    def key(self, state: ForceballState) -> tuple:
        return (
            state.phase,
            state.to_move,
            state.period,
            state.scores,
            state.attacker,
            state.worth,
            state.requester,
            state.dealt,
            state.draw,
            state.discard,
            state.hands,
            state.speed,
            tuple(
                tuple((m.card, m.type, m.foul, m.increases) for m in pile) for pile in state.piles
            ),
        )

    def outcome(self, state: ForceballState) -> Outcome | None:
        if state.phase != OVER:
            return None
        first, second = state.scores
        periods = _plural(self.periods, "period")
        if first == second:
            return Outcome.draw(2, f"{first}-{second} on points after {periods}")
        winner = 0 if first > second else 1
        return Outcome.win_for(
            winner, 2, f"{_seat(winner)} wins {first}-{second} on points after {periods}"
        )

    def card_places(self, state: ForceballState) -> list[int]:
        """Every card index wherever it lies (each exactly once in a sound state)."""
        places = list(state.draw) + list(state.discard)
        for seat in (0, 1):
            places += state.hands[seat]
            places += state.speed[seat]
            for maneuver in state.piles[seat]:
                places.append(maneuver.card)
                places += maneuver.increases
        return places

    def force_to_beat(self, state: ForceballState) -> int:
        """The total force of the opponent's last maneuver (0 if he has none)."""
        if state.phase != TURN:
            return 0
        pile = state.piles[1 - state.to_move]
        return pile[-1].force if pile else 0

    def referee_pile(self, state: ForceballState) -> str:
        """Which pile the referee check uses now: ``draw`` or ``discard``."""
        return "discard" if 2 * len(state.draw) < state.dealt else "draw"

    # -- setup ----------------------------------------------------------------------------
    def setup(self, **fields: Any) -> ForceballState:
        """A state from its fields (position notation), checked: every card exactly
        once, phase and seats consistent. ``SetupError`` with the reason otherwise."""
        state = ForceballState(ply=0, **fields)
        if state.phase not in (SHUFFLE, FACEOFF, TURN):
            raise SetupError(
                f"the next thing to happen is a shuffle, a face-off or a turn, not {state.phase}"
            )
        if state.phase == TURN and state.to_move not in (0, 1):
            raise SetupError("a turn is taken by Player1 or Player2")
        if state.phase != TURN and state.to_move != CHANCE:
            raise SetupError("only a turn has a player to move")
        if not 0 <= state.period <= self.periods:
            raise SetupError(
                f"period {state.period}: the {self.league} league has {_plural(self.periods, 'period')}"
            )
        if state.phase != SHUFFLE and state.period == 0:
            raise SetupError("no period has started: the next thing is the shuffle")
        if state.phase == FACEOFF and self.level == LITTLE:
            raise SetupError("the little league has no face-off")
        if state.phase == FACEOFF and not (state.hands[0] and state.hands[1]):
            raise SetupError("a face-off needs a card in each hand")
        if min(state.scores) < 0:
            raise SetupError("scores are not negative")
        if state.worth < 1 or state.worth & (state.worth - 1):
            raise SetupError(f"a goal is worth 1, 2, 4, ... points, not {state.worth}")
        if self.level < PRO and (state.worth != 1 or state.requester != -1):
            raise SetupError("raised stakes are a pro league rule")
        if (state.worth == 1) != (state.requester == -1):
            raise SetupError("a doubled goal worth needs the player who asked for the doubling")
        seen: dict[int, int] = {}
        for card in self.card_places(state):
            seen[card] = seen.get(card, 0) + 1
        for card, count in seen.items():
            if count > 1:
                raise SetupError(f"card {self.ids[card]} lies in {count} places")
        missing = [self.ids[card] for card in range(len(self.cards)) if card not in seen]
        if missing:
            raise SetupError(f"card {missing[0]} is nowhere on the table")
        for seat in (0, 1):
            for maneuver in state.piles[seat]:
                if state.phase == FACEOFF:
                    raise SetupError("maneuver piles are empty at a face-off")
                card = self.cards[maneuver.card]
                if maneuver.foul == card.has_type(maneuver.type):
                    raise SetupError(
                        f"maneuver {self.ids[maneuver.card]}: a foul declares a type the card does not have"
                    )
        if state.phase == TURN:
            mover = state.to_move
            lengths = (len(state.piles[0]), len(state.piles[1]))
            attacker = state.attacker
            # maneuvers alternate, the attacker's first; the mover answers the last one
            made = lengths[attacker] + lengths[1 - attacker]
            if lengths[attacker] - lengths[1 - attacker] not in (0, 1):
                raise SetupError("maneuvers alternate within an attack, the attacker's first")
            expected = attacker if made % 2 == 0 else 1 - attacker
            if mover != expected:
                raise SetupError(
                    f"{_seat(mover)} cannot be to move: {_seat(expected)} answers the last maneuver"
                )
        return state

    # -- moves ----------------------------------------------------------------------------
    def legal_moves(self, state: ForceballState) -> Sequence[Any]:
        """A representative subset (see :meth:`sample_move`): the file-order shuffle;
        every pair of face-off cards; for a turn, not responding and every card
        played as it is, each with and without the draw."""
        if state.phase == OVER:
            return ()
        if state.phase == SHUFFLE:
            return (Shuffle(tuple(self.ids[i] for i in sorted(state.draw))),)
        if state.phase == FACEOFF:
            ids = self.ids
            return tuple(FaceOff(ids[a], ids[b]) for a in state.hands[0] for b in state.hands[1])
        candidates = [Turn(((END,),)), Turn(((DRAW,), (END,))), Turn(((DRAW,),))]
        for card in state.hands[state.to_move]:
            play = (PLAY, self.ids[card], None)
            candidates.append(Turn((play,)))
            candidates.append(Turn(((DRAW,), play)))
        return tuple(move for move in candidates if self.illegal_reason(state, move) is None)

    def sample_move(self, state: ForceballState, rng: Any) -> Any:
        """A random legal move: a random deck order, random face-off cards, or a
        turn built action by action (:mod:`partita.games.forceball.rules` ``_sample_turn``)."""
        if state.phase == SHUFFLE:
            order = [self.ids[i] for i in range(len(self.cards))]
            rng.shuffle(order)
            return Shuffle(tuple(order))
        if state.phase == FACEOFF:
            return FaceOff(
                self.ids[rng.choice(state.hands[0])], self.ids[rng.choice(state.hands[1])]
            )
        if state.phase == TURN:
            move = _sample_turn(self, state, rng)
            if move is not None and self.illegal_reason(state, move) is None:
                return move
        return rng.choice(list(self.legal_moves(state)))

    def determinize(self, state: ForceballState, side: int, rng: Any, history: Any = ()) -> Any:
        """A table ``side`` cannot tell from ``state`` (:mod:`.determinize`)."""
        from partita.games.forceball.determinize import determinize

        return determinize(self, state, side, rng, history)

    def illegal_reason(self, state: ForceballState, move: object) -> str | None:
        result = self._resolve(state, move)
        return result if isinstance(result, str) else None

    def apply(self, state: ForceballState, move: Any) -> ForceballState:
        """The state after a legal move. A turn is resolved action by action on
        mutable copies of the table; the checks along the way cost little next to
        that, so the trusted path is the checked one (and refuses an illegal move
        with ``ValueError`` rather than corrupting the table)."""
        result = self._resolve(state, move)
        if isinstance(result, str):
            raise ValueError(f"apply() was given an illegal move: {result}")
        return result

    def play(self, state: ForceballState, move: Any) -> ForceballState:
        """Checked path in one pass: the state after ``move`` or ``IllegalMoveError``."""
        result = self._resolve(state, move)
        if isinstance(result, str):
            raise IllegalMoveError(result)
        return result

    def _resolve(self, state: ForceballState, move: object) -> ForceballState | str:
        """The state after ``move``, or why it is illegal."""
        outcome = self.outcome(state)
        if outcome is not None:
            return f"the game is over: {outcome.reason}"
        if isinstance(move, Shuffle):
            if state.phase != SHUFFLE:
                return "no shuffle now: the deck is shuffled only at the start of a period"
            return self._shuffle(state, move)
        if isinstance(move, FaceOff):
            if state.phase != FACEOFF:
                return "no face-off now: a face-off opens a period after the shuffle"
            return self._face_off(state, move)
        if isinstance(move, Turn):
            if state.phase != TURN:
                expected = "the shuffle" if state.phase == SHUFFLE else "the face-off"
                return f"no turn now: {expected} comes first"
            runner = self._run_turn(state, move)
            return runner if isinstance(runner, str) else runner.freeze()
        return f"{move!r} is no Forceball move"

    def _run_turn(self, state: ForceballState, move: Turn) -> _TurnRunner | str:
        """The turn played action by action on a runner (the table after it, and
        what happened in it), or why it is illegal."""
        runner = _TurnRunner(self, state)
        for action in move.actions:
            reason = runner.step(action)
            if reason is not None:
                return reason
        return runner.finish() or runner

    def summarize(self, state: ForceballState, move: Any) -> TurnSummary | None:
        """What a turn of a player did (see :class:`TurnSummary`); ``None`` for a
        shuffle, a face-off or an illegal move."""
        if not isinstance(move, Turn) or state.phase != TURN or self.outcome(state) is not None:
            return None
        runner = self._run_turn(state, move)
        if isinstance(runner, str):
            return None
        played = [action for action in move.actions if action[0] == PLAY]
        maneuver = None
        foul = False
        if played:
            card_id, declared = played[-1][1], played[-1][2]
            foul = declared is not None
            maneuver = declared or self._played_type(state, card_id)
        won = runner.winner if runner.ended else None
        return TurnSummary(
            seat=state.to_move,
            attacker=state.attacker,
            period=state.period,
            maneuver=maneuver,
            foul=foul,
            foul_seen=runner.end_cause == "foul seen",
            stakes_accepted=sum(1 for a in move.actions if a[0] == STAKES and a[1]),
            stakes_declined=any(a[0] == STAKES and not a[1] for a in move.actions),
            attack_won_by=won,
            won_with=runner.win_type if won is not None else None,
            special=runner.special_type,
            ended_by=runner.end_cause if won is not None else None,
            points=(runner.scores[0] - state.scores[0], runner.scores[1] - state.scores[1]),
            period_ended=runner.phase in (SHUFFLE, OVER) and runner.stage == runner.DONE,
        )

    def _played_type(self, state: ForceballState, card_id: str) -> str:
        """The type a card played without a declaration counts as for its player:
        a combo card is the attack type for the attacker, the defence type else."""
        card = self.deck.card(card_id)
        if len(card.types) == 1:
            return card.types[0]
        attacking = state.to_move == state.attacker
        return (card.attack_type if attacking else card.defence_type) or card.types[0]

    def _shuffle(self, state: ForceballState, move: Shuffle) -> ForceballState | str:
        index = self.index
        order = []
        for card_id in move.order:
            card = index.get(card_id)
            if card is None:
                return f"the shuffle names {card_id}, which is not in deck '{self.deck.name}'"
            order.append(card)
        if len(set(order)) != len(order):
            twice = next(c for c in move.order if move.order.count(c) > 1)
            return f"the shuffle names {twice} twice"
        if len(order) != len(self.cards):
            missing = next(i for i in self.ids if i not in move.order)
            return f"the shuffle leaves out {missing}: it must order all {len(self.cards)} cards"
        hands = (tuple(sorted(order[0 : 2 * DEAL : 2])), tuple(sorted(order[1 : 2 * DEAL : 2])))
        draw = tuple(order[2 * DEAL :])
        little = self.level == LITTLE
        return ForceballState(
            ply=state.ply + 1,
            phase=TURN if little else FACEOFF,
            to_move=self.first_attacker if little else CHANCE,
            period=state.period + 1,
            scores=state.scores,
            attacker=self.first_attacker,
            worth=1,
            requester=-1,
            dealt=len(draw),
            draw=draw,
            discard=(),
            hands=hands,
            speed=((), ()),
            piles=((), ()),
        )

    def _face_off(self, state: ForceballState, move: FaceOff) -> ForceballState | str:
        shown = []
        for seat, card_id in enumerate((move.first, move.second)):
            card = self.index.get(card_id)
            if card is None:
                return f"{card_id} is not a card of deck '{self.deck.name}'"
            if card not in state.hands[seat]:
                return f"{_seat(seat)} cannot show {card_id} at the face-off: it is not in his hand"
            shown.append(card)
        hands = [list(state.hands[0]), list(state.hands[1])]
        hands[0].remove(shown[0])
        hands[1].remove(shown[1])
        discard = state.discard + tuple(shown)
        forces = [
            self.force[card] if self.cards[card].attack_type is not None else None for card in shown
        ]
        winner = None
        if forces[0] is not None and (forces[1] is None or forces[0] > forces[1]):
            winner = 0
        elif forces[1] is not None and (forces[0] is None or forces[1] > forces[0]):
            winner = 1
        draw = state.draw
        phase, to_move, attacker = FACEOFF, CHANCE, state.attacker
        if winner is not None:
            phase, to_move, attacker = TURN, winner, winner
        elif not hands[0] or not hands[1]:
            # a player has no card left to show: 7 more cards each, one at a time
            pile = list(draw)
            for _ in range(DEAL):
                for seat in (0, 1):
                    if not pile:
                        phase = OVER if state.period >= self.periods else SHUFFLE
                        break
                    hands[seat].append(pile.pop(0))
                if phase != FACEOFF:
                    break
            draw = tuple(pile)
        return ForceballState(
            ply=state.ply + 1,
            phase=phase,
            to_move=to_move if phase in (TURN, FACEOFF) else (CHANCE if phase == SHUFFLE else 0),
            period=state.period,
            scores=state.scores,
            attacker=attacker,
            worth=1,
            requester=-1,
            dealt=state.dealt,
            draw=draw,
            discard=discard,
            hands=(tuple(sorted(hands[0])), tuple(sorted(hands[1]))),
            speed=state.speed,
            piles=state.piles,
        )

    # -- display ----------------------------------------------------------------------------
    def card_text(self, card: int) -> str:
        """``c17 (Shot 4/2, referee)``: id, type(s), force/speed, special."""
        info = self.cards[card]
        special = f", {info.special}" if info.special else ""
        return f"{info.id} ({'/'.join(info.types)} {info.force}/{info.speed}{special})"

    def maneuver_text(self, maneuver: Maneuver) -> str:
        text = self.ids[maneuver.card]
        if maneuver.foul:
            text += f" as {_a(maneuver.type)} (foul)"
        else:
            text += f" {maneuver.type}"
        if maneuver.increases:
            text += " + " + " ".join(self.ids[c] for c in maneuver.increases)
        return f"{text} = force {maneuver.force}"

    def diagram(self, state: ForceballState) -> str:
        ids = self.ids
        lines = [
            f"Forceball, {self.league} league, deck '{self.deck.name}'",
            f"period {state.period} of {self.periods}; score {state.scores[0]}-{state.scores[1]}",
        ]
        if state.phase == OVER:
            lines.append(f"game over: {self.outcome(state).reason}")
        elif state.phase == SHUFFLE:
            lines.append("next: the shuffle of a new period")
        elif state.phase == FACEOFF:
            lines.append("next: a face-off (both players show a card)")
        else:
            beat = self.force_to_beat(state)
            lines.append(
                f"{_seat(state.attacker)} attacks; {_seat(state.to_move)} to move; "
                f"force to beat {beat}; a goal is worth {state.worth}"
                + (f" (doubled last by {_seat(state.requester)})" if state.requester >= 0 else "")
            )
        top = ids[state.draw[0]] if state.draw else "-"
        lines.append(
            f"draw pile {len(state.draw)} (top {top}; dealt {state.dealt}, referee uses the "
            f"{self.referee_pile(state)} pile); discard pile {len(state.discard)}"
        )
        for seat in (0, 1):
            hand = " ".join(self.card_text(c) for c in state.hands[seat]) or "-"
            speed = " ".join(ids[c] for c in state.speed[seat]) or "-"
            pile = "; ".join(self.maneuver_text(m) for m in state.piles[seat]) or "-"
            lines.append(f"{_seat(seat)}: hand {hand}")
            lines.append(f"  speed {len(state.speed[seat])} (bottom to top: {speed})")
            lines.append(f"  maneuvers: {pile}")
        return "\n".join(lines)


class _TurnRunner:
    """Plays one turn action by action on mutable copies of the table, checking
    each rule; :meth:`freeze` gives the state after it."""

    # stages of a turn
    START, DRAWN, ADJUSTED, PLAYED, CLOSED, NEED_END, WON, DONE = range(8)

    def __init__(self, rules: ForceballRules, state: ForceballState) -> None:
        self.rules = rules
        self.state = state
        self.mover = state.to_move
        self.draw = list(state.draw)
        self.discard = list(state.discard)
        self.hands = [list(state.hands[0]), list(state.hands[1])]
        self.speed = [list(state.speed[0]), list(state.speed[1])]
        self.piles = [list(state.piles[0]), list(state.piles[1])]
        self.scores = list(state.scores)
        self.attacker = state.attacker
        self.worth = state.worth
        self.requester = state.requester
        self.phase = TURN
        self.to_move = state.to_move
        self.stage = self.START
        self.must_draw = not state.hands[self.mover]
        self.beat = rules.force_to_beat(state)
        self.maneuver: list | None = None  # [card, type, foul, increases, force]
        self.why_over = ""  # why the turn cannot go on
        self.winner = -1
        self.win_type: str | None = None  # the winner's maneuver type, None: no maneuver
        self.special_played = False
        self.special_type: str | None = None  # "Lucky shot" or "Goalie" once played
        self.rewarded = False
        self.ended = False  # '/' was written: the attack was won in this turn
        self.end_cause: str | None = None  # how the mover gave the attack away

    # -- helpers ----------------------------------------------------------------------
    def _card(self, card_id: str) -> int | None:
        return self.rules.index.get(card_id)

    def _in_hand(self, card_id: str, doing: str) -> tuple[int | None, str | None]:
        card = self._card(card_id)
        if card is None:
            return None, f"{card_id} is not a card of deck '{self.rules.deck.name}'"
        if card not in self.hands[self.mover]:
            return None, f"{card_id} cannot be {doing}: it is not in your hand"
        return card, None

    def _needs(self, level: int, what: str) -> str | None:
        if self.rules.level < level:
            return (
                f"{what} is a {LEAGUES[level]} league rule, not in the {self.rules.league} league"
            )
        return None

    def _end_period(self) -> None:
        self.phase = OVER if self.state.period >= self.rules.periods else SHUFFLE
        self.stage = self.DONE
        self.why_over = "the draw pile was empty, so the period ended"

    def _draws(self, count: int, what: str, stress_counts: bool) -> str | None:
        """Draw ``count`` cards one at a time into the hand: an empty pile ends the
        period, a Stress card (during an attack) ends the turn."""
        for number in range(1, count + 1):
            if not self.draw:
                if number < count:
                    return (
                        f"{what}: the draw pile was empty at draw {number}, which ended "
                        f"the period; write {number} draws"
                    )
                self._end_period()
                return None
            card = self.draw.pop(0)
            self.hands[self.mover].append(card)
            if stress_counts and self.rules.stress[card]:
                if number < count:
                    return (
                        f"{what}: draw {number} was the Stress card {self.rules.ids[card]}, "
                        f"which ended your turn; write {number} draws"
                    )
                self._stressed(card)
        return None

    def _stressed(self, card: int) -> None:
        self.end_cause = "stress"
        self.stage = self.NEED_END
        self.why_over = f"you drew the Stress card {self.rules.ids[card]}, which ended your turn"
        self._lose_attack()

    def _lose_attack(self) -> None:
        """The mover's turn ends without a standing maneuver: the opponent wins the
        attack with his last maneuver (without one he takes the ball)."""
        opponent = 1 - self.mover
        self.winner = opponent
        pile = self.piles[opponent]
        self.win_type = pile[-1].type if pile else None

    # -- one action --------------------------------------------------------------------
    def step(self, action: tuple) -> str | None:
        kind = action[0]
        stage = self.stage
        if stage == self.DONE:
            return f"nothing can follow here: {self.why_over}"
        if stage == self.CLOSED:
            if kind in (FORCE_SPEED, FORCE_HAND):
                return "the force is increased before the referee check, never after it"
            return f"nothing can follow here: {self.why_over}"
        if stage == self.NEED_END and kind != END:
            return f"{self.why_over}: write '/' before anything else"
        if self.must_draw and kind != DRAW:
            return "your hand is empty, so your turn starts with a draw ('>')"
        if stage == self.WON and kind not in (SPECIAL, REWARD_HAND, REWARD_SPEED):
            return (
                "the attack is over: after '/' come only the winner's Lucky shot or "
                "Goalie and reward"
            )
        handler = self._HANDLERS.get(kind)
        if handler is None:
            return f"{action!r} is no Forceball action"
        return handler(self, action)

    def _do_draw(self, action: tuple) -> str | None:
        if self.stage != self.START:
            return "a draw ('>') comes first in the turn: you draw at most one card before adjusting the speed"
        self.must_draw = False
        self.stage = self.DRAWN
        return self._draws(1, "the draw", True)

    def _adjusting(self, kind: str) -> str | None:
        if self.stage >= self.ADJUSTED:
            if self.stage == self.ADJUSTED:
                return f"{_ADJUSTMENT_WORDS[kind]}: you may adjust the speed only once per turn"
            return f"{_ADJUSTMENT_WORDS[kind]}: the speed is adjusted before the maneuver"
        if kind != SPEED_UP:
            reason = self._needs(JUNIOR, _ADJUSTMENT_WORDS[kind])
            if reason:
                return reason
        self.stage = self.ADJUSTED
        return None

    def _do_speed_up(self, action: tuple) -> str | None:
        reason = self._adjusting(SPEED_UP)
        if reason:
            return reason
        card, reason = self._in_hand(action[1], "put on your speed pile")
        if reason:
            return reason
        self.hands[self.mover].remove(card)
        self.speed[self.mover].append(card)
        return None

    def _do_speed_down(self, action: tuple) -> str | None:  # "speed-": decrease
        reason = self._adjusting(SPEED_DOWN)
        if reason:
            return reason
        speed = self.speed[self.mover]
        if not speed:
            return "you cannot decrease the speed: your speed pile is empty"
        self.hands[self.mover].append(speed.pop())
        return None

    def _do_speed_swap(self, action: tuple) -> str | None:
        reason = self._adjusting(SPEED_SWAP)
        if reason:
            return reason
        card, reason = self._in_hand(action[1], "swapped onto your speed pile")
        if reason:
            return reason
        speed = self.speed[self.mover]
        if not speed:
            return f"{action[1]} cannot restructure the speed: your speed pile is empty"
        hand = self.hands[self.mover]
        hand.remove(card)
        hand.append(speed.pop())
        speed.append(card)
        return None

    def _do_transform(self, action: tuple) -> str | None:
        reason = self._adjusting(TRANSFORM)
        if reason:
            return reason
        count = action[1]
        if count > 2:
            return f"transforming the speed draws up to 2 cards, not {count}"
        speed = self.speed[self.mover]
        if not speed:
            return "you cannot transform the speed: your speed pile is empty"
        self.discard.append(speed.pop())
        return self._draws(count, "transforming the speed", True)

    def _do_rehand(self, action: tuple) -> str | None:
        reason = self._adjusting(REHAND)
        if reason:
            return reason
        cards, count = action[1], action[2]
        if not cards:
            return "restructuring the hand discards at least one card"
        if len(set(cards)) != len(cards):
            return "restructuring the hand: a card is named twice"
        for card_id in cards:
            card, reason = self._in_hand(card_id, "discarded")
            if reason:
                return reason
            self.hands[self.mover].remove(card)
            self.discard.append(card)
        if count > len(cards):
            return (
                f"restructuring the hand: you discarded {_plural(len(cards), 'card')}, "
                f"so you may draw up to {len(cards)}, not {count}"
            )
        return self._draws(count, "restructuring the hand", True)

    def _do_play(self, action: tuple) -> str | None:
        card_id, declared = action[1], action[2]
        if self.stage >= self.PLAYED:
            return f"{card_id}: you make one maneuver per turn"
        card, reason = self._in_hand(card_id, "played")
        if reason:
            return reason
        rules = self.rules
        info = rules.cards[card]
        attacking = self.mover == self.attacker
        role = "attacker" if attacking else "defender"
        allowed = ATTACK_TYPES if attacking else DEFENCE_TYPES
        if declared is None:
            kind = info.attack_type if attacking else info.defence_type
            if kind is None:
                return (
                    f"{card_id} ({'/'.join(info.types)}) cannot be played: as the {role} "
                    f"you make only {', '.join(allowed)}"
                )
            foul = False
        else:
            if declared in info.types:
                return f"{card_id} is {_a(declared)}: '={TYPE_LETTERS[declared]}' marks a foul only"
            reason = self._needs(SENIOR, "fouling")
            if reason:
                return f"{card_id} cannot be played as {_a(declared)}: {reason}"
            if declared not in allowed:
                return (
                    f"{card_id} cannot be played as {_a(declared)}: as the {role} you may "
                    f"make only {', '.join(allowed)}, foul or not"
                )
            kind, foul = declared, True
        speed = len(self.speed[self.mover])
        if speed < info.speed:
            return (
                f"{card_id} cannot be played as {_a(kind)}: your speed is {speed} and it "
                f"needs {info.speed}"
            )
        self.hands[self.mover].remove(card)
        self.maneuver = [card, kind, foul, [], info.force]
        self.stage = self.PLAYED
        return None

    def _increasing(self, what: str) -> str | None:
        if self.stage != self.PLAYED:
            return f"{what}: the force is increased only right after playing your maneuver"
        return self._needs(JUNIOR, "increasing the force")

    def _do_force_speed(self, action: tuple) -> str | None:
        count = action[1]
        reason = self._increasing(f"^{count}")
        if reason:
            return reason
        speed = self.speed[self.mover]
        if count > len(speed):
            return (
                f"^{count}: you cannot increase the force with {_plural(count, 'speed card')}: "
                f"your speed pile holds {len(speed)}"
            )
        if count < 1:
            return "^0 increases nothing"
        for _ in range(count):
            card = speed.pop()
            self.maneuver[3].append(card)
            self.maneuver[4] += self.rules.speed_of[card]
        return None

    def _do_force_hand(self, action: tuple) -> str | None:
        card_id = action[1]
        reason = self._increasing(f"^{card_id}")
        if reason:
            return reason
        card, reason = self._in_hand(card_id, "laid on your maneuver")
        if reason:
            return reason
        kind = self.maneuver[1]
        info = self.rules.cards[card]
        if not info.has_type(kind):
            return (
                f"{card_id} ({'/'.join(info.types)}) cannot increase the force of {_a(kind)}: "
                f"cards from the hand must be {_a(kind)}"
            )
        self.hands[self.mover].remove(card)
        self.maneuver[3].append(card)
        self.maneuver[4] += info.speed
        return None

    def _check_force(self) -> str | None:
        card, kind, _, _, force = self.maneuver
        if force < self.beat:
            card_id = self.rules.ids[card]
            return (
                f"{card_id} cannot be played as {_a(kind)}: its force is {force} and the "
                f"force to beat is {self.beat}"
            )
        return None

    def _do_referee(self, action: tuple) -> str | None:
        card_id = action[1]
        if self.stage != self.PLAYED or not self.maneuver[2]:
            return f"the referee check (':{card_id}') follows a foul only"
        reason = self._check_force()
        if reason:
            return reason
        card = self._card(card_id)
        pile_name = self.referee_pile()
        pile = self.draw if pile_name == "draw" else self.discard
        if card is None or card not in pile:
            return (
                f"the referee check reveals a card of the {pile_name} pile, and {card_id} "
                "is not in it"
            )
        self._stand_maneuver()
        if self.rules.referee[card]:
            # seen: the maneuver and its increases are forfeit
            maneuver = self.piles[self.mover].pop()
            self.discard.append(maneuver.card)
            self.discard.extend(maneuver.increases)
            self.stage = self.NEED_END
            self.end_cause = "foul seen"
            self.why_over = f"the referee saw the foul ({card_id})"
            self._lose_attack()
        else:
            self.stage = self.CLOSED
            self.why_over = f"the referee check ({card_id}) ended your turn"
        return None

    def referee_pile(self) -> str:
        """The pile the referee check uses now (see :meth:`ForceballRules.referee_pile`)."""
        return "discard" if 2 * len(self.draw) < self.state.dealt else "draw"

    def _stand_maneuver(self) -> None:
        card, kind, foul, increases, force = self.maneuver
        self.piles[self.mover].append(Maneuver(card, kind, foul, tuple(increases), force))
        self.maneuver = None

    def _do_stakes(self, action: tuple) -> str | None:
        accepted = action[1]
        reason = self._needs(PRO, "raising the stakes")
        if reason:
            return reason
        if self.stage > self.PLAYED:
            return "raised stakes are requested before the turn's maneuver is complete"
        if self.requester == self.mover:
            return "you asked for the last doubling: the same player never doubles twice in a row"
        if accepted:
            self.worth *= 2
            self.requester = self.mover
            return None
        # declined: the attack is interrupted, the requester scores the current worth
        self.scores[self.mover] += self.worth
        if self.maneuver is not None:
            self._stand_maneuver()
        self._next_attack(1 - self.mover)
        self.stage = self.DONE
        self.why_over = "the raised stakes were declined, which ended the attack"
        return None

    def _do_end(self, action: tuple) -> str | None:
        if self.stage == self.PLAYED:
            return "'/' ends an attack, but your maneuver stands: the opponent answers it"
        if self.stage in (self.WON, self.DONE):
            return "'/' is written once"
        if self.stage != self.NEED_END:
            self._lose_attack()  # not responding
            self.end_cause = "no answer"
        self.stage = self.WON
        self.ended = True
        if self.win_type is None:
            self.attacker = self.winner  # no maneuver to win with: he takes the ball
        elif self.win_type in ("Shot",):
            self._goal()
        elif self.win_type == "Interception":
            self.attacker = self.winner
        return None

    def _goal(self) -> None:
        self.scores[self.winner] += self.worth
        self.attacker = 1 - self.winner
        for seat in (0, 1):
            self.hands[seat].extend(self.speed[seat])
            self.speed[seat] = []

    def _do_special(self, action: tuple) -> str | None:
        card_id = action[1]
        if self.stage != self.WON:
            return f"|{card_id}: Lucky shot and Goalie are played once the attack is won"
        if self.special_played or self.rewarded:
            return f"|{card_id}: Lucky shot or Goalie comes once, before the reward"
        reason = self._needs(SENIOR, "playing a Lucky shot or a Goalie")
        if reason:
            return reason
        rules = self.rules
        card = self._card(card_id)
        winner = self.winner
        if card is None or card not in self.hands[winner]:
            return f"{card_id} is not in the hand of {_seat(winner)}, who won the attack"
        if winner == self.attacker and self.win_type in ("Pass", "Dribble"):
            if not rules.lucky[card]:
                return f"{card_id} has no Lucky shot symbol"
            new_type = "Shot"
        elif winner != self.attacker and self.win_type in ("Block", "Tackle"):
            if not rules.goalie[card]:
                return f"{card_id} has no Goalie symbol"
            new_type = "Interception"
        else:
            return (
                f"{card_id}: Lucky shot turns an attacker's won Pass or Dribble into a Shot and "
                f"Goalie a defender's won Block or Tackle into an Interception; {self._won()}"
            )
        self.hands[winner].remove(card)
        pile = self.piles[winner]
        last = pile[-1]
        pile[-1] = Maneuver(last.card, last.type, last.foul, last.increases + (card,), last.force)
        self.special_played = True
        self.special_type = "Lucky shot" if new_type == "Shot" else "Goalie"
        self.win_type = new_type
        if new_type == "Shot":
            self._goal()
        else:
            self.attacker = winner
        return None

    def _won(self) -> str:
        """How the attack was won, for messages."""
        who = _seat(self.winner)
        if self.win_type is None:
            return f"{who} won without a maneuver and just takes the ball"
        return f"{who} won with {_a(self.win_type)}"

    def _do_reward_hand(self, action: tuple) -> str | None:
        count = action[1]
        if self.stage != self.WON or self.rewarded:
            return f">{count}: a reward is taken once the attack is won"
        if self.win_type not in ("Pass", "Block"):
            return (
                f">{count}: drawing up to 3 cards is the reward of a Pass or Block; {self._won()}"
            )
        if not 1 <= count <= 3:
            return f">{count}: the reward of a Pass or Block is 1 to 3 draws (none: write nothing)"
        self.rewarded = True
        saved = self.mover
        self.mover = self.winner
        reason = self._draws(count, "the reward", False)
        self.mover = saved
        return reason

    def _do_reward_speed(self, action: tuple) -> str | None:
        cards = action[1]
        written = ">" + ",".join(cards)
        if self.stage != self.WON or self.rewarded:
            return f"{written}: a reward is taken once the attack is won"
        if self.win_type not in ("Dribble", "Tackle"):
            return (
                f"{written}: up to 2 cards onto the speed pile is the reward of a Dribble or "
                f"Tackle; {self._won()}"
            )
        if len(cards) > 2:
            return f"{written}: the reward of a Dribble or Tackle is up to 2 cards"
        self.rewarded = True
        named = [c for c in cards if c != EMPTY]
        empty = len(named) != len(cards)
        if empty and cards[-1] != EMPTY:
            return f"{written}: '_' (the empty draw pile) comes last"
        top = [self.rules.ids[c] for c in self.draw[: len(named)]]
        if sorted(named) != sorted(top) or len(set(named)) != len(named):
            shown = ", ".join(top) or "nothing"
            return f"{written}: the top of the draw pile is {shown}; the reward draws those cards"
        if empty and len(self.draw) != len(named):
            return f"{written}: '_' means the draw pile was empty, and it was not"
        for card_id in named:
            card = self.rules.index[card_id]
            self.draw.remove(card)
            self.speed[self.winner].append(card)
        if empty:
            self._end_period()
        return None

    # -- the end of the turn -------------------------------------------------------------
    def finish(self) -> str | None:
        stage = self.stage
        if stage in (self.START, self.DRAWN, self.ADJUSTED):
            return "the turn needs a maneuver ('@card') or '/' for not responding"
        if stage == self.NEED_END:
            return f"{self.why_over}: write '/'"
        if stage == self.PLAYED:
            reason = self._check_force()
            if reason:
                return reason
            if self.maneuver[2]:  # a foul without the referee check
                pile = self.referee_pile()
                if self.draw if pile == "draw" else self.discard:
                    return (
                        f"{self.rules.ids[self.maneuver[0]]} is a foul: write the card the "
                        f"referee check reveals from the {pile} pile (':card')"
                    )
            self._stand_maneuver()
            stage = self.CLOSED
        if stage == self.CLOSED:
            self.to_move = 1 - self.mover
            return None
        if stage == self.WON:
            self._next_attack(self.attacker)
        return None

    def _next_attack(self, attacker: int) -> None:
        for seat in (0, 1):
            for maneuver in self.piles[seat]:
                self.discard.append(maneuver.card)
                self.discard.extend(maneuver.increases)
            self.piles[seat] = []
        self.attacker = attacker
        self.to_move = attacker
        self.worth = 1
        self.requester = -1

    _HANDLERS: ClassVar[dict] = {}

    def freeze(self) -> ForceballState:
        phase = self.phase
        to_move = self.to_move if phase == TURN else CHANCE if phase == SHUFFLE else 0
        return ForceballState(
            ply=self.state.ply + 1,
            phase=phase,
            to_move=to_move,
            period=self.state.period,
            scores=(self.scores[0], self.scores[1]),
            attacker=self.attacker,
            worth=self.worth,
            requester=self.requester,
            dealt=self.state.dealt,
            draw=tuple(self.draw),
            discard=tuple(self.discard),
            hands=(tuple(sorted(self.hands[0])), tuple(sorted(self.hands[1]))),
            speed=(tuple(self.speed[0]), tuple(self.speed[1])),
            piles=(tuple(self.piles[0]), tuple(self.piles[1])),
        )


_TurnRunner._HANDLERS.update(
    {
        DRAW: _TurnRunner._do_draw,
        SPEED_UP: _TurnRunner._do_speed_up,
        SPEED_DOWN: _TurnRunner._do_speed_down,
        SPEED_SWAP: _TurnRunner._do_speed_swap,
        TRANSFORM: _TurnRunner._do_transform,
        REHAND: _TurnRunner._do_rehand,
        PLAY: _TurnRunner._do_play,
        FORCE_SPEED: _TurnRunner._do_force_speed,
        FORCE_HAND: _TurnRunner._do_force_hand,
        REFEREE: _TurnRunner._do_referee,
        STAKES: _TurnRunner._do_stakes,
        END: _TurnRunner._do_end,
        SPECIAL: _TurnRunner._do_special,
        REWARD_HAND: _TurnRunner._do_reward_hand,
        REWARD_SPEED: _TurnRunner._do_reward_speed,
    }
)


# -- random turns --------------------------------------------------------------------------


class _Refused(Exception):
    """A step of a sampled turn was refused (a gap in the sampler, not in the rules)."""


def _sample_turn(rules: ForceballRules, state: ForceballState, rng: Any) -> Turn | None:
    """A random turn built action by action on a :class:`_TurnRunner`, so every
    choice is made on the table as it is at that moment. ``None`` if a step was
    refused (the caller then falls back to the representative moves)."""
    runner = _TurnRunner(rules, state)
    actions: list[tuple] = []
    try:
        _build_turn(runner, rules, rng, actions)
    except _Refused:
        return None
    return Turn(tuple(actions))


def _build_turn(runner: _TurnRunner, rules: ForceballRules, rng: Any, actions: list) -> None:
    ids = rules.ids
    mover = runner.mover
    level = rules.level

    def do(action: tuple) -> None:
        actions.append(action)
        if runner.step(action) is not None:
            raise _Refused

    def over() -> bool:
        return runner.stage in (runner.DONE, runner.NEED_END, runner.CLOSED)

    def maybe_stakes() -> bool:
        """Possibly request raised stakes; True if a decline ended the turn."""
        if (
            level >= PRO
            and not runner.must_draw
            and runner.requester != mover
            and rng.random() < 0.04
        ):
            do((STAKES, rng.random() < 0.75))
        return runner.stage == runner.DONE

    if maybe_stakes():
        return
    if runner.must_draw or rng.random() < 0.7:
        do((DRAW,))
    if not over():
        hand = runner.hands[mover]
        speed = runner.speed[mover]
        options = []
        if hand:
            options += [SPEED_UP] * 4
        if level >= JUNIOR:
            if speed:
                options += [SPEED_DOWN, TRANSFORM]
                if hand:
                    options.append(SPEED_SWAP)
            if hand:
                options.append(REHAND)
        if options and rng.random() < 0.6:
            kind = rng.choice(options)
            if kind == SPEED_UP:
                do((SPEED_UP, ids[rng.choice(hand)]))
            elif kind == SPEED_DOWN:
                do((SPEED_DOWN,))
            elif kind == SPEED_SWAP:
                do((SPEED_SWAP, ids[rng.choice(hand)]))
            elif kind == TRANSFORM:
                do((TRANSFORM, _draw_count(runner, rules, rng.randint(0, 2))))
            else:
                chosen = rng.sample(hand, rng.randint(1, min(3, len(hand))))
                count = _draw_count(runner, rules, rng.randint(0, len(chosen)))
                do((REHAND, tuple(ids[c] for c in chosen), count))
    if not over():
        if maybe_stakes():
            return
        choice = _choose_maneuver(runner, rules, rng)
        if choice is None or rng.random() < 0.1:
            do((END,))
        else:
            card, declared, from_speed, from_hand = choice
            do((PLAY, ids[card], declared))
            if from_speed:
                do((FORCE_SPEED, from_speed))
            if maybe_stakes():
                return
            for extra in from_hand:
                do((FORCE_HAND, ids[extra]))
            if declared is not None:
                pile = runner.draw if runner.referee_pile() == "draw" else runner.discard
                if pile:
                    do((REFEREE, ids[rng.choice(pile)]))
    if runner.stage == runner.NEED_END:
        do((END,))
    if runner.stage == runner.WON:
        _sample_winner_part(runner, rules, rng, do)


def _draw_count(runner: _TurnRunner, rules: ForceballRules, wanted: int) -> int:
    """How many of ``wanted`` draws a player actually makes: a Stress card stops
    them (senior), the empty pile ends them (the attempt counts)."""
    draw = runner.draw
    for number in range(1, wanted + 1):
        if number > len(draw):
            return number
        if rules.stress[draw[number - 1]]:
            return number
    return wanted


def _choose_maneuver(
    runner: _TurnRunner, rules: ForceballRules, rng: Any
) -> tuple[int, str | None, int, list[int]] | None:
    """A random playable maneuver with the increases it needs (sometimes a foul)."""
    mover = runner.mover
    hand = runner.hands[mover]
    speed = runner.speed[mover]
    attacking = mover == runner.attacker
    allowed = ATTACK_TYPES if attacking else DEFENCE_TYPES
    can_increase = rules.level >= JUNIOR
    options = []
    for card in hand:
        info = rules.cards[card]
        if info.speed > len(speed):
            continue
        natural = info.attack_type if attacking else info.defence_type
        kinds = []
        if natural is not None:
            kinds.append((natural, None))
        if rules.level >= SENIOR and rng.random() < 0.15:
            fake = rng.choice([t for t in allowed if not info.has_type(t)])
            kinds.append((fake, fake))
        for kind, declared in kinds:
            force = info.force
            need = runner.beat - force
            from_speed = 0
            from_hand: list[int] = []
            if need > 0:
                if not can_increase:
                    continue
                pile = list(speed)
                while need > 0 and pile:
                    need -= rules.speed_of[pile.pop()]
                    from_speed += 1
                if need > 0:
                    for other in hand:
                        if other != card and rules.cards[other].has_type(kind) and need > 0:
                            from_hand.append(other)
                            need -= rules.speed_of[other]
                if need > 0:
                    continue
            elif can_increase and speed and rng.random() < 0.1:
                from_speed = 1
            options.append((card, declared, from_speed, from_hand))
    if not options:
        return None
    return rng.choice(options)


def _sample_winner_part(runner: _TurnRunner, rules: ForceballRules, rng: Any, do) -> None:
    winner = runner.winner
    hand = runner.hands[winner]
    if rules.level >= SENIOR and rng.random() < 0.8:
        if winner == runner.attacker and runner.win_type in ("Pass", "Dribble"):
            specials = [c for c in hand if rules.lucky[c]]
        elif winner != runner.attacker and runner.win_type in ("Block", "Tackle"):
            specials = [c for c in hand if rules.goalie[c]]
        else:
            specials = []
        if specials:
            do((SPECIAL, rules.ids[rng.choice(specials)]))
    if runner.win_type in ("Pass", "Block"):
        wanted = rng.randint(0, 3)
        count = min(wanted, len(runner.draw) + 1)
        if count:
            do((REWARD_HAND, count))
    elif runner.win_type in ("Dribble", "Tackle"):
        wanted = rng.randint(0, 2)
        cards = [rules.ids[c] for c in runner.draw[:wanted]]
        rng.shuffle(cards)
        if wanted > len(runner.draw):
            cards.append(EMPTY)
        if cards:
            do((REWARD_SPEED, tuple(cards)))
