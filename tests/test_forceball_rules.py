"""Forceball: one test per rule of the rulebook and per answer of its Questions and
Answers (named "Q&A: ..."), grouped by league and section, plus the spec's readings.

Positions are set up in position notation (tests/forceball_table.py, a hand-made
deck whose ids say what a card is: ``s2`` Shot 4/2, ``st`` combo Shot/Tackle 4/2,
``sx`` a Dribble with the Stress symbol...). Expected values are worked out by hand.
"""

from __future__ import annotations

import random

import pytest
from forceball_table import DECK, GAMES, discard, hand, ids, maneuvers, play, refused, table

from partita.game.rules import CHANCE
from partita.games.forceball.notation import ForceballNotation
from partita.games.forceball.values import FACEOFF, OVER, SHUFFLE, TURN, FaceOff, Shuffle

ORDER = ["s1", "i1", "s2", "b1", "p1", "t1", "d1", "b2", "p2", "t2", "d2", "i3", "s3", "pb"]
REST = [card for card in (c.id for c in DECK.cards) if card not in ORDER]


def shuffled(league: str, first_attacker: str | None = None):
    game = GAMES[league]
    if first_attacker:
        rules = game.rules.configure({"League": league, "FirstAttacker": first_attacker})
        game = ForceballNotation(rules)
    state = game.rules.initial()
    return game, game.rules.apply(state, Shuffle(tuple(ORDER + REST)))


# == Setup (spec: dealing) =================================================================


def test_deal_is_seven_each_one_at_a_time_player1_first():
    game, state = shuffled("little")
    assert hand(state, 0) == sorted(["s1", "s2", "p1", "d1", "p2", "d2", "s3"])
    assert hand(state, 1) == sorted(["i1", "b1", "t1", "b2", "t2", "i3", "pb"])
    assert ids(state.draw) == REST  # the rest is the draw pile, top first
    assert state.dealt == len(REST)
    assert state.period == 1


def test_little_league_first_attacker_tag():
    _, state = shuffled("little")
    assert (state.phase, state.to_move, state.attacker) == (TURN, 0, 0)
    _, state = shuffled("little", "2")
    assert (state.phase, state.to_move, state.attacker) == (TURN, 1, 1)


def test_later_leagues_open_a_period_with_a_face_off():
    for league in ("junior", "senior", "pro"):
        _, state = shuffled(league)
        assert (state.phase, state.to_move) == (FACEOFF, CHANCE)


def test_a_shuffle_must_order_every_card_once():
    game = GAMES["junior"]
    state = game.rules.initial()
    assert "leaves out" in game.rules.illegal_reason(state, Shuffle(tuple(ORDER)))
    twice = Shuffle(tuple(ORDER + REST[:-1] + ["s1"]))
    assert "twice" in game.rules.illegal_reason(state, twice)


# == Little league: turn order =============================================================


class TestLittleTurnOrder:
    league = "little"

    def test_the_draw_is_optional(self):
        state = table(self.league, hand1="s1", speed1="p1", draw="d1")
        after = play(state, "@s1", league=self.league)
        assert ids(after.draw) == ["d1"]
        after = play(state, ">@s1", league=self.league)
        assert ids(after.draw) == []
        assert hand(after, 0) == ["d1"]

    def test_an_empty_hand_must_draw(self):
        state = table(self.league, hand1="", speed1="p1", draw="s1")
        assert "hand is empty" in refused(state, "/", self.league)
        after = play(state, ">@s1", league=self.league)
        assert maneuvers(after, 0) == ["s1"]

    def test_increase_the_speed_by_one_card_per_turn(self):
        state = table(self.league, hand1="s1,p1,d1")
        assert "your speed is 0 and it needs 1" in refused(state, "@s1", self.league)
        after = play(state, "+p1@s1", league=self.league)
        assert ids(after.speed[0]) == ["p1"]
        assert "only once per turn" in refused(state, "+p1+d1@s1", self.league)

    def test_other_speed_adjustments_are_junior_rules(self):
        state = table(self.league, hand1="s1,p1", speed1="d1")
        assert "junior league rule" in refused(state, "-@s1", self.league)
        assert "junior league rule" in refused(state, "~p1@s1", self.league)
        assert "junior league rule" in refused(state, "%1@s1", self.league)
        assert "junior league rule" in refused(state, "#p1>1@s1", self.league)

    def test_the_attacker_makes_only_attack_maneuvers(self):
        state = table(self.league, hand1="i1,s1", speed1="d1")
        message = refused(state, "@i1", self.league)
        assert "as the attacker you make only Shot, Pass, Dribble" in message

    def test_the_defender_makes_only_defence_maneuvers(self):
        state = table(self.league, next="2", hand2="s1,b1", speed2="d2", pile1="p1")
        assert "as the defender" in refused(state, "@s1", self.league)
        after = play(state, "@b1", league=self.league)
        assert after.piles[1][0].type == "Block"

    def test_qa_defender_with_a_shot_tackle_combo_makes_the_tackle(self):
        # Q&A (General): a defender's combo Shot/Tackle is a Tackle, never a Shot
        state = table(self.league, next="2", hand2="st", speed2="d1,d2", pile1="p1")
        after = play(state, "@st", league=self.league)
        assert after.piles[1][0].type == "Tackle"
        senior = table("senior", next="2", hand2="st", speed2="d1,d2", pile1="p1")
        assert "is a Shot" in refused(senior, "@st=S")

    def test_qa_speed_two_plays_speed_one_and_two_not_three(self):
        # Q&A (General): speed 2 plays speed requirements 1 and 2 but not 3
        state = table(self.league, hand1="s1,s2,s3", speed1="p1,d1")
        play(state, "@s1", league=self.league)
        play(state, "@s2", league=self.league)
        assert "s3 cannot be played as a Shot: your speed is 2 and it needs 3" in refused(
            state, "@s3", self.league
        )

    def test_force_must_equal_or_beat_the_last_maneuver(self):
        state = table(self.league, next="2", hand2="b1,b2,i1", speed2="d1,d2", pile1="p2")
        # p2 has force 3: b2 (3) is equal and enough, b1 (2) is too weak
        play(state, "@b2", league=self.league)
        message = refused(state, "@b1", self.league)
        assert "b1 cannot be played as a Block: its force is 2 and the force to beat is 3" in (
            message
        )

    def test_no_force_increases_in_the_little_league(self):
        state = table(self.league, next="2", hand2="b1", speed2="d1,d2", pile1="p2")
        assert "junior league rule" in refused(state, "@b1^1", self.league)

    def test_the_game_escalates_turn_by_turn(self):
        state = table(self.league, hand1="p1,p2", hand2="b1,b2", speed1="d1,d2", speed2="t1,t2")
        state = play(state, "@p1", "@b1", "@p2", league=self.league)
        assert state.to_move == 1
        assert GAMES[self.league].rules.force_to_beat(state) == 3
        assert [m.type for m in state.piles[0]] == ["Pass", "Pass"]


