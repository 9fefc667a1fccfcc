"""The compiled key replay (``_native.Replay``, the gravity games' ``fast_replay``)
gives exactly what the Python loop gives, on every gravity board the engine allows,
or gives up and leaves the Python loop to decide (differential, Hypothesis)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest
from budget import examples
from hypothesis import event, given, settings
from hypothesis import strategies as st

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
