"""Forceball notation: the turn-log grammar and writer, the position notation, tags,
move numbers, and that every token survives the PGR reader.

Expected tokens and messages are written by hand from docs/forceball.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from budget import examples
from forceball_table import GAMES, IDS, play, table
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.errors import IllegalMoveError, NotationError, SetupError, TagError
from partita.game.registry import get_game
from partita.games.forceball.notation import _fast_move, parse_token
from partita.games.forceball.values import (
    Draw,
    End,
    FaceOff,
    ForceHand,
    ForceSpeed,
    Play,
    RefereeCheck,
    Rehand,
    RewardHand,
    RewardSpeed,
    Shuffle,
    Special,
    SpeedDown,
    SpeedSwap,
    SpeedUp,
    Stakes,
    Transform,
    Turn,
)
from partita.notation.reader import parse_record
from partita.notation.replay import replay

GAME = GAMES["pro"]

# -- the turn grammar -----------------------------------------------------------------------

TOKENS = {
    ">": Turn((Draw(),)),
    ">+c12@c17^2^c3": Turn(
        (Draw(), SpeedUp("c12"), Play("c17", None), ForceSpeed(2), ForceHand("c3"))
    ),
    "-@c1": Turn((SpeedDown(), Play("c1", None))),
    "~c3.2@c1": Turn((SpeedSwap("c3.2"), Play("c1", None))),
    "%2/": Turn((Transform(2), End())),
    "#c1,c2>0@c5": Turn((Rehand(("c1", "c2"), 0), Play("c5", None))),
    "@c17=S^1:c40": Turn((Play("c17", "Shot"), ForceSpeed(1), RefereeCheck("c40"))),
    "*y@c1*n": Turn((Stakes(True), Play("c1", None), Stakes(False))),
    "/|c9>3": Turn((End(), Special("c9"), RewardHand(3))),
    ">/>c4,c7": Turn((Draw(), End(), RewardSpeed(("c4", "c7")))),
    "/>c4,_": Turn((End(), RewardSpeed(("c4", "_")))),
    "/>_": Turn((End(), RewardSpeed(("_",)))),
    "deck:c1,c2,c3": Shuffle(("c1", "c2", "c3")),
    "face:c4,c20": FaceOff("c4", "c20"),
}


@pytest.mark.parametrize(("token", "move"), list(TOKENS.items()))
def test_tokens_read_as_documented_and_write_back(token, move):
    assert GAME.move(token) == move
    assert GAME.canonical_token(token) == token


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [("@c17=s:c40", "@c17=S:c40"), ("*Y@c1", "*y@c1"), ("*N", "*n")],
)
def test_lenient_spellings_have_a_canonical_form(spelling, canonical):
    assert GAME.canonical_token(spelling) == canonical


@pytest.mark.parametrize(
    "token",
    ["", "@", "@c17=X", "c17", "face:c1", "deck:", "+", ">+", "^", ":", "*x", "#c1", "@1c"],
)
def test_malformed_tokens_are_notation_errors(token):
    with pytest.raises(NotationError, match="malformed turn"):
        GAME.move(token)


_ID = st.from_regex(r"[a-z][a-z0-9_]{0,5}(\.[1-9][0-9]?)?", fullmatch=True)
_ACTION = st.one_of(
    st.just(Draw()),
    st.builds(SpeedUp, _ID),
    st.just(SpeedDown()),
    st.builds(SpeedSwap, _ID),
    st.builds(Transform, st.integers(0, 9)),
    st.builds(Rehand, st.lists(_ID, min_size=1, max_size=4).map(tuple), st.integers(0, 9)),
    st.builds(Play, _ID, st.sampled_from([None, "Shot", "Interception", "Tackle"])),
    st.builds(ForceSpeed, st.integers(0, 9)),
    st.builds(ForceHand, _ID),
    st.builds(RefereeCheck, _ID),
    st.builds(Stakes, st.booleans()),
    st.just(End()),
    st.builds(Special, _ID),
    st.builds(RewardHand, st.integers(0, 9)),
    st.builds(RewardSpeed, st.lists(_ID | st.just("_"), min_size=1, max_size=3).map(tuple)),
)


@settings(max_examples=examples(300, fast=75), deadline=None)
@given(st.lists(_ACTION, min_size=1, max_size=8))
def test_any_turn_round_trips_through_its_token(actions):
    """Every sequence of actions (legal or not) has one token that reads back to it."""
    move = Turn(tuple(actions))
    token = GAME.format_move(None, move)
    assert " " not in token
    assert GAME.move(token) == move
    assert GAME.canonical_token(token) == token


@settings(max_examples=examples(100, fast=30), deadline=None)
@given(st.lists(_ACTION, min_size=1, max_size=6))
def test_every_turn_token_survives_the_record_reader(actions):
    token = GAME.format_move(None, Turn(tuple(actions)))
    record = parse_record(f'[Game "forceball"]\n[Result "*"]\n\n1. {token} *\n')
    assert record.syntax_problems == []
    assert [node.move for node in record.root.mainline()] == [token]


# -- meaning, messages, numbering ---------------------------------------------------------


def test_an_illegal_turn_names_the_turn_the_player_and_the_rule():
    state = table("pro", hand1="s3", speed1="p1")
    with pytest.raises(IllegalMoveError) as error:
        GAME.parse_move(state, "@s3")
    assert str(error.value) == (
        "illegal move '@s3' in turn 1 (Player1): s3 cannot be played as a Shot: your speed "
        "is 1 and it needs 3"
    )


def test_every_ply_has_its_own_number():
    state = table("pro", hand1="p1", hand2="b1", speed1="d1", speed2="t1")
    rules = GAME.rules
    assert rules.move_number(state) == (1, True)
    state = play(state, "@p1", league="pro")
    assert rules.move_number(state) == (2, True)


def test_the_registered_game_and_its_tags():
    game = get_game("forceball")
    assert game.rules.deck.name == "example" and game.rules.league == "pro"
    assert [tags["League"] for tags in game.variants()] == ["little", "junior", "senior", "pro"]
    little = game.configure({"League": "little", "FirstAttacker": "2"})
    assert (little.rules.league, little.rules.first_attacker) == ("little", 1)
    with pytest.raises(TagError, match="unknown deck"):
        game.configure({"Deck": "no-such-deck"})
    with pytest.raises(TagError, match="league 'major'"):
        game.configure({"League": "major"})
    with pytest.raises(TagError, match="little league tag"):
        game.configure({"League": "junior", "FirstAttacker": "2"})


# -- positions ------------------------------------------------------------------------------


def test_the_initial_position_lists_the_deck_in_the_draw_pile():
    text = GAME.format_position(GAME.rules.initial())
    assert text.startswith("next=shuffle period=0 score=0-0 attacker=1 goal=1 doubled=- dealt=0 ")
    assert f"draw={','.join(IDS)} discard=- hand1=- hand2=-" in text
    assert GAME.format_position(GAME.parse_position(text)) == text


def test_a_position_round_trips_with_fouls_and_increases():
    state = table(
        "pro",
        next="2",
        hand2="b1",
        speed2="t1",
        pile1="s1=D^p1,p2",
        pile2="b2",
        goal=2,
        doubled="1",
        score="3-1",
        draw="s3",
    )
    text = GAME.format_position(state)
    assert "pile1=s1=D^p1,p2 pile2=b2" in text and "goal=2 doubled=1" in text
    back = GAME.parse_position(text)
    assert back == state
    assert back.piles[0][0].force == 2 + 1  # s1 and the speed of p1


def test_impossible_positions_are_setup_errors():
    good = GAME.format_position(table("pro", hand1="p1", hand2="b1"))
    with pytest.raises(SetupError, match="card p1 lies in 2 places"):
        GAME.parse_position(good.replace("hand2=b1", "hand2=b1,p1"))
    with pytest.raises(SetupError, match="card b1 is nowhere"):
        GAME.parse_position(good.replace("hand2=b1", "hand2=-"))
    with pytest.raises(SetupError, match="not in deck"):
        GAME.parse_position(good.replace("hand2=b1", "hand2=b1,zz"))
    with pytest.raises(SetupError, match="answers the last maneuver"):
        GAME.parse_position(good.replace("next=1", "next=2"))
    with pytest.raises(NotationError, match="malformed position"):
        GAME.parse_position(good.replace("score=0-0", "score=0"))


def test_diagram_shows_the_table():
    state = table("pro", next="2", hand2="b1", speed2="t1", pile1="s2^p1", draw="s3")
    diagram = GAME.rules.diagram(state)
    assert "Player1 attacks; Player2 to move; force to beat 5" in diagram
    assert "Player2: hand b1 (Block 2/1)" in diagram
    assert "maneuvers: s2 Shot + p1 = force 5" in diagram
    assert "draw pile 1 (top s3" in diagram


# -- the docs page ------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs" / "forceball.md"


def _doc_examples() -> list[tuple[str, str]]:
    text = DOCS.read_text(encoding="utf-8")
    shuffle = re.search(r"^(deck:\S+)$", text, re.M).group(1)
    blocks = re.findall(r"```pgr\n(.*?)```", text, re.S)
    return [(shuffle, block) for block in blocks]


@pytest.mark.parametrize(("shuffle", "block"), _doc_examples())
def test_the_worked_examples_of_the_docs_replay(shuffle, block):
    """Each worked example of docs/forceball.md is a legal game opening."""
    tags, movetext = block.split("\n", 1)
    text = f'[Game "forceball"]\n{tags}\n[Result "*"]\n\n1. {shuffle} {movetext} *\n'
    replayed = replay(parse_record(text), strict=True)
    assert replayed.problems == []
    assert replayed.plies == 1 + movetext.count(". ")


def test_the_docs_diagram_is_the_junior_example_before_ply_10():
    text = DOCS.read_text(encoding="utf-8")
    shuffle, _ = _doc_examples()[0]
    junior = _doc_examples()[1][1]
    tokens = [token for token in junior.split("\n", 1)[1].split() if not token[0].isdigit()]
    game = get_game("forceball").configure({"League": "junior"})
    state = game.initial()
    for token in [shuffle, *tokens[:-1]]:
        state = game.rules.apply(state, game.parse_move(state, token))
    assert game.rules.diagram(state) in text


_SIGNS = "><+-~%#@^:*/|=,_. 0123456789cdefaySTBny"


@settings(max_examples=examples(500, fast=120), deadline=None)
@given(
    st.text(alphabet=_SIGNS, min_size=1, max_size=14)
    | st.builds(
        lambda actions: GAME.format_move(None, Turn(tuple(actions))), st.lists(_ACTION, min_size=1)
    )
)
def test_the_fast_reader_accepts_exactly_what_the_grammar_accepts(text):
    """The compiled-pattern fast path and the pyparsing grammar agree on every text."""
    try:
        expected = parse_token(text)
    except NotationError:
        expected = None
    assert _fast_move(text) == expected
