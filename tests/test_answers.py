"""A move may hold a choice another side makes (``Rules.decisions``: the answer to
raised stakes): searches let that side choose for itself, and a table of agents
asks that side's agent, instead of the mover choosing everybody's part."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.analysis.agents import Agent, agent_from_spec, answered
from partita.analysis.mcts import Mcts
from partita.game.registry import get_game
from partita.game.rules import Decision, Outcome, Rules
from partita.games.forceball.values import Stakes, Turn

# -- a one-move game whose mover asks a question --------------------------------------

REST = ("rest",)
FOLD = ("dare", "fold")
LEFT = ("dare", "take", "left")
RIGHT = ("dare", "take", "right")


@dataclass(frozen=True)
class Dare:
    move: tuple[str, ...] | None = None


class DareRules(Rules):
    """Player1 moves once: rests (a draw) or dares Player2, who folds (Player1 wins)
    or takes the dare; then Player1 goes left or right, and Player2 wins either way.
    Played right, Player1 rests; a mover choosing Player2's answer dares and folds."""

    name = "dare"
    title = "Dare"

    def initial(self, sides: int = 2) -> Dare:
        return Dare()

    def sides(self, state: Dare) -> int:
        return 2

    def side_to_move(self, state: Dare) -> int:
        return 0

    def legal_moves(self, state: Dare) -> list[tuple[str, ...]]:
        return [] if state.move else [REST, FOLD, LEFT, RIGHT]

    def illegal_reason(self, state: Dare, move: tuple[str, ...]) -> str | None:
        return None if move in self.legal_moves(state) else "no such move"

    def apply(self, state: Dare, move: tuple[str, ...]) -> Dare:
        return Dare(move)

    def outcome(self, state: Dare) -> Outcome | None:
        if state.move is None:
            return None
        if state.move == REST:
            return Outcome.draw(2, "rested")
        if state.move == FOLD:
            return Outcome.win_for(0, 2, "Player2 folded")
        return Outcome.win_for(1, 2, "Player2 took the dare")

    def ply(self, state: Dare) -> int:
        return 0 if state.move is None else 1

    def key(self, state: Dare):
        return state.move

    def diagram(self, state: Dare) -> str:
        return str(state.move)


class AnsweredDare(DareRules):
    """The same game, saying that Player2 answers a dare and Player1 goes on."""

    def decisions(self, state: Dare, move: tuple[str, ...]) -> tuple[Decision, ...]:
        sides = (0, 1, 0)
        return tuple(Decision(sides[index], part) for index, part in enumerate(move))

    def answers(self, state: Dare, move: tuple[str, ...], index: int) -> list[tuple[str, ...]]:
        if move[:1] != ("dare",) or index != 1:
            return []
        return [other for other in (FOLD, LEFT, RIGHT) if other[1] != move[1]]


def test_a_search_lets_the_answering_side_answer():
    result = Mcts(AnsweredDare()).search(Dare(), random.Random(1), playouts=200)
    assert result.best == REST
    assert result.exact and result.value == (0.5, 0.5)
    dare = next(item for item in result.moves if item.move != REST)
    assert dare.value[0] == 0.0  # Player2 takes the dare


def test_a_mover_choosing_the_answer_is_what_the_split_prevents():
    result = Mcts(DareRules()).search(Dare(), random.Random(1), playouts=200)
    assert result.best == FOLD and result.value[0] == 1.0


@pytest.mark.parametrize("spec", ["greedy", "mcts:50"])
def test_agents_weigh_a_move_as_the_answering_side_would(spec):
    agent = agent_from_spec(spec, AnsweredDare(), seed=3)
    assert agent.choose(Dare()) == REST
    assert agent.evaluate(Dare()).value[0] == 0.5


def test_the_answering_seats_agent_answers_at_the_table():
    rules = AnsweredDare()
    seats = {
        0: agent_from_spec("greedy", rules, seed=1),
        1: agent_from_spec("greedy", rules, seed=2),
    }
    played = answered(seats, Dare(), FOLD, random.Random(0))
    assert played in (LEFT, RIGHT)  # Player2 took the dare; Player1 went on
    # a seat without an agent (a person) keeps the answer the move made for it
    assert answered({0: seats[0]}, Dare(), FOLD, random.Random(0)) == FOLD
    # a game that splits nothing plays the move as it is
    plain = {0: agent_from_spec("greedy", DareRules(), seed=1)}
    assert answered(plain, Dare(), FOLD) == FOLD


# -- Forceball: the stakes answer and the winner's part are the opponent's -----------


def forceball(league: str = "pro"):
    return get_game("forceball").configure({"League": league})


def turns_of(seed: int, league: str = "pro", plies: int = 400):
    """``(state, move)`` of a seeded random game's turns."""
    rules = forceball(league).rules
    rng = random.Random(seed)
    state = rules.initial(2)
    for _ in range(plies):
        if rules.outcome(state) is not None:
            return
        move = rules.sample_move(state, rng)
        if isinstance(move, Turn):
            yield state, move
        state = rules.apply(state, move)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_forceball_answers_share_the_choices_before_and_differ_at_the_answer(seed):
    rules = forceball().rules
    split = 0
    for state, move in turns_of(seed):
        steps = rules.decisions(state, move)
        assert steps[0].side == state.to_move
        for index, step in enumerate(steps):
            if step.side == state.to_move:
                assert rules.answers(state, move, index) == []
                continue
            split += 1
            assert step.side == 1 - state.to_move
            for other in rules.answers(state, move, index):
                assert rules.illegal_reason(state, other) is None
                theirs = rules.decisions(state, other)
                assert theirs[:index] == steps[:index]
                assert theirs[index] != step
    assert split


def test_a_stakes_request_is_answered_by_the_other_seat():
    game = forceball()
    rules = game.rules

    class Declines(Agent):
        """Declines raised stakes whenever asked, else as greedy would."""

        def __init__(self) -> None:
            super().__init__(game, "declines", 0)
            self.inner = agent_from_spec("greedy", game, seed=0)

        def evaluate(self, state, rng=None, *, viewer=None, history=(), within=None):
            return self.inner.evaluate(state, rng, viewer=viewer, history=history, within=within)

        def answer(self, state, options, side, rng=None, history=()):
            for index, option in enumerate(options):
                if any(isinstance(a, Stakes) and not a.accepted for a in option.actions):
                    return index
            return 0

    asked = 0
    for state, move in turns_of(5, plies=600):
        requests = [a for a in move.actions if isinstance(a, Stakes)]
        if not requests or not requests[0].accepted:
            continue
        mover = state.to_move
        seats = {mover: agent_from_spec("greedy", game, seed=1), 1 - mover: Declines()}
        played = answered(seats, state, move, random.Random(0))
        stakes = [a for a in played.actions if isinstance(a, Stakes)]
        assert stakes == [Stakes(False)], game.format_move(state, played)
        assert rules.illegal_reason(state, played) is None
        asked += 1
        if asked == 3:
            break
    assert asked
