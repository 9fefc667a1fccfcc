"""Problems found in a record, kept as data (after python-chess's ``game.errors``).

A problem names the place (file, line, column, record index, ply, move number),
the token as written, and the reason in a player's words. Reading and replay never
stop at a problem: they collect them and go on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

ERROR = "error"
WARNING = "warning"

#: Every kind of problem, with the severity it has in lenient mode. Strict mode
#: makes every warning an error.
KINDS: dict[str, str] = {
    "syntax": ERROR,  # malformed text: a tag line, an unclosed comment, a stray token
    "malformed-move": ERROR,  # a token that is no move of this game
    "illegal-move": ERROR,  # a well-formed move the rules forbid here
    "ambiguous-move": ERROR,  # a token matching more than one legal move
    "move-after-end": ERROR,  # a move after the rules ended the game
    "move-number": WARNING,  # a written move number that does not fit
    "spelling": WARNING,  # a move accepted in a non-canonical spelling (T4, t04)
    "missing-tag": ERROR,  # Game or Result absent
    "unknown-game": ERROR,  # a Game tag naming no supported game
    "bad-tag": ERROR,  # a known tag with a value the game does not know
    "bad-setup": ERROR,  # a SetUp/Position that cannot occur
    "missing-result": ERROR,  # the movetext does not end with a result token
    "result-mismatch": ERROR,  # the movetext's result differs from the Result tag
    "bad-result": ERROR,  # a result token of the wrong shape for the game
    "wrong-result": ERROR,  # a result the final position contradicts
    "unexplained-result": WARNING,  # a result on an undecided position without a fitting Termination
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of one record. Lines and columns count from 1; ``ply`` counts
    the record's moves (passes included) from 1, ``None`` where no move is concerned."""

    kind: str
    message: str
    severity: str = ERROR
    file: str = "<string>"
    line: int = 0
    column: int = 0
    record: int = 0
    ply: int | None = None
    move_number: int | None = None
    token: str | None = None
    #: The record's Event and players, to recognise it in a long file.
    context: str = ""

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["move"] = self.token  # the name the CLI's JSON promises
        return data

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}"
        ply = f" (ply {self.ply}, move {self.move_number})" if self.ply is not None else ""
        return f"{where}: {self.severity}: {self.message}{ply}"