# == Little league: end of the attack =======================================================


class TestLittleEndOfTheAttack:
    league = "little"

    def test_shot_scores_one_and_gives_the_ball_and_speed_piles_go_to_the_hands(self):
        state = table(self.league, next="2", hand2="b1", speed1="d1", speed2="t1", pile1="s1")
        after = play(state, "/", league=self.league)
        assert after.scores == (1, 0)
        assert after.attacker == 1 and after.to_move == 1
        assert hand(after, 0) == ["d1"] and hand(after, 1) == ["b1", "t1"]
        assert after.speed == ((), ())
        assert "s1" in discard(after) and after.piles == ((), ())

    def test_qa_two_turns_in_a_row_across_attacks(self):
        # Q&A (General): P2 took the attack's last turn and attacks the next one
        state = table(self.league, next="2", hand2="b1,i1", speed2="t1", pile1="s1")
        after = play(state, "/", league=self.league)
        assert after.to_move == 1
        # ... and within an attack the turns alternate
        state = table(self.league, hand1="p1", hand2="b1", speed1="d1", speed2="t1")
        assert play(state, "@p1", league=self.league).to_move == 1

    def test_interception_takes_the_ball(self):
        state = table(self.league, hand1="p1", speed1="d1", pile1="p2", pile2="i1")
        after = play(state, "/", league=self.league)
        assert (after.attacker, after.to_move, after.scores) == (1, 1, (0, 0))

    def test_pass_or_block_draws_up_to_three_and_the_attacker_keeps_the_ball(self):
        state = table(
            self.league, next="2", hand2="b1", pile1="p1", speed2="t1", draw="s1,s2,s3,d1"
        )
        after = play(state, "/>3", league=self.league)
        assert hand(after, 0) == ["s1", "s2", "s3"]
        assert ids(after.draw) == ["d1"] and after.attacker == 0 and after.to_move == 0
        assert "the reward of a Pass or Block is 1 to 3 draws" in refused(state, "/>4", self.league)
        blocked = table(self.league, hand1="p1", pile1="p2", pile2="b1", draw="s1,s2")
        after = play(blocked, "/>2", league=self.league)
        assert hand(after, 1) == ["s1", "s2"] and after.attacker == 0

    def test_dribble_or_tackle_draws_two_onto_the_speed_pile_in_any_order(self):
        state = table(self.league, next="2", hand2="b1", pile1="d1", draw="s1,s2,s3")
        after = play(state, "/>s2,s1", league=self.league)
        assert ids(after.speed[0]) == ["s2", "s1"]  # s1 last: on top
        after = play(state, "/>s1,s2", league=self.league)
        assert ids(after.speed[0]) == ["s1", "s2"]
        assert "top of the draw pile is s1, s2" in refused(state, "/>s1,s3", self.league)
        assert "up to 2" in refused(state, "/>s1,s2,s3", self.league)
        assert "Player1 won with a Dribble" in refused(state, "/>2", self.league)

    def test_the_attacker_who_makes_no_first_maneuver_loses_the_ball(self):
        state = table(self.league, hand1="p1", hand2="b1")
        after = play(state, "/", league=self.league)
        assert (after.attacker, after.to_move) == (1, 1)
        assert "won without a maneuver and just takes the ball" in refused(
            state, "/>1", self.league
        )

    def test_a_standing_maneuver_cannot_also_end_the_attack(self):
        state = table(self.league, hand1="p1", speed1="d1")
        assert "your maneuver stands" in refused(state, "@p1/", self.league)

    def test_maneuver_piles_are_discarded_after_the_attack(self):
        state = table(self.league, hand1="p1", pile1="p2", pile2="b2", draw="s1")
        after = play(state, "/", league=self.league)
        assert {"p2", "b2"} <= set(discard(after))
        assert after.piles == ((), ())


