"""Circular Reasoning: one test per rule of the rulebook and per reading of the spec.

Each test sets up a position in position notation and checks the legal moves (as
canonical tokens) or the outcome. The expected values were worked out by hand from
the rulebook (/work/shared/rules/circular-reasoning.txt) and the spec
(/work/shared/spec/circular-reasoning.md); the comments show the counting.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from budget import examples

from partita.errors import IllegalMoveError, TagError
from partita.games.circular_reasoning.notation import CIRCULAR_REASONING, CircularReasoningNotation
from partita.games.circular_reasoning.rules import (
    GOAL,
    PASS,
    RESERVE,
    BoardLayout,
    CircularReasoningRules,
    Move,
    parse_cell,
)
from partita.notation.reader import parse_record
from partita.notation.replay import replay

CR = CIRCULAR_REASONING
ADVANCED = CR.configure({"Variant": "advanced"})


def legal(position: str, game: CircularReasoningNotation = CR, shape: str = "") -> set[str]:
    """The canonical tokens of the legal moves in ``position`` (of one token shape
    if ``shape`` is given)."""
    state = game.parse_position(position)
    return {
        game.format_move(state, move)
        for move in game.rules.legal_moves(state)
        if not shape or getattr(move, "shape", "") == shape
    }


def after(position: str, *tokens: str, game: CircularReasoningNotation = CR) -> str:
    """The position after playing ``tokens`` (checked) from ``position``."""
    state = game.parse_position(position)
    for token in tokens:
        state = game.rules.apply(state, game.parse_move(state, token))
    return game.format_position(state)


def refusal(position: str, token: str, game: CircularReasoningNotation = CR) -> str:
    state = game.parse_position(position)
    with pytest.raises(IllegalMoveError) as error:
        game.parse_move(state, token)
    return str(error.value)


# -- the start, entering, exact movement values ------------------------------------------------


def test_initial_position_and_first_moves():
    state = CR.initial(2)
    assert CR.format_position(state) == "1:C@,T@,S@ 2:C@,T@,S@ / O9 M5 I13 / 1 P1"
    # Placing on the entrance O1 is the first step; the rest go either way:
    # circle 1 more (O2 / O16), triangle 2 (O3 / O15), square 3 (O4 / O14).
    assert legal("1:C@,T@,S@ 2:C@,T@,S@ / O9 M5 I13 / 1 P1") == {
        "@C>O2",
        "@C<O16",
        "@T>O3",
        "@T<O15",
        "@S>O4",
        "@S<O14",
    }


def test_jumping_occupied_segments_does_not_count():
    # Red's triangle on O3 jumps blue's tokens on O4 and O5 for free: O6, O7, O8.
    # Red's square enters on O1 (1), steps to O2 (2), jumps O3-O5, O6 (3), O7 (4).
    position = "1:C@,TO3,S@ 2:CO4,TO5,S@ / O12 M1 I9 / 3 P1"
    assert legal(position) == {
        "T>O8",
        "T<O16",
        "@C>O2",
        "@C<O16",
        "@S>O7",
        "@S<O14",
    }


def test_an_occupied_entrance_keeps_reserve_tokens_out():
    # Blue's circle stands on the entrance O1: red can move only its triangle.
    position = "1:C@,TO3,S@ 2:CO1,T@,S@ / O12 M1 I9 / 3 P1"
    assert legal(position) == {"T>O6", "T<O15"}  # O2, then O1 jumped: O16, O15
    assert "Player Entrance O1 is occupied" in refusal(position, "@C>O2")


def test_a_token_uses_exactly_its_value():
    # The circle moves 2, never 1 or 3.
    position = "1:CO5,TG,SG 2:C@,T@,S@ / O12 M1 I9 / 3 P1"
    assert legal(position) == {"C>O7", "C<O3"}
    message = refusal(position, "C>O6")
    assert "cannot reach O6 from O5 with exactly 2 steps" in message
    assert "O3, O7" in message


# -- gateways ------------------------------------------------------------------------------


def test_going_through_a_gateway_is_optional_and_the_direction_is_chosen_after_it():
    # Red's triangle stands on O9 with the large gateway: through it to M9 (1), then
    # either way on the middle track: M10, M11 or M8, M7. Or stay outside.
    position = "1:CG,TO9,SG 2:C@,T@,S@ / O9 M1 I5 / 3 P1"
    assert legal(position) == {"T>M11", "T<M7", "T>O12", "T<O6"}


def test_after_a_later_pass_the_direction_goes_on():
    # From O8 clockwise: O9 (1), through the large gateway to M9 (2), on clockwise
    # to M10 (3). Turning back to M8 is not allowed.
    position = "1:CG,TO8,SG 2:C@,T@,S@ / O9 M1 I5 / 3 P1"
    assert legal(position) == {"T>M10", "T>O11", "T<O5"}
    assert refusal(position, "T<M8") == (
        "illegal move 'T<M8': the red triangle cannot reach M8 from O8: the direction is "
        "kept for the whole turn; it is chosen after a gateway pass only when that pass is "
        "the turn's first step"
    )


def test_a_gateway_is_blocked_when_its_far_side_is_occupied():
    # Blue's circle on M9 blocks the large gateway for red's triangle on O9; no
    # jumping through a gateway.
    position = "1:CG,TO9,SG 2:CM9,T@,S@ / O9 M1 I5 / 3 P1"
    assert legal(position) == {"T>O12", "T<O6"}
    assert refusal(position, "T>M11") == (
        "illegal move 'T>M11': the red triangle cannot reach M11 from O9: the large gateway "
        "is blocked, M9 on its far side is taken by the blue circle (no jumping through a "
        "gateway)"
    )


def test_a_token_on_the_near_side_does_not_block():
    # The spec reads "a token on either side ... you are blocked" as the far side
    # only: the mover itself always stands on the near side, and blue's token on the
    # segment right after O9 is simply jumped on the outer track.
    position = "1:CG,TO9,SG 2:CO10,T@,S@ / O9 M1 I5 / 3 P1"
    assert legal(position) == {"T>M11", "T<M7", "T>O13", "T<O6"}


def test_each_gateway_once_per_turn_and_two_gateways_in_one_turn():
    # Red's square on O9, large gateway O9, medium M10:
    # clockwise: O10-O13; or M9 (1), M10 (2), M11 (3), M12 (4); or M9 (1), M10 (2),
    # through the medium gateway to I10 (3), I11 (4).
    # counter-clockwise: O8-O5; or M9 (1), M8, M7, M6.
    # Back out through the large gateway in the same turn is not allowed (that would
    # give O11 by M9, O9, O10, O11).
    position = "1:CG,TG,SO9 2:C@,T@,S@ / O9 M10 I1 / 3 P1"
    assert legal(position) == {"S>O13", "S>M12", "S>I11", "S<O5", "S<M6"}
    assert refusal(position, "S>O11") == (
        "illegal move 'S>O11': the red square cannot reach O11 from O9: a token goes "
        "through each gateway at most once in a turn"
    )


def test_outward_passes_through_a_gateway_used_in_an_earlier_turn():
    # "Only once with the same token" is read per turn: red's triangle, which came
    # in through the large gateway earlier, may go back out through it.
    # Out to O9 (1), then O10, O11 or O8, O7; or along the middle track.
    position = "1:CG,TM9,SG 2:C@,T@,S@ / O9 M1 I5 / 3 P1"
    assert legal(position) == {"T>O11", "T<O7", "T>M12", "T<M6"}


def test_a_token_may_go_out_through_the_medium_gateway():
    # Red's circle on I4, the medium gateway on M4: out to M4 (1), then M5 or M3;
    # or along the inner track: I6, I2.
    position = "1:CI4,TG,SG 2:C@,T@,S@ / O9 M4 I13 / 3 P1"
    assert legal(position) == {"C>M5", "C<M3", "C>I6", "C<I2"}


# -- the Goal Area ---------------------------------------------------------------------------


def test_basic_play_drops_left_over_steps_in_the_goal_area():
    # Red's square on I13 with the small gateway: into the Goal Area with its first
    # step, three steps dropped. A move of gateway steps only is written with '>'.
    position = "1:C@,T@,SI13 2:C@,T@,S@ / O12 M1 I13 / 3 P1"
    assert legal(position, shape="S") == {"S>G", "S>I1", "S<I9"}
    state = CR.parse_position(position)
    assert CR.parse_move(state, "S<G") == CR.parse_move(state, "S>G") == Move("S", GOAL)
    assert after(position, "S>G") == "1:C@,T@,SG 2:C@,T@,S@ / O12 M1 I13 / 3 P2"


def test_advanced_play_refuses_left_over_steps():
    position = "1:C@,T@,SI13 2:C@,T@,S@ / O12 M1 I13 / 3 P1"
    assert legal(position, game=ADVANCED, shape="S") == {"S>I1", "S<I9"}
    assert "advanced play needs the exact count" in refusal(position, "S>G", game=ADVANCED)


def test_advanced_play_accepts_the_exact_count():
    # Square on I9: I10 (1), I11 (2), I12 jumped, I13 (3), into the Goal Area (4):
    # exact. Circle on I12: I13 (1), Goal Area (2): exact. Triangle on I8: I9
    # jumped, I10 (1), I11 (2), I12 jumped, I13 (3): its last step, so it stays.
    position = "1:CI12,TI8,SI9 2:C@,T@,S@ / O1 M1 I13 / 3 P1"
    assert "S>G" in legal(position, game=ADVANCED, shape="S")
    assert "C>G" in legal(position, game=ADVANCED, shape="C")
    assert "T>G" not in legal(position, game=ADVANCED, shape="T")
    assert legal(position, game=ADVANCED, shape="T") == {"T>I13", "T<I5"}


def test_tokens_in_the_goal_area_move_no_more():
    position = "1:CG,TO3,S@ 2:C@,T@,S@ / O12 M1 I5 / 3 P1"
    assert "C" not in {token.lstrip("@")[0] for token in legal(position)}
    assert "in the Goal Area and moves no more" in refusal(position, "C>O5")


def test_all_three_tokens_in_the_goal_area_win_at_once():
    # Red's square: I12 (1), I13 (2), through the small gateway (3), one step
    # dropped. Three sides: the result has one field each.
    position = "1:CG,TG,SI11 2:C@,T@,S@ 3:CO3,T@,S@ / O12 M1 I13 / 5 P1"
    state = CR.parse_position(position)
    won = CR.rules.apply(state, CR.parse_move(state, "S>G"))
    outcome = CR.rules.outcome(won)
    assert outcome.scores == (Fraction(1), Fraction(0), Fraction(0))
    assert outcome.result_token() == "1-0-0"
    assert outcome.reason == "red (Player1) has all three tokens in the Goal Area"
    assert CR.rules.legal_moves(won) == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        CR.rules.play(won, Move("C", parse_cell("O5")))


# -- rounds, gateway motion, passes --------------------------------------------------------------


def test_gateways_move_after_the_round_by_the_tokens_on_their_own_track():
    # Round 4 of two sides opens with Player2, so red plays its last ply. After
    # C>O6: outer track red C, blue C, blue T (3): large O9 -> O12; middle red T
    # (1): medium M5 -> M6; inner blue S (1): small I13 -> I14. Red's square in the
    # Goal Area counts for none. Round 5 opens with Player1.
    position = "1:CO3,TM7,SG 2:CO5,TO7,SI2 / O9 M5 I13 / 4 P1"
    assert after(position, "C>O6") == "1:CO6,TM7,SG 2:CO5,TO7,SI2 / O12 M6 I14 / 5 P1"


def test_a_gateway_on_an_empty_track_stays_and_none_moves_mid_round():
    # Blue opens round 4 (no motion after its ply); red closes it: 2 tokens on the
    # outer track (large O16 -> O2, past O16), none on the middle and inner tracks.
    position = "1:CO3,TG,SG 2:CO5,T@,S@ / O16 M5 I13 / 4 P2"
    middle = after(position, "C>O7")
    assert middle == "1:CO3,TG,SG 2:CO7,T@,S@ / O16 M5 I13 / 4 P1"
    assert after(middle, "C>O5") == "1:CO5,TG,SG 2:CO7,T@,S@ / O2 M5 I13 / 5 P1"


def test_the_first_player_of_round_r_rotates():
    # Round r opens with seat ((r - 1) mod N) + 1.
    rules = CR.rules
    for sides, openers in ((2, [1, 2, 1, 2, 1]), (3, [1, 2, 3, 1, 2]), (4, [1, 2, 3, 4, 1])):
        state = rules.initial(sides)
        seen = []
        for round_number in range(1, 6):
            assert rules.move_number(state) == (round_number, True)
            seen.append(rules.side_to_move(state) + 1)
            order = []
            for turn in range(sides):
                order.append(rules.side_to_move(state) + 1)
                if turn:
                    assert rules.move_number(state) == (round_number, False)
                state = rules.apply(state, rules.legal_moves(state)[0])
            assert sorted(order) == list(range(1, sides + 1))
        assert seen == openers


def test_a_side_with_no_move_passes():
    # Red has two tokens in the Goal Area and its square in the reserve, and blue's
    # circle stands on the entrance: red must pass.
    position = "1:CG,TG,S@ 2:CO1,T@,S@ / O12 M1 I5 / 3 P1"
    state = CR.parse_position(position)
    assert CR.rules.legal_moves(state) == [PASS]
    assert CR.rules.forced_pass(state) == PASS
    assert CR.format_move(state, PASS) == "--"
    assert after(position, "--") == "1:CG,TG,S@ 2:CO1,T@,S@ / O12 M1 I5 / 3 P2"
    # With a move available a pass is refused.
    assert "only when no move is possible" in refusal(
        "1:CG,TG,S@ 2:CO4,T@,S@ / O12 M1 I5 / 3 P1", "--"
    )


def test_a_forced_pass_may_be_omitted_in_a_record():
    text = (
        '[Game "circular-reasoning"]\n[Player1 "A"]\n[Player2 "B"]\n[Result "*"]\n'
        '[SetUp "1"]\n[Position "1:CG,TG,S@ 2:CO1,T@,S@ / O12 M1 I5 / 3 P1"]\n\n'
        "3. -- C>O3 4. @S>O5 *\n"
    )
    replayed = replay(parse_record(text), strict=True)
    assert replayed.problems == []
    # blue's circle O1 -> O2, O3; round 4 opens with blue: its square enters on
    # O1 (1), O2 (2), jumps O3, O4 (3), O5 (4)
    assert replayed.moves == ["--", "C>O3", "@S>O5"]
    omitted = replay(parse_record(text.replace("3. -- C>O3", "3... C>O3")), strict=True)
    assert omitted.problems == []
    assert omitted.moves == ["--", "C>O3", "@S>O5"]


# -- the spec's movetext example ----------------------------------------------------------------


SPEC_RECORD = """[Game "circular-reasoning"]
[Player1 "Ann"]
[Player2 "Bob"]
[Result "*"]

