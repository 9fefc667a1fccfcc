"""Symmetry for the opening tree: canonical keys of positions, the keys of their
images, and the symmetries that take a position to its representative."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from partita.game.notation import GameNotation

__all__ = ["SymmetryFrames"]

_IDENTITY = (0,)


class SymmetryFrames:
    """Canonical keys, the images' keys and the symmetries that reach the
    canonical key, cached by plain key.

    ``classify(state, plain)`` gives ``(canonical key, symmetries, image keys)``:
    the smallest key over the images of ``state``, every symmetry whose image has
    it (more than one when the position is itself symmetric), and the key of each
    image in symmetry order. Without symmetry: the plain key and the identity.

    For games that offer :meth:`~partita.game.rules.Rules.placement_images`
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
        # One game's keys are of one kind (ints, strings, tuples) and compare.
        keys: tuple[Any, ...] = self.image_keys(state, plain, level, parent, keep)
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
