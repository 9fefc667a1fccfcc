"""Replaying a record through its rules engine: validation as data.

Every record read is replayed move by move; each problem found (illegal move,
wrong move number, result that contradicts the final position, move after the
end...) is collected with its place, and replay goes on where it can. Lenient mode
keeps the legal prefix; strict mode turns every warning into an error.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any, cast

from partita.errors import (
    QUOTE_LIMIT,
    AmbiguousMoveError,
    IllegalMoveError,
    NotationError,
    PartitaError,
    SetupError,
    TagError,
    UnknownGameError,
    illegal_move_message,
    quoted,
)
from partita.game.configuration import Configuration
from partita.game.notation import GameNotation
from partita.game.registry import get_game
from partita.game.rules import POSITIVE, WIN, Outcome, parse_result_token
from partita.notation.model import Node, Record
from partita.notation.problems import ERROR, KINDS, Problem

#: The most moves of a record whose states replay keeps (see ``ReplayedRecord.states``):
#: far more than any real game (the longest example has a few hundred plies), and a
#: state costs up to a few kilobytes.
KEPT_STATES = 10_000
#: Moves replayed at a time on the fast path (a bound on the states held at once).
_WINDOW = 4096


@dataclass(slots=True, eq=False)
class ReplayedRecord:
    """A record after replay: what the rules made of it.

    ``moves`` and ``keys`` cover the legal prefix of the mainline: the canonical
    token of each ply (passes as ``--``, omitted forced passes inserted) and the
    position key after it. ``valid`` is true when no problem is an error.
    """

    record: Record
    game: GameNotation[Any, Any] | None
    problems: list[Problem] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    keys: list[Hashable] = field(default_factory=list)
    initial_state: Any = None
    final_state: Any = None
    outcome: Outcome | None = None
    strict: bool = False
    #: True when the mainline stopped at a move that could not be played.
    stopped: bool = False
    #: The state after each ply of ``moves`` (for writers and analysis), for records
    #: of up to :data:`KEPT_STATES` moves; empty for a longer one (the writer
    #: replays it again), so that memory stays bounded.
    states: list[Any] = field(default_factory=list)
    #: True when the record has variations (the writer's fast path needs none).
    has_variations: bool = False
    #: The variations in the record's reading order (the order their ``(`` stand
    #: in its text), each as far as it is legal; filled when replay computes keys.
    variations: list[VariationLine] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not any(problem.severity == ERROR for problem in self.problems)

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def configuration(self) -> Configuration | None:
        """The record's set-up (its sides and its game's rule tags); ``None`` for a
        record of no known game."""
        if self.game is None:
            return None
        tags = self.record.tags
        return Configuration.of(self.game, count_sides(tags, self.game.rules.min_sides)[0], tags)

    @property
    def final_position(self) -> str | None:
        if self.game is None or self.final_state is None:
            return None
        return self.game.format_position(self.final_state)

    def state_at(self, ply: int) -> Any:
        """The position after ``ply`` legal plies of the mainline (0: the start):
        a kept state, or the moves played again where none was kept. ``IndexError``
        past :attr:`plies`; ``None`` when the record could not be set up."""
        if not 0 <= ply <= self.plies:
            raise IndexError(f"ply {ply} of a record of {self.plies} legal plies")
        if self.game is None or self.initial_state is None:
            return None
        if ply == 0:
            return self.initial_state
        if len(self.states) >= ply:
            return self.states[ply - 1]
        game, state = self.game, self.initial_state
        for token in self.moves[:ply]:
            state = game.rules.apply(state, game.parse_move(state, token))
        return state

    def as_dict(self) -> dict[str, Any]:
        """The object `partita validate --json` prints for this record."""
        source = self.record.source
        return {
            "file": source.file,
            "index": source.index,
            "game": self.record.game,
            "valid": self.valid,
            "result": self.record.tags.get("Result", self.record.result),
            "plies": self.plies,
            "final_position": self.final_position,
            "problems": [problem.as_dict() for problem in self.problems],
        }


@dataclass(slots=True, eq=False)
class VariationLine:
    """One variation of a record after replay: the plies of the line before its
    first move (``plies_before``), then the canonical token of each legal ply of
    the variation (omitted forced passes inserted) and the position key after it.
    An illegal move ends the line (replay reports it); a variation whose first
    move cannot be played has no plies. Nested variations are lines of their own."""

    plies_before: int
    moves: list[str] = field(default_factory=list)
    keys: list[Hashable] = field(default_factory=list)


# -- record-level tags the format itself knows ---------------------------------------

TERMINATIONS = (
    "normal",
    "resignation",
    "time",
    "agreement",
    "adjudication",
    "abandoned",
    "unterminated",
)
_DATE_PATTERN = re.compile(r"(?:\d{4}|\?{4})\.(?:0[1-9]|1[0-2]|\?\?)\.(?:0[1-9]|[12]\d|3[01]|\?\?)")
_PLAYER_TAG = re.compile(rf"Player({POSITIVE})")


class _Collector:
    """Builds problems for one record, with its place and context."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self.problems: list[Problem] = []
        self._context: str | None = None

    @property
    def context(self) -> str:
        """The record's event and players, for a problem's message (made on the
        first problem: most records have none)."""
        if self._context is None:
            tags = self.record.tags
            players = [tags[f"Player{n}"] for n in range(1, 5) if f"Player{n}" in tags]
            parts = [tags["Event"]] if tags.get("Event") else []
            if players:
                parts.append(" - ".join(players))
            self._context = ", ".join(parts)
        return self._context

    def add(
        self,
        kind: str,
        message: str,
        *,
        offset: int = -1,
        ply: int | None = None,
        move_number: int | None = None,
        token: str | None = None,
    ) -> None:
        line, column = self.record.position(offset)
        self.problems.append(
            Problem(
                kind=kind,
                message=message,
                severity=KINDS[kind],
                file=self.record.source.file,
                line=line,
                column=column,
                record=self.record.source.index,
                ply=ply,
                move_number=move_number,
                token=token,
                context=self.context,
            )
        )

    def tag_offset(self, name: str) -> int:
        """Offset of a tag's line in the record text, for problems about tags."""
        index = self.record.text.find(f"[{name} ")
        return index if index >= 0 else -1


