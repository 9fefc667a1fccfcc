"""Opening trees: which moves were played from a position, how often, how they scored.

Nodes are positions (position keys, so transpositions merge; with ``symmetry``
positions equal under a symmetry of the board merge too, and moves are mapped by
the same symmetry), edges are moves. Each edge carries the games that played it,
the results per side (won, drawn, lost), the score of the side that moved, the
first and last date, example game ids, and the games that reached the same
position by another move order (transpositions).

How it is built (and why: a networkx graph of every position of 10,000 games
costs seconds and hundreds of MB, plain structures a fraction of that):

1. the games' mainlines (the archive's ``moves`` column, canonical tokens) are
   walked into a prefix trie with the rules' trusted path (``apply``), to ``depth``
   plies after the root; shared prefixes are replayed once; each trie node keeps
   its state, its plain position key and its game count;
2. the tree grows level by level from the root, keeping only edges played by at
   least ``min_games`` games; a position's games are those of every trie node
   whose key is the position's (or, with ``symmetry``, one of its images), so
   transpositions count even through pruned lines; canonical keys are computed
   only for the positions that are kept and their children, with caching, and
   (placement boards) from the parent's images plus the placed piece's;
3. results, dates and examples are gathered for the kept edges only, and only
   the pruned graph is handed to networkx.
"""

from __future__ import annotations

import gc
import heapq
import json
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from partita.errors import PartitaError
from partita.games.base import CHANCE, DRAW, WIN, parse_result_token
from partita.games.registry import get_game
from partita.notation.base import GameNotation
from partita.notation.configuration import Configuration, varying_settings

__all__ = [
    "GameLine",
    "MoveStats",
    "OpeningTree",
    "build_tree",
    "choose_configuration",
    "configurations_from_archive",
    "default_min_games",
    "lines_from_archive",
    "lines_from_records",
    "move_reader",
    "tree_from_archive",
]

#: How many example game ids an edge keeps (the latest games first).
EXAMPLES = 3
#: The default threshold grows by one game per this many games of the selection.
GAMES_PER_MIN_GAME = 20_000


