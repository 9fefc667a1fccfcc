"""Opening books: the positions of the first plies of a game, answered in advance.

Two kinds, in one table (:mod:`partita.database.books`), keyed by the position's
canonical key (``Rules.canonical_key``: positions equal under a symmetry of the
board are one row, their moves written for the row's ``position``):

* **exact** (a game whose spec names a ``solver``): every position from the root to
  ``depth`` plies further, with its score and every move's score. Only the
  positions at the last ply are searched, each within a node budget, in parallel
  through :mod:`partita.execution`; the shallower ones are *backed up* from their
  children (a move's score for its mover is minus the child's score for the side
  to move there, or the child's score when the same side moves again: the
  negamax contract every exact solver of partita keeps). A position beyond the
  budget is stored unsolved with the budget it had, and so is every position
  above it that needs its score. Building is resumable: a rerun searches only the
  positions not stored (or stored unsolved with a smaller budget), so a killed run
  loses at most the positions in flight, and a run with a larger budget completes
  what a smaller one left.
* **statistics** (any game): the moves played from each position of the archive's
  games (the opening tree of :mod:`partita.analysis.tree`, symmetric positions
  folded), with games, wins, draws and losses of the mover. Archive games and
  simulated games alike (``partita simulate --db``).

:class:`Book` reads a book (a book file or an archive) without writing, and
:class:`BookSolver` puts an exact book in front of a solver, so ``solve`` and
``annotate`` answer the opening at once (see :func:`partita.analysis.solving.solver_for`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, is_dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from partita.analysis.solving import takes_memory
from partita.analysis.tasks import GameRef, game_ref, resolve_game
from partita.database.books import open_book_file, read_book, write_rows
from partita.database.keys import encode_key
from partita.errors import BudgetExceeded, PartitaError
from partita.execution import default_workers, open_executor
from partita.game.configuration import Configuration
from partita.game.notation import GameNotation
from partita.game.spec import resolve

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "DEFAULT_BOOK_BUDGET",
    "EXACT",
    "STATISTICS",
    "Book",
    "BookEntry",
    "BookProgress",
    "BookSolver",
    "BookSummary",
    "build_exact_book",
    "book_moves",
    "build_statistics_book",
    "open_book",
    "setup_text",
]

EXACT, STATISTICS = "exact", "statistics"
#: Nodes the solver may search for one position of the last ply.
DEFAULT_BOOK_BUDGET = 5_000_000
#: Positions per task sent to a worker.
CHUNK = 4
#: Memory of each worker's transposition table (bytes), for a solver factory that
#: sizes its table by memory; the positions a worker searches share it.
DEFAULT_BOOK_MEMORY = 64 << 20


def setup_text(game: GameNotation, configuration: Configuration) -> str:
    """The ``setup`` column of a book row: the sides, the game's settings, and a
    digest of the start's diagram (so two engines of one name on different boards,
    the sizes of a board that no tag names, never share rows)."""
    start = game.rules.diagram(game.rules.initial(configuration.sides))
    digest = hashlib.sha256(start.encode("utf-8")).hexdigest()[:12]
    return json.dumps(
        {
            "sides": configuration.sides,
            "settings": [list(pair) for pair in configuration.settings],
            "start": digest,
        },
        ensure_ascii=False,
    )


def _representative(rules: Any, state: Any) -> tuple[Hashable, Any, int]:
    """The canonical key of ``state``, the image of it that has that key, and the
    symmetry that maps ``state`` onto that image."""
    keys = rules.symmetric_keys(state)
    canonical = min(keys)
    symmetry = keys.index(canonical)
    image = state if symmetry == 0 else rules.transform(state, symmetry)
    return canonical, image, symmetry


# -- reading a book ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BookEntry:
    """A position's row, its moves mapped onto the position asked about: exact,
    ``moves`` are ``(move, score)`` and ``score`` is ``None`` when the position was
    beyond the budget; statistics, ``moves`` are ``(move, games, won, drawn, lost)``
    (the mover's results) and ``games`` the games that reached it."""

    kind: str
    ply: int
    position: str
    score: int | None
    moves: tuple[tuple, ...]
    games: int | None = None
    nodes: int | None = None


class Book:
    """A book file or an archive, read-only: :meth:`entry` finds a position in it.

    ``tags`` are the game-specific tags of the games asked about (a record's tags;
    none for a game without any): with the sides, they select the set-up.
    """

    def __init__(self, path: str | Path, *, tags: Mapping[str, str] | None = None) -> None:
        self.path = Path(path)
        self.tags = dict(tags or {})
        self._context: Any = read_book(self.path)
        self._connection: sqlite3.Connection | None = self._context.__enter__()
        self._setups: dict[tuple[int, int], str] = {}
        #: Look-ups answered, and asked.
        self.hits = 0
        self.lookups = 0

    @property
    def has_table(self) -> bool:
        return self._connection is not None

    def close(self) -> None:
        if self._context is not None:
            self._context.__exit__(None, None, None)
            self._context = None
            self._connection = None

    def __enter__(self) -> Book:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _setup(self, game: GameNotation, sides: int) -> str:
        key = (id(game), sides)
        found = self._setups.get(key)
        if found is None:
            configuration = Configuration.of(game, sides, self.tags)
            found = self._setups[key] = setup_text(game, configuration)
        return found

    def entry(self, game: GameNotation, state: Any, kind: str = EXACT) -> BookEntry | None:
        """The book's row for ``state`` (``game`` configured as its record says), its
        moves those of ``state`` (mapped through the symmetry that folded it), or
        ``None`` when the book does not have it."""
        self.lookups += 1
        if self._connection is None:
            return None
        rules = game.rules
        canonical, image, symmetry = _representative(rules, state)
        row = self._connection.execute(
            "SELECT ply, position, score, moves, games, nodes FROM book "
            "WHERE game = ? AND setup = ? AND kind = ? AND key = ?",
            (game.name, self._setup(game, rules.sides(state)), kind, encode_key(canonical)),
        ).fetchone()
        if row is None:
            return None
        ply, position, score, moves_text, games, nodes = row
        try:
            moves = []
            for item in json.loads(moves_text):
                move = game.parse_move(image, item[0])
                if symmetry:
                    move = _unmapped(rules, state, symmetry, move)
                moves.append((move, *item[1:]))
        except (PartitaError, ValueError, TypeError):
            return None  # a row this engine cannot read: as good as none
        if symmetry and kind == EXACT:  # in the engine's order of this position's moves
            order = {move: index for index, move in enumerate(rules.legal_moves(state))}
            moves.sort(key=lambda item: order[item[0]])
        self.hits += 1
        return BookEntry(kind, ply, position, score, tuple(moves), games, nodes)


def _unmapped(rules: Any, state: Any, symmetry: int, image_move: Any) -> Any:
    """The move of ``state`` that symmetry ``symmetry`` maps onto ``image_move``."""
    for move in rules.legal_moves(state):
        if rules.transform_move(move, symmetry) == image_move:
            return move
    raise ValueError(f"no move of the position maps onto {image_move!r}")


class BookSolver:
    """An exact solver with an exact book in front: a position the book has solved
    is answered from it at once (a solution with 0 nodes), any other goes to the
    solver. Everything else is the solver's. The solver must offer
    ``solution(state, scores)`` (a solution from given move scores); one that does
    not is used as it is."""

    def __init__(self, solver: Any, book: Book, game: GameNotation) -> None:
        self.solver = solver
        self.book = book
        self.game = game

    def solve(
        self, state: Any, *, max_nodes: int | None = None, max_seconds: float | None = None
    ) -> Any:
        started = time.perf_counter()
        make = getattr(self.solver, "solution", None)
        if make is not None and self.game.rules.outcome(state) is None:
            entry = self.book.entry(self.game, state)
            if entry is not None and entry.score is not None:
                found = make(state, entry.moves, nodes=0, seconds=time.perf_counter() - started)
                if hasattr(found, "engine") and is_dataclass(found):
                    found = replace(found, engine="book")  # type: ignore[type-var, unused-ignore]
                return found
        return self.solver.solve(state, max_nodes=max_nodes, max_seconds=max_seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.solver, name)


def open_book(path: str | Path, *, required: bool = False) -> Book | None:
    """The opening book at ``path`` (a book file, or an archive with a book table),
    or ``None`` where there is none: no such file, a file partita cannot read, one
    without a book table. ``required``: a ``PartitaError`` naming the file instead."""
    path = Path(path)
    if not required and not path.is_file():
        return None
    try:
        found = Book(path)
    except PartitaError:
        if required:
            raise
        return None
    if not found.has_table:
        found.close()
        if required:
            raise PartitaError(f"{path} holds no opening book (no book table)")
        return None
    return found


# -- building ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BookProgress:
    """Where a build is: ``phase`` (``positions``: listing them; ``search``: the
    last ply's positions searched, ``done`` of ``total``; ``back-up``)."""

    phase: str
    done: int
    total: int


@dataclass(slots=True)
class BookSummary:
    """What a build did. ``positions``: folded positions from the root to the last
    ply (finished games left out); ``solved``/``unsolved`` of them in the book now;
    ``searched``: searched in this run; ``skipped``: found stored; ``backed_up``:
    answered from their children."""

    game: str
    setup: str
    kind: str
    depth: int
    positions: int = 0
    solved: int = 0
    unsolved: int = 0
    searched: int = 0
    skipped: int = 0
    backed_up: int = 0
    games: int = 0
    nodes: int = 0
    seconds: float = 0.0
    per_ply: list[int] = field(default_factory=list)
    root: dict | None = None

    def as_dict(self) -> dict:
        data = asdict(self)
        data["seconds"] = round(self.seconds, 3)
        return data


@contextmanager
def _writable(target: str | Path, archive: bool) -> Iterator[sqlite3.Connection]:
    """The connection rows are written through: an archive (made or migrated to
    the schema that has the book table) or a book file."""
    if archive:
        from partita.database.schema import archive as open_archive

        with open_archive(target) as db:
            yield db.conn
    else:
        with open_book_file(target) as connection:
            yield connection


def _stored(connection: sqlite3.Connection, name: str, setup: str, kind: str) -> dict[bytes, tuple]:
    rows = connection.execute(
        "SELECT key, score, moves, budget FROM book WHERE game = ? AND setup = ? AND kind = ?",
        (name, setup, kind),
    )
    return {bytes(key): (score, moves, budget) for key, score, moves, budget in rows}


def _solver_factory(game: GameNotation, solver: Any) -> Callable[..., Any]:
    if solver is not None:
        found: Callable[..., Any] = resolve(solver, what="solver")
        return found
    from partita.game.registry import get_spec

    factory = get_spec(game.name).solver_factory()
    if factory is None:
        raise PartitaError(
            f"{game.name} has no exact solver: build a statistics book of its games instead"
        )
    return factory


def build_exact_book(
    target: str | Path,
    game: GameNotation,
    depth: int,
    *,
    configuration: Configuration | None = None,
    root: Any = None,
    budget: int | None = DEFAULT_BOOK_BUDGET,
    seconds: float | None = None,
    table_size: int | None = None,
    memory: int | None = DEFAULT_BOOK_MEMORY,
    archive: bool = False,
    workers: int | None = 1,
    scheduler: str | None = None,
    solver: Any = None,
    progress: Callable[[BookProgress], object] | None = None,
) -> BookSummary:
    """Build (or complete) the exact book of ``game`` (configured) from ``root`` (a
    state; default the start) to ``depth`` plies after it, into ``target``: an
    archive when ``archive``, else a book file (made if missing).

    ``budget``/``seconds``: the search allowed per position of the last ply
    (``None``: no limit). ``workers``/``scheduler``: where the searches run (see
    :func:`partita.execution.open_executor`; ``workers=None``: one per CPU). ``solver``: a solver factory (or a
    ``"module:attribute"`` reference) for an engine the registry does not know;
    by default the spec's. ``memory`` (bytes) sizes each worker's transposition
    table where the solver takes it (``table_size`` given instead: that many
    positions).
    """
    from partita.analysis.solving import DEFAULT_TABLE_SIZE

    if depth < 0:
        raise ValueError(f"the depth is 0 plies or more, not {depth}")
    started = time.perf_counter()
    rules = game.rules
    factory = _solver_factory(game, solver)
    if table_size is not None:
        memory = None
    table_size = table_size or DEFAULT_TABLE_SIZE
    if root is None:
        root = rules.initial(configuration.sides if configuration else rules.min_sides)
    sides = rules.sides(root)
    if configuration is None:
        configuration = Configuration.of(game, sides, {})
    setup = setup_text(game, configuration)
    summary = BookSummary(game.name, configuration.label, EXACT, depth)

    def report(phase: str, done: int, total: int) -> None:
        if progress is not None:
            progress(BookProgress(phase, done, total))

    # The positions, ply by ply, folded: canonical key -> (image with that key, ply).
    levels: list[dict[Hashable, Any]] = [{}]
    if rules.outcome(root) is None:
        key, image, _ = _representative(rules, root)
        levels[0][key] = image
    for _ in range(depth):
        following: dict[Hashable, Any] = {}
        for state in levels[-1].values():
            for move in rules.legal_moves(state):
                child = rules.apply(state, move)
                if rules.outcome(child) is not None:
                    continue
                key, image, _ = _representative(rules, child)
                following.setdefault(key, image)
        levels.append(following)
        report("positions", len(levels) - 1, depth)
    summary.per_ply = [len(level) for level in levels]
    summary.positions = sum(summary.per_ply)
    root_ply = rules.ply(root)
    here = factory(game, table_size=1 << 12)  # scores finished games; builds solutions

    with _writable(target, archive) as connection:
        stored = _stored(connection, game.name, setup, EXACT)
        scores: dict[Hashable, int | None] = {}
        # The last ply: searched, unless stored solved (or unsolved with this budget).
        leaves = levels[-1]
        wanted = []
        for key, state in leaves.items():
            row = stored.get(encode_key(key))
            if row is not None and (
                row[0] is not None
                or (row[2] is not None and budget is not None and row[2] >= budget)
            ):
                scores[key] = row[0]
                summary.skipped += 1
            else:
                wanted.append((key, game.format_position(state)))
        reference = game_ref(game, configuration.tags())
        chunks = [wanted[start : start + CHUNK] for start in range(0, len(wanted), CHUNK)]
        tasks = (
            (reference, solver, table_size, budget, seconds, [text for _, text in chunk], memory)
            for chunk in chunks
        )
        ply = root_ply + depth
        done = 0
        report("search", 0, len(wanted))
        if workers is None:
            workers = default_workers(len(chunks))
        with open_executor(workers, scheduler=scheduler) as execution:
            for chunk, results in zip(
                chunks, execution.map_ordered(_search_positions, tasks), strict=False
            ):
                rows = []
                for (key, text), (score, moves, nodes, spent) in zip(chunk, results, strict=True):
                    scores[key] = score
                    summary.searched += 1
                    summary.nodes += nodes
                    rows.append(
                        (
                            game.name, setup, EXACT, encode_key(key), ply, text, score,
                            json.dumps(moves or []), None,
                            budget if score is None else None, nodes, round(spent, 4),
                        )
                    )  # fmt: skip
                write_rows(connection, rows)
                done += len(chunk)
                report("search", done, len(wanted))
        # The shallower plies: backed up from their children's scores.
        for level in range(depth - 1, -1, -1):
            rows = []
            ply = root_ply + level
            for key, state in levels[level].items():
                score, moves = _back_up(game, here, state, scores)
                scores[key] = score
                summary.backed_up += score is not None
                row = (
                    game.name, setup, EXACT, encode_key(key), ply, game.format_position(state),
                    score, json.dumps(moves or []), None, budget if score is None else None,
                    None, 0.0,
                )  # fmt: skip
                previous = stored.get(row[3])
                if previous is None or previous[:2] != (row[6], row[7]):
                    rows.append(row)
            write_rows(connection, rows)
            report("back-up", depth - level, depth)
        summary.solved = sum(1 for level in levels for key in level if scores.get(key) is not None)
        summary.unsolved = summary.positions - summary.solved
        if levels[0]:
            (root_key,) = levels[0]
            found = connection.execute(
                "SELECT score, moves FROM book WHERE game = ? AND setup = ? AND kind = ? "
                "AND key = ?",
                (game.name, setup, EXACT, encode_key(root_key)),
            ).fetchone()
            if found is not None:
                score, moves = found[0], json.loads(found[1])
                summary.root = {
                    "position": game.format_position(levels[0][root_key]),
                    "score": score,
                    "best": [token for token, value in moves if value == score],
                    "moves": moves,
                }
    summary.seconds = time.perf_counter() - started
    return summary


def _back_up(
    game: GameNotation, solver: Any, state: Any, scores: Mapping[Hashable, int | None]
) -> tuple[int | None, list | None]:
    """A position's score and its moves' from its children's (``None`` if a
    child's is unknown)."""
    rules = game.rules
    mover = rules.side_to_move(state)
    moves = []
    for move in rules.legal_moves(state):
        child = rules.apply(state, move)
        if rules.outcome(child) is not None:
            child_score = solver.solve(child).score
        else:
            child_score = scores.get(rules.canonical_key(child))
            if child_score is None:
                return None, None
        score = child_score if rules.side_to_move(child) == mover else -child_score
        moves.append([game.format_move(state, move), score])
    return max(score for _, score in moves), moves


@cache
def _worker_solver(
    notation: GameNotation, solver_ref: Any, table_size: int, memory: int | None
) -> Any:
    """The solver of a worker process, made once per game, solver and size (its
    transposition table then serves every task)."""
    factory = _solver_factory(notation, solver_ref)
    if memory is not None and takes_memory(factory):
        return factory(notation, table_size=table_size, memory=memory)
    return factory(notation, table_size=table_size)


def _search_positions(
    task: tuple[GameRef, Any, int, int | None, float | None, list[str], int | None],
) -> list[tuple[int | None, list | None, int, float]]:
    """A worker's task: search each position (given in its notation) within the
    budget: ``(score, [[token, score], ...], nodes, seconds)``, ``None`` scores when
    the budget ran out."""
    reference, solver_ref, table_size, budget, seconds, positions, memory = task
    notation = resolve_game(reference)
    solver = _worker_solver(notation, solver_ref, table_size, memory)
    results: list[tuple[int | None, list | None, int, float]] = []
    for text in positions:
        state = notation.parse_position(text)
        started = time.perf_counter()
        before = solver.nodes
        try:
            solution = solver.solve(state, max_nodes=budget, max_seconds=seconds)
        except BudgetExceeded:
            results.append((None, None, solver.nodes - before, time.perf_counter() - started))
            continue
        moves = [[notation.format_move(state, item.move), item.score] for item in solution.moves]
        results.append((solution.score, moves, solution.nodes, solution.seconds))
    return results


# -- statistics books ----------------------------------------------------------------------------


def build_statistics_book(
    target: str | Path,
    source: Archive,
    name: str,
    depth: int,
    *,
    archive: bool = False,
    configuration: Configuration | None = None,
    progress: Callable[[BookProgress], object] | None = None,
    **filters: Any,
) -> BookSummary:
    """The statistics book of the archive ``source``'s games of the game ``name`` matching
    ``filters`` (those of :func:`partita.database.query_games`), all of one
    ``configuration`` (by default the selection's only one), to ``depth`` plies:
    every position the games reached, folded by symmetry, with the moves played from
    it. It replaces the statistics rows of that set-up in ``target`` (an archive
    when ``archive``, else a book file)."""
    from partita.analysis.tree import choose_configuration, tree_from_archive
    from partita.game.registry import get_game

    started = time.perf_counter()
    filters = {key: value for key, value in filters.items() if value is not None}
    if configuration is None:
        configuration = choose_configuration(source, name, **filters)
    tree = tree_from_archive(
        source,
        name,
        depth=depth,
        min_games=1,
        symmetry=True,
        configuration=configuration,
        **filters,
    )
    notation = configuration.configure(get_game(name))
    rules = notation.rules
    setup = setup_text(notation, configuration)
    summary = BookSummary(name, configuration.label, STATISTICS, depth, games=tree.games)
    rows = []
    per_ply: dict[int, int] = {}
    for node, (ply, games) in tree.nodes.items():
        moves = tree.out.get(node)
        if not moves:
            continue
        state = tree.states[node]
        moves_data = [[stats.move, stats.games, *stats.wdl] for stats in moves]
        rows.append(
            (
                name, setup, STATISTICS, encode_key(rules.canonical_key(state)),
                rules.ply(state), tree.position(node), None, json.dumps(moves_data), games,
                None, None, None,
            )
        )  # fmt: skip
        per_ply[ply] = per_ply.get(ply, 0) + 1
    if progress is not None:
        progress(BookProgress("positions", len(rows), len(rows)))
    with _writable(target, archive) as connection:
        write_rows(connection, rows, replacing=(name, setup, STATISTICS))
    summary.positions = len(rows)
    summary.per_ply = [per_ply.get(ply, 0) for ply in range(max(per_ply, default=-1) + 1)]
    summary.seconds = time.perf_counter() - started
    return summary


def book_moves(entry: BookEntry, game: GameNotation, state: Any) -> Sequence[dict]:
    """An entry's moves as JSON data (tokens of ``state``)."""
    if entry.kind == EXACT:
        return [
            {"move": game.format_move(state, move), "score": score} for move, score in entry.moves
        ]
    return [
        {
            "move": game.format_move(state, move),
            "games": games,
            "won": won,
            "drawn": drawn,
            "lost": lost,
        }
        for move, games, won, drawn, lost in entry.moves
    ]
