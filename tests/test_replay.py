"""Replay and validation of records: each problem kind, its place and severity."""

from __future__ import annotations

from pathlib import Path

import pytest

from partita.errors import illegal_move_message
from partita.notation.reader import parse_record, read_records
from partita.notation.replay import replay

HEADER = '[Game "forza4x4"]\n[Player1 "Anna"]\n[Player2 "Bruno"]\n'


def record(movetext: str, *, result: str = "*", tags: str = "") -> str:
    return f'{HEADER}{tags}[Result "{result}"]\n\n{movetext} {result}\n'


def problems_of(text: str, strict: bool = False):
    replayed = replay(parse_record(text), strict=strict)
    return replayed, [
        (p.kind, p.severity, p.line, p.column, p.ply, p.token) for p in replayed.problems
    ]


def test_rulebook_example_replays_to_the_spec_position():
    replayed, problems = problems_of(record("1. t4 r5 2. r5 t2 3. l8"))
    assert problems == []
    assert replayed.valid
    assert replayed.plies == 5
    assert replayed.moves == ["t4", "r5", "r5", "t2", "l8"]
    assert replayed.final_position == "8/8/8/1o6/ox6/8/8/2xx4 o"
    assert replayed.outcome is None


def test_illegal_move_is_placed_and_the_legal_prefix_kept():
    # b4 is closed after t4 landed on row 8, column 4 (the entry cell is occupied).
    replayed, problems = problems_of(record("1. t4 b4 2. t5"))
    assert problems == [("illegal-move", "error", 6, 7, 2, "b4")]
    assert "b4" in replayed.problems[0].message and "occupied" in replayed.problems[0].message
    assert replayed.plies == 1
    assert not replayed.valid


def test_malformed_move():
    _, problems = problems_of(record("1. t4 q5"))
    assert [p[0] for p in problems] == ["malformed-move"]
    assert problems[0][2:] == (6, 7, 2, "q5")


def test_move_after_the_end():
    # x makes four in a row on row 8 with t1 t2 t3 t4, then one more move comes.
    text = record("1. t1 t6 2. t2 t7 3. t3 t8 4. t4 t5", result="1-0")
    replayed, problems = problems_of(text)
    assert [p[0] for p in problems] == ["move-after-end"]
    assert problems[0][4] == 8
    assert replayed.plies == 7
    assert replayed.outcome is not None and replayed.outcome.result_token() == "1-0"


def test_result_contradicting_a_line_on_the_board():
    _, problems = problems_of(record("1. t1 t6 2. t2 t7 3. t3 t8 4. t4", result="0-1"))
    assert [p[0] for p in problems] == ["wrong-result"]
    assert problems[0][2] == 4  # the Result tag's line


def test_decided_game_with_the_right_result_is_valid():
    replayed, problems = problems_of(record("1. t1 t6 2. t2 t7 3. t3 t8 4. t4", result="1-0"))
    assert problems == []
    assert replayed.valid


@pytest.mark.parametrize(
    ("termination", "result", "kind"),
    [
        (None, "1-0", "unexplained-result"),
        ("resignation", "1-0", None),
        ("time", "0-1", None),
        ("resignation", "1/2-1/2", "unexplained-result"),
        ("agreement", "1/2-1/2", None),
        ("agreement", "1-0", "unexplained-result"),
        ("abandoned", "0-1", None),
        ("adjudication", "1/2-1/2", None),
        ("normal", "1-0", "wrong-result"),
        (None, "*", None),
        ("unterminated", "*", None),
    ],
)
def test_termination_must_explain_a_result_on_an_undecided_position(termination, result, kind):
    tags = f'[Termination "{termination}"]\n' if termination else ""
    text = record("1. t4 r5", result=result, tags=tags)
    replayed, problems = problems_of(text)
    assert [p[0] for p in problems] == ([kind] if kind else [])
    strict, _ = problems_of(text, strict=True)
    assert strict.valid == (kind is None)
    assert replayed.valid == (kind in (None, "unexplained-result"))


def test_termination_on_a_decided_game_must_be_normal():
    text = record(
        "1. t1 t6 2. t2 t7 3. t3 t8 4. t4", result="1-0", tags='[Termination "resignation"]\n'
    )
    replayed, problems = problems_of(text)
    assert [p[0] for p in problems] == ["unexplained-result"]
    assert replayed.valid
    assert not replay(parse_record(text), strict=True).valid


def test_wrong_move_numbers_are_warnings_in_lenient_and_errors_in_strict():
    text = record("1. t4 r5 3. r5 t2")
    replayed, problems = problems_of(text)
    assert problems == [("move-number", "warning", 6, 10, 3, "r5")]
    assert replayed.valid
    strict, _ = problems_of(text, strict=True)
    assert not strict.valid


def test_continuation_numbers_after_comments_are_accepted():
    _, problems = problems_of(record("1. t4 {a comment} 1... r5 2. r5"))
    assert problems == []


def test_a_number_before_the_second_side_without_dots_is_flagged():
    _, problems = problems_of(record("1. t4 1. r5"))
    assert [p[0] for p in problems] == ["move-number"]


def test_non_canonical_spelling_is_a_warning():
    replayed, problems = problems_of(record("1. T4 r05"))
    assert [p[:2] for p in problems] == [("spelling", "warning"), ("spelling", "warning")]
    assert replayed.moves == ["t4", "r5"]
    assert replayed.valid
    assert not replay(parse_record(record("1. T4 r05")), strict=True).valid


