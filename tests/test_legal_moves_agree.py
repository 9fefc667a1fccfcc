"""The list of legal moves and the checked path agree: along random games, every
move a position could be asked about is accepted by ``illegal_reason`` exactly when
``legal_moves`` lists it (the board games, whose moves can all be enumerated)."""

from __future__ import annotations

import random

import pytest
from budget import examples

from partita.game.registry import get_game
from partita.games.circular_reasoning.rules import PASS as CR_PASS
from partita.games.circular_reasoning.rules import Move
from partita.games.universal_forces.rules import PASS as UF_PASS
from partita.games.universal_forces.rules import Entry, Step


def _universal_forces_candidates(rules):
    geometry = rules.geometry
    names = geometry.names
    moves = {Entry(force, f"O1:{section}") for force in "GYBR" for section in range(1, 33)}
    for cell, neighbours in enumerate(geometry.neighbours):
        moves.update(Step(names[cell], names[other]) for other in neighbours)
        moves.add(Step(names[cell], "H"))
    return moves | {UF_PASS}


def _circular_reasoning_candidates(rules):
    # every token to every cell (48 segments and the Goal Area), and the pass
    return {Move(shape, cell) for shape in "CTS" for cell in range(49)} | {CR_PASS}


CASES = [
    pytest.param("universal-forces", {"RoundLimit": "40"}, _universal_forces_candidates, id="uf"),
    pytest.param("circular-reasoning", {}, _circular_reasoning_candidates, id="cr-basic"),
    pytest.param(
        "circular-reasoning",
        {"Variant": "advanced"},
        _circular_reasoning_candidates,
        id="cr-advanced",
    ),
]


@pytest.mark.parametrize(("name", "tags", "candidates"), CASES)
@pytest.mark.parametrize("sides", [2, 3, 4])
def test_legal_moves_are_exactly_the_accepted_moves(name, tags, candidates, sides):
    rules = get_game(name).configure(tags).rules
    every = candidates(rules)
    rng = random.Random(sides)
    state, checked = rules.initial(sides), 0
    while rules.outcome(state) is None and checked < examples(150, fast=50):
        legal = set(rules.legal_moves(state))
        assert legal <= every  # the candidates cover every move the engine lists
        accepted = {move for move in every if rules.illegal_reason(state, move) is None}
        assert accepted == legal
        state = rules.apply(state, rules.sample_move(state, rng))
        checked += 1
    assert checked >= 20
