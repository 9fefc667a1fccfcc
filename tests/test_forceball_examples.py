"""The shipped Forceball examples: one complete game per league, made by
tools/examples/forceball.py (seeded), commented, showing what its league
adds to the rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from partita.notation.reader import read_records
from partita.notation.replay import replay

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "examples" / "forceball"
LEAGUES = ("little", "junior", "senior", "pro")


def _record(league: str):
    [record] = list(read_records(FOLDER / f"{league}.pgr"))
    return record


@pytest.mark.parametrize("league", LEAGUES)
def test_each_league_has_a_complete_commented_game(league):
    record = _record(league)
    assert record.tags["League"] == league and record.tags["Deck"] == "example"
    replayed = replay(record, strict=True)
    assert replayed.problems == []
    assert replayed.outcome is not None  # played to the end of the last period
    assert record.tags["Result"] == replayed.outcome.result_token()
    commented = [node for node in record.root.mainline() if node.comments]
    assert len(commented) >= 5
    shuffles = [move for move in replayed.moves if move.startswith("deck:")]
    assert len(shuffles) == (1 if league == "little" else 3)


def test_the_examples_show_what_each_league_adds():
    moves = {league: replay(_record(league), strict=True).moves for league in LEAGUES}
    assert not any(move.startswith("face:") for move in moves["little"])
    assert any(move.startswith("face:") for move in moves["junior"])
    assert any("%" in move for move in moves["junior"])  # transforming the speed
    assert any("^" in move for move in moves["junior"])  # force increases
    for league in ("senior", "pro"):
        assert any("=" in move for move in moves[league])  # fouls
        assert any("|" in move for move in moves[league])  # Lucky shot or Goalie
    assert any("*n" in move for move in moves["pro"]) and any("*y" in move for move in moves["pro"])


def test_the_generator_reproduces_the_shipped_examples(tmp_path, monkeypatch):
    from example_generators import generator

    module = generator("forceball")

    written = module.build(tmp_path)
    assert sorted(p.name for p, _ in written) == sorted(f"{league}.pgr" for league in LEAGUES)
    for made, _ in written:
        shipped = FOLDER / made.name
        assert made.read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")