def _first_out_of_sequence(tags: dict[str, str]) -> str:
    """The first PlayerN tag (in seat order) whose number breaks the run from 1."""
    numbers = sorted(int(m.group(1)) for name in tags if (m := _PLAYER_TAG.fullmatch(name)))
    for expected, number in enumerate(numbers, start=1):
        if number != expected:
            return f"Player{number}"
    return "Player1"


#: :func:`count_sides` by tag names and minimum: it reads only the names, and few
#: sets of names occur (replay and the importer ask for every record, several times).
_SIDES: dict[tuple[tuple[str, ...], int], tuple[int, str | None]] = {}
_SIDES_KEPT = 1024


def count_sides(tags: dict[str, str], minimum: int) -> tuple[int, str | None]:
    """Sides named by Player1..PlayerN tags (which must run from 1 without gaps)."""
    names = (tuple(tags), minimum)
    counted = _SIDES.get(names)
    if counted is None:
        counted = _count_sides(tags, minimum)
        if len(_SIDES) >= _SIDES_KEPT:
            _SIDES.clear()
        _SIDES[names] = counted
    return counted


def _count_sides(tags: dict[str, str], minimum: int) -> tuple[int, str | None]:
    numbers = sorted(
        int(m.group(1))
        for name in tags
        if name.startswith("Player") and (m := _PLAYER_TAG.fullmatch(name))
    )
    if not numbers:
        return minimum, None
    if numbers != list(range(1, len(numbers) + 1)):
        named = ", ".join(f"Player{n}" for n in numbers)
        return len(numbers), f"player tags must run from Player1 without gaps, found {named}"
    return len(numbers), None


