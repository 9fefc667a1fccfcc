"""Where moves are clicked: every built-in board's regions, drawn over its SVG with
an accessible name, spell the legal moves, and an illegal click sequence spells a
token the rules refuse with the reason `validate` gives; a table drawn for a
viewer hides what that seat cannot see."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest

from partita.analysis.diagrams import board_for, render_diagram
from partita.errors import IllegalMoveError
from partita.game.registry import get_game

GAMES = ["connect4", "forza4x4", "universal-forces", "circular-reasoning", "forceball"]
SVG = "{http://www.w3.org/2000/svg}"


def later(game, plies: int, seed: int = 1):
    rules = game.rules
    state = game.initial()
    rng = random.Random(seed)
    for _ in range(plies):
        if rules.outcome(state) is not None:
            break
        state = rules.apply(state, rules.sample_move(state, rng))
    return state


@pytest.mark.parametrize("name", GAMES)
def test_every_region_is_drawn_with_its_accessible_name(name):
    game = get_game(name)
    state = later(game, 12)
    while game.rules.side_to_move(state) < 0:
        state = game.rules.apply(state, game.rules.legal_moves(state)[0])
    board = board_for(game)
    regions = board.regions(state)
    assert regions
    root = ET.fromstring(render_diagram(game, state, interactive=True))
    drawn = {
        element.get("data-region"): element.get("aria-label")
        for element in root.iter()
        if element.get("data-region") is not None
    }
    assert drawn == {region.id: region.label for region in regions}
    # without interactive=True the drawing has none
    assert "data-region" not in render_diagram(game, state)


def spells(game, state, clicks):
    return game.parse_move(state, board_for(game).move_text(state, clicks))


def test_a_full_column_clicked_is_refused_with_validates_reason():
    game = get_game("connect4")
    state = game.play_line("t4 t4 t4 t4 t4 t4")
    assert board_for(game).move_text(state, ["t4"]) == "t4"
    with pytest.raises(IllegalMoveError, match="column 4 is full"):
        spells(game, state, ["t4"])
    assert board_for(game).move_text(state, []) is None


def test_universal_forces_clicks_a_reserve_then_a_cell():
    game = get_game("universal-forces")
    state = game.initial()
    board = board_for(game)
    move = game.parse_move(state, "G@O1:9")
    assert board.move_regions(state, move) == ("reserve:G", "O1:9")
    assert board.move_text(state, ["reserve:G"]) is None  # not a move yet
    assert spells(game, state, ["reserve:G", "O1:9"]) == move
    with pytest.raises(IllegalMoveError):
        spells(game, state, ["reserve:G", "O1:10"])  # not a green entry section


def test_circular_reasoning_clicks_a_token_then_its_destination():
    game = get_game("circular-reasoning")
    state = game.initial()
    board = board_for(game)
    move = game.parse_move(state, "@C>O2")
    assert board.move_regions(state, move) == ("token:C", "O2")
    assert game.format_move(state, spells(game, state, ["token:C", "O2"])) == "@C>O2"
    with pytest.raises(IllegalMoveError):
        spells(game, state, ["token:C", "I9"])


def test_forceball_clicks_buttons_and_cards_of_the_hand():
    game = get_game("forceball").configure({"League": "junior"})
    state = later(game, 2)
    while game.rules.side_to_move(state) < 0:
        state = game.rules.apply(state, game.rules.legal_moves(state)[0])
    board = board_for(game)
    mover = state.to_move
    card = game.rules.ids[state.hands[mover][0]]
    move = game.parse_move(state, f">+{card}/")
    clicks = board.move_regions(state, move)
    assert clicks == ("act:>", "act:+", f"card:{card}", "act:/")
    assert board.move_text(state, clicks[:2]) is None  # '+' waits for its card
    assert board.move_text(state, clicks) == f">+{card}/"
    other = game.rules.ids[state.hands[1 - mover][0]]
    assert f"card:{other}" not in {region.id for region in board.regions(state)}
    with pytest.raises(IllegalMoveError, match="not in your hand"):
        spells(game, state, ("act:@", f"card:{other}"))


def test_a_table_drawn_for_a_viewer_hides_the_opponents_cards():
    game = get_game("forceball")
    state = later(game, 3)
    rules = game.rules
    for viewer in (0, 1):
        svg = render_diagram(game, state, viewer=viewer, interactive=True)
        text = " ".join(ET.fromstring(svg).itertext())
        own = [rules.ids[card] for card in state.hands[viewer]]
        hidden = [rules.ids[card] for card in (*state.hands[1 - viewer], *state.speed[1 - viewer])]
        assert all(re.search(rf"\b{re.escape(card)}\b", text) for card in own)
        assert not any(re.search(rf"(?<![\w.]){re.escape(c)}(?![\w]|\.\d)", text) for c in hidden)
        assert svg.count('class="card-back"') >= len(state.hands[1 - viewer])
    everything = render_diagram(game, state)
    assert 'class="card-back"' not in everything