def test_missing_required_tags():
    text = '[Game "forza4x4"]\n\n1. t4 *\n'
    replayed, problems = problems_of(text)
    assert ("missing-tag", "error") in [p[:2] for p in problems]
    assert not replayed.valid


def test_unknown_game():
    text = '[Game "chess"]\n[Result "*"]\n\n1. e4 *\n'
    replayed, problems = problems_of(text)
    assert [p[:4] for p in problems] == [("unknown-game", "error", 1, 1)]
    assert replayed.plies == 0


def test_result_token_must_match_the_tag():
    text = f'{HEADER}[Result "1-0"]\n\n1. t4 r5 *\n'
    _, problems = problems_of(text)
    assert "result-mismatch" in [p[0] for p in problems]


def test_result_with_the_wrong_number_of_fields():
    _, problems = problems_of(record("1. t4 r5", result="1-0-0"))
    assert "bad-result" in [p[0] for p in problems]


def test_bad_date_and_termination_values():
    tags = '[Date "2024-05-01"]\n[Termination "boredom"]\n'
    _, problems = problems_of(record("1. t4", tags=tags))
    assert sorted(p[0] for p in problems) == ["bad-tag", "bad-tag"]


def test_player_tags_with_a_gap():
    text = '[Game "forza4x4"]\n[Player1 "A"]\n[Player3 "C"]\n[Result "*"]\n\n1. t4 *\n'
    _, problems = problems_of(text)
    assert [p[0] for p in problems] == ["bad-tag"]


def test_setup_position_with_the_second_side_to_move():
    tags = '[SetUp "1"]\n[Position "8/8/8/1o6/ox6/8/8/2xx4 o"]\n'
    replayed, problems = problems_of(record("1... t1", tags=tags))
    assert problems == []
    assert replayed.plies == 1
    assert replayed.final_position == "8/8/8/oo6/ox6/8/8/2xx4 x"


def test_impossible_setup_is_refused_with_the_reason():
    tags = '[SetUp "1"]\n[Position "8/8/8/8/8/8/8/xx6 x"]\n'
    replayed, problems = problems_of(record("1. t4", tags=tags))
    assert [p[0] for p in problems] == ["bad-setup"]
    assert problems[0][2] == 5  # the Position tag's line
    assert replayed.plies == 0


def test_illegal_move_in_a_variation_is_reported_with_its_place():
    text = record("1. t4 (1. b4 t4) 1... r5")
    replayed, problems = problems_of(text)
    assert problems == [("illegal-move", "error", 6, 14, 2, "t4")]
    assert replayed.plies == 2


def test_variation_moves_are_checked_from_the_position_they_replace():
    # The alternative to o's r5 starts after x's t4: o's t4 lands on row 7, x's on row 6.
    _, problems = problems_of(record("1. t4 r5 (1... t4 2. t4) 2. r5"))
    assert problems == []


def test_problems_name_the_record_and_its_players():
    replayed, _ = problems_of(record("1. t4 b4"))
    problem = replayed.problems[0]
    assert problem.context == "Anna - Bruno"
    assert problem.move_number == 1
    assert problem.as_dict()["move"] == "b4"


def test_a_wrong_move_number_is_placed_on_the_number():
    # glued to its move, and with a comment between number and move (then: the move)
    _, glued = problems_of(record("1. t4 r5 12.r5 t2"))
    assert [(p[0], p[2], p[3]) for p in glued] == [("move-number", 6, 10)]
    _, commented = problems_of(record("1. t4 r5 3. {note} r5 t2"))
    assert [(p[0], p[2], p[3]) for p in commented] == [("move-number", 6, 20)]


# -- one illegal-move format ------------------------------------------------------------------
INVALID = Path(__file__).resolve().parent.parent / "examples" / "invalid"


def test_every_game_words_an_illegal_move_the_same_way():
    """Whichever game refuses a move, and whether the rules (a pass, a move after the
    end) or the notation does, the message starts ``illegal move '<token>'``."""
    seen_games = set()
    for path in sorted(INVALID.rglob("*.pgr")):
        for record in read_records(path):
            for problem in replay(record).problems:
                if problem.kind in ("illegal-move", "move-after-end"):
                    seen_games.add(record.game)
                    assert problem.message.startswith(f"illegal move '{problem.token}'"), (
                        path.name,
                        problem.message,
                    )
    assert {"forza4x4", "universal-forces", "circular-reasoning", "forceball"} <= seen_games


def test_an_illegal_move_message_quotes_a_long_token_shortened():
    assert illegal_move_message("t4", "column 4 is full") == "illegal move 't4': column 4 is full"
    assert (
        illegal_move_message("+c8@c6", "c6 is not in your hand", "turn 2 (Player1)")
        == "illegal move '+c8@c6' in turn 2 (Player1): c6 is not in your hand"
    )
    message = illegal_move_message("x" * 1000, "no")
    assert message == "illegal move '" + "x" * 57 + "...': no"


def test_state_at_a_ply_is_the_position_the_moves_reach():
    from partita.game.registry import get_game

    game = get_game("connect4")
    moves = ["t4", "t4", "t3", "t5", "t3"]
    text = '[Game "connect4"]\n\n' + " ".join(moves) + " *\n"
    replayed = replay(parse_record(text))
    state = game.rules.initial()
    assert replayed.state_at(0) == state
    for ply, token in enumerate(moves, start=1):
        state = game.rules.apply(state, game.parse_move(state, token))
        assert replayed.state_at(ply) == state
    replayed.states.clear()  # a long record keeps no states: they are played again
    assert replayed.state_at(3) == replay(parse_record(text)).states[2]
    with pytest.raises(IndexError):
        replayed.state_at(len(moves) + 1)
