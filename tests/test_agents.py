"""Search agents: spec strings, MCTS (max-n, chance, solved nodes, budgets, seeds),
greedy, and the games' heuristics and playout policies, through the contract alone."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.analysis.agents import (
    GreedyAgent,
    MctsAgent,
    RandomAgent,
    agent_from_spec,
    parse_agent_spec,
)
from partita.analysis.heuristics import evaluation_for, rollout_for, uniform_evaluation
from partita.analysis.mcts import Mcts
from partita.errors import PartitaError
from partita.game.registry import get_game
from partita.game.rules import CHANCE, Outcome, Rules
from partita.games.gravity.heuristics import GravityHeuristics

CONNECT4 = get_game("connect4")
FORZA = get_game("forza4x4")

#: Every game with every side count it is played by.
SEATINGS = [
    ("connect4", 2),
    ("forza4x4", 2),
    ("universal-forces", 2),
    ("universal-forces", 3),
    ("universal-forces", 4),
    ("circular-reasoning", 2),
    ("circular-reasoning", 3),
    ("circular-reasoning", 4),
    ("forceball", 2),
]


def random_position(name: str, sides: int, seed: int, plies: int) -> object:
    """A position after up to ``plies`` random plies that is not over."""
    rules = get_game(name).rules
    rng = random.Random(seed)
    state = rules.initial(sides)
    for _ in range(plies):
        move = rules.sample_move(state, rng)
        after = rules.apply(state, move)
        if rules.outcome(after) is not None:
            break
        state = after
    return state


# -- spec strings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "kind", "budget"),
    [
        ("random", RandomAgent, None),
        ("greedy", GreedyAgent, None),
        ("mcts:2000", MctsAgent, ("playouts", 2000)),
        ("mcts:1_000", MctsAgent, ("playouts", 1000)),
        ("mcts:2s", MctsAgent, ("seconds", 2.0)),
        ("mcts:0.5s", MctsAgent, ("seconds", 0.5)),
        (" mcts:50,c=0.7,plies=10,samples=3 ", MctsAgent, ("playouts", 50)),
    ],
)
def test_specs_name_their_agents(spec, kind, budget):
    agent = agent_from_spec(spec, CONNECT4, seed=1)
    assert type(agent) is kind
    assert agent.spec == spec.strip()
    if budget is not None:
        assert getattr(agent, budget[0]) == budget[1]


def test_mcts_options_reach_the_search():
    agent = agent_from_spec("mcts:50,c=0.7,plies=10,samples=3,bias=0", CONNECT4)
    assert (agent.search.exploration, agent.search.rollout_plies) == (0.7, 10)
    assert (agent.search.determinizations, agent.search.bias) == (3, 0.0)


@pytest.mark.parametrize(
    ("name", "plies"),
    [
        ("connect4", 60),
        ("forza4x4", 60),
        ("universal-forces", 0),
        ("circular-reasoning", 20),
        ("forceball", 0),
    ],
)
def test_the_playout_length_is_the_games_own_unless_the_spec_says(name, plies):
    # Each game's spec sets how long its playouts run before the heuristic takes
    # over (docs/analysis.md says why); plies=N overrides it.
    assert agent_from_spec("mcts:50", get_game(name)).search.rollout_plies == plies
    assert agent_from_spec("mcts:50,plies=7", get_game(name)).search.rollout_plies == 7
    assert Mcts(get_game(name), rollout_plies=3).rollout_plies == 3


def test_a_playout_of_no_plies_scores_the_new_position_with_the_heuristic():
    game = get_game("universal-forces")
    state = random_position("universal-forces", 2, seed=3, plies=20)
    search = Mcts(game, rollout_plies=0, widening=0)  # every move considered at once
    moves = game.rules.legal_moves(state)
    result = search.search(state, random.Random(0), playouts=len(moves))
    tried_once = [stats for stats in result.moves if stats.visits == 1 and not stats.exact]
    assert len(tried_once) > len(moves) // 2
    for stats in tried_once:  # its one playout: the heuristic's score, no ply played
        assert stats.value == search.evaluation(game.rules.apply(state, stats.move))


def test_the_heuristic_orders_the_first_visits():
    # Universal Forces: with a budget of one playout a child, the first playouts
    # follow the heuristic; without the bias they follow a random order.
    game = get_game("universal-forces")
    state = game.parse_position("C1=1B,C4=2R 1:GGYYBBRR/GYR/- 2:GGYYBBRR/GYB/- 1 20")
    evaluate = evaluation_for(game)
    rules = game.rules
    moves = rules.legal_moves(state)
    ranked = sorted(moves, key=lambda m: evaluate(rules.apply(state, m))[0], reverse=True)
    result = Mcts(game, bias=1.0).search(state, random.Random(0), playouts=3)
    visited = [item.move for item in result.moves if item.visits]
    assert set(visited) == set(ranked[:3])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts", "unknown agent 'mcts': an agent is random, greedy, or mcts:N"),
        ("mcts:0", "unknown agent 'mcts:0'"),
        ("mcts:-5", "unknown agent 'mcts:-5'"),
        ("alphazero", "unknown agent 'alphazero'"),
        (
            "mcts:100,depth=3",
            "'depth=3' is no option of mcts (c, plies, samples, bias, widen, minimax, reuse, workers)",
        ),
        ("mcts:100,c=", "'c=' is no option of mcts"),
        ("mcts:100,c=fast", "c='fast' is not a number"),
        ("mcts:100,plies=-1", "plies must be 0 or more"),
        ("mcts:100,samples=0", "samples 1 or more"),
        ("mcts:100,c=-1", "c, bias and widen cannot be negative"),
        ("mcts:100,bias=-0.5", "c, bias and widen cannot be negative"),
        ("mcts:100,widen=-1", "c, bias and widen cannot be negative"),
        ("mcts:100,minimax=2", "minimax is a weight from 0 to 1"),
        ("mcts:0s", "a search needs more than 0 seconds"),
        ("mcts:100,reuse=2", "reuse is 1 (keep the tree between moves) or 0"),
        ("mcts:100,reuse=yes", "reuse='yes' is not a number"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(PartitaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_agent_spec(spec)


def test_random_agent_does_not_evaluate():
    with pytest.raises(PartitaError, match="does not evaluate"):
        agent_from_spec("random", CONNECT4).evaluate(CONNECT4.rules.initial())


# -- MCTS ----------------------------------------------------------------------------------


def test_a_search_is_deterministic_for_a_seed_and_a_budget_in_playouts():
    state = FORZA.parse_position("x6x/8/8/x7/8/8/8/ooo5 x")
    first = Mcts(FORZA).search(state, random.Random(7), playouts=150)
    second = Mcts(FORZA).search(state, random.Random(7), playouts=150)
    assert (first.moves, first.value, first.exact) == (second.moves, second.value, second.exact)
    assert first.playouts == 150
    assert sum(item.visits for item in first.moves) <= 150


def test_an_immediate_win_is_found_on_the_first_playout_and_is_exact():
    # x to move wins with t4 (the bottom row x x x _).
    state = CONNECT4.parse_position("7/7/7/7/4o2/xxx1oo1 x")
    result = Mcts(CONNECT4).search(state, random.Random(1), playouts=1)
    assert CONNECT4.format_move(state, result.best) == "t4"
    assert result.exact and result.value == (1.0, 0.0)


def test_the_search_blocks_a_threat_and_sees_the_loss_behind_every_other_move():
    state = CONNECT4.parse_position("7/7/7/7/4x2/ooo1xx1 x")
    result = Mcts(CONNECT4).search(state, random.Random(3), playouts=200)
    assert CONNECT4.format_move(state, result.best) == "t4"
    losing = [item for item in result.moves if item.move != result.best]
    # Every other move lets o win at once: each is proven lost for x.
    assert all(item.exact and item.value == (0.0, 1.0) for item in losing)


def test_a_finished_game_gives_its_outcome():
    rules = CONNECT4.rules
    state = CONNECT4.parse_position("7/7/7/7/4o2/xxx1oo1 x")
    state = rules.apply(state, CONNECT4.parse_move(state, "t4"))
    result = Mcts(CONNECT4).search(state, random.Random(1), playouts=10)
    assert result.exact and result.value == (1.0, 0.0) and result.moves == ()


def test_max_n_with_three_sides_takes_the_finishing_move():
    # Circular Reasoning, 3 sides: red (P1) to move has two tokens home and its
    # square one step from the Goal Area through the small gateway at I1.
    game = get_game("circular-reasoning")
    state = game.parse_position("1:CG,TG,SI16 2:C@,T@,S@ 3:C@,T@,S@ / O9 M5 I1 / 9 P1")
    rules = game.rules
    winning = [m for m in rules.legal_moves(state) if rules.outcome(rules.apply(state, m))]
    assert winning  # the premise, from the engine
    result = Mcts(game).search(state, random.Random(2), playouts=20)
    assert result.best in winning
    assert result.value == (1.0, 0.0, 0.0) and len(result.value) == 3


@pytest.mark.parametrize(("name", "sides"), SEATINGS)
def test_search_values_are_expected_scores_of_every_side(name, sides):
    state = random_position(name, sides, seed=sides, plies=12)
    result = Mcts(get_game(name), rollout_plies=20).search(state, random.Random(0), playouts=24)
    assert len(result.value) == sides
    assert all(0.0 <= part <= 1.0 for part in result.value)
    assert sum(result.value) == pytest.approx(1.0, abs=1e-9) or name == "universal-forces"
    for item in result.moves:
        assert len(item.value) == sides and item.visits >= 0


def test_chance_nodes_are_sampled_not_searched():
    # Forceball before the shuffle: the chance side moves (a deck order).
    game = get_game("forceball")
    state = game.rules.initial()
    search = Mcts(game, rollout_plies=10, chance_samples=3)
    result = search.search(state, random.Random(4), playouts=12)
    assert result.side == CHANCE and result.best is None
    assert 1 <= len(result.moves) <= 3  # at most chance_samples outcomes kept
    assert sum(item.visits for item in result.moves) == 12
    assert sum(result.value) == pytest.approx(1.0)


def test_a_budget_in_seconds_stops_in_time():
    state = FORZA.rules.initial()
    started = time.perf_counter()
    result = Mcts(FORZA).search(state, random.Random(0), seconds=0.2)
    assert time.perf_counter() - started < 1.5
    assert result.playouts > 0


def test_a_search_needs_a_budget():
    with pytest.raises(PartitaError, match="needs a budget"):
        Mcts(CONNECT4).search(CONNECT4.rules.initial(), random.Random(0))


def test_mcts_beats_random_at_connect_four():
    rules = CONNECT4.rules
    score = 0.0
    for game in range(6):
        agents = [agent_from_spec("mcts:60", CONNECT4, seed=game), agent_from_spec("random", rules)]
        seat = game % 2
        if seat:
            agents.reverse()
        rng = random.Random(game)
        state = rules.initial()
        while rules.outcome(state) is None:
            state = rules.apply(state, agents[rules.side_to_move(state)].choose(state, rng))
        score += float(rules.outcome(state).scores[seat])
    assert score >= 5


# -- greedy --------------------------------------------------------------------------------------


def test_greedy_takes_a_win_and_blocks_a_threat():
    greedy = agent_from_spec("greedy", CONNECT4, seed=0)
    win = CONNECT4.parse_position("7/7/7/7/4o2/xxx1oo1 x")
    assert CONNECT4.format_move(win, greedy.choose(win)) == "t4"
    assert greedy.last.exact and greedy.last.value == (1.0, 0.0)
    block = CONNECT4.parse_position("7/7/7/7/4x2/ooo1xx1 x")
    assert CONNECT4.format_move(block, greedy.choose(block)) == "t4"


def test_greedy_scores_every_candidate_once():
    state = random_position("universal-forces", 3, seed=5, plies=30)
    greedy = agent_from_spec("greedy", get_game("universal-forces"), seed=0)
    result = greedy.evaluate(state)
    rules = get_game("universal-forces").rules
    assert {item.move for item in result.moves} == set(rules.legal_moves(state))
    side = rules.side_to_move(state)
    assert result.value == max((item.value for item in result.moves), key=lambda v: v[side])


# -- heuristics and playout policies ------------------------------------------------------


def lines_of(rules) -> list[int]:
    """Every line of ``line_length`` cells on a gravity board (rows, columns, both
    diagonals), as a mask of bits, from the board's public geometry."""
    lines = []
    for step_column, step_row in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for row in range(1, rules.height + 1):
            for column in range(1, rules.width + 1):
                cells = [
                    (column + step_column * k, row + step_row * k) for k in range(rules.line_length)
                ]
                if all(1 <= c <= rules.width and 1 <= r <= rules.height for c, r in cells):
                    lines.append(sum(1 << rules.bit(c, r) for c, r in cells))
    return lines


