"""Every CLI command on the Circular Reasoning examples, end to end, and the board.

One archive is built from ``examples/circular-reasoning`` for the module; each
command runs through the console script's entry point, in-process (exit code,
stdout and stderr as a user sees them), and the drawings are checked as XML.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from test_cli import partita

from partita.analysis.diagrams import PIECE_STYLES, board_for, render_diagram
from partita.games.circular_reasoning.notation import CIRCULAR_REASONING

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "circular-reasoning"
SPEC = EXAMPLES / "spec-example.pgr"
SPEC_POSITION = "1:C@,TO3,S@ 2:C@,TO4,S@ / O11 M5 I13 / 2 P2"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("cr") / "games.db"
    code, out, _ = partita("import", str(EXAMPLES), "--db", str(db), "--json")
    assert code == 0
    summary = json.loads(out)
    records = sum(path.read_text().count("[Game ") for path in EXAMPLES.glob("*.pgr"))
    assert summary["imported"] == summary["records"] == records
    return db


def test_validate_the_examples_strictly():
    code, out, _ = partita("validate", "--strict", "--json", str(EXAMPLES))
    assert code == 0
    entries = [json.loads(line) for line in out.splitlines()]  # JSON lines
    assert entries and all(entry["valid"] for entry in entries)
    [spec] = [entry for entry in entries if entry["file"].endswith("spec-example.pgr")]
    assert spec["final_position"] == SPEC_POSITION


def test_validate_an_invalid_record_names_the_problem():
    path = ROOT / "examples" / "invalid" / "circular-reasoning" / "blocked-gateway.pgr"
    code, out, _ = partita("validate", str(path))
    assert code == 1
    assert "T>M11" in out and "large gateway is blocked" in out


def test_query_by_sides_and_position(archive):
    for sides, files in (
        (2, ("two-sides", "spec", "forced")),
        (3, ("three", "own")),
        (4, ("four",)),
    ):
        code, out, _ = partita("query", "--db", str(archive), "--sides", str(sides), "--json")
        assert code == 0
        rows = json.loads(out)
        assert rows and all(row["sides"] == sides for row in rows)
        assert all(len(row["players"]) == sides for row in rows)
        expected = sum(
            path.read_text().count("[Game ")
            for path in EXAMPLES.glob("*.pgr")
            if path.name.startswith(files)
        )
        assert len(rows) == expected
    # basic and advanced games share their position text: the filter chooses
    code, _, err = partita("query", "--db", str(archive), "--position", SPEC_POSITION, "--json")
    assert code == 2
    assert "2 set-ups of circular-reasoning" in err and "--tag Variant=basic" in err
    code, out, _ = partita(
        "query",
        "--db",
        str(archive),
        "--position",
        SPEC_POSITION,
        "--tag",
        "Variant=basic",
        "--json",
    )
    assert code == 0
    assert [row["event"] for row in json.loads(out)] == ["Spec example"]
    code, out, _ = partita(
        "query", "--db", str(archive), "--game", "circular-reasoning", "--result", "0-0-1", "--json"
    )
    assert code == 0 and all(row["result"] == "0-0-1" for row in json.loads(out))


def test_show_text_position_pgr_json_and_svg():
    code, out, _ = partita("show", str(SPEC))
    assert code == 0
    assert "1. @T>O3 @T>O4 *" in out
    assert "round 2: blue (Player2) to move" in out
    code, out, _ = partita("show", str(SPEC), "--format", "position")
    assert (code, out.strip()) == (0, SPEC_POSITION)
    code, out, _ = partita("show", str(SPEC), "--ply", "1", "--format", "position")
    assert out.strip() == "1:C@,TO3,S@ 2:C@,T@,S@ / O9 M5 I13 / 1 P2"
    code, out, _ = partita("show", str(SPEC), "--format", "pgr")
    assert code == 0 and "1. @T>O3 {" in out and "@T>O4 {" in out
    code, out, _ = partita("show", str(SPEC), "--format", "json")
    assert json.loads(out)["moves"] == ["@T>O3", "@T>O4"]
    code, out, _ = partita("show", str(SPEC), "--format", "svg")
    assert code == 0
    svg = ElementTree.fromstring(out)
    pieces = [e for e in svg.iter() if "piece" in (e.get("class") or "").split()]
    assert len(pieces) == 6  # every token: two on the board, four in the reserves
    gateways = [e for e in svg.iter() if e.get("class") == "gateway"]
    assert [g.get("data-cell") for g in gateways] == ["O11", "M5", "I13"]


def test_export_and_reimport(archive, tmp_path):
    exported = tmp_path / "cr.pgr"
    code, _, _ = partita(
        "export", "--db", str(archive), "--game", "circular-reasoning", "-o", str(exported)
    )
    assert code == 0
    text = exported.read_text(encoding="utf-8")
    assert text.count('[Game "circular-reasoning"]') == 16
    assert '[Layout "entrance=O5 large=O1 medium=M9 small=I3"]' in text
    code, out, _ = partita("validate", "--strict", str(exported))
    assert code == 0


def test_tree_needs_one_set_up_and_then_shows_the_openings(archive):
    code, _, err = partita("tree", "--db", str(archive), "--game", "circular-reasoning")
    assert code == 1 and "set up in" in err and "--sides 3" in err
    code, out, _ = partita(
        "tree",
        "--db",
        str(archive),
        "--game",
        "circular-reasoning",
        "--sides",
        "2",
        "--tag",
        "Variant=basic",
        "--depth",
        "2",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert "@T>O3" in out and "@C<O16" in out
    assert data


def test_report_html_and_markdown(archive, tmp_path):
    for name in ("cr.html", "cr.md"):
        target = tmp_path / name
        code, _, _ = partita(
            "report",
            "--db",
            str(archive),
            "--game",
            "circular-reasoning",
            "-o",
            str(target),
            "--no-charts",
        )
        assert code == 0
        text = target.read_text(encoding="utf-8")
        assert "Circular Reasoning (4 sides" in text
    html = (tmp_path / "cr.html").read_text(encoding="utf-8")
    assert "piece-1C" in html


# -- the board ----------------------------------------------------------------------------


def test_board_layout_and_cells():
    board = board_for(CIRCULAR_REASONING)
    layout = board.layout
    assert len(layout.cells) == 48 + 48 + 12 + 12
    state = CIRCULAR_REASONING.parse_position("1:CG,TO3,S@ 2:C@,TI16,SG / O11 M5 I13 / 2 P2")
    cells = board.cells(state)
    assert len(cells) == len(layout.cells)
    # codes start with the side's colour letter (red, blue by default): the viewer
    # colours pieces by it
    assert cells[2] == "rT"  # O3
    assert cells[2 * 16 + 15] == "bT"  # I16
    assert cells[48 + 10] == "GL" and cells[48 + 16 + 4] == "GM" and cells[48 + 32 + 12] == "GS"
    assert cells[96 + 0] == "rC" and cells[96 + 5] == "bS"  # the Goal Area
    assert cells[108 + 2] == "rS" and cells[108 + 3] == "bC"  # the reserves
    assert sum(1 for code in cells if code) == 6 + 3
    white_red = board_for(CIRCULAR_REASONING.configure({"Colors": "white red"}))
    assert white_red.cells(state)[2] == "wT"
    assert PIECE_STYLES["w"][0] == "#f7f7f2" and PIECE_STYLES["r"][0] == "#d7263d"
    # segment 1 is at the top, segment 5 of the outer track to its right
    (x1, y1), (x5, y5) = layout.cells[0], layout.cells[4]
    assert y1 < y5 and x5 > x1


def test_board_svg_draws_shapes_in_colours():
    game = CIRCULAR_REASONING.configure({"Colors": "white red", "Player1": "A", "Player2": "B"})
    state = game.parse_position("1:CG,TO3,S@ 2:C@,TI16,SG / O11 M5 I13 / 2 P2")
    svg = ElementTree.fromstring(render_diagram(game, state, caption="a <test>"))
    assert svg.find(f"{SVG}title").text == "a <test>"
    pieces = {e.get("class").split()[1]: e for e in svg.iter() if "piece" in (e.get("class") or "")}
    assert pieces["piece-1C"].tag == f"{SVG}circle"
    assert pieces["piece-1T"].tag == f"{SVG}polygon"
    assert pieces["piece-1S"].tag == f"{SVG}rect"
    assert pieces["piece-1C"].get("fill") == "#f7f7f2"  # Player1 plays white here
    assert pieces["piece-2T"].get("fill") == "#d7263d"
    texts = [e.text for e in svg.iter(f"{SVG}text")]
    assert "entrance O1" in texts and "Goal Area" in texts
    assert "round 2: red (Player2) to move" in texts


def test_the_generator_reproduces_the_shipped_examples(tmp_path, monkeypatch):
    """tools/examples/circular_reasoning.py is seeded: run again, it writes
    the same files."""
    from example_generators import generator

    module = generator("circular_reasoning")

    written = [path for path, _ in module.build(tmp_path)]
    assert sorted(p.name for p in written) == sorted(p.name for p in EXAMPLES.glob("*.pgr"))
    for made in written:
        shipped = EXAMPLES / made.name
        assert made.read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")


def test_examples_cover_every_side_count_and_variant_with_comments():
    from partita.notation.reader import read_records
    from partita.notation.replay import replay

    seen = set()
    for path in EXAMPLES.glob("*.pgr"):
        for record in read_records(path):
            replayed = replay(record, strict=True)
            assert replayed.problems == []
            sides = sum(1 for name in record.tags if name.startswith("Player"))
            seen.add((sides, record.tags.get("Variant", "basic"), replayed.outcome is not None))
            comments = [node.comments for node in record.root.mainline() if node.comments]
            assert comments, f"{path.name}: no comment on any move"
    for sides in (2, 3, 4):
        for variant in ("basic", "advanced"):
            assert (sides, variant, True) in seen, (sides, variant)
