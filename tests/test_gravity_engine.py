"""The gravity engine (Forza 4x4, Connect Four): rules, outcomes, keys, symmetry.

Expected values come from the rulebook, the spec, published Connect Four data and
an independent reference board (tests/gravity_reference.py), never from the engine.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from budget import examples
from gravity_reference import ReferenceBoard
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_data import pons_folder

from partita.errors import IllegalMoveError, NotationError, SetupError
from partita.games.gravity.rules import (
    ConnectFourRules,
    Entry,
    Forza4x4Rules,
    GravityRules,
    GravityState,
    columns_from_entries,
    entries_from_columns,
)

FORZA = Forza4x4Rules()
CONNECT = ConnectFourRules()

# A Forza 4x4 game that ends with every border cell occupied, no line, and ten
# interior cells nobody can reach any more.
FORZA_DRAW = (
    "b7 b5 b7 t6 b1 r4 t3 t4 t8 b5 r2 b2 l7 t3 r1 r5 r5 l2 r6 l8 b1 l2 t4 r3 b5 t3 l2 "
    "r4 r4 r4 b1 r5 r3 b5 b5 r4 r5 b5 t6 b7 l2 t6 r4 r6 r5 b7 r6 b7 b5 r5 b5 r3 b7 r4"
)
# A Connect Four game that fills the board without a line.
CONNECT_DRAW = "257771314744647214154617633623313656555222"


def play(rules: GravityRules, tokens: str, state: GravityState | None = None) -> GravityState:
    """Replay canonical tokens on the checked path."""
    if state is None:
        state = rules.initial()
    for token in tokens.split():
        state = rules.play(state, Entry.parse(token))
    return state


def cells_of(rules: GravityRules, state: GravityState) -> str:
    """The board as the reference writes it, decoded from the documented bit layout
    (bit (row - 1) * width + (column - 1))."""
    rows = []
    for row in range(rules.height):
        text = ""
        for column in range(rules.width):
            bit = row * rules.width + column
            text += "x" if state.x >> bit & 1 else "o" if state.o >> bit & 1 else "."
        rows.append(text)
    return "/".join(rows) + " " + ("x" if state.ply % 2 == 0 else "o")


def test_configurations():
    assert (FORZA.name, FORZA.width, FORZA.height, FORZA.entry_sides) == ("forza4x4", 8, 8, "tblr")
    assert (CONNECT.name, CONNECT.width, CONNECT.height, CONNECT.entry_sides) == (
        "connect4",
        7,
        6,
        "t",
    )
    assert FORZA.line_length == CONNECT.line_length == 4
    assert FORZA.title == "Forza 4x4" and CONNECT.title == "Connect Four"
    assert len(FORZA.entries) == 32 and len(CONNECT.entries) == 7
    assert Forza4x4Rules.symmetry_count == 8 and ConnectFourRules.symmetry_count == 2


def test_bad_configurations_refused():
    with pytest.raises(ValueError, match="subset of 'tblr'"):
        GravityRules(8, 8, "tx")
    with pytest.raises(ValueError, match="2 to 16"):
        GravityRules(1, 8)
    with pytest.raises(ValueError, match="does not fit"):
        GravityRules(3, 3, "t", 4)


# -- the rulebook's example ---------------------------------------------------------------


def test_rulebook_example_step_by_step():
    state = FORZA.initial()
    expected = [("t4", (4, 8)), ("r5", (1, 5)), ("r5", (2, 5)), ("t2", (2, 4)), ("l8", (3, 8))]
    for ply, (token, landing) in enumerate(expected):
        move = Entry.parse(token)
        assert FORZA.illegal_reason(state, move) is None
        assert FORZA.landing(state, move) == landing, token
        assert FORZA.side_to_move(state) == ply % 2
        state = FORZA.apply(state, move)
        if token == "t4":
            assert FORZA.illegal_reason(state, Entry("b", 4)) == "entry cell b4 is occupied"
    assert cells_of(FORZA, state) == (
        "......../......../......../.o....../ox....../......../......../..xx.... o"
    )
    assert FORZA.outcome(state) is None
    assert FORZA.ply(state) == 5
    assert FORZA.move_number(state) == (3, False)


def test_piece_stays_on_entry_cell_when_next_cell_is_taken():
    state = play(FORZA, "t1 t1 t1 t1 t1 t1 t1")  # column 1 filled up to row 2
    assert FORZA.landing(state, Entry("t", 1)) == (1, 1)
    assert FORZA.landing(state, Entry("l", 1)) == (8, 1)
    state = FORZA.apply(state, Entry("t", 1))
    assert FORZA.illegal_reason(state, Entry("l", 1)) == "entry cell l1 is occupied"
    assert FORZA.illegal_reason(state, Entry("t", 1)) == "entry cell t1 is occupied"


# -- published Connect Four positions ---------------------------------------------------


def pons_lines() -> list[tuple[str, str]]:
    lines = []
    for path in sorted(pons_folder().iterdir()):
        if path.name == "README.md":
            continue
        for line in path.read_text().splitlines():
            if line.strip():
                lines.append((path.name, line.split()[0]))
    return lines


def test_pons_benchmark_positions_replay_as_unfinished_legal_games():
    lines = pons_lines()
    assert len(lines) == 6100
    initial = CONNECT.initial()
    for name, columns in lines:
        moves = entries_from_columns(columns)
        state = initial
        for ply, move in enumerate(moves):
            reason = CONNECT.illegal_reason(state, move)
            assert reason is None, (name, columns, ply, reason)
            state = CONNECT.apply(state, move)
        assert CONNECT.outcome(state) is None, (name, columns)
        assert state.ply == len(columns)
        assert (state.x | state.o).bit_count() == len(columns)


# -- agreement with the reference board ---------------------------------------------------


def reference_for(rules: GravityRules) -> ReferenceBoard:
    return ReferenceBoard(rules.width, rules.height, rules.entry_sides, rules.line_length)


def agree_on_a_random_game(rules: GravityRules, seed: int) -> None:
    rng = random.Random(seed)
    reference = reference_for(rules)
    state = rules.initial()
    while True:
        legal = [(move.side, move.index) for move in rules.legal_moves(state)]
        assert legal == reference.legal_moves()
        for side, index in reference.all_moves():
            refused = rules.illegal_reason(state, Entry(side, index)) is not None
            assert refused == ((side, index) not in legal)
        assert cells_of(rules, state) == reference.text()
        result = reference.result()
        outcome = rules.outcome(state)
        if result is None:
            assert outcome is None
        elif result == "draw":
            assert outcome is not None and outcome.scores == (Fraction(1, 2), Fraction(1, 2))
        else:
            assert outcome is not None and outcome.winner == "xo".index(result)
        if not legal:
            assert result is not None
            break
        side, index = rng.choice(legal)
        move = Entry(side, index)
        landing = rules.landing(state, move)
        assert landing == reference.play(side, index)
        state = rules.play(state, move)


@settings(max_examples=examples(150, fast=40), deadline=None)
@given(st.integers(0, 2**32))
def test_forza_agrees_with_reference(seed):
    agree_on_a_random_game(FORZA, seed)


@settings(max_examples=examples(150, fast=40), deadline=None)
@given(st.integers(0, 2**32))
def test_connect_four_agrees_with_reference(seed):
    agree_on_a_random_game(CONNECT, seed)


@settings(max_examples=examples(40, fast=10), deadline=None)
@given(
    st.integers(3, 7),
    st.integers(3, 7),
    st.sets(st.sampled_from("tblr"), min_size=1).map("".join),
    st.integers(0, 2**32),
)
def test_other_configurations_agree_with_reference(width, height, sides, seed):
    line = min(3, width, height)
    agree_on_a_random_game(GravityRules(width, height, sides, line), seed)


def test_replay_entries_matches_play_and_stops_at_the_first_illegal_move():
    moves = [Entry.parse(token) for token in ["t4", "r5", "r5", "t2", "l8"]]
    states, reason = FORZA.replay_entries(FORZA.initial(), moves)
    assert reason is None
    expected = []
    state = FORZA.initial()
    for move in moves:
        state = FORZA.play(state, move)
        expected.append(state)
    assert states == expected
    states, reason = FORZA.replay_entries(FORZA.initial(), moves[:2] + [Entry("b", 4)] + moves)
    assert len(states) == 2
    assert reason == "entry cell b4 is occupied"
    states, reason = CONNECT.replay_entries(CONNECT.initial(), [Entry("t", 8)])
    assert states == [] and reason == "there is no column 8 (columns 1-7)"


@settings(max_examples=examples(100, fast=30), deadline=None)
@given(
    st.integers(3, 7),
    st.integers(3, 7),
    st.sets(st.sampled_from("tblr"), min_size=1).map("".join),
    st.integers(0, 2**32),
)
def test_replay_entries_is_play_move_by_move_to_the_end(width, height, sides, seed):
    """The importers' replay (its own copy of ``apply``'s body) gives the states the
    checked path gives, wins (the line bits) included, on random games of any board,
    and refuses a move after the end with the checked path's reason."""
    rules = GravityRules(width, height, sides, min(3, width, height))
    rng = random.Random(seed)
    state = rules.initial()
    moves, expected = [], []
    while rules.outcome(state) is None:
        move = rng.choice(rules.legal_moves(state))
        state = rules.play(state, move)
        moves.append(move)
        expected.append(state)
    states, reason = rules.replay_entries(rules.initial(), moves)
    assert states == expected and reason is None
    extra = rules.entries[0]
    states, reason = rules.replay_entries(rules.initial(), [*moves, extra])
    assert states == expected
    assert reason == rules.illegal_reason(state, extra) and reason is not None