def test_the_brute_force_finds_connect_fours_69_lines():
    assert len(lines_of(CONNECT4.rules)) == 69  # Connect Four's well-known 69 lines
    assert len(set(lines_of(FORZA.rules))) == len(lines_of(FORZA.rules))


@settings(max_examples=examples(40, fast=10), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 60), forza=st.booleans())
def test_threats_and_landings_agree_with_the_engine(seed, plies, forza):
    game = FORZA if forza else CONNECT4
    rules = game.rules
    heuristics = GravityHeuristics(rules)
    state = random_position(game.name, 2, seed, plies)
    occupied = state.x | state.o
    for own in (state.x, state.o):
        # Brute force: the empty cell of every window holding three of own's pieces.
        expected = 0
        for window in lines_of(rules):
            missing = window & ~own
            if missing.bit_count() == 1 and not missing & occupied:
                expected |= missing
        assert heuristics.threats(own, occupied) == expected
    for move in rules.legal_moves(state):
        after = rules.apply(state, move)
        assert heuristics.landing(occupied, move) == (after.x | after.o) & ~occupied


@pytest.mark.parametrize(("name", "sides"), SEATINGS)
def test_heuristics_and_policies_respect_the_contract(name, sides):
    game = get_game(name)
    rules = game.rules
    evaluate, policy = evaluation_for(game), rollout_for(game)
    assert policy != rules.sample_move  # every shipped game has its own
    for seed in range(4):
        state = random_position(name, sides, seed, plies=10 + 15 * seed)
        if rules.outcome(state) is not None or rules.side_to_move(state) == CHANCE:
            continue
        value = evaluate(state)
        assert len(value) == sides and all(0.0 <= part <= 1.0 for part in value)
        assert sum(value) == pytest.approx(1.0)
        move = policy(state, random.Random(seed))
        assert rules.illegal_reason(state, move) is None


