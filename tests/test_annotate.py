"""Annotating decisive mistakes, and the analysis commands of the CLI.

The constructed game starts from a position of Pons' end-easy set (o to move wins,
published score 1); an independent plain minimax, written here over the engine,
confirms which of its moves throws the result away.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from budget import examples
from cli_runner import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from solver_reference import minimax_score

from partita.analysis.agents import GreedyAgent, agent_from_spec
from partita.analysis.annotate import (
    annotate_record,
    eval_comment,
    kept_comment,
    parse_eval_comment,
)
from partita.errors import PartitaError
from partita.game.registry import get_game
from partita.games.gravity.rules import GravityState
from partita.games.gravity.solver import Solver
from partita.notation.model import Record
from partita.notation.reader import parse_record, read_records
from partita.notation.replay import replay
from partita.notation.writer import write_record

CONNECT4 = get_game("connect4")
# Pons end-easy: 315673216317152634716277223755255 scores 1 (o to move wins).
SETUP = "1x2x1o/oox1o1o/xxx1oxx/xoo1xox/oxo1oxo/oxxoxox o"
# o keeps the win with t4, x defends with t6, then o throws the win away with t1
# (ply 3); from there both sides hold the draw to the full board.
MOVES = "t4 t6 t1 t6 t3 t4 t4 t4 t4"
BLUNDER_PLY = 3

RECORD = f"""[Game "connect4"]
[Event "Annotation test"]
[Player1 "Ada"]
[Player2 "Bea"]
[Result "1/2-1/2"]
[SetUp "1"]
[Position "{SETUP}"]

