"""What a Forceball ply made happen, in a player's words: goals, fouls, stakes,
Stress, rewards, the end of a period.

The shipped example records' comments (``tools/examples/forceball.py``) and a game being played
(:meth:`ForceballRules.events`) narrate from this one place. Told to a ``viewer``
seat, the narration names no card the rules hide from that seat: the deal names
only the viewer's hand, and a Stress card drawn by the opponent is not named.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from partita.games.forceball.values import (
    TURN,
    Draw,
    End,
    FaceOff,
    ForceballState,
    ForceHand,
    ForceSpeed,
    Play,
    RefereeCheck,
    Rehand,
    RewardHand,
    RewardSpeed,
    Shuffle,
    Special,
    Stakes,
    Transform,
    Turn,
)
from partita.games.forceball.words import with_article

if TYPE_CHECKING:
    from partita.games.forceball.rules import ForceballRules

__all__ = ["narrate"]


def _seat(seat: int, names: Sequence[str]) -> str:
    return names[seat].split()[0]


def narrate(
    rules: ForceballRules,
    state: ForceballState,
    move: Any,
    after: ForceballState,
    names: Sequence[str],
    seen: set[str],
    viewer: int | None = None,
) -> tuple[list[str], list[str]]:
    """The events of one ply (short names: ``goal``, ``seen foul``...) and its
    notes (sentences); ``seen``: the events told before (two turns in a row is
    told once), updated; ``viewer``: told to that seat only (see the module)."""
    events: list[str] = []
    notes: list[str] = []
    ids = rules.ids
    if isinstance(move, Shuffle):
        if viewer is None:
            notes.append(
                f"Period {after.period}: the shuffled deck deals {_seat(0, names)} "
                f"{', '.join(ids[c] for c in after.hands[0])} and {_seat(1, names)} "
                f"{', '.join(ids[c] for c in after.hands[1])}; {len(after.draw)} cards stay "
                "face up in the draw pile"
            )
        else:
            notes.append(
                f"Period {after.period}: the shuffled deck deals {_seat(viewer, names)} "
                f"{', '.join(ids[c] for c in after.hands[viewer])} and "
                f"{_seat(1 - viewer, names)} {len(after.hands[1 - viewer])} cards; "
                f"{len(after.draw)} cards stay face up in the draw pile"
            )
    elif isinstance(move, FaceOff):
        first, second = rules.index[move.first], rules.index[move.second]
        shown = f"{rules.card_text(first)} against {rules.card_text(second)}"
        if after.phase == TURN:
            notes.append(f"Face-off: {shown}; {_seat(after.attacker, names)} attacks first")
        else:
            events.append("face-off again")
            notes.append(f"Face-off: {shown}, no winner: show again")
    elif isinstance(move, Turn):
        _turn(rules, state, move, after, names, seen, viewer, events, notes)
    seen.update(events)
    return events, notes


def _turn(
    rules: ForceballRules,
    state: ForceballState,
    move: Turn,
    after: ForceballState,
    names: Sequence[str],
    seen: set[str],
    viewer: int | None,
    events: list[str],
    notes: list[str],
) -> None:
    ids = rules.ids
    mover = state.to_move
    kinds = {type(action) for action in move.actions}
    if Transform in kinds:
        events.append("transform")
    if ForceSpeed in kinds or ForceHand in kinds:
        events.append("increase")
    for action in move.actions:
        if isinstance(action, Play) and action.declared is not None:
            referee = [a.card for a in move.actions if isinstance(a, RefereeCheck)]
            card = referee[0] if referee else None
            fouled = f"{action.card} is played as {with_article(action.declared)}"
            if card and rules.referee[rules.index[card]]:
                events.append("seen foul")
                notes.append(
                    f"Foul: {fouled}, but the referee check "
                    f"reveals {card}, a Referee card: the maneuver is forfeit"
                )
            else:
                events.append("unseen foul")
                check = f"the referee check reveals {card}" if card else "no referee"
                notes.append(f"Foul: {fouled}; {check}")
        if isinstance(action, Stakes):
            if action.accepted:
                events.append("stakes accepted")
                notes.append(
                    f"{_seat(mover, names)} raises the stakes and {_seat(1 - mover, names)} accepts"
                )
            else:
                events.append("stakes declined")
                notes.append(
                    f"{_seat(mover, names)} raises the stakes; {_seat(1 - mover, names)} "
                    f"declines and gives away {state.worth}"
                )
        if isinstance(action, Special):
            special = rules.index[action.card]
            if rules.lucky[special]:
                events.append("lucky shot")
                notes.append(f"Lucky shot {action.card}: the won maneuver becomes a Shot")
            else:
                events.append("goalie")
                notes.append(
                    f"Goalie {action.card}: the won maneuver becomes an Interception and "
                    f"{_seat(1 - mover, names)} takes the ball"
                )
        if isinstance(action, RewardHand):
            events.append("pass reward")
            notes.append(
                f"{_seat(1 - mover, names)} wins the attack with a Pass or Block and "
                f"draws {action.draws} cards as the reward"
            )
        if isinstance(action, RewardSpeed):
            events.append("dribble reward")
            notes.append(
                f"{_seat(1 - mover, names)} wins the attack with a Dribble or Tackle and "
                f"puts {', '.join(action.cards)} on the speed pile, the last on top"
            )
    drawn = 0
    for action in move.actions:
        if isinstance(action, End):
            break
        if isinstance(action, Draw):
            drawn += 1
        elif isinstance(action, (Transform, Rehand)):
            drawn += action.draws
    else:
        drawn = 0  # no '/': the turn's maneuver stood, no Stress ended it
    last = state.draw[drawn - 1] if 0 < drawn <= len(state.draw) else None
    if last is not None and rules.stress[last] and Play not in kinds:
        events.append("stress")
        if viewer is None or viewer == mover:
            notes.append(f"Stress: {ids[last]} is drawn and ends the turn")
        else:
            notes.append(f"Stress: {_seat(mover, names)} draws a Stress card, which ends the turn")
    gained = [after.scores[s] - state.scores[s] for s in (0, 1)]
    for seat in (0, 1):
        if gained[seat] and Stakes(False) not in move.actions:
            events.append("goal")
            notes.append(
                f"Goal for {_seat(seat, names)} ({gained[seat]}): "
                f"{after.scores[0]}-{after.scores[1]}"
            )
    if (
        End in kinds
        and not any(gained)
        and after.phase == TURN
        and after.attacker != state.attacker
        and (Special not in kinds)
    ):
        events.append("interception")
        notes.append(f"{_seat(after.attacker, names)} takes the ball")
    if after.phase == TURN and after.to_move == mover and "two in a row" not in seen:
        events.append("two in a row")
        notes.append(
            f"{_seat(mover, names)} took the last turn of the attack and opens the "
            "next one: two turns in a row"
        )
    if after.phase != TURN:
        events.append("period end")
        notes.append(
            f"The draw pile is empty: period {state.period} ends at "
            f"{after.scores[0]}-{after.scores[1]}"
        )
