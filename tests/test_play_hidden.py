"""A game with hidden information at the table: a person sees only their own hand
(Forceball against an agent), lists and types every composite turn, and hears what
happened in the words of the shipped records' comments."""

from __future__ import annotations

import random
import re
import sys

import pytest
from terminal import Terminal

from partita.analysis.play import PlaySession
from partita.errors import PartitaError
from partita.game.registry import get_game
from partita.games.forceball.choices import choice_start
from partita.games.forceball.determinize import HAND, hidden_places, knowledge
from partita.games.forceball.values import ForceHand, Play
from partita.notation.reader import parse_record, read_records
from partita.notation.replay import replay
from partita.notation.scoresheet import Scoresheet

ROOT_EXAMPLES = "examples/forceball"


def forceball(league: str):
    return get_game("forceball").configure({"League": league})


def mentions(text: str, card_id: str) -> bool:
    """Whether ``text`` names the card ``card_id`` (``c3`` is not in ``c31`` or ``c3.1``)."""
    return re.search(rf"(?<![\w.]){re.escape(card_id)}(?![\w]|\.\d)", text) is not None


def against_an_agent(league: str, seed: int, open_table: bool = False) -> PlaySession:
    game = forceball(league)
    sheet = Scoresheet(game, ["Human", "greedy"], tags={"League": league}, date="2026.05.04")
    return PlaySession(sheet, {1: "greedy"}, seed=seed, open_table=open_table)


def shown_after(session: PlaySession, plies) -> str:
    """Everything the table shows a person after ``plies``: the moves as announced,
    the narration, the diagram, the position, the answers to board and moves."""
    parts = []
    for ply in plies:
        parts.append(session.move_text(ply))
        parts += session.events(ply)
    parts.append(session.diagram())
    parts.append(session.position())
    parts.append(session.handle("position").text)
    if session.turn().kind in ("human", "answer"):
        parts.append(session.handle("moves").text)
        parts.append(session.question())
    return "\n".join(parts)


@pytest.mark.parametrize(("league", "seed"), [("senior", 4), ("pro", 11), ("junior", 2)])
def test_a_person_never_sees_a_card_of_the_agents_hand(league, seed):
    session = against_an_agent(league, seed)
    rules = session.rules
    rng = random.Random(seed)
    assert session.viewer == 0
    checked = 0
    for _ in range(70):
        turn = session.turn()
        if turn.kind == "over":
            break
        if turn.kind == "auto":
            ply = session.step()
            plies = [ply] if ply is not None else []  # None: the agent's move asks him
        else:
            plies = session.handle(rng.choice(session.playable_tokens())).plies
        text = shown_after(session, plies)
        state = session.sheet.state
        # a card the person saw go into the agent's hand (drawn face up, after a
        # referee check showed it) is no secret; every other card of the hand is
        seen = knowledge(rules, 0, session.sheet.history(), state)
        shown = face_up_so_far(session)
        for card in state.hands[1]:
            if seen[card] != HAND and rules.ids[card] not in shown:
                assert not mentions(text, rules.ids[card]), (rules.ids[card], text)
        # the table, the position and the list of moves name no card the person
        # cannot see now (the opponent's hand and speed pile, the discard pile,
        # the draw pile below its top)
        table = "\n".join([session.diagram(), session.position()])
        if session.turn().kind == "human":
            table += "\n" + session.handle("moves").text
        for card in hidden_places(session.sheet.state, 0):
            assert not mentions(table, rules.ids[card]), (rules.ids[card], table[-2000:])
        # what the person's own seat holds is shown
        for card in session.sheet.state.hands[0]:
            assert mentions(session.diagram(), rules.ids[card])
        checked += bool(state.hands[1])
    assert checked > 20
    # The record itself keeps everything: it is the scoresheet of the game.
    assert replay(parse_record(session.sheet.text()), strict=True).valid


def test_the_open_table_shows_every_card_and_takes_typed_chance():
    session = against_an_agent("senior", 4, open_table=True)
    assert session.viewer is None and session.turn().kind == "chance"
    session.handle("")  # the shuffle, drawn
    hand = session.sheet.state.hands[1]
    diagram = session.diagram()
    assert all(mentions(diagram, session.rules.ids[card]) for card in hand)
    hidden = against_an_agent("senior", 4)
    assert hidden.turn().kind == "auto"  # chance is drawn for a hidden table


