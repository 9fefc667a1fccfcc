"""The prefix trie of the games' first plies: the first phase of a tree's build."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from partita.errors import PartitaError

__all__ = ["PrefixTrie"]


class PrefixTrie:
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
        """Forget all but the parents (what :func:`~partita.analysis.tree.gather.gather_results` walks)."""
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
