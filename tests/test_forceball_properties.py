"""Forceball invariants over seeded random legal play, in every league: no card is
ever lost or duplicated, scores change only on goals and declined stakes (by what a
goal is worth), the worth resets after every attack, games end; and the sampler's
own turns are legal as built (it never leans on the fallback to representative
moves), the spec's readings on raised stakes included.

A hundred or so games per league run by default; ``-m slow`` plays thousands.
"""

from __future__ import annotations

import random

import pytest
from budget import examples
from forceball_table import GAMES, table

from partita.game.registry import get_game
from partita.games.forceball.sampler import sample_turn
from partita.games.forceball.values import (
    LEAGUES,
    OVER,
    TURN,
    Draw,
    End,
    Play,
    Special,
    Stakes,
    Turn,
)

GAME = get_game("forceball")
MAX_PLIES = 3000


def _scored_by(rules, state, move) -> int | None:
    """What the mover's turn must add to a score, worked out from the move alone and
    the table before it: the seat that scores, or None if nobody may score."""
    if not isinstance(move, Turn):
        return None
    mover = state.to_move
    if Stakes(False) in move.actions:
        return mover  # the requester scores when the opponent declines
    if End() in move.actions:
        opponent = 1 - mover
        pile = state.piles[opponent]
        # a foul seen in this turn or Stress: the opponent wins with his last maneuver
        if pile and pile[-1].type == "Shot":
            return opponent
        for action in move.actions[move.actions.index(End()) :]:
            if isinstance(action, Special) and rules.cards[rules.index[action.card]].special == (
                "lucky-shot"
            ):
                return opponent
    return None


def _play_games(league: str, games: int, seed: int) -> dict:
    game = GAME.configure({"League": league})
    rules = game.rules
    every_card = list(range(len(rules.cards)))
    stats = {"games": 0, "plies": 0, "goals": 0, "declined": 0}
    for number in range(games):
        rng = random.Random(seed * 100_003 + number)
        state = rules.initial()
        plies = 0
        while rules.outcome(state) is None:
            assert plies < MAX_PLIES, f"{league} game {number} does not end"
            move = rules.sample_move(state, rng)
            assert rules.illegal_reason(state, move) is None
            after = rules.apply(state, move)
            # card conservation: every card in exactly one place
            assert sorted(rules.card_places(after)) == every_card, (league, number, plies)
            # scores change only on goals and declined stakes
            gained = [after.scores[seat] - state.scores[seat] for seat in (0, 1)]
            scorer = _scored_by(rules, state, move)
            if any(gained):
                assert scorer is not None, (league, number, plies, game.format_move(state, move))
                assert gained[1 - scorer] == 0
                doublings = move.actions.count(Stakes(True))
                assert gained[scorer] == state.worth * 2**doublings
                if Stakes(False) in move.actions:
                    stats["declined"] += 1
                else:
                    stats["goals"] += 1
            elif scorer is not None and after.phase == TURN and after.period == state.period:
                raise AssertionError(f"a goal was due but not scored: {move}")
            if after.phase == TURN and not (after.piles[0] or after.piles[1]):
                assert (after.worth, after.requester) == (1, -1)  # a new attack
                assert after.to_move == after.attacker
            if league != "pro":
                assert after.worth == 1
            state = after
            plies += 1
        assert state.phase == OVER and state.period == rules.periods
        stats["games"] += 1
        stats["plies"] += plies
    return stats


@pytest.mark.parametrize("league", LEAGUES)
def test_random_play_conserves_cards_and_scores_only_goals(league):
    games = examples(100, fast=30) if league != "little" else examples(150, fast=45)
    stats = _play_games(league, games, seed=1)
    assert stats["goals"] > 0
    if league == "pro":
        assert stats["declined"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("league", LEAGUES)
def test_thousands_of_random_games_conserve_cards(league):
    stats = _play_games(league, 2000, seed=2)
    assert stats["games"] == 2000


@pytest.mark.parametrize("league", LEAGUES)
def test_every_position_of_random_games_round_trips(league):
    game = GAME.configure({"League": league})
    rules = game.rules
    for seed in range(examples(20, fast=6)):
        rng = random.Random(seed)
        state = rules.initial()
        while rules.outcome(state) is None:
            text = game.format_position(state)
            back = game.parse_position(text)
            assert rules.key(back) == rules.key(state), text
            assert game.format_position(back) == text
            state = rules.apply(state, rules.sample_move(state, rng))


@pytest.mark.parametrize("league", LEAGUES)
def test_the_sampler_builds_only_legal_turns(league):
    """Every turn the sampler builds is legal as it stands: no step refused, no
    finished turn refused (either would fall back to the representative moves)."""
    game = GAME.configure({"League": league})
    rules = game.rules
    turns = 0
    for seed in range(15):
        rng = random.Random(seed)
        state = rules.initial()
        while rules.outcome(state) is None:
            if state.phase == TURN:
                turn = sample_turn(rules, state, random.Random(rng.random()))
                assert turn is not None, game.format_position(state)
                assert rules.illegal_reason(state, turn) is None, game.format_move(state, turn)
                turns += 1
            state = rules.apply(state, rules.sample_move(state, rng))
    assert turns > 500


def test_the_sampler_requests_stakes_before_the_compulsory_draw():
    rules = GAMES["pro"].rules
    state = table("pro", hand1="", speed1="d1", hand2="b1", draw="s1,p1,d2")
    turns = [sample_turn(rules, state, random.Random(seed)) for seed in range(600)]
    assert all(rules.illegal_reason(state, turn) is None for turn in turns)
    first = [turn.actions[0] for turn in turns]
    assert any(isinstance(action, Stakes) for action in first)
    assert all(isinstance(action, (Stakes, Draw)) for action in first)
    # with the draw pile empty too, the period ends as the turn begins
    empty = table("pro", hand1="", speed1="d1", hand2="b1", draw="")
    for seed in range(200):
        assert sample_turn(rules, empty, random.Random(seed)) == Turn((Draw(),))


def test_the_sampler_declines_mid_maneuver_only_with_a_card_that_can_reach():
    # the force to beat is 6 (s3); b1 reaches at most 2 + 3 = 5 with this speed pile,
    # i3 (5, speed 3) reaches 8
    rules = GAMES["pro"].rules
    state = table("pro", next="2", hand2="b1,i3", speed2="t1,d1,p1", pile1="s3", draw="f1,f2")
    declined = 0
    for seed in range(1500):
        turn = sample_turn(rules, state, random.Random(seed))
        assert turn is not None and rules.illegal_reason(state, turn) is None
        actions = turn.actions
        if Stakes(False) in actions and any(isinstance(action, Play) for action in actions):
            plays = [action for action in actions if isinstance(action, Play)]
            assert actions.index(plays[0]) < actions.index(Stakes(False))
            declined += 1
    assert declined > 0
