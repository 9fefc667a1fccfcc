"""Endgames of Universal Forces and Circular Reasoning with few pieces left.

Checked against brute force written here over the engines alone: a plain memoized
negamax where a round limit makes the game finite (every position of the graph
compared), and a depth-limited AND-OR search ("can this side force a win within d
plies?") where play can go round for ever. The endgame keys are checked on their
own: what they leave out and what they fold must not change the future.
"""

from __future__ import annotations

import random

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.analysis.endgame import endgame
from partita.game.registry import get_game
from partita.games.circular_reasoning.rules import GOAL, RESERVE, CircularReasoningState

UF = get_game("universal-forces")
UF_LIMITED = UF.configure({"RoundLimit": "40"})
CR = get_game("circular-reasoning")

# Each side has three kinds at home and its last fire on the board, two rounds and a
# half before the round limit: the first fire home wins, both late is a draw.
UF_RACE = "I3:7=1R,I3:2=2R 1:-/GYB/GGYYBBRR 2:-/GYB/GGYYBBRR 1 37"
# Player2 has a water besides, beside the fire's quadrant: it can take the fire
# (water beats fire) as it steps on.
UF_FIGHT = "I3:7=1R,I3:1=2B,I3:3=2R 1:-/GYB/GGYYBBRR 2:-/GY/GGYYBBRR 1 39"
# No round limit: the two fires may go round for ever (51,454 positions; 25,727 folded).
UF_OPEN_RACE = "C3=1R,I3:6=2R 1:-/GYB/GGYYBBRR 2:-/GYB/GGYYBBRR 1 30"
# Circle and triangle of each side in the Goal Area, the squares still out.
CR_SQUARES = "1:CG,TG,SM3 2:CG,TG,SI10 / O11 M6 I1 / 7 P1"
CR_SQUARES_NEAR = "1:CG,TG,SI12 2:CG,TG,SI10 / O11 M6 I13 / 7 P1"


def other(side: int) -> int:
    return 1 - side


# -- brute force ------------------------------------------------------------------------------


def negamax_values(rules, state) -> dict:
    """Every position reachable from ``state`` by plain memoized negamax (the game
    must be finite): ``key -> (state, value for the side to move, plies)``, the winner
    taking the shortest way and the loser the longest."""
    table: dict = {}

    def solve(position):
        key = rules.key(position)
        if key in table:
            return table[key][1:]
        outcome = rules.outcome(position)
        side = rules.side_to_move(position)
        if outcome is not None:
            own, theirs = outcome.scores[side], outcome.scores[other(side)]
            value = "win" if own > theirs else "loss" if own < theirs else "draw"
            table[key] = (position, value, 0 if value != "draw" else None)
            return table[key][1:]
        results = []
        for move in rules.legal_moves(position):
            child = rules.apply(position, move)
            value, plies = solve(child)
            if rules.side_to_move(child) != side:
                value = {"win": "loss", "loss": "win"}.get(value, value)
            results.append((value, None if plies is None else plies + 1))
        wins = [plies for value, plies in results if value == "win"]
        if wins:
            answer = ("win", min(wins))
        elif any(value == "draw" for value, _ in results) or not results:
            answer = ("draw", None)
        else:
            answer = ("loss", max(plies for _, plies in results))
        table[key] = (position, *answer)
        return answer

    solve(state)
    return table


def forces_win_within(rules, state, plies: int, side: int) -> bool:
    """Whether ``side`` can force a win within ``plies`` plies from ``state``
    (a depth-limited AND-OR search, memoized on the engine's own key)."""
    memo: dict = {}

    def search(position, left: int) -> bool:
        outcome = rules.outcome(position)
        if outcome is not None:
            return outcome.scores[side] > outcome.scores[other(side)]
        if left == 0:
            return False
        key = (rules.key(position), left)
        if key not in memo:
            children = (rules.apply(position, move) for move in rules.legal_moves(position))
            found = (search(child, left - 1) for child in children)
            memo[key] = any(found) if rules.side_to_move(position) == side else all(found)
        return memo[key]

    return search(state, plies)


def check_depth_limited(rules, state, value: str, distance: int) -> None:
    """A result the graph proved, against the depth-limited search: the winner can
    force the end within ``distance`` plies and not within one fewer."""
    mover = rules.side_to_move(state)
    winner = mover if value == "win" else other(mover)
    assert forces_win_within(rules, state, distance, winner)
    if distance:
        assert not forces_win_within(rules, state, distance - 1, winner)


# -- Universal Forces ---------------------------------------------------------------------------


