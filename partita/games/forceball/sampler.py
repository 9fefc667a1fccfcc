"""Random Forceball turns for playouts (``ForceballRules.sample_move``).

A turn cannot be listed in full (draws, adjustments, increases, fouls, stakes and
rewards multiply), so a random turn is built action by action on a
:class:`~partita.games.forceball.turn.TurnRunner`: every choice is made on the
table as it is at that moment, and every action is checked as it is taken.
Legality stays the rules' to decide: ``sample_move`` checks the finished turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from partita.games.forceball.cards import ATTACK_TYPES, DEFENCE_TYPES
from partita.games.forceball.turn import Stage, TurnRunner
from partita.games.forceball.values import (
    EMPTY,
    JUNIOR,
    PRO,
    SENIOR,
    Action,
    Draw,
    End,
    ForceballState,
    ForceHand,
    ForceSpeed,
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
    Turn,
)

if TYPE_CHECKING:
    from partita.games.forceball.rules import ForceballRules

__all__ = ["ManeuverPlan", "plan_increases", "sample_turn"]


class ManeuverPlan(NamedTuple):
    """A maneuver a player could make now: its card, the type a foul declares
    (``None``: none), how many speed cards and which hand cards go on it."""

    card: int
    declared: str | None
    from_speed: int
    from_hand: list[int]


class _Refused(Exception):
    """A step of a sampled turn was refused (a gap in the sampler, not in the rules)."""


def plan_increases(
    rules: ForceballRules, card: int, kind: str, beat: int, speed: list[int], hand: list[int]
) -> tuple[int, list[int]] | None:
    """The increases that make ``card``, played as ``kind``, reach the force to
    beat: speed cards from the top until it is reached, then the hand's cards of
    that type in hand order; ``(0, [])`` if it needs none, ``None`` if even every
    increase falls short (or increases are not allowed in the league)."""
    need = beat - rules.force[card]
    if need <= 0:
        return 0, []
    if rules.level < JUNIOR:
        return None
    from_speed = 0
    pile = list(speed)
    while need > 0 and pile:
        need -= rules.speed_of[pile.pop()]
        from_speed += 1
    from_hand: list[int] = []
    for other in hand:
        if need > 0 and other != card and rules.cards[other].has_type(kind):
            from_hand.append(other)
            need -= rules.speed_of[other]
    return None if need > 0 else (from_speed, from_hand)


def sample_turn(rules: ForceballRules, state: ForceballState, rng: Any) -> Turn | None:
    """A random turn built action by action on a :class:`TurnRunner`, so every
    choice is made on the table as it is at that moment. ``None`` if a step was
    refused (the caller then falls back to the representative moves)."""
    runner = TurnRunner(rules, state)
    actions: list[Action] = []
    try:
        _build_turn(runner, rules, rng, actions)
    except _Refused:
        return None
    return Turn(tuple(actions))


def _build_turn(runner: TurnRunner, rules: ForceballRules, rng: Any, actions: list[Action]) -> None:
    ids = rules.ids
    mover = runner.mover
    level = rules.level

    def do(action: Action) -> None:
        actions.append(action)
        if runner.step(action) is not None:
            raise _Refused

    def over() -> bool:
        return runner.stage in (Stage.DONE, Stage.NEED_END, Stage.CLOSED)

    def maybe_stakes() -> bool:
        """Possibly request raised stakes; True if a decline ended the turn. A
        request may come before the compulsory draw, unless the draw pile is
        empty too (the period then ends as the turn begins)."""
        if (
            level >= PRO
            and (runner.draw or not runner.must_draw)
            and runner.requester != mover
            and rng.random() < 0.04
        ):
            do(Stakes(rng.random() < 0.75))
        return runner.stage == Stage.DONE

    if maybe_stakes():
        return
    if runner.must_draw or rng.random() < 0.7:
        do(Draw())
    if not over():
        hand = runner.hands[mover]
        speed = runner.speed[mover]
        options: list[type] = []
        if hand:
            options += [SpeedUp] * 4
        if level >= JUNIOR:
            if speed:
                options += [SpeedDown, Transform]
                if hand:
                    options.append(SpeedSwap)
            if hand:
                options.append(Rehand)
        if options and rng.random() < 0.6:
            kind = rng.choice(options)
            if kind is SpeedUp:
                do(SpeedUp(ids[rng.choice(hand)]))
            elif kind is SpeedDown:
                do(SpeedDown())
            elif kind is SpeedSwap:
                do(SpeedSwap(ids[rng.choice(hand)]))
            elif kind is Transform:
                do(Transform(_draw_count(runner, rules, rng.randint(0, 2))))
            else:
                chosen = rng.sample(hand, rng.randint(1, min(3, len(hand))))
                count = _draw_count(runner, rules, rng.randint(0, len(chosen)))
                do(Rehand(tuple(ids[c] for c in chosen), count))
    if not over():
        if maybe_stakes():
            return
        choice = _choose_maneuver(runner, rules, rng)
        if choice is None or rng.random() < 0.1:
            do(End())
        else:
            do(Play(ids[choice.card], choice.declared))
            if choice.from_speed:
                do(ForceSpeed(choice.from_speed))
            if maybe_stakes():
                return
            for extra in choice.from_hand:
                do(ForceHand(ids[extra]))
            if choice.declared is not None:
                pile = runner.draw if runner.referee_pile() == "draw" else runner.discard
                if pile:
                    do(RefereeCheck(ids[rng.choice(pile)]))
    if runner.stage == Stage.NEED_END:
        do(End())
    if runner.stage == Stage.WON:
        _sample_winner_part(runner, rules, rng, do)


def _draw_count(runner: TurnRunner, rules: ForceballRules, wanted: int) -> int:
    """How many of ``wanted`` draws a player actually makes: a Stress card stops
    them (senior), the empty pile ends them (the attempt counts)."""
    draw = runner.draw
    for number in range(1, wanted + 1):
        if number > len(draw):
            return number
        if rules.stress[draw[number - 1]]:
            return number
    return wanted


def _choose_maneuver(runner: TurnRunner, rules: ForceballRules, rng: Any) -> ManeuverPlan | None:
    """A random playable maneuver with the increases it needs (sometimes a foul)."""
    mover = runner.mover
    hand = runner.hands[mover]
    speed = runner.speed[mover]
    attacking = mover == runner.attacker
    allowed = ATTACK_TYPES if attacking else DEFENCE_TYPES
    can_increase = rules.level >= JUNIOR
    options: list[ManeuverPlan] = []
    for card in hand:
        info = rules.cards[card]
        if info.speed > len(speed):
            continue
        natural = info.attack_type if attacking else info.defence_type
        kinds: list[tuple[str, str | None]] = []
        if natural is not None:
            kinds.append((natural, None))
        if rules.level >= SENIOR and rng.random() < 0.15:
            fake = rng.choice([t for t in allowed if not info.has_type(t)])
            kinds.append((fake, fake))
        for kind, declared in kinds:
            plan = plan_increases(rules, card, kind, runner.beat, speed, hand)
            if plan is None:
                continue
            from_speed, from_hand = plan
            if info.force >= runner.beat and can_increase and speed and rng.random() < 0.1:
                from_speed = 1
            options.append(ManeuverPlan(card, declared, from_speed, from_hand))
    if not options:
        return None
    chosen: ManeuverPlan = rng.choice(options)
    return chosen


def _sample_winner_part(
    runner: TurnRunner, rules: ForceballRules, rng: Any, do: Callable[[Action], None]
) -> None:
    """The winner's Lucky shot or Goalie (often, when he holds one) and reward."""
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
            do(Special(rules.ids[rng.choice(specials)]))
    if runner.win_type in ("Pass", "Block"):
        wanted = rng.randint(0, 3)
        count = min(wanted, len(runner.draw) + 1)
        if count:
            do(RewardHand(count))
    elif runner.win_type in ("Dribble", "Tackle"):
        wanted = rng.randint(0, 2)
        cards = [rules.ids[c] for c in runner.draw[:wanted]]
        rng.shuffle(cards)
        if wanted > len(runner.draw):
            cards.append(EMPTY)
        if cards:
            do(RewardSpeed(tuple(cards)))
