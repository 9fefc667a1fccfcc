"""Generate the shipped example records of Forza 4x4 and Connect Four.

Writes ``examples/forza4x4/*.pgr`` and ``examples/connect4/*.pgr`` (the hand-made
``examples/invalid/`` is not touched). Seeded and deterministic: the same code gives
the same files. Run from the repository root::

    .venv/bin/python tools/examples/gravity.py [--out examples]

How a game is made: a seeded heuristic player (win if it can, block an immediate
loss, prefer moves that extend its own lines and make threats, else random, with an
occasional blunder so that games get decided) picks among the engine's legal moves,
and the engine's trusted path (``rules.apply``) plays them. The player reads the
board from the engine's position notation; every landing cell it predicts is checked
against the engine's. Draws are searched for (a depth-first search on the board that
never completes a line) and then replayed through the engine. Records are built as
:class:`~partita.notation.model.Record` trees with comments, NAGs, suffixes and
nested variations (alternatives played by the same player), written with the
canonical writer, and every one is replayed in strict mode before it is kept.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from partita.game.notation import GameNotation
from partita.game.registry import get_game
from partita.notation.model import Node, Record
from partita.notation.replay import replay
from partita.notation.writer import write_record

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
DIRECTION_NAMES = {(0, 1): "row", (1, 0): "column", (1, 1): "diagonal", (1, -1): "diagonal"}
LINE = 4
SIDE_LETTERS = "xo"

Cell = tuple[int, int]
Board = dict[Cell, str]


# -- the board as the player sees it ------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    """Board size and entry sides of a gravity game, as the spec page fixes them."""

    width: int
    height: int
    entries: str  # some of "tblr"

    @classmethod
    def of(cls, game: str) -> Geometry:
        return cls(8, 8, "tblr") if game == "forza4x4" else cls(7, 6, "t")

    def codes(self) -> list[str]:
        codes: list[str] = []
        for side in self.entries:
            count = self.width if side in "tb" else self.height
            codes.extend(f"{side}{n}" for n in range(1, count + 1))
        return codes

    def path(self, code: str) -> list[Cell]:
        """Cells from the entry cell of ``code`` to the far border, in sliding order."""
        side, n = code[0], int(code[1:])
        if side == "t":
            return [(row, n) for row in range(1, self.height + 1)]
        if side == "b":
            return [(row, n) for row in range(self.height, 0, -1)]
        if side == "l":
            return [(n, col) for col in range(1, self.width + 1)]
        return [(n, col) for col in range(self.width, 0, -1)]

    def landing(self, board: Board, code: str) -> Cell | None:
        """Where a piece entering by ``code`` stops; ``None`` if the entry is occupied."""
        path = self.path(code)
        if path[0] in board:
            return None
        cell = path[0]
        for nxt in path[1:]:
            if nxt in board:
                break
            cell = nxt
        return cell


def runs(board: Board, cell: Cell, who: str) -> dict[tuple[int, int], list[Cell]]:
    """The run of ``who``'s pieces through ``cell`` (counted as ``who``'s) per direction."""
    result = {}
    for dr, dc in DIRECTIONS:
        cells = [cell]
        for sign in (1, -1):
            row, col = cell[0] + sign * dr, cell[1] + sign * dc
            while board.get((row, col)) == who:
                cells.append((row, col))
                row, col = row + sign * dr, col + sign * dc
        result[(dr, dc)] = sorted(cells)
    return result


def line_through(board: Board, cell: Cell, who: str) -> tuple[tuple[int, int], list[Cell]] | None:
    for direction, cells in runs(board, cell, who).items():
        if len(cells) >= LINE:
            return direction, cells
    return None


def board_of(game: GameNotation[Any, Any], state: Any) -> tuple[Board, str]:
    """The pieces and the side to move, read from the engine's position notation."""
    rows, to_move = game.format_position(state).split(" ")
    board: Board = {}
    for row, text in enumerate(rows.split("/"), start=1):
        col = 1
        for char in text:
            if char.isdigit():
                col += int(char)
            else:
                board[(row, col)] = char
                col += 1
    return board, to_move


