"""Who decides which part of a Forceball turn (:meth:`ForceballRules.decisions`),
and the other answers a turn could have had (:meth:`ForceballRules.answers`).

A turn is one token written by its mover, but two parts of it are the opponent's
to choose (the rulebook): the answer to the raised stakes the mover requests
(``*y`` accept, ``*n`` decline), and, once ``/`` has ended the attack, the
winner's Lucky shot or Goalie and reward. The winner after ``/`` is always the
opponent (the mover lost the attack by not responding, a Stress card or a seen
foul). So a turn splits into the mover's actions up to the request (the request
itself the last), the opponent's answer, the mover's actions after it, and after
``/`` the winner's part; a search lets each side make its own part, and a table
of agents asks the opponent's agent for his.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from partita.game.rules import Decision
from partita.games.forceball.turn import TurnRunner
from partita.games.forceball.values import TURN, Draw, End, ForceballState, Play, Stakes, Turn

if TYPE_CHECKING:
    from partita.games.forceball.rules import ForceballRules

__all__ = ["REQUEST", "answers", "choice_start", "decisions"]

#: Ends the mover's part of a turn that requests raised stakes.
REQUEST = "*"


def decisions(state: ForceballState, move: Any) -> tuple[Decision, ...]:
    """The parts of ``move`` in the order they are chosen, each with its chooser."""
    mover = state.to_move
    if not isinstance(move, Turn) or state.phase != TURN:
        return (Decision(mover, move),)
    other = 1 - mover
    steps: list[Decision] = []
    part: list[Any] = []
    for index, action in enumerate(move.actions):
        if isinstance(action, Stakes):
            steps.append(Decision(mover, (*part, REQUEST)))
            steps.append(Decision(other, action.accepted))
            part = []
        elif isinstance(action, End):
            steps.append(Decision(mover, (*part, action)))
            steps.append(Decision(other, move.actions[index + 1 :]))
            return tuple(steps)
        else:
            part.append(action)
    if part or not steps:
        steps.append(Decision(mover, tuple(part)))
    return tuple(steps)


def answers(rules: ForceballRules, state: ForceballState, move: Any, index: int) -> list[Turn]:
    """Legal turns that share ``move``'s first ``index`` parts and differ in the
    opponent's part at ``index``: the other stakes answer (after an acceptance,
    the mover's simplest ways on: not responding, or a card played as it is, each
    with and without the draw), or every other Lucky shot or Goalie and reward of
    the winner (his whole hand considered: the table holds it)."""
    steps = decisions(state, move)
    if not isinstance(move, Turn) or not 0 < index < len(steps):
        return []
    if steps[index].side == steps[0].side:
        return []
    actions = move.actions
    cut = _position(steps, index)  # actions[:cut] are the parts before the answer
    found: list[Turn] = []
    if isinstance(actions[cut - 1], End):
        from partita.games.forceball.turns import winner_parts

        runner = TurnRunner(rules, state)
        for action in actions[:cut]:
            if runner.step(action) is not None:
                return []
        for rest in winner_parts(rules, runner):
            if rest != actions[cut:]:
                found.append(Turn((*actions[:cut], *rest)))
        return found
    before = actions[:cut]  # up to and including the request (``Stakes``)
    request = before[-1]
    assert isinstance(request, Stakes)
    asked = before[:-1]
    if request.accepted:
        turn = Turn((*asked, Stakes(False)))
        return [turn] if rules.illegal_reason(state, turn) is None else []
    accepted = (*asked, Stakes(True))
    suffixes: list[tuple[Any, ...]] = [(), (End(),), (Draw(), End()), (Draw(),)]
    mover = state.to_move
    for card in sorted(state.hands[mover]):
        play = Play(rules.ids[card])
        suffixes += [(play,), (Draw(), play)]
    for suffix in suffixes:
        turn = Turn((*accepted, *suffix))
        if rules.illegal_reason(state, turn) is None:
            found.append(turn)
    return found


def choice_start(state: ForceballState, move: Any, index: int) -> int:
    """How many of the turn's actions come before its part ``index`` (a request
    counts its ``Stakes`` action, a winner's part the ``/`` before it)."""
    return _position(decisions(state, move), index)


def _position(steps: tuple[Decision, ...], index: int) -> int:
    """How many of the turn's actions the parts before ``index`` take."""
    taken = 0
    for step in steps[:index]:
        choice = step.choice
        if isinstance(choice, tuple):
            taken += len(choice)  # the mover's actions (the request marker stands for ``Stakes``)
        # a stakes answer is the ``Stakes`` action the request marker counted
    return taken