def test_the_opponents_face_down_cards_are_written_as_question_marks():
    game = forceball("junior")
    state = game.rules.apply(
        game.initial(), game.rules.sample_move(game.initial(), random.Random(1))
    )
    state = game.rules.apply(state, game.rules.legal_moves(state)[0])
    while game.rules.side_to_move(state) < 0:
        state = game.rules.apply(state, game.rules.legal_moves(state)[0])
    mover = game.rules.side_to_move(state)
    card = game.rules.ids[state.hands[mover][0]]
    move = game.parse_move(state, f">+{card}/")
    assert game.format_move_for(state, move, mover) == f">+{card}/"
    assert game.format_move_for(state, move, 1 - mover) == ">+?/"
    assert game.format_move_for(state, move, None) == f">+{card}/"
    position = game.format_position_for(state, 1 - mover)
    assert f"hand{mover + 1}=?" in position and not mentions(position, card)


def test_moves_lists_composite_turns_and_each_is_accepted_when_typed():
    rng = random.Random(5)
    composite = 0
    for league in ("little", "junior", "senior", "pro"):
        session = against_an_agent(league, 3)
        for _ in range(12):
            while session.turn().kind == "auto":
                session.step()
            if session.turn().kind != "human":
                break
            tokens = session.playable_tokens()
            answer = session.handle("moves").text
            listed = (
                answer.split("\n")[1:]
                if answer.split("\n")[0].endswith("moves:")
                else answer.split()
            )
            assert listed == tokens and len(set(tokens)) == len(tokens)
            composite += sum(len(re.findall(r"[>+\-~%@^:*/|]", token)) > 1 for token in tokens)
            state = session.sheet.state
            for token in rng.sample(tokens, min(len(tokens), 25)):
                move = session.game.parse_move(state, token)  # legal, or it raises
                assert session.game.format_move(state, move) == token
            # Tab completes turns whole: every completion of a prefix is a listed turn
            prefix = tokens[-1][:2]
            completed = [word for word in session.completions(prefix) if word in tokens]
            assert completed == sorted(t for t in set(tokens) if t.startswith(prefix))
            session.handle(rng.choice(tokens))
    assert composite > 100


def without_twice(comment: str) -> list[str]:
    return [note for note in comment.split("; ") if not note.endswith("two turns in a row")]


def test_the_play_session_narrates_as_the_shipped_records_comment():
    told = 0
    for league in ("little", "junior", "senior", "pro"):
        (record,) = read_records(f"{ROOT_EXAMPLES}/{league}.pgr")
        replayed = replay(record, strict=True)
        names = [record.tags["Player1"].split()[0], record.tags["Player2"].split()[0]]
        game = forceball(league)
        state = game.initial()
        node = record.root
        for token in replayed.moves:
            node = node.children[0]
            move = game.parse_move(state, token)
            after = game.rules.apply(state, move)
            said = "; ".join(game.rules.events(state, move, after))
            for seat, name in enumerate(names):
                said = said.replace(f"Player{seat + 1}", name)
            if node.comments and not node.comments[0].startswith("Final score"):
                # the records tell "two turns in a row" once; the table every time
                assert without_twice(node.comments[0]) == without_twice(said)
                told += 1
            state = after
    assert told > 20


def test_a_goal_is_told_at_the_table():
    session = against_an_agent("little", 1)
    goals = []
    for _ in range(400):
        turn = session.turn()
        if turn.kind == "over":
            break
        if turn.kind == "auto":
            ply = session.step()
            plies = [ply] if ply is not None else []
        else:
            plies = session.handle(session.playable_tokens()[-1]).plies
        for ply in plies:
            goals += [event for event in session.events(ply) if event.startswith("Goal for")]
    assert goals and re.fullmatch(r"Goal for Player[12] \(1\): \d+-\d+", goals[0])


@pytest.mark.skipif(sys.platform == "win32", reason="no pseudo-terminals")
def test_at_the_terminal_the_agents_hand_is_never_printed(tmp_path):
    target = tmp_path / "game.pgr"
    args = ["play", "forceball", "--tag", "League=senior", "--seat", "2=greedy"]
    play = Terminal(*args, "--seed", "5", "-o", str(target))
    try:
        transcript = [play.expect("Player1 (Human)> ")]
        for _ in range(6):
            play.line("moves")
            listed = play.expect("Player1 (Human)> ")
            transcript.append(listed)
            token = listed.split("moves:")[-1].split()[0] if "moves:" in listed else "/"
            play.line(token)
            transcript.append(play.expect("Player1 (Human)> "))
        play.line("board")
        transcript.append(play.expect("Player1 (Human)> "))
        play.line("save")
        assert play.close() == 0
    finally:
        play.kill()
    text = "".join(transcript)
    assert "(hidden)" in text and "Player2 (greedy) is thinking..." in text
    # Replay the saved game: after each ply, what was printed up to the next ply
    # names no card of the agent's hand.
    (record,) = read_records(target)
    game = forceball("senior")
    state = game.initial()
    replayed = replay(record, strict=True)
    chunks = re.split(r"\n\d+\. [^\r\n]*?  \((?:chance|Player\d)", text)
    assert len(chunks) == len(replayed.moves) + 1
    for token, chunk in zip(replayed.moves, chunks[1:], strict=True):
        state = game.rules.apply(state, game.parse_move(state, token))
        for card in state.hands[1]:
            assert not mentions(chunk, game.rules.ids[card]), (token, chunk)