# -- outcomes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tokens", "winner", "reason"),
    [
        ("l1 l2 l1 l2 l1 l2 l1", 0, "x has four in a row (row 1, columns 5-8)"),
        ("t1 t2 t1 t2 t1 t2 t1", 0, "x has four in a row (column 1, rows 5-8)"),
        # o completes a line: x plays elsewhere
        ("t8 t1 t8 t1 t7 t1 l1 t1", 1, "o has four in a row (column 1, rows 5-8)"),
        # diagonal down to the right: (5,5) (6,6) (7,7) (8,8), named from the top
        (
            "t8 t7 t7 t6 t6 t5 t6 t5 t4 t5 t5",
            0,
            "x has four in a row (diagonal from column 5, row 5 to column 8, row 8)",
        ),
        # diagonal up to the right: (1,8) (2,7) (3,6) (4,5)
        (
            "t1 t2 t2 t3 t3 t4 t3 t4 t5 t4 t4",
            0,
            "x has four in a row (diagonal from column 4, row 5 to column 1, row 8)",
        ),
    ],
)
def test_lines_win(tokens, winner, reason):
    state = play(FORZA, tokens)
    outcome = FORZA.outcome(state)
    assert outcome is not None
    assert outcome.winner == winner
    assert outcome.reason == reason
    assert outcome.result_token() == ("1-0" if winner == 0 else "0-1")
    assert FORZA.legal_moves(state) == ()
    assert FORZA.is_over(state)


