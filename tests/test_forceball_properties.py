"""Forceball invariants over seeded random legal play, in every league: no card is
ever lost or duplicated, scores change only on goals and declined stakes (by what a
goal is worth), the worth resets after every attack, games end.

A hundred or so games per league run by default; ``-m slow`` plays thousands.
"""

from __future__ import annotations

import random

import pytest

from partita.games.forceball.rules import (
    END,
    LEAGUES,
    OVER,
    SPECIAL,
    STAKES,
    TURN,
    Turn,
)
from partita.games.registry import get_game

GAME = get_game("forceball")
MAX_PLIES = 3000


def _scored_by(rules, state, move) -> int | None:
    """What the mover's turn must add to a score, worked out from the move alone and
    the table before it: the seat that scores, or None if nobody may score."""
    if not isinstance(move, Turn):
        return None
    mover = state.to_move
    kinds = [action[0] for action in move.actions]
    if (STAKES, False) in move.actions:
        return mover  # the requester scores when the opponent declines
    if END in kinds:
        opponent = 1 - mover
        pile = state.piles[opponent]
        # a foul seen in this turn or Stress: the opponent wins with his last maneuver
        if pile and pile[-1].type == "Shot":
            return opponent
        for action in move.actions[kinds.index(END) :]:
            if action[0] == SPECIAL and rules.cards[rules.index[action[1]]].special == (
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
                doublings = sum(1 for action in move.actions if action == (STAKES, True))
                assert gained[scorer] == state.worth * 2**doublings
                if (STAKES, False) in move.actions:
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
    stats = _play_games(league, 100 if league != "little" else 150, seed=1)
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
    for seed in range(20):
        rng = random.Random(seed)
        state = rules.initial()
        while rules.outcome(state) is None:
            text = game.format_position(state)
            back = game.parse_position(text)
            assert rules.key(back) == rules.key(state), text
            assert game.format_position(back) == text
            state = rules.apply(state, rules.sample_move(state, rng))