# == Periods (little: one period; junior on: three) ========================================


class TestPeriods:
    def test_qa_drawing_the_last_card_does_not_end_the_period(self):
        # Q&A (General): the period ends only when a draw finds the pile empty
        state = table("little", hand1="p1", speed1="d1", draw="s1")
        after = play(state, ">@p1", league="little")
        assert after.phase == TURN and ids(after.draw) == []

    def test_drawing_from_the_empty_pile_ends_the_little_game(self):
        state = table("little", hand1="p1", score="1-0", draw="")
        after = play(state, ">", league="little")
        assert after.phase == OVER
        outcome = GAMES["little"].rules.outcome(after)
        assert outcome.winner == 0 and "1-0" in outcome.reason
        assert "nothing can follow" in refused(state, ">@p1", "little")

    def test_an_empty_hand_with_an_empty_pile_ends_the_period(self):
        state = table("junior", hand1="", speed1="d1", draw="")
        after = play(state, ">", league="junior")
        assert after.phase == SHUFFLE and after.to_move == CHANCE

    def test_qa_no_goal_when_the_period_ends_before_the_answer(self):
        # Q&A (General): my Shot stands; the opponent draws from the empty pile: no goal
        state = table("junior", next="2", hand2="b1", speed2="t1", pile1="s1", draw="")
        after = play(state, ">", league="junior")
        assert after.scores == (0, 0) and after.phase == SHUFFLE

    def test_a_reward_draw_on_the_empty_pile_ends_the_period(self):
        state = table("junior", next="2", hand2="b1", pile1="p1", speed2="t1", draw="s1")
        after = play(state, "/>2", league="junior")
        assert after.phase == SHUFFLE and hand(after, 0) == ["s1"]
        assert "write 2 draws" in refused(state, "/>3", "junior")
        dribble = table("junior", next="2", hand2="b1", pile1="d1", speed2="t1", draw="s1")
        after = play(dribble, "/>s1,_", league="junior")
        assert after.phase == SHUFFLE and ids(after.speed[0]) == ["s1"]
        assert "was not" in refused(
            table("junior", next="2", hand2="b1", pile1="d1", draw="s1,s2"), "/>s1,_", "junior"
        )

    def test_the_game_ends_after_the_third_period_with_a_draw_on_equal_points(self):
        state = table("junior", hand1="", period=3, score="2-2")
        after = play(state, ">", league="junior")
        assert after.phase == OVER
        outcome = GAMES["junior"].rules.outcome(after)
        assert outcome.winner is None and outcome.result_token() == "1/2-1/2"
        earlier = play(table("junior", hand1="", period=2, score="2-2"), ">", league="junior")
        assert earlier.phase == SHUFFLE

    def test_the_next_period_reshuffles_every_card_and_keeps_the_score(self):
        game = GAMES["junior"]
        state = play(table("junior", hand1="", period=1, score="1-0"), ">", league="junior")
        after = game.rules.apply(state, Shuffle(tuple(ORDER + REST)))
        assert after.period == 2 and after.scores == (1, 0) and after.phase == FACEOFF
        assert len(after.hands[0]) == 7 and after.discard == ()


# == Junior league: face-off ===============================================================


