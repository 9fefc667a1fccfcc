"""The turn state machine: one player's turn played action by action.

:class:`TurnRunner` holds mutable copies of the table and checks each rule as an
action comes (:meth:`TurnRunner.step` gives the reason an action is refused, in a
player's words); :meth:`TurnRunner.finish` closes the turn and
:meth:`TurnRunner.freeze` gives the table after it. The checked path of
:class:`~partita.games.forceball.rules.ForceballRules`, its turn summaries, the
sampler and the example generator all play turns on it, so they agree by
construction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from partita.game.rules import CHANCE
from partita.games.forceball.cards import ATTACK_TYPES, DEFENCE_TYPES
from partita.games.forceball.values import (
    EMPTY,
    JUNIOR,
    LEAGUES,
    OVER,
    PRO,
    SENIOR,
    SHUFFLE,
    TURN,
    TYPE_LETTERS,
    Action,
    Draw,
    End,
    ForceballState,
    ForceHand,
    ForceSpeed,
    Maneuver,
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
)
from partita.games.forceball.words import plural, seat_name, with_article

if TYPE_CHECKING:
    from partita.games.forceball.rules import ForceballRules

__all__ = ["PendingManeuver", "Stage", "TurnRunner", "reachable_force"]

_ADJUSTMENT_WORDS: dict[type, str] = {
    SpeedUp: "increasing the speed",
    SpeedDown: "decreasing the speed",
    SpeedSwap: "restructuring the speed",
    Transform: "transforming the speed into maneuvers",
    Rehand: "restructuring the hand",
}


class Stage(IntEnum):
    """Where a turn stands; the order is the order of a turn."""

    START = 0  # nothing done yet (raised stakes may have been accepted)
    DRAWN = 1  # the draw is made
    ADJUSTED = 2  # the speed is adjusted
    PLAYED = 3  # a maneuver is played; increases may follow
    CLOSED = 4  # the maneuver stands: the opponent answers it
    NEED_END = 5  # the attack is lost (Stress, a seen foul): '/' must follow
    WON = 6  # '/' is written: the winner's Lucky shot or Goalie and reward may follow
    DONE = 7  # nothing can follow (the period ended, a doubling was declined)


@dataclass(slots=True)
class PendingManeuver:
    """The maneuver being made, while increases may still be laid on it."""

    card: int
    type: str
    foul: bool
    force: int
    increases: list[int] = field(default_factory=list)

    def stand(self) -> Maneuver:
        return Maneuver(self.card, self.type, self.foul, tuple(self.increases), self.force)


def reachable_force(
    rules: ForceballRules, force: int, kind: str, speed: list[int], hand: list[int]
) -> int:
    """The most force a maneuver of ``kind`` and ``force`` can reach with the
    increases its player could still lay on it: the whole speed pile, and the
    hand's cards having that type (none before the junior league)."""
    if rules.level < JUNIOR:
        return force
    speed_of = rules.speed_of
    return (
        force
        + sum(speed_of[card] for card in speed)
        + sum(speed_of[card] for card in hand if rules.cards[card].has_type(kind))
    )


