"""The conformance suite (:mod:`partita.conformance`), run over every registered game.

Every game in every variant it declares, for every number of sides it admits; the
random checks get their seeds from Hypothesis, which shrinks a failure to a small
seed. What each check asserts is in the docstring of its function. The default run
plays a few random games per set-up; ``--hypothesis-profile=thorough`` plays more.
"""

from __future__ import annotations

import random

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from partita import conformance
from partita.game.registry import all_specs

SPECS = all_specs()
#: Every set-up of every game: ``forza4x4-2``, ``universal-forces-10-3``...
CASES = [case for spec in SPECS for case in conformance.cases(spec)]
CONFIGS = [pytest.param(case, id=case.id) for case in CASES]
SEEDS = st.integers(0, 2**32 - 1)


def test_registry_has_the_foundation_games():
    names = {spec.name for spec in SPECS}
    assert {"forza4x4", "connect4"} <= names


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_spec_is_well_formed(spec):
    conformance.check_spec(spec)


@pytest.mark.parametrize("case", CONFIGS)
@settings(max_examples=examples(15, fast=4), deadline=None)
@given(seed=SEEDS)
def test_random_playouts_respect_the_contract(case, seed):
    conformance.check_playouts(case.game, case.sides, tags=case.tags, seed=seed)


@pytest.mark.parametrize("case", CONFIGS)
@settings(max_examples=examples(10, fast=2), deadline=None)
@given(seed=SEEDS)
def test_position_notation_round_trips(case, seed):
    conformance.check_position_round_trip(case.game, case.sides, tags=case.tags, seed=seed)


@pytest.mark.parametrize("case", CONFIGS)
@settings(max_examples=examples(10, fast=2), deadline=None)
@given(seed=SEEDS)
def test_replaying_a_written_record_equals_incremental_play(case, seed):
    conformance.check_record_replay(case.game, case.sides, tags=case.tags, seed=seed)


@pytest.mark.parametrize("case", CONFIGS)
def test_symmetries_act_consistently(case):
    conformance.check_symmetries(case.game, case.sides, tags=case.tags, seed=7)


@pytest.mark.parametrize("case", CONFIGS)
def test_initial_position_and_diagram(case):
    conformance.check_initial_position(case.game, case.sides, tags=case.tags)


@pytest.mark.parametrize("case", CONFIGS)
def test_bad_input_raises_partita_errors(case):
    conformance.check_bad_input(case.game, case.sides, tags=case.tags)


@pytest.mark.parametrize("case", CONFIGS)
def test_boards_draw_random_positions(case):
    conformance.check_board(case.game, case.sides, tags=case.tags, seed=3)


@pytest.mark.parametrize("case", CONFIGS)
def test_every_legal_move_is_clicked_on_regions_that_spell_it(case):
    conformance.check_regions(case.game, case.sides, tags=case.tags, seed=5)


def test_a_board_whose_clicks_spell_another_move_fails_the_regions_check(monkeypatch):
    from partita.games.gravity.board import GravityBoard

    monkeypatch.setattr(GravityBoard, "move_text", lambda self, state, regions: "t1")
    with pytest.raises(AssertionError, match=r"connect4, 2 sides, seed 0, ply \d+.*spell 't1'"):
        conformance.check_regions("connect4", 2, seed=0)


def test_a_board_that_draws_a_piece_it_has_no_colour_for_fails_the_board_check(monkeypatch):
    """A piece code without a declared colour would be drawn grey: the suite refuses it."""
    from partita.games.gravity.board import GravityBoard

    monkeypatch.setattr(GravityBoard, "piece_colours", {"x": ("#d7263d", "#8c1020")})
    with pytest.raises(
        AssertionError, match=r"connect4, 2 sides.*piece codes \['o'\] have no colour"
    ):
        conformance.check_board("connect4", 2, seed=0)


# -- the suite itself: its checks fail on a broken game, and say where --------------------------


class _Broken:
    """A game that wraps a real one and breaks one thing of the contract."""

    def __init__(self, game, **overrides):
        self._game = game
        self._overrides = overrides

    def __getattr__(self, name):
        return self._overrides.get(name) or getattr(self._game, name)


def _connect4():
    return next(case.game for case in CASES if case.game.name == "connect4")


def test_a_token_that_does_not_read_back_fails_the_playout_check():
    game = _connect4()
    broken = _Broken(game, format_move=lambda state, move: "t1")
    with pytest.raises(AssertionError, match=r"connect4, 2 sides, seed 0, ply \d+: format_move"):
        conformance.check_playouts(broken, 2, seed=0)


def test_a_position_that_does_not_read_back_fails_the_round_trip_check():
    game = _connect4()
    broken = _Broken(game, parse_position=lambda text, sides=None: game.initial())
    with pytest.raises(AssertionError, match="reads back"):
        conformance.check_position_round_trip(broken, 2, seed=1)


def test_a_traceback_on_bad_input_fails_the_bad_input_check():
    game = _connect4()

    def crash(state, token):
        raise KeyError(token)

    broken = _Broken(game, parse_move=crash)
    with pytest.raises(AssertionError, match=r"parse_move\(''\) raised KeyError"):
        conformance.check_bad_input(broken, 2)


def test_a_game_stuck_before_its_end_fails_with_its_position():
    game = _connect4()
    rules = _Broken(
        game.rules,
        legal_moves=lambda state: [] if state.ply == 3 else game.rules.legal_moves(state),
    )
    broken = _Broken(game, rules=rules)
    with pytest.raises(AssertionError, match=r"ply 3: the game is not over but legal_moves"):
        conformance.random_playout(broken, 2, random.Random(0))


def test_run_conformance_reports_every_check_and_the_failures():
    results = conformance.run_conformance("connect4", seeds=1)
    names = [result.check for result in results]
    assert names == ["spec", *(check.name for check in conformance.CHECKS)]
    assert all(result.passed for result in results), [r.message for r in results if not r.passed]
    assert conformance.summary(results) == f"{len(names)} checks: {len(names)} passed, 0 failed"


def test_the_module_cli_exits_1_on_a_failure_and_2_on_an_unknown_game(capsys, monkeypatch):
    def fail(game, sides=2, *, tags=None):
        raise AssertionError("the initial position is wrong")

    check = conformance.Check("initial position", fail)
    monkeypatch.setattr(conformance, "CHECKS", (check,))
    assert conformance.main(["connect4", "--seeds", "1"]) == 1
    out = capsys.readouterr().out
    assert "ok    spec" in out
    assert "FAIL  initial position     connect4-2" in out
    assert "the initial position is wrong" in out
    assert out.rstrip().endswith("connect4: 2 checks: 1 passed, 1 failed")
    with pytest.raises(SystemExit) as exit_info:
        conformance.main(["no-such-game"])
    assert exit_info.value.code == 2
    assert "unknown game 'no-such-game'" in capsys.readouterr().err
