"""Endgame graphs: every position reachable from one, solved backwards.

Generic over every two-sided game of the rules contract (:class:`Rules`): the
graph is built with the engines' trusted path (``legal_moves``, ``apply``,
``outcome``, ``key``, ``side_to_move``) and solved by retrograde analysis, from the
finished games back to the start: a position is won if some move leads to a
position lost for the side then to move, lost if every move leads to one won for
it, drawn otherwise (a draw at the end, or play that can go round for ever).
Distances count plies to the end under perfect play: the winner takes the shortest
way, the loser the longest. Turns need not alternate (passes, two turns in a row):
each position's result is for its own side to move.

Graphs are networkx ``DiGraph`` objects keyed by position key; their size is
bounded by ``max_positions``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import networkx as nx

from partita.errors import BudgetExceeded, PartitaError
from partita.games.base import CHANCE, Outcome, Rules

__all__ = [
    "DEFAULT_MAX_POSITIONS",
    "BudgetExceeded",
    "EndgameGraph",
    "build_graph",
    "endgame",
    "solve_graph",
]

#: Default bound of a graph, in positions (a position costs about 1.5 KB).
DEFAULT_MAX_POSITIONS = 100_000

WIN, DRAW, LOSS = "win", "draw", "loss"
_FLIP = {WIN: LOSS, LOSS: WIN, DRAW: DRAW}


def build_graph(
    rules: Rules,
    state: Any,
    *,
    max_positions: int = DEFAULT_MAX_POSITIONS,
    fold_symmetry: bool = False,
) -> nx.DiGraph:
    """The graph of every position reachable from ``state``.

    Nodes are position keys (``rules.canonical_key`` with ``fold_symmetry``, so that
    symmetric positions are one node) with attributes ``state`` (one state of that
    key), ``side`` (the side to move) and ``outcome`` (an
    :class:`~partita.games.base.Outcome` or ``None``); an edge holds ``moves``, the
    moves of its source position that lead to its target. The root's key is
    ``graph.graph["root"]``. ``BudgetExceeded`` past ``max_positions`` positions;
    ``PartitaError`` for a game that is not two-sided or has chance moves.
    """
    rules = getattr(rules, "rules", rules)
    key_of = rules.canonical_key if fold_symmetry else rules.key
    if rules.sides(state) != 2:
        raise PartitaError(
            f"endgame graphs are for two sides, and this {rules.name} game has {rules.sides(state)}"
        )
    graph: nx.DiGraph[Hashable] = nx.DiGraph(root=key_of(state), game=rules.name)
    root = graph.graph["root"]
    graph.add_node(root, **_node_data(rules, state))
    frontier = deque([(root, state)])
    while frontier:
        key, current = frontier.popleft()
        if graph.nodes[key]["outcome"] is not None:
            continue
        for move in rules.legal_moves(current):
            child = rules.apply(current, move)
            child_key = key_of(child)
            if child_key not in graph:
                if graph.number_of_nodes() >= max_positions:
                    raise BudgetExceeded(
                        f"the endgame has more than {max_positions} positions "
                        "(raise the limit of positions)"
                    )
                graph.add_node(child_key, **_node_data(rules, child))
                frontier.append((child_key, child))
            edge = graph.get_edge_data(key, child_key)
            if edge is None:
                graph.add_edge(key, child_key, moves=[move])
            else:
                edge["moves"].append(move)
    return graph


def _node_data(rules: Rules, state: Any) -> dict:
    side = rules.side_to_move(state)
    outcome = rules.outcome(state)
    if side == CHANCE and outcome is None:
        raise PartitaError("endgame graphs cannot follow chance moves (a shuffle, a reveal)")
    return {"state": state, "side": side, "outcome": outcome}


def _terminal_value(outcome: Outcome, side: int) -> str:
    own = outcome.scores[side]
    other = outcome.scores[1 - side]
    return WIN if own > other else LOSS if own < other else DRAW


def solve_graph(graph: nx.DiGraph) -> nx.DiGraph:
    """Retrograde analysis: set ``value`` (``"win"``, ``"draw"``, ``"loss"`` for the
    side to move) and ``distance`` (plies to the end under perfect play, ``None`` for
    a draw) on every node of a graph from :func:`build_graph`; return the graph.

    Positions are settled in order of distance, so the first winning move found is
    the quickest and the last losing one the slowest.
    """
    nodes = graph.nodes
    unsettled = {}
    has_draw = set()
    order: dict[Hashable, int] = {}
    queue: deque = deque()
    for key, data in nodes.items():
        outcome = data["outcome"]
        if outcome is not None:
            data["value"] = _terminal_value(outcome, data["side"])
            order[key] = 0
            queue.append(key)
        else:
            moves = graph.out_degree(key)
            if moves == 0:  # no move and no outcome: nothing can happen any more
                data["value"] = DRAW
                order[key] = 0
                queue.append(key)
            else:
                unsettled[key] = moves
    while queue:
        child = queue.popleft()
        child_data = nodes[child]
        distance = order[child] + 1
        for parent in graph.predecessors(child):
            if parent not in unsettled:
                continue
            parent_data = nodes[parent]
            value = child_data["value"]
            if child_data["side"] != parent_data["side"]:
                value = _FLIP[value]
            if value == WIN:
                parent_data["value"] = WIN
            else:
                if value == DRAW:
                    has_draw.add(parent)
                unsettled[parent] -= 1
                if unsettled[parent]:
                    continue
                parent_data["value"] = DRAW if parent in has_draw else LOSS
            del unsettled[parent]
            order[parent] = distance
            queue.append(parent)
    for key in unsettled:  # play can go round for ever: nobody can force an end
        nodes[key]["value"] = DRAW
    for key, data in nodes.items():
        data["distance"] = None if data["value"] == DRAW else order[key]
    graph.graph["solved"] = True
    return graph


@dataclass(slots=True)
class EndgameGraph:
    """A solved endgame graph with the questions one asks of it."""

    rules: Rules
    graph: nx.DiGraph

    @property
    def root(self) -> Hashable:
        return self.graph.graph["root"]

    def __len__(self) -> int:
        return self.graph.number_of_nodes()

    def result(self, key: Hashable | None = None) -> tuple[str, int | None]:
        """``(value, distance)`` of a position (the root by default)."""
        data = self.graph.nodes[self.root if key is None else key]
        return data["value"], data["distance"]

    def move_results(self, key: Hashable | None = None) -> list[tuple[Any, str, int | None]]:
        """Each legal move of a position with the result it leads to, for the side
        to move there: ``(move, value, plies to the end)``."""
        key = self.root if key is None else key
        side = self.graph.nodes[key]["side"]
        results = []
        for child in self.graph.successors(key):
            data = self.graph.nodes[child]
            value = data["value"] if data["side"] == side else _FLIP[data["value"]]
            distance = None if data["distance"] is None else data["distance"] + 1
            for move in self.graph.edges[key, child]["moves"]:
                results.append((move, value, distance))
        return results

    def best_moves(self, key: Hashable | None = None) -> list[Any]:
        """The moves that keep the position's result: the quickest wins, the slowest
        losses, every drawing move."""
        value, distance = self.result(key)
        return [
            move
            for move, move_value, move_distance in self.move_results(key)
            if move_value == value and move_distance == distance
        ]

    def principal_line(self, key: Hashable | None = None) -> list[Any]:
        """One line of perfect play from a position (the root by default) to the
        end, or, for a draw in a game that can go round, until a position repeats."""
        key = self.root if key is None else key
        line: list[Any] = []
        seen = {key}
        while True:
            best = self.best_moves(key)
            if not best:
                return line
            move = best[0]
            line.append(move)
            key = next(
                target
                for target in self.graph.successors(key)
                if move in self.graph.edges[key, target]["moves"]
            )
            if key in seen:
                return line
            seen.add(key)


def endgame(
    game: Any,
    state: Any,
    *,
    max_positions: int = DEFAULT_MAX_POSITIONS,
    fold_symmetry: bool = False,
) -> EndgameGraph:
    """Build and solve the endgame graph of ``state`` (see :func:`build_graph`)."""
    rules = getattr(game, "rules", game)
    graph = build_graph(rules, state, max_positions=max_positions, fold_symmetry=fold_symmetry)
    return EndgameGraph(rules, solve_graph(graph))
