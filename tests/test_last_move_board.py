"""The text board marks the last move, as a user reads it: for every built-in game,
the cells (or cards) marked on the board after a move, read back by their
coordinates, are exactly the ones the move changed (found by comparing the unmarked
boards before and after it); a board with no last move has no mark; a seat's view of
a hidden-information table stays hidden; a game that does not mark (the plugin
guide's) draws as before.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_runner import run_cli

from partita.game.registry import get_game
from partita.notation.reader import read_records
from partita.notation.replay import replay

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

#: A record of each built-in game, replayed move by move.
RECORDS = {
    "forza4x4": EXAMPLES / "forza4x4" / "rulebook-example.pgr",
    "connect4": EXAMPLES / "connect4" / "thursday-league.pgr",
    "universal-forces": EXAMPLES / "universal-forces" / "agreed-draws.pgr",
    "circular-reasoning": EXAMPLES / "circular-reasoning" / "three-sides-advanced.pgr",
    "forceball": EXAMPLES / "forceball" / "junior.pgr",
}


def positions(path: Path, limit: int = 40):
    """The game and ``(before, after)`` of the first ``limit`` plies of the file's
    first record."""
    record = next(iter(read_records(path)))
    replayed = replay(record)
    game = replayed.game
    assert game is not None and replayed.initial_state is not None
    state = replayed.initial_state
    pairs = []
    for token in replayed.moves[:limit]:
        after = game.rules.apply(state, game.parse_move(state, token))
        pairs.append((state, after))
        state = after
    return game, replayed.initial_state, pairs


# -- reading a board by its coordinates -------------------------------------------------


def gravity_cells(board: str) -> dict[tuple[int, int], str]:
    """``(column, row) -> x/o/X/O/.`` of a Forza 4x4 or Connect Four board: the rows
    under the header of entry codes, a cell under its column's code."""
    lines = board.splitlines()
    header = lines[0]
    columns = [m.end() - 1 for m in re.finditer(r"\S+", header)]
    cells = {}
    for row, line in enumerate(lines[1:], start=1):
        if not re.match(r"\s*(l?\d+)\s", line) or line.startswith("  "):
            break
        for column, at in enumerate(columns, start=1):
            cells[column, row] = line[at]
    return cells


def uf_cells(board: str) -> dict[str, tuple[str, bool]]:
    """``"O2:14" -> (what the cell shows, marked)`` of a Universal Forces board: a
    cell is its ring's row under its section's number; a mark is the ``*`` just
    before it."""
    cells = {}
    header = ""
    for line in board.split("forces:")[0].splitlines():
        if line.startswith("    "):
            header = line
            continue
        if not re.match(r"([OMI]\d|C) ", line):
            continue
        ring = line.split()[0]
        line = line.ljust(len(header) + 4)
        for label in re.finditer(r"\S+", header):
            at = label.start()
            text = line[at:].split()[0] if line[at] != " " else ""
            section = label.group().removeprefix("C")
            name = f"C{section}" if ring == "C" else f"{ring}:{section}"
            cells[name] = (text, line[at - 1] == "*")
    return cells


def cr_cells(board: str) -> dict[str, str]:
    """``"O12" -> the 2 characters of that segment`` (``G`` -> the Goal Area's
    tokens) of a Circular Reasoning board, a segment under its number."""
    lines = board.splitlines()
    numbers = {m.group(): m.end() - 2 for m in re.finditer(r"\d+", lines[0])}
    cells = {}
    for line in lines[1:]:
        track = line[:1]
        if track in "OMI" and line[1:4] == "   ":
            for number, at in numbers.items():
                cells[f"{track}{number}"] = line[at : at + 2]
        elif track == "G":
            cells["G"] = line[1:].strip()
    return cells


CARD = r"\*?c\d+(?:\.\d+)?"


def forceball_cards(board: str) -> dict[str, tuple[str, bool]]:
    """``card id -> (where the table shows it, marked)``: the draw pile's top, a
    seat's hand, speed pile or maneuvers."""
    cards = {}
    seat = ""
    for line in board.splitlines():
        if line.startswith("draw pile"):
            place = "draw top"
        elif line.startswith("Player"):
            seat = line.split(":")[0]
            place = f"{seat} hand"
        elif line.strip().startswith(("speed", "maneuvers")):
            place = f"{seat} {line.split()[0]}"
        else:
            continue
        for match in re.finditer(CARD, line.split("(dealt")[0] if "draw" in place else line):
            card = match.group()
            cards[card.lstrip("*")] = (place, card.startswith("*"))
    return cards


# -- the marks --------------------------------------------------------------------------


def marks(name: str, board: str) -> set:
    if name in ("forza4x4", "connect4"):
        return {cell for cell, text in gravity_cells(board).items() if text in "XO"}
    if name == "universal-forces":
        return {cell for cell, (_, marked) in uf_cells(board).items() if marked}
    if name == "circular-reasoning":
        found = set()
        for cell, text in cr_cells(board).items():
            if cell == "G":
                found |= {f"G {token}" for token in text.split() if token[0].isupper()}
            elif text == " :" or text[0].isupper():
                found.add(cell)
        return found
    return {card for card, (_, marked) in forceball_cards(board).items() if marked}


