"""`partita export` options on every game's examples: stripping, width, limit, the
NDJSON and CSV formats, splitting into a folder, and re-importing what was written."""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from cli_runner import run_cli

from partita.game.registry import all_games
from partita.notation.reader import read_records

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
KNOWN = {notation.name for notation in all_games()}


@pytest.fixture(scope="module")
def examples_archive(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("export") / "games.db"
    code, _, err = run_cli(["import", str(EXAMPLES), "--db", str(db)])
    assert code in (0, 1), err
    return db


def games(db: Path, *args: str) -> list[dict]:
    code, out, err = run_cli(["query", "--db", str(db), "--json", *args])
    assert code == 0, err
    return json.loads(out)


def same_game(row: dict) -> tuple:
    """What a re-import must keep of a game."""
    return (row["game"], row["event"], row["date"], tuple(row["players"]), row["result"],
            row["plies"], row["final_position"])  # fmt: skip


def export(db: Path, *args: str) -> str:
    code, out, err = run_cli(["export", "--db", str(db), *args])
    assert code == 0, err
    return out


def reimported(tmp_path: Path, name: str, *paths: Path) -> list[dict]:
    db = tmp_path / f"{name}.db"
    code, _, err = run_cli(["import", *map(str, paths), "--db", str(db)])
    assert code == 0, err
    return games(db)


def nodes(record):
    stack = [record.root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def test_stripped_exports_reimport_to_the_same_games(examples_archive, tmp_path):
    valid = [
        row for row in games(examples_archive) if row["status"] == "valid" and row["game"] in KNOWN
    ]
    assert {row["game"] for row in valid} == KNOWN
    target = tmp_path / "stripped.pgr"
    args = ["--no-comments", "--no-nags", "--no-variations", "--width", "40", "-o", str(target)]
    for game in sorted(KNOWN):
        args += ["--game", game]
    code, _, err = run_cli(["export", "--db", str(examples_archive), *args])
    assert code == 0, err
    records = list(read_records(target))
    assert len(records) == len(valid) + sum(
        1 for row in games(examples_archive) if row["status"] == "invalid" and row["game"] in KNOWN
    )
    for record in records:
        for node in nodes(record):
            assert not node.comments and not node.starting_comments and not node.nags
            assert len(node.children) <= 1 and not node.suffix
    text = target.read_text(encoding="utf-8")
    movetext = [line for line in text.splitlines() if line and not line.startswith("[")]
    # A longer line is one unit: a token, with its move number if it has one.
    assert all(len(line) <= 40 or re.fullmatch(r"(\d+\.+ )?\S+", line) for line in movetext)
    assert max(map(len, movetext)) > 40 and sum(len(line) > 40 for line in movetext) < 40
    again = reimported(tmp_path, "stripped", target)
    again_valid = Counter(same_game(row) for row in again if row["status"] == "valid")
    # Every valid game comes back the same; some invalid ones are valid once their
    # faulty variation or NAG is gone.
    assert Counter(same_game(row) for row in valid) <= again_valid
    assert len(again) == len(records)


def test_an_untouched_export_reimports_to_the_same_games(examples_archive, tmp_path):
    target = tmp_path / "all.pgr"
    export(examples_archive, "-o", str(target))
    before = games(examples_archive)
    after = reimported(tmp_path, "all", target)
    assert Counter(same_game(row) + (row["status"],) for row in after) == Counter(
        same_game(row) + (row["status"],) for row in before
    )


def test_limit_writes_the_first_games(examples_archive):
    out = export(examples_archive, "--limit", "3", "--format", "ndjson")
    ids = [json.loads(line)["id"] for line in out.splitlines()]
    assert ids == [row["id"] for row in games(examples_archive)][:3]


def test_ndjson_has_tags_moves_result_and_problems(examples_archive):
    lines = export(examples_archive, "--format", "ndjson").splitlines()
    rows = games(examples_archive)
    assert len(lines) == len(rows)
    objects = [json.loads(line) for line in lines]
    for obj, row in zip(objects, rows, strict=True):
        assert set(obj) == {"id", "game", "tags", "moves", "result", "status", "problems"}
        assert obj["id"] == row["id"] and obj["result"] == row["result"]
        assert len(obj["moves"]) == row["plies"]
        assert (obj["status"] == "invalid") <= bool(obj["problems"])
        assert obj["tags"].get("Game") == row["game"]
    assert any(obj["problems"] for obj in objects)


def test_csv_has_one_row_per_game_with_its_metadata(examples_archive):
    table = list(csv.DictReader(io.StringIO(export(examples_archive, "--format", "csv"))))
    rows = games(examples_archive)
    assert [int(row["id"]) for row in table] == [row["id"] for row in rows]
    for line, row in zip(table, rows, strict=True):
        assert line["game"] == (row["game"] or "") and int(line["plies"]) == row["plies"]
        assert line["player1"] == (row["players"][0] if row["players"] else "")
        assert len(line["moves"].split()) == row["plies"]


def test_split_by_a_tag_and_per_file_into_a_folder(examples_archive, tmp_path):
    folder = tmp_path / "split"
    code, _, err = run_cli(
        ["export", "--db", str(examples_archive), "--split-by", "Game", "--per-file", "7",
         "-o", str(folder)]
    )  # fmt: skip
    assert code == 0 and "files in" in err
    rows = games(examples_archive)
    for path in folder.iterdir():
        records = list(read_records(path))
        assert 1 <= len(records) <= 7
        stem = path.stem.rsplit("-", 1)[0]
        assert {record.game or "untagged" for record in records} <= {stem}
    for name in KNOWN:
        written = sum(len(list(read_records(path))) for path in folder.glob(f"{name}-*.pgr"))
        assert written == sum(row["game"] == name for row in rows)
    after = reimported(tmp_path, "split", folder)
    assert Counter(map(same_game, after)) == Counter(map(same_game, rows))


def test_split_refuses_an_existing_folder_and_needs_one(examples_archive, tmp_path):
    code, _, err = run_cli(["export", "--db", str(examples_archive), "--per-file", "5"])
    assert code == 2 and "-o DIR" in err
    code, _, err = run_cli(
        ["export", "--db", str(examples_archive), "--split-by", "Event", "-o", str(tmp_path)]
    )
    assert code == 1 and "exists already" in err
    assert list(tmp_path.iterdir()) == []


def test_stripped_copies_and_leaves_the_record_as_it_was():
    from partita.notation.strip import stripped

    text = '[Game "forza4x4"]\n\n{start} 1. t4! $1 {good} (1. r5 {other}) 1... r5 *\n'
    (record,) = read_records(io.StringIO(text))
    bare = stripped(record, comments=False, nags=False, variations=False)
    assert [node.move for node in nodes(bare)] == [None, "t4", "r5"]
    assert not any(node.comments or node.nags or node.suffix for node in nodes(bare))
    kept = stripped(record, variations=False)
    first = kept.root.children[0]
    assert (first.suffix, first.nags, first.comments) == ("!", [1], ["good"])
    assert kept.root.comments == ["start"] and len(record.root.children) == 2
    assert record.root.children[0].comments == ["good"]


@pytest.mark.parametrize(
    ("value", "stem"),
    [("Spring Open", "Spring_Open"), ("a/../b", "a_.._b"), ("", "untagged"), (None, "untagged"),
     ("..", "untagged"), ("2024.03.10", "2024.03.10")],
)  # fmt: skip
def test_file_stems_are_safe_names(value, stem):
    from partita.database.export import file_stem

    assert file_stem(value) == stem