def test_a_line_of_five_wins_and_is_named_whole():
    # x fills row 8 at columns 1, 2, 4, 5, then t3 joins them into five.
    state = play(FORZA, "t1 r1 t2 r2 t4 r3 t5 l4")
    assert FORZA.outcome(state) is None
    state = play(FORZA, "t3", state)
    outcome = FORZA.outcome(state)
    assert outcome is not None and outcome.winner == 0
    assert outcome.reason == "x has five in a row (row 8, columns 1-5)"


def test_one_move_making_two_lines_keeps_both():
    # x's last piece, on column 4 of the bottom row, completes row 6 (columns 1-4)
    # and the diagonal up to column 7, row 3.
    state = CONNECT.initial()
    for move in entries_from_columns("155626673717714"):
        state = CONNECT.play(state, move)
    outcome = CONNECT.outcome(state)
    assert outcome is not None and outcome.winner == 0
    assert outcome.reason == "x has four in a row (row 6, columns 1-4)"
    cells = {(1, 6), (2, 6), (3, 6), (4, 6), (5, 5), (6, 4), (7, 3)}
    assert state.line == sum(1 << CONNECT.bit(column, row) for column, row in cells)


def test_draw_when_no_entry_cell_is_free():
    state = play(FORZA, FORZA_DRAW)
    outcome = FORZA.outcome(state)
    assert outcome is not None
    assert outcome.scores == (Fraction(1, 2), Fraction(1, 2))
    assert outcome.winner is None
    assert outcome.reason == "the board has no free entry cell"
    assert outcome.result_token() == "1/2-1/2"
    assert FORZA.legal_moves(state) == ()
    empty = 64 - (state.x | state.o).bit_count()
    assert empty == 10  # unreachable cells stay empty
    reference = ReferenceBoard(8, 8, "tblr")
    for token in FORZA_DRAW.split():
        reference.play(token[0], int(token[1:]))
    assert reference.result() == "draw"