@lru_cache(maxsize=256)
def result_scores(token: str, sides: int) -> tuple[Fraction, ...] | None:
    """:func:`~partita.game.rules.parse_result_token`, kept for the tokens it reads
    (replay reads every record's result twice, and there are few distinct ones; a
    malformed token raises ValueError each time, and is not kept)."""
    return parse_result_token(token, sides)


def replay(record: Record, strict: bool = False, *, keys: bool = True) -> ReplayedRecord:
    """Replay a record through its game's rules and collect every problem.

    The mainline is replayed as far as it is legal (lenient: the legal prefix is
    kept); variations are replayed too, each from the position before the move it
    replaces, so an illegal move in a variation is reported as well. In strict mode
    every warning becomes an error. ``keys=False`` leaves out the position keys
    (validation needs none; an archive does).
    """
    collect = _Collector(record)
    collect.problems.extend(record.syntax_problems)
    replayed = ReplayedRecord(record=record, game=None, strict=strict)
    game = _check_tags(record, collect)
    if game is not None:
        replayed.game = game
        start = _starting_state(record, game, collect)
        if start is not None:
            replayed.initial_state = start
            branches = _replay_mainline(record, game, start, collect, replayed, keys)
            lines = _replay_variations(game, branches, collect, keys)
            if keys:
                replayed.variations = lines
            if replayed.final_state is not None:
                _check_result(record, game, replayed, collect)
    problems = sorted(collect.problems, key=lambda problem: (problem.line, problem.column))
    if strict:
        problems = [replace(p, severity=ERROR) if p.severity != ERROR else p for p in problems]
    replayed.problems = problems
    return replayed


def plain_header(record: Record) -> tuple[GameNotation[Any, Any], Any] | None:
    """The configured game and the starting state of a record, when its tags and
    set-up hold no problem at all (as :func:`replay` checks them); ``None``
    otherwise. With :func:`plain_result_holds`, the checks a reader of plain
    records (tags and a mainline, see :mod:`partita.bulk.plain`) runs around its
    own replay of the moves."""
    collect = _Collector(record)
    game = _check_tags(record, collect)
    if game is None or collect.problems:
        return None
    start = _starting_state(record, game, collect)
    if start is None or collect.problems:
        return None
    return game, start


def plain_result_holds(record: Record, replayed: ReplayedRecord) -> bool:
    """Whether the record's result and termination agree with ``replayed``'s final
    position and outcome (no problem :func:`replay` would report there)."""
    assert replayed.game is not None
    collect = _Collector(record)
    _check_result(record, replayed.game, replayed, collect)
    return not collect.problems


def clean_prefix(game: GameNotation[Any, Any], state: Any, tokens: Sequence[str]) -> list[Any]:
    """The state after each token of the longest prefix of ``tokens`` that is legal,
    canonically spelled (``format_move`` gives the token back) and needs no
    inserted pass: the moves replay takes without a word to say about them."""
    rules = game.rules
    outcome, forced_pass = rules.outcome, rules.forced_pass
    parse_move, format_move, apply = game.parse_move, game.format_move, rules.apply
    states: list[Any] = []
    for token in tokens:
        if outcome(state) is not None or forced_pass(state) is not None:
            break
        try:
            move = parse_move(state, token)
        except PartitaError:
            break
        if format_move(state, move) != token:
            break
        state = apply(state, move)
        states.append(state)
    return states


def replay_records(records: Iterable[Record], strict: bool = False) -> Iterator[ReplayedRecord]:
    for record in records:
        yield replay(record, strict=strict)


