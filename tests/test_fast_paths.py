"""Fast paths accept and produce exactly what the general paths do (differential)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.bulk.plain import key_replay, reference_key_replay
from partita.database.keys import fold_key, key_list_folder
from partita.game.registry import all_games
from partita.notation.files import expand_paths
from partita.notation.reader import parse_record, read_records
from partita.notation.replay import clean_prefix, replay
from partita.notation.writer import write_record

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GAMES = all_games()


def _tokens(game, rng: random.Random, length: int) -> list[str]:
    """A random line: mostly legal canonical moves, sometimes a bad or odd token."""
    rules = game.rules
    state = rules.initial()
    tokens = []
    for _ in range(length):
        legal = list(rules.legal_moves(state))
        roll = rng.random()
        if not legal or roll < 0.05:
            tokens.append(rng.choice(["T4", "t04", "q1", "--", "t99", "b1", "l8"]))
            if not legal:
                break
            continue
        move = rng.choice(legal)
        tokens.append(game.format_move(state, move))
        state = rules.apply(state, move)
    return tokens


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
@settings(max_examples=examples(60, fast=15), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(0, 70))
def test_a_games_key_replay_matches_the_reference(game, seed, length):
    """A game's key replay (its spec's ``fast_replay``, the bulk wing's plain-record
    path) gives what the reference replay's loop gives: the keys, the move numbers
    and the last state, or ``None``."""
    tokens = _tokens(game, random.Random(seed), length)
    start = game.rules.initial()
    accepted = len(clean_prefix(game, start, tokens))
    # The tokens as given (often refused on the way), and their accepted prefix.
    for line in (tokens, tokens[:accepted]):
        fast = key_replay(game)(start, line)
        reference = reference_key_replay(game, start, line)
        if reference is None:
            assert fast is None
            continue
        assert fast is not None
        assert fast[:2] == reference[:2]
        assert game.rules.key(fast[2]) == game.rules.key(reference[2])
        assert game.rules.ply(fast[2]) == game.rules.ply(reference[2])
        assert game.rules.outcome(fast[2]) == game.rules.outcome(reference[2])
        states = clean_prefix(game, start, line)
        assert reference[0] == [game.rules.key(state) for state in states]
        assert reference[1] == [game.rules.move_number(s) for s in [start, *states][:-1]]
        # Given the archive's fold, the keys come folded, the rest the same.
        fold = key_list_folder(game.name)
        folded = key_replay(game)(start, line, fold)
        assert folded is not None
        assert folded[0] == [fold_key(game.name, key) for key in reference[0]]
        assert folded[1] == reference[1]


def _example_records():
    for path in expand_paths([EXAMPLES]):
        yield from read_records(path)


def test_writer_from_a_replay_writes_what_the_general_writer_writes():
    checked = 0
    for record in _example_records():
        replayed = replay(record)
        assert write_record(record, replayed=replayed) == write_record(record), record.source
        checked += 1
    assert checked > 90


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
@settings(max_examples=examples(40, fast=10), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(0, 70))
def test_writer_fast_path_on_random_lines(game, seed, length):
    rng = random.Random(seed)
    tokens = _tokens(game, rng, length)
    movetext = " ".join(f"{token} {{note}}" if rng.random() < 0.1 else token for token in tokens)
    text = f'[Game "{game.name}"]\n[Result "*"]\n\n{movetext} *\n'
    record = parse_record(text)
    replayed = replay(record)
    assert write_record(record, replayed=replayed) == write_record(record)


def test_writer_with_a_hand_made_replay_without_states_takes_the_general_path():
    from partita.notation.replay import ReplayedRecord

    record = parse_record('[Game "forza4x4"]\n[Result "*"]\n\n1. t4 r5 2. r5 *\n')
    game = record_game = replay(record).game
    hand_made = ReplayedRecord(record, record_game, moves=["t4", "r5", "r5"])
    assert hand_made.states == []
    expected = write_record(record, game)
    assert write_record(record, game, replayed=hand_made) == expected
    assert "1. t4 r5 2. r5 *" in expected
