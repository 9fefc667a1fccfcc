"""Forceball from one player's information: determinized tables keep what the player
sees and knows, conserve the cards, and searches cannot peek."""

from __future__ import annotations

import random

from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.analysis.agents import agent_from_spec
from partita.analysis.mcts import Mcts
from partita.game.registry import get_game
from partita.games.forceball.determinize import (
    DISCARD,
    HAND,
    HIDDEN,
    SPEED,
    hidden_places,
    knowledge,
)
from partita.games.forceball.rules import ForceballRules
from partita.games.forceball.values import Draw, End, RewardSpeed, SpeedUp, Turn

FORCEBALL = get_game("forceball")
LEAGUES = ("little", "junior", "senior", "pro")


def rules_of(league: str) -> ForceballRules:
    return FORCEBALL.rules.configure({"League": league})


def random_history(rules: ForceballRules, seed: int, plies: int) -> tuple[list, object]:
    """``(history, state)`` after up to ``plies`` random plies (the game not over)."""
    rng = random.Random(seed)
    state = rules.initial()
    history = []
    for _ in range(plies):
        move = rules.sample_move(state, rng)
        after = rules.apply(state, move)
        if rules.outcome(after) is not None:
            break
        history.append((state, move))
        state = after
    return history, state


def visible(state, side: int) -> tuple:
    """Everything ``side`` sees of a table."""
    other = 1 - side
    return (
        state.phase,
        state.to_move,
        state.period,
        state.scores,
        state.attacker,
        state.worth,
        state.requester,
        state.dealt,
        state.draw[:1],
        len(state.draw),
        len(state.discard),
        state.hands[side],
        len(state.hands[other]),
        state.speed[side],
        len(state.speed[other]),
        state.piles,
    )


@settings(max_examples=examples(60, fast=15), deadline=None)
@given(
    league=st.sampled_from(LEAGUES),
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, 150),
    side=st.sampled_from((0, 1)),
)
def test_a_determinized_table_keeps_what_the_side_sees_and_every_card(league, seed, plies, side):
    rules = rules_of(league)
    history, state = random_history(rules, seed, plies)
    known = knowledge(rules, side, history, state)
    # The knowledge never contradicts the table: each hidden card may be where it is.
    for card, place in hidden_places(state, side).items():
        assert known[card] & place
    for draw in range(3):
        table = rules.determinize(state, side, random.Random(draw), history)
        assert visible(table, side) == visible(state, side)
        assert sorted(rules.card_places(table)) == list(range(len(rules.cards)))
        for card, place in hidden_places(table, side).items():
            assert known[card] & place  # and each is put where the side knows it may be


def test_the_opponents_hand_is_resampled():
    rules = rules_of("junior")
    history, state = random_history(rules, 3, 6)
    side = 0
    hands = {rules.determinize(state, side, random.Random(i)).hands[1] for i in range(20)}
    assert len(hands) > 1
    assert all(len(hand) == len(state.hands[1]) for hand in hands)


def test_a_card_seen_drawn_by_the_opponent_stays_in_its_hand():
    # The draw pile lies face up: the card the opponent draws was seen on top.
    rules = rules_of("junior")
    history, state = random_history(rules, 1, 2)  # shuffle and face-off done
    rng = random.Random(0)
    while state.phase != "turn":
        move = rules.sample_move(state, rng)
        history.append((state, move))
        state = rules.apply(state, move)
    mover = state.to_move
    top = state.draw[0]
    turn = Turn((Draw(), End()))  # draw the top card and give the attack up
    history.append((state, turn))
    state = rules.apply(state, turn)
    viewer = 1 - mover
    assert top in state.hands[mover]
    assert knowledge(rules, viewer, history, state)[top] == HAND
    for draw in range(10):
        table = rules.determinize(state, viewer, random.Random(draw), history)
        assert top in table.hands[mover]


def test_an_unseen_move_widens_what_the_side_knows():
    # After the opponent puts a hand card face down on its speed pile, any card known
    # to be in its hand may now be on the speed pile.
    rules = rules_of("junior")
    history, state = random_history(rules, 8, 2)
    rng = random.Random(1)
    while state.phase != "turn":
        move = rules.sample_move(state, rng)
        history.append((state, move))
        state = rules.apply(state, move)
    mover = state.to_move
    top = state.draw[0]
    draw_only = Turn((Draw(), End()))
    history.append((state, draw_only))
    state = rules.apply(state, draw_only)
    viewer = 1 - mover
    give_up = Turn((End(),))  # the viewer gives the ball back at once
    history.append((state, give_up))
    state = rules.apply(state, give_up)
    assert state.to_move == mover and top in state.hands[mover]
    spare = next(card for card in state.hands[mover] if card != top)
    speed_up = Turn((SpeedUp(rules.ids[spare]), End()))
    history.append((state, speed_up))
    state = rules.apply(state, speed_up)
    assert top in state.hands[mover]  # the table says so; the viewer cannot tell
    assert knowledge(rules, viewer, history, state)[top] == HAND | SPEED


def test_a_shuffle_forgets_everything():
    rules = rules_of("pro")
    history, state = random_history(rules, 2, 1)  # just the shuffle
    known = knowledge(rules, 0, history, state)
    assert set(known.values()) == {HIDDEN}
    assert DISCARD & HIDDEN


