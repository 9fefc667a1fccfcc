"""The opening tree as a value: games as the tree sees them, moves with their
statistics, and the pruned tree itself (its exports are in :mod:`.export`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from partita.game.configuration import Configuration
from partita.game.notation import GameNotation

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["GameLine", "MoveStats", "OpeningTree"]


@dataclass(slots=True)
class GameLine:
    """One game as the tree sees it: its mainline (canonical tokens), result and
    date, and its starting position (``None``: the game's initial position)."""

    id: int
    moves: str | list[str]
    result: str | None = None
    date: str | None = None
    date_min: str | None = None
    date_max: str | None = None
    start: Any = None

    def tokens(self) -> list[str]:
        return self.moves.split() if isinstance(self.moves, str) else list(self.moves)


@dataclass(slots=True)
class MoveStats:
    """One edge of the tree: a move from a position, and what became of the games
    that played it. ``won``, ``drawn`` and ``lost`` count games per side (seat 0
    first); ``unfinished`` counts games without a decided result (``*``);
    ``mover`` is the seat that made the move (``-1`` for a chance move)."""

    parent: Hashable
    child: Hashable
    move: str
    games: int
    share: float
    mover: int
    won: tuple[int, ...]
    drawn: tuple[int, ...]
    lost: tuple[int, ...]
    unfinished: int
    first_date: str | None
    last_date: str | None
    examples: tuple[int, ...]
    transpositions: int
    ply: int
    opening: str | None = None
    rating: float | None = None
    rating_games: int = 0
    performance: float | None = None
    performance_games: int = 0

    @property
    def score(self) -> float | None:
        """The mover's average score (win 1, draw 1/2) over decided games."""
        if self.mover < 0:
            return None
        won, drawn, lost = self.wdl
        decided = won + drawn + lost
        return (won + drawn / 2) / decided if decided else None

    @property
    def wdl(self) -> tuple[int, int, int]:
        """Wins, draws and losses of the side that made the move."""
        if self.mover < 0:
            return (0, 0, 0)
        return self.won[self.mover], self.drawn[self.mover], self.lost[self.mover]

    def as_dict(self, name: Callable[[Hashable], str] = str) -> dict:
        """The edge as JSON data; ``name`` turns node keys into position notation."""
        return {
            "from": name(self.parent),
            "to": name(self.child),
            "move": self.move,
            "ply": self.ply,
            "games": self.games,
            "share": round(self.share, 4),
            "mover": self.mover,
            "won": list(self.won),
            "drawn": list(self.drawn),
            "lost": list(self.lost),
            "unfinished": self.unfinished,
            "score": None if self.score is None else round(self.score, 4),
            "first_date": self.first_date,
            "last_date": self.last_date,
            "examples": list(self.examples),
            "transpositions": self.transpositions,
            "opening": self.opening,
            "rating": None if self.rating is None else round(self.rating, 1),
            "rating_games": self.rating_games,
            "performance": None if self.performance is None else round(self.performance, 1),
            "performance_games": self.performance_games,
        }


@dataclass(slots=True)
class OpeningTree:
    """The pruned opening tree. Nodes are position keys (canonical keys with
    ``symmetry``); a node's position notation (of its representative, the image
    with the smallest key) is :meth:`position`, and the exports name nodes by it.
    Edges are :class:`MoveStats`.

    :attr:`graph` is the tree as a networkx ``MultiDiGraph`` (two moves may lead
    from one position to the same one; the edge key is the move), nodes with
    ``games`` and ``ply`` attributes, edges with ``stats``: built on first use, so
    a tree that is only printed or exported never pays for it."""

    game: GameNotation
    root: Hashable
    symmetry: bool
    depth: int
    min_games: int
    games: int
    #: Per node: (ply from the root, games that reached it).
    nodes: dict[Hashable, tuple[int, int]] = field(default_factory=dict)
    #: Per node: its moves, most played first.
    out: dict[Hashable, list[MoveStats]] = field(default_factory=dict)
    #: The representative state of every node.
    states: dict[Hashable, Any] = field(default_factory=dict)
    #: Figures of the build: trie nodes, keys computed, seconds per phase.
    figures: dict = field(default_factory=dict)
    #: The set-up of the games (sides, game-specific tags), when built from an archive.
    configuration: Configuration | None = None
    _names: dict[Hashable, str] = field(default_factory=dict)
    _graph: nx.MultiDiGraph | None = None

    @property
    def graph(self) -> nx.MultiDiGraph:
        """The tree as a networkx graph (built once, on first use)."""
        if self._graph is None:
            import networkx as nx

            graph: nx.MultiDiGraph[Hashable] = nx.MultiDiGraph()
            graph.add_nodes_from(
                (node, {"ply": ply, "games": games}) for node, (ply, games) in self.nodes.items()
            )
            # types-networkx types add_edges_from as Graph's: no (u, v, key, data) edges.
            graph.add_edges_from(
                (stats.parent, stats.child, stats.move, {"stats": stats})  # type: ignore[misc]
                for stats in self.edges()
            )
            self._graph = graph
        return self._graph

    def edges(self) -> Iterator[MoveStats]:
        """Every move of the tree, position by position."""
        for moves in self.out.values():
            yield from moves

    @property
    def move_count(self) -> int:
        return sum(len(moves) for moves in self.out.values())

    def position(self, node: Hashable | None = None) -> str:
        """The position notation of ``node`` (the root by default)."""
        node = self.root if node is None else node
        name = self._names.get(node)
        if name is None:
            name = self._names[node] = self.game.format_position(self.states[node])
        return name

    def moves(self, node: Hashable | None = None) -> list[MoveStats]:
        """The moves from ``node`` (the root by default), most played first."""
        node = self.root if node is None else node
        return list(self.out.get(node, ()))

    def node_games(self, node: Hashable | None = None) -> int:
        """How many games of the selection reached ``node`` (the root by default)."""
        node = self.root if node is None else node
        found = self.nodes.get(node)
        return found[1] if found is not None else 0

    def walk(self, max_depth: int | None = None) -> Iterator[tuple[int, MoveStats]]:
        """Every edge depth first from the root, most played first, as
        ``(depth, stats)`` (depth 1 for the root's moves); each position is
        expanded once (a transposition reached again is not walked twice)."""
        seen = {self.root}
        stack: list[tuple[int, MoveStats]] = [(1, stats) for stats in reversed(self.moves())]
        while stack:
            level, stats = stack.pop()
            yield level, stats
            if stats.child in seen or (max_depth is not None and level >= max_depth):
                continue
            seen.add(stats.child)
            stack.extend((level + 1, child) for child in reversed(self.moves(stats.child)))

    def as_dict(self) -> dict:
        """The tree as JSON data: its parameters, nodes and edges."""
        from partita.analysis.tree.export import tree_as_dict

        return tree_as_dict(self)

    def to_json(self) -> str:
        from partita.analysis.tree.export import tree_to_json

        return tree_to_json(self)

    def to_dot(self) -> str:
        """The tree in Graphviz DOT (see :func:`~partita.analysis.tree.export.tree_to_dot`)."""
        from partita.analysis.tree.export import tree_to_dot

        return tree_to_dot(self)

    def write_dot(self, path: str | Path) -> None:
        from partita.outfiles import replaced_file

        with replaced_file(path) as stream:  # whole or not at all
            stream.write(self.to_dot())

    def to_graphml(self) -> str:
        """The tree in GraphML (see :func:`~partita.analysis.tree.export.write_graphml`)."""
        from partita.analysis.tree.export import tree_to_graphml

        return tree_to_graphml(self)

    def write_graphml(self, path: str | Path) -> None:
        """GraphML with scalar attributes (lists become space-separated text)."""
        from partita.analysis.tree.export import write_graphml

        write_graphml(self, path)
