"""Universal Forces notation: moves and positions read, written and round-tripped."""

from __future__ import annotations

import random

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.errors import IllegalMoveError, NotationError, SetupError
from partita.games.universal_forces.notation import UNIVERSAL_FORCES
from partita.games.universal_forces.rules import HOME, PASS, Entry, Step
from partita.notation.reader import parse_record
from partita.notation.replay import replay

GAME = UNIVERSAL_FORCES
RULES = GAME.rules
INITIAL_2 = "- 1:GGGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 1 1"


# -- moves ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("G@O1:9", "G@O1:9"),
        ("g@o1:09", "G@O1:9"),
        ("O1:9-O2:10", "O1:9-O2:10"),
        ("o1:9X m1:04", None),  # malformed: a space inside
        ("M1:3xM1:4", "M1:3xM1:4"),
        ("M1:3XM1:4", "M1:3xM1:4"),
        ("O2:10+O2:11", "O2:10+O2:11"),
        ("C1-H", "C1-H"),
        ("c01-h", "C1-H"),
        ("--", "--"),
    ],
)
def test_canonical_spelling(text, canonical):
    if canonical is None:
        with pytest.raises(NotationError):
            GAME.canonical_token(text)
    else:
        assert GAME.canonical_token(text) == canonical


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("G@O1", "malformed move 'G@O1'"),
        ("Q@O1:1", "malformed move"),
        ("O1:33-O2:1", "no cell 'O1:33' in move 'O1:33-O2:1': ring O1 has sections 1-32"),
        ("I2:9-I2:8", "ring I2 has sections 1-8"),
        ("C5-H", "the centre quadrants are C1-C4"),
        ("O4:1-O3:1", "the rings are O1-O3, M1-M3, I1-I3"),
        ("H-C1", "malformed move"),
        ("e4", "malformed move"),
        ("", "malformed move"),
    ],
)
def test_malformed_moves(text, words):
    with pytest.raises(NotationError, match=words):
        GAME.canonical_token(text)


def state_with(board: str, to_move: int = 1):
    """A two-sided position (board only; every other force in reserve)."""
    used = {1: "", 2: ""}
    for item in filter(None, board.split(",")):
        forces = item.split("=")[1]
        for index in range(0, len(forces), 2):
            used[int(forces[index])] += forces[index + 1]
    sides = " ".join(
        f"{seat}:" + "".join(k * (3 - used[seat].count(k)) for k in "GYBR") + "/-/-"
        for seat in (1, 2)
    )
    return GAME.parse_position(f"{board} {sides} {to_move} 1")


def test_the_generic_operator_is_accepted_for_every_step():
    state = state_with("M2:5=1G,M2:6=2Y,M2:4=1B")
    assert GAME.parse_move(state, "M2:5-M2:6") == Step("M2:5", "M2:6")  # a take
    assert GAME.parse_move(state, "M2:5-M2:4") == Step("M2:5", "M2:4")  # a stack
    assert GAME.format_move(state, Step("M2:5", "M2:6")) == "M2:5xM2:6"
    assert GAME.format_move(state, Step("M2:5", "M2:4")) == "M2:5+M2:4"
    assert GAME.format_move(state, Step("M2:5", "M3:5")) == "M2:5-M3:5"


@pytest.mark.parametrize(
    ("token", "words"),
    [
        ("M2:5xM3:5", "'x' claims a move onto opponents, but M3:5 is empty; write M2:5-M3:5"),
        ("M2:5+M3:5", "'+' claims a stack on an own force, but M3:5 is empty"),
        ("M2:5+M2:6", "'+' claims a stack on an own force, but M2:6 holds Player2's wind"),
        ("M2:5xM2:4", "'x' claims a move onto opponents, but M2:4 holds your own water"),
    ],
)
def test_a_false_claim_is_an_illegal_move(token, words):
    state = state_with("M2:5=1G,M2:6=2Y,M2:4=1B")
    with pytest.raises(IllegalMoveError) as error:
        GAME.parse_move(state, token)
    assert str(error.value).startswith(f"illegal move '{token}': {words}")


def test_a_home_move_is_written_with_the_generic_operator_only():
    state = state_with("C1=1G")
    assert GAME.parse_move(state, "C1-H") == Step("C1", HOME)
    with pytest.raises(IllegalMoveError, match="H is home"):
        GAME.parse_move(state, "C1xH")


def test_a_pass_is_read_only_when_forced():
    with pytest.raises(IllegalMoveError, match="a pass is allowed only"):
        GAME.parse_move(RULES.initial(2), "--")
    stuck = GAME.parse_position("M2:5=1G 1:GGYYYBBBRRR/-/- 2:-/Y/GGGYYBBBRRR 2 1")
    assert GAME.parse_move(stuck, "--") == PASS
    assert GAME.format_move(stuck, PASS) == "--"


def test_entries_read_and_write():
    state = RULES.initial(4)
    assert GAME.parse_move(state, "R@O1:31") == Entry("R", "O1:31")
    assert GAME.format_move(state, Entry("R", "O1:31")) == "R@O1:31"


@settings(max_examples=examples(25, fast=6), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sides=st.integers(2, 4))
def test_every_legal_move_round_trips_through_its_token(seed, sides):
    rng = random.Random(seed)
    state = RULES.initial(sides)
    for _ in range(rng.randrange(0, 120)):
        state = RULES.apply(state, rng.choice(RULES.legal_moves(state)))
        if state.outcome is not None:
            return
    for move in RULES.legal_moves(state):
        token = GAME.format_move(state, move)
        assert GAME.parse_move(state, token) == move
        assert GAME.canonical_token(token) == token
        if isinstance(move, Step) and move.target != HOME:
            generic = f"{move.origin}-{move.target}"
            assert GAME.parse_move(state, generic) == move


