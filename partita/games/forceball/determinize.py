"""Forceball from one player's information: what he knows, and tables he cannot tell apart.

What a player sees on the table (the rulebook): his own hand and speed pile (he
may look at it), both maneuver piles (face up), the top card of the draw pile
(the deck lies face up), and the size of every pile. Hidden from him: the
opponent's hand and speed pile, the face-down discard pile and the draw pile below
its top card.

What he saw happen narrows that down (:func:`knowledge`). Every card drawn was
the top of the draw pile when it was drawn, so he knows where each drawn card
went; he saw the maneuver piles discarded and the face-off cards shown; his own
moves he knows. What he cannot see is the opponent moving a card between two
hidden places (a hand card onto the speed pile, a speed card back to the hand, a
card discarded face down): after such a move, every card that might have been in
the place it came from might now be in the place it went to. So each hidden card
carries the set of hidden places it may be in; a shuffle (a new period) forgets
everything.

:func:`determinize` then deals the hidden cards again: each to a place of its set,
every place receiving as many cards as it holds, the cards with the fewest
choices first, each choice weighted by the room left (so the draw is close to
uniform over the tables consistent with what the player knows); the orders
within the draw pile below its top, the discard pile and the opponent's speed
pile are shuffled. Everything the player sees stays as it is and every card
stays on the table exactly once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from partita.games.forceball.rules import ForceballRules
from partita.games.forceball.values import (
    Draw,
    FaceOff,
    ForceballState,
    RefereeCheck,
    Rehand,
    Shuffle,
    SpeedDown,
    SpeedSwap,
    SpeedUp,
    Transform,
    Turn,
)

__all__ = [
    "DISCARD",
    "DRAW",
    "HAND",
    "HIDDEN",
    "SPEED",
    "determinize",
    "hidden_places",
    "knowledge",
]

# The hidden places, from one player's side, as bits of a card's set of places.
DRAW, DISCARD, HAND, SPEED = 1, 2, 4, 8  # draw pile below its top; opponent's hand, speed
HIDDEN = DRAW | DISCARD | HAND | SPEED
#: How many times the dealing may start over before the fallback (see _deal).
_ATTEMPTS = 30


def hidden_places(state: ForceballState, side: int) -> dict[int, int]:
    """Each card that ``side`` cannot see in ``state``, with the hidden place it is in."""
    other = 1 - side
    places = {card: DRAW for card in state.draw[1:]}
    places.update((card, DISCARD) for card in state.discard)
    places.update((card, HAND) for card in state.hands[other])
    places.update((card, SPEED) for card in state.speed[other])
    return places


def knowledge(
    rules: ForceballRules, side: int, history: Sequence[tuple[Any, Any]], state: ForceballState
) -> dict[int, int]:
    """For every card hidden from ``side`` in ``state``: the set (bits) of hidden
    places it may be in, given what ``side`` saw in ``history`` (the ``(state,
    move)`` pairs that led to ``state``). Cards never seen: every hidden place."""
    allowed: dict[int, int] = {}
    states = [before for before, _ in history] + [state]
    moves = [move for _, move in history]
    start = 0
    for index, move in enumerate(moves):
        if isinstance(move, Shuffle):
            start = index + 1  # a new period: the deck is shuffled, nothing is known
    for index in range(start, len(moves)):
        _observe(rules, side, states[index], moves[index], states[index + 1], allowed)
    final = hidden_places(state, side)
    return {card: allowed.get(card, HIDDEN) for card in sorted(final)}


def _observe(
    rules: ForceballRules,
    side: int,
    before: ForceballState,
    move: Any,
    after: ForceballState,
    allowed: dict[int, int],
) -> None:
    """Update ``allowed`` with what ``side`` saw of one move (a turn action by action:
    an opponent's unseen moves in the order the turn made them)."""
    hidden_before = hidden_places(before, side)
    seen_drawn: set[int] = set()
    draw = before.draw
    drawn = 0

    def seen(card: int, place: int) -> None:
        allowed[card] = place

    def unseen(source: int, target: int) -> None:
        for card, mask in allowed.items():  # a card not in allowed may be anywhere already
            if mask & source:
                allowed[card] = mask | target

    def draws(count: int, into: int) -> None:
        nonlocal drawn
        for card in draw[drawn : drawn + max(count, 0)]:
            seen_drawn.add(card)
            if opponent:
                seen(card, into)
        drawn = min(drawn + max(count, 0), len(draw))

    opponent = isinstance(move, Turn) and before.to_move != side
    if isinstance(move, FaceOff):
        for card_id in (move.first, move.second):
            seen(rules.index[card_id], DISCARD)  # shown, then discarded
    elif isinstance(move, Turn):
        for action in move.actions:
            if isinstance(action, Draw):
                draws(1, HAND)
            elif isinstance(action, Transform):
                if opponent:
                    unseen(SPEED, DISCARD)
                draws(action.draws, HAND)
            elif isinstance(action, Rehand):
                if opponent:
                    unseen(HAND, DISCARD)
                draws(action.draws, HAND)
            elif isinstance(action, SpeedUp) and opponent:
                unseen(HAND, SPEED)
            elif isinstance(action, SpeedDown) and opponent:
                unseen(SPEED, HAND)
            elif isinstance(action, SpeedSwap) and opponent:
                unseen(HAND, SPEED)
                unseen(SPEED, HAND)
            elif isinstance(action, RefereeCheck):
                card = rules.index[action.card]
                if card in hidden_before:
                    seen(card, hidden_before[card])  # revealed, and left where it lies
    hidden_after = hidden_places(after, side)
    left_draw = set(draw) - set(after.draw)
    for card, place in hidden_after.items():
        if card not in hidden_before and card not in seen_drawn:
            seen(card, place)  # visible before: seen going there (a discarded maneuver...)
        elif card in left_draw and card not in seen_drawn:
            seen(card, place)  # drawn face up as a reward or a new deal: seen going there
        elif not allowed.get(card, HIDDEN) & place:
            # A whole pile moved (after a Shot both speed piles go to the hands):
            # every card of it is where the rules put it.
            allowed[card] = allowed.get(card, HIDDEN) | place
    for card in list(allowed):
        if card not in hidden_after:
            del allowed[card]  # visible now: nothing to remember


def determinize(
    rules: ForceballRules,
    state: ForceballState,
    side: int,
    rng: Any,
    history: Sequence[tuple[Any, Any]] = (),
) -> ForceballState:
    """A table ``side`` cannot tell from ``state`` (see the module docstring)."""
    if state.phase in ("shuffle", "over") or side not in (0, 1):
        return state
    places = hidden_places(state, side)
    if not places:
        return state
    allowed = _known(rules, side, history, state)
    for card, place in places.items():
        if not allowed[card] & place:  # cannot happen; never trust a bad record blindly
            allowed[card] = HIDDEN
    room = {DRAW: len(state.draw) - 1 if state.draw else 0}
    room[DISCARD] = len(state.discard)
    room[HAND] = len(state.hands[1 - side])
    room[SPEED] = len(state.speed[1 - side])
    dealt = _deal(allowed, places, room, rng)
    piles: dict[int, list[int]] = {DRAW: [], DISCARD: [], HAND: [], SPEED: []}
    for card in sorted(dealt):
        piles[dealt[card]].append(card)
    for place in (DRAW, DISCARD, SPEED):
        rng.shuffle(piles[place])
    other = 1 - side
    hands = list(state.hands)
    hands[other] = tuple(sorted(piles[HAND]))
    speed = list(state.speed)
    speed[other] = tuple(piles[SPEED])
    draw = state.draw[:1] + tuple(piles[DRAW])
    return replace(
        state,
        draw=draw,
        discard=tuple(piles[DISCARD]),
        hands=(hands[0], hands[1]),
        speed=(speed[0], speed[1]),
    )


#: The last :func:`knowledge` asked for, by identity of its arguments: a search
#: draws several tables from one position and history, and replaying the history
#: for each is most of a draw's cost.
_last: list[Any] = []


def _known(
    rules: ForceballRules, side: int, history: Sequence[tuple[Any, Any]], state: ForceballState
) -> dict[int, int]:
    """:func:`knowledge`, remembered for the last position asked (a fresh copy each time)."""
    last = history[-1][0] if history else None
    if _last:
        (c_rules, c_side, c_state, c_size, c_last, c_allowed) = _last
        if (
            c_rules is rules
            and c_side == side
            and c_state is state
            and c_size == len(history)
            and c_last is last
        ):
            return dict(c_allowed)
    allowed = knowledge(rules, side, history, state)
    _last[:] = [rules, side, state, len(history), last, dict(allowed)]
    return allowed


def _deal(
    allowed: dict[int, int], places: dict[int, int], room: dict[int, int], rng: Any
) -> dict[int, int]:
    """Each hidden card to a place of its set, every place filled to its size.

    The cards with the fewest choices go first, each to a place drawn with weight
    the room left there; a dead end starts over. After ``_ATTEMPTS`` dead ends
    (tight knowledge can make them likely) the table as it is, shaken by random
    exchanges of two cards that may each stand in the other's place, is used: it
    is consistent by construction.
    """
    cards = sorted(allowed)  # what the side knows decides the draw, not where cards lie
    for _ in range(_ATTEMPTS):
        rng.shuffle(cards)
        cards.sort(key=lambda card: allowed[card].bit_count())
        left = dict(room)
        dealt: dict[int, int] = {}
        for card in cards:
            options = [
                place
                for place in (DRAW, DISCARD, HAND, SPEED)
                if allowed[card] & place and left[place]
            ]
            if not options:
                break
            weights = [left[place] for place in options]
            place = rng.choices(options, weights)[0]
            dealt[card] = place
            left[place] -= 1
        else:
            return dealt
    dealt = dict(places)
    for _ in range(4 * len(cards)):
        first, second = rng.sample(cards, 2) if len(cards) > 1 else (cards[0], cards[0])
        a, b = dealt[first], dealt[second]
        if a != b and allowed[first] & b and allowed[second] & a:
            dealt[first], dealt[second] = b, a
    return dealt