def test_a_game_without_heuristics_gets_even_chances():
    state = CONNECT4.rules.initial()
    assert uniform_evaluation(CONNECT4.rules)(state) == (0.5, 0.5)
    rules4 = get_game("universal-forces").rules
    assert uniform_evaluation(rules4)(rules4.initial(4)) == (0.25,) * 4


def test_the_evaluation_sees_a_playable_threat():
    evaluate = evaluation_for(CONNECT4)
    # x to move can win at once; o to move must block one threat of two.
    assert evaluate(CONNECT4.parse_position("7/7/7/7/4o2/xxx1oo1 x"))[0] > 0.9
    assert evaluate(CONNECT4.parse_position("7/7/7/7/7/1xxx1oo o"))[1] < 0.2


def test_connect_four_plays_out_with_the_safe_threat_policy():
    # Win at once, else block a playable threat, else random but not under an
    # opponent's threat (docs/analysis.md, Playout length).
    policy = rollout_for(CONNECT4)
    win = CONNECT4.parse_position("7/7/7/7/4o2/xxx1oo1 x")
    block = CONNECT4.parse_position("7/7/7/7/4x2/ooo1xx1 x")
    for seed in range(20):
        assert CONNECT4.format_move(win, policy(win, random.Random(seed))) == "t4"
        assert CONNECT4.format_move(block, policy(block, random.Random(seed))) == "t4"
    # o's three on row 2 wants t4's second cell: t4 now would hand it over.
    under = CONNECT4.parse_position("7/7/7/7/ooo4/xox2xx x")
    played = {CONNECT4.format_move(under, policy(under, random.Random(s))) for s in range(60)}
    assert played == {"t1", "t2", "t3", "t5", "t6", "t7"}
    # Forza 4x4's threat policy has no such care: it plays t4 now and then.
    forza_policy = GravityHeuristics(CONNECT4.rules).choose
    assert "t4" in {
        CONNECT4.format_move(under, forza_policy(under, random.Random(s))) for s in range(60)
    }


