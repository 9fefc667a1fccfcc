"""The play session without a terminal: turns, agents, chance, commands, undo."""

from __future__ import annotations

import pytest

from partita.analysis.play import COMMANDS, PlaySession
from partita.errors import PartitaError
from partita.game.registry import get_game
from partita.notation.reader import parse_record
from partita.notation.replay import MoveRefused, replay
from partita.notation.scoresheet import Scoresheet

CONNECT4 = get_game("connect4")
FORCEBALL = get_game("forceball")  # the pro league: face-offs are chance moves
UF = get_game("universal-forces")


def session(
    game=CONNECT4, seats=None, sides=2, seed=7, start=None, open_table=False
) -> PlaySession:
    players = [f"P{seat + 1}" for seat in range(sides)]
    sheet = Scoresheet(game, players, start=start, date="2026.05.04")
    return PlaySession(sheet, seats or {}, seed, open_table=open_table)


def play_out(game_session: PlaySession) -> None:
    while game_session.turn().kind == "auto":
        game_session.step()


def test_agents_play_their_seats_and_people_theirs():
    game = session(seats={1: "mcts:20"})
    assert game.turn().kind == "human" and game.turn().seat == 0
    with pytest.raises(PartitaError, match="it is Player1 \\(P1\\)'s turn to type a move"):
        game.step()
    reply = game.handle("t4")
    assert [ply.token for ply in reply.plies] == ["t4"] and reply.changed
    assert game.turn().kind == "auto" and game.turn().seat == 1
    with pytest.raises(PartitaError, match="it is not your turn"):
        game.handle("t3")
    agent_ply = game.step()
    assert agent_ply.before == reply.plies[0].after
    assert game.played_by == ["human", "auto"] and game.turn().seat == 0


def test_undo_takes_back_the_agents_reply_with_the_move():
    game = session(seats={1: "mcts:20"})
    game.handle("t4")
    game.step()
    game.handle("t3")
    game.step()
    reply = game.handle("undo")
    assert reply.text.startswith("taken back: t3 ") and len(game.sheet.plies) == 2
    game.handle("undo")
    assert game.sheet.plies == []
    with pytest.raises(PartitaError, match="there is no move of yours to take back"):
        game.handle("undo")


def test_a_seeded_game_of_agents_plays_the_same_every_time():
    def record(seed: int) -> str:
        game = session(seats={0: "mcts:16", 1: "greedy"}, seed=seed)
        play_out(game)
        assert game.turn().kind == "over"
        return game.sheet.text()

    first = record(3)
    assert first == record(3)
    assert replay(parse_record(first), strict=True).valid


def test_chance_is_drawn_when_nobody_types_it():
    game = session(FORCEBALL, seats={0: "random", 1: "random"}, seed=1)
    play_out(game)
    sheet = game.sheet
    assert sheet.outcome is not None
    tokens = [ply.token for ply in sheet.plies]
    assert tokens[0].startswith("deck:") and any(t.startswith("face:") for t in tokens)
    assert replay(parse_record(sheet.text()), strict=True).valid


def test_a_person_at_the_table_types_chance_or_leaves_it_to_chance():
    # the open scoresheet of a real table (a hidden table draws chance itself)
    game = session(FORCEBALL, seats={1: "random"}, seed=2, open_table=True)
    assert game.turn().kind == "chance"
    deck = game.handle("").plies[0]  # an empty line: random
    assert deck.token.startswith("deck:")
    assert game.turn().kind == "chance"  # the face-off
    face = game.sheet.legal_tokens()[0]
    assert game.handle(face).plies[0].token == face


def test_commands_answer_and_claims_end_the_game():
    game = session()
    assert game.handle("help").answer and "undo" in game.handle("help").text
    assert all(name.split()[0] in game.handle("help").text for name in COMMANDS)
    assert game.handle("moves").text == "t1 t2 t3 t4 t5 t6 t7"
    assert game.handle("position").text == CONNECT4.format_position(CONNECT4.initial())
    game.handle("t4")
    game.handle("comment the centre")
    assert game.sheet.plies[-1].comments == ["the centre"]
    game.handle("1/2-1/2")
    assert game.turn().kind == "over" and game.sheet.termination == "agreement"
    with pytest.raises(PartitaError, match="undo takes the claim back"):
        game.handle("t3")
    assert "taken back" in game.handle("undo").text and game.turn().kind == "human"
    game.handle("resign")
    assert game.sheet.result == "1-0"  # o was to move
    assert game.handle("save").finished


def test_an_illegal_move_is_refused_with_validates_problem():
    game = session()
    for token in ["t4", "t4", "t4", "t4", "t4", "t4"]:
        game.handle(token)
    with pytest.raises(MoveRefused) as refused:
        game.handle("t4")
    assert refused.value.problem.message == "illegal move 't4': column 4 is full"
    assert (refused.value.problem.ply, refused.value.problem.move_number) == (7, 4)


def test_forced_passes_are_played_for_the_side_that_must_pass():
    start = get_game("circular-reasoning").parse_position(
        "1:CG,TG,S@ 2:CO1,T@,S@ / O12 M1 I5 / 3 P1"
    )
    game = session(get_game("circular-reasoning"), start=start)
    assert game.turn().kind == "auto"
    assert game.step().token == "--"
    assert game.turn().kind == "human" and game.turn().seat == 1


def test_completion_offers_the_legal_moves_and_the_commands():
    game = session(UF)
    assert game.completions("G@O1:") == ["G@O1:1", "G@O1:17", "G@O1:25", "G@O1:9"]
    assert game.completions("un") == ["undo"]
    assert "comment" in game.completions("c")


def test_seats_and_agents_are_checked():
    with pytest.raises(PartitaError, match="there is no seat 3 in a game of 2 sides"):
        session(seats={2: "random"})
    with pytest.raises(PartitaError, match="unknown agent 'mcts:lots'"):
        session(seats={1: "mcts:lots"})


def test_agents_of_a_hidden_information_game_play_only_moves_the_real_table_allows():
    # Each agent chooses from its own guess of the table (a reward takes the real
    # cards; a move the real table refuses is replaced by the agent's best playable
    # one and counted). Every ply is checked by the rules.
    game = get_game("forceball").configure({"League": "senior"})
    sheet = Scoresheet(game, ["A", "B"], tags={"League": "senior"}, date="2026.05.04")
    agents = PlaySession(sheet, {0: "greedy", 1: "greedy"}, seed=0)
    play_out(agents)
    assert sheet.outcome is not None
    assert agents.replaced <= len(sheet.history()) // 50  # seldom (9 in 144 plies before)
    assert replay(parse_record(sheet.text()), strict=True).valid
