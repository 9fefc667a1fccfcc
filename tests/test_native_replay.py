"""The compiled key replay (``_native.Replay``, the gravity games' ``fast_replay``)
gives exactly what the Python loop gives, on every gravity board the engine allows,
or gives up and leaves the Python loop to decide (differential, Hypothesis)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from hashlib import blake2b

import pytest
from budget import examples
from hypothesis import event, given, settings
from hypothesis import strategies as st

from partita.database.keys import encode_key, fold_key, key_list_folder
from partita.games.gravity import native_replay
from partita.games.gravity.notation import CONNECT4, FORZA4X4, GravityNotation
from partita.games.gravity.rules import SIDES, GravityRules, GravityState
from partita.notation.replay import clean_prefix

needs_native = pytest.mark.skipif(
    not native_replay.available, reason="the compiled core is not built"
)

#: Tokens no board takes as a canonical entry code, or that name no entry of it.
ODD_TOKENS = ["T4", "t04", "t0", "t", "4", "t17", "t99", "x1", "t4 ", " t4", "t4!", "é1", "--"]


def python_replay(game: GravityNotation, state: GravityState, tokens: list[str]):
    """The checked Python loop the fast replay falls back to (the reference)."""
    return native_replay.python_replay(game)(state, tokens)


def compiled(game: GravityNotation, state: GravityState, tokens: list[str]):
    """The compiled replay alone: ``None`` where it gives up, or is not built."""
    replay = native_replay.compiled_replay(game)
    return None if replay is None else replay(state, tokens)


def fast(game: GravityNotation, state: GravityState, tokens: list[str]):
    """The game's ``fast_replay``, as the bulk wing calls it."""
    return native_replay.fast_replay(game)(state, tokens)


@st.composite
def boards(draw: st.DrawFn) -> GravityNotation:
    """Any gravity board the engine allows, small ones more often (they fill up)."""
    width = draw(st.one_of(st.integers(2, 5), st.integers(2, 16)))
    height = draw(st.one_of(st.integers(2, 5), st.integers(2, 16)))
    sides = "".join(sorted(draw(st.sets(st.sampled_from(SIDES), min_size=1)), key=SIDES.index))
    line_length = draw(st.integers(2, max(width, height)))
    return GravityNotation(GravityRules(width, height, sides, line_length))


@st.composite
def lines(draw: st.DrawFn, game: GravityNotation) -> tuple[GravityState, list[str]]:
    """A start (the initial position, or one reached by play with either side to
    move) and a line from it: mostly legal moves, some entries that may be illegal
    here (a full entry cell, a move after the end) and some odd tokens; it often
    goes on past a win or a full board."""
    rules = game.rules
    state = rules.initial()
    for _ in range(draw(st.integers(0, 3))):
        legal = rules.legal_moves(state)
        if not legal:
            break
        state = rules.apply(state, draw(st.sampled_from(list(legal))))
    start = state
    tokens: list[str] = []
    for _ in range(draw(st.integers(0, 2 * rules.cell_count + 2))):
        legal = rules.legal_moves(state)
        roll = draw(st.integers(0, 99))
        if legal and roll < 94:
            move = draw(st.sampled_from(list(legal)))
            tokens.append(move.notation())
            state = rules.apply(state, move)
        elif roll < 98 or not legal:
            tokens.append(draw(st.sampled_from(rules.entries)).notation())
            if not legal and roll < 90:
                break
        else:
            tokens.append(draw(st.sampled_from(ODD_TOKENS)))
    return start, tokens


def assert_same(game: GravityNotation, start: GravityState, tokens: list[str]) -> None:
    """The compiled replay decides exactly when the Python loop accepts the line, and
    then gives the same keys, labels and last state."""
    expected = python_replay(game, start, tokens)
    native = compiled(game, start, tokens)
    if expected is None:
        event("refused")
        assert native is None
        assert fast(game, start, tokens) is None
        return
    assert native is not None, "the compiled replay gave up on a legal line"
    keys, labels, last = native
    outcome = game.rules.outcome(last)
    if outcome is None:
        event("accepted: the game goes on")
    else:
        event("accepted: a win" if outcome.winner is not None else f"accepted: {outcome.reason}")
    assert keys == expected[0]
    assert all(type(key) is int for key in keys)
    assert labels == expected[1]
    assert last == expected[2]
    assert game.rules.outcome(last) == game.rules.outcome(expected[2])
    assert fast(game, start, tokens) == native


@needs_native
@settings(max_examples=examples(600, fast=150), deadline=None)
@given(data=st.data())
def test_every_board_replays_as_the_python_loop(data):
    game = data.draw(boards())
    start, tokens = data.draw(lines(game))
    assert_same(game, start, tokens)
    # Every prefix that ends in a win, a full board or the first refused move.
    accepted = len(clean_prefix(game, start, tokens))
    assert_same(game, start, tokens[:accepted])


@needs_native
@pytest.mark.parametrize("game", [FORZA4X4, CONNECT4], ids=lambda game: game.rules.name)
@settings(max_examples=examples(300, fast=60), deadline=None)
@given(data=st.data())
def test_registered_games_replay_as_the_python_loop(game, data):
    start, tokens = data.draw(lines(game))
    assert_same(game, start, tokens)
    accepted = len(clean_prefix(game, start, tokens))
    assert_same(game, start, tokens[:accepted])


