"""The second phase of a tree's build: the positions kept, level by level, and
their expansion into the moves played by enough games."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from partita.analysis.tree.symmetry import SymmetryFrames
from partita.analysis.tree.trie import PrefixTrie
from partita.analysis.tree.value import MoveStats
from partita.game.notation import GameNotation
from partita.game.rules import CHANCE

__all__ = ["NO_NODES", "Expansion", "KeptEdge"]

#: The trie nodes of an edge whose games are gathered.
NO_NODES: list[int] = []


@dataclass(slots=True)
class KeptEdge:
    """A move kept in the tree and the trie nodes its games pass through."""

    stats: MoveStats
    nodes: list[int]


class Expansion:
    """The positions kept so far (by canonical key), the trie nodes standing on
    each, and their expansion into moves."""

    def __init__(
        self,
        notation: GameNotation,
        frames: SymmetryFrames,
        trie: PrefixTrie,
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

    def expand(self, position: Hashable, level: int, min_games: int) -> list[KeptEdge]:
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
            edges.append(KeptEdge(stats, members))
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
