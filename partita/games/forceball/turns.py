"""Every Forceball turn a player can choose, for a player's list of moves
(:meth:`ForceballRules.playable_moves`: `partita play`'s ``moves`` and Tab, the
web page's legal-move list).

A turn is built action by action on a :class:`~.turn.TurnRunner` in the
rulebook's order, every branch checked by the runner as it is taken: raised
stakes (requested at the start of the turn), the draw, one speed adjustment, then
either ``/`` with the winner's Lucky shot or Goalie and reward, or a maneuver (its
card as it is or, fouling, declared as another type), its increases (speed cards,
then hand cards of its type) and, after a foul, the referee check. Turns that
leave the same table are listed once (the first, shortest spelling): a referee
check is listed with one card of each kind it can reveal, since only whether the
card is a Referee card changes the game; the opponent's Lucky shot or Goalie, from
a hand the player cannot see, is not listed (it is typed). A list is read before
the turn, so it names only the cards the player sees then (his hand and speed pile,
the maneuver piles, the draw pile's top card): a turn that names another (the
card a second draw brings, a referee check or a reward below the top) is typed. Restructuring the hand (``#c,c>n``: any
set of cards, up to as many draws) is left out of the list, which it would
multiply a hundredfold; it is typed in full, and checked like any turn.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from copy import copy
from itertools import combinations
from typing import TYPE_CHECKING

from partita.games.forceball.cards import ATTACK_TYPES, DEFENCE_TYPES
from partita.games.forceball.turn import Stage, TurnRunner
from partita.games.forceball.values import (
    EMPTY,
    JUNIOR,
    PRO,
    SENIOR,
    TURN,
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
    SpeedDown,
    SpeedSwap,
    SpeedUp,
    Stakes,
    Transform,
    Turn,
)

if TYPE_CHECKING:
    from partita.games.forceball.rules import ForceballRules

__all__ = ["every_turn", "winner_parts"]

#: The most turns listed (a bound on the work and on the list a player reads).
LIMIT = 2_000


def _clone(runner: TurnRunner) -> TurnRunner:
    """A copy of a runner whose table can be changed without changing the first."""
    twin = copy(runner)
    twin.draw = list(runner.draw)
    twin.discard = list(runner.discard)
    twin.hands = [list(hand) for hand in runner.hands]
    twin.speed = [list(pile) for pile in runner.speed]
    twin.piles = [list(pile) for pile in runner.piles]
    twin.scores = list(runner.scores)
    if runner.maneuver is not None:
        twin.maneuver = copy(runner.maneuver)
        twin.maneuver.increases = list(runner.maneuver.increases)
    return twin


def _after(runner: TurnRunner, action: Action) -> TurnRunner | None:
    twin = _clone(runner)
    return None if twin.step(action) is not None else twin


def every_turn(rules: ForceballRules, state: ForceballState, limit: int = LIMIT) -> list[Turn]:
    """The turns the player to move can choose (see the module docstring), each
    leaving a different table, in the order a player reads them."""
    if state.phase != TURN:
        return []
    mover = state.to_move
    seen = {*state.hands[mover], *state.speed[mover], *state.draw[:1]}
    for pile in state.piles:
        for maneuver in pile:
            seen.update((maneuver.card, *maneuver.increases))
    visible = {rules.ids[card] for card in seen}
    found: dict[Hashable, Turn] = {}
    for actions, runner in _turns(rules, TurnRunner(rules, state)):
        if not _named(actions) <= visible:
            continue  # it names a card the player cannot see now
        if _clone(runner).finish() is not None:
            continue
        finished = _clone(runner)
        finished.finish()
        key = rules.key(finished.freeze())
        if key not in found:
            found[key] = Turn(actions)
            if len(found) >= limit:
                break
    return list(found.values())


def _named(actions: tuple[Action, ...]) -> set[str]:
    """The cards a turn's token names."""
    names: set[str] = set()
    for action in actions:
        if isinstance(action, (SpeedUp, SpeedSwap, Play, ForceHand, RefereeCheck, Special)):
            names.add(action.card)
        elif isinstance(action, RewardSpeed):
            names.update(card for card in action.cards if card != EMPTY)
    return names


def _turns(
    rules: ForceballRules, start: TurnRunner
) -> Iterator[tuple[tuple[Action, ...], TurnRunner]]:
    openings: list[tuple[tuple[Action, ...], TurnRunner]] = [((), start)]
    if rules.level >= PRO and start.requester != start.mover and start.piles[1 - start.mover]:
        for accepted in (True, False):
            runner = _after(start, Stakes(accepted))
            if runner is not None:
                if runner.stage == Stage.DONE:
                    yield (Stakes(accepted),), runner
                else:
                    openings.append(((Stakes(accepted),), runner))
    for prefix, runner in openings:
        drawn = _after(runner, Draw())
        choices = [(prefix, runner)] if not runner.must_draw else []
        if drawn is not None:
            choices.insert(0, ((*prefix, Draw()), drawn))
        for actions, table in choices:
            if table.stage in (Stage.NEED_END, Stage.DONE):
                yield from _ending(rules, actions, table)
                continue
            for adjusted, after in _adjustments(rules, actions, table):
                yield from _rest(rules, adjusted, after)


def _adjustments(
    rules: ForceballRules, actions: tuple[Action, ...], runner: TurnRunner
) -> Iterator[tuple[tuple[Action, ...], TurnRunner]]:
    yield actions, runner
    hand = sorted(runner.hands[runner.mover])
    options: list[Action] = [SpeedUp(rules.ids[card]) for card in hand]
    if rules.level >= JUNIOR:
        options.append(SpeedDown())
        options += [SpeedSwap(rules.ids[card]) for card in hand]
        options += [Transform(count) for count in range(3)]
    for action in options:
        after = _after(runner, action)
        if after is not None:
            yield (*actions, action), after