def test_connect_four_draw_on_a_full_board():
    state = CONNECT.initial()
    for move in entries_from_columns(CONNECT_DRAW):
        state = CONNECT.play(state, move)
    outcome = CONNECT.outcome(state)
    assert outcome is not None and outcome.winner is None
    assert outcome.reason == "the board is full"
    assert (state.x | state.o).bit_count() == 42


def test_moves_after_the_end_are_refused():
    state = play(FORZA, "l1 l2 l1 l2 l1 l2 l1")
    reason = "the game is over: x has four in a row (row 1, columns 5-8)"
    assert FORZA.illegal_reason(state, Entry("t", 1)) == reason
    with pytest.raises(IllegalMoveError, match=r"^the game is over: x has four"):
        FORZA.play(state, Entry("t", 1))
    drawn = play(FORZA, FORZA_DRAW)
    assert (
        FORZA.illegal_reason(drawn, Entry("t", 4))
        == "the game is over: the board has no free entry cell"
    )


# -- illegal moves and move values -----------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "tokens", "move", "reason"),
    [
        (FORZA, "t4", Entry("b", 4), "entry cell b4 is occupied"),
        (FORZA, "t4 r5", Entry("l", 5), "entry cell l5 is occupied"),
        (FORZA, "", Entry("t", 9), "there is no column 9 (columns 1-8)"),
        (FORZA, "", Entry("r", 9), "there is no row 9 (rows 1-8)"),
        (CONNECT, "t4 t4 t4 t4 t4 t4", Entry("t", 4), "column 4 is full"),
        (CONNECT, "", Entry("t", 8), "there is no column 8 (columns 1-7)"),
        (CONNECT, "", Entry("l", 3), "pieces enter from the top only (t1-t7)"),
        (FORZA, "", "t4", "'t4' is not an entry code"),
    ],
)
def test_illegal_reasons(rules, tokens, move, reason):
    state = play(rules, tokens)
    assert rules.illegal_reason(state, move) == reason
    with pytest.raises(IllegalMoveError) as error:
        rules.play(state, move)
    assert str(error.value) == reason


def test_entry_values():
    entry = Entry("t", 4)
    assert entry.notation() == "t4" and str(entry) == "t4"
    assert eval(repr(entry), {"Entry": Entry}) == entry
    assert hash(entry) == hash(Entry("t", 4))
    with pytest.raises(AttributeError):
        entry.index = 5  # type: ignore[misc]
    for side, index in [("x", 1), ("tb", 1), ("", 1), ("t", 0), ("t", -1), ("t", "4")]:
        with pytest.raises(ValueError):
            Entry(side, index)


def test_entry_parse_round_trips_every_code():
    for rules in (FORZA, CONNECT):
        for entry in rules.entries:
            assert Entry.parse(entry.notation()) == entry
    codes = {entry.notation() for entry in FORZA.entries}
    assert codes == {f"{side}{n}" for side in "tblr" for n in range(1, 9)}
    for text in ["T4", "t04", "t", "4", "t4 ", "x1", "t0"]:
        with pytest.raises(NotationError, match=r"^malformed move '"):
            Entry.parse(text)


def test_state_is_an_immutable_value():
    state = play(FORZA, "t4 r5")
    assert eval(repr(state), {"GravityState": GravityState}) == state
    with pytest.raises(AttributeError):
        state.x = 0  # type: ignore[misc]
    assert state == play(FORZA, "t4 r5")