def cell_name(cell: Cell) -> str:
    return f"row {cell[0]}, column {cell[1]}"


def code_order(token: str) -> tuple[int, int]:
    return "tblr".index(token[0]), int(token[1:])


# -- the heuristic player ---------------------------------------------------------


@dataclass
class Option:
    token: str
    move: Any
    cell: Cell


class Table:
    """One game's engine, notation and geometry, with the player's helpers."""

    def __init__(self, game_name: str) -> None:
        self.game = get_game(game_name)
        self.rules = self.game.rules
        self.geometry = Geometry.of(game_name)

    def options(self, state: Any) -> list[Option]:
        """Legal moves in a fixed order (by token), each with its landing cell."""
        board, _ = board_of(self.game, state)
        found = []
        for move in self.rules.legal_moves(state):
            token = self.game.format_move(state, move)
            cell = self.geometry.landing(board, token)
            if cell is None:
                raise AssertionError(f"engine offers {token} but its entry cell is occupied")
            found.append(Option(token, move, cell))
        found.sort(key=lambda option: code_order(option.token))
        return found

    def play(self, state: Any, option: Option) -> Any:
        """The engine's trusted path, checked against the predicted landing cell."""
        before, mover = board_of(self.game, state)
        after = self.rules.apply(state, option.move)
        board, _ = board_of(self.game, after)
        new = set(board) - set(before)
        if new != {option.cell} or board[option.cell] != mover:
            raise AssertionError(
                f"{option.token}: expected a piece on {option.cell}, engine placed {new}"
            )
        return after

    def threats(self, board: Board, who: str) -> list[str]:
        """Cells where ``who`` would complete a line next move, one entry code each
        (several codes may reach the same cell; the first in code order names it)."""
        cells: dict[Cell, str] = {}
        for code in self.geometry.codes():
            cell = self.geometry.landing(board, code)
            if cell is not None and cell not in cells and line_through(board, cell, who):
                cells[cell] = code
        return list(cells.values())

    def allows_fork(self, board: Board, me: str, opponent: str) -> bool:
        """Whether the opponent, to move on ``board``, can make two threats at once
        while ``me`` has no win of its own to answer with."""
        for code in self.geometry.codes():
            cell = self.geometry.landing(board, code)
            if cell is None:
                continue
            after = dict(board)
            after[cell] = opponent
            if len(self.threats(after, opponent)) >= 2 and not self.threats(after, me):
                return True
        return False


@dataclass
class Style:
    """How a player plays: how often it overlooks a threat, how noisy its choice is,
    how many of its best moves it checks for a double threat they would allow."""

    blunder: float = 0.05
    noise: float = 3.0
    lookahead: int = 4


def choose(table: Table, state: Any, rng: random.Random, style: Style) -> Option:
    """Win if possible, block an immediate loss, else extend own lines (with noise),
    avoiding moves that hand the opponent a win or a double threat."""
    options = table.options(state)
    board, me = board_of(table.game, state)
    opponent = "o" if me == "x" else "x"
    wins = [o for o in options if line_through(board, o.cell, me)]
    if wins:
        return rng.choice(wins)
    careless = rng.random() < style.blunder
    if not careless:
        blocks = [o for o in options if line_through(board, o.cell, opponent)]
        if blocks:
            return rng.choice(blocks)
    scored = []
    for index, option in enumerate(options):
        after = dict(board)
        after[option.cell] = me
        score: float = sum(len(c) ** 2 for c in runs(board, option.cell, me).values())
        score += 0.5 * sum(len(c) ** 2 for c in runs(board, option.cell, opponent).values())
        score += style.noise * rng.random() * 10
        if not careless:
            if table.threats(after, opponent):
                score -= 1000  # hands the opponent a win
            mine = len(table.threats(after, me))
            score += 40 if mine >= 2 else 8 * mine
        scored.append((score, -index, option, after))
    scored.sort(key=lambda item: item[:2], reverse=True)
    if not careless:
        for score, _, option, after in scored[: style.lookahead]:
            if score < -500:
                break
            if len(table.threats(after, me)) >= 2 or not table.allows_fork(after, me, opponent):
                return option
    return scored[0][2]


