"""The exact solver of the gravity games.

Expected scores come from Pascal Pons' published Connect Four test sets, from
positions whose value can be read off the board by hand, and from an independent
minimax over the engine written here; never from the solver itself.
"""

from __future__ import annotations

import random

import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_data import pons_folder
from solver_reference import connect4_state, minimax_score, random_position

from partita.errors import PartitaError
from partita.game.registry import get_game
from partita.games.gravity._anyentry import AnyEntrySearch
from partita.games.gravity._topentry import TopEntrySearch
from partita.games.gravity.rules import GravityState
from partita.games.gravity.solver import (
    BudgetExceeded,
    Solver,
    native_available,
    plies_from_score,
    score_from_plies,
    score_value,
)

CONNECT4 = get_game("connect4")
FORZA = get_game("forza4x4")


def pons(name: str) -> list[tuple[str, int]]:
    pairs = []
    for line in (pons_folder() / name).read_text().splitlines():
        columns, score = line.split()
        pairs.append((columns, int(score)))
    return pairs


def sample(pairs: list, count: int) -> list:
    """A fixed, evenly spread sample (deterministic)."""
    step = max(1, len(pairs) // count)
    return pairs[::step][:count]


# -- the published Connect Four scores ------------------------------------------------------


#: The pure-Python cores always; the compiled one where it was built.
BACKENDS = ["python", "native"] if native_available() else ["python"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["end-easy", "middle-easy"])
def test_every_easy_position_gets_its_published_score(name, backend):
    # The full sets take about 1.5 s in pure Python together, 0.2 s compiled.
    solver = Solver(CONNECT4, backend=backend)
    positions = pons(name)
    assert len(positions) == 1000
    wrong = []
    for columns, published in positions:
        solver.clear()
        score = solver.score(connect4_state(columns))
        if score != published:
            wrong.append((columns, published, score))
    assert wrong == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["begin-easy", "middle-medium", "begin-medium"])
def test_harder_sets_get_their_published_score(name):
    solver = Solver(CONNECT4)
    for columns, published in pons(name):
        solver.clear()
        assert solver.score(connect4_state(columns)) == published, columns


def test_begin_easy_sample_gets_its_published_score():
    solver = Solver(CONNECT4)
    for columns, published in sample(pons("begin-easy"), 20):
        solver.clear()
        assert solver.score(connect4_state(columns)) == published, columns


def test_move_scores_agree_with_the_published_score_of_the_position():
    solver = Solver(CONNECT4)
    for columns, published in sample(pons("middle-easy"), 25):
        solution = solver.solve(connect4_state(columns))
        assert solution.score == published
        assert max(item.score for item in solution.moves) == published
        assert solution.best and all(
            item.score == published for item in solution.moves if item.move in solution.best
        )
        assert solution.value == score_value(published)


def test_the_pure_python_cores_agree_with_each_other_on_connect_four():
    # The generic core (entries from any side) on a top-entry board, with the
    # left-right mirror folded, must find the scores the Connect Four core finds.
    mirror = [row * 7 + 6 - column for row in range(6) for column in range(7)]
    top = TopEntrySearch(7, 6)
    anywhere = AnyEntrySearch(7, 6, "t", symmetries=[list(range(42)), mirror])
    for columns, published in sample(pons("end-easy"), 60):
        state = connect4_state(columns)
        assert top.score(state.x, state.o) == published
        assert anywhere.score(state.x, state.o) == published


@pytest.mark.skipif(not native_available(), reason="the compiled core is not built")
def test_the_compiled_core_agrees_with_pure_python():
    python = Solver(CONNECT4, backend="python")
    native = Solver(CONNECT4, backend="native")
    for columns, published in sample(pons("middle-easy"), examples(40, fast=12)):
        state = connect4_state(columns)
        assert native.solve(state).moves == python.solve(state).moves
        assert native.score(state) == published
    python = Solver(FORZA, backend="python")
    native = Solver(FORZA, backend="native")
    for state in late_forza_positions(examples(25, fast=8), stones=44, seed=3):
        assert native.solve(state).moves == python.solve(state).moves


# -- score convention ---------------------------------------------------------------------------


