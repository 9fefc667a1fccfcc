"""The opening tree's ratings (Scid's AvElo and Perf) and opening names per move, on
hand-computed examples: rating tags, the archive's Elo before each game, several
sides."""

from __future__ import annotations

import json
import re
from pathlib import Path

import networkx as nx
import pytest
from cli_runner import run_cli

from partita.bulk import import_paths
from partita.database.ratings import performance_rating
from partita.database.schema import archive


def record(game: str, moves: str, result: str, tags: dict[str, str], sides: int = 2) -> str:
    players = "".join(f'[Player{seat} "{"ABCD"[seat - 1]}"]\n' for seat in range(1, sides + 1))
    extra = "".join(f'[{name} "{value}"]\n' for name, value in tags.items())
    return f'[Game "{game}"]\n{players}[Result "{result}"]\n{extra}\n{moves} {result}\n'


def make_archive(folder: Path, records: list[str]) -> Path:
    (folder / "games.pgr").write_text("\n".join(records), encoding="utf-8")
    with archive(folder / "games.db") as opened:
        summary = import_paths(opened, [folder / "games.pgr"])
    assert summary.imported == len(records) and summary.invalid == 0
    return folder / "games.db"


def edges(db: Path, *args: str) -> dict[str, dict]:
    """The tree's edges by their line of moves from the root."""
    code, out, err = run_cli(["tree", "--db", db, *args, "--json"])
    assert code == 0, err
    tree = json.loads(out)
    lines = {tree["root"]: ""}
    found = {}
    for edge in tree["edges"]:  # by ply: a parent's line is known before its moves
        line = (lines[edge["from"]] + " " + edge["move"]).strip()
        lines.setdefault(edge["to"], line)
        found[line] = edge
    return found


def test_performance_follows_fides_normal_model():
    assert performance_rating(1800, 0.5) == 1800
    assert performance_rating(1800, 0.75) == pytest.approx(1800 + 190.77, abs=0.01)
    assert performance_rating(1800, 0.25) == pytest.approx(1800 - 190.77, abs=0.01)
    assert performance_rating(1800, 0.6) == pytest.approx(1800 + 71.66, abs=0.01)
    assert performance_rating(1800, 1.0) == 2600 and performance_rating(1800, 0.0) == 1000


def test_rating_tags_give_average_rating_and_performance(tmp_path):
    db = make_archive(
        tmp_path,
        [
            record("connect4", "t4 t4 t1", "1-0", {"Player1Elo": "2000", "Player2Elo": "1800"}),
            record("connect4", "t4 t3 t2", "1/2-1/2", {"Player1Elo": "2200", "Player2Elo": "1600"}),
            record("connect4", "t4 t4 t2", "1/2-1/2", {"Player1Elo": "1900", "Player2Elo": "2100"}),
        ],
    )
    found = edges(db, "--game", "connect4", "--depth", "2")
    first = found["t4"]
    # x: (2000 + 2200 + 1900) / 3; against (1800 + 1600 + 2100) / 3 scoring 2/3:
    # dp(2/3) = 282.84 * 0.43073 = 121.83.
    assert first["rating"] == pytest.approx(2033.3, abs=0.05) and first["rating_games"] == 3
    assert first["performance"] == pytest.approx(1833.33 + 121.83, abs=0.1)
    assert first["performance_games"] == 3
    stacked = found["t4 t4"]  # o in games 1 and 3: scores 0 and 1/2
    assert stacked["rating"] == 1950 and stacked["rating_games"] == 2
    assert stacked["performance"] == pytest.approx(1950 - 190.77, abs=0.1)
    beside = found["t4 t3"]  # o in game 2, a draw against 2200
    assert beside["rating"] == 1600 and beside["performance"] == 2200
    # The opening names of the positions the moves lead to.
    assert first["opening"] == "Centre opening"
    assert stacked["opening"] == "Centre opening, stacked reply"
    assert beside["opening"] == "Centre opening, left-centre reply"


def test_without_tags_the_archives_elo_before_each_game_counts(tmp_path):
    db = make_archive(
        tmp_path,
        [
            record("forza4x4", "t4 t4", "1-0", {"Date": "2024.01.01"}),
            record("forza4x4", "t4 r5", "0-1", {"Date": "2024.01.02"}),
            record("forza4x4", "t4 b1", "1-0", {}),  # undated: the archive rates it not
            record("forza4x4", "t1 t2", "1-0", {"Player1Elo": "1700"}),  # one seat's tag
        ],
    )
    found = edges(db, "--game", "forza4x4", "--depth", "2")
    # Game 1 from 1500 each; A wins: A 1516, B 1484 before game 2.
    centre = found["t4"]
    assert centre["rating"] == 1508 and centre["rating_games"] == 2
    # Against 1500 (won) and 1484 (lost): 1492 at 50 %.
    assert centre["performance"] == 1492 and centre["performance_games"] == 2
    assert found["t4 t4"]["rating"] == 1500 and found["t4 t4"]["performance"] == 1500 - 800
    assert found["t4 r5"]["rating"] == 1484 and found["t4 r5"]["performance"] == 1516 + 800
    unrated = found["t4 b1"]
    assert unrated["rating"] is None and unrated["rating_games"] == 0
    assert unrated["performance"] is None and unrated["performance_games"] == 0
    tagged = found["t1"]  # the mover's tag, but not the opponent's: no performance
    assert tagged["rating"] == 1700 and tagged["performance"] is None
    graphml = tmp_path / "tree.graphml"
    code, _, err = run_cli(["tree", "--db", db, "--game", "forza4x4", "--graphml", graphml])
    assert code == 0, err
    ratings = {
        (data["ply"], data["move"]): data.get("rating")
        for _, _, data in nx.read_graphml(graphml).edges(data=True)
    }
    # A number where known, left out where not (GraphML keeps one type per attribute).
    assert ratings[(1, "t4")] == 1508 and ratings[(1, "t1")] == 1700
    assert ratings[(2, "b1")] is None


