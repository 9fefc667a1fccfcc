"""What answers a gravity position, and what a search that runs out says.

The standard 7x6 Connect Four board is answered by bitbully where it is installed
(the ``connect4`` extra); its answers are checked against Pascal Pons' published
scores and against partita's own search, never against themselves. Budgets that
run out must say what was found (bounds, the moves solved, the best so far) and
which option buys more; `partita endgame` hands a large gravity endgame to the
exact solver, whose answer must agree with the endgame graph's where both answer.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from cli_runner import run_cli
from hypothesis import given
from hypothesis import strategies as st
from shared_data import pons_folder
from solver_reference import connect4_state, minimax_score

from partita.analysis.endgame import endgame, solver_result
from partita.analysis.solving import solver_for
from partita.errors import BudgetExceeded, PartitaError
from partita.game.registry import get_game
from partita.games.gravity.solver import Solver, table_entries
from partita.notation.replay import replay

CONNECT4 = get_game("connect4")
FORZA = get_game("forza4x4")
HAS_BITBULLY = importlib.util.find_spec("bitbully") is not None
needs_bitbully = pytest.mark.skipif(not HAS_BITBULLY, reason="bitbully is not installed")

#: The empty 7x6 board's move scores in Pons' convention, columns 1 to 7.
EMPTY_BOARD = [-2, -1, 0, 1, 0, -1, -2]
SETS = ("end-easy", "middle-easy", "middle-medium", "begin-easy", "begin-medium", "begin-hard")


def pons(name: str, count: int | None = None) -> list[tuple[str, int]]:
    lines = (pons_folder() / name).read_text().splitlines()
    if count is not None:
        lines = lines[:: max(1, len(lines) // count)][:count]
    return [(line.split()[0], int(line.split()[1])) for line in lines]


# -- bitbully, the optional engine of the 7x6 board ----------------------------------------------


@needs_bitbully
def test_the_empty_board_is_a_first_player_win_with_pons_move_scores():
    solver = Solver(CONNECT4, engine="bitbully")
    solution = solver.solve(CONNECT4.rules.initial())
    assert solution.engine == "bitbully"
    assert solution.value == "win" and solution.score == 1
    assert [item.score for item in solution.moves] == EMPTY_BOARD
    assert [CONNECT4.format_move(CONNECT4.rules.initial(), m) for m in solution.best] == ["t4"]
    data = solution.as_dict(str)
    assert data["exact"] is True and data["engine"] == "bitbully"


@needs_bitbully
@pytest.mark.parametrize("name", SETS)
def test_bitbully_gives_pons_published_scores_on_a_sample(name):
    solver = Solver(CONNECT4, engine="bitbully")
    for columns, published in pons(name, 15):
        assert solver.score(connect4_state(columns)) == published, columns


def agree_on_every_move(name: str, count: int) -> None:
    theirs = Solver(CONNECT4, engine="bitbully")
    ours = Solver(CONNECT4, engine="search")
    for columns, published in pons(name, count):
        state = connect4_state(columns)
        their = theirs.solve(state)
        our = ours.solve(state)
        assert our.engine == "search" and their.engine == "bitbully"
        assert [(m.move, m.score) for m in their.moves] == [(m.move, m.score) for m in our.moves]
        assert their.score == our.score == published


@needs_bitbully
@pytest.mark.parametrize("name", ("end-easy", "middle-easy"))
def test_bitbully_and_partitas_search_agree_on_every_move(name):
    agree_on_every_move(name, 8)


@needs_bitbully
@pytest.mark.slow
@pytest.mark.parametrize("name", ("middle-medium", "begin-easy"))
def test_bitbully_and_partitas_search_agree_on_every_move_of_longer_searches(name):
    # Every move of a begin-easy position leaves 28 or more cells: a minute for 6.
    agree_on_every_move(name, 20 if name == "middle-medium" else 6)


@needs_bitbully
@pytest.mark.slow
@pytest.mark.parametrize("name", SETS)
def test_bitbully_gives_every_published_score(name):
    solver = Solver(CONNECT4, engine="bitbully")
    for columns, published in pons(name):
        assert solver.score(connect4_state(columns)) == published, columns


@pytest.mark.slow
@pytest.mark.parametrize("name", ("end-easy", "middle-easy", "begin-easy"))
def test_partitas_search_gives_every_published_score_of_the_quick_sets(name):
    solver = Solver(CONNECT4, engine="search")
    for columns, published in pons(name):
        assert solver.score(connect4_state(columns)) == published, columns


def unfinished_position(stones: int, rng):
    """Random play to ``stones`` that avoids ending the game while it can (plain
    random play ends most games before 24 stones); ``None`` if it had to end."""
    rules = CONNECT4.rules
    state = rules.initial()
    for _ in range(stones):
        moves = list(rules.legal_moves(state))
        rng.shuffle(moves)
        for move in moves:
            child = rules.apply(state, move)
            if rules.outcome(child) is None:
                state = child
                break
        else:
            return None
    return state


@needs_bitbully
@given(seed=st.integers(0, 2**32 - 1), stones=st.integers(24, 41))
def test_bitbully_and_the_search_agree_on_random_late_positions(seed, stones):
    # Random play leaves positions Pons' sets lack: a side able to win at once,
    # both sides threatening, a nearly full board.
    import random

    state = unfinished_position(stones, random.Random(seed))
    if state is None:
        return
    theirs = Solver(CONNECT4, engine="bitbully").solve(state)
    ours = Solver(CONNECT4, engine="search", table_size=1 << 14).solve(state)
    assert [(m.move, m.score) for m in theirs.moves] == [(m.move, m.score) for m in ours.moves]
    if stones >= 34:  # few enough cells left for plain minimax
        assert theirs.score == minimax_score(CONNECT4.rules, state)


def test_other_boards_and_the_search_engine_keep_to_partitas_search():
    assert Solver(FORZA).engine == "search"
    assert Solver(CONNECT4, engine="search").engine == "search"
    with pytest.raises(PartitaError, match="7x6 Connect Four board only"):
        Solver(FORZA, engine="bitbully")
    with pytest.raises(PartitaError, match="auto, search or bitbully"):
        Solver(CONNECT4, engine="stockfish")


@needs_bitbully
def test_solve_says_bitbully_answered_and_that_the_value_is_exact():
    result = run_cli(
        ["solve", "--game", "connect4", "--json"], env={"PARTITA_GRAVITY_ENGINE": "auto"}
    )
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["value"], data["score"], data["best"]) == ("win", 1, ["t4"])
    assert [item["score"] for item in data["moves"]] == EMPTY_BOARD
    assert data["exact"] is True and data["engine"] == "bitbully"
    text = run_cli(
        ["solve", "--game", "connect4", "--columns", "4453"],
        env={"PARTITA_GRAVITY_ENGINE": "auto"},
    )
    assert text.code == 0 and "exact, by bitbully" in text.stdout


# -- memory ------------------------------------------------------------------------------------


def test_memory_sizes_the_table():
    assert table_entries(9 * 1000, native=True, top_entry=True) == 1000
    assert table_entries(17 * 1000, native=True, top_entry=False) == 1000
    solver = Solver(FORZA, memory=1 << 20)
    expected = table_entries(1 << 20, native=solver.backend == "native", top_entry=False)
    assert solver.table_size == expected
    assert solver_for(FORZA, memory=1 << 20).table_size == expected


@pytest.mark.parametrize(
    "memory, message", [("lots", "give a size such as 256M"), ("1K", "between 64K and 64G")]
)
def test_a_bad_memory_size_is_a_usage_error(memory, message):
    result = run_cli(["solve", "--game", "forza4x4", "--memory", memory])
    assert result.code == 2 and message in result.stderr


# -- budgets that run out ------------------------------------------------------------------------


def test_a_search_that_runs_out_says_what_it_found():
    solver = Solver(CONNECT4, engine="search")
    with pytest.raises(BudgetExceeded) as caught:
        solver.solve(connect4_state("4453"), max_nodes=200_000)
    error = caught.value
    found = error.found
    assert error.limit == "nodes"
    # The move nearest the centre is searched first; its bounds hold the true score
    # (-3 for t4 after 4453, Pons' convention) and bound the position from below.
    searching = found["searching"]
    assert searching["move"] == "t4"
    assert searching["low"] <= -3 <= searching["high"]
    assert found["low"] <= -2  # the position's score is -2
    assert found["best"] and "best so far" in str(error)
    assert "budget of 200000 nodes ran out" in str(error)


def test_the_moves_solved_before_the_budget_ran_out_are_kept():
    # A late position: the first moves solve quickly, so a budget between one
    # move's cost and the whole position's leaves some solved, some not.
    columns = pons("middle-medium", 1)[0][0]
    state = connect4_state(columns)
    whole = Solver(CONNECT4, engine="search", table_size=1 << 16).solve(state)
    exact = {item.move: item.score for item in whole.moves}
    for budget in (whole.nodes // 3, whole.nodes // 2, 2 * whole.nodes // 3):
        try:
            Solver(CONNECT4, engine="search", table_size=1 << 16).solve(state, max_nodes=budget)
        except BudgetExceeded as error:
            for token, score in error.found["solved"].items():
                assert exact[CONNECT4.parse_move(state, token)] == score
            searching = error.found["searching"]
            truth = exact[CONNECT4.parse_move(state, searching["move"])]
            assert searching["low"] <= truth <= searching["high"]
            assert error.found["low"] <= whole.score


def test_a_search_that_found_nothing_yet_says_so():
    with pytest.raises(BudgetExceeded) as caught:
        Solver(FORZA).solve(FORZA.rules.initial(), max_nodes=5_000)
    assert "not bounded yet" in str(caught.value)
    assert caught.value.found["low"] is None and caught.value.found["best"] == []


def test_solve_names_the_options_that_buy_more():
    result = run_cli(["solve", "--game", "connect4", "--columns", "4453", "--budget", "300000"])
    assert result.code == 1
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    for part in ("ran out", "between", "best so far", "--budget", "--memory", "--time"):
        assert part in line, part
    timed = run_cli(["solve", "--game", "connect4", "--columns", "4453", "--time", "0.05"])
    assert timed.code == 1 and "time budget of 0.05 s" in timed.stderr
    assert "raise --time" in timed.stderr


# -- endgame: large gravity endgames go to the exact solver -------------------------------------

CLUB = (
    Path(__file__).resolve().parent.parent / "examples" / "forza4x4" / "club-championship-2024.pgr"
)


def club_state(ply: int):
    from partita.notation.reader import read_records

    records = list(read_records(str(CLUB)))
    replayed = replay(records[7])
    return replayed.game, replayed.states[ply - 1]


def test_the_solver_and_the_endgame_graph_agree_where_both_answer():
    game, state = club_state(50)
    graph = endgame(game, state, fold_symmetry=True)
    assert graph.complete
    by_graph = graph.as_dict(game, state)
    by_solver = solver_result(game, state)
    assert by_solver["answered_by"] == "solver" and by_solver["exact"]
    assert (by_solver["value"], by_solver["distance"]) == (
        by_graph["value"],
        by_graph["distance"],
    )

    def moves(data):
        return sorted((m["move"], m["value"], m["distance"]) for m in data["moves"])

    assert moves(by_solver) == moves(by_graph)
    assert len(by_solver["line"]) == by_solver["distance"]


def test_endgame_answers_a_shipped_forza_game_at_ply_40():
    result = run_cli([
        "endgame", str(CLUB), "--index", "7", "--ply", "40", "--json"
    ])  # fmt: skip
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["answered_by"] == "solver" and data["exact"] is True
    assert data["value"] == "win" and data["distance"] == len(data["line"]) == 15
    assert data["seconds"] < 30


def test_an_unproven_endgame_says_what_was_proven_and_what_buys_more():
    from test_endgame_cli import RACE_ARGS

    result = run_cli([*RACE_ARGS, "--max-positions", "50"])
    assert result.code == 1
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert "not proven within" in line and "--max-positions" in line and "--seconds" in line
    assert "proven so far" in line or "no move of it proven yet" in line
