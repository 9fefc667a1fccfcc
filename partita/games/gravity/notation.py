"""Notation of the gravity games (Forza 4x4, Connect Four): entry codes, positions,
Connect Four column strings.

Grammar only here (the BNF is in ``docs/forza4x4.md``); the meaning of a token
comes from :mod:`partita.games.gravity.rules`. A move is one entry code (``t4``), read
leniently as ``T4`` or ``t04`` too; a position is FEN-like, rows from the top
(``8/8/8/1o6/ox6/8/8/2xx4 o``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from partita.errors import IllegalMoveError, NotationError, SetupError
from partita.game.notation import GameNotation, parse_position_text
from partita.game.rules import DIGITS, POSITIVE
from partita.games.gravity.rules import (
    ConnectFourRules,
    Entry,
    Forza4x4Rules,
    GravityRules,
    GravityState,
    columns_from_entries,
    entries_from_columns,
)
from partita.notation.lazy import lazy_grammar

if TYPE_CHECKING:
    import pyparsing as pp

    from partita.games.gravity.patterns import GravityPattern

__all__ = [
    "CONNECT4",
    "ENTRY_CODE",
    "FORZA4X4",
    "POSITION",
    "GravityNotation",
    "columns_from_moves",
    "moves_from_columns",
]

# -- grammars (built on first use; no packrat) --------------------------------------


def _entry_code() -> pp.ParserElement:
    import pyparsing as pp

    return (
        pp.Regex(rf"(?P<side>[tblrTBLR])(?P<index>{DIGITS})")
        .set_name("entry code")
        .leave_whitespace()
    )


def _position() -> pp.ParserElement:
    import pyparsing as pp

    row = pp.Regex(rf"(?:[xo]|{POSITIVE})+").set_name("row (x, o and counts of empty cells)")
    board = pp.Group(row + pp.ZeroOrMore(pp.Suppress("/") - row))("rows").set_name(
        "rows separated by '/'"
    )
    gap = pp.Suppress(pp.White(" \t")).set_name("'/' or a space before the side to move")
    side = pp.Regex(r"[xo]")("side").set_name("side to move (x or o)")
    return (board + gap - side).leave_whitespace().set_name("position")


#: One move: a side letter and a column or row number, any case, leading zeros allowed.
ENTRY_CODE = lazy_grammar(_entry_code)
#: A position: rows from the top separated by ``/``, a space, the side to move.
POSITION = lazy_grammar(_position)


def row_cells(row: str, width: int) -> tuple[list[tuple[int, str]], int]:
    """The cells one row of the position notation (or of a pattern) names, left to
    right, as ``(column, char)``: a piece or a pattern mark as written, each cell of
    a count of empty cells as ``"."``; only cells on a board ``width`` wide are
    listed (a huge count costs nothing). With them, how many cells the row covers,
    for the caller to hold against the board's width."""
    cells: list[tuple[int, str]] = []
    column = 1
    count = ""
    for char in row + "/":  # "/" flushes a trailing count
        if char.isdigit():
            count += char
            continue
        if count:
            cells.extend(
                (empty, ".") for empty in range(column, min(column + int(count), width + 1))
            )
            column += int(count)
            count = ""
        if char != "/":
            if column <= width:
                cells.append((column, char))
            column += 1
    return cells, column - 1