@needs_native
def test_a_known_forza_line_gives_the_keys_of_its_states():
    """Keys, labels and the win, checked against states built move by move."""
    rules = FORZA4X4.rules
    tokens = ["t1", "t8", "t2", "t8", "t3", "t8", "t4"]  # x: row 8, columns 1-4
    native = compiled(FORZA4X4, rules.initial(), tokens)
    assert native is not None
    keys, labels, last = native
    state = rules.initial()
    for token, key, label in zip(tokens, keys, labels, strict=True):
        assert label == rules.move_number(state)
        state = rules.apply(state, FORZA4X4.entry(token))
        assert key == state.x | state.o << 64 | (state.ply & 1) << 128
    assert last == state
    assert rules.outcome(last).winner == 0
    assert labels[:3] == [(1, True), (1, False), (2, True)]
    # A move after the win: the compiled replay gives up, and so does the loop.
    assert compiled(FORZA4X4, rules.initial(), [*tokens, "t5"]) is None
    assert fast(FORZA4X4, rules.initial(), [*tokens, "t5"]) is None


@needs_native
def test_a_full_board_draws_and_the_next_move_is_refused():
    game = GravityNotation(GravityRules(3, 2, "t", 3))
    start = game.rules.initial()
    tokens = ["t1", "t2", "t3", "t1", "t2", "t3"]  # rows o x o over x o x: no line
    native = compiled(game, start, tokens)
    assert native is not None
    assert native == python_replay(game, start, tokens)
    last = native[2]
    assert (last.x, last.o, last.ply, last.line) == (0b101010, 0b010101, 6, 0)
    assert game.rules.outcome(last).reason == "the board is full"
    assert native[0][-1] == 0b010101_101010  # x to move: no side bit
    assert native[0][-2] == 1 << 12 | 0b010001_101010  # o to move: the side bit
    assert compiled(game, start, [*tokens, "t1"]) is None
    assert fast(game, start, [*tokens, "t1"]) is None


@needs_native
def test_the_compiled_replay_gives_up_on_what_it_does_not_decide():
    """A str subclass, a bit off the board, a ply out of its range: None, and the
    Python loop decides."""

    class Token(str):
        pass

    start = CONNECT4.rules.initial()
    assert compiled(CONNECT4, start, [Token("t4")]) is None
    assert fast(CONNECT4, start, [Token("t4")]) == python_replay(CONNECT4, start, ["t4"])
    off_board = GravityState(1 << 42, 0, 0, 0)
    assert compiled(CONNECT4, off_board, ["t4"]) is None
    assert fast(CONNECT4, off_board, ["t4"]) == python_replay(CONNECT4, off_board, ["t4"])
    assert compiled(CONNECT4, GravityState(-1, 0, 0, 0), ["t4"]) is None
    huge = GravityState(0, 0, 2**70, 0)
    assert compiled(CONNECT4, huge, ["t4"]) is None
    assert fast(CONNECT4, huge, ["t4"]) == python_replay(CONNECT4, huge, ["t4"])
    replay = native_replay.native_replay(7, 6, "t", 4)
    assert replay is not None
    assert replay.keys(bytes(11), -1, ["t4"]) is None
    assert replay.keys(bytes(11), 0, [4]) is None  # type: ignore[list-item]
    assert replay.keys(bytes(11), 0, []) == ([], [], 0, 0, 0)


