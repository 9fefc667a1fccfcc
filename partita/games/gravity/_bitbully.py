"""An optional engine for the standard 7x6 Connect Four board: bitbully.

bitbully (PyPI ``bitbully``, AGPL-3.0; the ``connect4`` extra) is a C++ solver of
Pascal Pons' design with Python bindings; its ``bitbully-databases`` package ships
opening databases of every position with 8 and 12 stones, the 12-stone one with the
distance to the end, so that it answers every 7x6 position exactly within about a
second, the empty board included. Its scores are Pons' (the convention of
:mod:`partita.games.gravity.solver`). The solver uses it, when it is installed,
for the 7x6 top-entry board with lines of four and nothing else; partita's own
search answers every other board, and this one where bitbully is missing.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

__all__ = ["BitBullyEngine", "available", "fits"]

#: The one board bitbully plays: 7 columns of 6, entered from the top, lines of four.
WIDTH, HEIGHT = 7, 6

#: One agent per process: loading the 12-stone database takes about half a second.
_AGENT: list[Any] = []


def available() -> bool:
    """Whether bitbully can be imported here."""
    try:
        return importlib.util.find_spec("bitbully") is not None
    except (ImportError, ValueError):
        return False


def fits(width: int, height: int, entry_sides: str, line_length: int) -> bool:
    """Whether a gravity board is the one bitbully plays."""
    return (width, height, entry_sides, line_length) == (WIDTH, HEIGHT, "t", 4)


def _agent() -> Any:
    if not _AGENT:
        bitbully: Any = importlib.import_module("bitbully")
        try:
            agent = bitbully.BitBully("default")  # the 12-stone database with distances
        except (ImportError, ValueError, OSError):  # no database: search only
            agent = bitbully.BitBully(None)
        _AGENT.append(agent)
    return _AGENT[0]


class BitBullyEngine:
    """Exact scores of 7x6 positions given as the engine's compact bitboards (cell
    ``r * 7 + c``, row 0 at the top), from the side to move (the side with fewer
    stones, x on a tie, as the search cores count it)."""

    name = "bitbully"

    def __init__(self) -> None:
        self.agent = _agent()
        self.nodes = 0

    @property
    def has_database(self) -> bool:
        return bool(self.agent.is_book_loaded())

    def _board(self, x: int, o: int) -> Any:
        board: Any = importlib.import_module("bitbully").Board
        columns = []
        for column in range(WIDTH):
            cells = []
            for row in range(HEIGHT - 1, -1, -1):  # bottom first
                bit = 1 << (row * WIDTH + column)
                cells.append(1 if x & bit else 2 if o & bit else 0)
            columns.append(cells)
        return board.from_array(columns)

    def move_scores(self, x: int, o: int) -> dict[int, int]:
        """Each playable column (from 0 at the left) and its score for the mover, of
        a position nobody has won yet."""
        agent = self.agent
        agent.reset_node_counter()
        scores = agent.score_all_moves(self._board(x, o))
        self.nodes += int(agent.get_node_counter())
        return {int(column): int(score) for column, score in scores.items()}

    def score(self, x: int, o: int) -> int:
        """The score of a position nobody has won yet, for the side to move."""
        agent = self.agent
        agent.reset_node_counter()
        score = int(agent.mtdf(self._board(x, o)))
        self.nodes += int(agent.get_node_counter())
        return score
