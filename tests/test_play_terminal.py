"""`partita play` on a terminal, end to end: a real process on a pseudo-terminal
(tests/terminal.py), typed at as a player would, completion included; the record it
saves goes through `partita validate --strict`."""

from __future__ import annotations

import json
import sys

import pytest
from cli_runner import run_cli
from terminal import Terminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no pseudo-terminals")


@pytest.fixture
def terminals():
    started: list[Terminal] = []

    def start(*args: str, **options) -> Terminal:
        started.append(Terminal(*args, **options))
        return started[-1]

    yield start
    for terminal in started:
        terminal.kill()


def validate(path) -> dict:
    code, out, err = run_cli(["validate", "--strict", "--json", str(path)])
    assert code == 0, out + err
    (data,) = [json.loads(line) for line in out.splitlines()]
    return data


def test_a_person_against_an_agent(tmp_path, terminals):
    target = tmp_path / "game.pgr"
    play = terminals("play", "connect4", "--seat", "2=mcts:30", "--seed", "3", "-o", str(target))
    opening = play.expect("1. Player1 (Human)> ")
    assert "Connect Four: Player1 Human, Player2 mcts:30." in opening
    assert " t1 t2 t3 t4 t5 t6 t7" in opening and "x to move" in opening  # the board
    # Tab twice lists the legal moves; the line keeps what was typed.
    play.send("t\t\t")
    listed = play.expect("t7")
    assert "t1  t2  t3  t4  t5  t6  t7" in listed
    play.line("4")
    reply = play.expect("2. Player1 (Human)> ")
    assert "1. t4  (Player1 (Human))" in reply
    assert "Player2 (mcts:30) is thinking..." in reply and "1... t" in reply
    # An illegal move: the message validate gives, and the game goes on.
    play.line("t9")
    refused = play.expect("2. Player1 (Human)> ")
    reference = tmp_path / "reference.pgr"
    reference.write_text('[Game "connect4"]\n[Result "*"]\n\nt4 t5 t9 *\n', encoding="utf-8")
    (checked,) = [
        json.loads(line)
        for line in run_cli(["validate", "--json", str(reference)]).stdout.splitlines()
    ]
    assert f"error: {checked['problems'][0]['message']} (ply 3, move 2)" in refused
    # Undo takes back the agent's reply and the move; Tab completes a command.
    play.line("undo")
    assert "taken back: t4 t" in play.expect("1. Player1 (Human)> ")
    play.send("comm\t")
    play.expect("comment")
    play.line(" a quiet opening")
    play.expect("comment written")
    play.line("t3")
    play.expect("2. Player1 (Human)> ")
    play.line("resign")
    assert "game over: 0-1, resignation" in play.expect("game over> ")
    play.send("\x04")  # Ctrl-D: save and end
    assert play.close() == 0
    text = target.read_text(encoding="utf-8")
    assert '[Player1 "Human"]' in text and '[Player2 "mcts:30"]' in text
    assert "{a quiet opening} 1. t3 t" in text and text.rstrip().endswith("0-1")
    data = validate(target)
    assert data["plies"] == 2 and data["result"] == "0-1"


def test_two_people_play_to_the_end_of_the_rules(tmp_path, terminals):
    target = tmp_path / "game.pgr"
    play = terminals(
        "play", "connect4", "--player", "1=Ada", "--player", "2=Bea", "-o", str(target)
    )
    for ply, token in enumerate(["t1", "t2", "t1", "t2", "t1", "t2"]):
        play.expect(("1. ", "1... ", "2. ", "2... ", "3. ", "3... ")[ply])
        play.line(token)
    play.expect("4. Player1 (Ada)> ")
    play.line("t1")
    ended = play.expect("game over> ")
    assert "game over: 1-0, x has four in a row" in ended
    play.line("comment four in column one")
    play.expect("comment written")
    play.line("save")
    assert play.close() == 0
    data = validate(target)
    assert data["result"] == "1-0" and data["plies"] == 7
    assert '[Termination "normal"]' in target.read_text(encoding="utf-8")


def test_ctrl_c_ends_without_saving(tmp_path, terminals):
    target = tmp_path / "game.pgr"
    play = terminals("play", "connect4", "-o", str(target))
    play.expect("1. Player1 (Human)> ")
    play.line("t4")
    play.expect("1... Player2 (Human)> ")
    play.interrupt()
    assert play.close() == 130
    assert not target.exists()


def test_with_stdout_redirected_only_the_record_goes_there(tmp_path, terminals):
    target = tmp_path / "game.pgr"
    with target.open("w", encoding="utf-8") as stream:
        play = terminals("play", "connect4", stdout=stream)
        play.expect("1. Player1 (Human)> ")  # the prompt and the board go to stderr
        play.line("t4")
        play.expect("1... Player2 (Human)> ")
        play.line("draw")
        play.expect("game over> ")
        play.send("\x04")
        assert play.close() == 0
    text = target.read_text(encoding="utf-8")
    assert text.startswith('[Game "connect4"]') and text.rstrip().endswith("1. t4 1/2-1/2")
    validate(target)