@pytest.mark.parametrize("position", [UF_RACE, UF_FIGHT])
def test_a_universal_forces_ending_agrees_with_negamax_on_every_position(position, race):
    rules = UF_LIMITED.rules
    state = UF_LIMITED.parse_position(position)
    graph = race[1] if position == UF_RACE else endgame(rules, state, fold_symmetry=True)
    assert graph.complete
    brute = negamax_values(rules, state)
    # Keys the engine tells apart may share a node (home counts): never fewer
    # positions in the brute force than nodes in the graph.
    assert len(brute) >= len(graph)
    for _, (position, value, plies) in brute.items():
        assert graph.result(position) == (value, plies), UF_LIMITED.format_position(position)


@pytest.fixture(scope="module")
def race():
    state = UF_LIMITED.parse_position(UF_RACE)
    return state, endgame(UF_LIMITED.rules, state, fold_symmetry=True)


def test_the_race_is_won_by_the_fire_that_goes_home_first(race):
    state, graph = race
    # Player1's fire steps onto C4, its own quadrant, and goes home on its next turn.
    assert graph.result() == ("win", 3)
    line = [UF_LIMITED.format_move(state, move) for move in graph.principal_line()]
    assert line[0] == "I3:7-C4" and line[-1] == "C4-H" and len(line) == 3
    # Going outward loses the race: Player2's fire is three steps from home
    # (I3:2-C1, C1-C4, C4-H: the quadrants all touch) and would move first.
    results = {UF_LIMITED.format_move(state, m): (v, d) for m, v, d in graph.move_results()}
    assert results["I3:7-I2:6"][0] == "loss"


def test_a_round_limit_ending_counts_distinct_kinds_at_home():
    # Player1's fire is far from home; when the limit comes Player1 has GYB and
    # Player2 GYB too: a draw, unless Player2's fire reaches home in time.
    position = "O1:7=1R,I3:8=2R 1:-/GYB/GGYYBBRR 2:-/GYB/GGYYBBRR 1 39"
    state = UF_LIMITED.parse_position(position)
    graph = endgame(UF_LIMITED.rules, state)
    assert graph.result() == ("loss", 4)  # Player2: I3:8-C4 at ply 2, C4-H at ply 4


@pytest.mark.slow
def test_folding_the_sides_halves_an_open_ending_and_keeps_every_result():
    rules = UF.rules
    state = UF.parse_position(UF_OPEN_RACE)
    plain = endgame(rules, state)
    folded = endgame(rules, state, fold_symmetry=True)
    assert len(plain) == 51454 and len(folded) == 25727
    assert plain.result() == folded.result() == ("win", 3)
    rng = random.Random(3)
    for _ in range(40):
        position = state
        for _ in range(rng.randrange(12)):
            if rules.outcome(position) is not None:
                break
            position = rules.apply(position, rng.choice(rules.legal_moves(position)))
        assert plain.result(position) == folded.result(position)
        assert sorted(map(str, plain.move_results(position))) == sorted(
            map(str, folded.move_results(position))
        )


def test_the_open_race_is_proven_from_its_first_positions():
    rules = UF.rules
    state = UF.parse_position(UF_OPEN_RACE)
    graph = endgame(rules, state, fold_symmetry=True, max_positions=3000, partial=True)
    assert not graph.complete
    # Player1's fire on C3 steps to C4 and goes home; Player2's cannot pin it there
    # (no pins in the inner sector).
    assert graph.result() == ("win", 3)
    check_depth_limited(rules, state, "win", 3)


# -- Circular Reasoning ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "value", "distance"),
    [
        (CR_SQUARES, "win", 5),
        (CR_SQUARES_NEAR, "win", 1),
    ],
)
def test_a_circular_reasoning_ending_agrees_with_a_depth_limited_search(position, value, distance):
    rules = CR.rules
    state = CR.parse_position(position)
    graph = endgame(rules, state, fold_symmetry=True, max_positions=30_000, partial=True)
    assert graph.result() == (value, distance)
    check_depth_limited(rules, state, value, distance)
    for move, move_value, plies in graph.move_results():
        child = rules.apply(state, move)
        if move_value in ("win", "loss") and plies <= 6:
            mover = rules.side_to_move(child)
            own = (
                move_value
                if mover == rules.side_to_move(state)
                else {"win": "loss", "loss": "win"}[move_value]
            )
            check_depth_limited(rules, child, own, plies - 1)
    line = graph.principal_line()
    for move in line:
        state = rules.apply(state, move)
    assert rules.outcome(state) is not None and len(line) == distance


@pytest.mark.slow
def test_the_whole_squares_ending_is_solved():
    state = CR.parse_position(CR_SQUARES)
    graph = endgame(CR.rules, state, fold_symmetry=True, max_positions=2_000_000)
    assert graph.complete and len(graph) == 1179136
    assert graph.result() == ("win", 5)


# -- the keys ----------------------------------------------------------------------------------------