def default_min_games(games: int) -> int:
    """The default ``min_games`` for a selection of ``games`` games: 1 up to
    20,000 games, then one more per 20,000 (5 for 100,000). Every move of a club's
    archive is shown; a big archive's tree leaves out the lines of a game or two,
    which would otherwise make most of its positions (for 100,000 games of an 8x8
    board game, 290,000 positions at depth 8, of which 250,000 are reached by one game)."""
    return max(1, -(-games // GAMES_PER_MIN_GAME))


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
            graph = nx.MultiDiGraph()
            graph.add_nodes_from(
                (node, {"ply": ply, "games": games}) for node, (ply, games) in self.nodes.items()
            )
            graph.add_edges_from(
                (stats.parent, stats.child, stats.move, {"stats": stats}) for stats in self.edges()
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
        name = self.position
        edges = sorted(
            self.edges(),
            key=lambda stats: (stats.ply, -stats.games, name(stats.parent), stats.move),
        )
        return {
            "game": self.game.name,
            "configuration": (
                None
                if self.configuration is None
                else {"sides": self.configuration.sides, **self.configuration.tags()}
            ),
            "root": name(self.root),
            "symmetry": self.symmetry,
            "depth": self.depth,
            "min_games": self.min_games,
            "games": self.games,
            "nodes": [
                {"position": name(node), "ply": ply, "games": games}
                for node, (ply, games) in sorted(
                    self.nodes.items(), key=lambda item: (item[1][0], name(item[0]))
                )
            ],
            "edges": [stats.as_dict(name) for stats in edges],
        }

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), ensure_ascii=False, indent=2)

    def to_dot(self) -> str:
        """The tree in Graphviz DOT (no pydot needed): nodes labelled with their
        games, edges with the move, games and score."""
        lines = ["digraph opening_tree {", "  node [shape=box, fontname=monospace];"]
        names = {node: f"n{index}" for index, node in enumerate(self.nodes)}
        for node, (_ply, games) in self.nodes.items():
            label = f"{self.position(node)}\\n{games} games"
            lines.append(f"  {names[node]} [label={_dot_quote(label)}];")
        for stats in self.edges():
            score = "" if stats.score is None else f" {stats.score:.0%}"
            label = f"{stats.move} ({stats.games}{score})"
            lines.append(
                f"  {names[stats.parent]} -> {names[stats.child]} [label={_dot_quote(label)}];"
            )
        lines.append("}")
        return "\n".join(lines) + "\n"

    def write_dot(self, path: str | Path) -> None:
        Path(path).write_text(self.to_dot(), encoding="utf-8")

    def write_graphml(self, path: str | Path) -> None:
        """GraphML with scalar attributes (lists become space-separated text)."""
        flat = nx.MultiDiGraph()
        name = self.position
        for node, (ply, games) in self.nodes.items():
            flat.add_node(name(node), games=games, ply=ply)
        for edge in self.edges():
            stats = edge.as_dict(name)
            attributes = {}
            for field_name, value in stats.items():
                if field_name in ("from", "to"):
                    continue
                if isinstance(value, list):
                    value = " ".join(str(item) for item in value)
                if value is None:
                    value = ""
                attributes[field_name] = value
            flat.add_edge(stats["from"], stats["to"], key=stats["move"], **attributes)
        nx.write_graphml(flat, str(path))


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\\\\n", "\\n") + '"'


# -- reading the games ------------------------------------------------------------------------------


def move_reader(game: GameNotation) -> Callable[[Any, str], Any]:
    """``(state, token) -> move`` for canonical tokens of legal moves (the trusted
    path): the game's :meth:`~partita.notation.base.GameNotation.trusted_move_reader`."""
    return game.trusted_move_reader()


def lines_from_archive(
    target: Any, *, include_invalid: bool = False, **filters: Any
) -> Iterator[GameLine]:
    """The games of the archive matching the filters (those of
    :func:`partita.database.query_games`), as :class:`GameLine` values, by id.

    Invalid games (stored with their legal prefix) are left out unless
    ``include_invalid``: their results may contradict their moves. A game set up
    from a position carries it in ``start`` (as position notation).
    """
    from partita.database.query import select_games
    from partita.database.schema import archive

    columns = (
        "g.id, g.game, g.moves, g.result, g.date, g.date_min, g.date_max, g.status, "
        "json_extract(g.tags, '$.SetUp') AS setup, json_extract(g.tags, '$.Position') AS start"
    )
    with archive(target, readonly=True) as db:
        for row in select_games(db, columns, **filters):
            if row["status"] != "valid" and not include_invalid:
                continue
            yield GameLine(
                row["id"],
                row["moves"] or "",
                row["result"],
                row["date"],
                row["date_min"],
                row["date_max"],
                row["start"] if row["setup"] == "1" else None,
            )


def lines_from_records(records: Iterable[Any], game: str | None = None) -> Iterator[GameLine]:
    """Records (or replayed records) as :class:`GameLine` values numbered from 1,
    replayed through their rules; records of another game than ``game`` (when
    given) and records whose game or setup cannot be used are skipped."""
    from partita.database.importer import date_bounds
    from partita.notation.replay import ReplayedRecord, replay

    number = 0
    for item in records:
        replayed = item if isinstance(item, ReplayedRecord) else replay(item)
        record = replayed.record
        number += 1
        if replayed.game is None or replayed.initial_state is None:
            continue
        if game is not None and replayed.game.name != game:
            continue
        tags = record.tags
        date = tags.get("Date")
        low, high = date_bounds(date)
        start = tags.get("Position") if tags.get("SetUp") == "1" else None
        yield GameLine(
            number, list(replayed.moves), tags.get("Result", record.result), date, low, high, start
        )


# -- symmetry ------------------------------------------------------------------------------------


_IDENTITY = (0,)


class _Frames:
    """Canonical keys, the images' keys and the symmetries that reach the
    canonical key, cached by plain key.

    ``classify(state, plain)`` gives ``(canonical key, symmetries, image keys)``:
    the smallest key over the images of ``state``, every symmetry whose image has
    it (more than one when the position is itself symmetric), and the key of each
    image in symmetry order. Without symmetry: the plain key and the identity.

    For games that offer :meth:`~partita.games.base.Rules.placement_images`
    (placement boards) the images are also kept packed (all of them in one int)
    per trie level, for the positions whose
    children are still to come: a child's images are then its parent's plus the
    images of the one piece its move placed, instead of a permutation of the
    whole board. :meth:`release` forgets a level's packed images.
    """

    def __init__(self, game: GameNotation, symmetry: bool) -> None:
        self.rules = game.rules
        self.count = self.rules.symmetry_count if symmetry else 1
        #: Per trie level: plain key -> (canonical key, symmetries, None).
        self._cache: dict[int, dict[Hashable, tuple[Hashable, tuple[int, ...], None]]] = {}
        self.computed = 0
        self._steps = self.rules.placement_images() if self.count > 1 else None
        #: Per trie level: plain key -> packed images (only with ``_steps``).
        self._packed: dict[int, dict[Hashable, int]] = {}

    def classify(
        self,
        state: Any,
        plain: Hashable,
        level: int = -1,
        parent: Hashable = None,
        keep: bool = False,
    ) -> tuple[Hashable, tuple[int, ...], tuple[Hashable, ...] | None]:
        """``(canonical key, symmetries, image keys)``; the image keys only when
        they were just computed (``None`` from the cache, which keeps them out to
        stay small: see :meth:`image_keys`). ``level`` (of the trie node),
        ``parent`` (its parent's plain key) and ``keep`` (keep its packed images
        for its children) let a placement board's keys be derived incrementally."""
        if self.count == 1:
            return (plain, _IDENTITY, (plain,))  # nothing worth caching
        cache = self._cache.get(level)
        if cache is None:
            cache = self._cache[level] = {}
        found = cache.get(plain)
        if found is not None:
            if keep and self._steps is not None:
                self._packed_images(state, plain, level, parent, keep)
            return found[0], found[1], None
        keys = self.image_keys(state, plain, level, parent, keep)
        best = min(keys)
        symmetries = tuple(index for index, key in enumerate(keys) if key == best)
        cache[plain] = (best, _IDENTITY if symmetries == _IDENTITY else symmetries, None)
        self.computed += 1
        return best, symmetries, keys

    def image_keys(
        self,
        state: Any,
        plain: Hashable,
        level: int = -1,
        parent: Hashable = None,
        keep: bool = False,
    ) -> tuple[Hashable, ...]:
        """The key of each image of ``state``, in symmetry order."""
        if self._steps is not None:
            packed = self._packed_images(state, plain, level, parent, keep)
            mask, shifts, side_shift = self._steps.mask, self._steps.shifts, self._steps.side_shift
            side = plain & (1 << side_shift)  # type: ignore[operator]
            return tuple(packed >> shift & mask | side for shift in shifts)
        return tuple(self.rules.symmetric_keys(state))

    def _packed_images(self, state: Any, plain: Any, level: int, parent: Any, keep: bool) -> int:
        """The packed images of ``state``: kept, or its parent's plus the placed
        piece's (when the key shows exactly one piece added and the side to move
        changed), or from the whole board."""
        steps = self._steps
        assert steps is not None
        table = self._packed.get(level)
        if table is not None:
            packed = table.get(plain)
            if packed is not None:
                return packed
        packed = None
        if parent is not None:
            above = self._packed.get(level - 1)
            if above is not None:
                before = above.get(parent)
                if before is not None:
                    changed = plain ^ parent
                    side_shift = steps.side_shift
                    if changed >> side_shift == 1:
                        placed = changed & ((1 << side_shift) - 1)
                        if placed and not placed & (placed - 1) and plain & placed:
                            packed = before | steps.of_piece[placed.bit_length() - 1]
        if packed is None:
            packed = steps.of_state(state)
        if keep:
            if table is None:
                table = self._packed[level] = {}
            table[plain] = packed
        return packed

    def release(self, level: int | None = None) -> None:
        """Level ``level`` is expanded: forget its keys' classifications and the
        packed images of the level above it; ``None``: forget everything (the
        tree is built)."""
        if level is None:
            self._packed.clear()
            self._cache.clear()
        else:
            self._cache.pop(level, None)
            self._packed.pop(level - 1, None)

    def images(self, state: Any) -> list[tuple[Hashable, Any]]:
        """``(plain key, state)`` of every distinct image of ``state``."""
        rules = self.rules
        found: dict[Hashable, Any] = {}
        for symmetry in range(self.count):
            image = rules.transform(state, symmetry) if symmetry else state
            found.setdefault(rules.key(image), image)
        return list(found.items())


# -- building ---------------------------------------------------------------------------------------


class _Trie:
    """Prefix trie of the games' first plies after the root: per node its parent,
    move token, state, plain key, level, game count and children; and per level
    the nodes of each plain key (which is what lets transpositions through pruned
    lines count)."""

    def __init__(self, depth: int) -> None:
        self.parent: list[int] = []
        self.token: list[str | None] = []
        self.state: list[Any] = []
        self.key: list[Hashable] = []
        self.level: list[int] = []
        self.count: list[int] = []
        self.children: list[list[int] | None] = []
        self.by_key: list[dict[Hashable, list[int]]] = [{} for _ in range(depth + 1)]

    def release(self, level: int) -> None:
        """Forget the states of the nodes of ``level`` and their index."""
        states = self.state
        for nodes in self.by_key[level].values():
            for node in nodes:
                states[node] = None
        self.by_key[level] = {}

    def release_all(self) -> None:
        """Forget all but the parents (what :func:`_gather` walks)."""
        self.token = []
        self.state = []
        self.key = []
        self.level = []
        self.count = []
        self.children = []
        self.by_key = []

    def add_root(self, state: Any, key: Hashable) -> int:
        node = len(self.parent)
        self.parent.append(-1)
        self.token.append(None)
        self.state.append(state)
        self.key.append(key)
        self.level.append(0)
        self.count.append(0)
        self.children.append(None)
        self.by_key[0].setdefault(key, []).append(node)
        return node

    def grow(
        self,
        walks: Iterable[tuple[int, list[str]]],
        read_move: Callable[[Any, str], Any],
        apply: Callable[[Any, Any], Any],
        key_of: Callable[[Any], Hashable],
    ) -> list[int]:
        """Walk each ``(start node, tokens)`` into the trie, adding what is new;
        the deepest node of each walk. The hot loop of the build: everything is
        a local, node ids and token numbers make the child index's keys ints."""
        parent_of, token_of, state_of, key_list = self.parent, self.token, self.state, self.key
        level_of, count, children_of, by_key = self.level, self.count, self.children, self.by_key
        token_ids: dict[str, int] = {}
        index: dict[int, int] = {}
        leaves = []
        for node, tokens in walks:
            count[node] += 1
            for token in tokens:
                number = token_ids.get(token)
                if number is None:
                    number = token_ids[token] = len(token_ids)
                slot = node << 24 | number
                child = index.get(slot)
                if child is None:
                    state = state_of[node]
                    after = apply(state, read_move(state, token))
                    key = key_of(after)
                    child = index[slot] = len(parent_of)
                    parent_of.append(node)
                    token_of.append(token)
                    state_of.append(after)
                    key_list.append(key)
                    level = level_of[node] + 1
                    level_of.append(level)
                    count.append(0)
                    children_of.append(None)
                    siblings = children_of[node]
                    if siblings is None:
                        children_of[node] = [child]
                    else:
                        siblings.append(child)
                    same = by_key[level].get(key)
                    if same is None:
                        by_key[level][key] = [child]
                    else:
                        same.append(child)
                node = child
                count[node] += 1
            leaves.append(node)
        if len(token_ids) >= 1 << 24:
            raise PartitaError("too many distinct moves for an opening tree")
        return leaves


def build_tree(
    lines: Iterable[GameLine],
    game: GameNotation | str,
    *,
    root: str | None = None,
    root_plies: dict[int, tuple[str, int]] | None = None,
    depth: int = 8,
    min_games: int | None = None,
    symmetry: bool = False,
    examples: int = EXAMPLES,
    sides: int | None = None,
) -> OpeningTree:
    """The opening tree of ``lines`` (games of ``game``) from ``root`` (position
    notation; the initial position by default) to ``depth`` plies, keeping moves
    played by at least ``min_games`` games (``None``: :func:`default_min_games`
    of the games standing on the root).

    A game counts from the ply after which it stands on the root (or one of its
    symmetric images with ``symmetry``): for a root other than the initial
    position, ``root_plies`` maps game ids to ``(position, ply)`` where they
    reached it (the archive's position index gives it, see
    :func:`tree_from_archive`); without it the games are replayed to find it.
    ``sides``: how many sides the games have (the game's least by default); every
    line must be of one configuration (see :class:`Configuration`).
    """
    if depth < 1:
        raise PartitaError(f"depth must be at least 1, not {depth}")
    if min_games is not None and min_games < 1:
        raise PartitaError(f"min-games must be at least 1, not {min_games}")
    notation = get_game(game) if isinstance(game, str) else game
    if symmetry and notation.rules.symmetry_count == 1:
        symmetry = False  # nothing to fold
    with _collector_paused():
        return _build(
            lines,
            notation,
            root,
            root_plies,
            depth,
            min_games,
            symmetry,
            examples,
            notation.rules.min_sides if sides is None else sides,
        )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: the build allocates hundreds of
    thousands of small acyclic objects, and full collections over them cost more
    than the build itself."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _build(
    lines: Iterable[GameLine],
    notation: GameNotation,
    root: str | None,
    root_plies: dict[int, tuple[str, int]] | None,
    depth: int,
    min_games: int | None,
    symmetry: bool,
    examples: int,
    sides: int,
) -> OpeningTree:
    rules = notation.rules
    frames = _Frames(notation, symmetry)
    read_move = move_reader(notation)
    key_of = rules.key
    started = time.perf_counter()

    initial = notation.initial(sides)
    root_state = initial if root is None else _parse(notation, root)
    trie = _Trie(depth)
    roots: dict[Hashable, int] = {}
    for plain, state in frames.images(root_state):
        roots[plain] = trie.add_root(state, plain)
    starts = _Starts(notation, initial, roots, root is None, root_plies)
    line_data: list[GameLine] = []

    def walks() -> Iterator[tuple[int, list[str]]]:
        for line in lines:
            start_node, offset = starts.find(line)
            if start_node < 0:
                continue
            line_data.append(line)
            moves = line.moves
            if isinstance(moves, str):
                # Split only what the depth needs: the rest of the game is one string.
                tokens = moves.split(maxsplit=offset + depth)[offset : offset + depth]
                line.moves = ""  # the rest of the game is not needed: free it
            else:
                tokens = list(moves[offset : offset + depth])
            yield start_node, tokens

    line_leaf = trie.grow(walks(), read_move, rules.apply, key_of)
    if min_games is None:
        min_games = default_min_games(len(line_data))
    built = time.perf_counter()
    by_key = trie.by_key

    frame = _Frame(notation, frames, trie, by_key, read_move, depth)
    root_key = frame.position(0, root_state, key_of(root_state))
    # Per position: (ply, games), registered as the levels grow.
    nodes = frame.info
    edges: list[_Edge] = []
    level_nodes = [root_key]
    for level in range(depth):
        next_nodes: dict[Hashable, None] = {}
        for position in level_nodes:
            for edge in frame.expand(position, level, min_games):
                edges.append(edge)
                child = edge.stats.child
                if child not in next_nodes:
                    next_nodes[child] = None
        level_nodes = list(next_nodes)
        # This level is expanded: its states and its index are no longer needed,
        # nor its keys' classifications and the packed images of the level above.
        trie.release(level)
        frames.release(level)
    # The tree is known: free what only its growth needed before the tallies.
    frames.release()
    frame.release()
    trie_nodes = len(trie.parent)
    trie.release_all()
    expanded = time.perf_counter()

    _gather(edges, trie, line_leaf, line_data, rules.sides(root_state), examples)
    out: dict[Hashable, list[MoveStats]] = {}
    for edge in edges:
        out.setdefault(edge.stats.parent, []).append(edge.stats)
    for moves in out.values():
        moves.sort(key=lambda stats: (-stats.games, stats.move))
    finished = time.perf_counter()
    return OpeningTree(
        game=notation,
        root=root_key,
        nodes=nodes,
        out=out,
        symmetry=symmetry,
        depth=depth,
        min_games=min_games,
        games=len(line_data),
        states=frame.states,
        figures={
            "games": len(line_data),
            "trie_nodes": trie_nodes,
            "canonical_keys": frames.computed,
            "positions": len(nodes),
            "moves": len(edges),
            "trie_seconds": round(built - started, 3),
            "expand_seconds": round(expanded - built, 3),
            "gather_seconds": round(finished - expanded, 3),
        },
    )