class TestFaceOff:
    league = "junior"

    def face_off(self, hand1: str, hand2: str, draw: str = "sx,sy,f1"):
        state = table(self.league, next="faceoff", hand1=hand1, hand2=hand2, draw=draw)
        return state

    def apply(self, state, first: str, second: str):
        return GAMES[self.league].rules.apply(state, FaceOff(first, second))

    def test_the_stronger_attack_force_attacks(self):
        after = self.apply(self.face_off("s1,p2", "s2,b1"), "s1", "s2")
        assert (after.phase, after.attacker, after.to_move) == (TURN, 1, 1)
        assert {"s1", "s2"} <= set(discard(after))

    def test_a_combo_card_counts_with_its_attack_side(self):
        after = self.apply(self.face_off("st,p2", "s1,b1"), "st", "s1")
        assert after.attacker == 0  # st counts as a Shot of force 4 > 2

    def test_a_defence_card_loses(self):
        after = self.apply(self.face_off("i3,p2", "f1,b1", "sx,sy,f2"), "i3", "f1")
        assert after.attacker == 1  # f1 is a weak Shot but an attack maneuver

    def test_equal_forces_or_two_defence_cards_show_again(self):
        after = self.apply(self.face_off("s1,p2", "p1,b1"), "s1", "p1")
        assert after.phase == FACEOFF and hand(after, 0) == ["p2"]
        after = self.apply(self.face_off("i1,p2", "b1,s1"), "i1", "b1")
        assert after.phase == FACEOFF and {"i1", "b1"} <= set(discard(after))

    def test_a_player_without_cards_to_show_gets_seven_more(self):
        pile = "s2,s3,p2,d1,d2,i1,i3,b2,t1,t2,st,pb,rf,rp,ls"
        after = self.apply(self.face_off("s1", "p1,b1", pile), "s1", "p1")
        assert after.phase == FACEOFF
        assert hand(after, 0) == sorted(["s2", "p2", "d2", "i3", "t1", "st", "rf"])
        assert hand(after, 1) == sorted(["b1", "s3", "d1", "i1", "b2", "t2", "pb", "rp"])
        assert ids(after.draw) == ["ls"]
        assert after.dealt == 30  # the extra deal does not move the referee threshold

    def test_the_extra_deal_running_out_ends_the_period(self):
        after = self.apply(self.face_off("s1", "p1", "sx,sy,f1"), "s1", "p1")
        assert after.phase == SHUFFLE

    def test_a_shown_card_must_be_in_the_hand(self):
        reason = GAMES[self.league].rules.illegal_reason(
            self.face_off("s1", "p1"), FaceOff("s2", "p1")
        )
        assert "not in his hand" in reason


# == Junior league: adjusting the speed ===================================================


class TestSpeedAdjustments:
    league = "junior"

    def test_decrease_takes_the_top_speed_card_into_the_hand(self):
        state = table(self.league, hand1="s1", speed1="p1,d1,p2")
        after = play(state, "-@s1", league=self.league)
        assert ids(after.speed[0]) == ["p1", "d1"] and hand(after, 0) == ["p2"]

    def test_restructure_swaps_the_top_speed_card_with_a_hand_card(self):
        state = table(self.league, hand1="s1,d2", speed1="p1,p2")
        after = play(state, "~d2@s1", league=self.league)
        assert ids(after.speed[0]) == ["p1", "d2"] and hand(after, 0) == ["p2"]

    def test_transform_discards_the_top_speed_card_and_draws_up_to_two(self):
        state = table(self.league, hand1="s1", speed1="p1,p2", draw="d1,d2,t1")
        after = play(state, "%2@s1", league=self.league)
        assert ids(after.speed[0]) == ["p1"] and "p2" in discard(after)
        assert hand(after, 0) == ["d1", "d2"] and ids(after.draw) == ["t1"]
        assert "up to 2" in refused(state, "%3@s1", self.league)
        assert "speed pile is empty" in refused(table(self.league, hand1="s1"), "%1/")

    def test_restructure_the_hand_discards_and_draws_up_to_as_many(self):
        state = table(self.league, hand1="s1,t1,b1", speed1="p1", draw="d1,d2,t2")
        after = play(state, "#t1,b1>2@s1", league=self.league)
        assert {"t1", "b1"} <= set(discard(after)) and hand(after, 0) == ["d1", "d2"]
        assert maneuvers(after, 0) == ["s1"]
        assert "up to 2, not 3" in refused(state, "#t1,b1>3@s1", self.league)
        after = play(state, "#t1>0@s1", league=self.league)
        assert hand(after, 0) == ["b1"]
        assert ids(after.speed[0]) == ["p1"]  # the speed is not touched

    def test_one_adjustment_per_turn(self):
        state = table(self.league, hand1="s1,t1", speed1="p1,p2")
        assert "only once per turn" in refused(state, "-+t1@s1", self.league)
        assert "before the maneuver" in refused(state, "@s1-", self.league)


# == Junior league: increasing the force ===================================================