def test_sides_and_numbering():
    state = FORZA.initial()
    assert FORZA.sides(state) == 2
    assert FORZA.move_number(state) == (1, True)
    assert FORZA.move_number(FORZA.apply(state, Entry("t", 4))) == (1, False)
    with pytest.raises(SetupError, match="played by 2 sides, not 3"):
        FORZA.initial(3)


# -- setup positions ------------------------------------------------------------------------


def test_setup_with_o_to_move_starts_at_ply_one():
    x = 1 << (7 * 8 + 3)  # column 4, row 8
    state = FORZA.setup(x, 0, 1)
    assert state.ply == 1 and FORZA.side_to_move(state) == 1
    assert FORZA.move_number(state) == (1, False)


@pytest.mark.parametrize(
    ("x_cells", "o_cells", "side", "message"),
    [
        ([(4, 8)], [], 0, "x has 1 pieces and o has 0, so o is to move, not x (x moves first)"),
        ([], [], 1, "x and o have 0 pieces each, so x is to move, not o (x moves first)"),
        (
            [(1, 8), (2, 8)],
            [],
            1,
            "x has 2 pieces and o has 0: x moves first, so x has as many pieces as o or one more",
        ),
        (
            [(4, 4)],
            [],
            1,
            "the x on column 4, row 4 could never have come to rest there: "
            "no piece or board edge next to it could have stopped its slide",
        ),
        (
            [(1, 8), (2, 8), (3, 8), (4, 8)],
            [(1, 1), (2, 1), (3, 1)],
            1,
            "the game is already decided: x has four in a row (row 8, columns 1-4)",
        ),
    ],
)
def test_impossible_setups(x_cells, o_cells, side, message):
    def bits(cells):
        return sum(1 << FORZA.bit(column, row) for column, row in cells)

    with pytest.raises(SetupError) as error:
        FORZA.setup(bits(x_cells), bits(o_cells), side)
    assert str(error.value) == message


def test_connect_four_setup_needs_support():
    floating = 1 << CONNECT.bit(3, 4)
    with pytest.raises(SetupError, match="neither on the bottom row nor on another piece"):
        CONNECT.setup(floating, 0, 1)
    resting = 1 << CONNECT.bit(3, 6)
    assert CONNECT.setup(resting, 0, 1).ply == 1


def test_setup_of_a_blocked_board_is_decided():
    drawn = play(FORZA, FORZA_DRAW)
    with pytest.raises(SetupError, match="already decided: the board has no free entry cell"):
        FORZA.setup(drawn.x, drawn.o, drawn.ply % 2)


# -- keys -----------------------------------------------------------------------------------------


def test_key_layout():
    assert FORZA.key(FORZA.initial()) == 0
    after = play(FORZA, "t4")  # x on column 4, row 8: bit 7 * 8 + 3
    assert FORZA.key(after) == 1 << 59 | 1 << 128
    after = play(FORZA, "t4 r5")  # o on column 1, row 5: bit 32, shifted by 64
    assert FORZA.key(after) == 1 << 59 | 1 << (32 + 64)
    assert CONNECT.key(play(CONNECT, "t1")) == 1 << 35 | 1 << 84


def test_key_ignores_ply_but_not_side():
    state = play(FORZA, "t4 r5")
    setup = FORZA.setup(state.x, state.o, 0)
    assert setup.ply == 0 and state.ply == 2
    assert FORZA.key(setup) == FORZA.key(state)
    assert FORZA.key(GravityState(state.x, state.o, 1)) != FORZA.key(state)


# -- symmetry ---------------------------------------------------------------------------------------

# Where each named symmetry sends (column, row) on an 8x8 board, written out here.
SQUARE_MAPS = {
    "identity": lambda c, r: (c, r),
    "rotation by 90 degrees": lambda c, r: (9 - r, c),
    "rotation by 180 degrees": lambda c, r: (9 - c, 9 - r),
    "rotation by 270 degrees": lambda c, r: (r, 9 - c),
    "left-right mirror": lambda c, r: (9 - c, r),
    "top-bottom mirror": lambda c, r: (c, 9 - r),
    "reflection in the main diagonal": lambda c, r: (r, c),
    "reflection in the anti-diagonal": lambda c, r: (9 - r, 9 - c),
}