def _parse(notation: GameNotation, position: str) -> Any:
    """The state of a position string (the game's notation errors, unchanged)."""
    return notation.parse_position(position)


class _Starts:
    """Where each line enters the trie: the trie root it starts on and the ply."""

    def __init__(
        self,
        notation: GameNotation,
        initial: Any,
        roots: dict[Hashable, int],
        initial_root: bool,
        root_plies: dict[int, tuple[str, int]] | None,
    ) -> None:
        self.notation = notation
        self.initial = initial
        self.rules = notation.rules
        self.roots = roots
        self.initial_root = initial_root
        self.root_plies = root_plies
        self.keys: dict[str | None, Hashable] = {}

    def _key(self, position: str | None) -> Hashable:
        key = self.keys.get(position, _MISSING)
        if key is _MISSING:
            try:
                state = self.initial if position is None else self.notation.parse_position(position)
                key = self.rules.key(state)
            except PartitaError:
                key = None
            self.keys[position] = key
        return key

    def find(self, line: GameLine) -> tuple[int, int]:
        """``(trie root, ply)`` of ``line``, or ``(-1, 0)`` if it never stands on
        the root."""
        node = self.roots.get(self._key(line.start))
        if node is not None:
            return node, 0
        if self.initial_root:
            return -1, 0
        if self.root_plies is not None:
            hit = self.root_plies.get(line.id)
            if hit is None:
                return -1, 0
            position, ply = hit
            node = self.roots.get(self._key(position))
            return (node, ply) if node is not None else (-1, 0)
        # No position index: replay the line to the first ply on a root image.
        rules = self.rules
        try:
            state = self.initial if line.start is None else self.notation.parse_position(line.start)
        except PartitaError:
            return -1, 0
        read_move = move_reader(self.notation)
        for ply, token in enumerate(line.tokens(), start=1):
            state = rules.apply(state, read_move(state, token))
            node = self.roots.get(rules.key(state))
            if node is not None:
                return node, ply
        return -1, 0


