"""Forceball's seeded heuristic player: the examples' player and the playout policy.

It builds each turn action by action on the engine's turn runner (so every choice
sees the table as it is): it draws unless the top card is a Stress card it can
avoid, keeps its speed near 3, answers with the cheapest maneuver that beats the
force to beat (the attacker shoots when it can, the defender intercepts when it
can), fouls now and then when nothing else answers, always takes its reward, plays
Lucky shot and Goalie when it can, and in the pro league raises the stakes when it
holds a strong answer. Part of the pure engine: it imports the engine's modules only.
"""

from __future__ import annotations

import random
from typing import Any

from partita.games.forceball.cards import ATTACK_TYPES, DEFENCE_TYPES
from partita.games.forceball.rules import ForceballRules
from partita.games.forceball.sampler import ManeuverPlan, plan_increases
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
    RewardHand,
    RewardSpeed,
    Special,
    SpeedUp,
    Stakes,
    Transform,
    Turn,
)

__all__ = ["heuristic_turn"]


def heuristic_turn(rules: ForceballRules, state: ForceballState, rng: random.Random) -> Turn:
    """One turn of the seeded heuristic player (see the module docstring), built
    action by action on the engine's turn runner."""
    runner = TurnRunner(rules, state)
    actions: list[Action] = []

    def do(action: Action) -> None:
        actions.append(action)
        reason = runner.step(action)
        assert reason is None, (action, reason)

    def open_turn() -> bool:
        return runner.stage in (Stage.START, Stage.DRAWN, Stage.ADJUSTED)

    mover = runner.mover
    hand = runner.hands[mover]
    speed = runner.speed[mover]
    top = runner.draw[0] if runner.draw else None
    avoid = top is not None and rules.stress[top] and rng.random() < 0.6
    if runner.must_draw or (len(hand) < 6 and not avoid and rng.random() < 0.9):
        do(Draw())
    if open_turn() and hand:
        if len(speed) < 3 and rng.random() < 0.8:
            spare = _spare_card(rules, hand, len(speed), mover == runner.attacker)
            do(SpeedUp(rules.ids[spare]))
        elif rules.level >= JUNIOR and len(speed) > 3 and rng.random() < 0.5:
            count = 0
            for card in runner.draw[:2]:
                if rules.stress[card]:
                    break
                count += 1
            do(Transform(count))
    if open_turn():
        stake_first = (
            rules.level >= PRO
            and runner.requester != mover
            and runner.piles[1 - mover]
            and rng.random() < 0.15
        )
        if stake_first:
            do(Stakes(rng.random() < 0.6))
    if open_turn():
        choice = _choose(runner, rules, rng)
        if choice is None:
            do(End())
        else:
            do(Play(rules.ids[choice.card], choice.declared))
            if choice.from_speed:
                do(ForceSpeed(choice.from_speed))
            for extra in choice.from_hand:
                do(ForceHand(rules.ids[extra]))
            if choice.declared is not None:
                pile = runner.draw if runner.referee_pile() == "draw" else runner.discard
                if pile:
                    do(RefereeCheck(rules.ids[rng.choice(pile)]))
    if runner.stage == Stage.NEED_END:
        do(End())
    if runner.stage == Stage.WON:
        winner = runner.winner
        specials = []
        if winner == runner.attacker and runner.win_type in ("Pass", "Dribble"):
            specials = [c for c in runner.hands[winner] if rules.lucky[c]]
        elif winner != runner.attacker and runner.win_type in ("Block", "Tackle"):
            specials = [c for c in runner.hands[winner] if rules.goalie[c]]
        if specials:
            do(Special(rules.ids[specials[0]]))
        if runner.win_type in ("Pass", "Block"):
            do(RewardHand(min(3, len(runner.draw) + 1)))
        elif runner.win_type in ("Dribble", "Tackle"):
            cards = sorted(runner.draw[:2], key=lambda c: rules.speed_of[c])
            wanted = [rules.ids[c] for c in cards]
            if len(runner.draw) < 2:
                wanted.append(EMPTY)
            do(RewardSpeed(tuple(wanted)))
    return Turn(tuple(actions))


def _spare_card(rules: ForceballRules, hand: list[int], speed: int, attacking: bool) -> int:
    """The card to put on the speed pile: one the player could not make a maneuver
    with at the new speed (a card of the other side, or too fast), the weakest
    first; otherwise the weakest card. A player keeps what he can play now."""

    def playable(card: int) -> bool:
        info = rules.cards[card]
        natural = info.attack_type if attacking else info.defence_type
        return natural is not None and info.speed <= speed + 1

    keep = [card for card in hand if playable(card)]
    spares = [card for card in hand if not playable(card)] if len(keep) < 3 else hand
    return min(spares or hand, key=lambda card: (rules.force[card], rules.ids[card]))


def _choose(runner: TurnRunner, rules: ForceballRules, rng: random.Random) -> ManeuverPlan | None:
    """The cheapest answer (fewest increase cards, then the weakest card), preferring
    a Shot as the attacker and an Interception as the defender; a foul if nothing
    else answers (senior); ``None``: do not respond."""
    mover = runner.mover
    hand = runner.hands[mover]
    speed = runner.speed[mover]
    attacking = mover == runner.attacker
    allowed = ATTACK_TYPES if attacking else DEFENCE_TYPES
    favourite = "Shot" if attacking else "Interception"
    options: list[tuple[tuple[Any, ...], ManeuverPlan]] = []
    for card in hand:
        info = rules.cards[card]
        if info.speed > len(speed):
            continue
        natural = info.attack_type if attacking else info.defence_type
        kinds: list[tuple[str, str | None]] = [(natural, None)] if natural else []
        if rules.level >= SENIOR:
            kinds += [(kind, kind) for kind in allowed if not info.has_type(kind)]
        for kind, declared in kinds:
            plan = plan_increases(rules, card, kind, runner.beat, speed, hand)
            if plan is None:
                continue
            from_speed, from_hand = plan
            cost = (
                declared is not None,
                kind != favourite
                or (attacking and not runner.piles[1 - mover] and rng.random() < 0.7),
                from_speed + len(from_hand),
                info.force,
                rules.ids[card],
            )
            options.append((cost, ManeuverPlan(card, declared, from_speed, from_hand)))
    if not options:
        return None
    options.sort()
    best_cost, best = options[0]
    if best_cost[0] and rng.random() < 0.5:
        return None  # a foul is a risk: half the time the player gives up instead
    if rng.random() < 0.05:
        return None  # now and then a player saves his strength
    return best