def random_state(rules: GravityRules, seed: int, plies: int) -> GravityState:
    rng = random.Random(seed)
    state = rules.initial()
    for _ in range(plies):
        legal = rules.legal_moves(state)
        if not legal:
            break
        state = rules.apply(state, rng.choice(legal))
    return state


def test_symmetries_are_the_named_maps():
    names = [FORZA.symmetry_name(k) for k in range(FORZA.symmetry_count)]
    assert sorted(names) == sorted(SQUARE_MAPS)
    assert names[0] == "identity"
    for k, name in enumerate(names):
        for column in range(1, 9):
            for row in range(1, 9):
                single = GravityState(1 << FORZA.bit(column, row), 0)
                image = FORZA.transform(single, k)
                assert image.x == 1 << FORZA.bit(*SQUARE_MAPS[name](column, row)), name
    assert [CONNECT.symmetry_name(k) for k in range(2)] == ["identity", "left-right mirror"]
    single = GravityState(1 << CONNECT.bit(1, 6), 0)
    assert CONNECT.transform(single, 1).x == 1 << CONNECT.bit(7, 6)


def test_symmetry_numbering_is_the_documented_one():
    assert [FORZA.symmetry_name(k) for k in range(8)] == [
        "identity",
        "rotation by 90 degrees",
        "rotation by 180 degrees",
        "rotation by 270 degrees",
        "left-right mirror",
        "top-bottom mirror",
        "reflection in the main diagonal",
        "reflection in the anti-diagonal",
    ]


@pytest.mark.parametrize(
    ("width", "height", "sides", "names"),
    [
        (
            8,
            8,
            "tb",
            {"identity", "rotation by 180 degrees", "left-right mirror", "top-bottom mirror"},
        ),
        (
            6,
            8,
            "tblr",
            {"identity", "rotation by 180 degrees", "left-right mirror", "top-bottom mirror"},
        ),
        (8, 8, "tl", {"identity", "reflection in the main diagonal"}),
        (8, 8, "tr", {"identity", "reflection in the anti-diagonal"}),
        (7, 6, "b", {"identity", "left-right mirror"}),
    ],
)
def test_a_configuration_keeps_the_symmetries_that_preserve_its_sides(width, height, sides, names):
    rules = GravityRules(width, height, sides)
    assert {rules.symmetry_name(k) for k in range(rules.symmetry_count)} == names
    assert rules.symmetry_name(0) == "identity"


def test_symmetries_map_entry_codes():
    mirror = [FORZA.symmetry_name(k) for k in range(8)].index("left-right mirror")
    assert FORZA.transform_move(Entry("t", 1), mirror) == Entry("t", 8)
    assert FORZA.transform_move(Entry("l", 3), mirror) == Entry("r", 3)
    quarter = [FORZA.symmetry_name(k) for k in range(8)].index("rotation by 90 degrees")
    assert FORZA.transform_move(Entry("t", 1), quarter) == Entry("r", 1)
    assert FORZA.transform_move(Entry("l", 1), quarter) == Entry("t", 8)
    assert CONNECT.transform_move(Entry("t", 2), 1) == Entry("t", 6)
    with pytest.raises(ValueError, match="symmetries 0-1, not 2"):
        CONNECT.transform(CONNECT.initial(), 2)
    with pytest.raises(ValueError, match="no entry of connect4"):
        CONNECT.transform_move(Entry("l", 1), 1)


@pytest.mark.parametrize("rules", [FORZA, CONNECT], ids=["forza4x4", "connect4"])
def test_symmetries_are_distinct_and_form_a_group(rules):
    count = rules.symmetry_count
    # An asymmetric position tells the transforms apart.
    state = play(rules, "t1 t2 t2" if rules is CONNECT else "t1 t2 l3 r8 b6")
    images = [rules.transform(state, k) for k in range(count)]
    assert len(set(images)) == count
    assert images[0] == state
    for i in range(count):
        for j in range(count):
            composed = rules.transform(images[i], j)
            assert composed in images  # closed under composition
        assert state in [rules.transform(images[i], j) for j in range(count)]  # inverses
    for entry in rules.entries:
        assert rules.transform_move(entry, 0) == entry
    for k in range(count):
        assert {rules.transform_move(entry, k) for entry in rules.entries} == set(rules.entries)