class TurnRunner:
    """Plays one turn action by action on mutable copies of the table, checking
    each rule; :meth:`freeze` gives the state after it."""

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
        self.stage = Stage.START
        self.must_draw = not state.hands[self.mover]
        self.beat = rules.force_to_beat(state)
        self.maneuver: PendingManeuver | None = None
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

    def _in_hand(self, card_id: str, doing: str) -> tuple[int, None] | tuple[None, str]:
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
        self.stage = Stage.DONE
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
        self.stage = Stage.NEED_END
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
    def step(self, action: Action) -> str | None:
        """Play one action; the reason it is refused, or ``None``."""
        stage = self.stage
        if stage == Stage.DONE:
            return f"nothing can follow here: {self.why_over}"
        if stage == Stage.CLOSED:
            if isinstance(action, (ForceSpeed, ForceHand)):
                return "the force is increased before the referee check, never after it"
            return f"nothing can follow here: {self.why_over}"
        if stage == Stage.NEED_END and not isinstance(action, End):
            return f"{self.why_over}: write '/' before anything else"
        if self.must_draw and not isinstance(action, Draw):
            # raised stakes may come before the compulsory draw, unless the draw
            # pile is empty too: then the period ends as the turn begins
            if not isinstance(action, Stakes):
                return "your hand is empty, so your turn starts with a draw ('>')"
            if not self.draw:
                return (
                    "your hand and the draw pile are empty, so the period ends as your "
                    "turn begins: no request fits in before the draw ('>')"
                )
        if stage == Stage.WON and not isinstance(action, (Special, RewardHand, RewardSpeed)):
            return (
                "the attack is over: after '/' come only the winner's Lucky shot or "
                "Goalie and reward"
            )
        handler = _HANDLERS.get(type(action))
        if handler is None:
            return f"{action!r} is no Forceball action"
        return handler(self, action)

    def _do_draw(self, action: Draw) -> str | None:
        if self.stage != Stage.START:
            return "a draw ('>') comes first in the turn: you draw at most one card before adjusting the speed"
        self.must_draw = False
        self.stage = Stage.DRAWN
        return self._draws(1, "the draw", True)

    def _adjusting(self, kind: type) -> str | None:
        if self.stage >= Stage.ADJUSTED:
            if self.stage == Stage.ADJUSTED:
                return f"{_ADJUSTMENT_WORDS[kind]}: you may adjust the speed only once per turn"
            return f"{_ADJUSTMENT_WORDS[kind]}: the speed is adjusted before the maneuver"
        if kind is not SpeedUp:
            reason = self._needs(JUNIOR, _ADJUSTMENT_WORDS[kind])
            if reason:
                return reason
        self.stage = Stage.ADJUSTED
        return None

    def _do_speed_up(self, action: SpeedUp) -> str | None:
        reason = self._adjusting(SpeedUp)
        if reason:
            return reason
        card, reason = self._in_hand(action.card, "put on your speed pile")
        if card is None:
            return reason
        self.hands[self.mover].remove(card)
        self.speed[self.mover].append(card)
        return None

    def _do_speed_down(self, action: SpeedDown) -> str | None:
        reason = self._adjusting(SpeedDown)
        if reason:
            return reason
        speed = self.speed[self.mover]
        if not speed:
            return "you cannot decrease the speed: your speed pile is empty"
        self.hands[self.mover].append(speed.pop())
        return None

    def _do_speed_swap(self, action: SpeedSwap) -> str | None:
        reason = self._adjusting(SpeedSwap)
        if reason:
            return reason
        card, reason = self._in_hand(action.card, "swapped onto your speed pile")
        if card is None:
            return reason
        speed = self.speed[self.mover]
        if not speed:
            return f"{action.card} cannot restructure the speed: your speed pile is empty"
        hand = self.hands[self.mover]
        hand.remove(card)
        hand.append(speed.pop())
        speed.append(card)
        return None

    def _do_transform(self, action: Transform) -> str | None:
        reason = self._adjusting(Transform)
        if reason:
            return reason
        count = action.draws
        if count > 2:
            return f"transforming the speed draws up to 2 cards, not {count}"
        speed = self.speed[self.mover]
        if not speed:
            return "you cannot transform the speed: your speed pile is empty"
        self.discard.append(speed.pop())
        return self._draws(count, "transforming the speed", True)

    def _do_rehand(self, action: Rehand) -> str | None:
        reason = self._adjusting(Rehand)
        if reason:
            return reason
        cards, count = action.discards, action.draws
        if not cards:
            return "restructuring the hand discards at least one card"
        if len(set(cards)) != len(cards):
            return "restructuring the hand: a card is named twice"
        for card_id in cards:
            card, reason = self._in_hand(card_id, "discarded")
            if card is None:
                return reason
            self.hands[self.mover].remove(card)
            self.discard.append(card)
        if count > len(cards):
            return (
                f"restructuring the hand: you discarded {plural(len(cards), 'card')}, "
                f"so you may draw up to {len(cards)}, not {count}"
            )
        return self._draws(count, "restructuring the hand", True)

    def _do_play(self, action: Play) -> str | None:
        card_id, declared = action.card, action.declared
        if self.stage >= Stage.PLAYED:
            return f"{card_id}: you make one maneuver per turn"
        card, reason = self._in_hand(card_id, "played")
        if card is None:
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
                return (
                    f"{card_id} is {with_article(declared)}: "
                    f"'={TYPE_LETTERS[declared]}' marks a foul only"
                )
            reason = self._needs(SENIOR, "fouling")
            if reason:
                return f"{card_id} cannot be played as {with_article(declared)}: {reason}"
            if declared not in allowed:
                return (
                    f"{card_id} cannot be played as {with_article(declared)}: as the {role} "
                    f"you may make only {', '.join(allowed)}, foul or not"
                )
            kind, foul = declared, True
        speed = len(self.speed[self.mover])
        if speed < info.speed:
            return (
                f"{card_id} cannot be played as {with_article(kind)}: your speed is {speed} "
                f"and it needs {info.speed}"
            )
        self.hands[self.mover].remove(card)
        self.maneuver = PendingManeuver(card, kind, foul, info.force)
        self.stage = Stage.PLAYED
        return None

    def _increasing(self, what: str) -> str | None:
        if self.stage != Stage.PLAYED:
            return f"{what}: the force is increased only right after playing your maneuver"
        return self._needs(JUNIOR, "increasing the force")

    def _do_force_speed(self, action: ForceSpeed) -> str | None:
        count = action.count
        reason = self._increasing(f"^{count}")
        if reason:
            return reason
        maneuver = self.maneuver
        assert maneuver is not None  # the stage is PLAYED
        speed = self.speed[self.mover]
        if count > len(speed):
            return (
                f"^{count}: you cannot increase the force with {plural(count, 'speed card')}: "
                f"your speed pile holds {len(speed)}"
            )
        if count < 1:
            return "^0 increases nothing"
        for _ in range(count):
            card = speed.pop()
            maneuver.increases.append(card)
            maneuver.force += self.rules.speed_of[card]
        return None

    def _do_force_hand(self, action: ForceHand) -> str | None:
        card_id = action.card
        reason = self._increasing(f"^{card_id}")
        if reason:
            return reason
        maneuver = self.maneuver
        assert maneuver is not None  # the stage is PLAYED
        card, reason = self._in_hand(card_id, "laid on your maneuver")
        if card is None:
            return reason
        kind = maneuver.type
        info = self.rules.cards[card]
        if not info.has_type(kind):
            return (
                f"{card_id} ({'/'.join(info.types)}) cannot increase the force of "
                f"{with_article(kind)}: cards from the hand must be {with_article(kind)}"
            )
        self.hands[self.mover].remove(card)
        maneuver.increases.append(card)
        maneuver.force += info.speed
        return None

    def _check_force(self) -> str | None:
        """Why the maneuver, as it stands now, does not beat the force to beat."""
        maneuver = self.maneuver
        assert maneuver is not None
        if maneuver.force < self.beat:
            return (
                f"{self.rules.ids[maneuver.card]} cannot be played as "
                f"{with_article(maneuver.type)}: its force is {maneuver.force} and the "
                f"force to beat is {self.beat}"
            )
        return None

    def _check_reach(self) -> str | None:
        """Why the maneuver could not reach the force to beat even with every
        increase still available (its card may not be played at all)."""
        maneuver = self.maneuver
        assert maneuver is not None
        reach = reachable_force(
            self.rules,
            maneuver.force,
            maneuver.type,
            self.speed[self.mover],
            self.hands[self.mover],
        )
        if reach < self.beat:
            kind = with_article(maneuver.type)
            return (
                f"{self.rules.ids[maneuver.card]} cannot be played as {kind}: with every "
                f"increase you could still lay its force reaches at most {reach}, and the "
                f"force to beat is {self.beat}; a declined doubling does not excuse it"
            )
        return None

    def _do_referee(self, action: RefereeCheck) -> str | None:
        card_id = action.card
        if self.stage != Stage.PLAYED or self.maneuver is None or not self.maneuver.foul:
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
            self.stage = Stage.NEED_END
            self.end_cause = "foul seen"
            self.why_over = f"the referee saw the foul ({card_id})"
            self._lose_attack()
        else:
            self.stage = Stage.CLOSED
            self.why_over = f"the referee check ({card_id}) ended your turn"
        return None

    def referee_pile(self) -> str:
        """The pile the referee check uses now (see :meth:`ForceballRules.referee_pile`)."""
        return "discard" if 2 * len(self.draw) < self.state.dealt else "draw"

    def _stand_maneuver(self) -> None:
        assert self.maneuver is not None
        self.piles[self.mover].append(self.maneuver.stand())
        self.maneuver = None

    def _do_stakes(self, action: Stakes) -> str | None:
        reason = self._needs(PRO, "raising the stakes")
        if reason:
            return reason
        if self.stage > Stage.PLAYED:
            return "raised stakes are requested before the turn's maneuver is complete"
        if self.requester == self.mover:
            return "you asked for the last doubling: the same player never doubles twice in a row"
        if action.accepted:
            self.worth *= 2
            self.requester = self.mover
            return None
        # declined: the attack is interrupted, the requester scores the current worth;
        # a maneuver made so far stands as it is, if its card could reach the force
        # to beat with the increases still available
        if self.maneuver is not None:
            reason = self._check_reach()
            if reason:
                return reason
        self.scores[self.mover] += self.worth
        if self.maneuver is not None:
            self._stand_maneuver()
        self._next_attack(1 - self.mover)
        self.stage = Stage.DONE
        self.why_over = "the raised stakes were declined, which ended the attack"
        return None

    def _do_end(self, action: End) -> str | None:
        if self.stage == Stage.PLAYED:
            return "'/' ends an attack, but your maneuver stands: the opponent answers it"
        if self.stage in (Stage.WON, Stage.DONE):
            return "'/' is written once"
        if self.stage != Stage.NEED_END:
            self._lose_attack()  # not responding
            self.end_cause = "no answer"
        self.stage = Stage.WON
        self.ended = True
        if self.win_type is None:
            self.attacker = self.winner  # no maneuver to win with: he takes the ball
        elif self.win_type == "Shot":
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

    def _do_special(self, action: Special) -> str | None:
        card_id = action.card
        if self.stage != Stage.WON:
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
            return f"{card_id} is not in the hand of {seat_name(winner)}, who won the attack"
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
        who = seat_name(self.winner)
        if self.win_type is None:
            return f"{who} won without a maneuver and just takes the ball"
        return f"{who} won with {with_article(self.win_type)}"

    def _do_reward_hand(self, action: RewardHand) -> str | None:
        count = action.draws
        if self.stage != Stage.WON or self.rewarded:
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

    def _do_reward_speed(self, action: RewardSpeed) -> str | None:
        cards = action.cards
        written = ">" + ",".join(cards)
        if self.stage != Stage.WON or self.rewarded:
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
        """Close the turn after its last action; the reason it cannot end here."""
        stage = self.stage
        if stage in (Stage.START, Stage.DRAWN, Stage.ADJUSTED):
            return "the turn needs a maneuver ('@card') or '/' for not responding"
        if stage == Stage.NEED_END:
            return f"{self.why_over}: write '/'"
        if stage == Stage.PLAYED:
            reason = self._check_force()
            if reason:
                return reason
            maneuver = self.maneuver
            assert maneuver is not None
            if maneuver.foul:  # a foul without the referee check
                pile = self.referee_pile()
                if self.draw if pile == "draw" else self.discard:
                    return (
                        f"{self.rules.ids[maneuver.card]} is a foul: write the card the "
                        f"referee check reveals from the {pile} pile (':card')"
                    )
            self._stand_maneuver()
            stage = Stage.CLOSED
        if stage == Stage.CLOSED:
            self.to_move = 1 - self.mover
            return None
        if stage == Stage.WON:
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

    def freeze(self) -> ForceballState:
        """The table after the turn."""
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


_HANDLERS: dict[type, Callable[[TurnRunner, Any], str | None]] = {
    Draw: TurnRunner._do_draw,
    SpeedUp: TurnRunner._do_speed_up,
    SpeedDown: TurnRunner._do_speed_down,
    SpeedSwap: TurnRunner._do_speed_swap,
    Transform: TurnRunner._do_transform,
    Rehand: TurnRunner._do_rehand,
    Play: TurnRunner._do_play,
    ForceSpeed: TurnRunner._do_force_speed,
    ForceHand: TurnRunner._do_force_hand,
    RefereeCheck: TurnRunner._do_referee,
    Stakes: TurnRunner._do_stakes,
    End: TurnRunner._do_end,
    Special: TurnRunner._do_special,
    RewardHand: TurnRunner._do_reward_hand,
    RewardSpeed: TurnRunner._do_reward_speed,
}