_MISSING = object()


#: The trie nodes of an edge whose games are gathered.
_NO_NODES: list[int] = []


@dataclass(slots=True)
class _Edge:
    stats: MoveStats
    nodes: list[int]


class _Frame:
    """The positions kept so far (by canonical key), the trie nodes standing on
    each, and their expansion into moves."""

    def __init__(
        self,
        notation: GameNotation,
        frames: _Frames,
        trie: _Trie,
        by_key: list[dict[Hashable, list[int]]],
        read_move: Callable[[Any, str], Any],
        depth: int,
    ) -> None:
        self.notation = notation
        #: Positions at this level are not expanded: their trie nodes are not kept.
        self.depth = depth
        self.rules = notation.rules
        self.frames = frames
        self.trie = trie
        self.by_key = by_key
        self.read_move = read_move
        self.nodes: dict[Hashable, list[int]] = {}
        #: Per position registered: (ply, games).
        self.info: dict[Hashable, tuple[int, int]] = {}
        self.states: dict[Hashable, Any] = {}
        # Moves read without their position (entry codes) map the same way
        # wherever they are played: their labels can be cached by token.
        self.context_free = callable(getattr(notation, "entry", None))
        self._labels: dict[tuple[tuple[int, ...], str], str] = {}

    def position(self, level: int, state: Any, plain: Hashable, node: int = -1) -> Hashable:
        """Register the position of ``state`` at ``level`` (if new), trie node
        ``node`` when there is one; its key."""
        parent: Hashable = None
        keep = False
        if node >= 0 and self.frames.count > 1:
            trie = self.trie
            above = trie.parent[node]
            parent = trie.key[above] if above >= 0 else None
            keep = trie.children[node] is not None
        canonical, symmetries, image_keys = self.frames.classify(state, plain, level, parent, keep)
        if canonical in self.info:
            return canonical
        table = self.by_key[level]
        if self.frames.count == 1:
            members = list(table.get(plain, ()))
            self.states[canonical] = state
        else:
            if image_keys is None:
                image_keys = self.frames.image_keys(state, plain, level, parent)
            members = []
            for image_key in dict.fromkeys(image_keys):
                members.extend(table.get(image_key, ()))
            self.states[canonical] = self.rules.transform(state, symmetries[0])
        if level < self.depth:
            self.nodes[canonical] = members
        count = self.trie.count
        self.info[canonical] = (level, sum(count[member] for member in members))
        return canonical

    def release(self) -> None:
        """Forget the positions' trie nodes (the tree is built)."""
        self.nodes = {}
        self._labels = {}

    def expand(self, position: Hashable, level: int, min_games: int) -> list[_Edge]:
        """The moves from ``position`` played by at least ``min_games`` games."""
        trie = self.trie
        token_of = trie.token
        children_of = trie.children
        groups: dict[str, list[int]] = {}
        for member in self.nodes.pop(position):  # expanded once: free the list
            children = children_of[member]
            if not children:
                continue
            if self.frames.count == 1:
                for child in children:
                    group = groups.get(token_of[child])  # type: ignore[arg-type]
                    if group is None:
                        groups[token_of[child]] = [child]  # type: ignore[index]
                    else:
                        group.append(child)
            else:
                representative = self.states[position]
                for child in children:
                    label = self._label(member, child, representative, level)
                    group = groups.get(label)
                    if group is None:
                        groups[label] = [child]
                    else:
                        group.append(child)
        count = trie.count
        parent_games = self.info[position][1]
        edges = []
        for label, members in groups.items():
            games = (
                sum(count[member] for member in members) if len(members) > 1 else count[members[0]]
            )
            if games < min_games:
                continue
            first = members[0]
            child_key = self.position(level + 1, trie.state[first], trie.key[first], first)
            mover = self.rules.side_to_move(trie.state[trie.parent[first]])
            stats = MoveStats(
                parent=position,
                child=child_key,
                move=label,
                games=games,
                share=games / parent_games if parent_games else 0.0,
                mover=mover if mover != CHANCE else -1,
                won=(),
                drawn=(),
                lost=(),
                unfinished=0,
                first_date=None,
                last_date=None,
                examples=(),
                transpositions=self.info[child_key][1] - games,
                ply=level + 1,
            )
            edges.append(_Edge(stats, members))
        return edges

    def _label(self, member: int, child: int, representative: Any, level: int) -> str:
        """The move from trie node ``member`` to ``child`` seen from the position's
        ``representative``: mapped by each symmetry that takes ``member``'s state
        to it, the smallest token (so symmetric moves of a symmetric position
        agree)."""
        trie = self.trie
        state = trie.state[member]
        token: str = trie.token[child]  # type: ignore[assignment]
        above = trie.parent[member]
        _, symmetries, _ = self.frames.classify(
            state, trie.key[member], level, trie.key[above] if above >= 0 else None, True
        )
        if symmetries == (0,):
            return token
        if self.context_free:
            label = self._labels.get((symmetries, token))
            if label is not None:
                return label
        move = self.read_move(state, token)
        transform_move = self.rules.transform_move
        format_move = self.notation.format_move
        label = min(
            format_move(representative, transform_move(move, symmetry)) for symmetry in symmetries
        )
        if self.context_free:
            self._labels[(symmetries, token)] = label
        return label