class TestIncreasingTheForce:
    league = "junior"

    def test_qa_force_four_plus_two_speed_cards_and_one_hand_card_is_ten(self):
        # Q&A (Force): speed cards with requirements 1 and 2, a hand card with 3:
        # s2 (force 4, speed 2); top first d2 (speed 2) then p1 (1); s3 (speed 3)
        state = table(self.league, hand1="s2,s3", speed1="p1,d2")
        after = play(state, "@s2^2^s3", league=self.league)
        maneuver = after.piles[0][0]
        assert maneuver.force == 4 + 2 + 1 + 3
        assert ids(maneuver.increases) == ["d2", "p1", "s3"]
        assert after.speed[0] == ()

    def test_qa_the_force_to_beat_is_the_increased_total(self):
        # Q&A (Force): 4 raised to 6, answered by 3 raised to 6: the next needs 6
        state = table(self.league, hand1="s2", speed1="p1,d2", hand2="b2", speed2="t1,t2")
        state = play(state, "@s2^1", league=self.league)  # 4 + d2 (2) = 6
        state = play(state, "@b2^1^1", league=self.league)  # 3 + t2 (2) + t1 (1) = 6
        assert GAMES[self.league].rules.force_to_beat(state) == 6

    def test_qa_no_increase_on_the_opponents_turn(self):
        # Q&A (Force): increases come with the own maneuver only
        state = table(self.league, next="2", hand2="b2", speed2="t1,t2", pile1="s1", speed1="p1")
        assert "right after playing" in refused(state, "^1@b2", self.league)

    def test_qa_speed_cards_may_drop_the_speed_below_the_requirement(self):
        # Q&A (Force): s3 needs speed 3 to be played, then all three speed cards go on it
        state = table(self.league, hand1="s3", speed1="p1,d1,p2")
        after = play(state, "@s3^3", league=self.league)
        assert after.speed[0] == () and after.piles[0][0].force == 6 + 2 + 1 + 1

    def test_qa_hand_increases_of_a_shot_must_be_shots(self):
        # Q&A (Force): any speed card, but only Shots from the hand
        state = table(self.league, hand1="s1,p1,s2", speed1="t1,b1")
        play(state, "@s1^2^s2", league=self.league)
        message = refused(state, "@s1^p1", self.league)
        assert "p1 (Pass) cannot increase the force of a Shot" in message

    def test_qa_a_combo_played_as_a_shot_takes_only_shots_from_the_hand(self):
        # Q&A (Force): st played as a Shot: Tackles from the hand are refused, and a
        # combo card that has a Shot counts as a Shot
        state = table(self.league, hand1="st,t1,s1", speed1="p1,p2")
        assert "t1 (Tackle) cannot increase the force of a Shot" in refused(
            state, "@st^t1", self.league
        )
        tackle = table(self.league, next="2", hand2="t1,st", speed2="p1", pile1="p2")
        after = play(tackle, "@t1^st", league=self.league)
        assert after.piles[1][0].force == 2 + 2

    def test_an_increase_must_reach_the_force_to_beat(self):
        state = table(self.league, next="2", hand2="b1", speed2="t1", pile1="s2")
        assert "its force is 3 and the force to beat is 4" in refused(state, "@b1^1", self.league)

    def test_increase_cards_are_discarded_with_the_maneuver_pile(self):
        state = table(self.league, next="2", hand2="b1", speed2="t1", pile1="s1^p1")
        after = play(state, "/", league=self.league)
        assert {"s1", "p1"} <= set(discard(after))


# == Junior league has no specials, fouls or stakes ========================================


def test_specials_do_nothing_before_the_senior_league():
    state = table("junior", hand1="s1", speed1="p1", draw="sx,d1")
    after = play(state, ">@s1", league="junior")  # a Stress card drawn, no effect
    assert hand(after, 0) == ["sx"] and after.to_move == 1
    assert "senior league rule" in refused(
        table("junior", hand1="p1", speed1="d1", draw="s1"), "@p1=S:s1", "junior"
    )
    won = table("junior", next="2", hand2="b1", pile1="p1", hand1="ls")
    assert "senior league rule" in refused(won, "/|ls", "junior")
    assert "pro league rule" in refused(table("junior", hand1="p1", speed1="d1"), "*y@p1")


# == Senior league: Stress ==================================================================


class TestStress:
    league = "senior"

    def test_a_stress_card_drawn_ends_the_turn_and_the_opponent_wins(self):
        state = table(
            self.league, next="2", hand2="b2", speed2="t1", pile1="p1", draw="sx,s1,s2,s3"
        )
        assert "Stress card sx" in refused(state, ">@b2")
        after = play(state, ">/>3")
        assert hand(after, 1) == ["b2", "sx"]  # the Stress card stays in the hand
        assert hand(after, 0) == ["s1", "s2", "s3"]  # p1 won: the Pass reward
        assert after.attacker == 0 and after.to_move == 0

    def test_the_attacker_drawing_stress_first_loses_the_ball(self):
        state = table(self.league, hand1="p1", speed1="d1", draw="sy,s1")
        after = play(state, ">/")
        assert (after.attacker, after.to_move) == (1, 1)

    def test_qa_transform_can_stop_before_the_stress_card(self):
        # Q&A (Stress): transform, the second card is Stress: draw 1 and stop
        state = table(self.league, hand1="s1", speed1="p1,p2", draw="d1,sx,d2")
        after = play(state, "%1@s1")
        assert hand(after, 0) == ["d1"]
        assert "you drew the Stress card sx, which ended your turn" in refused(state, "%2@s1")
        after = play(state, "%2/")  # drawing it ends the turn
        assert (after.attacker, after.to_move) == (1, 1)

    def test_qa_restructuring_the_hand_stops_at_the_stress_card(self):
        # Q&A (Stress): 4 discarded, the second card drawn is Stress: 2 draws at most
        state = table(
            self.league, hand1="s1,s2,s3,d1,p1", speed1="p2", draw="b1,sy,b2,t1", pile2=""
        )
        message = refused(state, "#s2,s3,d1,p1>4@s1")
        assert "draw 2 was the Stress card sy" in message and "write 2 draws" in message
        after = play(state, "#s2,s3,d1,p1>2/")
        assert hand(after, 0) == ["b1", "s1", "sy"] and after.attacker == 1
        after = play(state, "#s2,s3,d1,p1>1@s1")
        assert hand(after, 0) == ["b1"]

    def test_stress_from_a_reward_does_nothing(self):
        state = table(self.league, next="2", hand2="b1", pile1="p1", draw="sx,sy")
        after = play(state, "/>2")
        assert hand(after, 0) == ["sx", "sy"] and after.to_move == 0