@dataclass
class Ply:
    option: Option
    before: Any
    after: Any


def playout(
    table: Table, state: Any, rng: random.Random, style: Style, limit: int = 10_000
) -> list[Ply]:
    plies: list[Ply] = []
    while table.rules.outcome(state) is None and len(plies) < limit:
        option = choose(table, state, rng, style)
        after = table.play(state, option)
        plies.append(Ply(option, state, after))
        state = after
    return plies


def replay_tokens(table: Table, state: Any, tokens: list[str]) -> list[Ply]:
    plies = []
    for token in tokens:
        option = next(o for o in table.options(state) if o.token == token)
        after = table.play(state, option)
        plies.append(Ply(option, state, after))
        state = after
    return plies


def search_draw(table: Table, rng: random.Random, budget: int = 20_000) -> list[str]:
    """Entry codes of a game that ends with no legal move and no line (depth first).

    Played as by careful players: after every move the side to move has no winning
    move (so nobody ever misses a win), and moves making short runs are tried
    first. Explicit stack; a fresh random order when the budget runs out.
    """
    geometry = table.geometry

    def candidates(board: Board, who: str) -> list[str]:
        other = "o" if who == "x" else "x"
        scored = []
        for code in geometry.codes():
            cell = geometry.landing(board, code)
            if cell is None:
                continue
            after = dict(board)
            after[cell] = who
            if table.threats(after, other):
                continue
            longest = max(len(cells) for cells in runs(board, cell, who).values())
            scored.append((longest, rng.random(), code))
        scored.sort(reverse=True)  # popped from the end: the shortest run first
        return [code for _, _, code in scored]

    while True:
        board: Board = {}
        placed: list[tuple[str, Cell]] = []
        stack = [candidates(board, "x")]
        nodes = 0
        while stack and nodes < budget:
            if not any(geometry.landing(board, code) for code in geometry.codes()):
                return [code for code, _ in placed]
            if not stack[-1]:
                stack.pop()
                if placed:
                    del board[placed.pop()[1]]
                continue
            code = stack[-1].pop()
            cell = geometry.landing(board, code)
            assert cell is not None, "a candidate entry is free"
            board[cell] = SIDE_LETTERS[len(placed) % 2]
            placed.append((code, cell))
            nodes += 1
            stack.append(candidates(board, SIDE_LETTERS[len(placed) % 2]))


# -- annotation -----------------------------------------------------------------------


def describe_line(direction: tuple[int, int], cells: list[Cell]) -> str:
    first, last = cells[0], cells[-1]
    kind = DIRECTION_NAMES[direction]
    count = {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}[len(cells)]
    if kind == "row":
        where = f"on row {first[0]}, columns {first[1]} to {last[1]}"
    elif kind == "column":
        where = f"in column {first[1]}, rows {first[0]} to {last[0]}"
    else:
        where = f"on the diagonal from {cell_name(first)} to {cell_name(last)}"
    return f"{count} in a row {where}"


def join_codes(codes: list[str]) -> str:
    return codes[0] if len(codes) == 1 else ", ".join(codes[:-1]) + " and " + codes[-1]


