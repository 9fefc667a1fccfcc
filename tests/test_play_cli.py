"""`partita play` driven through standard input (not a terminal), in-process.

The records it writes go through `partita validate --strict`; its refusals are
compared with what `validate` reports for the same moves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import run_cli


def validate_strict(path) -> None:
    code, out, err = run_cli(["validate", "--strict", str(path)])
    assert code == 0, out + err


def validate_problem(tmp_path, game: str, moves: str) -> dict:
    """The first problem `validate --json` finds in a record of these moves."""
    path = tmp_path / "reference.pgr"
    path.write_text(f'[Game "{game}"]\n[Result "*"]\n\n{moves} *\n', encoding="utf-8")
    (data,) = [
        json.loads(line) for line in run_cli(["validate", "--json", str(path)]).stdout.splitlines()
    ]
    return data["problems"][0]


def test_a_scripted_game_against_an_agent_is_saved_and_valid(tmp_path):
    target = tmp_path / "game.pgr"
    script = "t4\ncomment the centre\nt4\nmoves\nt3\nresign\n"
    code, out, err = run_cli(
        [
            "play", "connect4", "--seat", "2=mcts:20", "--seed", "5",
            "--player", "1=Ada", "--tag", "Event=Club night", "-o", str(target),
        ],
        input=script,
    )  # fmt: skip
    assert code == 0, err
    assert out == ""  # no prompts, no diagrams
    assert err.strip().split() == [f"t{n}" for n in range(1, 8)]  # the answer to moves
    text = target.read_text(encoding="utf-8")
    assert '[Player1 "Ada"]' in text and '[Player2 "mcts:20"]' in text
    assert '[Event "Club night"]' in text and '[Termination "resignation"]' in text
    assert '[Result "0-1"]' in text and "1. t4 {the centre} 1... t" in text
    validate_strict(target)


def test_the_record_goes_to_stdout_by_default_and_only_it():
    code, out, err = run_cli(["play", "connect4"], input="t1\nt2\nt1\nt2\nt1\nt2\nt1\n")
    assert code == 0, err
    assert out.startswith('[Game "connect4"]') and out.rstrip().endswith("4. t1 1-0")
    assert '[Termination "normal"]' in out and err == ""


def test_the_first_refused_line_ends_it_with_validates_message(tmp_path):
    target = tmp_path / "game.pgr"
    moves = "t4 t4 t4 t4 t4 t4"
    script = "\n".join([*moves.split(), "t4", "t5"]) + "\n"
    code, out, err = run_cli(["play", "connect4", "-o", str(target)], input=script)
    assert code == 1 and out == ""
    problem = validate_problem(tmp_path, "connect4", moves + " t4")
    assert err == (
        f"<stdin>:7:1: error: {problem['message']} "
        f"(ply {problem['ply']}, move {problem['move_number']})\n"
    )
    assert not target.exists()  # nothing saved


def test_keep_going_reports_every_refused_line_and_saves_the_rest(tmp_path):
    target = tmp_path / "game.pgr"
    script = "t4\nt9\nt4\nresign now\nfrobnicate\nt5\n"
    code, _, err = run_cli(["play", "connect4", "--keep-going", "-o", str(target)], input=script)
    assert code == 1
    lines = err.splitlines()
    assert [line.split(":")[1] for line in lines] == ["2", "4", "5"]
    assert "no move 't9' in Connect Four" in lines[0] and "(ply 2, move 1)" in lines[0]
    # resign takes no words: "resign now" is read as a move, and is none.
    assert "malformed move 'resign now'" in lines[1]
    assert "malformed move 'frobnicate'" in lines[2]
    text = target.read_text(encoding="utf-8")
    assert "1. t4 t4 2. t5 *" in text
    validate_strict(target)


def test_three_sides_with_two_agents_and_a_claimed_result(tmp_path):
    target = tmp_path / "game.pgr"
    script = "G@O1:1\nresign\n0-0-1\n"
    code, _, err = run_cli(
        [
            "play", "universal-forces", "--sides", "3", "--seat", "2=random",
            "--seat", "3=greedy", "--seed", "1", "--keep-going", "-o", str(target),
        ],
        input=script,
    )  # fmt: skip
    assert code == 1
    assert "<stdin>:2:1: error: with 3 sides a resignation names no winner" in err
    text = target.read_text(encoding="utf-8")
    assert '[Player3 "greedy"]' in text and '[Result "0-0-1"]' in text
    assert '[Termination "resignation"]' in text
    validate_strict(target)


def test_a_set_up_position_and_the_archive(tmp_path):
    archive = tmp_path / "games.db"
    position = "1:CG,TG,SI12 2:CG,TG,SI10 / O11 M6 I13 / 7 P1"
    code, out, err = run_cli(
        ["play", "circular-reasoning", "--position", position, "--db", str(archive)],
        input="S>G\n",
    )
    assert code == 0, err
    assert out == "" and "the game is stored" in err
    listed = json.loads(run_cli(["query", "--db", str(archive), "--json"]).stdout)
    (game,) = listed if isinstance(listed, list) else listed["games"]
    shown = run_cli(["show", str(game["id"]), "--db", str(archive)]).stdout
    assert "S>G" in shown and "1-0" in shown


def test_agents_at_every_seat_play_the_whole_game():
    code, out, err = run_cli(
        ["play", "connect4", "--seat", "1=greedy", "--seat", "2=greedy", "--seed", "2"], input=""
    )
    assert code == 0, err
    assert '[Termination "normal"]' in out and '[Result "*"]' not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "3=random"], "'3' is no seat: seats are numbered 1 to 2"),
        (["--seat", "2=mcts:lots"], "unknown agent 'mcts:lots'"),
        (["--seat", "2"], "not of the form NAME=VALUE"),
        (["--player", "1=Ada", "--player", "1=Bea"], "1 is given twice"),
        (["--tag", "Result=1-0"], "the record's Result tag is written by partita play"),
        (["--tag", "Player2=Bea"], "Player2 tag is written by partita play"),
        (["--sides", "3"], "connect4 is played by 2 sides, not 3"),
        (["--position", "9/9"], "malformed position"),
        (["-o", "/no/such/folder/game.pgr"], "no folder"),
    ],
)
def test_bad_options_are_usage_errors_before_the_game(args, message):
    code, out, err = run_cli(["play", "connect4", *args], input="t4\n")
    assert code == 2, err
    assert message in err and out == ""


def test_an_unknown_game_is_a_usage_error():
    code, _, err = run_cli(["play", "chess"], input="")
    assert code == 2 and "chess" in err


def test_the_reference_example_runs(tmp_path):
    reference = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text()
    (line,) = [text for text in reference.splitlines() if text.startswith("printf ")]
    script, command = line.split(" | ")
    lines = script.split("'")[1].split("\\n")
    args = command.split()[1:]
    code, _, err = run_cli(args, input="\n".join(lines), cwd=tmp_path)
    assert code == 0, err
    text = (tmp_path / "game.pgr").read_text(encoding="utf-8")
    assert "1. t4 {the centre}" in text and '[Termination "resignation"]' in text
    validate_strict(tmp_path / "game.pgr")