def test_the_analysis_page_examples_run():
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "analysis.md"
    failures, tried = doctest.testfile(str(page), module_relative=False)
    assert tried >= 10 and failures == 0


# -- the skill levers: widening, implicit minimax, learned evaluations ---------------------------


def test_widening_and_minimax_options_reach_the_search():
    agent = agent_from_spec("mcts:50,widen=1.5,minimax=0.3", CONNECT4)
    assert (agent.search.widening, agent.search.minimax) == (1.5, 0.3)
    # a game's spec declares its own (Universal Forces: about 45 moves a position)
    assert agent_from_spec("mcts:50", get_game("universal-forces")).search.widening > 0
    assert agent_from_spec("mcts:50", CONNECT4).search.widening == 0
    with pytest.raises(PartitaError, match="minimax weight is from 0 to 1"):
        Mcts(CONNECT4, minimax=1.5)


@pytest.mark.parametrize("options", ["widen=2", "minimax=0.5", "widen=1,minimax=0.3"])
@pytest.mark.parametrize(("name", "sides"), [("universal-forces", 3), ("forza4x4", 2)])
def test_widened_and_minimax_searches_play_legal_moves_deterministically(name, sides, options):
    game = get_game(name)
    state = random_position(name, sides, seed=11, plies=12)
    moves = []
    for _ in range(2):
        agent = agent_from_spec(f"mcts:60,{options}", game, seed=4)
        moves.append(agent.choose(state))
    assert moves[0] == moves[1]
    assert game.rules.illegal_reason(state, moves[0]) is None
    assert sum(item.visits for item in agent.last.moves) == agent.last.playouts


