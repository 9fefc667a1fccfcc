"""The Forceball table diagram: SVG drawing and the replay viewer's cells."""

from __future__ import annotations

from forceball_table import GAMES, table

from partita.analysis.diagrams import board_for, render_diagram
from partita.game.registry import get_game
from partita.games.forceball.board import SLOTS, ForceballBoard


def test_the_registered_board_draws_every_card_on_the_table():
    state = table(
        "pro", next="2", hand1="s1,p1", hand2="b1", speed2="t1", pile1="s2^p2", draw="s3,d1"
    )
    game = GAMES["pro"]
    svg = render_diagram(game, state, caption="a test table")
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" class="diagram"')
    assert "<title>a test table</title>" in svg
    # hands (3), speed (1), maneuver and its increase (2), draw top, discard top
    assert svg.count('class="piece') == 3 + 1 + 2 + 2
    assert 'stroke-dasharray="4,3"' in svg  # p2 lies across the maneuver s2
    assert "P1 attacks, P2 to move, force to beat 6" in svg  # s2 (4) + p2 (speed 2)


def test_cells_follow_the_layout_slot_by_slot():
    board = ForceballBoard(GAMES["senior"])
    state = table("senior", hand1="s1,p1", hand2="b1", speed1="d1", draw="s3")
    cells = board.cells(state)
    assert len(cells) == len(board.layout.cells) == 2 * sum(SLOTS.values()) + 2
    hand2 = cells[: SLOTS["hand"]]
    assert hand2[:2] == ["2b1", ""]
    hand1 = cells[-SLOTS["hand"] :]
    assert hand1[:3] == ["1s1", "1p1", ""]
    start = SLOTS["hand"] + SLOTS["speed"] + SLOTS["pile"]  # after Player2's three rows
    middle = cells[start : start + 2]
    assert middle[0] == "3s3" and middle[1].startswith("4")


def test_the_example_deck_game_uses_the_forceball_board():
    assert isinstance(board_for(get_game("forceball")), ForceballBoard)
