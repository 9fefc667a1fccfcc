"""Notation of Circular Reasoning: token moves, positions.

Grammar only here (the BNF is in ``docs/circular-reasoning.md``); the meaning comes
from :mod:`partita.games.circular_reasoning.rules`. A move is a token letter, a direction
and a destination (``T>M10``, ``S<G``), ``@`` first for a token entering from the
reserve (``@C>O2``), or ``--`` for a forced pass. A position lists each side's three
tokens, the gateways, the round and the side to move:
``1:C@,TO3,S@ 2:C@,TO4,S@ / O11 M5 I13 / 2 P2``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from partita.errors import IllegalMoveError, NotationError, SetupError
from partita.game.notation import GameNotation, parse_position_text
from partita.game.rules import DIGITS, POSITIVE
from partita.games.circular_reasoning.rules import (
    GOAL,
    PASS,
    RESERVE,
    SEGMENTS,
    SHAPES,
    TRACKS,
    CircularReasoningRules,
    CircularReasoningState,
    Move,
    Pass,
    cell_name,
)
from partita.notation.lazy import lazy_grammar

if TYPE_CHECKING:
    import pyparsing as pp

    from partita.games.circular_reasoning.patterns import CircularReasoningPattern

__all__ = ["CIRCULAR_REASONING", "MOVE", "POSITION", "CircularReasoningNotation"]

# -- grammars (built on first use; no packrat) ------------------------------------------

_CELL_PATTERN = rf"[OMIomi]{DIGITS}|[Gg]"
_PLACE = rf"@|G|[OMI]{DIGITS}"


def _move() -> pp.ParserElement:
    import pyparsing as pp

    return (
        pp.Regex(
            rf"(?P<pass>--)|(?P<enter>@?)(?P<shape>[CTScts])(?P<direction>[<>])"
            rf"(?P<destination>{_CELL_PATTERN})"
        )
        .set_name("token move (as in T>M10, @C>O2, S<G or --)")
        .leave_whitespace()
    )


def _position() -> pp.ParserElement:
    import pyparsing as pp

    side = pp.Regex(
        rf"(?P<seat>[1-9]):C(?P<C>{_PLACE}),T(?P<T>{_PLACE}),S(?P<S>{_PLACE})"
    ).set_name("side (as in 1:C@,TO3,SG)")
    gate = pp.Regex(rf"[OMI]{DIGITS}").set_name("gateway segment (as in O9)")
    slash = pp.Suppress("/").set_name("'/'")
    return (
        pp.Group(pp.OneOrMore(side))("sides")
        - slash
        - pp.Group(gate + gate + gate)("gates")
        - slash
        - pp.Regex(POSITIVE)("round").set_name("round number")
        - pp.Regex(r"P(?P<mover>[1-9])").set_name("side to move (as in P2)")
    ).set_name("position")


#: One move: ``@`` (entering), token, direction, destination; or ``--``. Lower-case
#: letters and leading zeros are read too (spelling warnings).
MOVE = lazy_grammar(_move)
#: A position: the sides, ``/``, the large, medium and small gateways, ``/``, the
#: round and the side to move (``P`` and its seat number).
POSITION = lazy_grammar(_position)


def _cell(text: str, context: str) -> int:
    """A cell of the notation (any case, leading zeros); ``NotationError`` if none."""
    upper = text.upper()
    if upper == "G":
        return GOAL
    segment = int(upper[1:])
    if not 1 <= segment <= SEGMENTS:
        raise NotationError(
            f"{context}: there is no segment {upper[0]}{segment} (segments run 1-{SEGMENTS})"
        )
    return TRACKS.index(upper[0]) * SEGMENTS + segment - 1


class CircularReasoningNotation(GameNotation[CircularReasoningState, Move | Pass]):
    """Token moves and positions around a :class:`CircularReasoningRules` engine."""

    rules: CircularReasoningRules

    @property
    def title(self) -> str:
        return self.rules.title

    def variants(self) -> Sequence[Mapping[str, str]]:
        return (
            {},
            {"Variant": "advanced"},
            {"Layout": "entrance=O5 large=O1 medium=M9 small=I3"},
        )

    # -- moves -----------------------------------------------------------------------------
    def _read(self, text: str) -> tuple[bool, str, str, int] | None:
        """``(entering, shape, direction, destination)``, or ``None`` for a pass."""
        return _read_token(text)

    def canonical_token(self, text: str) -> str:
        read = self._read(text)
        if read is None:
            return "--"
        entering, shape, direction, destination = read
        return f"{'@' if entering else ''}{shape}{direction}{cell_name(destination)}"

    def parse_move(self, state: CircularReasoningState, text: str) -> Move | Pass:
        read = self._read(text)
        rules = self.rules
        if read is None:
            reason = rules.illegal_reason(state, PASS)
            if reason is not None:
                raise IllegalMoveError.of(text, reason)
            return PASS
        entering, shape, direction, destination = read
        move = Move(shape, destination)
        reason = rules.illegal_reason(state, move)
        if reason is not None:
            raise IllegalMoveError.of(text, reason)
        seat = rules.side_to_move(state)
        index = seat * 3 + SHAPES.index(shape)
        token = rules.token_words(index)
        spelled = f"{shape}{direction}{cell_name(destination)}"
        if state.tokens[index] == RESERVE and not entering:
            raise IllegalMoveError.of(
                text, f"the {token} is not on the board yet; enter it with '@{spelled}'"
            )
        if state.tokens[index] != RESERVE and entering:
            raise IllegalMoveError.of(
                text,
                f"the {token} is already on the board "
                f"({cell_name(state.tokens[index])}); write '{spelled}'",
            )
        mask = rules.reach(state, index)[destination]
        if not mask & (1 if direction == ">" else 2):
            way = "counter-clockwise" if direction == ">" else "clockwise"
            other = "<" if direction == ">" else ">"
            raise IllegalMoveError.of(
                text,
                f"the {token} reaches {cell_name(destination)} "
                f"only {way} ('{text.replace(direction, other, 1)}')",
            )
        return move

    def format_move(self, state: CircularReasoningState, move: Move | Pass) -> str:
        if isinstance(move, Pass):
            return "--"
        rules = self.rules
        index = rules.side_to_move(state) * 3 + SHAPES.index(move.shape)
        mask = rules.reach(state, index).get(move.destination, 1)
        entering = "@" if state.tokens[index] == RESERVE else ""
        direction = ">" if mask & 1 else "<"
        return f"{entering}{move.shape}{direction}{cell_name(move.destination)}"

    # -- positions ---------------------------------------------------------------------------
    def parse_position(self, text: str, sides: int | None = None) -> CircularReasoningState:
        """The state a position string describes: ``NotationError`` if malformed,
        ``SetupError`` (with the reason) if the position cannot occur."""
        fields = parse_position_text(POSITION, text)
        context = f"impossible position '{text}'"
        tokens: list[int] = []
        for number, side in enumerate(fields["sides"], start=1):
            seat = int(side[: side.index(":")])
            if seat != number:
                raise SetupError(
                    f"{context}: side {seat} stands where side {number} belongs "
                    "(sides are listed 1, 2, ... in seat order)"
                )
            for entry in side.split(":")[1].split(","):  # "C@", "TO3", "SG"
                place = entry[1:]
                tokens.append(RESERVE if place == "@" else _cell(place, context))
        count = len(tokens) // 3
        if sides is not None and sides != count:
            raise SetupError(f"{context}: it has {count} sides, the record {sides}")
        gates = [_cell(gate, context) for gate in fields["gates"]]
        mover = int(fields["mover"]) - 1
        try:
            return self.rules.setup(tokens, gates, int(fields["round"]), mover)
        except SetupError as error:
            raise SetupError(f"{context}: {error}") from None

    def parse_pattern(self, text: str) -> CircularReasoningPattern:
        """A position pattern: sides with ``?`` (anywhere) and ``*`` (on a track)
        for places, segment conditions (``O3=.``, ``O3=2T``), the side to move (``P2``)."""
        from partita.games.circular_reasoning.patterns import parse_pattern  # query --pattern

        return parse_pattern(self.rules, text)

    def format_position(self, state: CircularReasoningState) -> str:
        tokens = state.tokens
        sides = []
        for seat in range(len(tokens) // 3):
            places = ",".join(
                f"{SHAPES[shape]}{cell_name(tokens[seat * 3 + shape])}" for shape in range(3)
            )
            sides.append(f"{seat + 1}:{places}")
        gates = " ".join(
            cell_name(track * SEGMENTS + segment) for track, segment in enumerate(state.gates)
        )
        mover = self.rules.side_to_move(state) + 1
        return f"{' '.join(sides)} / {gates} / {state.round} P{mover}"


#: Circular Reasoning with the default configuration (tags configure it per record).
CIRCULAR_REASONING = CircularReasoningNotation(CircularReasoningRules())


@lru_cache(maxsize=4096)
def _read_token(text: str) -> tuple[bool, str, str, int] | None:
    """The grammar's reading of a move token (records repeat a few hundred distinct
    tokens, so the readings are cached; a malformed token raises every time)."""
    import pyparsing as pp

    try:
        if not text or text != text.strip():
            raise pp.ParseException(text, 0, "no white space around a move")
        fields = MOVE.parse_string(text, parse_all=True)
    except pp.ParseException:
        raise NotationError(
            f"malformed move '{text}': a move is a token (C, T, S), a direction "
            "(> clockwise, < counter-clockwise) and a destination, as in T>M10 or "
            "@C>O2, or -- for a pass"
        ) from None
    if fields.get("pass"):
        return None
    destination = _cell(fields["destination"], f"no move '{text}'")
    return (
        bool(fields["enter"]),
        fields["shape"].upper(),
        fields["direction"],
        destination,
    )
