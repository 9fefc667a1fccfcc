"""Endgame graphs and their retrograde analysis.

Checked against Pons' published Connect Four scores, against games whose values are
known by hand (a subtraction game, a game that goes round), and against the
search solver, an independent method.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from shared_data import pons_folder
from solver_reference import connect4_state, random_position

from partita.analysis.endgame import BudgetExceeded, build_graph, endgame, solve_graph
from partita.errors import PartitaError
from partita.game.registry import get_game
from partita.game.rules import Outcome, Rules
from partita.games.gravity.rules import GravityState
from partita.games.gravity.solver import Solver, score_from_plies

CONNECT4 = get_game("connect4")
FORZA = get_game("forza4x4")


def stones(state: GravityState) -> int:
    return (state.x | state.o).bit_count()


def graph_score(rules, state: GravityState, **options) -> int:
    solved = endgame(rules, state, **options)
    value, distance = solved.result()
    return score_from_plies(value, distance, rules.width * rules.height, stones(state))


# -- against published scores -------------------------------------------------------------------


def test_late_published_connect_four_positions_are_solved_by_the_graph():
    checked = 0
    for line in (pons_folder() / "end-easy").read_text().splitlines():
        columns, published = line.split()
        if len(columns) < 35:
            continue
        state = connect4_state(columns)
        assert graph_score(CONNECT4.rules, state) == int(published), columns
        checked += 1
    assert checked >= 50


# -- against the search solver ------------------------------------------------------------------


def late_positions(game, count: int, *, stones_played: int, seed: int, limit: int):
    """Random undecided positions whose graph has at most ``limit`` positions."""
    rules = game.rules
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = random_position(rules, stones_played, rng)
        if state is not None:
            try:
                graph = endgame(rules, state, max_positions=limit)
            except BudgetExceeded:
                continue
            found.append((state, graph))
    return found


@pytest.mark.parametrize(
    ("game", "stones_played", "seed"), [(CONNECT4, 32, 1), (FORZA, 48, 2), (FORZA, 44, 3)]
)
def test_search_and_retrograde_agree_on_every_move(game, stones_played, seed):
    rules = game.rules
    cells = rules.width * rules.height
    solver = Solver(game)
    for state, graph in late_positions(
        game, 12, stones_played=stones_played, seed=seed, limit=3000
    ):
        solution = solver.solve(state)
        value, distance = graph.result()
        assert solution.score == score_from_plies(value, distance, cells, stones(state))
        by_move = {
            move: score_from_plies(move_value, plies, cells, stones(state))
            for move, move_value, plies in graph.move_results()
        }
        assert {item.move: item.score for item in solution.moves} == by_move
        assert set(graph.best_moves()) == set(solution.best)


def test_a_principal_line_plays_out_the_result():
    rules = CONNECT4.rules
    state = connect4_state("2252576253462244111563365343671351441")  # published -1
    graph = endgame(rules, state)
    assert graph.result() == ("loss", 4)  # o loses when x plays its 21st stone, 4 plies on
    line = graph.principal_line()
    assert len(line) == 4
    for move in line:
        state = rules.apply(state, move)
    assert rules.outcome(state).winner == 0


# -- generic over the contract ---------------------------------------------------------------------


@dataclass(frozen=True)
class Pile:
    stones: int
    side: int
    ply: int = 0


class Subtraction(Rules):
    """Take 1 or 2 stones; whoever takes the last stone wins. A pile of a multiple
    of three is lost for the side to move, in as many plies as stones / 1.5."""

    name = "subtraction"
    title = "Subtraction game"

    def initial(self, sides: int = 2) -> Pile:
        return Pile(7, 0)

    def sides(self, state: Pile) -> int:
        return 2

    def side_to_move(self, state: Pile) -> int:
        return state.side

    def legal_moves(self, state: Pile) -> Sequence[int]:
        return [take for take in (1, 2) if take <= state.stones]

    def illegal_reason(self, state: Pile, move: int) -> str | None:
        return None if move in self.legal_moves(state) else "no"

    def apply(self, state: Pile, move: int) -> Pile:
        return Pile(state.stones - move, 1 - state.side, state.ply + 1)

    def outcome(self, state: Pile) -> Outcome | None:
        if state.stones == 0:
            return Outcome.win_for(1 - state.side, 2, "took the last stone")
        return None

    def ply(self, state: Pile) -> int:
        return state.ply

    def key(self, state: Pile):
        return (state.stones, state.side)

    def diagram(self, state: Pile) -> str:
        return str(state.stones)


class TwiceSubtraction(Subtraction):
    """The same, but taking 2 stones lets the same side move again."""

    def apply(self, state: Pile, move: int) -> Pile:
        side = state.side if move == 2 and state.stones > 2 else 1 - state.side
        return Pile(state.stones - move, side, state.ply + 1)


class Round(Subtraction):
    """Both sides can only pass: play goes round the same two positions for ever."""

    def initial(self, sides: int = 2) -> Pile:
        return Pile(3, 0)

    def legal_moves(self, state: Pile) -> Sequence[int]:
        return [0]

    def apply(self, state: Pile, move: int) -> Pile:
        return Pile(state.stones, 1 - state.side, state.ply + 1)


def test_retrograde_analysis_of_a_subtraction_game():
    rules = Subtraction()
    for pile in range(1, 13):
        graph = endgame(rules, Pile(pile, 0))
        value, distance = graph.result()
        if pile % 3 == 0:
            # The loser takes as long as it can: 2 plies per 3 stones.
            assert (value, distance) == ("loss", 2 * pile // 3)
            assert set(graph.best_moves()) == {1, 2}
        else:
            assert (value, distance) == ("win", 2 * (pile // 3) + 1)
            assert graph.best_moves() == [pile % 3]


def test_turns_that_do_not_alternate_are_followed():
    rules = TwiceSubtraction()
    graph = endgame(rules, Pile(4, 0))
    # Taking 2 from 4 keeps the move: then 2 more wins. Taking 1 leaves 3 to the
    # opponent, who takes 2 (keeping the move) and then the last one.
    assert graph.result() == ("win", 2)
    assert graph.best_moves() == [2]
    assert sorted(graph.move_results()) == [(1, "loss", 3), (2, "win", 2)]


def test_play_that_goes_round_for_ever_is_a_draw():
    graph = endgame(Round(), Pile(3, 0))
    assert graph.result() == ("draw", None)
    assert len(graph) == 2
    assert graph.principal_line() == [0, 0]


# -- bounds and shapes -------------------------------------------------------------------------------


def test_the_graph_stops_at_its_size_limit():
    state = connect4_state("4453")
    with pytest.raises(BudgetExceeded, match="more than 500 positions"):
        build_graph(CONNECT4.rules, state, max_positions=500)
    assert isinstance(BudgetExceeded("x"), PartitaError)


def test_folding_symmetries_gives_a_smaller_graph_with_the_same_result():
    rules = FORZA.rules
    (state, plain), *_ = late_positions(FORZA, 1, stones_played=46, seed=5, limit=5000)
    folded = endgame(rules, state, fold_symmetry=True, max_positions=5000)
    assert len(folded) <= len(plain)
    assert folded.result() == plain.result()


def test_the_graph_is_kept_in_flat_arrays():
    state = connect4_state("2252576253462244111563365343671351441")
    graph = solve_graph(build_graph(CONNECT4.rules, state))
    assert graph.complete and graph.solved
    # One value and one distance per node, one entry per move, offsets per node.
    assert len(graph.values) == len(graph.distances) == len(graph) == len(graph.index)
    assert len(graph.targets) == graph.edges == graph.offsets[-1]
    assert graph.node(state) == 0
    # The root's successors: one per legal move (t6 and t7), o to move in both.
    children = graph.targets[graph.offsets[0] : graph.offsets[1]]
    assert len(children) == 2 and all(entry & 1 for entry in children)
    moves = sorted(move.notation() for move, _, _ in graph.move_results())
    assert moves == ["t6", "t7"]
    assert graph.nbytes() < 200 * len(graph)


def test_the_pruned_graph_holds_the_line_and_every_move_along_it():
    state = connect4_state("2252576253462244111563365343671351441")  # published -1
    graph = endgame(CONNECT4.rules, state)
    shown = graph.pruned_graph(CONNECT4)
    line = [node for node, data in shown.nodes(data=True) if data["line"]]
    assert len(line) == 5  # the root and the four plies of the principal line
    root = shown.nodes["p0"]
    assert root["position"] == CONNECT4.format_position(state)
    assert (root["value"], root["distance"], root["side"]) == ("loss", 4, 2)
    assert sorted(data["move"] for _, _, data in shown.out_edges("p0", data=True)) == ["t6", "t7"]
    best = [data["move"] for _, _, data in shown.out_edges("p0", data=True) if data["best"]]
    assert best == [CONNECT4.format_move(state, move) for move in graph.best_moves()]
    ends = [node for node, data in shown.nodes(data=True) if data["distance"] == 0]
    assert ends and all(shown.out_degree(node) == 0 for node in ends)


def test_a_partial_graph_proves_what_it_can():
    state = connect4_state("4453")
    with pytest.raises(BudgetExceeded):
        endgame(CONNECT4.rules, state, max_positions=2000)
    graph = endgame(CONNECT4.rules, state, max_positions=2000, partial=True)
    assert not graph.complete and len(graph) < 2100
    assert graph.result() == ("unknown", None)
    assert graph.best_moves() == [] and graph.principal_line() == []


def test_answer_endgame_asks_the_solver_only_past_the_first_stage():
    from partita.analysis.endgame import answer_endgame

    columns = next(
        line.split()[0]
        for line in (pons_folder() / "end-easy").read_text().splitlines()
        if len(line.split()[0]) >= 36
    )
    answer, graph, solver_tried = answer_endgame(CONNECT4, connect4_state(columns))
    assert not solver_tried and answer.get("answered_by") != "solver"
    assert answer["value"] in ("win", "draw", "loss") and len(graph) <= 10_000
    # A graph larger than its first stage (Pons' middle-easy set: a loss for the mover).
    middle = connect4_state("1233722555341451114725221333")
    answer, graph, solver_tried = answer_endgame(CONNECT4, middle)
    assert solver_tried and answer["answered_by"] == "solver"
    assert answer["value"] == "loss" and answer["moves"] and answer["distance"] is not None
    with pytest.raises(BudgetExceeded):  # whole: the graph or nothing, never the solver
        answer_endgame(CONNECT4, middle, whole=True, max_positions=2000)
