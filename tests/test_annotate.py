"""Annotating decisive mistakes, and the analysis commands of the CLI.

The constructed game starts from a position of Pons' end-easy set (o to move wins,
published score 1); an independent plain minimax, written here over the engine,
confirms which of its moves throws the result away.
"""

from __future__ import annotations

import json

import pytest
from cli_runner import run_cli
from solver_reference import minimax_score

from partita.analysis.annotate import annotate_record, kept_comment
from partita.errors import PartitaError
from partita.games.gravity.rules import GravityState
from partita.games.gravity.solver import Solver
from partita.games.registry import get_game
from partita.notation.reader import parse_record, read_records

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
    (comment,) = nodes[BLUNDER_PLY - 1].comments
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
    for node in nodes:
        if node.suffix != "??":
            assert node.comments == []


def test_annotate_leaves_moves_before_from_ply_alone():
    record = parse_record(RECORD)
    annotation = annotate_record(record, from_ply=BLUNDER_PLY + 1)
    assert annotation.blunders == []
    assert all(node.suffix == "" for node in record.root.mainline())
    assert annotation.solved == len(MOVES.split()) - BLUNDER_PLY


def test_positions_beyond_the_budget_are_skipped_and_counted():
    record = parse_record(RECORD)
    annotation = annotate_record(record, max_nodes=1)
    # Only the last position, with one cell left, needs no search at all.
    plies = len(MOVES.split())
    assert annotation.blunders == [] and annotation.solved == 1
    assert annotation.unsolved == list(range(1, plies))


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
        (["solve", "--game", "chess", "8/8"], "unknown game"),
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
