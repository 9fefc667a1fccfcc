"""Notation of Universal Forces: moves (``G@O1:9``, ``O1:9-O2:10``, ``O2:10+O2:11``,
``M1:3xM1:4``, ``C1-H``, ``--``) and positions.

Grammar only here (the BNF is in ``docs/universal-forces.md``); what a move does
comes from :mod:`partita.games.universal_forces.rules`. ``-`` is the generic operator and
is accepted for every step; ``+`` (a stack) and ``x`` (onto opponents) claim what
happens, and a false claim is an illegal move. The writer emits the exact operator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from partita.errors import IllegalMoveError, NotationError, SetupError
from partita.game.notation import GameNotation, parse_position_text
from partita.game.rules import DIGITS, POSITIVE
from partita.games.universal_forces.rules import (
    FORCE_NAMES,
    FORCES,
    HOME,
    PASS,
    Entry,
    Move,
    Pass,
    Step,
    UniversalForcesRules,
    UniversalForcesState,
    format_forces,
)
from partita.notation.lazy import lazy_grammar

if TYPE_CHECKING:
    import pyparsing as pp

    from partita.games.universal_forces.patterns import UniversalForcesPattern

__all__ = ["MOVE", "POSITION", "UNIVERSAL_FORCES", "UniversalForcesNotation"]

# -- grammars (built on first use; no packrat) ----------------------------------------

_CELL = rf"(?:[OMIomi]{DIGITS}:{DIGITS}|[Cc]{DIGITS})"


def _move() -> pp.ParserElement:
    import pyparsing as pp

    return (
        pp.Regex(
            rf"(?P<force>[GYBRgybr])@(?P<cell>{_CELL})"
            rf"|(?P<origin>{_CELL})(?P<op>[-+xX])(?P<target>{_CELL}|[Hh])"
            r"|(?P<pass>--)"
        )
        .set_name("move")
        .leave_whitespace()
    )


def _position() -> pp.ParserElement:
    import pyparsing as pp

    forces = pp.Regex(r"(?:[1-9][GYBR])+").set_name("forces (side digit and force letter)")
    occupied = pp.Group(
        pp.Regex(_CELL).set_name("cell")("cell") + pp.Suppress("=") - forces("forces")
    ).set_name("occupied cell")
    board = (
        pp.Literal("-").set_name("'-' (an empty board)")("empty")
        | pp.Group(pp.DelimitedList(occupied, ","))("cells")
    ).set_name("board")
    letters = pp.Regex(r"[GYBR]+|-").set_name("force letters or '-'")
    side = pp.Group(
        pp.Regex(r"[1-9]")("seat")
        + pp.Suppress(":")
        - letters("reserve")
        + pp.Suppress("/")
        + letters("home")
        + pp.Suppress("/")
        + letters("eliminated")
    ).set_name("side (seat:reserve/home/eliminated)")
    space = pp.Suppress(pp.White(" \t")).set_name("a space")
    return (
        board
        + pp.Group(pp.OneOrMore(space + side))("sides")
        + space
        - pp.Regex(r"[1-9]")("to_move").set_name("side to move")
        + space
        + pp.Regex(POSITIVE)("round").set_name("round")
    ).leave_whitespace()


#: One move: an entry, a step (or home) with its operator, or the pass.
MOVE = lazy_grammar(_move)
#: A position: board, a space, each side, the side to move, the round.
POSITION = lazy_grammar(_position)

_CLAIMS = {"+": "a stack on an own force", "x": "a move onto opponents", "-": ""}


def _cell_name(text: str) -> str:
    """The canonical spelling of a cell token (``o01:009`` -> ``O1:9``)."""
    if ":" in text:
        ring, section = text.split(":")
        return f"{ring[0].upper()}{int(ring[1:])}:{int(section)}"
    return f"C{int(text[1:])}"


def _counts(text: str) -> list[int]:
    return [0] * 4 if text == "-" else [text.count(letter) for letter in FORCES]


def _letters(counts: Sequence[int]) -> str:
    return "".join(letter * count for letter, count in zip(FORCES, counts, strict=True)) or "-"


class UniversalForcesNotation(GameNotation[UniversalForcesState, Move]):
    """Moves and positions around a :class:`UniversalForcesRules` engine."""

    rules: UniversalForcesRules

    def __init__(self, rules: UniversalForcesRules) -> None:
        super().__init__(rules)
        #: Parsed tokens: text -> (move, claimed operator or "", canonical text).
        self._parsed: dict[str, tuple[Move, str, str]] = {}

    @property
    def title(self) -> str:
        return self.rules.title

    def variants(self) -> Sequence[Mapping[str, str]]:
        return ({}, {"RoundLimit": "10"})

    # -- moves ----------------------------------------------------------------------
    def read(self, text: str) -> tuple[Move, str, str]:
        """``(move, operator written, canonical spelling)`` of a token, syntax and
        cell names only; ``NotationError`` if it is no move of this game."""
        known = self._parsed.get(text)
        if known is not None:
            return known
        import pyparsing as pp

        try:
            if not text or text != text.strip():
                raise pp.ParseException(text, 0, "no white space around a move")
            fields = MOVE.parse_string(text, parse_all=True)
        except pp.ParseException:
            raise NotationError(
                f"malformed move '{text}': a move is an entry (G@O1:9), a step "
                "(O1:9-O2:10, O2:10+O2:11, M1:3xM1:4), a home move (C1-H) or a pass (--)"
            ) from None
        if fields.get("pass"):
            parsed: tuple[Move, str, str] = (PASS, "", "--")
        elif fields.get("force"):
            cell = self._known_cell(text, fields["cell"])
            force = fields["force"].upper()
            parsed = (Entry(force, cell), "", f"{force}@{cell}")
        else:
            origin = self._known_cell(text, fields["origin"])
            raw_target = fields["target"]
            target = HOME if raw_target in "Hh" else self._known_cell(text, raw_target)
            operator = fields["op"].lower()
            parsed = (Step(origin, target), operator, f"{origin}{operator}{target}")
        if len(self._parsed) < 50_000:
            self._parsed[text] = parsed
        return parsed

    def _known_cell(self, token: str, text: str) -> str:
        name = _cell_name(text)
        if name not in self.rules.geometry.index:
            raise NotationError(f"no cell '{text}' in move '{token}': {self._cell_help(name)}")
        return name

    def _cell_help(self, name: str) -> str:
        ring = name.split(":")[0] if ":" in name else "C"
        for ring_name, count in self.rules.geometry.rings:
            if ring_name == ring:
                if ring == "C":
                    return "the centre quadrants are C1-C4"
                return f"ring {ring} has sections 1-{count}"
        return "the rings are O1-O3, M1-M3, I1-I3 and the centre C1-C4"

    def canonical_token(self, text: str) -> str:
        return self.read(text)[2]

    def parse_move(self, state: UniversalForcesState, text: str) -> Move:
        move, claimed, _ = self.read(text)
        rules = self.rules
        reason = rules.illegal_reason(state, move)
        if reason is not None:
            raise IllegalMoveError.of(text, reason)
        if claimed in ("+", "x"):
            assert isinstance(move, Step)
            actual = "-" if move.target == HOME else rules.operator(state, move)
            if actual != claimed:
                raise IllegalMoveError.of(
                    text,
                    f"'{claimed}' claims {_CLAIMS[claimed]}, but "
                    f"{self._what_is_there(state, move)}; write "
                    f"{move.origin}{actual}{move.target}",
                )
        return move

    def _what_is_there(self, state: UniversalForcesState, move: Step) -> str:
        if move.target == HOME:
            return "H is home"
        contents = state.cells[self.rules.geometry.index[move.target]]
        if not contents:
            return f"{move.target} is empty"
        top = contents[-1]
        if top >> 2 == state.to_move:
            return f"{move.target} holds your own {FORCE_NAMES[top & 3]}"
        return f"{move.target} holds Player{(top >> 2) + 1}'s {FORCE_NAMES[top & 3]}"

    def format_move(self, state: UniversalForcesState, move: object) -> str:
        if isinstance(move, Pass):
            return "--"
        if isinstance(move, Entry):
            return move.notation()
        assert isinstance(move, Step)
        return f"{move.origin}{self.rules.operator(state, move)}{move.target}"

    # -- positions ---------------------------------------------------------------------
    def parse_position(self, text: str, sides: int | None = None) -> UniversalForcesState:
        """The state a position string describes: ``NotationError`` if malformed,
        ``SetupError`` (with the reason) if the position cannot occur."""
        fields = parse_position_text(POSITION, text)
        rules = self.rules
        geometry = rules.geometry
        side_fields = list(fields["sides"])
        count = len(side_fields)
        try:
            if sides is not None and sides != count:
                raise SetupError(f"it describes {count} sides, the record names {sides} players")
            for expected, side in enumerate(side_fields, start=1):
                if int(side["seat"]) != expected:
                    raise SetupError(
                        f"the sides must be listed 1 to {count} in order, found "
                        f"{side['seat']} in place {expected}"
                    )
            cells: list[tuple[int, ...]] = [()] * geometry.size
            for occupied in fields.get("cells", []):
                name = _cell_name(occupied["cell"])
                if name not in geometry.index:
                    raise SetupError(
                        f"there is no cell {occupied['cell']}: {self._cell_help(name)}"
                    )
                cell = geometry.index[name]
                if cells[cell]:
                    raise SetupError(f"{name} is listed twice")
                forces = occupied["forces"]
                pieces = []
                for position in range(0, len(forces), 2):
                    seat = int(forces[position])
                    if not 1 <= seat <= count:
                        raise SetupError(f"{name} holds a force of side {seat}, there are {count}")
                    pieces.append((seat - 1) * 4 + FORCES.index(forces[position + 1]))
                cells[cell] = tuple(pieces)
            reserve = [_counts(side["reserve"]) for side in side_fields]
            home = [_counts(side["home"]) for side in side_fields]
            eliminated = [_counts(side["eliminated"]) for side in side_fields]
            to_move = int(fields["to_move"])
            if to_move > count:
                raise SetupError(f"side {to_move} cannot move: there are {count} sides")
            return rules.setup(cells, reserve, home, eliminated, to_move - 1, int(fields["round"]))
        except SetupError as error:
            raise SetupError(f"impossible position '{text}': {error}") from None

    def parse_pattern(self, text: str) -> UniversalForcesPattern:
        """A position pattern: cell conditions (``O1:9=1?``, ``C3=.``, ``M1:4=*``) and
        optionally the side to move; cells left out may hold anything."""
        from partita.games.universal_forces.patterns import parse_pattern  # query --pattern

        return parse_pattern(self.rules, text)

    def format_position(self, state: UniversalForcesState) -> str:
        names = self.rules.geometry.names
        board = ",".join(
            f"{names[cell]}={format_forces(contents)}"
            for cell, contents in enumerate(state.cells)
            if contents
        )
        sides = " ".join(
            f"{seat + 1}:{_letters(state.reserve[seat])}/{_letters(state.home[seat])}"
            f"/{_letters(state.eliminated[seat])}"
            for seat in range(state.sides)
        )
        return f"{board or '-'} {sides} {state.to_move + 1} {state.round}"


#: Universal Forces, basic level, no round limit.
UNIVERSAL_FORCES = UniversalForcesNotation(UniversalForcesRules())