1. @T>O3 @T>O4 *
"""


def test_the_spec_example_replays_to_the_position_it_describes():
    replayed = replay(parse_record(SPEC_RECORD), strict=True)
    assert replayed.problems == []
    assert replayed.moves == ["@T>O3", "@T>O4"]
    # Triangles on O3 (red) and O4 (blue, O3 jumped); two tokens on the outer
    # track move the large gateway O9 -> O11; round 2 opens with Player2.
    assert replayed.final_position == "1:C@,TO3,S@ 2:C@,TO4,S@ / O11 M5 I13 / 2 P2"
    state = replayed.final_state
    assert CR.rules.side_to_move(state) == 1
    assert CR.rules.move_number(state) == (2, True)
    assert state.tokens == (RESERVE, parse_cell("O3"), RESERVE, RESERVE, parse_cell("O4"), RESERVE)


def test_round_two_opens_with_player2_in_the_record():
    text = SPEC_RECORD.replace("1. @T>O3 @T>O4 *", "1. @T>O3 @T>O4 2. @C>O2 @C>O5 3. C>O7 *")
    replayed = replay(parse_record(text), strict=True)
    assert replayed.problems == []
    # round 2: blue's circle enters O1 and steps to O2; red's enters O1, jumps O2-O4
    # and lands on O5. Four tokens on the outer track: O11 -> O15. Round 3: red opens
    # and moves its circle O5 -> O6, O7.
    assert replayed.final_position == "1:CO7,TO3,S@ 2:CO2,TO4,S@ / O15 M5 I13 / 3 P2"
    wrong = replay(parse_record(text.replace("2. @C>O2 @C>O5", "2. @C>O2 2. @C>O5")))
    assert [p.kind for p in wrong.problems] == ["move-number"]


# -- configuration --------------------------------------------------------------------------------


def test_layout_tag_places_the_entrance_and_gateways():
    game = CR.configure({"Layout": "entrance=O5 large=O1 medium=M9 small=I3"})
    assert game.format_position(game.initial(2)) == "1:C@,T@,S@ 2:C@,T@,S@ / O1 M9 I3 / 1 P1"
    state = game.initial(2)
    assert game.format_move(state, Move("C", parse_cell("O6"))) == "@C>O6"
    # Places not named keep the default.
    assert BoardLayout.parse("large=O2") == BoardLayout(0, 1, 4, 12)
    assert CR.configure({}).rules is CR.rules


@pytest.mark.parametrize(
    ("layout", "says"),
    [
        ("entrance=M1", "the entrance must be a segment of the outer track, not M1"),
        ("large=M9", "the large gateway lies on the outer track (O1-O16), not on M9"),
        ("small=O3", "the small gateway lies on the inner track"),
        ("medium=M17", "segments run from 1 to 16"),
        ("door=O3", "'door' is no place of the board"),
        ("large=O9 large=O10", "'large' is given twice"),
        ("large", "'large' is not of the form place=cell"),
        ("", "the layout is empty"),
    ],
)
def test_bad_layouts_are_refused_with_the_reason(layout, says):
    with pytest.raises(TagError) as error:
        CR.configure({"Layout": layout})
    assert says in str(error.value)


def test_colors_tag():
    game = CR.configure({"Colors": "white red", "Player1": "A", "Player2": "B"})
    state = game.parse_position("1:CO3,T@,S@ 2:C@,T@,S@ / O9 M5 I13 / 1 P2")
    assert "wT" not in game.diagram(state) and "wC" in game.diagram(state)
    assert "red (Player2) to move" in game.diagram(state)
    for colors, says in [
        ("red pink", "'pink' is no colour"),
        ("red red", "a colour is given twice"),
        ("red blue green", "names 3 colours for 2 sides"),
    ]:
        with pytest.raises(TagError, match=says):
            CR.configure({"Colors": colors, "Player1": "A", "Player2": "B"})


def test_variant_tag():
    assert isinstance(ADVANCED.rules, CircularReasoningRules) and ADVANCED.rules.exact_goal
    with pytest.raises(TagError, match="Variant 'expert' is not one of basic, advanced"):
        CR.configure({"Variant": "expert"})


# -- keys and the diagram --------------------------------------------------------------------------


def test_key_keeps_the_rotation_not_the_round():
    # Rounds 3 and 5 of two sides open with the same seat: same future, same key.
    a = CR.parse_position("1:CO3,T@,S@ 2:CO5,T@,S@ / O9 M5 I13 / 3 P1")
    b = CR.parse_position("1:CO3,T@,S@ 2:CO5,T@,S@ / O9 M5 I13 / 5 P1")
    c = CR.parse_position("1:CO3,T@,S@ 2:CO5,T@,S@ / O9 M5 I13 / 4 P1")
    assert CR.rules.key(a) == CR.rules.key(b) != CR.rules.key(c)
    assert isinstance(CR.rules.key(a), bytes)


def test_text_diagram():
    state = CR.parse_position("1:CG,TO3,S@ 2:C@,TM9,S@ / O11 M5 I13 / 2 P2")
    lines = CR.diagram(state).splitlines()
    assert lines[0].split() == [str(n) for n in range(1, 17)]
    assert lines[1].startswith("O")
    assert " rT " in lines[1] and "[ .]" in lines[1] and lines[1].startswith("O     .*")
    assert " bT " in lines[2] and "[ .]" in lines[2]
    assert lines[4] == "G   rC"
    assert lines[5] == "reserve: red S, blue CS"
    assert lines[-1] == "round 2: blue (Player2) to move"
    # the two characters of a cell stand under its segment number
    assert lines[0].index(" 3 ") == lines[1].index("rT")


def test_the_explaining_search_agrees_with_the_engine_when_nothing_is_relaxed():
    import random

    from partita.games.circular_reasoning.rules import _reach, _relaxed_reach

    rng = random.Random(5)
    for variant in ("basic", "advanced"):
        rules = CircularReasoningRules(variant)
        for _ in range(examples(20, fast=5)):
            state = rules.initial(rng.choice((2, 3, 4)))
            while rules.outcome(state) is None:
                for index in range(len(state.tokens)):
                    args = (state.tokens, state.gates, index, 0, rules.exact_goal)
                    assert set(_reach(*args)) == _relaxed_reach(*args)
                state = rules.apply(state, rng.choice(rules.legal_moves(state)))
