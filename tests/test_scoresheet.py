"""The scoresheet: moves as replay checks them, undo, comments, claims, the record.

Every record a sheet writes is read back and replayed strictly; a refused move's
problem is compared with the one replay reports for the same moves in a record.
"""

from __future__ import annotations

import random

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.errors import IllegalMoveError, PartitaError
from partita.game.registry import all_games, get_game
from partita.notation.reader import parse_record
from partita.notation.replay import MoveRefused, replay
from partita.notation.scoresheet import Claim, Scoresheet

CONNECT4 = get_game("connect4")
UF = get_game("universal-forces")
CR = get_game("circular-reasoning")


def strictly_valid(text: str):
    replayed = replay(parse_record(text), strict=True)
    assert replayed.valid, [str(problem) for problem in replayed.problems]
    return replayed


def sheet_of(game, moves: str = "", players=("Ada", "Bea"), **options) -> Scoresheet:
    sheet = Scoresheet(game, list(players), date="2026.05.04", **options)
    for token in moves.split():
        sheet.play(token)
    return sheet


def test_a_sheet_writes_a_record_with_the_tags_it_needs():
    sheet = sheet_of(CONNECT4, "t4 t4 t3", tags={"Event": "Club night", "Round": "2"})
    text = sheet.text()
    assert text.splitlines()[:7] == [
        '[Game "connect4"]',
        '[Event "Club night"]',
        '[Date "2026.05.04"]',
        '[Round "2"]',
        '[Player1 "Ada"]',
        '[Player2 "Bea"]',
        '[Result "*"]',
    ]
    assert text.rstrip().endswith("1. t4 t4 2. t3 *")
    replayed = strictly_valid(text)
    assert replayed.final_state == sheet.state and replayed.moves == ["t4", "t4", "t3"]


@pytest.mark.parametrize(
    ("moves", "token"),
    [
        ("t4 t4 t4 t4 t4 t4", "t4"),  # a full column
        ("t1", "t9"),  # malformed
        ("t1 t1 t1 t1 t1 t1", "--"),  # a pass that is not forced
    ],
)
def test_a_refused_move_carries_the_problem_validate_reports(moves, token):
    sheet = sheet_of(CONNECT4, moves)
    with pytest.raises(MoveRefused) as refused:
        sheet.play(token)
    record = f'[Game "connect4"]\n[Result "*"]\n\n{moves} {token} *\n'
    (expected,) = [p for p in replay(parse_record(record)).problems if p.ply is not None]
    problem = refused.value.problem
    assert (problem.kind, problem.message, problem.ply, problem.move_number) == (
        expected.kind,
        expected.message,
        expected.ply,
        expected.move_number,
    )
    assert str(refused.value) == expected.message
    assert len(sheet.plies) == len(moves.split())  # nothing was written


def test_a_move_after_the_end_is_refused_as_validate_refuses_it():
    sheet = sheet_of(CONNECT4, "t1 t2 t1 t2 t1 t2 t1")
    assert sheet.outcome is not None and sheet.over and sheet.result == "1-0"
    with pytest.raises(MoveRefused, match="the game is already over: x has four in a row"):
        sheet.play("t2")
    assert sheet.record().tags["Termination"] == "normal"
    strictly_valid(sheet.text())


def test_other_spellings_are_accepted_with_a_warning_and_written_canonically():
    sheet = sheet_of(CONNECT4)
    plies, warnings = sheet.play("T4")
    assert [ply.token for ply in plies] == ["t4"]
    assert [warning.message for warning in warnings] == ["'T4' is written 't4'"]


def test_a_forced_pass_left_out_is_played_first():
    record = next(
        record
        for record in map(parse_record, _records("examples/circular-reasoning/forced-pass.pgr"))
    )
    replayed = replay(record)
    tokens = replayed.moves
    passing = tokens.index("--")
    game = replayed.game
    start = replayed.initial_state
    sheet = Scoresheet(game, ["A", "B"], start=start, date="2026.05.04")
    for token in tokens[:passing]:
        sheet.play(token)
    assert sheet.forced_pass() is not None
    plies, _ = sheet.play(tokens[passing + 1])  # the pass left out
    assert [ply.token for ply in plies] == ["--", tokens[passing + 1]]


def _records(path: str) -> list[str]:
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / path).read_text(encoding="utf-8")
    return ["[Game" + part for part in text.split("[Game")[1:]]


def test_moves_chosen_by_an_agent_are_checked_by_the_rules():
    sheet = sheet_of(CONNECT4, "t4 t4 t4 t4 t4 t4")
    full = sheet.plies[0].move
    with pytest.raises(IllegalMoveError, match="illegal move 't4': "):
        sheet.play_move(full)
    ply = sheet.play_move(CONNECT4.rules.legal_moves(sheet.state)[0])
    assert ply.token == "t1"


def test_undo_takes_back_the_claim_then_the_plies():
    sheet = sheet_of(CONNECT4, "t4 t5")
    sheet.resign()
    assert sheet.result == "0-1"  # x was to move and resigned
    with pytest.raises(PartitaError, match="the game is over: resignation"):
        sheet.play("t1")
    assert sheet.undo() == Claim("0-1", "resignation")
    assert sheet.result == "*" and sheet.undo().token == "t5"
    assert [ply.token for ply in sheet.plies] == ["t4"]
    sheet.undo()
    assert sheet.undo() is None and sheet.state == CONNECT4.initial()


