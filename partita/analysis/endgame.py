"""Endgame graphs: every position reachable from one, solved backwards.

Generic over every two-sided game of the rules contract (:class:`Rules`): the
graph is built with the engines' trusted path (``legal_moves``, ``apply``,
``outcome``, ``side_to_move`` and ``endgame_key``) and solved by retrograde
analysis, from the finished games back to the start: a position is won if some
move leads to a position lost for the side then to move, lost if every move leads
to one won for it, drawn otherwise (a draw at the end, or play that can go round for
ever). Distances count plies to the end under perfect play: the winner takes the
shortest way, the loser the longest. Turns need not alternate (passes, two turns in
a row): each position's value is for its own side to move.

The graph is kept in flat arrays, so that millions of positions fit in memory
(about 100 bytes a position with a game's int keys, see ``docs/analysis.md``):

* an index from position key to node number: open addressing over an
  ``array('q')`` of keys and an ``array('i')`` of numbers while the keys are ints
  below 2**63, a dict otherwise;
* one byte of value and four of distance per node;
* the successors of every node in one ``array('i')`` (the child's number times two,
  plus one when the child's side to move is not the parent's), with an
  ``array('q')`` of offsets; the solve adds the predecessors the same way.

States are not kept: a position is looked up by its key, and the questions asked of
a solved graph (the moves' results, the best line, the pruned graph shown or
exported with networkx) replay the moves from a state the caller has. Positions
whose keys are equal share a node (``Rules.endgame_key``: what no longer changes
the future is left out, and ``fold_symmetry`` folds symmetric positions), so a
node's value holds for every position of its key.

With ``partial=True`` a graph larger than ``max_positions`` is not refused: the
positions nearest the start are explored (breadth first), and what they prove is
proven: a win, a loss or a draw there is exact, its distance an upper bound (the
winner can force the end within it); the other positions are ``unknown``.
"""

from __future__ import annotations

import time
from array import array
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any

from partita.errors import BudgetExceeded, PartitaError
from partita.game.rules import CHANCE, Outcome, Rules

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "DEFAULT_MAX_POSITIONS",
    "DRAW",
    "FIRST_STAGE",
    "LOSS",
    "UNKNOWN",
    "WIN",
    "BudgetExceeded",
    "SOLVER_NODES",
    "EndgameGraph",
    "answer_endgame",
    "build_graph",
    "endgame",
    "solver_result",
    "grow_graph",
    "solve_graph",
]

#: Default bound of a graph, in positions.
DEFAULT_MAX_POSITIONS = 1_000_000
#: The first stage of a graph grown until its root is proven (``until_proven``).
FIRST_STAGE = 10_000
#: Nodes the exact solver may search for :func:`answer_endgame` (a few seconds compiled).
SOLVER_NODES = 50_000_000

WIN, DRAW, LOSS, UNKNOWN = "win", "draw", "loss", "unknown"
_FLIP = {WIN: LOSS, LOSS: WIN, DRAW: DRAW, UNKNOWN: UNKNOWN}

# Value codes of the value array: open (not settled), then the settled values.
_OPEN, _WIN, _LOSS, _DRAW = 0, 1, 2, 3
_FLIPPED = (_OPEN, _LOSS, _WIN, _DRAW)
_VALUE_NAMES = (UNKNOWN, WIN, LOSS, DRAW)
#: Positions explored between two looks at the clock and two progress reports.
_REPORT_EVERY = 4096

_INT64 = 1 << 63
_GOLDEN = 0x9E3779B97F4A7C15  # Fibonacci hashing: spreads keys whose low bits repeat
_MASK64 = (1 << 64) - 1


