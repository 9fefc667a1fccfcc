"""The report's section on annotated games: evaluation curves and largest drops."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from test_annotate import BLUNDER_PLY, RECORD

from partita.analysis.annotate import annotate_record
from partita.analysis.report import build_report, render_html, render_markdown
from partita.analysis.report.evaluations import CURVES, evaluated_game
from partita.bulk import import_paths
from partita.database.schema import archive as opened_archive
from partita.game.registry import get_game
from partita.notation.reader import parse_record, read_records
from partita.notation.writer import write_record

ROOT = Path(__file__).resolve().parent.parent

# Written by hand: x (Ada) throws 0.50 away at ply 3, o (Bea) 0.20 at ply 2.
HAND = """[Game "connect4"]
[Event "Hand annotated"]
[Date "2025.02.01"]
[Player1 "Ada"]
[Player2 "Bea"]
[Result "*"]

{[%eval 0.55,0.45]} 1. t4 {[%eval 0.60,0.40]} 1... t4 {[%eval 0.80,0.20]}
2. t3? {[%eval 0.30,0.70]} {a comment} *
"""
PLAIN = """[Game "connect4"]
[Event "Not annotated"]
[Player1 "Cleo"]
[Player2 "Dan"]
[Result "*"]

1. t4 t4 *
"""


def evaluation_part(data: dict, game: str):
    (part,) = [part for part in data["games"] if part["game"] == game]
    sections = [s for s in part["sections"] if s.title == "Annotated games: evaluation"]
    return sections[0] if sections else None


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    folder = tmp_path_factory.mktemp("evaluations")
    solved = parse_record(RECORD)
    annotate_record(solved)  # exact values: the blunder at ply 3 drops o from 1 to 1/2
    (folder / "games.pgr").write_text(
        "\n".join([write_record(solved), HAND, PLAIN]), encoding="utf-8"
    )
    (folder / "forza.pgr").write_text(
        (ROOT / "examples" / "forza4x4" / "club-championship-2024.pgr").read_text("utf-8"),
        encoding="utf-8",
    )
    db = folder / "evaluations.db"
    with opened_archive(db) as opened:
        import_paths(opened, [folder / "games.pgr", folder / "forza.pgr"])
    return db


def test_the_hand_written_values_give_the_curve_and_the_drops():
    evaluated = evaluated_game(parse_record(HAND), get_game("connect4"))
    assert evaluated is not None and evaluated.sides == 2
    assert evaluated.plies == [0, 1, 2, 3]
    assert evaluated.curve == [(0.55, 0.45), (0.60, 0.40), (0.80, 0.20), (0.30, 0.70)]
    drops = [(d.seat, d.ply, d.move, d.nag, round(d.drop, 2)) for d in evaluated.drops]
    assert drops == [(1, 2, "t4", "", 0.2), (0, 3, "t3", "?", 0.5)]


def test_a_record_without_values_has_no_curve():
    assert evaluated_game(parse_record(PLAIN), get_game("connect4")) is None


def test_the_section_lists_each_players_largest_drops(archive):
    with opened_archive(archive, readonly=True) as opened:
        section = evaluation_part(build_report(opened), "connect4")
    assert section is not None
    assert section.paragraphs[0].startswith("2 annotated games")
    (table,) = section.tables
    assert table.headers == ["player", "game", "ply", "move", "before", "after", "drop"]
    rows = {(row[0], row[2], row[3], row[4], row[5], row[6]) for row in table.rows}
    # Ada: the hand-written ?; Bea: the solver's ?? (o's win thrown into a draw) and
    # the hand-written drop, the larger first.
    assert rows == {
        ("Ada", 3, "t3?", "0.80", "0.30", "0.50"),
        ("Bea", BLUNDER_PLY, "t1??", "1.00", "0.50", "0.50"),
        ("Bea", 2, "t4", "0.40", "0.20", "0.20"),
    }
    bea = [row for row in table.rows if row[0] == "Bea"]
    assert [row[3] for row in bea] == ["t1??", "t4"]
    assert "Cleo" not in {row[0] for row in table.rows}


def test_each_annotated_game_gets_a_curve_per_side(archive):
    with opened_archive(archive, readonly=True) as opened:
        data = build_report(opened)
    section = evaluation_part(data, "connect4")
    assert len(section.charts) == 2
    for chart in section.charts:
        svg = ElementTree.fromstring(str(chart))
        texts = {
            "".join(node.itertext()).strip() for node in svg.iter() if node.tag.endswith("text")
        }
        assert {"Ada", "Bea", "ply", "expected score"} <= texts
        assert any(text.endswith("expected score by ply") for text in texts)
    page = render_html(data)
    assert "Annotated games: evaluation" in page
    assert len(re.findall(r"expected score by ply", page)) == 2
    markdown = render_markdown(data)
    assert "| Ada | " in markdown and "t1??" in markdown


def test_games_without_values_get_no_section(archive):
    with opened_archive(archive, readonly=True) as opened:
        assert evaluation_part(build_report(opened), "forza4x4") is None


def test_only_the_latest_games_are_drawn(tmp_path):
    records = [HAND.replace("2025.02.01", f"2025.02.{day:02d}") for day in range(1, CURVES + 3)]
    path = tmp_path / "many.pgr"
    path.write_text("\n".join(records), encoding="utf-8")
    with opened_archive(tmp_path / "many.db") as opened:
        import_paths(opened, [path])
    with opened_archive(tmp_path / "many.db", readonly=True) as opened:
        section = evaluation_part(build_report(opened), "connect4")
    assert len(section.charts) == CURVES
    assert f"the latest {CURVES} are drawn" in section.paragraphs[0]
    assert section.paragraphs[0].startswith(f"{CURVES + 2} annotated games")


@pytest.mark.parametrize(
    "path",
    ["circular-reasoning/forced-pass.pgr", "universal-forces/many-sides-race-home.pgr"],
)
def test_the_curve_reads_back_what_annotate_wrote(path):
    record = next(iter(read_records(ROOT / "examples" / path)))
    game = get_game(path.split("/")[0])
    annotation = annotate_record(record, agent="greedy", max_nodes=5_000)
    evaluated = evaluated_game(parse_record(write_record(record)), game)
    assert evaluated is not None and evaluated.sides == annotation.sides
    assert evaluated.plies[0] == 0 and evaluated.plies[-1] == annotation.plies[-1].ply
    by_ply = dict(zip(evaluated.plies, evaluated.curve, strict=True))
    for ply in annotation.plies:
        if ply.ply in by_ply:
            assert by_ply[ply.ply] == tuple(round(part, 2) for part in ply.after)
            if ply.mover is not None and ply.ply - 1 in by_ply:
                drop = round(by_ply[ply.ply - 1][ply.mover] - by_ply[ply.ply][ply.mover], 2)
                listed = [d for d in evaluated.drops if d.ply == ply.ply]
                assert bool(listed) == (drop > 0)
