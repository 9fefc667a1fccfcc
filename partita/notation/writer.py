"""The canonical PGR writer.

``write_record`` gives a record's canonical text: the tags present in the fixed
order (Game, Event, Site, Date, Round, Player1..Player4, Result, then the others
in their order), a blank line, then the movetext with move numbers, the canonical
move spelling, ``--`` for passes, suffixes, NAGs, comments, variations and the
result token, in lines of at most 80 characters. Read -> write -> read gives the
same game, and writing is idempotent.

With a game (:class:`~partita.game.notation.GameNotation`), each line is replayed
so that move numbers follow the rules (rotating rounds, passes) and moves are
spelled canonically; without one, moves are numbered in rounds of as many plies as
there are sides. The tree is walked with an explicit stack: any depth is fine.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from partita.errors import NotationError, PartitaError
from partita.game.notation import GameNotation
from partita.game.registry import get_game
from partita.game.rules import POSITIVE
from partita.notation import pgr
from partita.notation.model import SEVEN_TAG_ORDER, Node, Record
from partita.notation.replay import ReplayedRecord
from partita.notation.splitter import ESCAPE

__all__ = [
    "LINE_WIDTH",
    "PASS_TOKEN",
    "Notes",
    "tag_order",
    "write_mainline",
    "write_record",
    "write_records",
]

#: The longest line the writer makes (a longer single token stands alone).
LINE_WIDTH = 80
#: The token of a pass in every game.
PASS_TOKEN = "--"

_LEADING_TAGS = (*SEVEN_TAG_ORDER, "Player1", "Player2", "Player3", "Player4", "Result")
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_PLAYER_TAG = re.compile(rf"Player{POSITIVE}\Z")
_SPACES = re.compile(r"[ \t\n\r\f\v]+")
#: What a tag value is written differently for: an escape, a line end, a BOM.
_TAG_VALUE_CHANGES = re.compile('[\\\\"\r\n\ufeff]')
_RESULT = re.compile(pgr.RESULT_PATTERN)
#: A byte-order mark: never written (see :mod:`partita.notation.sources`).
BOM = "\ufeff"


def tag_order(tags: dict[str, str]) -> list[str]:
    """Tag names in canonical order: the fixed ones present, then the rest as they came."""
    leading = [name for name in _LEADING_TAGS if name in tags]
    return leading + [name for name in tags if name not in _LEADING_TAGS]


def write_record(
    record: Record,
    game: GameNotation[Any, Any] | None = None,
    *,
    replayed: ReplayedRecord | None = None,
    width: int = LINE_WIDTH,
) -> str:
    """The canonical text of ``record``, ending with a line break, its movetext in
    lines of at most ``width`` characters (a longer single token stands alone).

    ``game`` numbers and spells the moves; by default the game the record's ``Game``
    tag names, or none if that game is unknown. ``replayed``, the record's replay
    (as importers have it), spares replaying it again when its mainline is all
    there is: same text, less work.
    """
    if replayed is not None and replayed.game is not None:
        game = replayed.game
    if game is None and record.game is not None:
        try:
            game = get_game(record.game)
        except PartitaError:
            game = None
    lines = [_tag_line(name, record.tags[name]) for name in tag_order(record.tags)]
    units = _replayed_units(record, replayed) if replayed is not None else None
    movetext = _wrap(units if units is not None else _movetext_units(record, game), width)
    if lines:
        lines.append("")
    lines.extend(movetext)
    return "\n".join(lines) + "\n"


#: A mainline's NAGs and comments by the index of the move they follow (``-1``:
#: before the first move), as the record tree holds them: ``(nags, comments)``.
Notes = dict[int, tuple[list[int], list[str]]]


def write_mainline(
    tags: dict[str, str],
    moves: list[str],
    labels: list[tuple[int, bool]],
    result: str,
    width: int = LINE_WIDTH,
    *,
    notes: Notes | None = None,
) -> str:
    """The canonical text of a record that is tags and a mainline only, from its
    replay: ``moves`` in canonical spelling, ``labels`` the rules' ``move_number``
    before each, ``result`` the movetext's result token, ``notes`` its NAGs and
    comments. What :func:`write_record` gives for such a record, without a tree to
    walk (the importers' fast path)."""
    lines = [_tag_line(name, tags[name]) for name in tag_order(tags)]
    units: list[str] = []
    _mainline_units(units, moves, labels, notes or {})
    units.append(result)
    if lines:
        lines.append("")
    lines.extend(_wrap(units, width))
    return "\n".join(lines) + "\n"


def _mainline_units(
    units: list[str], moves: list[str], labels: list[tuple[int, bool]], notes: Notes
) -> None:
    """The units of a mainline and its NAGs and comments (``notes``, maybe none), as
    :func:`_replayed_units` writes them: each move's NAGs then its comments after
    it, and a number again after a comment."""
    append = units.append
    opening = notes.get(-1)
    if opening is not None:
        for comment in opening[1]:
            units.extend(_comment_units(comment))
    need_number = True
    for index, (token, (number, opens)) in enumerate(zip(moves, labels, strict=True)):
        append(_numbered(token, number, opens, need_number))
        need_number = False
        note = notes.get(index)
        if note is not None:
            for nag in note[0]:
                append(f"${nag}")
            for comment in note[1]:
                units.extend(_comment_units(comment))
                need_number = True


def write_records(
    records: Iterable[Record], stream: TextIO, game: GameNotation[Any, Any] | None = None
) -> int:
    """Write records to a text stream, a blank line between two; returns how many."""
    count = 0
    for record in records:
        if count:
            stream.write("\n")
        stream.write(write_record(record, game))
        count += 1
    return count


# -- tags -------------------------------------------------------------------------------------
def _tag_line(name: str, value: str) -> str:
    if not _TAG_NAME.match(name):
        raise NotationError(
            f"tag name '{name}' cannot be written: a letter, then letters, digits or _"
        )
    if _TAG_VALUE_CHANGES.search(value) is None:  # most values: written as they are
        return f'[{name} "{value}"]'
    value = value.replace("\\", "\\\\").replace('"', '\\"')
    value = value.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return f'[{name} "{_without_bom(value)}"]'


# -- movetext ---------------------------------------------------------------------------------
def _without_bom(text: str) -> str:
    """``text`` without U+FEFF, which the reader drops wherever it stands."""
    return text.replace(BOM, "") if BOM in text else text


def _comment_units(text: str) -> list[str]:
    words = _SPACES.sub(" ", _without_bom(text).replace("}", "")).strip(" ").split(" ")
    if words == [""]:
        return ["{}"]
    words[0] = "{" + words[0]
    words[-1] += "}"
    return words


class _Numbering:
    """Move numbers and spellings along one line: by the rules while the line can be
    replayed, by arithmetic (rounds of ``sides`` plies) from the last known number
    once it cannot."""

    __slots__ = ("game", "sides")

    def __init__(self, game: GameNotation[Any, Any] | None, sides: int) -> None:
        self.game = game
        self.sides = sides

    def label(self, state: Any, counter: tuple[int, int]) -> tuple[int, int]:
        """``(number, place in the round)`` of the move about to be played."""
        if state is None:
            return counter
        assert self.game is not None, "states come from a game"
        number, opens = self.game.rules.move_number(state)
        if opens:
            return number, 0
        place = counter[1] if counter[0] == number and counter[1] > 0 else 1
        return number, place

    def advance(self, counter: tuple[int, int]) -> tuple[int, int]:
        number, place = counter
        place += 1
        if place >= self.sides:
            return number + 1, 0
        return number, place

    def play(self, state: Any, token: str) -> tuple[str, Any]:
        """The spelling of ``token`` and the state after it (``None``: not playable)."""
        game = self.game
        if game is None:
            return token, None
        if state is not None:
            try:
                move = game.parse_move(state, token)
                spelled = game.format_move(state, move)
                return spelled, game.rules.apply(state, move)
            except PartitaError:
                pass
        try:
            return game.canonical_token(token), None
        except PartitaError:
            return token, None

    def forced_pass(self, state: Any, token: str) -> tuple[Any, Any] | None:
        """An omitted forced pass before ``token``: ``(pass, state after it)``."""
        if self.game is None or state is None or token == PASS_TOKEN:
            return None
        rules = self.game.rules
        try:
            if rules.outcome(state) is not None:
                return None
            forced = rules.forced_pass(state)
        except PartitaError:
            return None
        if forced is None:
            return None
        return forced, rules.apply(state, forced)


def _start(
    record: Record, game: GameNotation[Any, Any] | None
) -> tuple[_Numbering, Any, tuple[int, int]]:
    """The numbering, the starting state (``None`` if unknown) and first counter."""
    tags = record.tags
    players = sum(1 for name in tags if _PLAYER_TAG.match(name))
    state = None
    if game is not None:
        with contextlib.suppress(PartitaError):
            game = game.configure(tags)
        sides = players or game.rules.min_sides
        try:
            if tags.get("SetUp") == "1":
                state = game.parse_position(tags.get("Position", ""), sides)
            else:
                state = game.initial(sides)
            sides = game.rules.sides(state)
        except PartitaError:
            state = None
    else:
        sides = players or 2
    counter = (1, 0)
    if state is None:
        first = record.root.continuation
        if first is not None and first.written_number is not None:
            number, dots = first.written_number
            counter = (max(number, 1), 1 if dots and sides > 1 else 0)
    return _Numbering(game, max(sides, 1)), state, counter


def _numbered(token: str, number: int, opens: bool, need_number: bool) -> str:
    """A move as the movetext writes it: ``4. t4`` when it opens move 4, ``4... b2``
    when the other side's move needs its number (the first move written, or after a
    comment or a variation), else the bare token."""
    if opens:
        return f"{number}. {token}"
    if need_number:
        return f"{number}... {token}"
    return token


def _movetext_units(record: Record, game: GameNotation[Any, Any] | None) -> Iterator[str]:
    """The movetext as units the wrapper never breaks (a move number with its move,
    a word of a comment, a parenthesis, a NAG, the result)."""
    numbering, state, counter = _start(record, game)
    root = record.root
    for comment in root.comments:
        yield from _comment_units(comment)
    need_number = True
    # The cursor: the move to write next (None: its line is over), its parent, and
    # the state and counter before it. The stack holds what comes after a line ends:
    # a variation to open, a ')' to write, the line a variation interrupted.
    parent: Node = root
    move_node = root.continuation
    state_before, counter_before = state, counter
    stack: list[Any] = []
    while True:
        if move_node is None:
            if not stack:
                break
            item = stack.pop()
            if item == ")":
                yield ")"
                need_number = True
                continue
            opens, parent, move_node, state_before, counter_before = item
            if opens:
                yield "("
                need_number = True
            continue
        for comment in move_node.starting_comments:
            yield from _comment_units(comment)
            need_number = True
        token = move_node.move
        assert token is not None, "only the root holds no move"
        forced = numbering.forced_pass(state_before, token)
        if forced is not None:  # an omitted forced pass is written as '--'
            number, place = numbering.label(state_before, counter_before)
            yield _numbered(PASS_TOKEN, number, place == 0, need_number)
            need_number = False
            counter_before = numbering.advance((number, place))
            state_before = forced[1]
        number, place = numbering.label(state_before, counter_before)
        spelled, state_after = numbering.play(state_before, _without_bom(token))
        yield _numbered(spelled + move_node.suffix, number, place == 0, need_number)
        need_number = False
        counter_after = numbering.advance((number, place))
        for nag in move_node.nags:
            yield f"${nag}"
        for comment in move_node.comments:
            yield from _comment_units(comment)
            need_number = True
        siblings = parent.children
        if len(siblings) > 1 and move_node is siblings[0]:
            stack.append((False, move_node, move_node.continuation, state_after, counter_after))
            for variation in reversed(siblings[1:]):
                stack.append(")")
                stack.append((True, parent, variation, state_before, counter_before))
            move_node = None
            continue
        parent, move_node = move_node, move_node.continuation
        state_before, counter_before = state_after, counter_after
    yield _result_token(record)


def _replayed_units(record: Record, replayed: ReplayedRecord) -> list[str] | None:
    """The movetext units from a replay whose mainline holds every move of the
    record, one ply per node (no variation, no inserted pass, nothing left
    unplayed); ``None`` when the general path is needed."""
    game = replayed.game
    if game is None or replayed.has_variations or replayed.initial_state is None:
        return None
    nodes = list(record.root.mainline())
    if not len(nodes) == len(replayed.moves) == len(replayed.states):
        return None  # passes were inserted, or a hand-made replay without states
    move_number = game.rules.move_number
    units: list[str] = []
    append = units.append
    for comment in record.root.comments:
        units.extend(_comment_units(comment))
    need_number = True
    befores = [replayed.initial_state, *replayed.states]
    for node, spelled, before in zip(nodes, replayed.moves, befores, strict=False):
        # A node's annotation lists are mostly empty: test before looping.
        if node.starting_comments:
            for comment in node.starting_comments:
                units.extend(_comment_units(comment))
            need_number = True
        number, opens = move_number(before)
        token = spelled + node.suffix if node.suffix else spelled
        append(_numbered(token, number, opens, need_number))
        need_number = False
        if node.nags:
            for nag in node.nags:
                append(f"${nag}")
        if node.comments:
            for comment in node.comments:
                units.extend(_comment_units(comment))
            need_number = True
    append(_result_token(record))
    return units


def _result_token(record: Record) -> str:
    """The result token that ends the movetext: the one read, else the Result tag if
    it reads as a result token, else ``*`` (anything else would read as a move)."""
    if record.result is not None:
        return record.result
    tag = record.tags.get("Result", "*")
    return tag if _RESULT.fullmatch(tag) else "*"


def _wrap(units: Iterable[str], width: int = LINE_WIDTH) -> list[str]:
    """Units in lines of at most ``width`` characters, one space between two (a
    longer unit stands alone); each line joined once. No line starts with ``%``
    (an escape line, which ends a record: :mod:`~partita.notation.splitter`): a
    comment's word that does goes down with the unit before it, or stays on its
    line when that is the line's only unit."""
    lines: list[str] = []
    line: list[str] = []
    length = 0  # of the units in ``line`` and the spaces between them
    for unit in units:
        size = len(unit)
        if not line:
            line.append(unit)
            length = size
        elif length + 1 + size <= width:
            line.append(unit)
            length += 1 + size
        elif unit[:1] == ESCAPE:
            if len(line) == 1 or line[-1][:1] == ESCAPE:
                line.append(unit)
                length += 1 + size
            else:
                before = line.pop()
                lines.append(" ".join(line))
                line = [before, unit]
                length = len(before) + 1 + size
        else:
            lines.append(" ".join(line))
            line = [unit]
            length = size
    if line:
        lines.append(" ".join(line))
    return lines