def test_a_recorded_game_is_entered_at_an_open_table():
    """Typed shuffles and face-offs need --open-table (the scoresheet of a real
    table); at a hidden table chance is drawn, and a typed shuffle is refused with
    a note that says so."""
    from cli_runner import run_cli

    (record,) = read_records(f"{ROOT_EXAMPLES}/junior.pgr")
    moves = "\n".join(replay(record, strict=True).moves) + "\n"
    args = ["play", "forceball", "--tag", "League=junior"]
    entered = run_cli([*args, "--open-table"], input=moves)
    assert entered.code == 0, entered.stderr
    assert replay(parse_record(entered.stdout), strict=True).moves == replay(record).moves
    hidden = run_cli(args, input=moves)
    assert hidden.code == 1
    assert "no shuffle now" in hidden.stderr and "--open-table lets the shuffles" in hidden.stderr


def face_up_so_far(session: PlaySession) -> set[str]:
    """The cards an agent's move waiting for the person's answer has played face
    up before asking (its maneuver and the increases from its hand)."""
    asked = session.asked
    if asked is None:
        return set()
    start = choice_start(asked.state, asked.move, asked.index)
    return {
        action.card
        for action in asked.move.actions[:start]
        if isinstance(action, (Play, ForceHand))
    }


def play_until_asked(session: PlaySession, rng: random.Random, plies: int = 400):
    """Play random turns for the person until an agent's move asks him; the tokens
    he refused on the way (a decline made for the agent)."""
    for _ in range(plies):
        turn = session.turn()
        if turn.kind in ("answer", "over"):
            return turn
        if turn.kind == "auto":
            session.step()
            continue
        tokens = session.playable_tokens()
        session.handle(rng.choice([token for token in tokens if "*n" not in token]))
    return session.turn()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_person_answers_the_agents_raised_stakes_and_reward_himself(seed):
    session = against_an_agent("pro", seed)
    rng = random.Random(seed)
    answers = 0
    while answers < 6:
        turn = play_until_asked(session, rng)
        if turn.kind == "over":
            break
        assert turn.seat == 0
        choices = session.playable_tokens()
        assert len(choices) > 1 and choices == sorted(choices)
        question = session.question()
        assert question.startswith("Player2 (greedy) plays ") and all(
            c in question for c in choices
        )
        assert session.handle("moves").text == "your choices: " + " ".join(choices)
        with pytest.raises(PartitaError, match="not one of your choices"):
            session.handle("*x")
        with pytest.raises(PartitaError, match="answer first"):
            session.handle("resign")
        chosen = rng.choice(choices)
        before = len(session.sheet.plies)
        reply = session.handle(chosen)
        if not reply.plies:  # asked again (his part of the turn after accepting)
            assert session.turn().kind == "answer"
            continue
        ply = reply.plies[0]
        assert len(session.sheet.plies) == before + 1 and session.played_by[-1] == "auto"
        # the agent's turn carries the person's choice
        assert chosen in ply.token or (chosen == "/" and ply.token.endswith("/"))
        answers += 1
    assert answers
    assert replay(parse_record(session.sheet.text()), strict=True).valid


def test_the_agent_answers_the_persons_raised_stakes():
    session = against_an_agent("pro", 3)
    rng = random.Random(3)
    tried = 0
    for _ in range(600):
        turn = session.turn()
        if turn.kind == "over" or tried >= 3:
            break
        if turn.kind == "auto":
            session.step()
            continue
        if turn.kind == "answer":
            session.handle(session.playable_tokens()[0])
            continue
        tokens = session.playable_tokens()
        # after '/' the agent wins the attack and takes its own reward: a turn that
        # ends so is listed once, with nothing after the '/'
        assert all(not token.partition("/")[2] for token in tokens), tokens
        assert len(set(tokens)) == len(tokens)
        accepted = [token for token in tokens if token.startswith("*y") and len(token) > 2]
        if accepted:
            # declining for the agent is not listed, and refused: the person writes
            # how he goes on, and the agent answers
            assert not any(token.startswith("*n") for token in tokens)
            with pytest.raises(PartitaError, match="Player2 \\(greedy\\)'s choice"):
                session.handle("*n")
            reply = session.handle(accepted[0])
            played = reply.plies[0].token
            assert played == accepted[0] or played == "*n", played  # the agent's answer
            tried += 1
            continue
        session.handle(rng.choice([token for token in tokens if "*n" not in token]))
    assert tried
