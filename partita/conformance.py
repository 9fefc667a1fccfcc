"""The conformance suite: what every game must do, built-in or plugin (after OpenSpiel).

Each check is a plain function of a game (a :class:`~partita.game.spec.GameSpec`,
a :class:`~partita.game.notation.GameNotation` or a `Game` tag), a number of sides,
the tags of one of its variants and, for the random ones, a seed. It returns nothing
and raises ``AssertionError`` saying what went wrong and where (set-up, seed, ply,
token); it never uses ``assert``, so ``python -O`` checks as much. Nothing here
needs pytest or Hypothesis: partita's ``tests/test_conformance.py`` feeds the checks
Hypothesis seeds, a plugin's tests can parametrize over :func:`checks`, and

    python -m partita.conformance GAME      (or: partita conformance GAME)

runs them all and exits 1 if one fails. The suite runs on a *registered* game (an
installed plugin, or one added with :func:`partita.game.registry.register`): a
record names its game by its `Game` tag, so replaying one goes through the registry.

What is checked (``docs/plugins.md`` says it for authors):

* :func:`check_spec`: the spec loads, its references resolve, its tags and variants
  are well formed and bad tag values are refused with ``TagError``;
* :func:`check_initial_position`: ply 0, move 1, not over, a text diagram;
* :func:`check_playouts`: random games to the end keep the contract: a legal move
  whenever the game is not over, none after it, the checked and the trusted path
  agree, every move's token reads back as that move, well-formed outcomes;
* :func:`check_position_round_trip`: position notation reads back to the same key
  and the same legal moves;
* :func:`check_record_replay`: a written record replays to the positions reached by
  playing incrementally;
* :func:`check_symmetries`: symmetries map legal moves to legal moves and keys to
  canonical keys consistently;
* :func:`check_bad_input`: malformed moves and positions raise partita's errors,
  never another exception (which would reach a user as an internal error);
* :func:`check_board`: the board draws every position (one piece code per cell of
  its layout, each with a declared colour, marks on cells, JSON frames for the
  viewer, an SVG);
* :func:`check_regions`: for a board that declares where moves are clicked, every
  legal move is clicked on regions of its position, those clicks spell the move
  back, and the interactive drawing carries every region.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from partita.errors import IllegalMoveError, PartitaError, TagError, UnknownGameError
from partita.game.notation import GameNotation
from partita.game.registry import get_game, get_spec
from partita.game.rules import CHANCE, Outcome
from partita.game.spec import GameSpec

__all__ = [
    "BAD_MOVES",
    "BAD_POSITIONS",
    "CHECKS",
    "MAX_PLIES",
    "SPEC_CHECK",
    "BoundCheck",
    "Case",
    "Check",
    "CheckResult",
    "Playout",
    "cases",
    "check_bad_input",
    "check_board",
    "check_initial_position",
    "check_playouts",
    "check_position_round_trip",
    "check_record_replay",
    "check_regions",
    "check_spec",
    "check_symmetries",
    "checks",
    "format_result",
    "main",
    "random_playout",
    "run_conformance",
    "summary",
]

#: Random playouts stop here if the rules have not ended the game by then.
MAX_PLIES = 2000

#: A game as the checks accept it: its spec, its notation (configured or not) or its tag.
GameLike = GameSpec | GameNotation | str

#: Tokens no game reads as a move (a game may read one, if it is a legal move).
BAD_MOVES = ("", " ", "?", "@@", "zz99", "{", "é", "t4 t4", "\x00")
#: Texts no game reads as a position.
BAD_POSITIONS = ("", "?", "@@ @@", "{}", "\x00")


# -- games, set-ups, playouts -------------------------------------------------------------


def _notation(game: GameLike) -> GameNotation:
    if isinstance(game, GameSpec):
        return game.game
    if isinstance(game, str):
        return get_game(game)
    return game


def _configured(game: GameLike, tags: Mapping[str, str] | None) -> GameNotation:
    notation = _notation(game)
    return notation.configure(tags) if tags else notation


def _spec(game: GameLike) -> GameSpec:
    if isinstance(game, GameSpec):
        return game
    name = game if isinstance(game, str) else game.name
    try:
        return get_spec(name)
    except UnknownGameError:
        raise AssertionError(
            f"game '{name}' is not registered: install its package (its `partita.games` "
            "entry point) or add it with partita.game.registry.register(spec)"
        ) from None


def _variant_id(tags: Mapping[str, str]) -> str:
    return "-".join(str(value).replace(" ", "_") for value in tags.values())


@dataclass(frozen=True, eq=False)
class Case:
    """One set-up the suite runs: the game configured by a variant's ``tags``
    (``{}``: the default rules), played by ``sides`` sides."""

    game: GameNotation
    tags: Mapping[str, str]
    sides: int

    @property
    def id(self) -> str:
        """``game-variant values-sides``: ``mygame-10-3``, ``mygame-2``."""
        return "-".join(filter(None, (self.game.name, _variant_id(self.tags), str(self.sides))))

    def __str__(self) -> str:
        return self.id


def cases(game: GameLike) -> list[Case]:
    """Every variant the game declares (:meth:`GameNotation.variants`), each for
    every number of sides its rules admit."""
    notation = _notation(game)
    found = []
    for tags in notation.variants():
        configured = notation.configure(tags)
        rules = configured.rules
        for sides in range(rules.min_sides, rules.max_sides + 1):
            found.append(Case(configured, dict(tags), sides))
    return found


@dataclass(frozen=True, slots=True)
class Playout:
    """A random game: ``states[0]`` is the initial state, ``states[i + 1]`` the state
    after ``moves[i]``."""

    states: list[Any]
    moves: list[Any]


def random_playout(
    game: GameNotation, sides: int, rng: random.Random, *, max_plies: int = MAX_PLIES
) -> Playout:
    """One random game (moves from :meth:`Rules.sample_move`) to its end, or to
    ``max_plies``; ``AssertionError`` if a side to move has no legal move before
    the end."""
    rules = game.rules
    state = rules.initial(sides)
    states: list[Any] = [state]
    moves: list[Any] = []
    while rules.outcome(state) is None and len(moves) < max_plies:
        _expect(
            bool(rules.legal_moves(state)),
            f"ply {len(moves)}: the game is not over but legal_moves lists no move "
            f"(position {_position(game, state)})",
        )
        move = rules.sample_move(state, rng)
        moves.append(move)
        state = rules.apply(state, move)
        states.append(state)
    return Playout(states, moves)


# -- helpers ------------------------------------------------------------------------------------


def _expect(condition: bool, message: str) -> None:
    """``AssertionError(message)`` unless ``condition`` (not ``assert``: ``-O`` keeps it)."""
    if not condition:
        raise AssertionError(message)


def _position(game: GameNotation, state: Any) -> str:
    """The position notation of ``state`` for a message, or its repr if that fails."""
    try:
        return repr(game.format_position(state))
    except Exception:
        return repr(state)


def _place(game: GameNotation, sides: int, seed: int | None = None, ply: int | None = None) -> str:
    parts = [f"{game.name}, {sides} sides"]
    if seed is not None:
        parts.append(f"seed {seed}")
    if ply is not None:
        parts.append(f"ply {ply}")
    return ", ".join(parts)


def _playout(game: GameNotation, sides: int, seed: int) -> Playout:
    try:
        return random_playout(game, sides, random.Random(seed))
    except AssertionError as error:
        raise AssertionError(f"{_place(game, sides, seed)}: {error}") from None


def _samples(states: Sequence[Any], count: int) -> list[Any]:
    """About ``count`` states spread over a playout, the last one included."""
    picked = list(states[:: max(1, len(states) // count)])
    if picked[-1] is not states[-1]:
        picked.append(states[-1])
    return picked


# -- the checks ---------------------------------------------------------------------------------


def check_spec(game: GameLike) -> None:
    """The spec is registered and loads; its references (board, report sections,
    solver, commands) resolve; its rules declare sensible sides, symmetries and tags;
    each variant names declared tags and configures; a bad value of any tag is
    refused with ``TagError``."""
    spec = _spec(game)
    name = spec.name
    try:
        notation = spec.game
        spec.board_factory()
        builders = spec.section_builders()
        spec.solver_factory()
        spec.command_objects()
    except PartitaError as error:
        raise AssertionError(f"{name}: {error}") from None
    _expect(
        all(callable(builder) for builder in builders), f"{name}: a report section is no function"
    )
    rules = notation.rules
    _expect(bool(spec.title.strip()), f"{name}: the spec has no title")
    _expect(bool(rules.title.strip()), f"{name}: the rules have no title")
    _expect(
        bool(rules.notation_summary.strip()),
        f"{name}: the rules have no notation_summary (partita games shows it)",
    )
    _expect(
        1 <= rules.min_sides <= rules.max_sides <= 4,
        f"{name}: sides {rules.min_sides} to {rules.max_sides}; the archive holds 1 to 4",
    )
    _expect(
        isinstance(rules.symmetry_count, int) and rules.symmetry_count >= 1,
        f"{name}: symmetry_count is {rules.symmetry_count!r}, not a whole number from 1",
    )
    declared = [tag.name for tag in rules.tags]
    _expect(len(set(declared)) == len(declared), f"{name}: a tag is declared twice: {declared}")
    for tag in rules.tags:
        if tag.values is not None and tag.default is not None:
            _expect(
                tag.default in tag.values,
                f"{name}: tag {tag.name}'s default {tag.default!r} is not one of {tag.values}",
            )
        try:
            notation.configure({tag.name: "\x00?"})
        except TagError:
            pass
        except Exception as error:
            raise AssertionError(
                f"{name}: configure({{{tag.name!r}: '\\x00?'}}) raised "
                f"{type(error).__name__} ({error}), not TagError"
            ) from None
        else:
            raise AssertionError(f"{name}: configure accepts the value '\\x00?' of tag {tag.name}")
    for tags in notation.variants():
        unknown = sorted(set(tags) - set(declared))
        _expect(not unknown, f"{name}: variant {dict(tags)} sets undeclared tags {unknown}")
        try:
            configured = notation.configure(tags)
        except PartitaError as error:
            raise AssertionError(
                f"{name}: variant {dict(tags)} does not configure: {error}"
            ) from None
        _expect(
            configured.name == name,
            f"{name}: variant {dict(tags)} configures a game called '{configured.name}'",
        )


def check_initial_position(
    game: GameLike, sides: int = 2, *, tags: Mapping[str, str] | None = None
) -> None:
    """The initial state: this many sides, ply 0, move 1 opening, not over, and a
    text diagram of more than one line."""
    notation = _configured(game, tags)
    rules = notation.rules
    place = _place(notation, sides)
    state = rules.initial(sides)
    _expect(rules.sides(state) == sides, f"{place}: sides(initial) is {rules.sides(state)}")
    _expect(rules.ply(state) == 0, f"{place}: ply(initial) is {rules.ply(state)}, not 0")
    _expect(
        rules.move_number(state) == (1, True),
        f"{place}: move_number(initial) is {rules.move_number(state)}, not (1, True)",
    )
    _expect(rules.outcome(state) is None, f"{place}: the initial position is already over")
    diagram = rules.diagram(state)
    _expect(
        isinstance(diagram, str) and "\n" in diagram,
        f"{place}: diagram(initial) is {diagram!r}, not a text of several lines",
    )


def check_playouts(
    game: GameLike, sides: int = 2, *, tags: Mapping[str, str] | None = None, seed: int = 0
) -> None:
    """One random game to the end respects the contract: the side to move is a seat
    or ``CHANCE``; every sampled move is legal; ``play`` (checked) and ``apply``
    (trusted) reach the same key; ``format_move`` gives a canonical token that
    ``parse_move`` reads back as the same move; once over, no legal move is left,
    the outcome is well formed and ``play`` refuses the last move again."""
    notation = _configured(game, tags)
    rules = notation.rules
    playout = _playout(notation, sides, seed)
    for ply, (state, move) in enumerate(zip(playout.states, playout.moves, strict=False)):
        place = _place(notation, sides, seed, ply)
        mover = rules.side_to_move(state)
        _expect(
            mover == CHANCE or 0 <= mover < sides,
            f"{place}: side_to_move is {mover!r}, neither a seat 0 to {sides - 1} nor CHANCE",
        )
        reason = rules.illegal_reason(state, move)
        _expect(reason is None, f"{place}: sample_move chose {move!r}, which is illegal: {reason}")
        _expect(
            rules.key(rules.play(state, move)) == rules.key(rules.apply(state, move)),
            f"{place}: play and apply of {move!r} reach different keys",
        )
        token = notation.format_move(state, move)
        try:
            back = notation.parse_move(state, token)
        except PartitaError as error:
            raise AssertionError(
                f"{place}: format_move gives {token!r}, which parse_move refuses: {error}"
            ) from None
        _expect(
            back == move,
            f"{place}: format_move gives {token!r}, which parse_move reads as {back!r}",
        )
        canonical = notation.canonical_token(token)
        _expect(
            canonical == token,
            f"{place}: format_move gives {token!r}, whose canonical spelling is {canonical!r}",
        )
    final = playout.states[-1]
    outcome = rules.outcome(final)
    if outcome is None:
        return  # MAX_PLIES reached: nothing to say about the end
    place = _place(notation, sides, seed, len(playout.moves))
    left = list(rules.legal_moves(final))
    _expect(not left, f"{place}: over ({outcome.reason}) but legal_moves lists {left[:3]!r}")
    _check_outcome(outcome, sides, place)
    if playout.moves:
        try:
            rules.play(final, playout.moves[-1])
        except IllegalMoveError:
            pass
        else:
            raise AssertionError(f"{place}: the game is over but play accepts another move")


def _check_outcome(outcome: Outcome, sides: int, place: str) -> None:
    scores = outcome.scores
    _expect(
        len(scores) == sides, f"{place}: the outcome has {len(scores)} scores for {sides} sides"
    )
    _expect(
        set(scores) <= {Fraction(0), Fraction(1, 2), Fraction(1)},
        f"{place}: outcome scores {scores} are not 0, 1/2 and 1",
    )
    _expect(bool(outcome.reason), f"{place}: the outcome gives no reason")
    winners = [score for score in scores if score == 1]
    _expect(len(winners) <= 1, f"{place}: the outcome {scores} has several winners")
    if winners:
        _expect(
            all(score == 0 for score in scores if score != 1),
            f"{place}: the outcome {scores} has a winner and a draw",
        )


def check_position_round_trip(
    game: GameLike, sides: int = 2, *, tags: Mapping[str, str] | None = None, seed: int = 0
) -> None:
    """Positions along a random game (about eight, decided ones left out) written by
    ``format_position`` read back with ``parse_position`` to the same text, the same
    key and the same legal moves."""
    notation = _configured(game, tags)
    rules = notation.rules
    playout = _playout(notation, sides, seed)
    states = playout.states
    step = max(1, len(states) // 8)
    for index in range(0, len(states), step):
        state = states[index]
        if rules.outcome(state) is not None:
            continue  # a decided position is no setup position
        place = _place(notation, sides, seed, index)
        text = notation.format_position(state)
        try:
            back = notation.parse_position(text, sides)
        except PartitaError as error:
            raise AssertionError(
                f"{place}: parse_position refuses format_position's {text!r}: {error}"
            ) from None
        again = notation.format_position(back)
        _expect(again == text, f"{place}: {text!r} reads back and writes as {again!r}")
        _expect(rules.key(back) == rules.key(state), f"{place}: {text!r} reads back to another key")
        _expect(
            sorted(map(repr, rules.legal_moves(back)))
            == sorted(map(repr, rules.legal_moves(state))),
            f"{place}: {text!r} reads back with other legal moves",
        )


def check_record_replay(
    game: GameLike, sides: int = 2, *, tags: Mapping[str, str] | None = None, seed: int = 0
) -> None:
    """A random game written as a PGR record (with the variant's tags) replays
    strictly, without a problem, to the same number of plies, the same keys after
    each ply, the same moves and the same final position."""
    from partita.notation.model import Node, Record
    from partita.notation.reader import parse_record
    from partita.notation.replay import replay
    from partita.notation.writer import write_record

    notation = _configured(game, tags)
    rules = notation.rules
    place = _place(notation, sides, seed)
    playout = _playout(notation, sides, seed)
    states, moves = playout.states, playout.moves
    record = Record(tags={"Game": notation.name, **(tags or {})})
    for seat in range(1, sides + 1):
        record.tags[f"Player{seat}"] = f"Player {seat}"
    outcome = rules.outcome(states[-1])
    result = outcome.result_token() if outcome else "*"
    record.tags["Result"] = result
    record.result = result
    node = record.root
    tokens = [notation.format_move(state, move) for state, move in zip(states, moves, strict=False)]
    for token in tokens:
        node = node.add(Node(token))
    text = write_record(record, notation)
    replayed = replay(parse_record(text), strict=True)
    _expect(
        not replayed.problems,
        f"{place}: the written record replays with problems: "
        + "; ".join(problem.message for problem in replayed.problems[:3]),
    )
    _expect(
        replayed.plies == len(moves),
        f"{place}: the record of {len(moves)} plies replays to {replayed.plies}",
    )
    final = notation.format_position(states[-1])
    _expect(
        replayed.final_position == final,
        f"{place}: the record replays to {replayed.final_position!r}, play reached {final!r}",
    )
    keys = [rules.key(state) for state in states[1:]]
    for ply, (got, want) in enumerate(zip(replayed.keys, keys, strict=False), start=1):
        _expect(got == want, f"{place}: after ply {ply} the replay's key differs from play's")
    _expect(replayed.moves == tokens, f"{place}: the replay's moves are not the record's")


def check_symmetries(
    game: GameLike, sides: int = 2, *, tags: Mapping[str, str] | None = None, seed: int = 7
) -> None:
    """Along the first 20 plies of a random game, every symmetry ``k`` maps the legal
    moves onto the legal moves of the image, commutes with ``apply``
    (``apply(transform(s), transform_move(m)) == transform(apply(s, m))`` by key) and
    keeps the canonical key, which is the smallest key of all images."""
    notation = _configured(game, tags)
    rules = notation.rules
    playout = _playout(notation, sides, seed)
    pairs = list(zip(playout.states, playout.moves, strict=False))[:20]
    for ply, (state, move) in enumerate(pairs):
        place = _place(notation, sides, seed, ply)
        legal = set(rules.legal_moves(state))
        keys = set()
        for k in range(rules.symmetry_count):
            image = rules.transform(state, k)
            keys.add(rules.key(image))
            _expect(
                {rules.transform_move(m, k) for m in legal} == set(rules.legal_moves(image)),
                f"{place}: symmetry {k} does not map the legal moves onto the image's",
            )
            _expect(
                rules.key(rules.apply(image, rules.transform_move(move, k)))
                == rules.key(rules.transform(rules.apply(state, move), k)),
                f"{place}: symmetry {k} and the move {move!r} do not commute",
            )
            _expect(
                rules.canonical_key(image) == rules.canonical_key(state),
                f"{place}: symmetry {k} changes the canonical key",
            )
        _expect(
            rules.canonical_key(state) == min(keys),  # type: ignore[type-var]
            f"{place}: the canonical key is not the smallest key of the images",
        )


def check_bad_input(
    game: GameLike, sides: int = 2, *, tags: Mapping[str, str] | None = None
) -> None:
    """Malformed move tokens (:data:`BAD_MOVES`) and positions (:data:`BAD_POSITIONS`,
    the start position with junk after it) are refused with one of partita's errors,
    whose message quotes the text (the house style: ``malformed move '?': ...``); a
    token the game does read must be a legal move. Any other exception would reach
    a user as an internal error."""
    notation = _configured(game, tags)
    rules = notation.rules
    place = _place(notation, sides)
    state = rules.initial(sides)
    readers: tuple[tuple[str, Callable[[str], Any]], ...] = (
        ("parse_move", lambda token: notation.parse_move(state, token)),
        ("canonical_token", notation.canonical_token),
    )
    for token in BAD_MOVES:
        for method, read in readers:
            try:
                got = read(token)
            except PartitaError as error:
                _check_quoted(error, token, f"{place}: {method}({token!r})")
                continue
            except Exception as error:
                raise AssertionError(
                    f"{place}: {method}({token!r}) raised {type(error).__name__} ({error}), "
                    "not NotationError, IllegalMoveError or AmbiguousMoveError"
                ) from None
            if method == "parse_move":
                reason = rules.illegal_reason(state, got)
                _expect(
                    reason is None,
                    f"{place}: parse_move({token!r}) gives an illegal move: {reason}",
                )
    start = notation.format_position(state)
    for text in (*BAD_POSITIONS, start + " ?", start + "/"):
        try:
            notation.parse_position(text, sides)
        except PartitaError as error:
            _check_quoted(error, text, f"{place}: parse_position({text!r})")
        except Exception as error:
            raise AssertionError(
                f"{place}: parse_position({text!r}) raised {type(error).__name__} ({error}), "
                "not NotationError or SetupError"
            ) from None


def _check_quoted(error: Exception, text: str, where: str) -> None:
    message = str(error)
    _expect(bool(message.strip()), f"{where} raises {type(error).__name__} without a message")
    if text.strip() and text.isprintable():
        _expect(text in message, f"{where}: the message does not quote the text: {message}")


def check_board(
    game: GameLike, sides: int = 2, *, tags: Mapping[str, str] | None = None, seed: int = 0
) -> None:
    """The spec's board (or the text board of a game without one) draws positions
    along a random game: its layout and frames are JSON, a cell board gives one
    piece code per cell of its layout, each with a colour in its ``piece_colours``
    (an unknown code would be drawn grey), and marks only its cells, and every
    position renders as one ``<svg>`` element."""
    from partita.analysis.diagrams import TextBoard, render_diagram

    notation = _configured(game, tags)
    place = _place(notation, sides, seed)
    factory = _spec(notation).board_factory() or TextBoard
    board = factory(notation)
    layout = board.layout
    colours = board.piece_colours
    try:
        json.dumps(layout.as_dict())
    except (TypeError, ValueError) as error:
        raise AssertionError(f"{place}: the board's layout is not JSON data: {error}") from None
    playout = _playout(notation, sides, seed)
    for state in _samples(playout.states, 6):
        where = f"{place}, position {_position(notation, state)}"
        codes = board.cells(state)
        _expect(
            all(isinstance(code, str) for code in codes), f"{where}: a cell's code is no string"
        )
        if layout.kind != "text":
            _expect(
                len(codes) == len(layout.cells),
                f"{where}: {len(codes)} piece codes for the layout's {len(layout.cells)} cells",
            )
            unknown = sorted({code for code in codes if code and code[:1] not in colours})
            _expect(
                not unknown,
                f"{where}: piece codes {unknown} have no colour in the board's piece_colours "
                f"({', '.join(sorted(colours))})",
            )
        marks = board.marks(state)
        _expect(
            all(0 <= mark < len(layout.cells) for mark in marks),
            f"{where}: marks {sorted(marks)} name cells the layout does not have",
        )
        try:
            json.dumps(board.frame(state))
        except (TypeError, ValueError) as error:
            raise AssertionError(f"{where}: the viewer's frame is not JSON data: {error}") from None
        svg = render_diagram(notation, state, caption=f"{notation.name} conformance")
        _expect(
            svg.lstrip().startswith("<svg") and svg.rstrip().endswith("</svg>"),
            f"{where}: the diagram is not one <svg> element",
        )


def check_regions(
    game: GameLike, sides: int, tags: Mapping[str, str] | None = None, seed: int = 0
) -> None:
    """A board that declares regions (:meth:`~partita.analysis.diagrams.Board.regions`):
    along a random game, every legal move (and the move played) is clicked on
    regions of its position (:meth:`~partita.analysis.diagrams.Board.move_regions`),
    the clicks spell a token (:meth:`~partita.analysis.diagrams.Board.move_text`)
    that reads back as that move, and the interactive SVG carries each region. A
    board that declares none is played through its list of moves: nothing to check."""
    from html import escape

    from partita.analysis.diagrams import Board, TextBoard, render_diagram

    notation = _configured(game, tags)
    place = _place(notation, sides, seed)
    factory = _spec(notation).board_factory() or TextBoard
    board = factory(notation)
    if type(board).regions is Board.regions:
        return
    rules = notation.rules
    playout = _playout(notation, sides, seed)
    step = max(1, len(playout.moves) // 8)
    for index in range(0, len(playout.moves), step):
        state, played = playout.states[index], playout.moves[index]
        if rules.side_to_move(state) == CHANCE:
            continue
        where = f"{place}, ply {index}, position {_position(notation, state)}"
        ids = [region.id for region in board.regions(state)]
        _expect(len(ids) == len(set(ids)), f"{where}: a region id is given twice")
        known = set(ids)
        for move in [*rules.legal_moves(state), played]:
            clicks = board.move_regions(state, move)
            if not clicks:
                continue  # a move played from the list
            token = notation.format_move(state, move)
            unknown = [click for click in clicks if click not in known]
            _expect(not unknown, f"{where}: move {token} is clicked on {unknown}, no regions here")
            text = board.move_text(state, clicks)
            _expect(text is not None, f"{where}: the clicks {list(clicks)} spell no move")
            assert text is not None
            try:
                read = notation.parse_move(state, text)
            except PartitaError as error:
                raise AssertionError(
                    f"{where}: the clicks of {token} spell {text!r}, refused: {error}"
                ) from None
            _expect(
                rules.key(rules.apply(state, read)) == rules.key(rules.apply(state, move)),
                f"{where}: the clicks of {token} spell {text!r}, another move",
            )
        svg = render_diagram(notation, state, interactive=True)
        missing = [region for region in ids if f'data-region="{escape(region)}"' not in svg]
        _expect(not missing, f"{where}: the interactive drawing lacks regions {missing[:5]}")


# -- running them ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Check:
    """One check of the suite: its short name, its function, and whether it is
    random (run once per seed)."""

    name: str
    function: Callable[..., None]
    seeded: bool = False
    #: The seed of a random check when only one is run (``checks(..., seeds=None)``).
    default_seed: int = 0


#: The check of a game's spec, run once per game.
SPEC_CHECK = Check("spec", check_spec)
#: The checks of one set-up, in the order they run.
CHECKS: tuple[Check, ...] = (
    Check("initial position", check_initial_position),
    Check("random playouts", check_playouts, seeded=True),
    Check("position round trip", check_position_round_trip, seeded=True),
    Check("record replay", check_record_replay, seeded=True),
    Check("symmetries", check_symmetries, seeded=True, default_seed=7),
    Check("bad input", check_bad_input),
    Check("board", check_board, seeded=True),
    Check("regions", check_regions, seeded=True),
)


@dataclass(frozen=True, eq=False)
class BoundCheck:
    """A check bound to what it checks (a set-up, or the spec for :func:`check_spec`)
    and, if random, to its seeds (none: the check's default seed). Call it to run it:
    ``AssertionError`` naming the seed on the first failure. ``str()`` is a test id:
    ``random playouts[mygame-2]``."""

    check: Check
    subject: Case | GameSpec
    seeds: tuple[int, ...] = ()

    def __call__(self) -> None:
        subject = self.subject
        if isinstance(subject, GameSpec):
            self.check.function(subject)
        elif not self.check.seeded:
            self.check.function(subject.game, subject.sides, tags=subject.tags)
        else:
            for seed in self.seeds or (self.check.default_seed,):
                self.check.function(subject.game, subject.sides, tags=subject.tags, seed=seed)

    @property
    def target(self) -> str:
        """The set-up's id, or the game's name for the spec check."""
        subject = self.subject
        return subject.name if isinstance(subject, GameSpec) else subject.id

    def __str__(self) -> str:
        return f"{self.check.name}[{self.target}]"


def checks(game: GameLike, *, seeds: int | Iterable[int] = 10) -> list[BoundCheck]:
    """Every check of the suite for ``game``: the spec once, then each of
    :data:`CHECKS` for every set-up of :func:`cases`, the random ones over ``seeds``
    (a count from 0, or the seeds themselves). For a plugin's own tests::

        @pytest.mark.parametrize("check", conformance.checks(SPEC), ids=str)
        def test_conformance(check):
            check()
    """
    spec = _spec(game)
    chosen = tuple(range(seeds)) if isinstance(seeds, int) else tuple(seeds)
    bound = [BoundCheck(SPEC_CHECK, spec)]
    for case in cases(spec):
        bound.extend(BoundCheck(check, case, chosen) for check in CHECKS)
    return bound


@dataclass(frozen=True, slots=True)
class CheckResult:
    """How one bound check went: ``message`` says why it failed (empty if it passed)."""

    check: str
    target: str
    passed: bool
    message: str
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "target": self.target,
            "passed": self.passed,
            "message": self.message,
            "seconds": round(self.seconds, 3),
        }


def run_conformance(
    game: GameLike,
    *,
    seeds: int | Iterable[int] = 10,
    on_result: Callable[[CheckResult], None] | None = None,
) -> list[CheckResult]:
    """Run every check of :func:`checks` and return how each went; ``on_result`` is
    called after each (for progress). A check that raises anything but
    ``AssertionError`` has failed too: its message names the exception."""
    results = []
    for bound in checks(game, seeds=seeds):
        began = time.perf_counter()
        try:
            bound()
        except AssertionError as error:
            passed, message = False, str(error) or "assertion failed"
        except Exception as error:
            passed, message = False, f"raised {type(error).__name__}: {error}"
        else:
            passed, message = True, ""
        result = CheckResult(
            bound.check.name, bound.target, passed, message, time.perf_counter() - began
        )
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def format_result(result: CheckResult) -> str:
    """One line: ``ok    random playouts      mygame-2  (0.21 s)``, or ``FAIL``
    and the reason."""
    status = "ok  " if result.passed else "FAIL"
    line = f"{status}  {result.check:<20} {result.target:<24} ({result.seconds:.2f} s)"
    return line if result.passed else f"{line}\n      {result.message}"


def summary(results: Sequence[CheckResult]) -> str:
    """``22 checks: 22 passed, 0 failed``."""
    failed = sum(not result.passed for result in results)
    return f"{len(results)} checks: {len(results) - failed} passed, {failed} failed"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m partita.conformance GAME [--seeds N] [--json]``: print each check
    as it ends and a summary; 0 if all passed, 1 if one failed, 2 on usage errors
    (an unknown game among them)."""
    parser = argparse.ArgumentParser(
        prog="python -m partita.conformance",
        description="Run partita's conformance suite on one registered game.",
    )
    parser.add_argument("game", help="the Game tag (see `partita games`)")
    parser.add_argument(
        "--seeds", type=int, default=10, help="random games per random check (default 10)"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    try:
        get_spec(args.game)
    except PartitaError as error:
        parser.error(str(error))

    def show(result: CheckResult) -> None:
        if not args.json:
            print(format_result(result), flush=True)

    results = run_conformance(args.game, seeds=args.seeds, on_result=show)
    if args.json:
        print(json.dumps([result.as_dict() for result in results], ensure_ascii=False, indent=2))
    else:
        print(f"{args.game}: {summary(results)}")
    return int(not all(result.passed for result in results))


def _cli() -> None:
    """``main`` as a program: a closed pipe (``| head``) or Ctrl-C ends it quietly."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        code = 1
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    _cli()