class Annotator:
    """Comments, suffixes and NAGs a commentator would add, read off the board."""

    def __init__(self, table: Table, rng: random.Random, density: float) -> None:
        self.table = table
        self.rng = rng
        self.density = density

    def annotate(self, node: Node, ply: Ply, *, last: bool) -> None:
        table = self.table
        before, mover = board_of(table.game, ply.before)
        after, _ = board_of(table.game, ply.after)
        other = "o" if mover == "x" else "x"
        cell = ply.option.cell
        won = line_through(before, cell, mover)
        if won:
            node.comments.append(describe_line(*won))
            if self.rng.random() < 0.5:
                node.suffix = "!"
            return
        threats_before = table.threats(before, other)
        my_threats = table.threats(after, mover)
        their_threats = table.threats(after, other)
        if their_threats:
            if threats_before and len(threats_before) > 1:
                both = "both" if len(threats_before) == 2 else "all"
                node.comments.append(f"{join_codes(threats_before)} cannot {both} be stopped")
            else:
                node.suffix = "??"
                node.comments.append(f"allows {join_codes(their_threats)}")
            return
        if len(my_threats) >= 2:
            node.suffix = self.rng.choice(["!", "!!", ""])
            node.nags.append(18 if mover == "x" else 19)
            count = {2: "two", 3: "three"}.get(len(my_threats), str(len(my_threats)))
            node.comments.append(f"{count} threats: {join_codes(my_threats)}")
            return
        if (
            threats_before
            and len(threats_before) == 1
            and cell == table.geometry.landing(before, threats_before[0])
        ):
            node.nags.append(7)  # only move
            if self.rng.random() < self.density:
                node.comments.append(f"blocks {threats_before[0]} on {cell_name(cell)}")
            return
        if my_threats and self.rng.random() < self.density:
            node.comments.append(f"threatens {my_threats[0]}")
            return
        if not last and self.rng.random() < self.density / 4:
            node.suffix = self.rng.choice(["!?", "?!", "?", "!"])


def add_line(
    parent: Node, plies: list[Ply], annotator: Annotator | None, *, start: int = 0
) -> list[Node]:
    """Append plies as a chain under ``parent`` (the first as a new child)."""
    nodes = []
    node = parent
    for index, ply in enumerate(plies[start:], start=start):
        node = node.add_move(ply.option.token)
        if annotator is not None:
            annotator.annotate(node, ply, last=index == len(plies) - 1)
        nodes.append(node)
    return nodes


VARIATION_OPENERS = [
    "also possible:",
    "safer was",
    "worth a look:",
    "more testing:",
    "an idea from the post-mortem:",
    "instead",
    "the players looked at",
]


def add_variations(
    table: Table,
    nodes: list[Node],
    plies: list[Ply],
    rng: random.Random,
    style: Style,
    annotator: Annotator,
    *,
    count: int,
    depth: int,
) -> int:
    """Add up to ``count`` variations to a line, nested to ``depth`` levels.

    Each variation replaces one move of the line by another legal move (the
    player's second choice) and continues with the same player for a few plies.
    Returns the deepest nesting made.
    """
    if depth == 0 or len(plies) < 3:
        return 0
    deepest = 0
    points = sorted(rng.sample(range(1, len(plies) - 1), min(count, len(plies) - 2)))
    for index in points:
        ply = plies[index]
        alternatives = [o for o in table.options(ply.before) if o.token != ply.option.token]
        if not alternatives:
            continue
        # the heuristic's own choice when the mainline move is taken away
        pick = choose(table, ply.before, rng, style)
        if pick.token == ply.option.token:
            pick = rng.choice(alternatives)
        first = Ply(pick, ply.before, table.play(ply.before, pick))
        rest = playout(table, first.after, rng, style, limit=rng.randint(2, 6))
        line = [first, *rest]
        parent = nodes[index - 1]
        branch = add_line(parent, line, annotator)
        if rng.random() < 0.5:
            branch[0].starting_comments.append(rng.choice(VARIATION_OPENERS))
        quiet = not branch[-1].comments
        if quiet and table.rules.outcome(line[-1].after) is None and rng.random() < 0.4:
            branch[-1].comments.append(rng.choice(["unclear", "and the game goes on", "equal"]))
        inner = add_variations(table, branch, line, rng, style, annotator, count=1, depth=depth - 1)
        deepest = max(deepest, 1 + inner)
    return deepest


# -- records ------------------------------------------------------------------------------