def _result_classes(token: str | None, sides: int) -> tuple[int, ...] | None:
    """Per side 0 (won), 1 (drawn) or 2 (lost); ``None`` for an undecided result."""
    if token is None:
        return None
    try:
        scores = parse_result_token(token, sides)
    except ValueError:
        return None
    if scores is None:
        return None
    return tuple(0 if score == WIN else 1 if score == DRAW else 2 for score in scores)


def _gather(
    edges: list[_Edge],
    trie: _Trie,
    line_leaf: list[int],
    line_data: list[GameLine],
    sides: int,
    examples: int,
) -> None:
    """Results, dates and examples of the kept edges, from the games under them.

    Most edges of a big tree are played by one game: they take a short path, and
    their tallies are shared tuples (one per result token), which keeps a tree of
    hundreds of thousands of moves small.
    """
    if not edges:
        return
    # Per trie node the number of its edge, -1 for none (a list: a dict of
    # hundreds of thousands of nodes costs several times more).
    edge_of = [-1] * len(trie.parent)
    for number, edge in enumerate(edges):
        for member in edge.nodes:
            edge_of[member] = number
        edge.nodes = _NO_NODES  # mapped: free the list
    # Per edge its games' line numbers: an int for one game, a list for more.
    per_edge: list[Any] = [None] * len(edges)
    parents = trie.parent
    for line_number, node in enumerate(line_leaf):
        while node >= 0:
            number = edge_of[node]
            if number >= 0:
                found = per_edge[number]
                if found is None:
                    per_edge[number] = line_number
                elif type(found) is int:
                    per_edge[number] = [found, line_number]
                else:
                    found.append(line_number)
            node = parents[node]
    del edge_of
    shared: dict[tuple[int, ...], tuple[int, ...]] = {}

    def share(values: tuple[int, ...]) -> tuple[int, ...]:
        return shared.setdefault(values, values)

    single: dict[str | None, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]] = {}

    def one_game(
        token: str | None,
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
        found = single.get(token)
        if found is None:
            outcome = _result_classes(token, sides)
            if outcome is None:
                found = (share((0,) * sides), share((0,) * sides), share((0,) * sides), 1)
            else:
                found = tuple(  # type: ignore[assignment]
                    share(tuple(int(kind == wanted) for kind in outcome)) for wanted in (0, 1, 2)
                ) + (0,)
            single[token] = found  # type: ignore[assignment]
        return found  # type: ignore[return-value]

    results = [line.result for line in line_data]
    # Unknown bounds sort last for the first date and first for the last one.
    lows = [line.date_min or "~" for line in line_data]
    highs = [line.date_max or "" for line in line_data]
    order = [(line.date_max or "", line.id) for line in line_data]
    classes: dict[str | None, tuple[int, ...] | None] = {}
    for number, (edge, members) in enumerate(zip(edges, per_edge, strict=True)):
        per_edge[number] = None  # tallied below: free the list
        stats = edge.stats
        if type(members) is int:
            line = line_data[members]
            stats.won, stats.drawn, stats.lost, stats.unfinished = one_game(line.result)
            stats.first_date = line.date if line.date_min else None
            stats.last_date = line.date if line.date_max else None
            stats.examples = (line.id,)
            continue
        tallies = [[0, 0, 0] for _ in range(sides)]
        unfinished = 0
        for token, games in Counter(map(results.__getitem__, members)).items():
            outcome = classes.get(token, _MISSING)
            if outcome is _MISSING:
                outcome = classes[token] = _result_classes(token, sides)
            if outcome is None:
                unfinished += games
            else:
                for side, kind in enumerate(outcome):  # type: ignore[arg-type]
                    tallies[side][kind] += games
        stats.won = share(tuple(tally[0] for tally in tallies))
        stats.drawn = share(tuple(tally[1] for tally in tallies))
        stats.lost = share(tuple(tally[2] for tally in tallies))
        stats.unfinished = unfinished
        first = min(members, key=lows.__getitem__)
        last = max(members, key=highs.__getitem__)
        stats.first_date = line_data[first].date if line_data[first].date_min else None
        stats.last_date = line_data[last].date if line_data[last].date_max else None
        latest = heapq.nlargest(examples, members, key=order.__getitem__)
        stats.examples = tuple(line_data[number].id for number in latest)


def configurations_from_archive(
    target: Any, game: str, *, include_invalid: bool = False, **filters: Any
) -> list[tuple[Configuration, int]]:
    """The configurations (sides and game-specific tags, defaults filled in) of the
    archive's games of ``game`` matching the filters, with their game counts, the
    most played first."""
    from partita.database.query import select_games
    from partita.database.schema import archive

    notation = get_game(game)
    specs = notation.rules.tags
    values = "".join(
        f", coalesce(json_extract(g.tags, '$.\"{spec.name}\"'), '') AS v{index}"
        for index, spec in enumerate(specs)
    )
    counts: Counter[Configuration] = Counter()
    filters = {name: value for name, value in filters.items() if value is not None}
    with archive(target, readonly=True) as db:
        for row in select_games(db, f"g.sides, g.status{values}", game=game, **filters):
            if row["status"] != "valid" and not include_invalid:
                continue
            tags = {spec.name: row[f"v{index}"] for index, spec in enumerate(specs)}
            counts[Configuration.of(notation, row["sides"] or notation.rules.min_sides, tags)] += 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0].label))


