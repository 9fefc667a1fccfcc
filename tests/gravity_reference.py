"""A slow, obviously correct gravity board, written apart from the engine.

Used only by the tests, to check :mod:`partita.games.gravity.rules` ply by ply. It shares
no code with the engine: the board is a list of rows of ``"."``, ``"x"``, ``"o"``,
moves are ``(side, index)`` pairs, a piece is moved one cell at a time, and lines
are found by scanning every cell in every direction.
"""

from __future__ import annotations

STEPS = {"t": (0, 1), "b": (0, -1), "l": (1, 0), "r": (-1, 0)}


class ReferenceBoard:
    """One game on a ``width`` x ``height`` board, ``x`` moving first."""

    def __init__(self, width: int, height: int, sides: str, line_length: int = 4) -> None:
        self.width = width
        self.height = height
        self.sides = sides
        self.line_length = line_length
        # rows[r][c], both 0-based, row 0 at the top
        self.rows = [["."] * width for _ in range(height)]
        self.to_move = "x"
        self.winner: str | None = None

    def entry_cell(self, side: str, index: int) -> tuple[int, int]:
        """0-based (column, row) of the border cell a move enters by."""
        if side == "t":
            return index - 1, 0
        if side == "b":
            return index - 1, self.height - 1
        if side == "l":
            return 0, index - 1
        return self.width - 1, index - 1

    def all_moves(self) -> list[tuple[str, int]]:
        moves = []
        for side in "tblr":
            if side in self.sides:
                count = self.width if side in "tb" else self.height
                moves.extend((side, index) for index in range(1, count + 1))
        return moves

    def legal_moves(self) -> list[tuple[str, int]]:
        if self.winner is not None:
            return []
        legal = []
        for side, index in self.all_moves():
            column, row = self.entry_cell(side, index)
            if self.rows[row][column] == ".":
                legal.append((side, index))
        return legal

    def inside(self, column: int, row: int) -> bool:
        return 0 <= column < self.width and 0 <= row < self.height

    def play(self, side: str, index: int) -> tuple[int, int]:
        """Play a legal move; returns the 1-based (column, row) it landed on."""
        assert (side, index) in self.legal_moves()
        column, row = self.entry_cell(side, index)
        step_column, step_row = STEPS[side]
        while True:
            next_column, next_row = column + step_column, row + step_row
            if not self.inside(next_column, next_row):
                break
            if self.rows[next_row][next_column] != ".":
                break
            column, row = next_column, next_row
        self.rows[row][column] = self.to_move
        if self.longest_run(self.to_move) >= self.line_length:
            self.winner = self.to_move
        self.to_move = "o" if self.to_move == "x" else "x"
        return column + 1, row + 1

    def longest_run(self, piece: str) -> int:
        best = 0
        for row in range(self.height):
            for column in range(self.width):
                for step_column, step_row in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    length = 0
                    c, r = column, row
                    while self.inside(c, r) and self.rows[r][c] == piece:
                        length += 1
                        c, r = c + step_column, r + step_row
                    best = max(best, length)
        return best

    def is_over(self) -> bool:
        return self.winner is not None or not self.legal_moves()

    def result(self) -> str | None:
        """``"x"`` or ``"o"`` for a win, ``"draw"``, or ``None`` while playing."""
        if self.winner is not None:
            return self.winner
        if not self.legal_moves():
            return "draw"
        return None

    def text(self) -> str:
        """Rows from the top joined by ``/``, in full (``..x.....``), then who moves."""
        return "/".join("".join(row) for row in self.rows) + " " + self.to_move