def test_searches_cannot_peek_at_what_the_side_does_not_see():
    rules = rules_of("senior")
    _, state = random_history(rules, 5, 8)
    rng = random.Random(0)
    while rules.side_to_move(state) < 0:
        state = rules.apply(state, rules.sample_move(state, rng))
    side = rules.side_to_move(state)
    twin = rules.determinize(state, side, random.Random(9))  # same view, other hidden cards
    assert twin != state and visible(twin, side) == visible(state, side)
    for spec in ("mcts:40", "greedy"):
        agent = agent_from_spec(spec, rules, seed=1)
        first = agent.evaluate(state, random.Random(3))
        second = agent.evaluate(twin, random.Random(3))
        assert (first.value, [m.move for m in first.moves]) == (
            second.value,
            [m.move for m in second.moves],
        )


def _rewards(move: Turn) -> list[RewardSpeed]:
    return [action for action in move.actions if isinstance(action, RewardSpeed)]


def test_a_reward_chosen_on_a_determinized_table_takes_the_real_cards():
    """A Dribble's or Tackle's reward names cards from below the draw pile's top,
    which the mover cannot see: chosen on a determinized table, it names the wrong
    ones, and ``realize`` puts the real ones in, keeping how many he takes."""
    mended = 0
    for league in ("little", "pro"):
        rules = rules_of(league)
        rng = random.Random(league)
        state = rules.initial()
        history: list = []
        for _ in range(300):
            if rules.outcome(state) is not None or mended >= 10:
                break
            side = rules.side_to_move(state)
            for _ in range(10 if side >= 0 else 0):
                move = rules.sample_move(rules.determinize(state, side, rng, history), rng)
                if not isinstance(move, Turn) or not _rewards(move):
                    continue
                real = rules.realize(state, move)
                assert [len(reward.cards) for reward in _rewards(real)] == [
                    len(reward.cards) for reward in _rewards(move)
                ]
                kept = [a for a in real.actions if not isinstance(a, RewardSpeed)]
                assert kept == [a for a in move.actions if not isinstance(a, RewardSpeed)]
                if rules.illegal_reason(state, move) and rules.illegal_reason(state, real) is None:
                    mended += 1
            move = rules.sample_move(state, rng)
            history.append((state, move))
            state = rules.apply(state, move)
    assert mended >= 10


@settings(max_examples=6, deadline=None)
@given(league=st.sampled_from(LEAGUES), seed=st.integers(0, 10_000))
def test_agents_play_only_moves_the_real_table_allows(league, seed):
    """Searches choose on determinized tables; the move an agent plays must still
    be legal on the real one (it once named cards the mover could not see)."""
    rules = rules_of(league)
    rng = random.Random(seed)
    agent = agent_from_spec("greedy", rules, seed=seed)
    state = rules.initial()
    history: list = []
    for _ in range(120):
        if rules.outcome(state) is not None:
            break
        if rules.side_to_move(state) < 0:
            move = rules.sample_move(state, rng)
        else:
            move = agent.choose(state, history=history)
            assert rules.illegal_reason(state, move) is None
        history.append((state, move))
        state = rules.apply(state, move)


@settings(max_examples=examples(20, fast=6), deadline=None)
@given(league=st.sampled_from(("senior", "pro")), seed=st.integers(0, 10_000))
def test_the_root_moves_searched_are_those_every_table_plays(league, seed):
    """The mover's candidate moves come from one determinized table; the search
    keeps each that every table plays (with that table's reward cards), and only
    those: a move holding a guessed card (a referee's card, a card drawn below the
    top) is left out unless every table has it where the move needs it."""
    rules = rules_of(league)
    rng = random.Random(seed)
    _, state = random_history(rules, seed, 40 + seed % 60)
    while rules.side_to_move(state) < 0 and rules.outcome(state) is None:
        state = rules.apply(state, rules.sample_move(state, rng))
    if rules.outcome(state) is not None:
        return
    side = rules.side_to_move(state)
    search = Mcts(rules)
    tables = [rules.determinize(state, side, rng) for _ in range(6)]
    moves = search.candidates(tables[0], rng)
    kept = search.playable_moves(moves, tables)
    assert kept, "the mover always has a move every table allows (not drawing, ending)"
    for move, realized in kept:
        assert move in moves and len(realized) == len(tables)
        assert all(
            rules.illegal_reason(table, played) is None
            for table, played in zip(tables, realized, strict=True)
        )
    kept_realized = {realized for _, realized in kept}
    for move in moves:
        realized = tuple(rules.realize(table, move) for table in tables)
        if realized not in kept_realized:  # left out: some table refuses it
            assert any(
                rules.illegal_reason(table, played) is not None
                for table, played in zip(tables, realized, strict=True)
            )


def test_a_table_depends_only_on_the_position_what_was_seen_and_the_seed():
    # A search draws several tables from one position: what the side knows is
    # worked out once and reused, never carried over to another position.
    rules = rules_of("pro")
    history, state = random_history(rules, 5, 80)
    first = rules.determinize(state, 0, random.Random(1), history)
    earlier = rules.determinize(history[40][0], 1, random.Random(2), history[:40])
    assert rules.determinize(state, 0, random.Random(1), history) == first
    assert rules.determinize(state, 0, random.Random(1), list(history)) == first
    assert rules.determinize(history[40][0], 1, random.Random(2), history[:40]) == earlier
    other_side = rules.determinize(state, 1, random.Random(1), history)
    assert visible(other_side, 1) == visible(state, 1)