# == Senior league: fouls ====================================================================


class TestFoul:
    league = "senior"

    def test_an_unseen_foul_stands_with_the_declared_type(self):
        state = table(self.league, hand1="p1", speed1="d1", draw="s1,s2")
        after = play(state, "@p1=S:s2")
        maneuver = after.piles[0][0]
        assert (maneuver.type, maneuver.foul, maneuver.force) == ("Shot", True, 2)
        assert ids(after.draw) == ["s1", "s2"]  # the revealed card stays where it was
        assert after.to_move == 1

    def test_a_seen_foul_forfeits_the_maneuver_and_the_opponent_wins(self):
        state = table(
            self.league, next="2", hand2="s1,b1", speed2="t1,t2", pile1="d1", draw="s2,s3,rf"
        )
        after = play(state, "@s1=B^1:rf/>s3,s2")
        assert {"s1", "t2"} <= set(discard(after))  # the maneuver and its increase
        assert ids(after.speed[0]) == ["s3", "s2"]  # d1 won: the Dribble reward
        assert after.attacker == 0

    def test_the_check_is_required_and_comes_after_the_increases(self):
        # Q&A (Foul): all increases before the referee check
        state = table(self.league, hand1="p1,s2", speed1="d1,d2", draw="s1,rf")
        assert "referee check reveals from the draw pile" in refused(state, "@p1=S")
        assert "before the referee check" in refused(state, "@p1=S:s1^s2")
        play(state, "@p1=S^s2:s1")

    def test_the_check_uses_the_discard_pile_below_half_the_dealt_pile(self):
        state = table(self.league, hand1="p1", speed1="d1", draw="s1", dealt=4)
        assert "discard pile" in refused(state, "@p1=S:s1")
        after = play(state, "@p1=S:rf/")  # rf lies in the discard pile
        assert after.attacker == 1  # seen on the first maneuver: the opponent takes the ball
        half = table(self.league, hand1="p1", speed1="d1", draw="s1,s2", dealt=4)
        play(half, "@p1=S:s1")  # exactly half left: still the draw pile

    def test_no_referee_on_an_empty_pile(self):
        state = table(self.league, hand1="p1", speed1="d1", draw="", dealt=0)
        after = play(state, "@p1=S")
        assert after.piles[0][0].foul

    def test_qa_a_defender_may_foul_an_attack_card_into_a_defence(self):
        # Q&A (Foul): any type may be declared, but only one the player may make
        state = table(self.league, next="2", hand2="s1", speed2="t1", pile1="p1", draw="s2")
        after = play(state, "@s1=B:s2")
        assert after.piles[1][0].type == "Block"
        attacker = table(self.league, hand1="s1", speed1="t1", draw="s2")
        assert "as the attacker you may make only Shot, Pass, Dribble" in refused(
            attacker, "@s1=B:s2"
        )

    def test_qa_increase_cards_cannot_be_fouled(self):
        # Q&A (Foul): a Pass from the hand cannot raise a Shot; play the Pass as a Shot
        state = table(self.league, hand1="s2,p1,p2", speed1="d1,d2", draw="s1")
        assert "p1 (Pass) cannot increase the force of a Shot" in refused(state, "@s2^p1")
        after = play(state, "@p2=S^s2:s1")
        assert after.piles[0][0].force == 3 + 2

    def test_writing_a_type_the_card_has_is_no_foul(self):
        state = table(self.league, hand1="s1", speed1="d1", draw="s2")
        assert "marks a foul only" in refused(state, "@s1=S:s2")


# == Senior league: Lucky shot and Goalie ==================================================


