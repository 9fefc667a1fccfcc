"""`partita` end to end on the Universal Forces examples: validate, import, query,
show (text, position, svg) and export."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from test_cli import partita

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "examples" / "universal-forces"
STUDIES = FOLDER / "studies.pgr"
INVALID = ROOT / "examples" / "invalid" / "universal-forces"


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("uf") / "uf.db"
    code, out, _ = partita("import", str(FOLDER), "--db", str(db), "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["imported"] == summary["records"] == 14
    return db


def test_validate_the_examples_and_the_invalid_records():
    code, out, _ = partita("validate", "--strict", "--json", str(FOLDER))
    assert code == 0
    entries = [json.loads(line) for line in out.splitlines()]  # JSON lines
    assert entries and all(entry["valid"] for entry in entries)
    code, out, _ = partita("validate", "--json", str(INVALID / "weaker-cannot-take.pgr"))
    assert code == 1
    [entry] = [json.loads(line) for line in out.splitlines()]
    [problem] = entry["problems"]
    assert problem["message"] == "illegal move 'M1:3xM1:4': water cannot take wind"


def test_query_by_sides_player_and_result(archive):
    code, out, _ = partita(
        "query", "--db", str(archive), "--sides", "3", "--player", "dagny",
        "--result", "1/2-1/2-0", "--json",
    )  # fmt: skip
    assert code == 0
    [row] = json.loads(out)
    assert row["game"] == "universal-forces" and row["sides"] == 3
    assert row["players"] == ["Dagny Østergaard", "Émile Laurent", "Farida Haddad"]
    code, out, _ = partita("query", "--db", str(archive), "--sides", "4", "--json")
    assert len(json.loads(out)) == 3
    code, out, _ = partita(
        "query", "--db", str(archive), "--game", "universal-forces", "--position",
        "- 1:GGGYYYBBBRRR/-/- 2:GGGYYYBBBRRR/-/- 1 1", "--json",
    )  # fmt: skip
    assert {row["sides"] for row in json.loads(out)} == {2}


def test_show_text_position_and_svg():
    code, out, _ = partita("show", str(STUDIES), "--index", "1", "--format", "position")
    assert code == 0
    assert out.strip() == "- 1:-/GGYB/GYYBBRRR 2:-/GGY/GYYBBBRRR 1 33"
    code, out, _ = partita("show", str(STUDIES), "--index", "1")
    assert "32. -- C1-H 1-0" in out and "no side can move" in out
    code, out, _ = partita("show", str(STUDIES), "--index", "3", "--ply", "1", "--format", "svg")
    assert code == 0
    svg = ElementTree.fromstring(out)
    classes = [(e.get("class") or "").split() for e in svg.iter()]
    classes = [c for c in classes if "home" not in c]  # forces on the home cards
    # after the third-side take: Player1's mountains on M2:4 and O3:12, Player2's
    # stacks on M1:9 and O3:13 and mountain on O2:30, Player3's mountain on M1:10
    assert sum("piece" in c for c in classes) == 8
    assert sum("stack" in c for c in classes) == 2
    assert sum("pin" in c for c in classes) == 0
    code, out, _ = partita("show", str(STUDIES), "--index", "0", "--format", "svg")
    svg = ElementTree.fromstring(out)
    assert sum("pin" in (e.get("class") or "").split() for e in svg.iter()) == 2
    # the end of study 2: the board is empty, the homes hold G, B and Y (Player1)
    # and G, Y (Player2)
    code, out, _ = partita("show", str(STUDIES), "--index", "1", "--format", "svg")
    svg = ElementTree.fromstring(out)
    homes = [e for e in svg.iter() if "home" in (e.get("class") or "").split()]
    assert [e.get("class").split()[-1] for e in homes] == [
        "piece-1G", "piece-1Y", "piece-1B", "piece-2G", "piece-2Y",
    ]  # fmt: skip


def test_export_then_import_gives_the_same_games(archive, tmp_path):
    exported = tmp_path / "uf.pgr"
    assert partita("export", "--db", str(archive), "-o", str(exported))[0] == 0
    again = tmp_path / "again.db"
    code, out, _ = partita("import", str(exported), "--db", str(again), "--json")
    assert code == 0 and json.loads(out)["imported"] == 14

    def rows(db):
        data = json.loads(partita("query", "--db", str(db), "--json")[1])
        return sorted((r["result"], r["plies"], r["final_position"]) for r in data)

    assert rows(again) == rows(archive)