def _check_tags(record: Record, collect: _Collector) -> GameNotation[Any, Any] | None:
    """Required and known tags; the configured game, or None when replay is impossible."""
    tags = record.tags
    for name in ("Game", "Result"):
        if name not in tags:
            collect.add("missing-tag", f"the required tag {name} is missing")
    if "Date" in tags and not _DATE_PATTERN.fullmatch(tags["Date"]):
        collect.add(
            "bad-tag",
            f"date '{tags['Date']}' is not of the form YYYY.MM.DD (?? for an unknown part)",
            offset=collect.tag_offset("Date"),
            token=tags["Date"],
        )
    if "Termination" in tags and tags["Termination"] not in TERMINATIONS:
        collect.add(
            "bad-tag",
            f"termination '{tags['Termination']}' is not one of {', '.join(TERMINATIONS)}",
            offset=collect.tag_offset("Termination"),
            token=tags["Termination"],
        )
    if "SetUp" in tags and tags["SetUp"] not in ("0", "1"):
        collect.add(
            "bad-tag",
            f"SetUp '{tags['SetUp']}' must be 0 or 1",
            offset=collect.tag_offset("SetUp"),
            token=tags["SetUp"],
        )
    if "Game" not in tags:
        return None
    try:
        game = get_game(tags["Game"])
    except UnknownGameError as error:
        collect.add(
            "unknown-game", str(error), offset=collect.tag_offset("Game"), token=tags["Game"]
        )
        return None
    sides, gap = count_sides(tags, game.rules.min_sides)
    if gap:
        collect.add("bad-tag", gap, offset=collect.tag_offset(_first_out_of_sequence(tags)))
        return None
    rules = game.rules
    if not rules.min_sides <= sides <= rules.max_sides:
        allowed = (
            f"{rules.min_sides}"
            if rules.min_sides == rules.max_sides
            else f"{rules.min_sides} to {rules.max_sides}"
        )
        collect.add(
            "bad-tag",
            f"{game.name} is played by {allowed} sides, the record names {sides} players",
            offset=collect.tag_offset(f"Player{sides}"),
        )
        return None
    try:
        game = game.configure(tags)
    except TagError as error:
        offset = collect.tag_offset(error.tag) if error.tag else -1
        collect.add("bad-tag", str(error), offset=offset, token=tags.get(error.tag or ""))
        return None
    if "Result" in tags:
        try:
            result_scores(tags["Result"], sides)
        except ValueError as error:
            collect.add(
                "bad-result", str(error), offset=collect.tag_offset("Result"), token=tags["Result"]
            )
    if record.result is None:
        pass  # the reader reported the missing result token
    elif "Result" in tags and record.result != tags["Result"]:
        collect.add(
            "result-mismatch",
            f"the movetext ends with '{record.result}' but the Result tag says '{tags['Result']}'",
            offset=record.result_offset,
            token=record.result,
        )
    return game


def _sides(record: Record, game: GameNotation[Any, Any]) -> int:
    return count_sides(record.tags, game.rules.min_sides)[0]


def _starting_state(record: Record, game: GameNotation[Any, Any], collect: _Collector) -> Any:
    tags = record.tags
    sides = _sides(record, game)
    if tags.get("SetUp") != "1":
        return game.initial(sides)
    if "Position" not in tags:
        collect.add(
            "bad-setup", 'SetUp "1" needs a Position tag', offset=collect.tag_offset("SetUp")
        )
        return None
    try:
        return game.parse_position(tags["Position"], sides)
    except (NotationError, SetupError) as error:
        collect.add(
            "bad-setup",
            str(error)
            if tags["Position"] in str(error)
            else f"setup position '{tags['Position']}': {error}",
            offset=collect.tag_offset("Position"),
            token=tags["Position"],
        )
        return None


def move_label(rules: Any, state: Any) -> str:
    """The number a reader sees before the move played from ``state``: ``12.`` before
    the move that opens a round, ``12...`` before any other."""
    number, opens = rules.move_number(state)
    return f"{number}." if opens else f"{number}..."


def record_move_start(rules: Any, state: Any, token: str) -> tuple[Any, str]:
    """Where a record's move ``token`` is played from after ``state``, and its
    :func:`move_label`: past the forced pass a record may leave out (the pass
    itself, ``--``, is played from ``state``). For readers that walk a record's
    tree without checking it (the viewers); :func:`replay` checks and reports."""
    forced = rules.forced_pass(state) if token != PASS_TOKEN else None
    if forced is not None:
        state = rules.apply(state, forced)
    return state, move_label(rules, state)


