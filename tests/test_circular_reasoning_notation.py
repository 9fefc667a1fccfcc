"""Circular Reasoning notation: move tokens, positions, their errors and round trips."""

from __future__ import annotations

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.errors import IllegalMoveError, NotationError, SetupError
from partita.game.registry import get_game
from partita.games.circular_reasoning.notation import CIRCULAR_REASONING, MOVE, POSITION
from partita.games.circular_reasoning.rules import GOAL, PASS, Move, cell_name, parse_cell

CR = CIRCULAR_REASONING
START = "1:C@,T@,S@ 2:C@,T@,S@ / O9 M5 I13 / 1 P1"
CELLS = [f"{track}{segment}" for track in "OMI" for segment in range(1, 17)] + ["G"]


def test_registered_under_its_game_tag():
    assert get_game("circular-reasoning") is CR
    assert CR.title == "Circular Reasoning"
    assert [dict(tags) for tags in CR.variants()][0] == {}
    assert len(CR.variants()) == 3


def test_cells_round_trip():
    for number, name in enumerate(CELLS):
        cell = parse_cell(name)
        assert cell == (GOAL if name == "G" else number)
        assert cell_name(cell) == name
    for bad in ("O0", "O17", "X3", "g", "M"):
        with pytest.raises(ValueError):
            parse_cell(bad)


# -- moves -----------------------------------------------------------------------------------


def test_moves_read_and_written():
    state = CR.initial(2)
    assert CR.parse_move(state, "@T>O3") == Move("T", parse_cell("O3"))
    assert CR.format_move(state, Move("T", parse_cell("O3"))) == "@T>O3"
    assert CR.format_move(state, Move("T", parse_cell("O15"))) == "@T<O15"
    assert CR.format_move(state, PASS) == "--"


def test_non_canonical_spellings_are_read():
    assert CR.canonical_token("@t>o03") == "@T>O3"
    assert CR.canonical_token("s<g") == "S<G"
    assert CR.canonical_token("--") == "--"
    assert CR.parse_move(CR.initial(2), "@t>o3") == Move("T", parse_cell("O3"))


@pytest.mark.parametrize(
    "token",
    ["T", "T>", ">O3", "X>O3", "T=O3", "T>O", "T>Q3", "@@T>O3", "T>O3 ", " T>O3", "", "-", "1-0"],
)
def test_malformed_moves(token):
    with pytest.raises(NotationError, match="malformed move"):
        CR.canonical_token(token)


def test_a_segment_that_does_not_exist():
    with pytest.raises(NotationError, match="there is no segment O17"):
        CR.canonical_token("T>O17")
    with pytest.raises(NotationError, match="there is no segment M0"):
        CR.parse_move(CR.initial(2), "T>M0")


def test_entering_is_written_with_an_at_sign_and_only_then():
    state = CR.initial(2)
    with pytest.raises(IllegalMoveError) as error:
        CR.parse_move(state, "T>O3")
    assert str(error.value) == (
        "illegal move 'T>O3': the red triangle is not on the board yet; enter it with '@T>O3'"
    )
    state = CR.parse_position("1:C@,TO3,S@ 2:C@,T@,S@ / O9 M5 I13 / 1 P1")
    with pytest.raises(IllegalMoveError) as error:
        CR.parse_move(state, "@T>O6")
    assert str(error.value) == (
        "illegal move '@T>O6': the red triangle is already on the board (O3); write 'T>O6'"
    )


def test_the_direction_is_checked():
    state = CR.initial(2)
    with pytest.raises(IllegalMoveError) as error:
        CR.parse_move(state, "@T<O3")
    assert str(error.value) == (
        "illegal move '@T<O3': the red triangle reaches O3 only clockwise ('@T>O3')"
    )


def test_both_directions_to_one_destination_are_one_move():
    # Red's square on O1 with 8 other tokens around: clockwise O2-O5 taken, so O6,
    # O7, O8, O9; counter-clockwise O16-O13 taken, so O12, O11, O10, O9. Both
    # directions end on O9: one move, written '>'.
    position = "1:CO2,TO3,SO1 2:CO4,TO5,S@ 3:CO16,TO15,S@ 4:CO14,TO13,S@ / O9 M5 I13 / 2 P1"
    state = CR.parse_position(position)
    assert state is not None
    assert CR.parse_move(state, "S<O9") == CR.parse_move(state, "S>O9")
    moves = [m for m in CR.rules.legal_moves(state) if getattr(m, "shape", "") == "S"]
    assert [CR.format_move(state, m) for m in moves] == ["S>O9"]


