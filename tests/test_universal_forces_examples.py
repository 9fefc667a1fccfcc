"""The Universal Forces examples: 2, 3 and 4 sides, every kind of move, every ending.

What each game shows was worked out from its comments and moves; the test reads
the kinds of move and the endings back through the engine and checks that the
examples, between them, cover the lists below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from partita.games.universal_forces.rules import Step
from partita.notation.reader import read_records
from partita.notation.replay import replay

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "examples" / "universal-forces"
RECORDS = [record for path in sorted(FOLDER.glob("*.pgr")) for record in read_records(path)]

MOVE_KINDS = {
    "entry", "move", "stack", "take", "pin", "double take", "take and pin", "sacrifice",
    "conversion", "third-side take", "home", "pass",
}  # fmt: skip


def _replayed():
    return [(record, replay(record, strict=True)) for record in RECORDS]


def _ending(record, replayed) -> str:
    outcome = replayed.outcome
    if outcome is None:
        if record.tags["Result"] == "*":
            return "unfinished"
        return record.tags.get("Termination", "unexplained")
    reason = outcome.reason
    if "at home" in reason and "distinct" not in reason:
        return "home"
    if "pins every force" in reason:
        return "pins"
    if reason.startswith("no side can move"):
        return "no side can move"
    if reason.startswith("round limit"):
        return "round limit, shared" if outcome.winner is None else "round limit, won"
    return reason


def test_the_examples_replay_strictly_for_2_3_and_4_sides():
    sides = set()
    for record, replayed in _replayed():
        assert replayed.problems == [], record.tags
        sides.add(replayed.game.rules.sides(replayed.final_state))
    assert sides == {2, 3, 4}


def test_the_examples_use_every_kind_of_move():
    kinds = set()
    for _, replayed in _replayed():
        rules = replayed.game.rules
        state = replayed.initial_state
        for after, token in zip(replayed.states, replayed.moves, strict=True):
            move = replayed.game.parse_move(state, token)
            kinds.add(rules.describe(state, move))
            state = after
    assert kinds == MOVE_KINDS


def test_the_examples_end_every_way_the_spec_allows():
    endings = {_ending(record, replayed) for record, replayed in _replayed()}
    assert endings >= {
        "home", "pins", "no side can move", "round limit, won", "round limit, shared",
        "agreement", "unfinished",
    }  # fmt: skip


def test_a_partly_shared_round_limit_result_is_in_the_examples():
    results = {record.tags["Result"] for record in RECORDS}
    assert "1/2-1/2-0" in results
    assert "1/2-1/2-1/2-1/2" in results


def test_every_game_is_commented():
    for record in RECORDS:
        comments = [c for node in record.root.mainline() for c in node.comments]
        assert comments or record.root.comments, record.tags


def test_the_generic_operator_is_never_needed_in_the_written_examples():
    # the writer emits exact operators: every step's operator is what it does
    for _record, replayed in _replayed():
        state = replayed.initial_state
        for after, token in zip(replayed.states, replayed.moves, strict=True):
            move = replayed.game.parse_move(state, token)
            if isinstance(move, Step) and move.target != "H":
                assert token[len(move.origin)] == replayed.game.rules.operator(state, move)
            state = after


@pytest.mark.slow
def test_the_generator_reproduces_the_shipped_examples(tmp_path, monkeypatch):
    from example_generators import generator

    module = generator("universal_forces")

    written = module.build(tmp_path)
    assert {p.name for p, _ in written} == {p.name for p in FOLDER.glob("*.pgr")}
    for written_path, text in written:
        assert text == (FOLDER / written_path.name).read_text(encoding="utf-8")