@dataclass
class GameSpec:
    """One record to make: its tags, how it ends, and how richly it is annotated."""

    tags: dict[str, str]
    ending: str  # play, resign, time, agreement, adjudication, abandoned, unfinished, draw
    seed: int
    variations: int = 0
    depth: int = 1
    density: float = 0.3
    termination_tag: bool = True  # write Termination "normal" on a played-out game
    ending_result: str | None = None  # forced result for abandoned / adjudication
    setup_tokens: str | None = None  # Pons column string for a Connect Four setup
    #: A problem: set up before this side's decisive double threat ("x" or "o").
    problem: str | None = None
    intro: str | None = None
    style: Style = field(default_factory=Style)


@dataclass
class Made:
    record: Record
    termination: str | None
    depth: int


def result_of(winner: int | None) -> str:
    return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[winner]


def make_record(game_name: str, spec: GameSpec) -> Made:
    """The record of ``spec``; a playout that cannot end as asked (a resignation
    needs a decided game) is retried with the next seed, deterministically."""
    for attempt in range(100):
        try:
            return _make_record(game_name, spec, spec.seed + 100_000 * attempt)
        except Unsuitable:
            continue
    raise RuntimeError(f"no suitable game for {spec.tags}")


class Unsuitable(Exception):
    """This seed's playout cannot end the way the spec asks."""


def _make_record(game_name: str, spec: GameSpec, seed: int) -> Made:
    table = Table(game_name)
    rng = random.Random(seed)
    annotator = Annotator(table, rng, spec.density)
    tags = {"Game": game_name, **spec.tags}
    start = table.rules.initial()
    if spec.setup_tokens is not None:
        for digit in spec.setup_tokens:
            options = table.options(start)
            start = table.play(start, next(o for o in options if o.token == f"t{digit}"))
        tags["SetUp"] = "1"
        tags["Position"] = table.game.format_position(start)
        start = table.game.parse_position(tags["Position"])
    plies, termination, result, closing = plan_game(table, start, rng, spec)
    if spec.problem is not None:
        plies, start = problem_from(table, plies, spec.problem)
        tags["SetUp"] = "1"
        tags["Position"] = table.game.format_position(start)
        start = table.game.parse_position(tags["Position"])
        plies = replay_tokens(table, start, [p.option.token for p in plies])
    tags["Result"] = result
    if termination is not None:
        tags["Termination"] = termination
    record = Record(tags=tags, result=result)
    if spec.intro:
        record.root.comments.append(spec.intro)
    nodes = add_line(record.root, plies, annotator)
    if closing and nodes:
        nodes[-1].comments.append(closing)
    depth = add_variations(
        table, nodes, plies, rng, spec.style, annotator, count=spec.variations, depth=spec.depth
    )
    return Made(record, termination, depth)


def cut_point(rng: random.Random, plies: list[Ply], low: float, high: float) -> int:
    return max(2, int(len(plies) * rng.uniform(low, high)))