def test_widening_searches_the_heuristics_favourites_first():
    game = get_game("universal-forces")
    state = game.parse_position("C1=1B,C4=2R 1:GGYYBBRR/GYR/- 2:GGYYBBRR/GYB/- 1 20")
    rules = game.rules
    evaluate = evaluation_for(game)
    values = {move: evaluate(rules.apply(state, move))[0] for move in rules.legal_moves(state)}
    fifth = sorted(values.values(), reverse=True)[4]
    result = Mcts(game, widening=1.0).search(state, random.Random(0), playouts=16)
    visited = {item.move for item in result.moves if item.visits}
    # 16 playouts with 1 + sqrt(n) moves in reach: the 4 or 5 favourites (ties aside)
    assert all(values[move] >= fifth for move in visited)
    assert len(visited) < len(values)


def test_a_softmax_evaluation_is_a_share_of_one_and_its_fit_finds_the_sign():
    from partita.analysis.heuristics import SoftmaxEvaluation, fit_softmax

    # side 0 wins when its feature is larger: the fitted weight is positive
    samples = [
        ([[x], [1.0 - x]], [1.0, 0.0] if x > 0.5 else [0.0, 1.0]) for x in (0.1, 0.3, 0.7, 0.9)
    ]
    samples.append(([[0.5], [0.5]], [0.5, 0.5]))
    (weight,) = fit_softmax(samples)
    assert weight > 1.0
    evaluate = SoftmaxEvaluation(lambda state: state, (weight,))
    value = evaluate([[0.8], [0.2], [0.2]])
    assert sum(value) == pytest.approx(1.0)
    assert value[0] > value[1] == pytest.approx(value[2])


