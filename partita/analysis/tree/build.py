"""Building an opening tree from game lines: the trie, the expansion level by
level, the tallies (see the package docstring for the phases and their costs)."""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from partita.analysis.collector import collector_paused
from partita.analysis.tree.expand import Expansion, KeptEdge
from partita.analysis.tree.gather import gather_results
from partita.analysis.tree.lines import move_reader
from partita.analysis.tree.symmetry import SymmetryFrames
from partita.analysis.tree.trie import PrefixTrie
from partita.analysis.tree.value import GameLine, MoveStats, OpeningTree
from partita.errors import PartitaError
from partita.game.notation import GameNotation
from partita.game.registry import get_game

__all__ = ["EXAMPLES", "GAMES_PER_MIN_GAME", "build_tree", "default_min_games"]

#: How many example game ids an edge keeps (the latest games first).
EXAMPLES = 3
#: The default threshold grows by one game per this many games of the selection.
GAMES_PER_MIN_GAME = 20_000

_MISSING = object()


def default_min_games(games: int) -> int:
    """The default ``min_games`` for a selection of ``games`` games: 1 up to
    20,000 games, then one more per 20,000 (5 for 100,000). Every move of a club's
    archive is shown; a big archive's tree leaves out the lines of a game or two,
    which would otherwise make most of its positions (for 100,000 games of an 8x8
    board game, 290,000 positions at depth 8, of which 250,000 are reached by one game)."""
    return max(1, -(-games // GAMES_PER_MIN_GAME))


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
    ratings: Mapping[int, Sequence[float | None]] | None = None,
) -> OpeningTree:
    """The opening tree of ``lines`` (games of ``game``) from ``root`` (position
    notation; the initial position by default) to ``depth`` plies, keeping moves
    played by at least ``min_games`` games (``None``: :func:`default_min_games`
    of the games standing on the root).

    A game counts from the ply after which it stands on the root (or one of its
    symmetric images with ``symmetry``): for a root other than the initial
    position, ``root_plies`` maps game ids to ``(position, ply)`` where they
    reached it (the archive's position index gives it, see
    :func:`~partita.analysis.tree.from_archive.tree_from_archive`); without it the
    games are replayed to find it. ``sides``: how many sides the games have (the
    game's least by default); every line must be of one configuration (see
    :class:`~partita.game.configuration.Configuration`). ``ratings``: per game
    id each seat's rating when it was played, for each move's average rating and
    performance (:func:`~partita.analysis.tree.gather.rate_edges`).
    """
    if depth < 1:
        raise PartitaError(f"depth must be at least 1, not {depth}")
    if min_games is not None and min_games < 1:
        raise PartitaError(f"min-games must be at least 1, not {min_games}")
    notation = get_game(game) if isinstance(game, str) else game
    if symmetry and notation.rules.symmetry_count == 1:
        symmetry = False  # nothing to fold
    with collector_paused():
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
            ratings,
        )


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
    ratings: Mapping[int, Sequence[float | None]] | None,
) -> OpeningTree:
    rules = notation.rules
    frames = SymmetryFrames(notation, symmetry)
    read_move = move_reader(notation)
    key_of = rules.key
    started = time.perf_counter()

    initial = notation.initial(sides)
    root_state = initial if root is None else notation.parse_position(root)
    trie = PrefixTrie(depth)
    roots: dict[Hashable, int] = {}
    for plain, state in frames.images(root_state):
        roots[plain] = trie.add_root(state, plain)
    starts = _LineStarts(notation, initial, roots, root is None, root_plies)
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

    frame = Expansion(notation, frames, trie, by_key, read_move, depth)
    root_key = frame.position(0, root_state, key_of(root_state))
    # Per position: (ply, games), registered as the levels grow.
    nodes = frame.info
    edges: list[KeptEdge] = []
    level_nodes = [root_key]
    expanded_keys: set[Hashable] = set()
    for level in range(depth):
        expanded_keys.update(level_nodes)
        next_nodes: dict[Hashable, None] = {}
        for position in level_nodes:
            for edge in frame.expand(position, level, min_games):
                edges.append(edge)
                child = edge.stats.child
                # A position met again deeper (a game returned to where it stood)
                # keeps the moves listed where it was first reached.
                if child not in next_nodes and child not in expanded_keys:
                    next_nodes[child] = None
        level_nodes = list(next_nodes)
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

    gather_results(edges, trie, line_leaf, line_data, rules.sides(root_state), examples, ratings)
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


class _LineStarts:
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
