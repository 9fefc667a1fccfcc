"""Forceball: the rules engine for the four leagues (little, junior, senior, pro).

A two-player card game: one attack after another, each a sequence of turns in
which the players answer each other's maneuvers until one cannot or will not;
periods end when a player must draw from the empty draw pile. The rulebook is
``rules/forceball.txt``; the readings of its gaps are in ``docs/forceball.md``.

:class:`ForceballRules` is the set-up (the deck, the league and its tags), the
shuffle and the face-off, legality, the outcome, keys and the diagram. The moves
and the table are values of :mod:`.values`; a turn is played action by action on
the state machine of :mod:`.turn`; random turns come from :mod:`.sampler`.

Cards are the deck's indices inside states (``hands`` sorted by index, piles
bottom first except the draw pile, whose top is first); moves name cards by id,
as records do. Every card is in exactly one place at every moment (the draw
pile, the discard pile, a hand, a speed pile or a maneuver pile), which
:meth:`ForceballRules.card_places` exposes for the conservation tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from partita.errors import IllegalMoveError, SetupError, TagError
from partita.game.rules import CHANCE, Decision, Outcome, Rules, TagSpec
from partita.games.forceball.cards import Card, Deck
from partita.games.forceball.sampler import sample_turn
from partita.games.forceball.turn import Stage, TurnRunner
from partita.games.forceball.values import (
    DEAL,
    DEFAULT_LEAGUE,
    EMPTY,
    FACEOFF,
    LEAGUES,
    LITTLE,
    OVER,
    PRO,
    SENIOR,
    SHUFFLE,
    TURN,
    Draw,
    End,
    FaceOff,
    ForceballState,
    Maneuver,
    Play,
    RewardSpeed,
    Shuffle,
    Stakes,
    Turn,
    TurnSummary,
)
from partita.games.forceball.words import plural, seat_name, with_article

__all__ = ["ForceballRules"]


class ForceballRules(Rules[ForceballState, Shuffle | FaceOff | Turn]):
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

    def key(self, state: ForceballState) -> tuple[Any, ...]:
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
        periods = plural(self.periods, "period")
        if first == second:
            return Outcome.draw(2, f"{first}-{second} on points after {periods}")
        winner = 0 if first > second else 1
        return Outcome.win_for(
            winner, 2, f"{seat_name(winner)} wins {first}-{second} on points after {periods}"
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
                f"period {state.period}: the {self.league} league has {plural(self.periods, 'period')}"
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
                played = self.cards[maneuver.card]
                if maneuver.foul == played.has_type(maneuver.type):
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
                    f"{seat_name(mover)} cannot be to move: {seat_name(expected)} answers the last maneuver"
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
            # Every period's shuffle orders the whole deck (the draw pile of a
            # later period's shuffle is what was left, not the deck).
            return (Shuffle(tuple(self.ids)),)
        if state.phase == FACEOFF:
            ids = self.ids
            return tuple(FaceOff(ids[a], ids[b]) for a in state.hands[0] for b in state.hands[1])
        candidates = [Turn((End(),)), Turn((Draw(), End())), Turn((Draw(),))]
        for card in state.hands[state.to_move]:
            play = Play(self.ids[card])
            candidates.append(Turn((play,)))
            candidates.append(Turn((Draw(), play)))
        return tuple(move for move in candidates if self.illegal_reason(state, move) is None)

    def playable_moves(self, state: ForceballState) -> Sequence[Any]:
        """Every turn a player can choose (:func:`.turns.every_turn`, hand
        restructurings aside), or :meth:`legal_moves` at a shuffle or face-off."""
        if state.phase != TURN:
            return self.legal_moves(state)
        from partita.games.forceball.turns import every_turn

        return every_turn(self, state)

    def decisions(self, state: ForceballState, move: Any) -> tuple[Decision, ...]:
        """A turn's parts and who chooses each: the opponent answers raised stakes
        and, after '/', chooses the winner's Lucky shot or Goalie and reward
        (:mod:`.choices`)."""
        from partita.games.forceball.choices import decisions

        return decisions(state, move)

    def answers(self, state: ForceballState, move: Any, index: int) -> Sequence[Any]:
        """The opponent's other answers at part ``index`` of ``move`` (:mod:`.choices`)."""
        from partita.games.forceball.choices import answers

        return answers(self, state, move, index)

    def events(
        self, state: ForceballState, move: Any, after: ForceballState, viewer: int | None = None
    ) -> list[str]:
        """The narration of the shipped records' comments (:mod:`.narration`)."""
        from partita.games.forceball.narration import narrate

        _, notes = narrate(self, state, move, after, ("Player1", "Player2"), set(), viewer)
        return notes

    def sample_move(self, state: ForceballState, rng: Any) -> Any:
        """A random legal move: a random deck order, random face-off cards, or a
        turn built action by action (:func:`partita.games.forceball.sampler.sample_turn`)."""
        if state.phase == SHUFFLE:
            order = list(self.ids)
            rng.shuffle(order)
            return Shuffle(tuple(order))
        if state.phase == FACEOFF:
            return FaceOff(
                self.ids[rng.choice(state.hands[0])], self.ids[rng.choice(state.hands[1])]
            )
        if state.phase == TURN:
            move = sample_turn(self, state, rng)
            if move is not None and self.illegal_reason(state, move) is None:
                return move
        return rng.choice(list(self.legal_moves(state)))

    def determinize(self, state: ForceballState, side: int, rng: Any, history: Any = ()) -> Any:
        """A table ``side`` cannot tell from ``state`` (:mod:`.determinize`)."""
        from partita.games.forceball.determinize import determinize

        return determinize(self, state, side, rng, history)

    def realize(self, state: ForceballState, move: Any) -> Any:
        """A turn chosen on a determinized table, on the real one: the reward of a
        Dribble or Tackle names the cards it takes off the draw pile, and below its
        top card the player could not see them. He chose how many to take; the
        real table says which (in the order they lie). Anything else is kept."""
        if not isinstance(move, Turn) or state.phase != TURN:
            return move
        if not any(isinstance(action, RewardSpeed) for action in move.actions):
            return move
        runner = TurnRunner(self, state)
        actions = []
        for action in move.actions:
            if isinstance(action, RewardSpeed):
                wanted = len(action.cards)
                cards = [self.ids[card] for card in runner.draw[:wanted]]
                if wanted > len(runner.draw):
                    cards.append(EMPTY)
                action = RewardSpeed(tuple(cards))
            if runner.step(action) is not None:
                return move  # it does not fit this table for another reason
            actions.append(action)
        return Turn(tuple(actions))

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

    def _run_turn(self, state: ForceballState, move: Turn) -> TurnRunner | str:
        """The turn played action by action on a runner (the table after it, and
        what happened in it), or why it is illegal."""
        runner = TurnRunner(self, state)
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
        played = [action for action in move.actions if isinstance(action, Play)]
        maneuver = None
        foul = False
        if played:
            declared = played[-1].declared
            foul = declared is not None
            maneuver = declared or self._played_type(state, played[-1].card)
        stakes = [action.accepted for action in move.actions if isinstance(action, Stakes)]
        won = runner.winner if runner.ended else None
        return TurnSummary(
            seat=state.to_move,
            attacker=state.attacker,
            period=state.period,
            maneuver=maneuver,
            foul=foul,
            foul_seen=runner.end_cause == "foul seen",
            stakes_accepted=stakes.count(True),
            stakes_declined=False in stakes,
            attack_won_by=won,
            won_with=runner.win_type if won is not None else None,
            special=runner.special_type,
            ended_by=runner.end_cause if won is not None else None,
            points=(runner.scores[0] - state.scores[0], runner.scores[1] - state.scores[1]),
            period_ended=runner.phase in (SHUFFLE, OVER) and runner.stage == Stage.DONE,
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
                return f"{seat_name(seat)} cannot show {card_id} at the face-off: it is not in his hand"
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

    def maneuver_text(self, maneuver: Maneuver, name: Callable[[int], str] | None = None) -> str:
        """``c3 Shot + c9 = force 6``; ``name`` writes a card (default: its id)."""
        name = name or self.ids.__getitem__
        text = name(maneuver.card)
        if maneuver.foul:
            text += f" as {with_article(maneuver.type)} (foul)"
        else:
            text += f" {maneuver.type}"
        if maneuver.increases:
            text += " + " + " ".join(name(c) for c in maneuver.increases)
        return f"{text} = force {maneuver.force}"

    def diagram(self, state: ForceballState) -> str:
        return self._diagram(state, None)

    def diagram_for(self, state: ForceballState, viewer: int) -> str:
        """The table as ``viewer`` sees it: the opponent's hand and speed pile by
        their sizes only (the draw pile shows its top card, the discard pile only
        its size, as for everybody)."""
        return self._diagram(state, viewer)

    def diagram_marked(
        self, state: ForceballState, last: ForceballState, viewer: int | None = None
    ) -> str:
        """The table (as ``viewer`` sees it) with a ``*`` before every card shown
        that the last move played or moved (from a hand, a pile or the draw pile),
        and a line saying so; a hidden card stays hidden, marked or not."""
        before, after = _places(last), _places(state)
        moved = frozenset(card for card, place in after.items() if before.get(card) != place)
        shown: list[int] = []
        text = self._diagram(state, viewer, moved, shown)
        return text + "\n*: a card the last move played or moved" if shown else text

    def _diagram(
        self,
        state: ForceballState,
        viewer: int | None,
        moved: frozenset[int] = frozenset(),
        shown: list[int] | None = None,
    ) -> str:
        """The table; ``moved``: cards to mark with ``*``, each one drawn added to
        ``shown``."""
        marked: list[int] = [] if shown is None else shown

        def mark(card: int, text: str) -> str:
            if card not in moved:
                return text
            marked.append(card)
            return f"*{text}"

        def ids(card: int) -> str:
            return mark(card, self.ids[card])

        lines = [
            f"Forceball, {self.league} league, deck '{self.deck.name}'",
            f"period {state.period} of {self.periods}; score {state.scores[0]}-{state.scores[1]}",
        ]
        outcome = self.outcome(state)
        if state.phase == OVER and outcome is not None:
            lines.append(f"game over: {outcome.reason}")
        elif state.phase == SHUFFLE:
            lines.append("next: the shuffle of a new period")
        elif state.phase == FACEOFF:
            lines.append("next: a face-off (both players show a card)")
        else:
            beat = self.force_to_beat(state)
            lines.append(
                f"{seat_name(state.attacker)} attacks; {seat_name(state.to_move)} to move; "
                f"force to beat {beat}; a goal is worth {state.worth}"
                + (
                    f" (doubled last by {seat_name(state.requester)})"
                    if state.requester >= 0
                    else ""
                )
            )
        top = ids(state.draw[0]) if state.draw else "-"
        lines.append(
            f"draw pile {len(state.draw)} (top {top}; dealt {state.dealt}, referee uses the "
            f"{self.referee_pile(state)} pile); discard pile {len(state.discard)}"
        )
        for seat in (0, 1):
            if viewer is not None and seat != viewer:
                hand = f"{plural(len(state.hands[seat]), 'card')} (hidden)"
                speed = "hidden"
            else:
                hand = " ".join(mark(c, self.card_text(c)) for c in state.hands[seat]) or "-"
                speed = " ".join(ids(c) for c in state.speed[seat]) or "-"
            pile = "; ".join(self.maneuver_text(m, ids) for m in state.piles[seat]) or "-"
            lines.append(f"{seat_name(seat)}: hand {hand}")
            lines.append(f"  speed {len(state.speed[seat])} (bottom to top: {speed})")
            lines.append(f"  maneuvers: {pile}")
        return "\n".join(lines)


def _places(state: ForceballState) -> dict[int, tuple[str, int]]:
    """Where every card is: ``(place, seat)`` (``seat`` -1 for the shared piles)."""
    where: dict[int, tuple[str, int]] = {}
    for card in state.draw:
        where[card] = ("draw", -1)
    for card in state.discard:
        where[card] = ("discard", -1)
    for seat in (0, 1):
        for card in state.hands[seat]:
            where[card] = ("hand", seat)
        for card in state.speed[seat]:
            where[card] = ("speed", seat)
        for maneuver in state.piles[seat]:
            where[maneuver.card] = ("maneuver", seat)
            for card in maneuver.increases:
                where[card] = ("increase", seat)
    return where