@pytest.mark.parametrize("sides", [2, 3, 4])
def test_the_universal_forces_evaluation_values_kinds_at_home(sides):
    game = get_game("universal-forces").configure({"RoundLimit": "40"})
    rules = game.rules
    empty = tuple(() for _ in range(rules.geometry.size))
    reserve = [(3, 3, 3, 3)] * sides
    home = [(0, 0, 0, 0)] * sides
    none = [(0, 0, 0, 0)] * sides
    evaluate = evaluation_for(game)
    even = evaluate(rules.setup(empty, reserve, home, none, 0, 30))
    assert even[1] == pytest.approx(even[-1])
    ahead = rules.setup(empty, [(2, 2, 3, 3), *reserve[1:]], [(1, 1, 0, 0), *home[1:]], none, 1, 30)
    late = rules.setup(empty, [(2, 2, 3, 3), *reserve[1:]], [(1, 1, 0, 0), *home[1:]], none, 1, 39)
    value, later = evaluate(ahead), evaluate(late)
    assert value[0] > max(value[1:]) and value[0] > even[0]
    assert later[0] > value[0]  # the same lead is surer nearer the round limit


def test_self_play_samples_pair_positions_with_their_games_outcome():
    from partita.analysis.heuristics import self_play_samples

    rules = CONNECT4.rules

    def features(state):
        return [[float(rules.ply(state))], [0.0]]

    samples = self_play_samples(
        rules, 2, features, games=3, seed=1, choose=rules.sample_move, every=2
    )
    again = self_play_samples(
        rules, 2, features, games=3, seed=1, choose=rules.sample_move, every=2
    )
    assert samples == again and samples
    assert all(
        sum(scores) == pytest.approx(1.0) and len(vectors) == 2 for vectors, scores in samples
    )
    assert all(vectors[0][0] % 2 == 0 for vectors, _ in samples)  # every second ply


# -- tree reuse between an agent's moves -------------------------------------------------------


def play_out(rules, agents, seed: int, plies: int, history: bool = False, seen=None) -> list:
    """The moves of up to ``plies`` plies of ``agents`` (one a seat), chance
    sampled; ``history``: each agent is told the moves that led to its position;
    ``seen(agent)`` is called after each of an agent's choices."""
    rng = random.Random(seed)
    state = rules.initial(len(agents))
    played: list = []
    line: list = []
    while rules.outcome(state) is None and len(played) < plies:
        side = rules.side_to_move(state)
        if side == CHANCE:
            move = rules.sample_move(state, rng)
        else:
            move = agents[side].choose(state, rng, list(line) if history else ())
            if seen is not None:
                seen(agents[side])
        played.append(move)
        line.append((state, move))
        state = rules.apply(state, move)
    return played


def test_reuse_parses_and_is_off_unless_asked():
    assert parse_agent_spec("mcts:50,reuse=1")[1]["reuse"] is True
    assert parse_agent_spec("mcts:50,reuse=0")[1]["reuse"] is False
    assert agent_from_spec("mcts:50", CONNECT4).reuse is False
    assert agent_from_spec("mcts:50,reuse=1", CONNECT4).reuse is True


def test_a_reusing_agent_with_a_budget_in_seconds_searches_for_it():
    agents = [agent_from_spec("mcts:0.02s,reuse=1", CONNECT4, seed=seat) for seat in range(2)]
    played = play_out(CONNECT4.rules, agents, seed=3, plies=6)
    assert len(played) == 6
    assert all(agent.last is not None and agent.last.playouts > 0 for agent in agents)