def choose_configuration(
    target: Any, game: str, *, include_invalid: bool = False, **filters: Any
) -> Configuration:
    """The one configuration of the selected games; an error listing them (with the
    options that pick each) when the selection mixes several."""
    found = configurations_from_archive(target, game, include_invalid=include_invalid, **filters)
    if not found:
        notation = get_game(game)
        return Configuration.of(notation, notation.rules.min_sides, {})
    if len(found) > 1:
        varying = varying_settings([configuration for configuration, _ in found])
        listed = "\n".join(
            f"  {configuration.describe(varying)}: {count} game{'s' if count != 1 else ''}: "
            f"{configuration.options(varying)}"
            for configuration, count in found
        )
        raise PartitaError(
            f"the selected {game} games are set up in {len(found)} different ways, whose "
            f"positions never meet; choose one with the options shown:\n{listed}"
        )
    return found[0][0]


def _counted(
    lines: Iterable[GameLine], total: int, progress: Callable[[int, int], object]
) -> Iterator[GameLine]:
    """``lines``, calling ``progress(done, total)`` every few hundred and at the end."""
    for done, line in enumerate(lines, start=1):
        yield line
        if done % 250 == 0:
            progress(done, total)
    progress(total, total)


def tree_from_archive(
    target: Any,
    game: str,
    *,
    root: str | None = None,
    depth: int = 8,
    min_games: int | None = None,
    symmetry: bool = False,
    include_invalid: bool = False,
    configuration: Configuration | None = None,
    progress: Callable[[int, int], object] | None = None,
    **filters: Any,
) -> OpeningTree:
    """The opening tree of the archive's games of ``game`` matching the filters
    (those of :func:`partita.database.query_games`, without ``game``), all of one
    ``configuration`` (by default the selection's only one; see
    :func:`choose_configuration`). ``progress(done, total)`` is called as the
    games are read (``total`` counts the invalid ones the tree leaves out too)."""
    from partita.database.query import select_games
    from partita.database.schema import archive

    filters = {name: value for name, value in filters.items() if value is not None}
    if configuration is None:
        configuration = choose_configuration(
            target, game, include_invalid=include_invalid, **filters
        )
    filters["sides"] = configuration.sides
    filters["tags"] = [*filters.get("tags", ()), *configuration.tag_filters()]
    notation = configuration.configure(get_game(game))
    root_plies: dict[int, tuple[str, int]] | None = None
    if root is not None:
        state = _parse(notation, root)
        rules = notation.rules
        frames = _Frames(notation, symmetry and rules.symmetry_count > 1)
        root_plies = {}
        with archive(target, readonly=True) as db:
            for _, image in frames.images(state):
                position = notation.format_position(image)
                wanted = dict(filters, position=position, game=notation.name)
                for row in select_games(db, "g.id, hit.ply", **wanted):
                    known = root_plies.get(row["id"])
                    if known is None or row["ply"] < known[1]:
                        root_plies[row["id"]] = (position, row["ply"])
    lines = lines_from_archive(
        target, include_invalid=include_invalid, game=notation.name, **filters
    )
    if progress is not None:
        from partita.database.query import count_games

        lines = _counted(lines, count_games(target, game=notation.name, **filters), progress)
    tree = build_tree(
        lines,
        notation,
        root=root,
        root_plies=root_plies,
        depth=depth,
        min_games=min_games,
        symmetry=symmetry,
        sides=configuration.sides,
    )
    tree.configuration = configuration
    return tree
