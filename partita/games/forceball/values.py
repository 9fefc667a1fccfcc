"""Forceball's values: the leagues, the moves and their actions, the table.

Plies (moves) are of three kinds:

* :class:`Shuffle` (the ``CHANCE`` side): the order of the whole deck at the start
  of a period, top card first; the deal follows from it;
* :class:`FaceOff` (the ``CHANCE`` side, the two players' simultaneous choice):
  the card each player shows, Player1's first;
* :class:`Turn` (a player): the turn's actions in the order they happened, the
  winner's Lucky shot or Goalie and reward included when the attack ends within
  the turn.

A turn's actions are small frozen values, one class per action (:data:`Action`),
each named after what the player does and holding what the record writes of it
(the notation's sign is in each docstring). Moves name cards by id, as records do;
states hold the deck's indices (see :class:`ForceballState`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

__all__ = [
    "DEAL",
    "DEFAULT_LEAGUE",
    "EMPTY",
    "FACEOFF",
    "JUNIOR",
    "LEAGUES",
    "LITTLE",
    "OVER",
    "PRO",
    "SENIOR",
    "SHUFFLE",
    "TURN",
    "TYPE_LETTERS",
    "TYPE_OF_LETTER",
    "Action",
    "Draw",
    "End",
    "FaceOff",
    "ForceHand",
    "ForceSpeed",
    "ForceballState",
    "Maneuver",
    "Play",
    "RefereeCheck",
    "Rehand",
    "RewardHand",
    "RewardSpeed",
    "Shuffle",
    "Special",
    "SpeedDown",
    "SpeedSwap",
    "SpeedUp",
    "Stakes",
    "Transform",
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

# Phases of a state: what happens next.
SHUFFLE, FACEOFF, TURN, OVER = "shuffle", "faceoff", "turn", "over"

#: In a Dribble/Tackle reward: a draw attempted on the empty draw pile.
EMPTY = "_"


# -- the actions of a turn ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Draw:
    """``>``: the draw at the start of the turn (one card)."""


@dataclass(frozen=True, slots=True)
class SpeedUp:
    """``+c``: increase the speed with a card from the hand."""

    card: str


@dataclass(frozen=True, slots=True)
class SpeedDown:
    """``-``: decrease the speed (the top speed card back to the hand)."""


@dataclass(frozen=True, slots=True)
class SpeedSwap:
    """``~c``: restructure the speed (a hand card swapped for the top speed card)."""

    card: str


@dataclass(frozen=True, slots=True)
class Transform:
    """``%n``: transform the speed (the top speed card discarded), drawing ``draws``."""

    draws: int


@dataclass(frozen=True, slots=True)
class Rehand:
    """``#c,c>n``: restructure the hand, discarding cards and drawing ``draws``."""

    discards: tuple[str, ...]
    draws: int


@dataclass(frozen=True, slots=True)
class Play:
    """``@c`` or ``@c=S``: make a maneuver with a card; ``declared`` is the type a
    foul declares (``None``: the card counts as itself)."""

    card: str
    declared: str | None = None


@dataclass(frozen=True, slots=True)
class ForceSpeed:
    """``^n``: lay the top ``count`` speed-pile cards on the maneuver."""

    count: int


@dataclass(frozen=True, slots=True)
class ForceHand:
    """``^c``: lay a hand card of the maneuver's type on the maneuver."""

    card: str


@dataclass(frozen=True, slots=True)
class RefereeCheck:
    """``:c``: the card the referee check reveals after a foul."""

    card: str


@dataclass(frozen=True, slots=True)
class Stakes:
    """``*y`` or ``*n``: request raised stakes, and whether the opponent accepts."""

    accepted: bool


@dataclass(frozen=True, slots=True)
class End:
    """``/``: the attack ends here (not responding, a Stress card, a seen foul)."""


@dataclass(frozen=True, slots=True)
class Special:
    """``|c``: the winner's Lucky shot or Goalie card."""

    card: str


@dataclass(frozen=True, slots=True)
class RewardHand:
    """``>n``: the reward of a Pass or Block, ``draws`` cards into the hand."""

    draws: int


@dataclass(frozen=True, slots=True)
class RewardSpeed:
    """``>c,c``: the reward of a Dribble or Tackle, the cards in the order they go
    onto the speed pile (the last on top; :data:`EMPTY` for a draw attempted on the
    empty draw pile)."""

    cards: tuple[str, ...]


#: One action of a turn.
Action: TypeAlias = (
    Draw
    | SpeedUp
    | SpeedDown
    | SpeedSwap
    | Transform
    | Rehand
    | Play
    | ForceSpeed
    | ForceHand
    | RefereeCheck
    | Stakes
    | End
    | Special
    | RewardHand
    | RewardSpeed
)


# -- moves -------------------------------------------------------------------------------------


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
    """One player's turn: its actions in the order they happened."""

    actions: tuple[Action, ...]


# -- the table -----------------------------------------------------------------------------


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
class ForceballState:
    """The whole table.

    ``draw`` lists the draw pile top first; ``discard`` and the speed and maneuver
    piles bottom first (their top is last); hands are sorted by deck order.
    ``period`` counts periods started (0 before the first shuffle); ``to_move`` is
    the seat to move in a turn (``CHANCE`` for a shuffle or a face-off).
    ``worth`` is what the next goal is worth, ``requester`` the seat that asked
    for the last doubling in this attack (-1: none); ``dealt`` is the size of
    the draw pile right after the period's deal (the referee's threshold).
    Every card is in exactly one place at every moment.
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