def changes(name: str, before: str, after: str) -> set:
    """What the move changed, from the two unmarked boards."""
    if name in ("forza4x4", "connect4"):
        old, new = gravity_cells(before), gravity_cells(after)
        return {cell for cell in new if old[cell] != new[cell]}
    if name == "universal-forces":
        old_uf, new_uf = uf_cells(before), uf_cells(after)
        return {cell for cell in new_uf if old_uf[cell][0] != new_uf[cell][0]}
    if name == "circular-reasoning":
        old_cr, new_cr = cr_cells(before), cr_cells(after)
        found = {c for c in new_cr if c != "G" and old_cr[c] != new_cr[c]}
        was = set(old_cr["G"].split())
        return found | {f"G {t.upper()[0]}{t[1]}" for t in new_cr["G"].split() if t not in was}
    old_fb, new_fb = forceball_cards(before), forceball_cards(after)
    return {
        card
        for card, (place, _) in new_fb.items()
        if card in old_fb and old_fb[card][0] != place and place != "draw top"
    }


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_the_board_marks_exactly_what_the_last_move_changed(name):
    game, start, pairs = positions(RECORDS[name])
    assert not marks(name, game.diagram(start))
    marked_plies = compared = 0
    for ply, (before, after) in enumerate(pairs, start=1):
        plain = game.diagram(after)
        board = game.diagram(after, last=before)
        shown = marks(name, board)
        expected = changes(name, game.diagram(before), plain)
        if name == "circular-reasoning":
            # the upper-case colour letter is the mark: compare what the move changed
            # on the board, and the tokens that reached the Goal Area by name
            expected = {c for c in expected if not c.startswith("G ")} | {
                c for c in shown if c.startswith("G ")
            }
        if name == "forceball":
            # a card seen in both places that changed place is marked; a card newly
            # shown (drawn from the face-down pile) may be marked too, nothing else
            old_fb = forceball_cards(game.diagram(before))
            moved = {
                card
                for card, (place, _) in forceball_cards(plain).items()
                if card not in old_fb or old_fb[card][0] != place
            }
            assert expected <= shown <= moved, (ply, expected, shown)
            compared += bool(expected)
        else:
            assert shown == expected, (ply, board)
        legend = board.splitlines()[-1]
        assert bool(shown) == (board != plain), ply
        if shown:
            marked_plies += 1
            assert legend.split(":")[0] in ("upper case", "*"), legend
            if name != "circular-reasoning":  # the marks are all that differs
                blank = "" if name == "forceball" else " "  # a prefix, or a blank column
                unmarked = board.rsplit("\n", 1)[0].replace("*", blank)
                assert unmarked.lower() == plain.lower()
    assert marked_plies >= len(pairs) // 2
    assert name != "forceball" or compared >= 5  # the cards seen moving were compared


def test_the_gravity_mark_is_the_piece_the_move_placed_in_upper_case():
    game, _, pairs = positions(RECORDS["forza4x4"], limit=5)
    before, after = pairs[-1]  # 3. l8: column 3, row 8
    board = game.diagram(after, last=before)
    assert marks("forza4x4", board) == {(3, 8)}
    assert gravity_cells(board)[3, 8] == "X"
    assert board.endswith("\nupper case: the last move's piece")
    assert board.lower().replace("upper case: the last move's piece", "").strip() == (
        game.diagram(after).lower().strip()
    )


def test_the_universal_forces_mark_stands_before_both_cells_of_a_step():
    game, _, pairs = positions(RECORDS["universal-forces"], limit=4)
    before, after = pairs[-1]  # 2... O1:13-O2:14
    board = game.diagram(after, last=before)
    cells = uf_cells(board)
    assert cells["O1:13"] == ("b", True) and cells["O2:14"] == ("2B", True)
    assert marks("universal-forces", board) == {"O1:13", "O2:14"}


def test_a_seat_sees_the_marks_on_its_own_view_only():
    """Forceball as Player1 sees it: the opponent's hand and speed pile stay hidden
    after every move, and the marked view is the unmarked one plus marks."""
    game, _, pairs = positions(RECORDS["forceball"])
    seen = 0
    for before, after in pairs:
        for viewer in (0, 1):
            plain = game.diagram(after, viewer)
            board = game.diagram(after, viewer, last=before)
            body = board.removesuffix("\n*: a card the last move played or moved")
            assert body.replace("*", "") == plain
            hidden = [line for line in board.splitlines() if "(hidden)" in line]
            assert len(hidden) == 1 and not re.search(CARD, hidden[0])
            seen += body != plain
    assert seen


def test_show_marks_the_last_move_on_the_board_and_not_at_the_start():
    rulebook = str(RECORDS["forza4x4"])
    code, out, _ = run_cli(["show", rulebook, "--ply", "3"])
    assert code == 0
    board = out.split("after ply 3, last move 2. r5:\n", 1)[1]
    assert marks("forza4x4", board) == {(2, 5)}  # r5 stops next to the piece on column 1
    assert "upper case: the last move's piece" in board
    code, out, _ = run_cli(["show", rulebook, "--ply", "0"])
    board = out.split("after ply 0:\n", 1)[1]
    assert code == 0 and not marks("forza4x4", board) and "upper case" not in board


@pytest.mark.parametrize("name", ["universal-forces", "circular-reasoning", "forceball"])
def test_show_marks_the_last_move_of_every_game(name):
    game, _, pairs = positions(RECORDS[name], limit=6)
    code, out, _ = run_cli(["show", str(RECORDS[name]), "--ply", "6"], env={"COLUMNS": "250"})
    assert code == 0
    board = out.split("after ply 6, last move ", 1)[1].split("\n", 1)[1]
    before, after = pairs[-1]
    assert marks(name, board) == marks(name, game.diagram(after, last=before))
    assert marks(name, board)


def test_a_game_without_marks_draws_as_before():
    """The default of the contract: no mark, the same text (the plugin guide's game
    has no ``diagram_marked``, so it gets this)."""
    from partita.game.rules import Rules

    game = get_game("connect4")
    start = game.initial()
    after = game.play_line("t4")
    assert Rules.diagram_marked(game.rules, after, start) == game.diagram(after)