@pytest.mark.parametrize(("name", "sides"), [("connect4", 2), ("circular-reasoning", 3)])
def test_a_reusing_agent_keeps_its_visits_and_adds_its_budget(name, sides):
    game = get_game(name)
    agents = [agent_from_spec("mcts:60,reuse=1", game, seed=seat) for seat in range(sides)]
    choices: list[tuple[int, int, int]] = []  # (kept visits, new playouts, root visits)

    def seen(agent) -> None:
        visits = sum(item.visits for item in agent.last.moves)
        choices.append((agent.reused, agent.last.playouts, visits))

    first = play_out(game.rules, agents, seed=5, plies=6 * sides, seen=seen)
    assert sum(agent.reuses for agent in agents) > 0
    kept = [choice for choice in choices if choice[0] > 1]
    assert kept  # some choices started from a kept subtree
    for reused, playouts, visits in kept:
        assert playouts == 60  # N new playouts
        # The kept visits besides (but the first: it scored the node as a new leaf).
        assert visits == 60 + reused - 1
    # Deterministic for a seed; and the moves of history find the same nodes.
    again = [agent_from_spec("mcts:60,reuse=1", game, seed=seat) for seat in range(sides)]
    told = [agent_from_spec("mcts:60,reuse=1", game, seed=seat) for seat in range(sides)]
    assert play_out(game.rules, again, seed=5, plies=6 * sides) == first
    assert play_out(game.rules, told, seed=5, plies=6 * sides, history=True) == first
    assert [agent.reuses for agent in told] == [agent.reuses for agent in agents]


@dataclass(frozen=True)
class Dice:
    stones: int
    side: int
    rolled: bool = True
    ply: int = 0


class DiceSubtraction(Rules):
    """Take 1 or 2 stones, whoever takes the last wins; after every take a die adds
    0 or 1 stone (a chance move) before the other side moves."""

    name = "dice-subtraction"
    title = "Dice subtraction"

    def initial(self, sides: int = 2) -> Dice:
        return Dice(9, 0)

    def sides(self, state: Dice) -> int:
        return 2

    def side_to_move(self, state: Dice) -> int:
        return state.side if state.rolled else CHANCE

    def legal_moves(self, state: Dice) -> list[int]:
        if not state.rolled:
            return [0, 1]
        return [take for take in (1, 2) if take <= state.stones]

    def sample_move(self, state: Dice, rng: random.Random) -> int:
        return rng.choice(self.legal_moves(state))

    def illegal_reason(self, state: Dice, move: int) -> str | None:
        return None if move in self.legal_moves(state) else "no"

    def apply(self, state: Dice, move: int) -> Dice:
        if not state.rolled:
            return Dice(state.stones + move, state.side, True, state.ply + 1)
        return Dice(state.stones - move, 1 - state.side, False, state.ply + 1)

    def outcome(self, state: Dice) -> Outcome | None:
        if state.stones == 0:
            return Outcome.win_for(1 - state.side, 2, "took the last stone")
        return None

    def ply(self, state: Dice) -> int:
        return state.ply

    def key(self, state: Dice):
        return (state.stones, state.side, state.rolled)

    def diagram(self, state: Dice) -> str:
        return str(state.stones)


def test_a_reusing_agent_searches_afresh_after_a_chance_move():
    rules = DiceSubtraction()
    reusing = [agent_from_spec("mcts:40,reuse=1", rules, seed=seat) for seat in range(2)]
    fresh = [agent_from_spec("mcts:40,reuse=0", rules, seed=seat) for seat in range(2)]
    played = play_out(rules, reusing, seed=2, plies=30)
    assert len(played) > 4
    assert [agent.reuses for agent in reusing] == [0, 0]
    assert play_out(rules, fresh, seed=2, plies=30) == played  # a fresh search, the same


def test_a_hidden_information_game_is_never_reused():
    game = get_game("forceball")
    agents = [agent_from_spec("mcts:16,reuse=1,samples=2", game, seed=seat) for seat in range(2)]
    assert [agent.reuse for agent in agents] == [False, False]
    play_out(game.rules, agents, seed=1, plies=6)
    assert [agent.reuses for agent in agents] == [0, 0]