class TestLuckyShotAndGoalie:
    league = "senior"

    def test_lucky_shot_turns_a_won_pass_into_a_goal(self):
        state = table(
            self.league, next="2", hand1="ls", hand2="b1", pile1="p2", speed1="d1", draw="s1"
        )
        after = play(state, "/|ls")
        assert after.scores == (1, 0) and after.attacker == 1
        assert "ls" in discard(after) and hand(after, 0) == ["d1"]
        assert "Player1 won with a Shot" in refused(state, "/|ls>3")

    def test_goalie_turns_a_won_block_into_an_interception(self):
        state = table(self.league, hand1="p1", hand2="gk", pile1="p2", pile2="b2", draw="s1")
        after = play(state, "/|gk")
        assert after.attacker == 1 and after.scores == (0, 0)
        assert "gk" in discard(after)

    def test_qa_lucky_shot_and_goalie_come_on_the_opponents_turn(self):
        # Q&A (Lucky shot): not with the maneuver, but once the opponent gives up
        state = table(self.league, hand1="p1,ls", speed1="d1")
        assert "once the attack is won" in refused(state, "@p1|ls")

    def test_qa_lucky_shot_after_the_opponents_seen_foul(self):
        # Q&A (Lucky shot): a Dribble won because the opponent's foul was seen
        state = table(
            self.league, next="2", hand1="ls", hand2="s1", speed2="t1", pile1="d1", draw="rf"
        )
        after = play(state, "@s1=B:rf/|ls")
        assert after.scores == (1, 0)

    def test_qa_goalie_after_the_opponents_stress(self):
        # Q&A (Goalie): a Block won because the opponent drew a Stress card
        state = table(
            self.league, hand1="p1", hand2="gk", pile1="p2", pile2="b2", speed1="d1", draw="sx"
        )
        after = play(state, ">/|gk")
        assert after.attacker == 1

    def test_an_unseen_foul_counts_with_its_declared_type(self):
        # spec: after an unseen foul the declared type counts, for Lucky shot too
        state = table(self.league, next="2", hand1="ls", hand2="b1", pile1="s1=D")
        after = play(state, "/|ls")
        assert after.scores == (1, 0)

    def test_only_a_card_with_the_symbol_and_only_after_the_right_win(self):
        state = table(self.league, next="2", hand1="ls,gk", hand2="b1", pile1="p2")
        assert "no Lucky shot symbol" in refused(state, "/|gk")
        shot = table(self.league, next="2", hand1="ls", hand2="b1", pile1="s1")
        assert "won with a Shot" in refused(shot, "/|ls")


# == Pro league: raised stakes =============================================================