def test_several_sides_average_the_opponents(tmp_path):
    tags = {"Player1Elo": "1600", "Player2Elo": "1700", "Player3Elo": "1800"}
    moves = "R@O1:31 B@O1:29 R@O1:23"
    db = make_archive(tmp_path, [record("universal-forces", moves, "1-0-0", tags, sides=3)])
    found = edges(db, "--game", "universal-forces", "--sides", "3", "--depth", "3")
    first = found["R@O1:31"]  # Player1 won against (1700 + 1800) / 2
    assert first["rating"] == 1600 and first["performance"] == 1750 + 800
    second = found["R@O1:31 B@O1:29"]  # Player2 lost against (1600 + 1800) / 2
    assert second["rating"] == 1700 and second["performance"] == 1700 - 800
    assert found[moves]["opening"] == "Three sides: fire, water, fire"


def test_the_table_shows_avelo_and_the_opening_where_known(tmp_path):
    db = make_archive(
        tmp_path,
        [
            record(
                "circular-reasoning",
                "@T>O3 @T>O4",
                "*",
                {"Player1Elo": "1812", "Player2Elo": "1790"},
            )
        ],
    )
    code, out, _ = run_cli(
        ["tree", "--db", db, "--game", "circular-reasoning"], env={"COLUMNS": "200"}
    )
    assert code == 0
    # AvElo and the opening; no Perf column, as no move has one (the game is undecided).
    assert "AvElo" in out and "Perf" not in out and "opening" in out
    row = next(line for line in out.splitlines() if "@T>O3" in line)
    assert "1812" in row and "Triangle entry (O3)" in row
    found = edges(db, "--game", "circular-reasoning")
    assert found["@T>O3"]["performance"] is None  # undecided: no performance


def test_no_ratings_leaves_the_columns_out_and_the_counts_as_they_are(tmp_path):
    db = make_archive(
        tmp_path,
        [
            record("connect4", "t4 t4 t1", "1-0", {"Player1Elo": "2000", "Player2Elo": "1800"}),
            record("connect4", "t4 t3 t2", "0-1", {"Player1Elo": "2200", "Player2Elo": "1600"}),
            record("connect4", "t3 t4", "1/2-1/2", {"Player1Elo": "1900", "Player2Elo": "2100"}),
        ],
    )
    table = ["tree", "--db", db, "--game", "connect4"]
    code, rated, err = run_cli(table, env={"COLUMNS": "200"})
    assert code == 0, err
    assert "AvElo" in rated and "Perf" in rated
    code, plain, err = run_cli([*table, "--no-ratings"], env={"COLUMNS": "200"})
    assert code == 0, err
    assert "AvElo" not in plain and "Perf" not in plain
    # The same moves with the same games, share, results, score and transpositions.
    assert counts_by_move(plain) == counts_by_move(rated)
    assert counts_by_move(plain) == {
        "t4": ["2", "67%", "1/0/1", "50%", "0"],
        "t3": ["1", "33%", "0/1/0", "50%", "0"],
    }
    with_ratings = edges(db, "--game", "connect4", "--depth", "2")
    without = edges(db, "--game", "connect4", "--depth", "2", "--no-ratings")
    assert with_ratings["t4"]["rating"] == 2100 and without["t4"]["rating"] is None
    assert all(edge["rating"] is None and edge["performance"] is None for edge in without.values())
    counted = ("games", "share", "won", "drawn", "lost", "score", "transpositions", "examples")
    for line, edge in with_ratings.items():
        kept = {name: value for name, value in edge.items() if name in counted}
        assert kept == {name: value for name, value in without[line].items() if name in counted}


def counts_by_move(table: str) -> dict[str, list[str]]:
    """The tree table's games, share, W/D/L, score and transpositions by root move
    (piped, the table is plain columns two spaces apart; deeper moves are indented)."""
    lines = table.splitlines()
    header = next(index for index, line in enumerate(lines) if line.startswith("move "))
    rows = [
        re.split(r"\s{2,}", line.strip())
        for line in lines[header + 1 :]
        if line and not line.startswith(" ") and line.split()[0].startswith("t")
    ]
    return {row[0]: row[1:6] for row in rows}