class _KeyIndex:
    """Position key -> node number.

    While every key is an int in [0, 2**63), an open-addressing table over two
    arrays (a key and a number per slot, at most 2/3 full): 16 to 36 bytes a
    position, and no Python object per position. The first other key turns it into
    a dict (a game whose keys are bytes or tuples, or ints too large).
    """

    __slots__ = ("_dict", "_keys", "_numbers", "_shift", "_mask", "_count")

    def __init__(self) -> None:
        self._dict: dict[Hashable, int] | None = None
        self._count = 0
        self._allocate(10)

    def _allocate(self, bits: int) -> None:
        size = 1 << bits
        self._keys = array("q", bytes(8 * size))
        self._numbers = array("i", [-1]) * size
        self._shift = 64 - bits
        self._mask = size - 1

    def __len__(self) -> int:
        return self._count if self._dict is None else len(self._dict)

    def number(self, key: Hashable, new: int) -> int:
        """The number of ``key``; a key not yet known is given ``new``."""
        table = self._dict
        if table is not None:
            return table.setdefault(key, new)
        if type(key) is not int or not 0 <= key < _INT64:
            return self._to_dict().setdefault(key, new)
        numbers, keys, mask = self._numbers, self._keys, self._mask
        slot = (key * _GOLDEN & _MASK64) >> self._shift
        while True:
            found = numbers[slot]
            if found < 0:
                break
            if keys[slot] == key:
                return found
            slot = (slot + 1) & mask
        keys[slot] = key
        numbers[slot] = new
        self._count += 1
        if 3 * self._count > 2 * (mask + 1):
            self._grow()
        return new

    def get(self, key: Hashable) -> int:
        """The number of ``key``, -1 for a key not in the graph."""
        table = self._dict
        if table is not None:
            return table.get(key, -1)
        if type(key) is not int or not 0 <= key < _INT64:
            return -1
        numbers, keys, mask = self._numbers, self._keys, self._mask
        slot = (key * _GOLDEN & _MASK64) >> self._shift
        while True:
            found = numbers[slot]
            if found < 0 or keys[slot] == key:
                return found
            slot = (slot + 1) & mask

    def items(self) -> Iterator[tuple[Hashable, int]]:
        if self._dict is not None:
            yield from self._dict.items()
            return
        for key, number in zip(self._keys, self._numbers, strict=True):
            if number >= 0:
                yield key, number

    def _grow(self) -> None:
        """Twice the slots; the keys are placed again straight from the old arrays."""
        old_keys, old_numbers = self._keys, self._numbers
        self._allocate(64 - self._shift + 1)
        keys, numbers, mask, shift = self._keys, self._numbers, self._mask, self._shift
        for key, number in zip(old_keys, old_numbers, strict=True):
            if number < 0:
                continue
            slot = (key * _GOLDEN & _MASK64) >> shift
            while numbers[slot] >= 0:
                slot = (slot + 1) & mask
            keys[slot] = key
            numbers[slot] = number

    def _to_dict(self) -> dict[Hashable, int]:
        self._dict = dict(self.items())
        self._keys = array("q")
        self._numbers = array("i")
        return self._dict

    def nbytes(self) -> int:
        """The memory of the arrays (the dict's is not counted here)."""
        return self._keys.itemsize * len(self._keys) + self._numbers.itemsize * len(self._numbers)


def _rank(value: str, distance: int | None) -> tuple[int, int]:
    """Best first, for the side to move: the quickest wins, draws, unknown, the
    slowest losses."""
    order = {WIN: 0, DRAW: 1, UNKNOWN: 2, LOSS: 3}[value]
    plies = distance or 0
    return order, plies if value == WIN else -plies


def _terminal_value(outcome: Outcome, side: int) -> int:
    own = outcome.scores[side]
    other = outcome.scores[1 - side]
    return _WIN if own > other else _LOSS if own < other else _DRAW