class TestRaisedStakes:
    league = "pro"

    def test_an_accepted_doubling_makes_the_next_goal_worth_two(self):
        state = table(self.league, hand1="s1", speed1="d1", hand2="b1")
        state = play(state, "*y@s1", league=self.league)
        assert (state.worth, state.requester) == (2, 0)
        after = play(state, "/", league=self.league)
        assert after.scores == (2, 0) and after.worth == 1  # back to 1 after a goal

    def test_the_same_player_never_doubles_twice_in_a_row(self):
        state = table(self.league, hand1="p1,p2", speed1="d1,d2", hand2="b1", speed2="t1")
        assert "never doubles twice" in refused(state, "*y*y@p1", self.league)
        state = play(state, "*y@p1", league=self.league)
        state = play(state, "@b1", league=self.league)
        assert "never doubles twice" in refused(state, "*y@p2", self.league)
        defender = table(
            self.league, next="2", hand2="b1", speed2="t1", pile1="p1", goal=2, doubled="1"
        )
        after = play(defender, "*y@b1", league=self.league)
        assert (after.worth, after.requester) == (4, 1)

    def test_qa_a_request_before_or_in_the_middle_of_the_maneuver(self):
        # Q&A (Raised stakes): before the maneuver, or between two increases
        state = table(self.league, hand1="s2,s1", speed1="d1,d2,p1", hand2="b1", pile2="")
        after = play(state, "@s2^1*y^s1", league=self.league)
        assert after.worth == 2 and after.piles[0][0].force == 4 + 1 + 1

    def test_qa_the_defender_who_requests_scores_if_declined(self):
        # Q&A (Raised stakes): a declined request gives the requester the current worth
        state = table(
            self.league, next="2", hand2="b1", speed2="t1", pile1="p1", goal=2, doubled="1"
        )
        after = play(state, "*n", league=self.league)
        assert after.scores == (0, 2)
        assert after.attacker == 0 and after.to_move == 0  # the decliner attacks next
        assert after.worth == 1 and after.piles == ((), ())

    def test_qa_a_declined_request_after_a_pass_gives_points_only(self):
        # Q&A (Raised stakes): no Pass reward, the attack is interrupted
        state = table(self.league, hand1="p1", speed1="d1", hand2="b1", draw="s1,s2,s3")
        after = play(state, "@p1*n", league=self.league)
        assert after.scores == (1, 0)
        assert ids(after.draw) == ["s1", "s2", "s3"] and "p1" in discard(after)
        assert after.attacker == 1
        assert "nothing can follow" in refused(state, "@p1*n/>3", self.league)

    def test_qa_no_request_on_the_opponents_turn(self):
        # Q&A (Raised stakes): only on the own turn: not once the attack is won
        state = table(self.league, next="2", hand2="b1", pile1="p1", draw="s1")
        assert "attack is over" in refused(state, "/*y", self.league)

    def test_raised_stakes_are_a_pro_league_rule(self):
        state = table("senior", hand1="s1", speed1="d1")
        assert "pro league rule" in refused(state, "*y@s1")

    def test_a_request_may_come_before_the_compulsory_draw(self):
        # spec reading: stakes at any point of the own turn, also before the draw an
        # empty hand makes compulsory; the draw is still owed after an accepted one
        state = table(self.league, hand1="", speed1="d1", hand2="b1", draw="s1,p1")
        after = play(state, "*y>@s1", league=self.league)
        assert (after.worth, after.requester) == (2, 0)
        assert maneuvers(after, 0) == ["s1"] and ids(after.draw) == ["p1"]
        assert "hand is empty" in refused(state, "*y/", self.league)
        assert "hand is empty" in refused(state, "*y@s1", self.league)

    def test_a_request_declined_before_the_compulsory_draw_ends_the_attack(self):
        state = table(self.league, hand1="", speed1="d1", hand2="b1", draw="s1,p1")
        after = play(state, "*n", league=self.league)
        assert after.scores == (1, 0)  # the requester scores the current worth
        assert (after.attacker, after.to_move) == (1, 1)  # the decliner attacks next
        assert ids(after.draw) == ["s1", "p1"] and hand(after, 0) == []  # no draw owed
        assert "nothing can follow" in refused(state, "*n>", self.league)

    def test_no_request_fits_in_when_the_draw_pile_is_empty_too(self):
        # spec reading: with the draw pile empty too, the period ends as the turn begins
        state = table(self.league, hand1="", speed1="d1", hand2="b1", draw="")
        assert "no request fits in" in refused(state, "*y>", self.league)
        assert "no request fits in" in refused(state, "*n", self.league)
        assert play(state, ">", league=self.league).phase == SHUFFLE

    def test_outside_the_pro_league_a_request_first_is_refused_as_stakes(self):
        state = table("senior", hand1="", speed1="d1", hand2="b1", draw="s1")
        assert "raising the stakes is a pro league rule" in refused(state, "*y>")

    def test_a_declined_doubling_does_not_excuse_a_card_that_cannot_reach(self):
        # spec reading: a card is played only if it can reach the force to beat with
        # the increases still available (the whole speed pile, the hand's cards of
        # its type): b1 (2) + t1 (speed 1) + b2 (a Block, speed 2) = 5 < s3 (6)
        state = table(self.league, next="2", hand2="b1,b2", speed2="t1", pile1="s3")
        message = refused(state, "@b1*n", self.league)
        assert "b1 cannot be played as a Block" in message
        assert "reaches at most 5, and the force to beat is 6" in message
        assert "its force is 2 and the force to beat is 6" in refused(state, "@b1", self.league)

    def test_a_declined_doubling_stands_a_card_that_could_reach(self):
        # b2 (3) + t2 (2) + t1 (1) + b1 (a Block, 1) = 7 >= 6: the increases need
        # not be laid before the decline interrupts the attack
        state = table(self.league, next="2", hand2="b1,b2", speed2="t1,t2", pile1="s3")
        after = play(state, "@b2*n", league=self.league)
        assert after.scores == (0, 1) and (after.attacker, after.to_move) == (0, 0)
        assert {"b2", "s3"} <= set(discard(after)) and ids(after.speed[1]) == ["t1", "t2"]
        after = play(state, "@b2^1*n", league=self.league)  # t2 laid: 5, reach still 7
        assert {"b2", "t2", "s3"} <= set(discard(after)) and ids(after.speed[1]) == ["t1"]

    def test_the_reach_counts_what_is_left_after_the_increases_laid(self):
        # b1 (2) + t1 (1) = 3 < s2 (4): nothing is left to lay after ^1
        state = table(self.league, next="2", hand2="b1", speed2="t1", pile1="s2")
        assert "reaches at most 3, and the force to beat is 4" in refused(
            state, "@b1^1*n", self.league
        )

    def test_the_reach_of_a_foul_counts_the_hands_cards_of_the_declared_type(self):
        # s1 (2) played as a Block against st (a Shot, 4): t1 (1) and the hand's
        # Blocks; s2 is a Shot and cannot increase a Block
        shots = table(self.league, next="2", hand2="s1,s2", speed2="t1", pile1="st")
        assert "reaches at most 3, and the force to beat is 4" in refused(
            shots, "@s1=B*n", self.league
        )
        blocks = table(self.league, next="2", hand2="s1,b1", speed2="t1", pile1="st")
        after = play(blocks, "@s1=B*n", league=self.league)  # 2 + 1 + 1 = 4
        assert after.scores == (0, 1)


@pytest.mark.parametrize("league", ["little", "junior", "senior", "pro"])
def test_every_league_has_its_periods(league):
    assert GAMES[league].rules.periods == (1 if league == "little" else 3)


def test_a_later_periods_shuffle_offered_by_legal_moves_orders_the_whole_deck():
    """Regression (found by test_fast_paths, seed 4819626): the next period's
    shuffle was offered over the cards left in the draw pile, which apply refuses."""
    from partita.game.registry import all_games

    rules = next(game for game in all_games() if game.name == "forceball").rules
    rng = random.Random(4819626)
    state = rules.initial()
    later_shuffles = 0
    for _ in range(400):
        legal = list(rules.legal_moves(state))
        if not legal:
            break
        if state.phase == SHUFFLE and state.ply > 0:
            later_shuffles += 1
            assert sorted(legal[0].order) == sorted(rules.ids)
        state = rules.apply(state, rng.choice(legal))
    assert later_shuffles >= 1