# -- positions --------------------------------------------------------------------------------


def test_the_initial_positions():
    assert GAME.format_position(RULES.initial(2)) == INITIAL_2
    assert GAME.format_position(RULES.initial(4)) == (
        "- 1:GGGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 3:GGGYYYBBBRRR/-/- 4:GGGYYYBBBRRR/-/- 1 1"
    )
    assert RULES.key(GAME.parse_position(INITIAL_2)) == RULES.key(RULES.initial(2))


def test_a_position_lists_forces_bottom_to_top_and_the_round():
    text = "M1:4=2Y1Y,M2:6=1G1B,C3=2R 1:GGYYBBRRR/-/- 2:GGGYBBRR/Y/B 2 7"
    state = GAME.parse_position(text)
    assert state.to_move == 1 and state.round == 7 and state.ply == 13
    assert state.cells[RULES.geometry.index["M1:4"]] == (5, 1)
    assert state.home == ((0, 0, 0, 0), (0, 1, 0, 0))
    assert GAME.format_position(state) == text


def test_reserve_letters_in_any_order_are_read():
    text = "- 1:RRRBBBYYYGGG/-/- 2:GGGYYYBBBRRR/-/- 1 1"
    assert GAME.format_position(GAME.parse_position(text)) == INITIAL_2


@pytest.mark.parametrize(
    "text",
    [
        "",
        "- 1:GGGYYYBBBRRR/-/- 1 1 x",
        "M2:5 1:GGGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 1 1",
        "- 1:GGGYYYBBBRRR/- 2:GGGYYYBBBRRR/-/- 1 1",
        "- 1:GGGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 1",
        "- 1:GGGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 1 0",
        "M2:5=1Q 1:GGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 1 1",
    ],
)
def test_malformed_positions(text):
    with pytest.raises(NotationError, match="malformed position"):
        GAME.parse_position(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("- 2:GGGYYYBBBRRR/-/- 1:GGGYYYBBBRRR/-/- 1 1", "listed 1 to 2 in order"),
        ("- 1:GGGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 3 1", "side 3 cannot move"),
        ("M9:1=1G 1:GGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 1 1", "there is no cell M9:1"),
        ("M2:5=1G,M2:5=1G 1:GYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 1 1", "M2:5 is listed twice"),
        ("- 1:GGGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 3:GGGYYYBBBRRR/-/- 1 1", "2 players"),
    ],
)
def test_impossible_positions(text, words):
    with pytest.raises(SetupError, match=words):
        GAME.parse_position(text, 2 if "3:" in text else None)


@settings(max_examples=examples(20, fast=5), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sides=st.integers(2, 4))
def test_positions_round_trip(seed, sides):
    rng = random.Random(seed)
    game = GAME.configure({"RoundLimit": "40"}) if seed % 2 else GAME
    rules = game.rules
    state = rules.initial(sides)
    for _ in range(rng.randrange(0, 150)):
        if state.outcome is not None:
            break
        text = game.format_position(state)
        back = game.parse_position(text, sides)
        assert game.format_position(back) == text
        assert rules.key(back) == rules.key(state)
        assert back.stuck == state.stuck
        state = rules.apply(state, rng.choice(rules.legal_moves(state)))


# -- in records ---------------------------------------------------------------------------------


def _record(movetext: str, result: str = "*", extra: str = "") -> str:
    return (
        f'[Game "universal-forces"]\n[Player1 "A"]\n[Player2 "B"]\n[Result "{result}"]\n'
        f"{extra}\n{movetext} {result}\n"
    )


def test_a_record_may_use_the_generic_operator_even_in_strict_mode():
    setup = "M2:5=1G,M2:6=2Y 1:GGYYYBBBRRR/-/- 2:GGGYYBBBRRR/-/- 1 1"
    text = _record("1. M2:5-M2:6", extra=f'[SetUp "1"]\n[Position "{setup}"]\n')
    replayed = replay(parse_record(text), strict=True)
    assert replayed.problems == []
    assert replayed.moves == ["M2:5xM2:6"]


def test_an_illegal_move_in_a_record_names_the_token_and_the_reason():
    setup = "M1:3=1B,M1:4=2Y 1:GGGYYYBBRRR/-/- 2:GGGYYBBBRRR/-/- 1 1"
    text = _record("1. M1:3xM1:4", extra=f'[SetUp "1"]\n[Position "{setup}"]\n')
    [problem] = replay(parse_record(text)).problems
    assert problem.kind == "illegal-move"
    assert problem.message == "illegal move 'M1:3xM1:4': water cannot take wind"


def test_a_masters_record_is_refused_with_the_reason():
    text = _record("1. G@O1:1", extra='[Level "masters"]\n')
    [problem] = replay(parse_record(text)).problems
    assert problem.kind == "bad-tag"
    assert "not in the rulebook" in problem.message


def test_an_omitted_forced_pass_is_inserted():
    setup = "M2:5=1G 1:GGYYYBBBRRR/-/- 2:-/Y/GGGYYBBBRRR 1 1"
    text = _record("1. M2:5-M2:6 2. M2:6-M2:7", extra=f'[SetUp "1"]\n[Position "{setup}"]\n')
    replayed = replay(parse_record(text), strict=True)
    assert replayed.moves == ["M2:5-M2:6", "--", "M2:6-M2:7"]


def test_the_docs_page_examples_run():
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "universal-forces.md"
    failures, tried = doctest.testfile(str(page), module_relative=False)
    assert tried >= 4 and failures == 0