class GravityNotation(GameNotation[GravityState, Entry]):
    """Entry codes and FEN-like positions around a :class:`GravityRules` engine."""

    rules: GravityRules

    def __init__(self, rules: GravityRules) -> None:
        super().__init__(rules)
        # Fast path: canonical tokens map straight to their entries; everything
        # else goes through the grammar (which accepts the same canonical tokens).
        self._canonical = {entry.notation(): entry for entry in rules.entries}
        #: Rows of the position notation by ``x_row | o_row << width`` (a row's
        #: bits), filled as met.
        self._row_text: dict[int, str] = {}
        #: The shift of each row's bits in a state's ``x`` and ``o``, top row first.
        self._shifts = range(0, rules.width * rules.height, rules.width)

    @property
    def title(self) -> str:
        return self.rules.title

    # -- moves ---------------------------------------------------------------------------
    def entry(self, text: str) -> Entry:
        """The entry of this board ``text`` names, in any accepted spelling;
        ``NotationError`` if it is no move of this game at all."""
        entry = self._canonical.get(text)
        if entry is not None:
            return entry
        import pyparsing as pp

        rules = self.rules
        try:
            if not text or text != text.strip():
                raise pp.ParseException(text, 0, "no white space around a move")
            fields = ENTRY_CODE.parse_string(text, parse_all=True)
        except pp.ParseException:
            letters = ", ".join(rules.entry_sides)
            raise NotationError(
                f"malformed move '{text}': an entry code is a side letter ({letters}) "
                "and a number, as in t4"
            ) from None
        side, index = fields["side"].lower(), int(fields["index"])
        if index == 0:
            kind = "column" if side in "tb" else "row"
            raise NotationError(f"no move '{text}' in {rules.title}: {kind}s count from 1")
        entry = Entry(side, index)
        problem = rules.entry_problem(entry)
        if problem is not None:
            raise NotationError(f"no move '{text}' in {rules.title}: {problem}")
        return entry

    def canonical_token(self, text: str) -> str:
        return self.entry(text).notation()

    def parse_move(self, state: GravityState, text: str) -> Entry:
        entry = self.entry(text)
        reason = self.rules.illegal_reason(state, entry)
        if reason is not None:
            raise IllegalMoveError.of(text, reason)
        return entry

    def format_move(self, state: GravityState, move: Entry) -> str:
        return move.notation()

    # -- positions -------------------------------------------------------------------------
    def parse_position(self, text: str, sides: int | None = None) -> GravityState:
        """The state a position string describes: ``NotationError`` if malformed,
        ``SetupError`` (with the reason) if the position cannot occur."""
        rules = self.rules
        if sides is not None and sides != 2:
            raise SetupError(f"{rules.title} is played by 2 sides, not {sides}")
        fields = parse_position_text(POSITION, text)
        rows = list(fields["rows"])
        if len(rows) != rules.height:
            raise SetupError(
                f"impossible position '{text}': it has {len(rows)} rows, "
                f"the board has {rules.height}"
            )
        x = o = 0
        for row_number, row in enumerate(rows, start=1):
            cells, covered = row_cells(row, rules.width)
            if covered != rules.width:
                raise SetupError(
                    f"impossible position '{text}': row {row_number} ('{row}') covers "
                    f"{covered} cells, the board is {rules.width} wide"
                )
            for column, char in cells:
                if char == "x":
                    x |= 1 << rules.bit(column, row_number)
                elif char == "o":
                    o |= 1 << rules.bit(column, row_number)
        try:
            return rules.setup(x, o, "xo".index(fields["side"]))
        except SetupError as error:
            raise SetupError(f"impossible position '{text}': {error}") from None

    def parse_pattern(self, text: str) -> GravityPattern:
        """A position pattern: the position notation with ``?`` (any cell), ``*``
        (any piece) and ``.`` (an empty cell), the side to move optional."""
        from partita.games.gravity.patterns import parse_pattern  # query --pattern only

        return parse_pattern(self.rules, text)

    def format_position(self, state: GravityState) -> str:
        width = self.rules.width
        mask = (1 << width) - 1
        row_text = self._row_text
        x, o = state.x, state.o
        rows = [
            row_text.get(x >> shift & mask | (o >> shift & mask) << width) for shift in self._shifts
        ]
        if None in rows:  # a row not seen yet
            rows = [
                text
                if text is not None
                else self._remember_row(x >> shift & mask, o >> shift & mask)
                for text, shift in zip(rows, self._shifts, strict=True)
            ]
        return "/".join(cast("list[str]", rows)) + (" o" if state.ply & 1 else " x")

    def _remember_row(self, x_row: int, o_row: int) -> str:
        text = self._row_text[x_row | o_row << self.rules.width] = self._format_row(x_row, o_row)
        return text

    def _format_row(self, x_row: int, o_row: int) -> str:
        """One row of the position notation from its bits (column 1 is bit 0)."""
        text = []
        empty = 0
        for column in range(self.rules.width):
            piece = "x" if x_row >> column & 1 else "o" if o_row >> column & 1 else ""
            if piece:
                if empty:
                    text.append(str(empty))
                    empty = 0
                text.append(piece)
            else:
                empty += 1
        if empty:
            text.append(str(empty))
        return "".join(text)

    # -- Connect Four column strings -------------------------------------------------------
    @property
    def has_column_strings(self) -> bool:  # type: ignore[override]
        return self.rules.entry_sides == "t"

    def moves_from_columns(self, text: str, state: GravityState | None = None) -> list[Entry]:
        """The moves of a column string (``"4453"``: t4 t4 t5 t3), each checked
        legal in turn from ``state`` (the initial position by default).

        ``NotationError`` for a character that is no column (or a game whose pieces
        do not enter from the top only), ``IllegalMoveError`` naming the first
        illegal move.
        """
        rules = self.rules
        if rules.entry_sides != "t":
            raise NotationError(
                f"{rules.title} has no column strings: its pieces enter from "
                f"{len(rules.entry_sides)} sides"
            )
        moves = list(entries_from_columns(text.strip(), rules.width))
        if state is None:
            state = rules.initial()
        states, reason = rules.replay_entries(state, moves)
        if reason is not None:
            position = len(states) + 1
            raise IllegalMoveError.of(
                str(moves[position - 1].index),
                reason,
                f"move {position} of column string '{text.strip()}'",
            )
        return moves

    def columns_from_moves(self, moves: Iterable[Entry]) -> str:
        """The column string of a line of top entries (t4 t4 t5 t3: ``"4453"``)."""
        return columns_from_entries(moves)


#: Forza 4x4: 8x8, entries from all four sides.
FORZA4X4 = GravityNotation(Forza4x4Rules())
#: Connect Four: 7x6, entries from the top.
CONNECT4 = GravityNotation(ConnectFourRules())


def moves_from_columns(text: str, state: GravityState | None = None) -> list[Entry]:
    """Connect Four moves of a column string, checked legal (see
    :meth:`GravityNotation.moves_from_columns`)."""
    return CONNECT4.moves_from_columns(text, state)


def columns_from_moves(moves: Iterable[Entry]) -> str:
    """The Connect Four column string of a line of moves."""
    return CONNECT4.columns_from_moves(moves)
