"""Random playouts of Circular Reasoning never break an invariant.

Checked after every ply, by counting from the state's fields and not through the
engine's helpers: one token per segment, three tokens per side accounted for (each
in the reserve, on a segment or in the Goal Area), gateways on their own tracks (as
the position notation writes them), only the mover's token moves, tokens never go
back to the reserve or out of the Goal Area, the side to move follows the rotation
of first players, and the gateways move only when a round ends, each by the tokens
on its own track. Sixty games per number of sides run by default (and thirty seeded
ones by hypothesis), thousands with ``-m slow``.
"""

from __future__ import annotations

import random

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.games.circular_reasoning.notation import CIRCULAR_REASONING
from partita.games.circular_reasoning.rules import GOAL, RESERVE, Pass

CONFIGURATIONS = [
    CIRCULAR_REASONING,
    CIRCULAR_REASONING.configure({"Variant": "advanced"}),
    CIRCULAR_REASONING.configure({"Layout": "entrance=O5 large=O1 medium=M9 small=I3"}),
]
MAX_PLIES = 5000


def _check_state(game, state, sides: int) -> None:
    tokens = state.tokens
    assert len(tokens) == 3 * sides
    assert all(0 <= cell < GOAL or cell in (GOAL, RESERVE) for cell in tokens)
    on_board = [cell for cell in tokens if cell < GOAL]
    assert len(on_board) == len(set(on_board)), f"two tokens share a segment: {tokens}"
    text = game.format_position(state)
    sides_text, gates_text, _ = text.split(" / ")
    assert [side.split(":")[0] for side in sides_text.split()] == [
        str(seat) for seat in range(1, sides + 1)
    ]
    assert all(
        [place[0] for place in side.split(":")[1].split(",")] == ["C", "T", "S"]
        for side in sides_text.split()
    )
    assert [gate[0] for gate in gates_text.split()] == ["O", "M", "I"]
    assert all(0 <= segment < 16 for segment in state.gates)


def _check_ply(game, before, move, after, sides: int) -> None:
    rules = game.rules
    mover = (before.round - 1 + before.turn) % sides
    assert rules.side_to_move(before) == mover
    changed = [i for i in range(3 * sides) if before.tokens[i] != after.tokens[i]]
    if isinstance(move, Pass):
        assert changed == []
    else:
        assert len(changed) == 1 and changed[0] // 3 == mover
        [index] = changed
        assert before.tokens[index] != GOAL
        assert after.tokens[index] != RESERVE
    assert after.ply == before.ply + 1
    won = rules.outcome(after) is not None
    if won:
        assert rules.outcome(after).winner == mover
        return
    if before.turn + 1 < sides:
        assert (after.round, after.turn) == (before.round, before.turn + 1)
        assert after.gates == before.gates
    else:
        assert (after.round, after.turn) == (before.round + 1, 0)
        counts = [
            sum(1 for cell in after.tokens if cell < GOAL and cell // 16 == t) for t in (0, 1, 2)
        ]
        assert after.gates == tuple((g + c) % 16 for g, c in zip(before.gates, counts, strict=True))
        assert rules.side_to_move(after) == before.round % sides  # the next seat opens


def _playout(game, sides: int, rng: random.Random) -> int:
    rules = game.rules
    state = rules.initial(sides)
    _check_state(game, state, sides)
    plies = 0
    while rules.outcome(state) is None:
        assert plies < MAX_PLIES, "a random game ran unusually long"
        moves = rules.legal_moves(state)
        assert moves
        move = rng.choice(moves)
        after = rules.apply(state, move)
        _check_state(game, after, sides)
        _check_ply(game, state, move, after, sides)
        state = after
        plies += 1
    assert rules.legal_moves(state) == []
    return plies


def _run(sides: int, games: int, seed: int) -> None:
    rng = random.Random(seed)
    for number in range(games):
        _playout(CONFIGURATIONS[number % len(CONFIGURATIONS)], sides, rng)


@pytest.mark.parametrize("sides", [2, 3, 4])
def test_random_playouts_keep_the_invariants(sides):
    _run(sides, examples(60, fast=15), seed=sides)


@settings(max_examples=examples(30, fast=10), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sides=st.integers(2, 4),
    configuration=st.integers(0, len(CONFIGURATIONS) - 1),
)
def test_any_seeded_playout_keeps_the_invariants(seed, sides, configuration):
    _playout(CONFIGURATIONS[configuration], sides, random.Random(seed))


@pytest.mark.slow
@pytest.mark.parametrize("sides", [2, 3, 4])
def test_thousands_of_random_playouts_keep_the_invariants(sides):
    _run(sides, 3000, seed=1000 + sides)
