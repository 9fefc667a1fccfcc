"""Exact solver for the gravity games (Connect Four, Forza 4x4).

Scores follow the convention of Pascal Pons' Connect Four test sets, generalised:
from the side to move, 0 is a draw, a win is ``W*H/2 + 1`` minus the stones the
winner has played when the game ends (22 - stones on the 7x6 Connect Four board,
33 - stones on the 8x8 Forza 4x4 board), a loss the negative of the opponent's win.
So the sooner the win, the higher the score, and perfect play maximises it.

Two search cores do the work (see :mod:`partita.games.gravity._topentry` for
top-entry boards, :mod:`partita.games.gravity._anyentry` for boards with entries from
several sides); a compiled core (``partita.games.gravity._native``) is used instead
when it was built, and gives the same answers. On the standard 7x6 Connect Four
board, bitbully (an optional AGPL-3.0 package, the ``connect4`` extra; see
:mod:`partita.games.gravity._bitbully`) answers instead when it is installed: its
opening databases make every position of that board exact within about a second.
``PARTITA_GRAVITY_ENGINE=search`` (or ``Solver(..., engine="search")``) keeps to
partita's own search. This module turns the engine's states into theirs, scores
every legal move, enforces the budgets and says what a search that ran out found.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from partita.analysis.solving import DEFAULT_TABLE_SIZE, score_value
from partita.errors import PartitaError
from partita.games.gravity import _bitbully
from partita.games.gravity._anyentry import AnyEntrySearch
from partita.games.gravity._search import BudgetExceeded, SearchExhausted
from partita.games.gravity._topentry import TopEntrySearch
from partita.games.gravity.rules import GravityRules, GravityState

__all__ = [
    "DEFAULT_TABLE_SIZE",
    "ENGINES",
    "BudgetExceeded",
    "MoveScore",
    "Solution",
    "Solver",
    "native_available",
    "plies_from_score",
    "score_from_plies",
    "score_value",
    "solve",
]


try:  # the optional compiled core
    from partita.games.gravity import _native  # type: ignore[attr-defined, unused-ignore]
except ImportError:  # pragma: no cover - depends on the build
    _native = None


class _Core(Protocol):
    """What the solver asks of a search core (the Python ones and the compiled one)."""

    table_size: int

    @property
    def nodes(self) -> int: ...

    def clear(self) -> None: ...

    def score(self, x: int, o: int) -> int: ...

    def set_budget(self, node_limit: int | None, deadline: float | None) -> None: ...


#: What answers a position: partita's search, an opening book, or bitbully.
ENGINES = ("search", "book", "bitbully")

#: Bytes a transposition-table entry takes, by core: the compiled top-entry core
#: keeps a 64-bit key and a byte, the any-entry one a 128-bit key and a byte; the
#: pure-Python cores a dict entry (an int key, an int value, the slot).
ENTRY_BYTES = {"native-top": 9, "native-any": 17, "python": 120}


def table_entries(memory: int, *, native: bool, top_entry: bool) -> int:
    """How many positions a transposition table of ``memory`` bytes holds."""
    kind = "python" if not native else "native-top" if top_entry else "native-any"
    return max(1, memory // ENTRY_BYTES[kind])


def native_available() -> bool:
    """Whether the compiled search core was built and can be used."""
    return _native is not None


def plies_from_score(score: int, cells: int, stones: int) -> int | None:
    """Plies from a position with ``stones`` on a board of ``cells`` to the end of a
    game won with this score (``None`` for a draw, whose length the score does not
    tell). The winner's stones at the end are ``cells // 2 + 1 - |score|``; x, who
    moves first, ends a game it wins with one stone more than o."""
    if score == 0:
        return None
    winner_stones = cells // 2 + 1 - abs(score)
    side_to_move_is_x = stones % 2 == 0
    winner_is_x = side_to_move_is_x == (score > 0)
    total = 2 * winner_stones - 1 if winner_is_x else 2 * winner_stones
    return total - stones


def score_from_plies(value: str, plies: int | None, cells: int, stones: int) -> int:
    """The score of a position with ``stones`` whose result for the side to move is
    ``value`` (``"win"``, ``"draw"``, ``"loss"``), the game ending ``plies`` later."""
    if value == "draw":
        return 0
    if plies is None:
        raise ValueError("a win or a loss needs its distance in plies")
    winner_stones = (stones + plies + 1) // 2
    score = cells // 2 + 1 - winner_stones
    return score if value == "win" else -score


@dataclass(frozen=True, slots=True)
class MoveScore:
    """One legal move and the score the side to move gets by playing it."""

    move: Any
    score: int

    @property
    def value(self) -> str:
        return score_value(self.score)


@dataclass(frozen=True, slots=True)
class Solution:
    """A solved position: its score, every legal move with its score (in the
    engine's order of legal moves), and what it cost.

    ``stones`` and ``cells`` (stones on the board, cells of the board) turn scores
    into distances: see :meth:`own_moves` and :func:`plies_from_score`.
    """

    score: int
    moves: tuple[MoveScore, ...]
    stones: int
    cells: int
    nodes: int
    seconds: float
    #: What answered: ``"search"`` (partita's), ``"book"`` or ``"bitbully"``.
    engine: str = "search"

    @property
    def value(self) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` for the side to move."""
        return score_value(self.score)

    @property
    def best(self) -> tuple[Any, ...]:
        """The moves that keep the score, in the engine's order."""
        return tuple(item.move for item in self.moves if item.score == self.score)

    def own_moves(self, score: int) -> int | None:
        """How many moves the side to move plays until a game with this score ends,
        the next one included ("wins in 7"); ``None`` for a draw."""
        plies = plies_from_score(score, self.cells, self.stones)
        return None if plies is None else (plies + 1) // 2

    def as_dict(self, token: Callable[[Any], str]) -> dict[str, Any]:
        """The data ``partita solve --json`` prints; ``token`` writes a move."""
        return {
            "value": self.value,
            "score": self.score,
            "best": [token(move) for move in self.best],
            "moves": [
                {"move": token(item.move), "score": item.score, "value": item.value}
                for item in self.moves
            ],
            "exact": True,
            "engine": self.engine,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
        }


class Solver:
    """Exact solver for the positions of one gravity game.

    ``game`` is a :class:`~partita.games.gravity.GravityRules` engine (or a
    notation wrapping one) with lines of four. The transposition table keeps at
    most ``table_size`` positions and lives as long as the solver, so solving
    related positions with one solver is faster; ``memory`` (bytes), when given,
    sizes it instead. ``backend`` is ``"auto"`` (the compiled core if built),
    ``"python"`` or ``"native"``. ``engine`` is ``"auto"`` (bitbully on the 7x6
    Connect Four board when it is installed, else partita's search; the environment
    variable ``PARTITA_GRAVITY_ENGINE`` can say ``search``), ``"search"`` or
    ``"bitbully"``.
    """

    def __init__(
        self,
        game: Any,
        *,
        table_size: int = DEFAULT_TABLE_SIZE,
        backend: str = "auto",
        engine: str | None = None,
        memory: int | None = None,
    ) -> None:
        rules = getattr(game, "rules", game)
        if not isinstance(rules, GravityRules):
            name = getattr(rules, "name", type(rules).__name__)
            raise PartitaError(
                f"the solver handles the gravity games (forza4x4, connect4), not {name}"
            )
        if rules.line_length != 4:
            raise PartitaError(
                f"the solver handles lines of four, not of {rules.line_length} ({rules.name})"
            )
        if backend not in ("auto", "python", "native"):
            raise ValueError(f"backend is auto, python or native, not {backend!r}")
        native_fits = _native is not None and _native.supports(
            rules.width, rules.height, rules.entry_sides
        )
        if backend == "native" and not native_fits:
            raise PartitaError(
                "the compiled solver core is not built on this installation"
                if _native is None
                else f"the compiled solver core does not handle {rules.name}"
            )
        if engine is None:
            engine = os.environ.get("PARTITA_GRAVITY_ENGINE", "auto") or "auto"
        if engine not in ("auto", "search", "bitbully"):
            raise PartitaError(f"the engine is auto, search or bitbully, not {engine!r}")
        self.rules = rules
        self.cells = rules.width * rules.height
        use_native = native_fits and backend != "python"
        self.backend = "native" if use_native else "python"
        if memory is not None:
            table_size = table_entries(
                memory, native=use_native, top_entry=rules.entry_sides == "t"
            )
        self.outside: _bitbully.BitBullyEngine | None = None
        fits = _bitbully.fits(rules.width, rules.height, rules.entry_sides, rules.line_length)
        if engine == "bitbully" and not (fits and _bitbully.available()):
            raise PartitaError(
                "bitbully answers the 7x6 Connect Four board only, and only where it is "
                "installed (pip install 'partita[connect4]')"
            )
        if engine != "search" and fits and _bitbully.available():
            outside = _bitbully.BitBullyEngine()
            # Without its opening database bitbully's search is no faster than
            # partita's and ignores the budgets: keep to partita's then.
            if outside.has_database or engine == "bitbully":
                self.outside = outside
        #: What answers this solver's positions: ``"bitbully"`` or ``"search"``.
        self.engine = "bitbully" if self.outside is not None else "search"
        self.core: _Core
        symmetries = _symmetries(rules) if rules.entry_sides != "t" else None
        if use_native:
            self.core = _native.Search(
                rules.width, rules.height, rules.entry_sides, symmetries or [], table_size
            )
        elif rules.entry_sides == "t":
            self.core = TopEntrySearch(rules.width, rules.height, table_size=table_size)
        else:
            self.core = AnyEntrySearch(
                rules.width,
                rules.height,
                rules.entry_sides,
                symmetries=symmetries,
                table_size=table_size,
            )

    @property
    def table_size(self) -> int:
        return self.core.table_size

    @property
    def nodes(self) -> int:
        """Nodes searched by this solver so far (bitbully's included)."""
        return self.core.nodes + (self.outside.nodes if self.outside is not None else 0)

    def clear(self) -> None:
        """Forget every position (empty the transposition table)."""
        self.core.clear()

    # -- solving ---------------------------------------------------------------------------
    def score(
        self,
        state: GravityState,
        *,
        max_nodes: int | None = None,
        max_seconds: float | None = None,
    ) -> int:
        """The exact score of ``state`` for the side to move.

        ``BudgetExceeded`` if ``max_nodes`` nodes or ``max_seconds`` seconds are not
        enough (``None``: no limit).
        """
        outcome_score = self._terminal_score(state)
        if outcome_score is not None:
            return outcome_score
        if self.outside is not None:
            return self.outside.score(state.x, state.o)
        with self._budget(max_nodes, max_seconds):
            return self.core.score(state.x, state.o)

    def solve(
        self,
        state: GravityState,
        *,
        max_nodes: int | None = None,
        max_seconds: float | None = None,
    ) -> Solution:
        """The score of ``state`` and of each of its legal moves (budget as in
        :meth:`score`, for the whole call)."""
        start_nodes = self.nodes
        started = time.perf_counter()
        if self.outside is not None and self._terminal_score(state) is None:
            return self._solve_outside(state, started, start_nodes)
        rules = self.rules
        width = rules.width
        scores: dict[Any, int] = {}
        moves = [] if self._terminal_score(state) is not None else rules.legal_moves(state)
        landings = []
        for move in moves:
            child = rules.apply(state, move)
            landings.append(((child.x | child.o) ^ (state.x | state.o), child))
        # The likely best moves first (nearest the centre), so that a search that
        # runs out has solved them.
        centre_x, centre_y = (width - 1) / 2, (rules.height - 1) / 2

        def distance(index: int) -> float:
            cell = landings[index][0].bit_length() - 1
            return abs(cell % width - centre_x) + abs(cell // width - centre_y) / 2

        by_landing: dict[int, int] = {}
        limit = None if max_nodes is None else self.core.nodes + max_nodes
        deadline = None if max_seconds is None else time.perf_counter() + max_seconds
        self.core.set_budget(limit, deadline)
        try:
            for index in sorted(range(len(moves)), key=distance):
                move = moves[index]
                landing, child = landings[index]
                if landing not in by_landing:
                    child_score = self._terminal_score(child)
                    if child_score is None:
                        try:
                            child_score = self.core.score(child.x, child.o)
                        except SearchExhausted as error:
                            raise self._ran_out(
                                state, moves, scores, move, error, max_nodes, max_seconds
                            ) from None
                    by_landing[landing] = -child_score
                scores[move] = by_landing[landing]
        finally:
            self.core.set_budget(None, None)
        return self.solution(
            state,
            [(move, scores[move]) for move in moves],
            nodes=self.nodes - start_nodes,
            seconds=time.perf_counter() - started,
        )

    def _solve_outside(self, state: GravityState, started: float, start_nodes: int) -> Solution:
        """Every move's score from bitbully (7x6 Connect Four)."""
        assert self.outside is not None
        rules = self.rules
        by_column = self.outside.move_scores(state.x, state.o)
        scores = []
        for move in rules.legal_moves(state):
            child = rules.apply(state, move)
            landing = (child.x | child.o) ^ (state.x | state.o)
            column = (landing.bit_length() - 1) % rules.width
            child_score = self._terminal_score(child)
            scores.append((move, by_column[column] if child_score is None else -child_score))
        solution = self.solution(
            state, scores, nodes=self.nodes - start_nodes, seconds=time.perf_counter() - started
        )
        return replace(solution, engine=self.engine)

    def _ran_out(
        self,
        state: GravityState,
        moves: Sequence[Any],
        scores: dict[Any, int],
        current: Any,
        error: SearchExhausted,
        max_nodes: int | None,
        max_seconds: float | None,
    ) -> BudgetExceeded:
        """The error of a search that ran out, with what it found: the moves solved,
        bounds on the move it was solving, the best move so far."""
        from partita.game.registry import get_game

        notation = get_game(self.rules.name) if _has_game(self.rules.name) else None

        def token(move: Any) -> str:
            if notation is not None:
                try:
                    return str(notation.format_move(state, move))
                except Exception:  # pragma: no cover - a notation that cannot write it
                    pass
            return str(move)

        stones = (state.x | state.o).bit_count()
        # Every score the move could have (the board's bounds), from the mover's side.
        widest = (-((self.cells - stones) // 2), (self.cells - stones - 1) // 2)
        # What the search found of the child's score, from the mover's side: -high .. -low.
        if error.low is not None and error.high is not None:
            low, high = max(-error.high, widest[0]), min(-error.low, widest[1])
        else:
            low, high = widest
        narrowed = (low, high) != widest
        solved = {token(move): score for move, score in scores.items()}
        best_known = max(scores.values(), default=None)
        found: dict[str, Any] = {
            "solved": solved,
            "searching": {"move": token(current), "low": low, "high": high},
            "unsearched": [token(m) for m in moves if m not in scores and m != current],
        }
        parts = []
        if solved:
            parts.append(
                "solved: " + ", ".join(f"{move} {score:+d}" for move, score in solved.items())
            )
        if narrowed:
            parts.append(f"{token(current)} {_bounds_text(low, high)}")
        else:
            parts.append(f"{token(current)} not bounded yet (its search's first question open)")
        # The position scores at least its best move solved, or the lower bound of
        # the move being searched when that is higher.
        if best_known is None or low > best_known:
            best, position_low = ([token(current)] if narrowed else []), low
        else:
            best = [move for move, score in solved.items() if score == best_known]
            position_low = best_known
        if best:
            parts.append(f"best so far {' '.join(best)}")
        found["low"] = position_low if (narrowed or solved) else None
        found["best"] = best
        if error.reason == "time":
            what = f"the time budget of {max_seconds:g} s ran out"
        else:
            what = f"the budget of {max_nodes} nodes ran out"
        bound = (
            f" (the position scores at least {position_low:+d}{_value_word(position_low)})"
            if narrowed or solved
            else ""
        )
        message = f"{what} before the position was solved{bound}; " + "; ".join(parts)
        return BudgetExceeded(message, found=found, limit=error.reason)

    def solution(
        self,
        state: GravityState,
        scores: Sequence[tuple[Any, int]],
        *,
        nodes: int = 0,
        seconds: float = 0.0,
    ) -> Solution:
        """The :class:`Solution` of ``state`` from its legal moves' scores found
        elsewhere (an opening book), without searching: ``scores`` pairs each legal
        move (in the engine's order) with its score; a finished game needs none."""
        terminal = self._terminal_score(state)
        moves = () if terminal is not None else tuple(MoveScore(m, s) for m, s in scores)
        if terminal is None and not moves:
            raise ValueError("a position that is not over needs the scores of its moves")
        return Solution(
            score=terminal if terminal is not None else max(item.score for item in moves),
            moves=moves,
            stones=(state.x | state.o).bit_count(),
            cells=self.cells,
            nodes=nodes,
            seconds=seconds,
        )

    def _terminal_score(self, state: GravityState) -> int | None:
        """The score of a finished game for the side to move, ``None`` if not over."""
        outcome = self.rules.outcome(state)
        if outcome is None:
            return None
        if outcome.winner is None:
            return 0
        winner = outcome.winner
        winner_stones = (state.x if winner == 0 else state.o).bit_count()
        score = self.cells // 2 + 1 - winner_stones
        return score if winner == self.rules.side_to_move(state) else -score

    @contextmanager
    def _budget(self, max_nodes: int | None, max_seconds: float | None) -> Iterator[None]:
        """Set the core's limits for one call; running out becomes ``BudgetExceeded``."""
        core = self.core
        limit = None if max_nodes is None else core.nodes + max_nodes
        deadline = None if max_seconds is None else time.perf_counter() + max_seconds
        core.set_budget(limit, deadline)
        try:
            yield
        except SearchExhausted as error:
            what = (
                f"the time budget of {max_seconds:g} s"
                if error.reason == "time"
                else f"the budget of {max_nodes} nodes"
            )
            found: dict[str, Any] = {}
            bounds = ""
            if error.low is not None and error.high is not None:
                found = {"low": error.low, "high": error.high}
                bounds = f" (its score is {_bounds_text(error.low, error.high)})"
            raise BudgetExceeded(
                f"{what} ran out before the position was solved{bounds}",
                found=found,
                limit=error.reason,
            ) from None
        finally:
            core.set_budget(None, None)


def _has_game(name: str) -> bool:
    from partita.game.registry import get_spec

    try:
        get_spec(name)
    except Exception:
        return False
    return True


def _value_word(score: int) -> str:
    """What a lower bound on a score tells: a win, at least a draw, or nothing."""
    if score > 0:
        return ": a win"
    if score == 0:
        return ": at least a draw"
    return ""


def _bounds_text(low: int, high: int) -> str:
    """``between +1 and +18 (a win)``: a move's score as far as the search got."""
    if low == high:
        return f"{low:+d}"
    if low > 0:
        verdict = " (a win)"
    elif high < 0:
        verdict = " (a loss)"
    elif low == 0:
        verdict = " (at least a draw)"
    elif high == 0:
        verdict = " (at most a draw)"
    else:
        verdict = ""
    return f"between {low:+d} and {high:+d}{verdict}"


def _symmetries(rules: GravityRules) -> list[list[int]]:
    """Each symmetry of the board as a permutation of the engine's cell indices."""
    permutations = []
    for symmetry in range(rules.symmetry_count):
        images = []
        for bit in range(rules.width * rules.height):
            single = GravityState(1 << bit, 0, 0, 0)
            images.append(rules.transform(single, symmetry).x.bit_length() - 1)
        permutations.append(images)
    return permutations


def solve(
    game: Any,
    state: GravityState,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    table_size: int = DEFAULT_TABLE_SIZE,
    engine: str | None = None,
) -> Solution:
    """Solve one position of a gravity game with a fresh :class:`Solver`."""
    solver = Solver(game, table_size=table_size, engine=engine)
    return solver.solve(state, max_nodes=max_nodes, max_seconds=max_seconds)


if TYPE_CHECKING:  # mypy holds the solver to the framework's contract
    from partita.game.solver import BookableSolver, SolverFactory

    _FACTORY: SolverFactory = Solver
    _BOOKABLE: type[BookableSolver] = Solver