def plan_game(
    table: Table, start: Any, rng: random.Random, spec: GameSpec
) -> tuple[list[Ply], str | None, str, str | None]:
    """The mainline, the Termination tag, the result and a closing comment."""
    rules = table.rules
    ending = spec.ending
    if ending == "draw":
        tokens = search_draw(table, rng)
        plies = replay_tokens(table, start, tokens)
        outcome = rules.outcome(plies[-1].after)
        assert outcome is not None and outcome.winner is None, "the draw search failed"
        closing = (
            "every entry cell is taken and nobody has a line: a draw"
            if table.geometry.entries == "tblr"
            else "the board is full and nobody has four: a draw"
        )
        return plies, "normal" if spec.termination_tag else None, "1/2-1/2", closing
    plies = playout(table, start, rng, spec.style)
    outcome = rules.outcome(plies[-1].after)
    if ending == "play":
        assert outcome is not None
        return plies, "normal" if spec.termination_tag else None, outcome.result_token(), None
    if ending == "resign":
        # stop after the winner's double threat: the loser resigns instead of moving
        assert outcome is not None
        winner = outcome.winner
        if winner is None or len(plies) < 5:
            raise Unsuitable
        plies = plies[:-2]
        loser = SIDE_LETTERS[1 - winner]
        board, _ = board_of(table.game, plies[-1].after)
        threats = table.threats(board, SIDE_LETTERS[winner])
        if len(threats) < 2:
            raise Unsuitable  # one threat can be blocked: nobody would resign here
        both = "both" if len(threats) == 2 else "all"
        closing = f"{loser} resigns: {join_codes(threats)} cannot {both} be stopped"
        return plies, "resignation", result_of(winner), closing
    if ending == "time":
        plies = plies[: cut_point(rng, plies, 0.4, 0.8)]
        loser_seat = rules.side_to_move(plies[-1].after)
        closing = f"{SIDE_LETTERS[loser_seat]} lost on time"
        return plies, "time", result_of(1 - loser_seat), closing
    if ending == "agreement":
        plies = plies[: cut_point(rng, plies, 0.3, 0.6)]
        return plies, "agreement", "1/2-1/2", "draw agreed"
    if ending == "adjudication":
        plies = plies[: cut_point(rng, plies, 0.6, 0.9)]
        result = spec.ending_result or "1/2-1/2"
        return plies, "adjudication", result, "adjudicated by the tournament director"
    if ending == "abandoned":
        plies = plies[: cut_point(rng, plies, 0.2, 0.5)]
        result = spec.ending_result or "*"
        return plies, "abandoned", result, "the game was abandoned"
    if ending == "unfinished":
        plies = plies[: cut_point(rng, plies, 0.3, 0.7)]
        termination = "unterminated" if spec.termination_tag else None
        return plies, termination, "*", None
    raise ValueError(f"unknown ending {ending!r}")


def problem_from(table: Table, plies: list[Ply], side: str) -> tuple[list[Ply], Any]:
    """The finish of a game won by ``side``, from the position before its double threat."""
    outcome = table.rules.outcome(plies[-1].after)
    if outcome is None or outcome.winner is None or SIDE_LETTERS[outcome.winner] != side:
        raise Unsuitable
    for index in range(len(plies) - 2, -1, -1):
        ply = plies[index]
        board, to_move = board_of(table.game, ply.after)
        if to_move != side and len(table.threats(board, side)) >= 2:
            return plies[index:], ply.before
    raise Unsuitable


# -- the example sets --------------------------------------------------------------------

PLAYERS = [
    "Zoë Müller",
    "Ŀuka Ñúñez",
    "Chiara Bellandi",
    "Søren Åberg",
    "Giulia Ferrante",
    "Łucja Wąsowska",
    "Ahmet Yılmaz",
    "Marco Rossi",
]
LYON = ["Émile Durand", "Aoife Ní Bhriain", "François Béranger", "Nadia Kovačević"]
BOLOGNA = ["Zoë Müller", "Giulia Ferrante", "Marco Rossi", "Ŀuka Ñúñez"]


def club_championship() -> list[GameSpec]:
    event = {"Event": "Circolo Felsineo club championship 2024", "Site": "Bologna ITA"}
    endings = [
        "play", "play", "resign", "play", "play", "time", "play",
        "draw", "play", "play", "resign", "play", "play", "play",
    ]  # fmt: skip
    specs = []
    for index, ending in enumerate(endings):
        round_no, board = divmod(index, 2)
        first = PLAYERS[(round_no + board * 3) % 8]
        second = PLAYERS[(round_no + board * 3 + 4 + round_no % 3) % 8]
        if first == second:
            second = PLAYERS[(PLAYERS.index(first) + 1) % 8]
        tags = {
            **event,
            "Date": f"2024.03.{5 + 7 * round_no:02d}"
            if round_no < 4
            else f"2024.04.{7 * round_no - 26:02d}",
            "Round": f"{round_no + 1}.{board + 1}",
            "Player1": first,
            "Player2": second,
        }
        if index % 4 == 1:
            tags["Annotator"] = "Chiara Bellandi"
        specs.append(
            GameSpec(
                tags=tags,
                ending=ending,
                seed=1000 + index,
                variations=(index % 3),
                depth=1 + index % 3,
                termination_tag=index % 2 == 0,
            )
        )
    return specs