{MOVES} 1/2-1/2
"""


def minimax(state: GravityState) -> int:
    """Exact score (Pons' convention) by plain minimax over the engine's moves."""
    return minimax_score(CONNECT4.rules, state)


def sign(score: int) -> int:
    return (score > 0) - (score < 0)


def test_the_constructed_game_has_exactly_one_decisive_mistake():
    # The test's own premise, checked without the solver.
    rules = CONNECT4.rules
    state = CONNECT4.parse_position(SETUP)
    assert minimax(state) == 1
    changed = []
    for ply, token in enumerate(MOVES.split(), start=1):
        move = CONNECT4.parse_move(state, token)
        after = rules.apply(state, move)
        after_score = 0 if rules.outcome(after) else -minimax(after)
        if sign(after_score) < sign(minimax(state)):
            changed.append(ply)
        state = after
    assert changed == [BLUNDER_PLY]


def test_annotate_marks_exactly_the_blunder():
    record = parse_record(RECORD)
    annotation = annotate_record(record)
    nodes = list(record.root.mainline())
    marked = [ply for ply, node in enumerate(nodes, start=1) if node.suffix == "??"]
    assert marked == [BLUNDER_PLY]
    assert [blunder.ply for blunder in annotation.blunders] == [BLUNDER_PLY]
    blunder = annotation.blunders[0]
    assert (blunder.move, blunder.value_before, blunder.value_after) == ("t1", "win", "draw")
    assert annotation.solved == len(nodes) and annotation.unsolved == []
    # The comment names a move that keeps the win, with the number of o's moves to
    # the end: checked with the minimax (o wins with its 21st stone, 3 moves on).
    evaluation, comment = nodes[BLUNDER_PLY - 1].comments
    assert evaluation == "[%eval 0.50,0.50] [%evalsrc exact]"  # the draw it left
    token, verb, _, count = comment.split()
    assert verb == "wins"
    rules = CONNECT4.rules
    state = CONNECT4.parse_position(SETUP)
    for played in MOVES.split()[: BLUNDER_PLY - 1]:
        state = rules.apply(state, CONNECT4.parse_move(state, played))
    kept = rules.apply(state, CONNECT4.parse_move(state, token))
    score = -minimax(kept)
    assert score > 0
    o_stones_now = state.o.bit_count()
    assert int(count) == (22 - score) - o_stones_now
    # Every other move only gets its exact value: o keeps its win until ply 3, then
    # both hold the draw.
    for ply, node in enumerate(nodes, start=1):
        if node.suffix != "??":
            expected = "[%eval 0.00,1.00]" if ply < BLUNDER_PLY else "[%eval 0.50,0.50]"
            source = "end" if ply == len(nodes) else "exact"
            assert node.comments == [f"{expected} [%evalsrc {source}]"]
    assert record.root.comments == ["[%eval 0.00,1.00] [%evalsrc exact]"]  # o to move wins


def test_annotate_leaves_moves_before_from_ply_alone():
    record = parse_record(RECORD)
    annotation = annotate_record(record, from_ply=BLUNDER_PLY + 1)
    assert annotation.blunders == []
    assert all(node.suffix == "" for node in record.root.mainline())
    assert annotation.solved == len(MOVES.split()) - BLUNDER_PLY


def test_positions_beyond_the_budget_are_searched_and_counted():
    record = parse_record(RECORD)
    annotation = annotate_record(record, max_nodes=1, agent="mcts:300")
    # Only the last position, with one cell left, needs no search at all; the
    # others are valued by the search, which finds the same blunder.
    plies = len(MOVES.split())
    assert annotation.solved == 1
    assert annotation.unsolved == list(range(1, plies))
    assert [ply.source_before for ply in annotation.plies] == ["search"] * (plies - 1) + ["exact"]
    assert [ply.ply for ply in annotation.blunders] == [BLUNDER_PLY]
    assert annotation.blunders[0].comment.endswith("was better: 1.00")


def test_kept_comments_read_as_a_player_would():
    state = CONNECT4.parse_position(SETUP)
    solution = Solver(CONNECT4).solve(state)
    assert solution.score == 1  # published
    assert kept_comment("t4", solution) == "t4 wins in 5"  # o: 16 stones now, wins with the 21st


# -- the commands --------------------------------------------------------------------------------


def test_annotate_command_writes_the_annotated_record(tmp_path):
    source = tmp_path / "game.pgr"
    source.write_text(RECORD, encoding="utf-8")
    target = tmp_path / "annotated.pgr"
    result = run_cli(["annotate", str(source), "-o", str(target)])
    assert result.code == 0, result.stderr
    (record,) = read_records(target)
    marked = [node.move for node in record.root.mainline() if node.suffix == "??"]
    assert marked == ["t1"]
    assert "t1??" in target.read_text(encoding="utf-8")
    assert "1 move marked ??" in result.stderr


def test_solve_json_has_value_score_best_and_every_move():
    # Pons end-easy: 2252576253462244111563365343671351441 scores -1.
    result = run_cli(["solve", "--columns", "2252576253462244111563365343671351441", "--json"])
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["value"] == "loss" and data["score"] == -1
    assert data["best"] == ["t6"]
    assert [(move["move"], move["score"]) for move in data["moves"]] == [("t6", -1), ("t7", -2)]
    assert data["game"] == "connect4"


def test_solve_reads_positions_and_moves():
    result = run_cli(["solve", SETUP, "--game", "connect4", "--moves", "t4 t6", "--json"])
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["value"] == "win"
    assert "t1" not in data["best"]
    text = run_cli(["solve", SETUP, "--game", "connect4"])
    assert text.code == 0
    assert "o to move: win in 5 moves (score +1)" in text.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "8/8/x o", "--game", "forza4x4"], "impossible position"),
        (["solve", "--game", "connect4", "--columns", "4453", "--budget", "100"], "budget of 100"),
        (["solve", "--game", "connect4", "--columns", "1111111"], "illegal move '1' in move 7"),
        (["annotate", "no-such-file.pgr"], "no such file"),
    ],
)
def test_bad_input_gives_one_line_and_exit_1(argv, message):
    code, _, error = run_cli(argv)
    assert code == 1
    assert message in error
    assert error.count("\n") == 1 and "Traceback" not in error


def test_the_library_raises_partita_errors():
    with pytest.raises(PartitaError):
        annotate_record(parse_record('[Game "chess"]\n[Result "*"]\n\n*\n'))


# -- every game ------------------------------------------------------------------------------

EXAMPLES = sorted(
    path
    for path in (Path(__file__).resolve().parent.parent / "examples").glob("*/*.pgr")
    if path.parent.name != "invalid"
)


def example_records() -> list[tuple[str, int, Record]]:
    return [
        (path.name, index, record)
        for path in EXAMPLES
        for index, record in enumerate(read_records(path))
    ]


def check_every_ply_is_valued(record: Record, annotation, first_ply: int = 1) -> None:
    """Every ply from ``first_ply`` has both values; every node after one has its
    [%eval] comment, with one value per side; so has the position before the first."""
    replayed = replay(record)
    sides = annotation.sides
    assert [ply.ply for ply in annotation.plies] == list(range(first_ply, replayed.plies + 1))
    for ply in annotation.plies:
        for value in (ply.before, ply.after):
            assert len(value) == sides and all(0.0 <= part <= 1.0 for part in value)
        assert ply.nag in ("", "?", "??")
        assert ply.mover is not None or ply.nag == ""
    nodes = list(record.root.mainline())
    judged = nodes[first_ply - 1 : len(nodes)] if first_ply > 1 else nodes
    for node in judged:
        evals = [parse_eval_comment(c) for c in node.comments if c.startswith("[%eval ")]
        assert len(evals) == 1 and len(evals[0]) == sides
    start = record.root if first_ply == 1 else nodes[first_ply - 2]
    assert [c for c in start.comments if c.startswith("[%eval ")] == [
        eval_comment(annotation.start, annotation.start_valuation)
    ]


@pytest.mark.parametrize(("name", "index", "record"), example_records())
def test_every_shipped_example_gets_a_value_for_every_ply(name, index, record):
    # What counts here is that every ply gets a value, not how good it is: one
    # determinized world where information is hidden (four, the default, made
    # Forceball's examples most of this test's time; test_a_forceball_record_is_valued_from_what_each_mover_knew uses them) and
    # a small solver budget.
    agent = GreedyAgent(replay(record).game, seed=0, samples=1)
    annotation = annotate_record(record, agent=agent, max_nodes=1_000)
    check_every_ply_is_valued(record, annotation)
    # And the annotated record is still a valid record of its game.
    again = replay(parse_record(write_record(record)))
    assert again.valid and again.plies == replay(record).plies


@pytest.mark.parametrize(
    "path",
    [
        "connect4/thursday-league.pgr",
        "forza4x4/club-championship-2024.pgr",
        "universal-forces/many-sides-race-home.pgr",
        "circular-reasoning/four-sides-advanced.pgr",
        "circular-reasoning/forced-pass.pgr",
        "forceball/senior.pgr",
    ],
)
def test_mcts_values_the_last_moves_of_a_game_of_every_kind(path):
    (record, *_) = read_records(Path(__file__).resolve().parent.parent / "examples" / path)
    plies = replay(record).plies
    first = max(plies - 8, 1)
    annotation = annotate_record(record, agent="mcts:24", from_ply=first, exact=False)
    check_every_ply_is_valued(record, annotation, first)
    assert annotation.searched > 0 and annotation.solved == 0


@pytest.mark.slow
@pytest.mark.parametrize(("name", "index", "record"), example_records())
def test_mcts_values_every_ply_of_every_shipped_example(name, index, record):
    annotation = annotate_record(record, agent="mcts:32")
    check_every_ply_is_valued(record, annotation)


# Positions where one move loses at once: it leaves the next side a finishing move.
LOSING_AT_ONCE = [
    # o's three on the bottom row: x must block t4 (t7 leaves it open).
    ("connect4", "7/7/7/7/4x2/ooo1xx1 x", "t7", "t4"),
    # o's three on row 8: r8 (or t4) lands on the open cell; t5 leaves it.
    ("forza4x4", "x6x/8/8/x7/8/8/8/ooo5 x", "t5", "r8"),
    # Player2's fire on its own quadrant goes home next, its fourth kind: Player1's
    # water must take it.
    ("universal-forces", "C1=1B,C4=2R 1:GGYYBBRR/GYR/- 2:GGYYBBRR/GYB/- 1 20", "C1-C3", "C1xC4"),
    # Red's circle into the Goal Area clears I16 and the gateway for blue's circle.
    ("circular-reasoning", "1:CI16,TI9,SG 2:CM16,TG,SG / O3 M16 I16 / 17 P1", "C>G", "T<I6"),
]


def setup_record(game: str, position: str, move: str) -> Record:
    return parse_record(
        f'[Game "{game}"]\n[Player1 "Ada"]\n[Player2 "Bea"]\n[Result "*"]\n'
        f'[SetUp "1"]\n[Position "{position}"]\n\n{move} *\n'
    )


def next_side_finishes(game, state, move) -> bool:
    """The premise, from the engine alone: after ``move`` the next side (another
    one) has a move that ends the game in its favour."""
    rules = game.rules
    after = rules.apply(state, game.parse_move(state, move))
    side = rules.side_to_move(after)
    assert side != rules.side_to_move(state)
    for reply in rules.legal_moves(after):
        outcome = rules.outcome(rules.apply(after, reply))
        if outcome is not None and outcome.winner == side:
            return True
    return False


@pytest.mark.parametrize(("game_name", "position", "bad", "good"), LOSING_AT_ONCE)
def test_a_move_that_loses_at_once_gets_double_question_marks(game_name, position, bad, good):
    game = get_game(game_name)
    state = game.parse_position(position)
    assert next_side_finishes(game, state, bad) and not next_side_finishes(game, state, good)
    for seed in range(3):
        record = setup_record(game_name, position, bad)
        annotation = annotate_record(record, agent="mcts:200", seed=seed, exact=False)
        (ply,) = annotation.plies
        assert ply.nag == "??" and record.root.children[0].suffix == "??"
        assert ply.after[ply.mover] == 0.0 and ply.source_after == "search"
        assert ply.better is not None and ply.better != bad
        assert ply.comment == f"{ply.better} was better: {ply.judgement.best_value:.2f}"
        kept = annotate_record(setup_record(game_name, position, good), agent="mcts:200", seed=seed)
        assert kept.plies[0].nag == ""


def test_the_solver_marks_the_open_threat_and_names_the_block():
    game_name, position, bad, good = LOSING_AT_ONCE[0]
    record = setup_record(game_name, position, bad)
    (ply,) = annotate_record(record).plies
    assert (ply.source_before, ply.source_after) == ("exact", "exact")
    assert (ply.value_before, ply.value_after, ply.nag) == ("win", "loss", "??")
    assert ply.better == good and ply.comment.startswith(f"{good} wins in ")


def test_eval_comments_round_trip_and_replace_an_earlier_run():
    assert (
        eval_comment((0.625, 0.375)) == "[%eval 0.62,0.38]"
        or eval_comment((0.625, 0.375)) == "[%eval 0.63,0.38]"
    )
    assert parse_eval_comment("[%eval 0.50,0.25,0.25]") == (0.5, 0.25, 0.25)
    assert parse_eval_comment("no value here") is None
    record = parse_record(RECORD)
    annotate_record(record)
    annotate_record(record)
    for node in record.root.mainline():
        assert sum(1 for comment in node.comments if comment.startswith("[%eval")) == 1


@settings(max_examples=examples(100, fast=25), deadline=None)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=4))
def test_eval_comments_read_back_to_two_decimals(values):
    read = parse_eval_comment(eval_comment(tuple(values)))
    assert read is not None and len(read) == len(values)
    assert all(abs(a - b) <= 0.005 + 1e-9 for a, b in zip(read, values, strict=True))


def test_a_forced_pass_is_valued_and_never_marked():
    (record,) = read_records(
        Path(__file__).resolve().parent.parent / "examples/circular-reasoning/forced-pass.pgr"
    )
    annotation = annotate_record(record, agent="mcts:16")
    passes = [ply for ply in annotation.plies if ply.move == "--"]
    assert passes and all(ply.nag == "" for ply in passes)


def test_chance_plies_have_no_mover_and_no_mark():
    (record,) = read_records(
        Path(__file__).resolve().parent.parent / "examples/forceball/little.pgr"
    )
    annotation = annotate_record(record, agent="greedy", from_ply=1)
    chance = [ply for ply in annotation.plies if ply.mover is None]
    assert chance and chance[0].move.startswith("deck:")
    assert all(ply.nag == "" and ply.drop == 0.0 for ply in chance)


def test_annotate_json_gives_every_ply(tmp_path):
    source = tmp_path / "game.pgr"
    source.write_text(setup_record(*LOSING_AT_ONCE[2][:2], "C1-C3").text, encoding="utf-8")
    code, out, err = run_cli(["annotate", str(source), "--agent", "mcts:64", "--json"])
    assert code == 0, err
    data = json.loads(out)
    assert data["game"] == "universal-forces" and data["agent"] == "mcts:64"
    assert data["thresholds"] == {"?": 0.15, "??": 0.35}
    (ply,) = data["plies"]
    assert ply["nag"] == "??" and ply["after"] == [0.0, 1.0] and ply["mover"] == 0
    assert data["marked"] == [1]


@pytest.mark.parametrize(
    ("agent", "message"),
    [("mcts:lots", "unknown agent 'mcts:lots'"), ("random", "does not value positions")],
)
def test_a_bad_agent_is_a_usage_error(tmp_path, agent, message):
    source = tmp_path / "game.pgr"
    source.write_text(RECORD, encoding="utf-8")
    code, _, error = run_cli(["annotate", str(source), "--agent", agent])
    assert code == 2
    assert message in error


def test_the_library_reports_progress_position_by_position():
    calls = []
    annotate_record(parse_record(RECORD), agent="greedy", progress=lambda *done: calls.append(done))
    plies = len(MOVES.split())
    assert calls == [(done, plies + 1) for done in range(1, plies + 2)]


def test_a_forceball_record_is_valued_from_what_each_mover_knew(monkeypatch):
    """Both positions of a move are searched from its mover's information: as its
    viewer, with the record up to there as what it saw happen."""
    (record,) = read_records(
        Path(__file__).resolve().parent.parent / "examples/forceball/little.pgr"
    )
    game = get_game("forceball")
    agent = agent_from_spec("greedy", game, seed=0)
    searched: set[tuple[int, int | None]] = set()
    evaluate = agent.evaluate

    def spying(state, rng=None, *, viewer=None, history=()):
        searched.add((len(history), viewer))
        return evaluate(state, rng, viewer=viewer, history=history)

    monkeypatch.setattr(agent, "evaluate", spying)
    annotation = annotate_record(record, agent=agent)
    rules = game.rules
    replayed = replay(record)
    states = [replayed.initial_state, *replayed.states]
    movers = [ply for ply in annotation.plies if ply.mover is not None]
    assert movers and annotation.searched == len(searched)
    for ply in movers:
        for index in (ply.ply - 1, ply.ply):  # the positions before and after it
            if rules.outcome(states[index]) is None:
                assert (index, ply.mover) in searched
    assert all(viewer is not None for _, viewer in searched)