def test_an_immediate_win_scores_the_cells_over_two_plus_one_minus_the_stones():
    # x to move with three in column 1 (and o three in column 2): t1 wins with x's
    # 4th stone, 22 - 4 = 18 (Pons' README: a win with the 4th stone scores 18).
    assert Solver(CONNECT4).score(connect4_state("121212")) == 18
    # Forza 4x4: 33 - 4 = 29 for a line made with the 4th stone.
    forza = FORZA.play_line("l8 r1 l8 r1 l8 r2")
    assert Solver(FORZA).score(forza) == 29
    # On a nearly full board the winning move is the only best one.
    late = connect4_state("2252576253462244111563365343671351441")  # published: -1
    solution = Solver(CONNECT4).solve(late)
    assert solution.score == -1
    assert [move.notation() for move in solution.best] == ["t6"]


def test_an_immediate_loss_scores_the_negative_of_the_opponent_win():
    # o to move cannot stop both ends of x's open three on the bottom row (t1 and
    # t5): x wins with its 4th stone whatever o does: -(22 - 4) = -18.
    state = connect4_state("26364")
    solution = Solver(CONNECT4).solve(state)
    assert solution.score == -18
    assert all(item.score == -18 for item in solution.moves)
    assert solution.value == "loss"


def test_finished_games_have_their_score_and_no_move():
    rules = CONNECT4.rules
    state = connect4_state("1526374")  # x wins with t4, its 4th stone
    assert rules.outcome(state) is not None
    solution = Solver(CONNECT4).solve(state)
    assert solution.score == -18 and solution.moves == ()
    full = connect4_state("257771314744647214154617633623313656555222")
    assert Solver(CONNECT4).solve(full).score == 0


def test_plies_and_scores_convert_both_ways():
    # Connect Four, empty board, x to move with score 1: x wins with its 21st stone,
    # the 41st stone of the game.
    assert plies_from_score(1, 42, 0) == 41
    assert score_from_plies("win", 41, 42, 0) == 1
    # o to move after 1 stone, losing with score -1: x's 21st stone again, 40 plies on.
    assert plies_from_score(-1, 42, 1) == 40
    assert score_from_plies("loss", 40, 42, 1) == -1
    # Forza 4x4, o to move after 5 stones (o has 2): a win with o's 4th stone
    # scores 33 - 4 = 29 and ends the game 3 plies later.
    assert plies_from_score(29, 64, 5) == 3
    assert plies_from_score(0, 64, 5) is None
    for stones in range(0, 40):
        for score in range(1, 18):
            for sign in (1, -1):
                plies = plies_from_score(sign * score, 42, stones)
                if plies is not None and plies > 0:
                    value = "win" if sign > 0 else "loss"
                    assert score_from_plies(value, plies, 42, stones) == sign * score


# -- Forza 4x4 ------------------------------------------------------------------------------------


def late_forza_positions(count: int, *, stones: int, seed: int) -> list[GravityState]:
    """Random positions with ``stones`` stones nobody has won yet (fixed seed)."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        state = random_position(FORZA.rules, stones, rng)
        if state is not None:
            positions.append(state)
    return positions


@pytest.mark.parametrize("backend", BACKENDS)
def test_forza_scores_match_plain_minimax(backend):
    solver = Solver(FORZA, backend=backend)
    checked = 0
    for state in late_forza_positions(30, stones=50, seed=1):
        assert solver.score(state) == minimax_score(FORZA.rules, state), FORZA.format_position(
            state
        )
        checked += 1
    assert checked == 30


def minimax_move_scores(state: GravityState) -> dict:
    """Every legal move's score by plain minimax over the engine (tiny positions)."""
    rules = FORZA.rules
    cells = rules.width * rules.height
    scores = {}
    for move in rules.legal_moves(state):
        child = rules.apply(state, move)
        if child.line:
            mover = child.x if rules.ply(state) % 2 == 0 else child.o
            scores[move] = cells // 2 + 1 - mover.bit_count()
        elif not rules.legal_moves(child):
            scores[move] = 0
        else:
            scores[move] = -minimax_score(rules, child)
    return scores


@pytest.mark.parametrize("backend", BACKENDS)
@settings(
    max_examples=examples(60, fast=12),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1), stones=st.integers(48, 56))
def test_every_forza_move_score_matches_plain_minimax(backend, seed, stones):
    # The search prunes (moves that let the opponent win at once, null windows,
    # bounds kept in the table, symmetric positions folded) and orders moves by
    # what earlier searches found; none of that may change a score.
    rng = random.Random(seed)
    state = None
    while state is None:  # a game that ended early is replayed with the same generator
        state = random_position(FORZA.rules, stones, rng)
    expected = minimax_move_scores(state)
    solution = Solver(FORZA, backend=backend).solve(state)
    assert {item.move: item.score for item in solution.moves} == expected
    assert solution.score == max(expected.values())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("table_size", [1, 2, 3, 1 << 12])
