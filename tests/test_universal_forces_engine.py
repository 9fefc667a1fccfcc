"""Universal Forces: one test per rule of the rulebook and per reading of the spec.

Every position is set up in position notation (``docs/universal-forces.md``);
expected moves, messages and outcomes were worked out by hand from the rulebook
and ``shared/spec/universal-forces.md``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from partita.errors import IllegalMoveError, SetupError, TagError
from partita.games.universal_forces.notation import UNIVERSAL_FORCES, UniversalForcesNotation
from partita.games.universal_forces.rules import PASS, Entry, Step, UniversalForcesRules

GAME = UNIVERSAL_FORCES
RULES = GAME.rules
HALF = Fraction(1, 2)


def position(
    board: str = "",
    *,
    sides: int = 2,
    to_move: int = 1,
    round_number: int = 1,
    home: dict[int, str] | None = None,
    eliminated: dict[int, str] | None = None,
) -> str:
    """Position notation for ``board`` (``"M1:3=1B,M1:4=2Y"``); each side's forces
    that are neither on the board, at home nor eliminated are in reserve."""
    home = home or {}
    eliminated = eliminated or {}
    used = {seat: "" for seat in range(1, sides + 1)}
    for item in filter(None, board.split(",")):
        forces = item.split("=")[1]
        for index in range(0, len(forces), 2):
            used[int(forces[index])] += forces[index + 1]
    fields = []
    for seat in range(1, sides + 1):
        gone = used[seat] + home.get(seat, "") + eliminated.get(seat, "")
        reserve = "".join(letter * (3 - gone.count(letter)) for letter in "GYBR")
        fields.append(
            f"{seat}:{reserve or '-'}/{home.get(seat) or '-'}/{eliminated.get(seat) or '-'}"
        )
    return f"{board or '-'} {' '.join(fields)} {to_move} {round_number}"


def setup(board: str = "", game: UniversalForcesNotation = GAME, **kwargs):
    return game.parse_position(position(board, **kwargs))


def moves_from(state, cell: str) -> set[str]:
    """Canonical tokens of the legal steps from ``cell``."""
    return {
        GAME.format_move(state, move)
        for move in RULES.legal_moves(state)
        if isinstance(move, Step) and move.origin == cell
    }


def play(state, token: str):
    return RULES.apply(state, GAME.parse_move(state, token))


def refused(state, token: str) -> str:
    with pytest.raises(IllegalMoveError) as error:
        GAME.parse_move(state, token)
    return str(error.value)


def cell(state, name: str) -> tuple[int, ...]:
    return state.cells[RULES.geometry.index[name]]


# -- the board --------------------------------------------------------------------------


def neighbours(name: str) -> set[str]:
    geometry = RULES.geometry
    return {geometry.names[i] for i in geometry.neighbours[geometry.index[name]]}


def test_the_board_has_the_spec_rings():
    geometry = RULES.geometry
    assert geometry.size == 3 * 32 + 3 * 16 + 3 * 8 + 4
    assert [ring for ring, _ in geometry.rings] == [
        "O1", "O2", "O3", "M1", "M2", "M3", "I1", "I2", "I3", "C",
    ]  # fmt: skip


def test_o3_5_touches_m1_2_and_m1_3():
    assert neighbours("O3:5") == {"O3:4", "O3:6", "O2:4", "O2:5", "O2:6", "M1:2", "M1:3"}


def test_m1_3_touches_o3_4_to_o3_7():
    assert neighbours("M1:3") == {
        "O3:4", "O3:5", "O3:6", "O3:7", "M1:2", "M1:4", "M2:2", "M2:3", "M2:4",
    }  # fmt: skip


def test_the_centre_quadrants_touch_each_other_and_the_innermost_ring():
    for quadrant in ("C1", "C2", "C3", "C4"):
        assert {"C1", "C2", "C3", "C4"} - {quadrant} <= neighbours(quadrant)
    # C1 spans twelve to three o'clock: I3:1 and I3:2 lie on it, I3:8 and I3:3 meet
    # it at its corners (twelve and three o'clock).
    assert neighbours("C1") == {"C2", "C3", "C4", "I3:8", "I3:1", "I3:2", "I3:3"}


def test_sections_wrap_round_the_circle():
    assert neighbours("O1:1") == {"O1:2", "O1:32", "O2:32", "O2:1", "O2:2"}


def test_rings_further_apart_never_touch():
    assert not any(name.startswith(("O1", "O2", "M3", "I")) for name in neighbours("M1:8"))
    assert not {n for n in neighbours("O1:7") if n.startswith(("O3", "M"))}


@given(st.sampled_from(RULES.geometry.names), st.sampled_from(RULES.geometry.names))
def test_adjacency_is_symmetric_and_irreflexive(a, b):
    geometry = RULES.geometry
    assert geometry.adjoin(a, b) == geometry.adjoin(b, a)
    assert not geometry.adjoin(a, a)


def test_coloured_rim_sections_cycle_green_yellow_blue_red():
    colours = RULES.geometry.entry_colour
    index = RULES.geometry.index
    assert [colours[index[f"O1:{s}"]] for s in (1, 3, 5, 7, 9, 31)] == [0, 1, 2, 3, 0, 3]
    assert all(colours[index[f"O1:{s}"]] == -1 for s in range(2, 33, 2))
    assert colours[index["O2:1"]] == -1


def test_the_inner_rings_are_a_board_parameter():
    rules = UniversalForcesRules(inner_sections=12)
    assert rules.geometry.size == 3 * 32 + 3 * 16 + 3 * 12 + 4
    names = rules.geometry.names
    i3_1 = {names[i] for i in rules.geometry.neighbours[rules.geometry.index["I3:1"]]}
    assert i3_1 == {"I3:2", "I3:12", "I2:12", "I2:1", "I2:2", "C4", "C1"}


# -- entries ------------------------------------------------------------------------------


def test_the_first_moves_are_the_sixteen_entries():
    state = RULES.initial(2)
    expected = {f"{'GYBR'[(s - 1) // 2 % 4]}@O1:{s}" for s in range(1, 32, 2)}
    assert {GAME.format_move(state, m) for m in RULES.legal_moves(state)} == expected
    assert len(expected) == 16


def test_an_entry_needs_an_empty_section_of_its_colour_and_a_force_in_reserve():
    state = setup("O1:1=2G", to_move=1, eliminated={1: "YYY"})
    assert "entry section O1:1 is occupied" in refused(state, "G@O1:1")
    assert "O1:3 is a yellow entry section" in refused(state, "G@O1:3")
    assert "O1:2 is no entry section" in refused(state, "G@O1:2")
    assert "no wind left in reserve" in refused(state, "Y@O1:3")
    after = play(state, "G@O1:9")
    assert cell(after, "O1:9") == (0,)
    assert after.reserve[0] == (2, 0, 3, 3)


# -- steps ----------------------------------------------------------------------------------


def test_a_force_steps_to_any_empty_adjoining_cell():
    state = setup("M2:5=1B")
    assert moves_from(state, "M2:5") == {
        f"M2:5-{n}" for n in ("M2:4", "M2:6", "M1:4", "M1:5", "M1:6", "M3:4", "M3:5", "M3:6")
    }
    assert "M2:7 does not adjoin M2:5" in refused(state, "M2:5-M2:7")


def test_no_force_enters_a_rim_section_of_another_colour():
    state = setup("O2:2=1Y")
    assert moves_from(state, "O2:2") == {
        "O2:2-O1:2", "O2:2-O1:3", "O2:2-O2:1", "O2:2-O2:3", "O2:2-O3:1", "O2:2-O3:2",
        "O2:2-O3:3",
    }  # fmt: skip
    assert "a wind cannot enter O1:1, a green entry section" in refused(state, "O2:2-O1:1")


def test_only_the_side_to_move_moves_its_own_top_force():
    state = setup("M2:5=2B,M2:9=1Y")
    assert "the water on M2:5 is Player2's" in refused(state, "M2:5-M2:6")
    assert "there is no force on M2:6" in refused(state, "M2:6-M2:7")


# -- stacks ----------------------------------------------------------------------------------


def test_a_stack_puts_an_own_force_on_an_adjoining_own_force():
    state = setup("M2:5=1B,M2:6=1G")
    after = play(state, "M2:5+M2:6")
    assert cell(after, "M2:6") == (0, 2)  # the green at the bottom, the water on top
    assert cell(after, "M2:5") == ()


def test_only_the_top_of_a_stack_moves_and_never_onto_a_third_force():
    state = setup("M2:6=1G1B,M2:7=1R,M2:13=2Y", round_number=3)
    steps = moves_from(state, "M2:6")
    assert "M2:6-M2:5" in steps
    assert "M2:6+M2:7" in steps  # the water leaves the stack to make another
    after = play(state, "M2:6-M2:5")
    assert cell(after, "M2:6") == (0,)
    state = setup("M2:6=1G1B,M2:5=1R")
    assert "M2:5+M2:6" not in moves_from(state, "M2:5")
    assert "stack of two of your forces" in refused(state, "M2:5+M2:6")


def test_no_stacks_in_the_inner_sector_nor_on_entry_sections():
    state = setup("I1:3=1B,I1:4=1G,O2:1=1G,O1:1=1G")
    assert "no stacks in the inner sector (I1:4)" in refused(state, "I1:3+I1:4")
    assert "no stacks on an entry section (O1:1)" in refused(state, "O2:1+O1:1")


# -- takes and pins ------------------------------------------------------------------------------


def test_the_strength_matrix():
    # G beats Y and B; Y beats R and B; B beats R; R beats G.
    wins = {("G", "Y"), ("G", "B"), ("Y", "R"), ("Y", "B"), ("B", "R"), ("R", "G")}
    for mover in "GYBR":
        for other in "GYBR":
            state = setup(f"M2:5=1{mover},M2:6=2{other}")
            legal = "M2:5xM2:6" in moves_from(state, "M2:5")
            assert legal == ((mover, other) in wins or mover == other), (mover, other)


def test_a_stronger_force_takes_a_lone_weaker_one():
    state = setup("M1:3=1G,M1:4=2Y")
    after = play(state, "M1:3xM1:4")
    assert cell(after, "M1:4") == (0,)
    assert after.eliminated[1] == (0, 1, 0, 0)


def test_a_weaker_force_cannot_take():
    state = setup("M1:3=1B,M1:4=2Y")
    assert refused(state, "M1:3xM1:4") == "illegal move 'M1:3xM1:4': water cannot take wind"


def test_an_equal_force_pins_and_the_pinned_force_cannot_move():
    state = setup("M1:3=1Y,M1:4=2Y")
    after = play(state, "M1:3xM1:4")
    assert cell(after, "M1:4") == (4 + 1, 1)  # Player2's wind below Player1's
    assert moves_from(after, "M1:4") == set()
    assert "your wind on M1:4 is pinned by Player1's wind" in refused(after, "M1:4-M1:5")


def test_the_pinner_may_leave_and_frees_the_pinned_force():
    state = setup("M1:4=2Y1Y,M2:13=2G")
    after = play(state, "M1:4-M1:5")
    assert cell(after, "M1:4") == (5,)
    assert "M1:4-M1:3" in moves_from(after, "M1:4")


def test_no_pins_in_the_inner_sector():
    state = setup("I1:3=1Y,I1:4=2Y")
    assert "no pins in the inner sector" in refused(state, "I1:3xI1:4")


def test_takes_are_allowed_in_the_inner_sector():
    state = setup("C1=1G,C2=2Y")
    assert cell(play(state, "C1xC2"), "C2") == (0,)


def test_forces_on_entry_sections_cannot_be_taken_or_pinned():
    state = setup("O2:1=1Y,O1:3=2Y,O2:32=1G,O1:1=2G,O2:4=1Y")
    assert "a wind cannot enter O1:1, a green entry section" in refused(state, "O2:1xO1:1")
    assert "cannot be taken or pinned" in refused(state, "O2:32xO1:1")
    assert "cannot be taken or pinned" in refused(state, "O2:4xO1:3")


def test_a_stack_stronger_than_both_is_taken_whole():
    state = setup("M2:5=1G,M2:6=2B2Y")
    after = play(state, "M2:5xM2:6")
    assert cell(after, "M2:6") == (0,)
    assert after.eliminated[1] == (0, 1, 1, 0)


def test_take_and_pin_stronger_than_the_top_equal_to_the_bottom():
    state = setup("M2:5=1G,M2:6=2G2Y")
    after = play(state, "M2:5xM2:6")
    assert cell(after, "M2:6") == (4, 0)  # Player2's green pinned by Player1's
    assert after.eliminated[1] == (0, 1, 0, 0)


def test_sacrifice_stronger_than_the_top_weaker_than_the_bottom():
    state = setup("M2:5=1G,M2:6=2R2B")
    after = play(state, "M2:5xM2:6")
    assert cell(after, "M2:6") == (4 + 3,)  # Player2's fire stays
    assert cell(after, "M2:5") == ()
    assert after.eliminated == ((1, 0, 0, 0), (0, 0, 1, 0))


def test_a_stack_top_equal_or_stronger_stops_the_mover():
    assert "cannot pin the wind on top of a stack" in refused(
        setup("M2:5=1Y,M2:6=2B2Y"), "M2:5xM2:6"
    )
    assert "water cannot take wind" in refused(setup("M2:5=1B,M2:6=2R2Y"), "M2:5xM2:6")


def test_a_side_cannot_take_a_force_its_own_force_pins():
    state = setup("M2:6=2B1B,M2:5=1G")
    assert "your own water pins the water on M2:6: move the pinner off first" in refused(
        state, "M2:5xM2:6"
    )


def test_conversion_frees_an_own_pinned_force_into_a_stack():
    state = setup("M2:6=1Y2Y,M2:5=1G")
    after = play(state, "M2:5xM2:6")
    assert cell(after, "M2:6") == (1, 0)  # own wind below, the mountain on top: a stack
    assert after.eliminated[1] == (0, 1, 0, 0)
    assert "water cannot take the wind pinning your wind" in refused(
        setup("M2:6=1Y2Y,M2:5=1B"), "M2:5xM2:6"
    )


def test_a_third_side_takes_both_forces_of_a_pin_between_two_others():
    state = setup("M2:6=3Y2Y,M2:5=1G", sides=3)
    after = play(state, "M2:5xM2:6")
    assert cell(after, "M2:6") == (0,)
    assert after.eliminated[1:] == ((0, 1, 0, 0), (0, 1, 0, 0))
    assert "cannot take the pinning wind" in refused(
        setup("M2:6=3Y2Y,M2:5=1B", sides=3), "M2:5xM2:6"
    )


# -- home -------------------------------------------------------------------------------------


def test_a_force_goes_home_from_the_quadrant_of_its_colour():
    state = setup("C2=1Y,C1=1B")
    after = play(state, "C2-H")
    assert after.home[0] == (0, 1, 0, 0)
    assert cell(after, "C2") == ()
    assert "a water goes home from C3, not from C1" in refused(state, "C1-H")
    assert "M2:5 is no centre quadrant" in refused(setup("M2:5=1G"), "M2:5-H")


def test_any_force_may_stand_on_any_quadrant():
    state = setup("I3:2=1R")
    assert "I3:2-C1" in moves_from(state, "I3:2")  # fire onto the green quadrant


# -- passes and the end of the game ------------------------------------------------------------


def test_a_side_without_an_action_must_pass():
    # Player2 has only a wind at home and the rest eliminated: nothing to move.
    state = setup("M2:5=1G", to_move=2, home={2: "Y"}, eliminated={2: "GGGYYBBBRRR"})
    assert RULES.legal_moves(state) == [PASS]
    assert RULES.forced_pass(state) == PASS
    after = RULES.apply(state, PASS)
    assert RULES.side_to_move(after) == 0 and RULES.ply(after) == RULES.ply(state) + 1
    assert "a pass is allowed only when" in RULES.illegal_reason(after, PASS)


def test_one_of_each_kind_at_home_wins_at_once():
    state = setup("C4=2R,M2:9=1G", to_move=2, home={2: "GYB"})
    after = play(state, "C4-H")
    assert after.outcome.scores == (0, 1)
    assert "Player2 has a mountain, a wind, a water and a fire at home" in after.outcome.reason
    assert RULES.legal_moves(after) == []


def test_pinning_every_opposing_force_so_none_can_move_wins():
    # Player2's last force, a water, is pinned: Player2 has nothing else to move.
    state = setup("M2:5=1B,M2:6=2B", eliminated={2: "GGGYYYBBRRR"})
    after = play(state, "M2:5xM2:6")
    assert after.outcome.scores == (1, 0)
    assert "Player1 pins every force" in after.outcome.reason


def test_no_pin_win_while_an_opponent_can_still_enter_or_move():
    after = play(setup("M2:5=1B,M2:6=2B"), "M2:5xM2:6")  # Player2 has a reserve
    assert after.outcome is None
    after = play(setup("M2:5=1B,M2:6=2B,M2:12=2G", eliminated={2: "GGYYYBBRRR"}), "M2:5xM2:6")
    assert after.outcome is None  # the mountain on M2:12 can still move


def test_no_pin_win_when_the_opponents_have_nothing_on_the_board():
    # Interpretation: a side with no force on the board is not pinned; Player2 just
    # passes (its last forces are at home or eliminated).
    state = setup("M2:5=1B", home={2: "G"}, eliminated={2: "GGYYYBBBRRR"})
    after = play(state, "M2:5-M2:6")
    assert after.outcome is None and after.stuck


def test_a_pin_by_a_third_side_does_not_win_for_the_mover():
    # Player2's only force is pinned by Player3, not by Player1.
    state = setup("M2:6=2B3B,M2:13=1G,M1:1=3G", sides=3, eliminated={2: "GGGYYYBBRRR"})
    after = play(state, "M2:13-M2:12")
    assert after.outcome is None


def test_when_no_side_can_act_most_distinct_kinds_at_home_wins():
    # Player1's last force goes home; Player2 has nothing left either.
    state = setup(
        "C2=1Y",
        home={1: "GGYY", 2: "G"},
        eliminated={1: "GBBBRRR", 2: "GGYYYBBBRRR"},
    )
    after = play(state, "C2-H")
    assert after.outcome.scores == (1, 0)
    assert after.outcome.reason.startswith("no side can move")


def test_sides_tied_for_most_at_home_share_the_draw():
    state = setup(
        "C2=1Y",
        sides=3,
        home={1: "GGYY", 2: "GB", 3: "R"},
        eliminated={1: "GBBBRRR", 2: "GGYYYBBRRR", 3: "GGGYYYBBBRR"},
    )
    after = play(state, "C2-H")
    assert after.outcome.scores == (HALF, HALF, 0)
    assert after.outcome.result_token() == "1/2-1/2-0"


def test_the_round_limit_ends_the_game_after_n_full_rounds():
    game = GAME.configure({"RoundLimit": "1"})
    state = game.rules.initial(3)
    for token in ("G@O1:1", "Y@O1:3", "B@O1:5"):
        assert state.outcome is None
        state = game.rules.apply(state, game.parse_move(state, token))
    assert state.outcome.scores == (HALF, HALF, HALF)
    assert state.outcome.reason.startswith("round limit reached (1 rounds)")


def test_the_round_limit_gives_the_win_to_most_distinct_kinds_at_home():
    game = GAME.configure({"RoundLimit": "5"})
    state = setup("C2=1Y,M2:9=2G", game=game, to_move=2, round_number=5, home={1: "G"})
    state = game.rules.apply(state, game.parse_move(state, "M2:9-M2:10"))
    assert state.outcome.scores == (1, 0)


def test_masters_level_records_are_refused_with_the_reason():
    with pytest.raises(TagError, match="masters' level rules .* are not in the rulebook"):
        GAME.configure({"Level": "masters"})
    assert GAME.configure({"Level": "basic"}).rules.round_limit is None
    with pytest.raises(TagError, match="level 'expert'"):
        GAME.configure({"Level": "expert"})


@pytest.mark.parametrize("value", ["0", "-3", "ten", "07", "1.5", ""])
def test_round_limit_must_be_a_positive_whole_number(value):
    with pytest.raises(TagError, match="RoundLimit"):
        GAME.configure({"RoundLimit": value})


# -- numbering, keys, set-up ------------------------------------------------------------------


def test_moves_are_numbered_in_rounds_of_all_sides_and_passes_are_plies():
    state = RULES.initial(3)
    numbers = []
    for token in ("G@O1:1", "Y@O1:3", "B@O1:5", "R@O1:7"):
        numbers.append(RULES.move_number(state))
        state = play(state, token)
    assert numbers == [(1, True), (1, False), (1, False), (2, True)]
    state = setup("M2:5=1G", to_move=2, home={2: "Y"}, eliminated={2: "GGGYYBBBRRR"})
    assert RULES.move_number(state) == (1, False)
    assert RULES.move_number(RULES.apply(state, PASS)) == (2, True)


def test_the_key_holds_the_round_only_with_a_round_limit():
    a = setup("M2:5=1G", round_number=3)
    b = setup("M2:5=1G", round_number=4)
    assert RULES.key(a) == RULES.key(b)
    limited = GAME.configure({"RoundLimit": "9"})
    assert limited.rules.key(limited.parse_position(position("M2:5=1G", round_number=3))) != (
        limited.rules.key(limited.parse_position(position("M2:5=1G", round_number=4)))
    )
    assert RULES.key(setup("M2:5=1G1B")) != RULES.key(setup("M2:5=1B1G"))


@pytest.mark.parametrize(
    ("board", "kwargs", "words"),
    [
        ("I2:3=1G1B", {}, "stack, but there is none in the inner sector"),
        ("M2:5=1G2Y", {}, "a wind cannot pin a mountain"),
        ("O1:1=1Y", {}, "green entry section"),
        ("O1:2=1Y2Y", {}, ""),  # a pin on an uncoloured rim section is fine
        ("M2:5=1G1B1Y", {}, "two at most"),
        ("", {"home": {1: "GYBR"}}, "already decided"),
        ("M2:5=1G", {"sides": 3}, "describes 3 sides"),
    ],
)
def test_impossible_set_up_positions_are_refused(board, kwargs, words):
    text = position(board, **kwargs)
    if "sides" in kwargs:
        with pytest.raises(SetupError, match=words):
            GAME.parse_position(text, 2)
        return
    if not words:
        GAME.parse_position(text)
        return
    with pytest.raises(SetupError, match=words):
        GAME.parse_position(text)


def test_forces_of_a_side_that_does_not_play_are_refused():
    with pytest.raises(SetupError, match="force of side 3, there are 2"):
        GAME.parse_position("M2:5=3G 1:GGGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 1 1")


def test_counts_must_add_up_to_three_of_each_kind():
    with pytest.raises(SetupError, match="Player1 has 4 mountain forces"):
        GAME.parse_position("M2:5=1G 1:GGGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 1 1")


def test_a_round_past_the_limit_is_refused():
    game = GAME.configure({"RoundLimit": "4"})
    with pytest.raises(SetupError, match="past the round limit"):
        game.parse_position(position("M2:5=1G", round_number=5))


def test_the_checked_path_refuses_moves_after_the_end():
    state = play(setup("C4=2R,M2:9=1G", to_move=2, home={2: "GYB"}), "C4-H")
    assert RULES.illegal_reason(state, Step("M2:9", "M2:10")).startswith("the game is over")
    assert RULES.illegal_reason(RULES.initial(2), Entry("G", "O1:2")) is not None


def test_a_home_win_on_the_last_ply_of_the_last_round_is_a_home_win():
    game = GAME.configure({"RoundLimit": "3"})
    state = setup("C4=2R,M2:9=1G", game=game, to_move=2, round_number=3, home={2: "GYB"})
    after = game.rules.apply(state, game.parse_move(state, "C4-H"))
    assert after.outcome.scores == (0, 1)
    assert "at home" in after.outcome.reason and "round limit" not in after.outcome.reason


def test_a_set_up_pin_win_counts_for_the_side_that_moved_last():
    # Player1 (who moved last, Player2 being to move) pins Player2's only force.
    with pytest.raises(SetupError, match="already decided: Player1 pins every force"):
        setup("M2:6=2B1B,M2:9=1G", eliminated={2: "GGGYYYBBRRR"}, to_move=2)
