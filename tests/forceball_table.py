"""A small hand-made Forceball deck and helpers that set up a table in position
notation, for the Forceball rules and notation tests.

Card ids say what a card is: ``s2`` is a Shot of force 4 and speed 2 (see DECK).
Every value a test expects is worked out by hand from this table.
"""

from __future__ import annotations

import re

from partita.errors import IllegalMoveError
from partita.games.forceball.cards import Card, Deck
from partita.games.forceball.notation import ForceballNotation
from partita.games.forceball.rules import ForceballRules

#: id, types, force, speed, special
CARDS = [
    ("s1", ("Shot",), 2, 1, None),
    ("s2", ("Shot",), 4, 2, None),
    ("s3", ("Shot",), 6, 3, None),
    ("p1", ("Pass",), 2, 1, None),
    ("p2", ("Pass",), 3, 2, None),
    ("d1", ("Dribble",), 2, 1, None),
    ("d2", ("Dribble",), 3, 2, None),
    ("i1", ("Interception",), 2, 1, None),
    ("i3", ("Interception",), 5, 3, None),
    ("b1", ("Block",), 2, 1, None),
    ("b2", ("Block",), 3, 2, None),
    ("t1", ("Tackle",), 2, 1, None),
    ("t2", ("Tackle",), 3, 2, None),
    ("st", ("Shot", "Tackle"), 4, 2, None),
    ("pb", ("Pass", "Block"), 3, 1, None),
    ("rf", ("Block",), 1, 1, "referee"),
    ("rp", ("Pass",), 1, 2, "referee"),
    ("ls", ("Pass",), 1, 1, "lucky-shot"),
    ("gk", ("Interception",), 1, 1, "goalie"),
    ("sx", ("Dribble",), 1, 1, "stress"),
    ("sy", ("Tackle",), 1, 3, "stress"),
    ("f1", ("Shot",), 1, 1, None),
    ("f2", ("Pass",), 1, 3, None),
    ("f3", ("Tackle",), 0, 2, None),
]
DECK = Deck("test", "hand-made test deck", tuple(Card(*card) for card in CARDS)).validate()
IDS = [card[0] for card in CARDS]
GAMES = {
    league: ForceballNotation(ForceballRules(DECK, league))
    for league in ("little", "junior", "senior", "pro")
}


def table(
    league: str = "senior",
    *,
    next: str = "1",
    attacker: int = 1,
    hand1: str = "",
    hand2: str = "",
    speed1: str = "",
    speed2: str = "",
    pile1: str = "",
    pile2: str = "",
    draw: str = "",
    score: str = "0-0",
    goal: int = 1,
    doubled: str = "-",
    period: int = 1,
    dealt: int | None = None,
):
    """The state of a table where every card not named lies in the discard pile
    (in deck order). ``dealt`` defaults to twice the draw pile, so the referee
    check uses the draw pile unless a test says otherwise."""
    named = set()
    for text in (hand1, hand2, speed1, speed2, pile1, pile2, draw):
        named.update(re.findall(r"[A-Za-z][A-Za-z0-9_]*(?:\.\d+)?", re.sub(r"=[A-Z]", "", text)))
    discard = [card for card in IDS if card not in named]
    size = len(draw.split(",")) if draw else 0
    text = " ".join(
        [
            f"next={next}",
            f"period={period}",
            f"score={score}",
            f"attacker={attacker}",
            f"goal={goal}",
            f"doubled={doubled}",
            f"dealt={2 * size if dealt is None else dealt}",
            f"draw={draw or '-'}",
            f"discard={','.join(discard) or '-'}",
            f"hand1={hand1 or '-'}",
            f"hand2={hand2 or '-'}",
            f"speed1={speed1 or '-'}",
            f"speed2={speed2 or '-'}",
            f"pile1={pile1 or '-'}",
            f"pile2={pile2 or '-'}",
        ]
    )
    return GAMES[league].parse_position(text)


def play(state, *tokens, league: str = "senior"):
    """The state after these turn tokens (checked path)."""
    game = GAMES[league]
    for token in tokens:
        state = game.rules.apply(state, game.parse_move(state, token))
    return state


def refused(state, token: str, league: str = "senior") -> str:
    """Why a token is illegal here (fails the test if it is legal)."""
    game = GAMES[league]
    try:
        game.parse_move(state, token)
    except IllegalMoveError as error:
        return str(error)
    raise AssertionError(f"{token} was accepted")


def ids(state_part) -> list[str]:
    return [IDS[card] for card in state_part]


def hand(state, seat: int) -> list[str]:
    return sorted(ids(state.hands[seat]))


def discard(state) -> list[str]:
    return sorted(ids(state.discard))


def maneuvers(state, seat: int) -> list[str]:
    """The cards of a player's maneuvers, oldest first."""
    return [IDS[maneuver.card] for maneuver in state.piles[seat]]