def test_how_many_of_a_kind_are_home_does_not_count():
    one = UF.parse_position("C3=1R,I3:6=2R 1:-/GYB/GGYYBBRR 2:-/GYB/GGYYBBRR 1 30")
    two = UF.parse_position("C3=1R,I3:6=2R 1:-/GGYB/GYYBBRR 2:-/GYB/GGYYBBRR 1 30")
    assert UF.rules.key(one) != UF.rules.key(two)
    assert UF.rules.endgame_key(one) == UF.rules.endgame_key(two)
    other_kind = UF.parse_position("C3=1R,I3:6=2R 1:-/GY/GGYYBBBRR 2:-/GYB/GGYYBBRR 1 30")
    assert UF.rules.endgame_key(one) != UF.rules.endgame_key(other_kind)


def random_states(game, seed: int, plies: int, sides: int = 2) -> list:
    rules = game.rules
    rng = random.Random(seed)
    state = rules.initial(sides)
    states = [state]
    for _ in range(plies):
        if rules.outcome(state) is not None:
            break
        state = rules.apply(state, rules.sample_move(state, rng))
        states.append(state)
    return states


def uf_essentials(state) -> tuple:
    """What a Universal Forces position's future depends on (and nothing more)."""
    homes = tuple(tuple(count > 0 for count in row) for row in state.home)
    return (state.cells, state.reserve, homes, state.to_move)


@settings(max_examples=examples(30, fast=7), deadline=None)
@given(st.integers(0, 10_000))
def test_universal_forces_endgame_keys_keep_exactly_what_changes_the_future(seed):
    rules = UF.rules
    states = random_states(UF, seed, 160)
    for left in states[::7]:
        for right in states[::11]:
            same = rules.endgame_key(left) == rules.endgame_key(right)
            assert same == (uf_essentials(left) == uf_essentials(right))


def child_keys(rules, state) -> list:
    """The folded keys of a position's children, with whether the turn passes."""
    side = rules.side_to_move(state)
    return sorted(
        (rules.endgame_key(child, True), rules.side_to_move(child) != side)
        for child in (rules.apply(state, move) for move in rules.legal_moves(state))
    )


@settings(max_examples=examples(30, fast=7), deadline=None)
@given(st.integers(0, 10_000))
def test_positions_with_the_sides_exchanged_share_a_key_and_a_future(seed):
    rules = UF.rules
    for state in random_states(UF, seed, 120)[1::9]:
        if rules.outcome(state) is not None:
            continue
        twin = rules.setup(
            tuple(tuple(force ^ 4 for force in contents) for contents in state.cells),
            state.reserve[::-1],
            state.home[::-1],
            state.eliminated[::-1],
            1 - state.to_move,
            state.round,
        )
        assert rules.endgame_key(state, True) == rules.endgame_key(twin, True)
        assert rules.endgame_key(state) != rules.endgame_key(twin) or uf_essentials(
            state
        ) == uf_essentials(twin)
        assert child_keys(rules, state) == child_keys(rules, twin)


def turned(state: CircularReasoningState, by: int) -> CircularReasoningState:
    tokens = tuple(
        cell if cell >= GOAL else (cell & 48) | (cell + by) & 15 for cell in state.tokens
    )
    gates = tuple((gate + by) & 15 for gate in state.gates)
    return CircularReasoningState(tokens, gates, state.round, state.turn, state.ply)


@settings(max_examples=examples(30, fast=7), deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 15))
def test_circular_reasoning_folds_turned_and_exchanged_positions_with_their_futures(seed, by):
    rules = CR.rules
    states = [s for s in random_states(CR, seed, 200) if RESERVE not in s.tokens]
    for state in states[::5]:
        if rules.outcome(state) is not None:
            continue
        twin = turned(state, by)
        assert rules.endgame_key(state, True) == rules.endgame_key(twin, True)
        assert rules.endgame_key(state) != rules.endgame_key(twin)
        assert child_keys(rules, state) == child_keys(rules, twin)
        exchanged = CircularReasoningState(
            state.tokens[3:] + state.tokens[:3], state.gates, state.round + 1, state.turn
        )
        assert rules.side_to_move(exchanged) == 1 - rules.side_to_move(state)
        assert rules.endgame_key(state, True) == rules.endgame_key(exchanged, True)
        assert child_keys(rules, state) == child_keys(rules, exchanged)


@settings(max_examples=examples(25, fast=6), deadline=None)
@given(st.sampled_from(["uf", "uf-limited", "cr"]), st.integers(0, 10_000), st.booleans())
def test_a_key_gives_back_a_position_with_the_same_future(which, seed, fold):
    # Graphs keep the keys of the positions waiting to be explored, not their states.
    game = {"uf": UF, "uf-limited": UF_LIMITED, "cr": CR}[which]
    rules = game.rules
    for state in random_states(game, seed, 150)[::6]:
        if rules.outcome(state) is not None:
            continue
        key = rules.endgame_key(state, fold)
        back = rules.endgame_state(key, state)
        assert rules.endgame_key(back, fold) == key
        assert rules.outcome(back) is None
        assert child_keys(rules, back) == child_keys(rules, state)