def test_comments_go_after_the_last_move_or_before_the_first():
    sheet = sheet_of(CONNECT4)
    sheet.comment("  a friendly   game ")
    sheet.play("t4")
    sheet.comment("the centre")
    text = sheet.text()
    assert text.rstrip().endswith("{a friendly game} 1. t4 {the centre} *")
    for bad, reason in (("", "needs some text"), ("a } b", "cannot hold '}'")):
        with pytest.raises(PartitaError, match=reason):
            sheet.comment(bad)
    strictly_valid(text)


@pytest.mark.parametrize(
    ("game", "players", "claim", "result", "termination"),
    [
        (CONNECT4, 2, ("1-0", None), "1-0", "resignation"),
        (CONNECT4, 2, ("0-1", "time"), "0-1", "time"),
        (CONNECT4, 2, ("1/2-1/2", None), "1/2-1/2", "agreement"),
        (CONNECT4, 2, ("*", None), "*", "unterminated"),
        (CONNECT4, 2, ("1-0", "adjudication"), "1-0", "adjudication"),
        (UF, 3, ("0-1-0", None), "0-1-0", "resignation"),
        (UF, 3, ("1/2-0-1/2", None), "1/2-0-1/2", "agreement"),
        (CR, 4, ("1/2-1/2-1/2-1/2", "abandoned"), "1/2-1/2-1/2-1/2", "abandoned"),
    ],
)
def test_claimed_results_get_the_termination_the_format_asks_for(
    game, players, claim, result, termination
):
    sheet = Scoresheet(game, [f"P{seat}" for seat in range(players)], date="2026.05.04")
    sheet.play_move(game.rules.legal_moves(sheet.state)[0])
    assert sheet.claim_result(*claim) == Claim(result, termination)
    tags = sheet.record().tags
    assert (tags["Result"], tags["Termination"]) == (result, termination)
    strictly_valid(sheet.text())


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        (("1-0", "agreement"), "agreement does not explain a result with one winner"),
        (("1/2-1/2", "resignation"), "resignation does not explain a shared result"),
        (("1-0", "normal"), "normal does not explain"),
        (("1-0", "lunch"), "termination 'lunch' is not one of"),
        (("1-0-0", None), "has 3 fields but the game has 2 sides"),
        (("2-0", None), "'2' is not 1, 0 or 1/2"),
    ],
)
def test_a_claim_the_format_would_refuse_is_refused(claim, message):
    sheet = sheet_of(CONNECT4, "t4")
    with pytest.raises(PartitaError, match=message):
        sheet.claim_result(*claim)
    assert sheet.claim is None


def test_no_claim_once_the_rules_have_ended_the_game():
    sheet = sheet_of(CONNECT4, "t1 t2 t1 t2 t1 t2 t1")
    with pytest.raises(PartitaError, match="the rules have ended the game: x has four"):
        sheet.agree_draw()


def test_a_resignation_needs_two_sides():
    sheet = Scoresheet(UF, ["A", "B", "C"])
    with pytest.raises(PartitaError, match="with 3 sides a resignation names no winner"):
        sheet.resign()


def test_a_set_up_start_is_written_with_its_position():
    start = CR.parse_position("1:CG,TG,SI12 2:CG,TG,SI10 / O11 M6 I13 / 7 P1")
    sheet = Scoresheet(CR, ["Ada", "Bea"], start=start, date="2026.05.04")
    sheet.play("S>G")
    record = sheet.record()
    assert record.tags["SetUp"] == "1" and record.tags["Position"] == CR.format_position(start)
    assert (sheet.result, sheet.termination) == ("1-0", "normal")
    assert "7. S>G 1-0" in sheet.text()
    strictly_valid(sheet.text())


@pytest.mark.parametrize("tag", ["Game", "Result", "Termination", "Player1", "SetUp"])
def test_the_tags_the_sheet_writes_cannot_be_given(tag):
    with pytest.raises(PartitaError, match=f"the tag {tag} is written by the scoresheet"):
        Scoresheet(CONNECT4, ["A", "B"], tags={tag: "x"})


def test_the_players_are_the_sides():
    with pytest.raises(PartitaError, match="played by 2 to 2 sides, not 3"):
        Scoresheet(CONNECT4, ["A", "B", "C"])


@settings(max_examples=examples(25, fast=6), deadline=None)
@given(st.sampled_from([game.name for game in all_games()]), st.integers(0, 10_000), st.data())
def test_any_game_played_token_by_token_replays_to_the_same_position(name, seed, data):
    game = get_game(name)
    rules = game.rules
    sides = data.draw(st.integers(rules.min_sides, rules.max_sides))
    sheet = Scoresheet(game, [f"P{seat}" for seat in range(sides)], date="2026.05.04")
    rng = random.Random(seed)
    for _ in range(data.draw(st.integers(0, 60))):
        if sheet.over:
            break
        state = sheet.state
        if rules.forced_pass(state) is not None:
            sheet.play("--")
            continue
        sheet.play(game.format_move(state, rules.sample_move(state, rng)))
    replayed = strictly_valid(sheet.text())
    assert replayed.final_state == sheet.state
    assert replayed.moves == [ply.token for ply in sheet.plies]