class EndgameGraph:
    """The positions reachable from a root, in flat arrays (see the module
    docstring), and once solved the questions one asks of them.

    Nodes are numbered from 0 (the root) in the order they were found, breadth
    first; nodes below :attr:`expanded` have their successors. ``values`` holds a
    code per node, ``distances`` the plies to the end (-1: none).
    """

    def __init__(self, rules: Rules[Any, Any], root: Any, fold_symmetry: bool) -> None:
        self.rules = rules
        #: The state the graph was built from.
        self.root = root
        self.fold_symmetry = fold_symmetry
        self.index = _KeyIndex()
        #: The code each node had when found: its value if the game was over there
        #: (or nothing could happen any more), else open.
        self.start = array("b")
        #: Once solved: each node's value code and distance.
        self.values = array("b")
        self.distances = array("i")
        self.offsets = array("q", [0])
        self.targets = array("i")
        #: How many nodes (from 0) have their successors.
        self.expanded = 0
        #: Whether every reachable position is in the graph.
        self.complete = False
        self.solved = False
        #: Seconds spent building and solving.
        self.seconds = 0.0
        #: The open nodes not yet expanded, in the order found: their keys where the
        #: game can make a state from a key (``Rules.endgame_state``), else states.
        self._frontier: deque[Any] = deque()
        self._keys_wait = False

    def key(self, state: Any) -> Hashable:
        return self.rules.endgame_key(state, self.fold_symmetry)

    def __len__(self) -> int:
        return len(self.start)

    @property
    def edges(self) -> int:
        return len(self.targets)

    def nbytes(self) -> int:
        """The memory of the graph's arrays, in bytes."""
        arrays = (self.start, self.values, self.distances, self.offsets, self.targets)
        return self.index.nbytes() + sum(item.itemsize * len(item) for item in arrays)

    # -- lookups ------------------------------------------------------------------------
    def node(self, state: Any) -> int:
        """The node of ``state``; ``PartitaError`` for a position not in the graph."""
        number = self.index.get(self.key(state))
        if number < 0:
            raise PartitaError("this position is not in the endgame graph")
        return number

    def _require_solved(self) -> None:
        if not self.solved:
            raise PartitaError("the endgame graph is not solved yet (solve_graph)")

    def value_of(self, number: int) -> tuple[str, int | None]:
        """``(value, distance)`` of a node, for its side to move."""
        self._require_solved()
        distance = self.distances[number]
        return _VALUE_NAMES[self.values[number]], None if distance < 0 else distance

    def result(self, state: Any = None) -> tuple[str, int | None]:
        """``(value, distance)`` of a position (the root by default), for the side to
        move: ``win``, ``draw``, ``loss`` or ``unknown`` (a partial graph), and the
        plies to the end under perfect play (``None`` for a draw or unknown)."""
        return self.value_of(self.node(self.root if state is None else state))

    def move_results(self, state: Any = None) -> list[tuple[Any, str, int | None]]:
        """Each legal move of a position (the root by default) with the result it
        leads to, for the side to move there: ``(move, value, plies to the end)``."""
        self._require_solved()
        rules = self.rules
        state = self.root if state is None else state
        side = rules.side_to_move(state)
        results: list[tuple[Any, str, int | None]] = []
        for move in rules.legal_moves(state):
            child = rules.apply(state, move)
            number = self.index.get(self.key(child))
            if number < 0:  # beyond a partial graph's frontier
                results.append((move, UNKNOWN, None))
                continue
            value, distance = self.value_of(number)
            if rules.side_to_move(child) != side:
                value = _FLIP[value]
            results.append((move, value, None if distance is None else distance + 1))
        return results

    def best_moves(self, state: Any = None) -> list[Any]:
        """The moves that keep the position's result: the quickest wins, the slowest
        losses, every drawing move (none for an unknown position)."""
        value, distance = self.result(state)
        if value == UNKNOWN:
            return []
        return [
            move
            for move, move_value, move_distance in self.move_results(state)
            if move_value == value and move_distance == distance
        ]

    def principal_line(self, state: Any = None) -> list[Any]:
        """One line of perfect play from a position (the root by default) to the
        end, or, for a draw in a game that can go round, until a position repeats."""
        rules = self.rules
        state = self.root if state is None else state
        line: list[Any] = []
        seen = {self.key(state)}
        while True:
            best = self.best_moves(state)
            if not best:
                return line
            move = best[0]
            line.append(move)
            state = rules.apply(state, move)
            key = self.key(state)
            if key in seen:
                return line
            seen.add(key)

    # -- what is shown and exported ---------------------------------------------------------
    def as_dict(self, game: Any, state: Any = None) -> dict[str, Any]:
        """What `partita endgame --json` prints for a position (the root by default):
        ``position``, ``side_to_move`` (the seat, from 1), ``outcome`` (how the game
        ended, or ``None``), ``value``, ``distance`` (plies; ``None`` for a draw),
        ``exact`` (the distances are exact: the whole endgame was explored; else they
        are upper bounds), ``best`` and ``line`` (move tokens), ``moves`` (each legal
        move's ``value`` and ``distance`` for the side to move), and what the graph
        holds: ``positions``, ``edges``, ``complete``, ``fold_symmetry``, ``bytes``,
        ``seconds``."""
        rules = self.rules
        state = self.root if state is None else state
        value, distance = self.result(state)
        outcome = rules.outcome(state)
        line = []
        current = state
        for move in self.principal_line(state):
            line.append(game.format_move(current, move))
            current = rules.apply(current, move)
        return {
            "game": game.name,
            "position": game.format_position(state),
            "side_to_move": rules.side_to_move(state) + 1,
            "outcome": None if outcome is None else outcome.reason,
            "value": value,
            "distance": distance,
            "exact": self.complete,
            "best": [game.format_move(state, move) for move in self.best_moves(state)],
            "line": line,
            "moves": [
                {"move": game.format_move(state, move), "value": move_value, "distance": plies}
                for move, move_value, plies in sorted(
                    self.move_results(state), key=lambda item: _rank(item[1], item[2])
                )
            ],
            "positions": len(self),
            "edges": self.edges,
            "complete": self.complete,
            "fold_symmetry": self.fold_symmetry,
            "bytes": self.nbytes(),
            "seconds": round(self.seconds, 3),
        }

    def pruned_graph(self, game: Any = None, state: Any = None) -> nx.DiGraph[str]:
        """The part of the graph worth showing, as a networkx ``DiGraph``: the
        principal line from a position (the root by default) and every move of each
        of its positions. Nodes are named ``p0``, ``p1``... along the way and carry
        ``position`` (in the game's position notation, if ``game`` is given),
        ``side``, ``value``, ``distance`` (-1: none) and ``line`` (on the principal
        line); edges carry ``move``, ``value`` and ``distance`` for the mover and
        ``best``."""
        import networkx as nx

        rules = self.rules
        state = self.root if state is None else state
        graph: nx.DiGraph[str] = nx.DiGraph(game=rules.name)
        names: dict[int, str] = {}

        def add(position: Any, on_line: bool) -> str:
            number = self.node(position)
            name = names.get(number)
            if name is None:
                name = names[number] = f"p{len(names)}"
                value, distance = self.value_of(number)
                text = game.format_position(position) if game is not None else str(number)
                graph.add_node(
                    name,
                    position=text,
                    side=rules.side_to_move(position) + 1,
                    value=value,
                    distance=-1 if distance is None else distance,
                    line=on_line,
                )
            elif on_line:
                graph.nodes[name]["line"] = True
            return name

        line = self.principal_line(state)
        current = state
        for step in range(len(line) + 1):
            here = add(current, True)
            if rules.outcome(current) is not None:
                break
            chosen = line[step] if step < len(line) else None
            best = set(self.best_moves(current))
            for move, value, distance in self.move_results(current):
                child = rules.apply(current, move)
                if self.index.get(self.key(child)) < 0:
                    continue
                there = add(child, move == chosen)
                token = game.format_move(current, move) if game is not None else str(move)
                graph.add_edge(
                    here,
                    there,
                    move=token,
                    value=value,
                    distance=-1 if distance is None else distance,
                    best=move in best,
                )
            if chosen is None:
                break
            current = rules.apply(current, chosen)
        return graph