@settings(max_examples=examples(60, fast=15), deadline=None)
@given(st.sampled_from(["forza4x4", "connect4"]), st.integers(0, 2**32), st.integers(0, 40))
def test_symmetry_commutes_with_play(game, seed, plies):
    rules = FORZA if game == "forza4x4" else CONNECT
    state = random_state(rules, seed, plies)
    keys = set()
    for k in range(rules.symmetry_count):
        image = rules.transform(state, k)
        assert image.ply == state.ply
        legal = rules.legal_moves(state)
        assert {rules.transform_move(move, k) for move in legal} == set(rules.legal_moves(image))
        for move in legal:
            assert rules.transform(rules.apply(state, move), k) == rules.apply(
                image, rules.transform_move(move, k)
            )
        assert rules.canonical_key(image) == rules.canonical_key(state)
        keys.add(rules.key(image))
    assert rules.canonical_key(state) == min(keys)
    assert (rules.outcome(state) is None) == (rules.outcome(rules.transform(state, 1)) is None)


# -- column strings -----------------------------------------------------------------------------------


def test_column_strings():
    assert entries_from_columns("4453") == (
        Entry("t", 4),
        Entry("t", 4),
        Entry("t", 5),
        Entry("t", 3),
    )
    assert columns_from_entries(entries_from_columns("4453")) == "4453"
    assert entries_from_columns("") == ()
    with pytest.raises(NotationError) as error:
        entries_from_columns("4483")
    assert str(error.value) == "column string '4483': '8' (move 3) is no column (columns 1-7)"
    with pytest.raises(NotationError, match=r"'0' \(move 1\) is no column"):
        entries_from_columns("01")
    assert entries_from_columns("18", width=8)[1] == Entry("t", 8)
    with pytest.raises(NotationError) as error:
        columns_from_entries([Entry("t", 4), Entry("l", 2)])
    assert str(error.value) == "move 2 (l2) has no column string form: only t1-t9 do"


# -- diagram --------------------------------------------------------------------------------------------


def test_diagram():
    state = play(FORZA, "t4 r5 r5 t2 l8")
    assert FORZA.diagram(state) == "\n".join(
        [
            "   t1 t2 t3 t4 t5 t6 t7 t8",
            "l1  .  .  .  .  .  .  .  .  r1",
            "l2  .  .  .  .  .  .  .  .  r2",
            "l3  .  .  .  .  .  .  .  .  r3",
            "l4  .  o  .  .  .  .  .  .  r4",
            "l5  o  x  .  .  .  .  .  .  r5",
            "l6  .  .  .  .  .  .  .  .  r6",
            "l7  .  .  .  .  .  .  .  .  r7",
            "l8  .  .  x  x  .  .  .  .  r8",
            "   b1 b2 b3 b4 b5 b6 b7 b8",
            "o to move (ply 5)",
        ]
    )
    connect = CONNECT.diagram(play(CONNECT, "t1 t2 t1 t2 t1 t2 t1"))
    assert connect.splitlines()[0] == "   t1 t2 t3 t4 t5 t6 t7"
    assert connect.splitlines()[3] == " 3  x  .  .  .  .  .  ."
    assert connect.splitlines()[-1] == "x wins: x has four in a row (column 1, rows 3-6)"
    assert len(connect.splitlines()) == 8


@pytest.mark.parametrize("rules", [FORZA, CONNECT], ids=["forza4x4", "connect4"])
def test_symmetric_keys_are_the_keys_of_the_transformed_positions(rules):
    chooser = random.Random(11)
    for _ in range(30):
        state = rules.initial()
        while rules.outcome(state) is None:
            expected = tuple(
                rules.key(rules.transform(state, k)) for k in range(rules.symmetry_count)
            )
            assert rules.symmetric_keys(state) == expected
            state = rules.apply(state, chooser.choice(list(rules.legal_moves(state))))
