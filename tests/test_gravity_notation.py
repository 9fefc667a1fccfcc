"""Notation of Forza 4x4 and Connect Four: entry codes, positions, column strings."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.errors import IllegalMoveError, NotationError, SetupError
from partita.game.registry import get_game
from partita.games.gravity.notation import (
    CONNECT4,
    ENTRY_CODE,
    FORZA4X4,
    POSITION,
    GravityNotation,
    columns_from_moves,
    moves_from_columns,
)
from partita.games.gravity.rules import Entry, GravityState

EXAMPLE = "t4 r5 r5 t2 l8"
EXAMPLE_POSITION = "8/8/8/1o6/ox6/8/8/2xx4 o"


def test_registry_holds_both_games():
    assert get_game("forza4x4") is FORZA4X4
    assert get_game("connect4") is CONNECT4
    assert FORZA4X4.name == "forza4x4" and CONNECT4.name == "connect4"
    configured = FORZA4X4.configure({})
    assert isinstance(configured, GravityNotation) and configured.name == "forza4x4"


def test_rulebook_example_position():
    state = FORZA4X4.play_line(EXAMPLE)
    assert FORZA4X4.format_position(state) == EXAMPLE_POSITION
    parsed = FORZA4X4.parse_position(EXAMPLE_POSITION)
    assert parsed == replace(state, ply=1)
    assert FORZA4X4.rules.key(parsed) == FORZA4X4.rules.key(state)
    assert FORZA4X4.rules.move_number(parsed) == (1, False)  # written "1... "
    assert FORZA4X4.format_line(FORZA4X4.initial(), [Entry.parse(t) for t in EXAMPLE.split()]) == (
        EXAMPLE.split()
    )


def test_initial_positions():
    assert FORZA4X4.format_position(FORZA4X4.initial()) == "8/8/8/8/8/8/8/8 x"
    assert CONNECT4.format_position(CONNECT4.initial()) == "7/7/7/7/7/7 x"
    assert FORZA4X4.parse_position("8/8/8/8/8/8/8/8 x") == FORZA4X4.initial()
    assert CONNECT4.parse_position("7/7/7/7/7/7 x") == CONNECT4.initial()


# -- moves --------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [FORZA4X4, CONNECT4], ids=["forza4x4", "connect4"])
def test_every_entry_code_round_trips(game):
    initial = game.initial()
    for entry in game.rules.entries:
        token = entry.notation()
        assert game.canonical_token(token) == token
        assert game.parse_move(initial, token) == entry
        assert game.format_move(initial, entry) == token
        fields = ENTRY_CODE.parse_string(token, parse_all=True)
        assert (fields["side"], int(fields["index"])) == (entry.side, entry.index)


def test_every_code_of_forza_is_listed():
    tokens = {entry.notation() for entry in FORZA4X4.rules.entries}
    assert tokens == {f"{side}{n}" for side in "tblr" for n in range(1, 9)}
    assert {entry.notation() for entry in CONNECT4.rules.entries} == {f"t{n}" for n in range(1, 8)}


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("T4", "t4"), ("t04", "t4"), ("R5", "r5"), ("L008", "l8"), ("b1", "b1"), ("B01", "b1")],
)
def test_lenient_spellings(text, canonical):
    assert FORZA4X4.canonical_token(text) == canonical
    assert FORZA4X4.parse_move(FORZA4X4.initial(), text) == Entry.parse(canonical)


def test_lenient_spellings_in_connect_four():
    assert CONNECT4.canonical_token("T7") == "t7"
    assert CONNECT4.canonical_token("t007") == "t7"


@pytest.mark.parametrize(
    ("game", "text", "message"),
    [
        (FORZA4X4, "t9", "no move 't9' in Forza 4x4: there is no column 9 (columns 1-8)"),
        (FORZA4X4, "r9", "no move 'r9' in Forza 4x4: there is no row 9 (rows 1-8)"),
        (FORZA4X4, "t0", "no move 't0' in Forza 4x4: columns count from 1"),
        (FORZA4X4, "l00", "no move 'l00' in Forza 4x4: rows count from 1"),
        (FORZA4X4, "T10", "no move 'T10' in Forza 4x4: there is no column 10 (columns 1-8)"),
        (
            CONNECT4,
            "l3",
            "no move 'l3' in Connect Four: pieces enter from the top only (t1-t7)",
        ),
        (CONNECT4, "b2", "no move 'b2' in Connect Four: pieces enter from the top only (t1-t7)"),
        (CONNECT4, "t8", "no move 't8' in Connect Four: there is no column 8 (columns 1-7)"),
        *[
            (
                FORZA4X4,
                text,
                f"malformed move '{text}': an entry code is a side letter (t, b, l, r) "
                "and a number, as in t4",
            )
            for text in ["x4", "t", "4", "", "t4!", "t 4", " t4", "t4 ", "tt4", "t-4", "t4.5", "--"]
        ],
        (
            CONNECT4,
            "4",
            "malformed move '4': an entry code is a side letter (t) and a number, as in t4",
        ),
    ],
)
def test_tokens_that_are_no_move(game, text, message):
    with pytest.raises(NotationError) as error:
        game.canonical_token(text)
    assert str(error.value) == message
    with pytest.raises(NotationError) as error:
        game.parse_move(game.initial(), text)
    assert str(error.value) == message


@pytest.mark.parametrize(
    ("game", "line", "text", "message"),
    [
        (FORZA4X4, "t4", "b4", "illegal move 'b4': entry cell b4 is occupied"),
        (FORZA4X4, "t4 r5", "L5", "illegal move 'L5': entry cell l5 is occupied"),
        (CONNECT4, "t4 t4 t4 t4 t4 t4", "t4", "illegal move 't4': column 4 is full"),
        (
            FORZA4X4,
            "l1 l2 l1 l2 l1 l2 l1",
            "t3",
            "illegal move 't3': the game is over: x has four in a row (row 1, columns 5-8)",
        ),
    ],
)
def test_illegal_moves(game, line, text, message):
    state = game.play_line(line)
    with pytest.raises(IllegalMoveError) as error:
        game.parse_move(state, text)
    assert str(error.value) == message
    assert game.canonical_token(text) == text.lower()  # the syntax is fine


def test_fast_path_and_grammar_agree():
    # Every spelling the grammar reads means the entry the canonical table gives.
    for side in "tblrTBLR":
        for number in range(0, 12):
            for text in (f"{side}{number}", f"{side}0{number}"):
                try:
                    canonical = FORZA4X4.canonical_token(text)
                except NotationError:
                    assert number == 0 or number > 8
                    continue
                assert 1 <= number <= 8
                assert canonical == f"{side.lower()}{number}"


# -- positions --------------------------------------------------------------------------------


def random_unfinished_state(game: GravityNotation, seed: int) -> GravityState:
    rules = game.rules
    rng = random.Random(seed)
    plies = rng.randrange(0, 60)
    state = rules.initial()
    for _ in range(plies):
        legal = [
            m for m in rules.legal_moves(state) if rules.outcome(rules.apply(state, m)) is None
        ]
        if not legal:
            break
        state = rules.apply(state, rng.choice(legal))
    return state


@settings(max_examples=examples(200, fast=50), deadline=None)
@given(st.sampled_from(["forza4x4", "connect4"]), st.integers(0, 2**32))
def test_reachable_positions_round_trip(game_name, seed):
    game = FORZA4X4 if game_name == "forza4x4" else CONNECT4
    state = random_unfinished_state(game, seed)
    text = game.format_position(state)
    parsed = game.parse_position(text)
    assert parsed == replace(state, ply=state.ply % 2)
    assert game.rules.key(parsed) == game.rules.key(state)
    assert game.format_position(parsed) == text
    rows, side = text.split(" ")
    assert side == "xo"[state.ply % 2]
    assert len(rows.split("/")) == game.rules.height


def test_position_grammar_reads_rows_and_side():
    fields = POSITION.parse_string(EXAMPLE_POSITION, parse_all=True)
    assert list(fields["rows"]) == ["8", "8", "8", "1o6", "ox6", "8", "8", "2xx4"]
    assert fields["side"] == "o"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "8/8/8/1o6/ox6/8/8/2xx4",
            "at column 23: expected '/' or a space before the side to move",
        ),
        ("8/8/8/1o6/ox6/8/8/2xx4 q", "at column 24: expected side to move (x or o)"),
        ("8/8/8/1o6/ox6/8/8/2xx4 X", "at column 24: expected side to move (x or o)"),
        ("8/8/8/1o6/ox6/8//2xx4 o", "at column 17: expected row (x, o and counts of empty cells)"),
        ("8/8/8/8/8/8/8/08 x", "at column 15: expected row (x, o and counts of empty cells)"),
        ("8/8/8/8/8/8/8/y7 x", "at column 15: expected row (x, o and counts of empty cells)"),
        ("8/8/8/8/8/8/8/8/ x", "at column 17: expected row (x, o and counts of empty cells)"),
        ("8/8/8/8/8/8/8/8 xo", "at column 18: expected end of text"),
        # "8x" reads as a row of nine cells; the side to move is missing
        ("8/8/8/8/8/8/8/8x", "at column 17: expected '/' or a space before the side to move"),
        ("", "at column 1: expected rows separated by '/'"),
    ],
)
def test_malformed_positions(text, message):
    with pytest.raises(NotationError) as error:
        FORZA4X4.parse_position(text)
    assert str(error.value) == f"malformed position '{text}' {message}"


@pytest.mark.parametrize(
    ("game", "text", "reason"),
    [
        (FORZA4X4, "8/8/8/1o6/ox6/8/8 o", "it has 7 rows, the board has 8"),
        (FORZA4X4, "8/8/8/8/8/8/8/8/8 x", "it has 9 rows, the board has 8"),
        (FORZA4X4, "8/8/8/1o6/ox7/8/8/2xx4 o", "row 5 ('ox7') covers 9 cells, the board is 8 wide"),
        (FORZA4X4, "8/8/8/8/8/8/8/44 x", "row 8 ('44') covers 44 cells, the board is 8 wide"),
        (FORZA4X4, "8/8/8/8/8/8/8/7 x", "row 8 ('7') covers 7 cells, the board is 8 wide"),
        (
            FORZA4X4,
            "8/8/8/1o6/ox6/8/8/2xx4 x",
            "x has 3 pieces and o has 2, so o is to move, not x (x moves first)",
        ),
        (
            FORZA4X4,
            "8/8/8/8/8/8/8/xo6 o",
            "x and o have 1 pieces each, so x is to move, not o (x moves first)",
        ),
        (
            FORZA4X4,
            "8/8/8/8/8/8/8/xxx5 o",
            "x has 3 pieces and o has 0: x moves first, so x has as many pieces as o or one more",
        ),
        (
            FORZA4X4,
            "8/8/8/8/8/8/8/oo6 x",
            "x has 0 pieces and o has 2: x moves first, so x has as many pieces as o or one more",
        ),
        (
            FORZA4X4,
            "8/8/8/3x4/8/8/8/8 o",
            "the x on column 4, row 4 could never have come to rest there: "
            "no piece or board edge next to it could have stopped its slide",
        ),
        (
            FORZA4X4,
            "ooo5/8/8/8/8/8/8/xxxx4 o",
            "the game is already decided: x has four in a row (row 8, columns 1-4)",
        ),
        (
            FORZA4X4,
            "oooo4/8/8/8/8/8/8/xxxx4 x",
            "the game is already decided: x has four in a row (row 8, columns 1-4)",
        ),
        (
            FORZA4X4,
            "oooo4/8/8/8/8/8/8/xxx1x3 x",
            "the game is already decided: o has four in a row (row 1, columns 1-4)",
        ),
        (
            FORZA4X4,
            "o7/o7/o7/o7/8/8/8/xxxxx3 o",
            "the game is already decided: x has five in a row (row 8, columns 1-5)",
        ),
        (
            FORZA4X4,
            "xooxooxx/xxoooxxx/o3xxoo/ooxoooxo/oxo1xxxo/x3ooox/x1o1x1ox/xoxoxoxx x",
            "the game is already decided: the board has no free entry cell",
        ),
        (
            CONNECT4,
            "7/7/7/2x4/7/7 o",
            "the x on column 3, row 4 could never have come to rest there: "
            "it is neither on the bottom row nor on another piece",
        ),
        (
            CONNECT4,
            "7/7/7/7/7/xxxxooo o",
            "the game is already decided: x has four in a row (row 6, columns 1-4)",
        ),
        (
            CONNECT4,
            "ooxxxoo/xxxooox/xoooxoo/xxxoxxx/oooxooo/oxxxoxx x",
            "the game is already decided: the board is full",
        ),
    ],
)
def test_impossible_positions(game, text, reason):
    with pytest.raises(SetupError) as error:
        game.parse_position(text)
    assert str(error.value) == f"impossible position '{text}': {reason}"


def test_setup_positions_that_can_occur():
    # A piece on an edge cell, or resting against another piece, may stand alone.
    state = FORZA4X4.parse_position("8/8/8/x7/8/8/8/8 o")
    assert state.ply == 1
    state = FORZA4X4.parse_position("8/8/8/3xo3/8/8/8/8 x")  # each stops the other
    assert state.ply == 0
    state = CONNECT4.parse_position("7/7/7/7/3o3/3x3 x")
    assert CONNECT4.rules.legal_moves(state)[3] == Entry("t", 4)


def test_position_sides_argument():
    assert FORZA4X4.parse_position("8/8/8/8/8/8/8/8 x", sides=2) == FORZA4X4.initial()
    with pytest.raises(SetupError, match="Forza 4x4 is played by 2 sides, not 3"):
        FORZA4X4.parse_position("8/8/8/8/8/8/8/8 x", sides=3)


# -- column strings --------------------------------------------------------------------------------


def test_column_strings_round_trip():
    moves = moves_from_columns("4453")
    assert [move.notation() for move in moves] == ["t4", "t4", "t5", "t3"]
    assert columns_from_moves(moves) == "4453"
    assert moves_from_columns("") == []
    state = CONNECT4.play_line("t4 t4")
    assert moves_from_columns("44", state) == [Entry("t", 4), Entry("t", 4)]


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("4483", NotationError, "column string '4483': '8' (move 3) is no column (columns 1-7)"),
        ("44a", NotationError, "column string '44a': 'a' (move 3) is no column (columns 1-7)"),
        ("4 4", NotationError, "column string '4 4': ' ' (move 2) is no column (columns 1-7)"),
        (
            "4444444",
            IllegalMoveError,
            "illegal move '4' in move 7 of column string '4444444': column 4 is full",
        ),
        (
            "12121213",
            IllegalMoveError,
            "illegal move '3' in move 8 of column string '12121213': the game is over: "
            "x has four in a row (column 1, rows 3-6)",
        ),
    ],
)
def test_bad_column_strings(text, error, message):
    with pytest.raises(error) as raised:
        moves_from_columns(text)
    assert str(raised.value) == message


def test_column_strings_need_a_top_only_game():
    with pytest.raises(NotationError, match="Forza 4x4 has no column strings"):
        FORZA4X4.moves_from_columns("44")
    with pytest.raises(NotationError, match=r"move 1 \(l1\) has no column string form"):
        columns_from_moves([Entry("l", 1)])