def build_graph(
    rules: Any,
    state: Any,
    *,
    max_positions: int = DEFAULT_MAX_POSITIONS,
    fold_symmetry: bool = False,
    partial: bool = False,
    max_seconds: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> EndgameGraph:
    """The graph of every position reachable from ``state``, not yet solved.

    Explored breadth first with the engine's trusted path; positions of equal
    ``rules.endgame_key(state, fold_symmetry)`` are one node. Past ``max_positions``
    positions or ``max_seconds`` seconds: ``BudgetExceeded``, or with ``partial`` the
    graph as far as it got (its positions nearest the root), which
    :func:`grow_graph` can take further. ``progress(positions, expanded)`` is called
    every few thousand positions. ``PartitaError`` for a game that is not two-sided
    or has chance moves.
    """
    rules = getattr(rules, "rules", rules)
    if rules.sides(state) != 2:
        raise PartitaError(
            f"endgame graphs are for two sides, and this {rules.name} game has {rules.sides(state)}"
        )
    graph = EndgameGraph(rules, state, fold_symmetry)
    key = graph.key(state)
    graph.index.number(key, 0)
    # The root waits as its state; the others as keys where the game can turn a key
    # back into a state (a few bytes instead of a board each).
    graph._keys_wait = rules.endgame_state(key, state) is not None
    if _classify(graph, state):
        graph._frontier.append(state)
    return grow_graph(
        graph,
        max_positions=max_positions,
        partial=partial,
        max_seconds=max_seconds,
        progress=progress,
    )


def _classify(graph: EndgameGraph, position: Any) -> bool:
    """Append a new node's starting code; whether it is open (to be expanded)."""
    rules = graph.rules
    outcome = rules.outcome(position)
    if outcome is not None:
        graph.start.append(_terminal_value(outcome, rules.side_to_move(position)))
        return False
    if rules.side_to_move(position) == CHANCE:
        raise PartitaError("endgame graphs cannot follow chance moves (a shuffle, a reveal)")
    graph.start.append(_OPEN)
    return True


def grow_graph(
    graph: EndgameGraph,
    *,
    max_positions: int = DEFAULT_MAX_POSITIONS,
    partial: bool = False,
    max_seconds: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> EndgameGraph:
    """Explore a graph from :func:`build_graph` further, breadth first, until it is
    complete or holds more than ``max_positions`` positions (``BudgetExceeded``
    unless ``partial``); return it, to be solved again."""
    started = time.perf_counter()
    rules = graph.rules
    fold = graph.fold_symmetry
    key_of = rules.endgame_key
    side_to_move, legal_moves, apply_move = rules.side_to_move, rules.legal_moves, rules.apply
    number_of = graph.index.number
    start, offsets, targets = graph.start, graph.offsets, graph.targets
    frontier = graph._frontier
    keys_wait = graph._keys_wait
    decode, root = rules.endgame_state, graph.root
    expanding = graph.expanded  # nodes are expanded in the order they were found
    while frontier:
        if len(start) > max_positions:
            if not partial:
                raise BudgetExceeded(
                    f"the endgame has more than {max_positions} positions "
                    "(raise the limit of positions)"
                )
            break
        if expanding % _REPORT_EVERY == 0 and expanding:
            if progress is not None:
                progress(len(start), expanding)
            if max_seconds is not None and time.perf_counter() - started > max_seconds:
                if not partial:
                    raise BudgetExceeded(
                        f"the endgame took more than {max_seconds:g} s "
                        f"({len(start)} positions so far; raise the time limit)"
                    )
                break
        # Terminal nodes are never expanded, so the next open node in order is the
        # frontier's first; the settled ones before it get empty rows.
        while start[expanding] != _OPEN:
            offsets.append(len(targets))
            expanding += 1
        current = frontier.popleft()
        if keys_wait and expanding:
            current = decode(current, root)
        side = side_to_move(current)
        moves = legal_moves(current)
        if not moves:  # no move and no outcome: nothing can happen any more
            start[expanding] = _DRAW
        for move in moves:
            child = apply_move(current, move)
            new = len(start)
            child_key = key_of(child, fold)
            number = number_of(child_key, new)
            if number == new and _classify(graph, child):
                frontier.append(child_key if keys_wait else child)
            targets.append(number << 1 | (side_to_move(child) != side))
        offsets.append(len(targets))
        expanding += 1
    graph.complete = not frontier
    graph.expanded = expanding
    graph.solved = False
    graph.seconds += time.perf_counter() - started
    if progress is not None:
        progress(len(start), expanding)
    return graph


def solve_graph(graph: EndgameGraph) -> EndgameGraph:
    """Retrograde analysis: settle every node of a graph from :func:`build_graph`
    (its value for the side to move and its distance to the end); return it.

    Positions are settled in order of distance from the end, so the first winning
    move found is the quickest and the last losing one the slowest. Positions never
    settled are draws in a complete graph (play can go round for ever: nobody can
    force an end) and unknown in a partial one.
    """
    started = time.perf_counter()
    offsets, targets = graph.offsets, graph.targets
    values = array("b", graph.start)
    count = len(values)
    distances = array("i", [-1]) * count
    for number in range(count):
        if values[number] != _OPEN:
            distances[number] = 0
    expanded = graph.expanded
    # Moves still to be settled, for every expanded open node.
    remaining = array("i", bytes(4 * count))
    for number in range(expanded):
        remaining[number] = offsets[number + 1] - offsets[number]
    # Predecessors, grouped by child, in one flat array (a counting sort).
    starts = array("q", bytes(8 * (count + 1)))
    for target in targets:
        starts[(target >> 1) + 1] += 1
    for number in range(count):
        starts[number + 1] += starts[number]
    fill = array("q", starts)
    parents = array("i", bytes(4 * len(targets)))
    for parent in range(expanded):
        for position in range(offsets[parent], offsets[parent + 1]):
            target = targets[position]
            child = target >> 1
            parents[fill[child]] = parent << 1 | (target & 1)
            fill[child] += 1
    del fill
    queue = array("i", [number for number in range(count) if values[number] != _OPEN])
    has_draw = bytearray(count)
    head = 0
    while head < len(queue):
        child = queue[head]
        head += 1
        child_value = values[child]
        distance = distances[child] + 1
        for position in range(starts[child], starts[child + 1]):
            entry = parents[position]
            parent = entry >> 1
            if values[parent] != _OPEN:
                continue
            value = _FLIPPED[child_value] if entry & 1 else child_value
            if value == _WIN:
                values[parent] = _WIN
            else:
                if value == _DRAW:
                    has_draw[parent] = 1
                remaining[parent] -= 1
                if remaining[parent]:
                    continue
                values[parent] = _DRAW if has_draw[parent] else _LOSS
            distances[parent] = distance
            queue.append(parent)
    for number in range(count):
        value = values[number]
        if value == _DRAW:
            distances[number] = -1
        elif value == _OPEN and graph.complete:
            values[number] = _DRAW
    graph.values, graph.distances = values, distances
    graph.solved = True
    graph.seconds += time.perf_counter() - started
    return graph


def endgame(
    game: Any,
    state: Any,
    *,
    max_positions: int = DEFAULT_MAX_POSITIONS,
    fold_symmetry: bool = False,
    partial: bool = False,
    until_proven: bool = False,
    max_seconds: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> EndgameGraph:
    """Build and solve the endgame graph of ``state`` (see :func:`build_graph`).

    With ``partial`` and ``until_proven``, the graph grows in stages (from
    :data:`FIRST_STAGE` positions, four times more each time, up to
    ``max_positions``), solved after each, and stops once its root is proven: a
    quick answer where a short forced end exists, at the cost of distances that
    the positions not explored might shorten.
    """
    rules = getattr(game, "rules", game)
    started = time.perf_counter()
    budget = min(FIRST_STAGE, max_positions) if partial and until_proven else max_positions
    graph = build_graph(
        rules,
        state,
        max_positions=budget,
        fold_symmetry=fold_symmetry,
        partial=partial,
        max_seconds=max_seconds,
        progress=progress,
    )
    solve_graph(graph)
    while not graph.complete and budget < max_positions and graph.values[0] == _OPEN:
        left = None if max_seconds is None else max_seconds - (time.perf_counter() - started)
        if left is not None and left <= 0:
            break
        budget = min(4 * budget, max_positions)
        grow_graph(graph, max_positions=budget, partial=True, max_seconds=left, progress=progress)
        solve_graph(graph)
    return graph


def answer_endgame(
    game: Any,
    state: Any,
    *,
    max_positions: int = DEFAULT_MAX_POSITIONS,
    fold_symmetry: bool = True,
    whole: bool = False,
    max_seconds: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, Any], EndgameGraph, bool]:
    """The endgame of ``state`` answered the quickest sure way: ``(answer, graph,
    solver_tried)``, the answer as :meth:`EndgameGraph.as_dict` gives it (value
    ``unknown`` when nothing proved it), the last graph explored and whether the
    exact solver was asked.

    ``whole``: the whole graph or no answer (exact distances). Otherwise the graph
    grows until its root is proven; for a game with an exact solver, a position
    that the graph's first stage (:data:`FIRST_STAGE` positions) does not prove is
    answered by the solver (exact distances, ``answered_by`` ``solver``, within
    :data:`SOLVER_NODES` and what is left of ``max_seconds``), and only past its
    budget does the graph grow on to ``max_positions``.
    """
    from partita.analysis.solving import has_solver

    exact_solver = not whole and has_solver(game)
    options: dict[str, Any] = dict(
        fold_symmetry=fold_symmetry,
        partial=not whole,
        until_proven=not whole,
        max_seconds=max_seconds,
        progress=progress,
    )
    first = min(FIRST_STAGE, max_positions) if exact_solver else max_positions
    graph = endgame(game, state, max_positions=first, **options)
    answer = graph.as_dict(game, state)
    if answer["value"] != UNKNOWN or not exact_solver:
        return answer, graph, False
    left = None if max_seconds is None else max(0.1, max_seconds - graph.seconds)
    try:
        return solver_result(game, state, max_nodes=SOLVER_NODES, max_seconds=left), graph, True
    except BudgetExceeded:
        pass
    graph = endgame(game, state, max_positions=max_positions, **options)
    return graph.as_dict(game, state), graph, True


def solver_result(
    game: Any,
    state: Any,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
) -> dict[str, Any]:
    """What :meth:`EndgameGraph.as_dict` gives, found by the game's exact solver
    (:func:`partita.analysis.solving.solver_for`) instead of a graph: the value,
    the plies to the end under perfect play (exact: the solver's scores count
    them), the best moves, a best line and every move's result. For a game whose
    turns alternate (every game with an exact solver in partita). ``BudgetExceeded``
    (with what was found) when the budget runs out first; ``PartitaError`` for a
    game without a solver."""
    from partita.analysis.solving import solver_for

    started = time.perf_counter()
    deadline = None if max_seconds is None else started + max_seconds
    solver = solver_for(game)
    rules = game.rules

    def left() -> float | None:
        return None if deadline is None else max(0.0, deadline - time.perf_counter())

    def plies(solution: Any, score: int) -> int | None:
        own = solution.own_moves(score)
        if own is None:
            return None
        return 2 * own - 1 if score > 0 else 2 * own

    def value_of(score: int) -> str:
        return WIN if score > 0 else LOSS if score < 0 else DRAW

    nodes = 0
    solution = solver.solve(state, max_nodes=max_nodes, max_seconds=left())
    nodes += solution.nodes
    outcome = rules.outcome(state)
    moves = [
        {
            "move": game.format_move(state, item.move),
            "value": value_of(item.score),
            "distance": plies(solution, item.score),
        }
        for item in solution.moves
    ]
    moves.sort(key=lambda item: _rank(item["value"], item["distance"]))
    # A best line: the first best move, position after position, to the end.
    line: list[str] = []
    current, step = state, solution
    while rules.outcome(current) is None and step.best:
        move = step.best[0]
        line.append(game.format_move(current, move))
        current = rules.apply(current, move)
        if rules.outcome(current) is not None:
            break
        step = solver.solve(current, max_nodes=max_nodes, max_seconds=left())
        nodes += step.nodes
    return {
        "game": game.name,
        "position": game.format_position(state),
        "side_to_move": rules.side_to_move(state) + 1,
        "outcome": None if outcome is None else outcome.reason,
        "value": value_of(solution.score) if outcome is None else None,
        "distance": plies(solution, solution.score) if outcome is None else None,
        "exact": True,
        "best": [game.format_move(state, move) for move in solution.best],
        "line": line,
        "moves": moves,
        "answered_by": "solver",
        "engine": getattr(solution, "engine", "search"),
        "nodes": nodes,
        "positions": 0,
        "edges": 0,
        "complete": False,
        "fold_symmetry": False,
        "bytes": 0,
        "seconds": round(time.perf_counter() - started, 3),
    }