def _check_number(node: Node, rules: Any, state: Any, ply: int, collect: _Collector) -> None:
    """A move number written before ``node`` must be the rules' number, with
    ``N.`` before the move that opens a round and ``N...`` before any other."""
    number, opens = rules.move_number(state)
    assert node.written_number is not None, "called for a written move number"
    written, dots = node.written_number
    if written != number:
        expected = move_label(rules, state)
        message = f"move number {written} does not fit here: this is move {expected}"
    elif opens and dots:
        message = (
            f"'{written}...' continues a move, but {node.move} opens move {number}: "
            f"write '{number}.'"
        )
    elif not opens and not dots:
        message = f"'{written}.' stands before the first move of a round; here write '{number}...'"
    else:
        return
    collect.add(
        "move-number",
        message,
        offset=_number_offset(collect.record.text, node.offset),
        ply=ply,
        move_number=number,
        token=node.move,
    )


_NUMBER_BEFORE = re.compile(r"(\d+\.(?:\.\.)?)\s*\Z")


def _number_offset(text: str, move_offset: int) -> int:
    """Where the move number written right before a move starts (the move's own
    offset if something, such as a comment, stands between them)."""
    window = max(0, move_offset - 40)
    found = _NUMBER_BEFORE.search(text, window, move_offset)
    return found.start() if found else move_offset


#: The token of a pass in every game.
PASS_TOKEN = "--"


@dataclass(slots=True)
class _Played:
    """What one move of a record did: the plies it made (an omitted forced pass
    first, then the move itself), each as (state before, move, state after)."""

    plies: list[tuple[Any, Any, Any]]

    @property
    def state(self) -> Any:
        return self.plies[-1][2]


class _LineReplayer:
    """Replays one line (mainline or variation) move by move, reporting problems.

    Shared by the mainline and the variations so both are checked the same way.
    """

    def __init__(self, game: GameNotation[Any, Any], collect: _Collector) -> None:
        self.game = game
        self.rules = game.rules
        self.collect = collect
        self._canonical: dict[str, str | None] = {}

    def canonical(self, token: str) -> str | None:
        try:
            return self._canonical[token]
        except KeyError:
            try:
                spelled = self.game.canonical_token(token)
            except NotationError:
                spelled = None
            self._canonical[token] = spelled
            return spelled

    def step(self, state: Any, node: Node, ply: int) -> _Played | None:
        """Play ``node`` from ``state`` (``ply`` moves played so far in this line);
        ``None`` after reporting why the move cannot be played."""
        rules = self.rules
        token = node.move
        assert token is not None, "only the root holds no move"
        plies: list[tuple[Any, Any, Any]] = []
        outcome = rules.outcome(state)
        if outcome is not None:
            self.collect.add(
                "move-after-end",
                illegal_move_message(token, f"the game is already over: {outcome.reason}"),
                offset=node.offset,
                ply=ply + 1,
                move_number=rules.move_number(state)[0],
                token=token,
            )
            return None
        forced = rules.forced_pass(state)
        if token == PASS_TOKEN:
            if forced is None:
                self.collect.add(
                    "illegal-move",
                    illegal_move_message(
                        token,
                        "a pass is allowed only when the rules force it, "
                        "and here there are legal moves",
                    ),
                    offset=node.offset,
                    ply=ply + 1,
                    move_number=rules.move_number(state)[0],
                    token=token,
                )
                return None
            plies.append((state, forced, rules.apply(state, forced)))
            return _Played(plies)
        if forced is not None:  # the record omitted a forced pass: insert it
            after = rules.apply(state, forced)
            plies.append((state, forced, after))
            state = after
            ply += 1
        ply += 1
        if node.written_number is not None:
            _check_number(node, rules, state, ply, self.collect)
        number = rules.move_number(state)[0]
        try:
            move = self.game.parse_move(state, token)
        except NotationError as error:
            kind, message = "malformed-move", str(error)
        except IllegalMoveError as error:
            kind, message = "illegal-move", str(error)
        except AmbiguousMoveError as error:
            kind, message = "ambiguous-move", str(error)
        else:
            spelled = self.canonical(token)
            if spelled is not None and spelled != token:
                self.collect.add(
                    "spelling",
                    f"'{token}' is written '{spelled}'",
                    offset=node.offset,
                    ply=ply,
                    move_number=number,
                    token=token,
                )
            plies.append((state, move, rules.apply(state, move)))
            return _Played(plies)
        if len(token) > QUOTE_LIMIT:  # a game quoted a huge token whole
            message = message.replace(f"'{token}'", quoted(token))
        if kind != "illegal-move" and quoted(token) not in message:
            message = f"{quoted(token)}: {message}"  # every message names its token
        self.collect.add(
            kind, message, offset=node.offset, ply=ply, move_number=number, token=token
        )
        return None


