"""Universal Forces: random playouts for 2, 3 and 4 sides never break an invariant.

Every state of every playout: 3 forces of each kind per side accounted for on the
board, in reserve, at home or eliminated; never more than two forces on a cell; no
stack or pin in the inner sector nor on an entry section; only forces of a
section's colour on a coloured rim section; pins only between equal kinds; the
side to move from the state; a forced pass exactly when the side has no action.
Playouts are capped in length (a round limit, or a ply cap without one).
"""

from __future__ import annotations

import random

import pytest

from partita.games.universal_forces.notation import UNIVERSAL_FORCES
from partita.games.universal_forces.rules import PASS, Pass

LIMITED = UNIVERSAL_FORCES.configure({"RoundLimit": "25"})


def check_invariants(rules, state) -> None:
    geometry = rules.geometry
    sides = state.sides
    counted = [[0] * 4 for _ in range(sides)]
    for cell, contents in enumerate(state.cells):
        assert len(contents) <= 2, geometry.names[cell]
        for piece in contents:
            counted[piece >> 2][piece & 3] += 1
        colour = geometry.entry_colour[cell]
        if colour >= 0:
            assert all(piece & 3 == colour for piece in contents), geometry.names[cell]
        if len(contents) == 2:
            assert not geometry.inner[cell], f"two forces on {geometry.names[cell]}"
            assert colour < 0, f"two forces on entry section {geometry.names[cell]}"
            bottom, top = contents
            if bottom >> 2 != top >> 2:
                assert bottom & 3 == top & 3, f"a pin of unequal kinds on {geometry.names[cell]}"
    for side in range(sides):
        for kind in range(4):
            total = (
                counted[side][kind]
                + state.reserve[side][kind]
                + state.home[side][kind]
                + state.eliminated[side][kind]
            )
            assert total == 3, (side, kind, total)
    assert 0 <= state.to_move < sides
    assert state.ply % sides == state.to_move


def playout(
    game, sides: int, rng: random.Random, cap: int, kinds: set[str] | None = None
) -> tuple[int, object]:
    """Play uniformly random legal moves to the end or ``cap`` plies, checking each
    state; the plies played and the final state. ``kinds`` collects what the moves
    did (``take``, ``sacrifice``...)."""
    rules = game.rules
    state = rules.initial(sides)
    plies = 0
    while state.outcome is None and plies < cap:
        check_invariants(rules, state)
        moves = rules.legal_moves(state)
        assert moves
        if state.stuck:
            assert moves == [PASS] and rules.forced_pass(state) == PASS
        else:
            assert not any(isinstance(move, Pass) for move in moves)
            assert rules.forced_pass(state) is None
        move = rng.choice(moves)
        assert rules.illegal_reason(state, move) is None
        if kinds is not None:
            kinds.add(rules.describe(state, move))
        state = rules.apply(state, move)
        plies += 1
    check_invariants(rules, state)
    if state.outcome is not None:
        assert rules.legal_moves(state) == []
        assert len(state.outcome.scores) == sides
    return plies, state


def _run(count: int, sides: int, seed: int, kinds: set[str]) -> dict[str, int]:
    rng = random.Random(seed)
    endings = {"round limit": 0, "other end": 0, "capped": 0}
    for number in range(count):
        if number % 10 == 9:
            _, state = playout(UNIVERSAL_FORCES, sides, rng, cap=400, kinds=kinds)
        else:
            _, state = playout(LIMITED, sides, rng, cap=10_000, kinds=kinds)
            assert state.outcome is not None  # a round limit always ends the game
        if state.outcome is None:
            endings["capped"] += 1
        elif state.outcome.reason.startswith("round limit"):
            endings["round limit"] += 1
        else:
            endings["other end"] += 1
    return endings


# Every kind of move must come up, so the count stays; 3 and 4 sides in the slow run.
@pytest.mark.parametrize(
    "sides", [2, pytest.param(3, marks=pytest.mark.slow), pytest.param(4, marks=pytest.mark.slow)]
)
def test_a_few_hundred_random_playouts_keep_the_invariants(sides):
    kinds: set[str] = set()
    endings = _run(300, sides, seed=sides, kinds=kinds)
    assert endings["round limit"] > 0
    # random play reaches every kind of move but the rare home move and pass
    expected = {"entry", "move", "stack", "take", "pin", "double take", "take and pin"}
    expected |= {"sacrifice", "conversion"}
    if sides > 2:
        expected.add("third-side take")
    assert expected <= kinds


@pytest.mark.slow
@pytest.mark.parametrize("sides", [2, 3, 4])
def test_thousands_of_random_playouts_keep_the_invariants(sides):
    _run(3000, sides, seed=100 + sides, kinds=set())