def test_a_reused_forza_solver_keeps_its_scores_whatever_its_table(backend, table_size):
    # One solver over many positions carries its table (and, in the compiled
    # core, its move-ordering history) from one to the next: the scores are those
    # of plain minimax all the same, with a table of one or two slots too.
    solver = Solver(FORZA, backend=backend, table_size=table_size)
    for state in late_forza_positions(8, stones=50, seed=5):
        assert solver.score(state) == minimax_score(FORZA.rules, state)


def test_symmetric_forza_positions_have_the_same_scores():
    rules = FORZA.rules
    for state in late_forza_positions(6, stones=46, seed=2):
        solution = Solver(FORZA).solve(state)
        by_move = {item.move: item.score for item in solution.moves}
        for symmetry in range(1, 8):
            image = Solver(FORZA).solve(rules.transform(state, symmetry))
            assert image.score == solution.score
            for item in image.moves:
                original = next(
                    move for move in by_move if rules.transform_move(move, symmetry) == item.move
                )
                assert item.score == by_move[original]


def test_the_forza_table_folds_symmetric_positions():
    rules = FORZA.rules
    state = late_forza_positions(1, stones=40, seed=4)[0]
    solver = Solver(FORZA, backend="python")
    solver.score(state)
    entries = len(solver.core.table)
    nodes = solver.nodes
    # The mirror image is found in the table: hardly any new node, no new entry.
    solver.score(rules.transform(state, 4))
    assert len(solver.core.table) == entries
    assert solver.nodes - nodes <= 2


# -- budgets and memory -------------------------------------------------------------------------


def test_the_table_never_holds_more_positions_than_its_size():
    columns, published = pons("middle-easy")[0]
    for size in (1, 10, 100):
        solver = Solver(CONNECT4, table_size=size, backend="python")
        sizes: list[int] = []
        core = solver.core
        original = core._checkpoint

        def watch(nodes, original=original, core=core, sizes=sizes):
            sizes.append(len(core.table))
            return min(original(nodes), nodes + 1)  # look at every node

        core._checkpoint = watch
        assert solver.score(connect4_state(columns)) == published
        assert sizes and max(sizes) <= size


@pytest.mark.skipif(not native_available(), reason="the compiled core is not built")
def test_the_compiled_table_has_exactly_its_size():
    columns, published = pons("middle-easy")[0]
    for size in (1, 10, 1000):
        solver = Solver(CONNECT4, table_size=size, backend="native")
        assert solver.score(connect4_state(columns)) == published
        assert solver.table_size == size
        assert 0 < solver.core.entries() <= size


@pytest.mark.parametrize("backend", BACKENDS)
def test_running_out_of_nodes_is_reported_not_guessed(backend):
    state = connect4_state("4453")  # an opening: far beyond a few hundred nodes
    solver = Solver(CONNECT4, backend=backend)
    with pytest.raises(BudgetExceeded, match="budget of 300 nodes ran out"):
        solver.solve(state, max_nodes=300)
    assert isinstance(BudgetExceeded("x"), PartitaError)
    # The solver stays usable, and a position within the budget is solved.
    columns, published = pons("end-easy")[0]
    assert solver.score(connect4_state(columns), max_nodes=100_000) == published


@pytest.mark.parametrize("backend", BACKENDS)
def test_running_out_of_time_is_reported(backend):
    state = connect4_state("4453")
    with pytest.raises(BudgetExceeded, match="time budget of 0.01 s"):
        Solver(CONNECT4, backend=backend).score(state, max_seconds=0.01)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_budget_counts_nodes_of_one_call(backend):
    columns, published = pons("middle-easy")[1]
    solver = Solver(CONNECT4, backend=backend)
    solution = solver.solve(connect4_state(columns))
    assert solution.nodes > 8
    with pytest.raises(BudgetExceeded):
        Solver(CONNECT4, backend=backend).solve(
            connect4_state(columns), max_nodes=solution.nodes // 4
        )
    # The same solver has spent nodes already: the budget is per call.
    assert solver.score(connect4_state(columns), max_nodes=solution.nodes) == published


def test_games_the_solver_cannot_handle_are_refused():
    from partita.games.gravity.rules import GravityRules

    with pytest.raises(PartitaError, match="lines of four"):
        Solver(GravityRules(5, 5, "t", 3))
    with pytest.raises(PartitaError, match="gravity games"):
        Solver(object())