def _replay_mainline(
    record: Record,
    game: GameNotation[Any, Any],
    start: Any,
    collect: _Collector,
    replayed: ReplayedRecord,
    with_keys: bool,
) -> list[tuple[Node, Any, int]]:
    """Replay the mainline; return where variations branch off it: for each
    mainline node with alternatives, (that node's parent, the state there, plies).

    The longest clean prefix (legal, canonical, no inserted pass,
    :func:`clean_prefix`) is played without a word; only its written move numbers
    are checked there. From the first move it does not accept on, each move is checked and
    reported one by one. States are kept for records of up to :data:`KEPT_STATES`
    moves only, so that memory stays bounded for a huge one.
    """
    rules = game.rules
    key = rules.key
    nodes = list(record.root.mainline())
    keep = len(nodes) <= KEPT_STATES
    moves: list[str] = []
    states: list[Any] = []
    keys: list[Hashable] = []
    branches: list[tuple[Node, Any, int]] = []
    parent = record.root
    before = start
    fast = 0  # plies replayed on the fast path
    while fast < len(nodes):  # a window at a time: memory holds one window of states
        window = nodes[fast : fast + _WINDOW]
        replayed_window = clean_prefix(
            game, before, cast("list[str]", [node.move for node in window])
        )
        for node, after in zip(window, replayed_window, strict=False):
            if node.written_number is not None:
                _check_number(node, rules, before, fast + 1, collect)
            if len(parent.children) > 1:
                branches.append((parent, before, fast))
            assert node.move is not None  # only the root holds no move
            moves.append(node.move)
            if with_keys:
                keys.append(key(after))
            if keep:
                states.append(after)
            parent, before = node, after
            fast += 1
        if len(replayed_window) < len(window):
            break
    line = _LineReplayer(game, collect)
    state = before
    for node in nodes[fast:]:
        if len(parent.children) > 1:
            branches.append((parent, state, len(moves)))
        played = line.step(state, node, len(moves))
        if played is None:
            # Lenient: the legal prefix is kept. A move after the end leaves a
            # finished game whose result can still be checked.
            replayed.stopped = rules.outcome(state) is None
            break
        for ply_before, move, after in played.plies:
            moves.append(game.format_move(ply_before, move))
            if with_keys:
                keys.append(key(after))
            if keep:
                states.append(after)
        state = played.state
        parent = node
    replayed.moves, replayed.states, replayed.keys = moves, states, keys
    replayed.final_state = state
    replayed.outcome = rules.outcome(state)
    replayed.has_variations = bool(branches)
    return branches