@needs_native
def test_bad_arguments_raise_instead_of_crashing():
    replay = native_replay.native_replay(7, 6, "t", 4)
    assert replay is not None
    with pytest.raises(ValueError, match="2 \\* width \\* height bits"):
        replay.keys(bytes(10), 0, ["t4"])
    with pytest.raises(TypeError):
        replay.keys("not bytes", 0, ["t4"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="sequence"):
        replay.keys(bytes(11), 0, 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        replay.keys(bytes(11), "0", ["t4"])  # type: ignore[arg-type]
    for width, height, line in ((1, 6, 4), (17, 6, 4), (7, 6, 8), (7, 6, 1)):
        with pytest.raises(ValueError, match="no gravity board"):
            native_replay.native_replay(width, height, "t", line)


@needs_native
def test_a_compiled_replay_pickles():
    """A worker may receive a compiled replay: its copy replays the same."""
    replay = native_replay.native_replay(7, 6, "t", 4)
    copy = pickle.loads(pickle.dumps(replay))
    board = bytes(11)
    assert copy.keys(board, 0, ["t4", "t4", "t5"]) == replay.keys(board, 0, ["t4", "t4", "t5"])


@needs_native
def test_an_uninitialised_replay_raises_instead_of_crashing():
    from partita.games.gravity._native import Replay  # type: ignore[attr-defined]

    bare = Replay.__new__(Replay)
    with pytest.raises(ValueError, match="never initialised"):
        bare.keys(bytes(11), 0, ["t4"])
    with pytest.raises(ValueError, match="never initialised"):
        pickle.dumps(bare)


def test_without_the_compiled_module_the_python_loop_replays(monkeypatch):
    """Built or not: with no compiled replay, replay_keys still gives the loop's answer."""
    monkeypatch.setattr(native_replay, "_Replay", None)
    game = GravityNotation(GravityRules(7, 6, "t", 4))
    start = game.rules.initial()
    tokens = ["t4", "t4", "t5", "t3", "t1"]
    assert compiled(game, start, tokens) is None
    replayed = fast(game, start, tokens)
    assert replayed is not None
    assert replayed == python_replay(game, start, tokens)
    assert replayed[1] == [(1, True), (1, False), (2, True), (2, False), (3, True)]


def test_turned_off_the_compiled_replay_is_not_called(monkeypatch):
    def refuse(*args: object) -> None:
        raise AssertionError("the compiled replay ran while turned off")

    monkeypatch.setattr(native_replay, "enabled", False)
    monkeypatch.setattr(native_replay, "compiled_replay", refuse)
    replayed = fast(FORZA4X4, FORZA4X4.rules.initial(), ["t4", "l1"])
    assert replayed is not None and len(replayed[0]) == 2


@pytest.mark.parametrize(("value", "enabled"), [("1", False), ("0", native_replay.available)])
def test_the_environment_switch_is_read_at_import(value, enabled):
    environment = {**os.environ, native_replay.PYTHON_REPLAY_VARIABLE: value}
    code = "from partita.games.gravity import native_replay; print(native_replay.enabled)"
    output = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == str(enabled)


@needs_native
@settings(max_examples=examples(300, fast=60), deadline=None)
@given(data=st.data(), game_name=st.text(max_size=150))
def test_keys_folded_in_the_call_are_the_archives_folded_keys(data, game_name):
    """Given the archive's fold, the compiled replay folds each key as
    ``keys.fold_key`` does (its own BLAKE2b over the fold's opaque prefixes: game
    names of one to several hash blocks, any key size)."""
    game = data.draw(boards())
    start, tokens = data.draw(lines(game))
    replay = native_replay.compiled_replay(game)
    assert replay is not None
    plain = replay(start, tokens)
    folded = replay(start, tokens, key_list_folder(game_name))
    if plain is None:
        assert folded is None
        return
    assert folded is not None
    assert folded[0] == [fold_key(game_name, key) for key in plain[0]]
    assert all(-(2**63) <= key < 2**63 for key in folded[0])
    assert folded[1:] == plain[1:]


@needs_native
@pytest.mark.parametrize("size", [0, 1, 100, 101, 102, 110, 111, 112, 113, 127, 128, 129, 257])
def test_the_c_blake2b_is_hashlibs_at_every_block_boundary(size):
    """The prefix lengths around the 128-byte blocks (the name, NUL, five bytes of
    the fold's prefix, one to 65 of the key's): every folded key of a line on the
    largest board equals hashlib's."""
    game = GravityNotation(GravityRules(16, 16, "t", 4))
    replay = native_replay.compiled_replay(game)
    assert replay is not None
    name = "g" * size
    tokens = [f"t{column}" for column in range(1, 17)] * 3
    start = game.rules.initial()
    plain = replay(start, tokens)
    folded = replay(start, tokens, key_list_folder(name))
    assert plain is not None and folded is not None
    expected = [
        int.from_bytes(
            blake2b((name + "\x00").encode() + encode_key(key), digest_size=8).digest(),
            "little",
            signed=True,
        )
        for key in plain[0]
    ]
    assert folded[0] == expected


@needs_native
def test_fold_prefixes_that_are_no_tuple_of_bytes_are_refused():
    replay = native_replay.native_replay(7, 6, "t", 4)
    assert replay is not None
    with pytest.raises(TypeError, match="tuple of bytes"):
        replay.keys(bytes(11), 0, ["t4"], b"forza4x4\x00")
    with pytest.raises(TypeError, match="are bytes"):
        replay.keys(bytes(11), 0, ["t4"], ("a",) * 20)
    with pytest.raises(ValueError, match="no fold prefix"):
        replay.keys(bytes(11), 0, ["t4"], ())


@settings(max_examples=examples(300, fast=60), deadline=None)
@given(data=st.data(), compiled=st.booleans())
def test_the_fast_replay_given_a_fold_gives_the_folded_keys_either_way(data, compiled):
    """``fast_replay(...)(state, tokens, fold)`` (the bulk import's call) is the fold
    of the Python loop's keys, by the compiled replay and by the Python loop
    (``PARTITA_PYTHON_REPLAY=1``); it refuses exactly the same lines."""
    game = data.draw(boards())
    start, tokens = data.draw(lines(game))
    expected = python_replay(game, start, tokens)
    fold = key_list_folder("forza4x4")
    saved = native_replay.enabled
    native_replay.enabled = compiled and native_replay.available
    try:
        got = native_replay.fast_replay(game)(start, tokens, fold)
    finally:
        native_replay.enabled = saved
    if expected is None:
        assert got is None
        return
    assert got == ([fold_key("forza4x4", key) for key in expected[0]], *expected[1:])
