"""The Universal Forces board as data: its rings of cells, their angular spans, the
coloured rim sections, the centre quadrants, and which cells touch.

Part of the pure rules engine (it imports nothing of partita): the rules, the
notation and the drawing all read the board through :class:`Geometry`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

__all__ = ["CENTRE", "INNER_RINGS", "MEDIAL_RINGS", "OUTER_RINGS", "Geometry", "board_geometry"]

#: The rings from the rim inward, with their default section counts.
OUTER_RINGS = ("O1", "O2", "O3")
MEDIAL_RINGS = ("M1", "M2", "M3")
INNER_RINGS = ("I1", "I2", "I3")
CENTRE = ("C1", "C2", "C3", "C4")


class Geometry:
    """The board as data: cells, their rings and angular spans, the coloured rim
    sections and the centre quadrants; adjacency is computed from the spans.

    Cells are numbered ring by ring from the rim inward, sections clockwise from
    twelve o'clock; the centre quadrants come last. A section s of a ring of n
    sections spans the turns [(s-1)/n, s/n].
    """

    def __init__(self, inner_sections: int = 8) -> None:
        if inner_sections < 4:
            raise ValueError(f"the inner rings need at least 4 sections, not {inner_sections}")
        self.inner_sections = inner_sections
        self.rings: tuple[tuple[str, int], ...] = (
            tuple((ring, 32) for ring in OUTER_RINGS)
            + tuple((ring, 16) for ring in MEDIAL_RINGS)
            + tuple((ring, inner_sections) for ring in INNER_RINGS)
            + (("C", 4),)
        )
        names: list[str] = []
        ring_of: list[int] = []
        section_of: list[int] = []
        spans: list[tuple[Fraction, Fraction]] = []
        for ring_index, (ring, count) in enumerate(self.rings):
            for section in range(1, count + 1):
                names.append(f"C{section}" if ring == "C" else f"{ring}:{section}")
                ring_of.append(ring_index)
                section_of.append(section)
                spans.append((Fraction(section - 1, count), Fraction(section, count)))
        self.names: tuple[str, ...] = tuple(names)
        self.ring_of = tuple(ring_of)
        self.section_of = tuple(section_of)
        self.spans = tuple(spans)
        self.index: dict[str, int] = {name: i for i, name in enumerate(names)}
        self.size = len(names)
        centre_ring = len(self.rings) - 1
        inner_start = OUTER_RINGS.__len__() + MEDIAL_RINGS.__len__()
        #: Cells of the inner sector (I1-I3 and the centre): no stacks, no pins.
        self.inner = tuple(ring_of[i] >= inner_start for i in range(self.size))
        #: The kind whose colour a coloured rim section has, -1 for other cells.
        self.entry_colour = tuple(
            ((section_of[i] - 1) // 2) % 4 if ring_of[i] == 0 and section_of[i] % 2 else -1
            for i in range(self.size)
        )
        #: The kind of each centre quadrant (C1 G, C2 Y, C3 B, C4 R), -1 elsewhere.
        self.quadrant_kind = tuple(
            section_of[i] - 1 if ring_of[i] == centre_ring else -1 for i in range(self.size)
        )
        #: Entry sections of each kind, clockwise.
        self.entry_cells = tuple(
            tuple(i for i in range(self.size) if self.entry_colour[i] == kind) for kind in range(4)
        )
        # The spans in whole units of 1/lcm(section counts) of a turn, for exact and
        # quick comparisons.
        self._turn = math.lcm(*(count for _, count in self.rings))
        self._units = tuple(
            (int(low * self._turn), int(high * self._turn)) for low, high in self.spans
        )
        self.neighbours: tuple[tuple[int, ...], ...] = self._adjacency()

    def _adjacency(self) -> tuple[tuple[int, ...], ...]:
        """The cells each cell touches: the sections beside it in its ring (every
        other quadrant in the centre), and the cells of the rings next to it whose
        spans meet its span, a shared corner included. Built at import time, so the
        loop is written out (the CLI's start-up pays for it)."""
        centre_ring = len(self.rings) - 1
        by_ring: list[list[int]] = [[] for _ in self.rings]
        for cell in range(self.size):
            by_ring[self.ring_of[cell]].append(cell)
        units, turn = self._units, self._turn
        touching: list[list[int]] = [[] for _ in range(self.size)]
        for a in range(self.size):
            ring = self.ring_of[a]
            count = self.rings[ring][1]
            section = self.section_of[a]
            found = touching[a]
            for b in by_ring[ring]:
                if b != a and (
                    ring == centre_ring  # opposite quadrants meet at the centre point
                    or (section - self.section_of[b]) % count in (1, count - 1)
                ):
                    found.append(b)
            a0, a1 = units[a]
            for other in (ring - 1, ring + 1):
                if not 0 <= other < len(self.rings):
                    continue
                for b in by_ring[other]:
                    b0, b1 = units[b]
                    if (
                        max(a0, b0) <= min(a1, b1)
                        or max(a0, b0 - turn) <= min(a1, b1 - turn)
                        or max(a0, b0 + turn) <= min(a1, b1 + turn)
                    ):
                        found.append(b)
        return tuple(tuple(sorted(cells)) for cells in touching)

    def adjoin(self, a: str, b: str) -> bool:
        """Whether cells ``a`` and ``b`` (by name) touch."""
        return self.index[b] in self.neighbours[self.index[a]]


@cache
def board_geometry(inner_sections: int = 8) -> Geometry:
    """One geometry per board size, shared by every engine that uses it."""
    return Geometry(inner_sections)
