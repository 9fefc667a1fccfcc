"""One conformance suite, run over every registered game (after OpenSpiel).

Each check holds for any rule set the contract admits: random playouts never get
stuck or run past the end, notation round-trips, replaying a written record gives
the position reached by playing incrementally, results are well formed, symmetries
act consistently.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.errors import IllegalMoveError
from partita.games.base import CHANCE, Outcome
from partita.games.registry import all_games
from partita.notation.model import Node, Record
from partita.notation.reader import parse_record
from partita.notation.replay import replay
from partita.notation.writer import write_record

GAMES = all_games()


def _variant_id(tags) -> str:
    return "-".join(str(value).replace(" ", "_") for value in tags.values())


#: Every game in every variant it declares (configured, with the tags that select it).
VARIANTS = [(game.configure(tags), dict(tags)) for game in GAMES for tags in game.variants()]
VARIANT_TAGS = {id(game): tags for game, tags in VARIANTS}
#: ... for every number of sides it admits.
CONFIGS = [
    pytest.param(
        game,
        sides,
        id="-".join(filter(None, (game.name, _variant_id(tags), str(sides)))),
    )
    for game, tags in VARIANTS
    for sides in range(game.rules.min_sides, game.rules.max_sides + 1)
]
MAX_PLIES = 2000


def random_playout(game, sides: int, rng: random.Random):
    """States and moves of one random game to its end (or MAX_PLIES)."""
    rules = game.rules
    state = rules.initial(sides)
    states, moves = [state], []
    while rules.outcome(state) is None and len(moves) < MAX_PLIES:
        assert rules.legal_moves(state), f"{game.name}: no legal move but the game is not over"
        move = rules.sample_move(state, rng)
        moves.append(move)
        state = rules.apply(state, move)
        states.append(state)
    return states, moves


def test_registry_has_the_foundation_games():
    names = {game.name for game in GAMES}
    assert {"forza4x4", "connect4"} <= names


@pytest.mark.parametrize(("game", "sides"), CONFIGS)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_playouts_respect_the_contract(game, sides, seed):
    rules = game.rules
    states, moves = random_playout(game, sides, random.Random(seed))
    for state, move in zip(states, moves, strict=False):
        mover = rules.side_to_move(state)
        assert mover == CHANCE or 0 <= mover < sides
        assert rules.outcome(state) is None
        assert rules.illegal_reason(state, move) is None
        # the checked and the trusted path agree
        assert rules.key(rules.play(state, move)) == rules.key(rules.apply(state, move))
        # a move's notation names that move in context
        token = game.format_move(state, move)
        assert game.parse_move(state, token) == move
        assert game.canonical_token(token) == token
    final = states[-1]
    outcome = rules.outcome(final)
    if outcome is not None:
        assert list(rules.legal_moves(final)) == []
        _check_outcome(outcome, sides)
        if moves:
            with pytest.raises(IllegalMoveError):
                rules.play(final, moves[-1])


def _check_outcome(outcome: Outcome, sides: int) -> None:
    assert len(outcome.scores) == sides
    assert set(outcome.scores) <= {Fraction(0), Fraction(1, 2), Fraction(1)}
    assert outcome.reason
    winners = [s for s in outcome.scores if s == 1]
    assert len(winners) <= 1
    if winners:
        assert all(s == 0 for s in outcome.scores if s != 1)


@pytest.mark.parametrize(("game", "sides"), CONFIGS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_position_notation_round_trips(game, sides, seed):
    rules = game.rules
    states, _ = random_playout(game, sides, random.Random(seed))
    for state in states[:: max(1, len(states) // 8)]:
        if rules.outcome(state) is not None:
            continue  # a decided position is no setup position
        text = game.format_position(state)
        back = game.parse_position(text, sides)
        assert game.format_position(back) == text
        assert rules.key(back) == rules.key(state)
        assert sorted(map(repr, rules.legal_moves(back))) == sorted(
            map(repr, rules.legal_moves(state))
        )


@pytest.mark.parametrize(("game", "sides"), CONFIGS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_replaying_a_written_record_equals_incremental_play(game, sides, seed):
    rules = game.rules
    states, moves = random_playout(game, sides, random.Random(seed))
    record = Record(tags={"Game": game.name, **VARIANT_TAGS[id(game)]})
    for seat in range(1, sides + 1):
        record.tags[f"Player{seat}"] = f"Player {seat}"
    outcome = rules.outcome(states[-1])
    result = outcome.result_token() if outcome else "*"
    record.tags["Result"] = result
    record.result = result
    node = record.root
    for state, move in zip(states, moves, strict=False):
        node = node.add(Node(game.format_move(state, move)))
    text = write_record(record, game)
    replayed = replay(parse_record(text), strict=True)
    assert replayed.problems == []
    assert replayed.plies == len(moves)
    assert replayed.final_position == game.format_position(states[-1])
    assert replayed.keys == [rules.key(state) for state in states[1:]]
    assert replayed.moves == [game.format_move(s, m) for s, m in zip(states, moves, strict=False)]


@pytest.mark.parametrize(("game", "sides"), CONFIGS)
def test_symmetries_act_consistently(game, sides):
    rules = game.rules
    rng = random.Random(7)
    states, moves = random_playout(game, sides, rng)
    for state, move in list(zip(states, moves, strict=False))[:20]:
        legal = set(rules.legal_moves(state))
        keys = set()
        for k in range(rules.symmetry_count):
            image = rules.transform(state, k)
            keys.add(rules.key(image))
            assert {rules.transform_move(m, k) for m in legal} == set(rules.legal_moves(image))
            assert rules.key(rules.apply(image, rules.transform_move(move, k))) == rules.key(
                rules.transform(rules.apply(state, move), k)
            )
            assert rules.canonical_key(image) == rules.canonical_key(state)
        assert rules.canonical_key(state) == min(keys)


@pytest.mark.parametrize(("game", "sides"), CONFIGS)
def test_initial_position_and_diagram(game, sides):
    rules = game.rules
    state = rules.initial(sides)
    assert rules.sides(state) == sides
    assert rules.ply(state) == 0
    assert rules.move_number(state) == (1, True)
    assert rules.outcome(state) is None
    diagram = rules.diagram(state)
    assert isinstance(diagram, str) and "\n" in diagram