def _replay_variations(
    game: GameNotation[Any, Any],
    branches: list[tuple[Node, Any, int]],
    collect: _Collector,
    with_keys: bool,
) -> list[VariationLine]:
    """Check every variation from the position before the move it replaces; the
    variations in reading order, with their plies when ``with_keys``.

    An explicit stack walks the tree in the order the record's text writes it (a
    move, then the variations that replace it, then the line goes on), so nesting
    depth costs no recursion and the lines come out numbered as a reader counts
    them. A frame is (parent, index of the child to play, state before it, plies
    before it, the line it continues or ``None`` to open one).
    """
    line = _LineReplayer(game, collect)
    key = game.rules.key
    lines: list[VariationLine] = []
    stack: list[tuple[Node, int, Any, int, VariationLine | None]] = []
    for parent, state, plies in reversed(branches):
        stack.extend((parent, index, state, plies, None) for index in _alternatives(parent))
    while stack:
        parent, index, state, plies, current = stack.pop()
        if current is None:
            current = VariationLine(plies)
            lines.append(current)
        node = parent.children[index]
        played = line.step(state, node, plies)
        if played is not None:
            if with_keys:
                for before, move, after in played.plies:
                    current.moves.append(game.format_move(before, move))
                    current.keys.append(key(after))
            if node.children:
                stack.append((node, 0, played.state, plies + len(played.plies), current))
        if index == 0:  # the variations replacing this move are nested in the line
            stack.extend((parent, other, state, plies, None) for other in _alternatives(parent))
    return lines


def _alternatives(parent: Node) -> range:
    """The indexes of ``parent``'s variations, last first (a stack pops them in order)."""
    return range(len(parent.children) - 1, 0, -1)


def _check_result(
    record: Record, game: GameNotation[Any, Any], replayed: ReplayedRecord, collect: _Collector
) -> None:
    if replayed.stopped:
        return
    tags = record.tags
    result = tags.get("Result", record.result)
    if result is None:
        return
    outcome = replayed.outcome
    termination = tags.get("Termination")
    sides = game.rules.sides(replayed.final_state)
    try:
        scores = result_scores(result, sides)
    except ValueError:
        return  # reported with the tags
    if outcome is not None:
        # Equal scores write the same token (each of 1, 0 and 1/2 is one field):
        # the common case, decided without formatting the rules' result.
        expected = result if scores == outcome.scores else outcome.result_token()
        if result != expected:
            collect.add(
                "wrong-result",
                f"result {result} contradicts the final position: {outcome.reason} ({expected})",
                offset=collect.tag_offset("Result"),
                token=result,
            )
        elif termination is not None and termination != "normal":
            collect.add(
                "unexplained-result",
                f"the rules ended the game: {outcome.reason}; so the termination is "
                f"'normal', not '{termination}'",
                offset=collect.tag_offset("Termination"),
                token=termination,
            )
        return
    if scores is None:  # '*' is always right on an undecided position
        return
    decisive = sum(1 for score in scores if score == WIN) == 1
    shared = not decisive
    if termination in ("abandoned", "adjudication"):
        return
    if termination in ("resignation", "time") and decisive:
        return
    if termination == "agreement" and shared:
        return
    if termination == "normal":
        collect.add(
            "wrong-result",
            f"result {result} with termination 'normal', but the rules have not ended the game",
            offset=collect.tag_offset("Result"),
            token=result,
        )
        return
    if termination is None:
        reason = "no Termination tag explains it"
    else:
        reason = f"termination '{termination}' does not explain it"
    collect.add(
        "unexplained-result",
        f"result {result} on a position the rules have not decided: {reason}",
        offset=collect.tag_offset("Result"),
        token=result,
    )


# -- one move at a time ---------------------------------------------------------------------


class MoveRefused(PartitaError, ValueError):
    """A written move that replay would refuse; ``problem`` is the problem `validate`
    reports for it (its kind, message, ply and move number)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def play_token(
    game: GameNotation[Any, Any], state: Any, token: str, plies: int = 0
) -> tuple[list[tuple[Any, Any, Any]], list[Problem]]:
    """Play one written move from ``state`` exactly as replay plays a record's
    (``plies``: the plies played before it), for callers that take moves one at a
    time (a scoresheet): the plies it made, each ``(state before, move, state
    after)``, an omitted forced pass first, and the warnings (a non-canonical
    spelling). A move replay would refuse raises :class:`MoveRefused` with the
    problem `validate` reports, message for message."""
    collect = _Collector(Record())
    played = _LineReplayer(game, collect).step(state, Node(token), plies)
    if played is None:
        raise MoveRefused(collect.problems[0])
    return played.plies, collect.problems
