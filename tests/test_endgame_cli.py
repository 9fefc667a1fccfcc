"""`partita endgame`: positions from records or set-ups, text, JSON, GraphML, errors."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
from cli_runner import run_cli

UF_RACE = "I3:7=1R,I3:2=2R 1:-/GYB/GGYYBBRR 2:-/GYB/GGYYBBRR 1 37"
CR_NEAR = "1:CG,TG,SI12 2:CG,TG,SI10 / O11 M6 I13 / 7 P1"
RACE_ARGS = ["endgame", "--position", UF_RACE, "--game", "universal-forces"]
RACE_ARGS += ["--tag", "RoundLimit=40"]

CR_RECORD = f"""[Game "circular-reasoning"]
[Player1 "Ada"]
[Player2 "Bea"]
[Result "*"]
[SetUp "1"]
[Position "{CR_NEAR}"]

7. S<I7 *
"""


def test_a_set_up_position_is_solved_with_its_line_and_every_move():
    code, out, err = run_cli(RACE_ARGS)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1] == "Player1 to move: win in 3 plies"
    assert lines[2].startswith("best line: I3:7-C4 ") and lines[2].endswith(" C4-H")
    assert lines[3].split() == ["I3:7-C4", "win", "in", "3", "plies"]  # the best first
    assert lines[-2].split()[:3] == ["I3:7-I2:8", "loss", "in"]
    assert "the whole endgame (symmetric positions folded)" in lines[-1]


@pytest.fixture(scope="module")
def race_json():
    """``partita endgame`` on the race, ``--json``: run once for the tests that read it."""
    code, out, err = run_cli([*RACE_ARGS, "--json"])
    assert code == 0, err
    return json.loads(out)


def test_json_gives_the_value_the_line_and_what_the_graph_holds(race_json):
    data = race_json
    assert (data["value"], data["distance"], data["exact"]) == ("win", 3, True)
    assert data["side_to_move"] == 1 and data["outcome"] is None
    assert data["best"] == ["I3:7-C4"] and len(data["line"]) == 3
    assert [move["value"] for move in data["moves"]].count("win") == 4
    assert data["complete"] and data["fold_symmetry"]
    assert data["positions"] > 1000 and 0 < data["bytes"] < 200 * data["positions"]


def test_without_folding_the_graph_is_as_large_and_the_answer_the_same(race_json):
    folded = race_json
    plain = json.loads(run_cli([*RACE_ARGS, "--json", "--no-symmetry"]).stdout)
    # A round limit makes the sides' turns differ: nothing to fold in this one.
    assert plain["positions"] == folded["positions"]
    assert (plain["value"], plain["distance"], plain["moves"]) == (
        folded["value"],
        folded["distance"],
        folded["moves"],
    )
    assert not plain["fold_symmetry"]


def test_a_record_gives_the_position_after_a_ply(tmp_path):
    source = tmp_path / "game.pgr"
    source.write_text(CR_RECORD, encoding="utf-8")
    before = json.loads(run_cli(["endgame", str(source), "--ply", "0", "--json"]).stdout)
    assert before["position"] == CR_NEAR
    assert (before["value"], before["best"]) == ("win", ["S>G"])
    # Ada's square went the wrong way: Bea's square goes into the Goal Area next.
    after = json.loads(run_cli(["endgame", str(source), "--json"]).stdout)
    assert after["side_to_move"] == 2 and (after["value"], after["distance"]) == ("win", 1)
    assert after["exact"] is False  # a partial graph proved it
    code, out, _ = run_cli(["endgame", str(source), "--ply", "1"])
    assert code == 0 and "Player2 to move: win in at most 1 ply" in out
    assert "part of the endgame, so the distances are upper bounds" in out


def test_graphml_holds_the_line_and_every_move_along_it(tmp_path):
    target = tmp_path / "race.graphml"
    code, _, err = run_cli([*RACE_ARGS, "--graphml", str(target)])
    assert code == 0, err
    graph = nx.read_graphml(target)
    line = [node for node, data in graph.nodes(data=True) if data["line"]]
    assert len(line) == 4  # the root and three plies
    root = graph.nodes["p0"]
    assert (root["value"], root["distance"], root["side"]) == ("win", 3, 1)
    moves = {data["move"]: data for _, _, data in graph.out_edges("p0", data=True)}
    assert len(moves) == 7 and moves["I3:7-C4"]["best"] and not moves["I3:7-C3"]["best"]


def test_a_finished_game_says_how_it_ended(tmp_path):
    source = tmp_path / "over.pgr"
    source.write_text(CR_RECORD.replace("7. S<I7 *", "7. S>G 1-0").replace('"*"', '"1-0"'))
    code, out, err = run_cli(["endgame", str(source)])
    assert code == 0, err
    assert "the game is over: red (Player1) has all three tokens in the Goal Area" in out


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["endgame"], 2, "give a record (SOURCE) or --position"),
        (["endgame", "--position", CR_NEAR], 2, "name the game of the position"),
        (["endgame", "--position", "nonsense", "--game", "circular-reasoning"], 1, "malformed"),
        (["endgame", "--position", CR_NEAR, "--game", "chess"], 2, "chess"),
        ([*RACE_ARGS, "--tag", "RoundLimit"], 2, "not of the form NAME=VALUE"),
        (
            [
                "endgame",
                "--position",
                CR_NEAR,
                "--game",
                "circular-reasoning",
                "--tag",
                "Variant=x",
            ],
            2,
            "Variant 'x'",
        ),
        ([*RACE_ARGS, "--max-positions", "50"], 1, "not proven within the"),
        ([*RACE_ARGS, "--max-positions", "50", "--whole"], 1, "more than 50 positions"),
        (
            ["endgame", "examples/connect4/thursday-league.pgr", "--ply", "999"],
            1,
            "no position after",
        ),
        (
            [
                "endgame",
                "--position",
                "1:C@,T@,S@ 2:C@,T@,S@ 3:C@,T@,S@ / O9 M5 I13 / 1 P1",
                "--game",
                "circular-reasoning",
            ],
            1,
            "endgame graphs are for two sides",
        ),
        (["endgame", "examples/forceball/little.pgr", "--ply", "0"], 1, "chance moves"),
        ([*RACE_ARGS, "--graphml", "/no/such/folder/x.graphml"], 2, "no folder"),
    ],
)
def test_bad_input_gives_one_line(args, code, message):
    result = run_cli(args)
    assert result.code == code, (result.stdout, result.stderr)
    assert message in result.stderr
    assert result.stdout == ""


def test_the_reference_example_is_what_the_command_prints():
    reference = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text()
    section = reference.split("## partita endgame")[1]
    example = section.split("```")[3].strip().splitlines()
    out = run_cli(RACE_ARGS).stdout.splitlines()
    shown = [line for line in example[:-1] if line.strip() != "..."]
    assert all(line in out for line in shown), shown
    assert out[-1].split(";")[0] == example[-1].split(";")[0]