def _rest(
    rules: ForceballRules, actions: tuple[Action, ...], runner: TurnRunner
) -> Iterator[tuple[tuple[Action, ...], TurnRunner]]:
    """After the adjustment: not responding, or a maneuver."""
    if runner.stage in (Stage.NEED_END, Stage.DONE):
        yield from _ending(rules, actions, runner)
        return
    yield from _ending(rules, actions, runner)
    mover = runner.mover
    attacking = mover == runner.attacker
    allowed = ATTACK_TYPES if attacking else DEFENCE_TYPES
    for card in sorted(runner.hands[mover]):
        card_id = rules.ids[card]
        plays: list[Play] = [Play(card_id)]
        if rules.level >= SENIOR:
            info = rules.cards[card]
            plays += [Play(card_id, kind) for kind in allowed if not info.has_type(kind)]
        for play in plays:
            played = _after(runner, play)
            if played is None:
                continue
            yield from _increases(rules, (*actions, play), played)


def _increases(
    rules: ForceballRules, actions: tuple[Action, ...], runner: TurnRunner
) -> Iterator[tuple[tuple[Action, ...], TurnRunner]]:
    mover = runner.mover
    speeds: list[tuple[tuple[Action, ...], TurnRunner]] = [(actions, runner)]
    if rules.level >= JUNIOR:
        for count in range(1, len(runner.speed[mover]) + 1):
            after = _after(runner, ForceSpeed(count))
            if after is not None:
                speeds.append(((*actions, ForceSpeed(count)), after))
    for prefix, table in speeds:
        maneuver = table.maneuver
        assert maneuver is not None
        same = (
            [c for c in sorted(table.hands[mover]) if rules.cards[c].has_type(maneuver.type)]
            if rules.level >= JUNIOR
            else []
        )
        for size in range(len(same) + 1):
            for cards in combinations(same, size):
                laid = table
                done: tuple[Action, ...] = prefix
                for card in cards:
                    step = _after(laid, ForceHand(rules.ids[card]))
                    if step is None:
                        break
                    laid, done = step, (*done, ForceHand(rules.ids[card]))
                else:
                    yield from _checked(rules, done, laid)


def _checked(
    rules: ForceballRules, actions: tuple[Action, ...], runner: TurnRunner
) -> Iterator[tuple[tuple[Action, ...], TurnRunner]]:
    """A maneuver made: as it stands, or after a foul's referee check (one card of
    each kind the check can reveal)."""
    maneuver = runner.maneuver
    assert maneuver is not None
    if not maneuver.foul:
        yield actions, runner
        return
    pile = runner.draw if runner.referee_pile() == "draw" else runner.discard
    if not pile:
        yield actions, runner
        return
    kinds: dict[bool, int] = {}
    for card in pile:
        kinds.setdefault(rules.referee[card], card)
    for card in kinds.values():
        after = _after(runner, RefereeCheck(rules.ids[card]))
        if after is None:
            continue
        checked = (*actions, RefereeCheck(rules.ids[card]))
        if after.stage == Stage.NEED_END:
            yield from _ending(rules, checked, after)
        else:
            yield checked, after


def _ending(
    rules: ForceballRules, actions: tuple[Action, ...], runner: TurnRunner
) -> Iterator[tuple[tuple[Action, ...], TurnRunner]]:
    """``/`` (where it may come) and the winner's part: his Lucky shot or Goalie,
    then his reward."""
    if runner.stage == Stage.DONE:
        yield actions, runner
        return
    ended = _after(runner, End())
    if ended is None:
        return
    # the winner's Lucky shot or Goalie comes from his hand: listed only where
    # the player to move can see it
    own = ended.winner == ended.mover
    for rest, after in _won(rules, ended, specials=own):
        yield (*actions, End(), *rest), after


def winner_parts(rules: ForceballRules, runner: TurnRunner) -> list[tuple[Action, ...]]:
    """Every part the winner can write after ``/`` (his Lucky shot or Goalie from
    his whole hand, his reward), on a runner that has just played ``/``; for the
    winner's own choice (:mod:`.choices`), not for the mover's list."""
    return [rest for rest, _ in _won(rules, runner, specials=True)]


def _won(
    rules: ForceballRules, ended: TurnRunner, *, specials: bool
) -> Iterator[tuple[tuple[Action, ...], TurnRunner]]:
    """After ``/``: the winner's Lucky shot or Goalie (``specials``: those his hand
    allows) and reward, each with the table after it."""
    options: list[tuple[tuple[Action, ...], TurnRunner]] = [((), ended)]
    if rules.level >= SENIOR and specials:
        for card in sorted(ended.hands[ended.winner]):
            after = _after(ended, Special(rules.ids[card]))
            if after is not None:
                options.append(((Special(rules.ids[card]),), after))
    for prefix, table in options:
        yield prefix, table
        if table.stage == Stage.DONE:
            continue
        rewards: list[Action] = [RewardHand(count) for count in (1, 2, 3)]
        top = [rules.ids[card] for card in table.draw[:2]]
        for size in (1, 2):
            named = top[:size]
            padded = tuple(named) + ((EMPTY,) if len(named) < size else ())
            rewards.append(RewardSpeed(padded))
            if len(named) == 2:
                rewards.append(RewardSpeed((named[1], named[0])))
        for reward in rewards:
            after = _after(table, reward)
            if after is not None:
                yield (*prefix, reward), after