def casual_evening() -> list[GameSpec]:
    base = {"Event": "Casual evening", "Site": "Zoë's kitchen, Bologna"}
    endings = [
        ("play", None), ("agreement", None), ("play", None), ("unfinished", None),
        ("resign", None), ("play", None), ("abandoned", None), ("play", None),
        ("agreement", None), ("unfinished", None), ("play", None), ("time", None),
    ]  # fmt: skip
    specs = []
    for index, (ending, result) in enumerate(endings):
        pair = [("Zoë Müller", "Ŀuka Ñúñez"), ("Søren Åberg", "Zoë Müller")][index % 2]
        date = ["2023.11.??", "2023.11.17", "????.??.??", "2023.??.??"][index % 4]
        specs.append(
            GameSpec(
                tags={
                    **base,
                    "Date": date,
                    "Round": str(index + 1),
                    "Player1": pair[0],
                    "Player2": pair[1],
                },
                ending=ending,
                ending_result=result,
                seed=2000 + index,
                variations=1 if index % 3 == 0 else 0,
                depth=2,
                density=0.15,
                termination_tag=index % 3 == 1,
                intro="blitz, five minutes each" if ending == "time" else None,
                style=Style(blunder=0.12, noise=5.0),
            )
        )
    return specs


def correspondence_match() -> list[GameSpec]:
    base = {"Event": "Bologna v Lyon correspondence match", "Site": "by post"}
    endings = [
        ("play", None), ("adjudication", "1-0"), ("play", None), ("time", None),
        ("abandoned", "0-1"), ("adjudication", "1/2-1/2"), ("resign", None),
        ("play", None), ("unfinished", None), ("play", None),
    ]  # fmt: skip
    specs = []
    for index, (ending, result) in enumerate(endings):
        board = index % 4
        home, away = BOLOGNA[board], LYON[(board + index // 4) % 4]
        first, second = (home, away) if index % 2 == 0 else (away, home)
        specs.append(
            GameSpec(
                tags={
                    **base,
                    "Date": "2022.09.??" if index < 5 else "2023.??.??",
                    "Round": f"{index // 4 + 1}",
                    "Player1": first,
                    "Player2": second,
                    "TimeControl": "10 days per move",
                },
                ending=ending,
                ending_result=result,
                seed=3000 + index,
                variations=2 + index % 2,
                depth=3 if index % 3 == 0 else 2,
                density=0.5,
                termination_tag=True,
                intro="annotated by both players after the game" if index % 4 == 0 else None,
                style=Style(blunder=0.03, noise=2.0),
            )
        )
    return specs


def problems() -> list[GameSpec]:
    """Positions before a decisive double threat: two with o to move, one with x."""
    specs = []
    for index, side in enumerate("oox"):
        specs.append(
            GameSpec(
                tags={
                    "Event": "Problem corner, club bulletin",
                    "Date": f"2024.0{index + 1}.??",
                    "Round": str(index + 1),
                    "Annotator": "Søren Åberg",
                },
                ending="play",
                seed=4000 + index,
                problem=side,
                density=1.0,
                termination_tag=False,
                intro=f"{side} to move wins",
            )
        )
    return specs


def connect4_league() -> list[GameSpec]:
    base = {"Event": "Thursday Connect Four league", "Site": "Café Müller, Lyon"}
    endings = [
        "play", "play", "play", "draw", "resign", "play", "time", "unfinished",
        "play", "agreement", "play", "resign", "play",
    ]  # fmt: skip
    names = ["Émile Durand", "Zoë Müller", "Aoife Ní Bhriain", "Ŀuka Ñúñez", "Jun Takahashi"]
    specs = []
    for index, ending in enumerate(endings):
        first, second = names[index % 5], names[(index + 2) % 5]
        specs.append(
            GameSpec(
                tags={
                    **base,
                    "Date": f"2024.{1 + index // 4:02d}.{4 + 7 * (index % 4):02d}",
                    "Round": str(index + 1),
                    "Player1": first,
                    "Player2": second,
                },
                ending=ending,
                seed=5000 + index,
                variations=index % 3,
                depth=1 + index % 2,
                termination_tag=index % 2 == 1,
                style=Style(blunder=0.05, noise=2.5),
            )
        )
    return specs


#: Three of Pascal Pons' Connect Four test positions (``../shared/data/connect4-pons/``):
#: (file, line, column string). Copied here so the generator needs no data files.
PONS_POSITIONS = (
    ("begin-easy", 2, "6146"),
    ("middle-easy", 1, "5554224333234511764415115"),
    ("begin-medium", 3, "2416615552"),
)


def connect4_pons() -> list[GameSpec]:
    specs = []
    for index, ((name, line, columns), ending) in enumerate(
        zip(PONS_POSITIONS, ["play", "unfinished", "resign"], strict=True)
    ):
        specs.append(
            GameSpec(
                tags={
                    "Event": "Games from Pascal Pons' solver test positions",
                    "Round": str(index + 1),
                    "Player1": "Jun Takahashi",
                    "Player2": "Émile Durand",
                    "Source": f"Pons {name}, line {line}: {columns}",
                },
                ending=ending,
                seed=6000 + index,
                setup_tokens=columns,
                variations=1,
                intro=f"set up after the columns {columns}",
                termination_tag=False,
            )
        )
    return specs


def rulebook_example() -> Record:
    """The rulebook's worked example, with the landing cells the spec page gives."""
    tags = {
        "Game": "forza4x4",
        "Event": "Forza 4x4 rulebook, worked example",
        "Player1": "Giallo",
        "Player2": "Rosso",
        "Result": "*",
        "Annotator": "spec page forza4x4.md",
    }
    record = Record(tags=tags, result="*")
    record.root.comments.append(
        "Yellow (Giallo) starts; columns 1..8 left to right, rows 1..8 top to bottom"
    )
    comments = [
        ("t4", "column 4 is empty: the piece lands on row 8, column 4; entry b4 is now closed"),
        ("r5", "row 5 is empty: the piece lands on row 5, column 1"),
        ("r5", "lands on row 5, column 2, stopped by the piece on column 1"),
        ("t2", "lands on row 4, column 2, right above the piece of ply 3"),
        ("l8", "lands on row 8, column 3, stopped by the piece on column 4"),
    ]
    node = record.root
    for token, comment in comments:
        node = node.add_move(token, comments=[comment])
    return record


FILES: dict[str, dict[str, Callable[[], list[GameSpec]]]] = {
    "forza4x4": {
        "club-championship-2024.pgr": club_championship,
        "casual-evening.pgr": casual_evening,
        "correspondence-match.pgr": correspondence_match,
        "problems.pgr": problems,
    },
    "connect4": {
        "thursday-league.pgr": connect4_league,
        "pons-positions.pgr": connect4_pons,
    },
}


def checked(record: Record) -> Record:
    replayed = replay(record, strict=True)
    if replayed.problems:
        text = write_record(record)
        raise AssertionError(f"generated record has problems: {replayed.problems}\n{text}")
    return record


def build(out: Path) -> Iterator[tuple[Path, int]]:
    """Write every example file; yield each path and its number of records."""
    target = out / "forza4x4" / "rulebook-example.pgr"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(write_record(checked(rulebook_example())), encoding="utf-8")
    yield target, 1
    for game_name, files in FILES.items():
        for file_name, make_specs in files.items():
            texts = []
            for spec in make_specs():
                made = make_record(game_name, spec)
                texts.append(write_record(checked(made.record)))
            target = out / game_name / file_name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("\n".join(texts), encoding="utf-8")
            yield target, len(texts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("examples"))
    args = parser.parse_args(argv)
    for path, count in build(args.out):
        print(f"{path}: {count} records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