def test_illegal_move_messages_name_the_token_and_why():
    state = CR.parse_position("1:CO5,T@,S@ 2:CO1,T@,S@ / O12 M1 I5 / 3 P1")
    with pytest.raises(IllegalMoveError) as error:
        CR.parse_move(state, "@T>O3")
    assert str(error.value) == (
        "illegal move '@T>O3': the Player Entrance O1 is occupied, so the red triangle cannot enter"
    )
    with pytest.raises(IllegalMoveError, match=r"illegal move 'C>O8': the red circle cannot"):
        CR.parse_move(state, "C>O8")


@settings(max_examples=examples(200, fast=50), deadline=None)
@given(
    entering=st.booleans(),
    shape=st.sampled_from("CTS"),
    direction=st.sampled_from("<>"),
    cell=st.sampled_from(CELLS),
)
def test_every_move_token_round_trips(entering, shape, direction, cell):
    token = f"{'@' if entering else ''}{shape}{direction}{cell}"
    assert CR.canonical_token(token) == token
    assert CR.canonical_token(token.lower()) == token
    fields = MOVE.parse_string(token, parse_all=True)
    assert fields["shape"] == shape and fields["destination"] == cell


# -- positions ---------------------------------------------------------------------------------


def test_position_round_trip_and_fields():
    state = CR.parse_position(START)
    assert state == CR.initial(2)
    text = "1:CG,TM3,S@ 2:CI16,TO4,SG 3:C@,T@,S@ / O11 M6 I1 / 7 P3"
    state = CR.parse_position(text)
    assert CR.format_position(state) == text
    assert state.round == 7
    # round 7 of three sides opens with Player1; Player3 is its third side
    assert (state.turn, state.ply) == (2, 20)
    assert CR.rules.side_to_move(state) == 2
    fields = POSITION.parse_string(text, parse_all=True)
    assert list(fields["gates"]) == ["O11", "M6", "I1"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("1:C@,T@,S@ 2:C@,T@,S@ / O9 M5 / 1 P1", "malformed position"),
        ("1:C@,T@ 2:C@,T@,S@ / O9 M5 I13 / 1 P1", "malformed position"),
        ("1:C@,T@,S@ 2:C@,T@,S@ / O9 M5 I13 / 0 P1", "malformed position"),
        ("1:C@,T@,S@ 2:C@,T@,S@ O9 M5 I13 / 1 P1", "malformed position"),
        ("1:C@,T@,S@ 2:C@,T@,S@ / O9 M5 I13 / 1", "malformed position"),
        ("1:CO17,T@,S@ 2:C@,T@,S@ / O9 M5 I13 / 1 P1", "there is no segment O17"),
    ],
)
def test_malformed_positions(text, says):
    with pytest.raises(NotationError, match=says):
        CR.parse_position(text)


def test_malformed_position_names_the_column():
    with pytest.raises(NotationError) as error:
        CR.parse_position("1:C@,T@,S@ 2:C@,T@,S@ / O9 M5 X13 / 1 P1")
    # counted: "1:C@,T@,S@" is columns 1-10, "2:C@,T@,S@" 12-21, "/" 23, "O9" 25-26,
    # "M5" 28-29, so "X13" starts at column 31
    assert "at column 31: expected gateway segment" in str(error.value)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "1:CO3,T@,S@ 2:CO3,T@,S@ / O9 M5 I13 / 1 P1",
            "the red circle and the blue circle are both on O3: a segment holds one token",
        ),
        (
            "1:C@,T@,S@ 2:C@,T@,S@ / M9 M5 I13 / 1 P1",
            "the large gateway lies on the outer track, not on M9",
        ),
        (
            "1:C@,T@,S@ 2:C@,T@,S@ / O9 I5 I13 / 1 P1",
            "the medium gateway lies on the middle track, not on I5",
        ),
        (
            "1:CG,TG,SG 2:C@,T@,S@ / O9 M5 I13 / 4 P2",
            "the game is already decided: red (Player1) has all three tokens in the Goal Area",
        ),
        ("1:C@,T@,S@ 2:C@,T@,S@ / O9 M5 I13 / 1 P3", "there is no Player3 among 2 sides"),
        ("2:C@,T@,S@ 1:C@,T@,S@ / O9 M5 I13 / 1 P1", "side 2 stands where side 1 belongs"),
        ("1:C@,T@,S@ / O9 M5 I13 / 1 P1", "played by 2 to 4 sides"),
    ],
)
def test_impossible_positions(text, says):
    with pytest.raises(SetupError) as error:
        CR.parse_position(text)
    assert says in str(error.value)
    assert str(error.value).startswith(f"impossible position '{text}'")


def test_a_position_must_have_the_records_sides():
    with pytest.raises(SetupError, match="it has 2 sides, the record 3"):
        CR.parse_position(START, 3)


def test_docs_page_examples_run():
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "circular-reasoning.md"
    failures, tried = doctest.testfile(str(page), module_relative=False)
    assert tried >= 4
    assert failures == 0
