"""Pure-Python search core for gravity boards with entries from any sides (Forza 4x4).

The board is row-major with one spare bit after each row (so that shifting a line
of four never wraps onto the next row): cell (column ``c``, row ``r``), both from 0
and row 0 at the top, is bit ``r * (W + 1) + c``. A second, column-major copy of the
occupancy (``mask_t``, cell at ``c * (H + 1) + r``) makes the free cells of a column
one shift and one mask away, as those of a row are in the first.

Where a piece entering by each side comes to rest depends only on the occupancy of
its row (``l``, ``r``) or column (``t``, ``b``), so it is precomputed per
occupancy. The landing cells are kept in two sets, those of row entries and those of
column entries, and a move recomputes only its own row and column.

The search is the one of :mod:`partita.games.gravity._topentry` (negamax, null window,
bounds in a bounded transposition table) with its own pruning: a move after which
the opponent can reach one of its winning cells is not searched (a piece here can
block such a cell from a distance, by stopping the pieces that would slide onto
it), and when no other move is left the position is lost at once. Moves that leave
the side to move a winning cell the opponent must answer are searched first. The
transposition table is keyed by the smallest image of the position under the
board's symmetries, so that symmetric positions are searched once.
"""

from __future__ import annotations

from collections.abc import Callable

from partita.games.gravity._search import (
    BitMap,
    Closures,
    SearchCore,
    bisect_score,
    winning_cells,
)


class AnyEntrySearch(SearchCore):
    """Exact search for a ``width`` x ``height`` gravity board, lines of four.

    ``sides`` is a subset of ``"tblr"``; ``symmetries`` is a list of cell
    permutations (on row-major 0-based indices ``r * width + c``, the identity
    first) folded in the transposition table. ``table_size``, ``node_limit`` and
    ``deadline`` as in :class:`~partita.games.gravity._topentry.TopEntrySearch`.
    """

    def __init__(
        self,
        width: int,
        height: int,
        sides: str,
        *,
        symmetries: list[list[int]] | None = None,
        table_size: int = 1 << 20,
        node_limit: int | None = None,
        deadline: float | None = None,
    ) -> None:
        self.width = width
        self.height = height
        self.sides = sides
        super().__init__(table_size, node_limit, deadline)
        self.row_stride = width + 1
        self.column_stride = height + 1
        self.cells = width * height
        self.board = sum(
            1 << (r * self.row_stride + c) for r in range(height) for c in range(width)
        )
        identity = list(range(self.cells))
        self.symmetries = symmetries or [identity]
        self._build_tables()
        w, h = width, height
        self._rows = BitMap([r * self.row_stride + c for r in range(h) for c in range(w)])
        self._columns = BitMap([c * self.column_stride + r for r in range(h) for c in range(w)])
        self._images = [BitMap(permutation) for permutation in self.symmetries]
        self._start()

    # -- geometry -----------------------------------------------------------------------
    def _build_tables(self) -> None:
        w, h, sides = self.width, self.height, self.sides
        rs, cs = self.row_stride, self.column_stride

        def landings(occupied: int, length: int, low: bool, high: bool) -> int:
            # ``low``: an entry at bit 0 sliding up; ``high``: at the top bit sliding down.
            result = 0
            if low and not occupied & 1:
                result |= (occupied & -occupied) >> 1 if occupied else 1 << (length - 1)
            if high and not occupied >> (length - 1) & 1:
                result |= 1 << occupied.bit_length()
            return result

        self.row_landings = [landings(occ, w, "l" in sides, "r" in sides) for occ in range(1 << w)]
        column_local = [landings(occ, h, "t" in sides, "b" in sides) for occ in range(1 << h)]
        spread = [0] * (1 << h)
        for bits in range(1 << h):
            spread[bits] = sum(1 << (r * rs) for r in range(h) if bits >> r & 1)
        self.column_landings = [spread[bits] for bits in column_local]
        self.row_full = (1 << w) - 1
        self.column_full = (1 << h) - 1
        column_clear = spread[self.column_full]
        # Per cell (by bit index): bit, column-major bit, row shift, column shift,
        # column, the row's cells, the column's cells.
        self.cell_info: dict[int, tuple[int, int, int, int, int, int, int]] = {}
        for r in range(h):
            for c in range(w):
                index = r * rs + c
                self.cell_info[index] = (
                    1 << index,
                    1 << (c * cs + r),
                    r * rs,
                    c * cs,
                    c,
                    self.row_full << (r * rs),
                    column_clear << c,
                )
        # Move ordering: cells crossed by more lines first (the centre).
        weight = {}
        for r in range(h):
            for c in range(w):
                count = 0
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    for start in range(-3, 1):
                        cells = [(c + dc * (start + k), r + dr * (start + k)) for k in range(4)]
                        if all(0 <= x < w and 0 <= y < h for x, y in cells):
                            count += 1
                weight[r * rs + c] = count
        self.weight = weight
        # Key weights: a stone of x (o) on cell i adds x_weights[s][i] (o_weights) to
        # the key of symmetry s; the key is x stones | o stones << cells, permuted.
        n = self.cells
        self.x_weights: dict[int, tuple[int, ...]] = {}
        self.o_weights: dict[int, tuple[int, ...]] = {}
        for r in range(h):
            for c in range(w):
                compact = r * w + c
                images = [permutation[compact] for permutation in self.symmetries]
                self.x_weights[r * rs + c] = tuple(1 << image for image in images)
                self.o_weights[r * rs + c] = tuple(1 << (n + image) for image in images)

    # -- positions ----------------------------------------------------------------------
    def position(self, x: int, o: int) -> tuple[int, int, int, int, int, int, tuple[int, ...], int]:
        """The search arguments of a position given by compact row-major bitboards
        (``r * width + c``): current, opponent, mask, mask_t, row landings, column
        landings, keys, stones played."""
        w, rs = self.width, self.row_stride
        x_wide = self._rows(x)
        o_wide = self._rows(o)
        mask = x_wide | o_wide
        mask_t = self._columns(x | o)
        n = self.cells
        keys = [image(x) | image(o) << n for image in self._images]
        row_lands = column_lands = 0
        for r in range(self.height):
            occupied = (mask >> (r * rs)) & self.row_full
            row_lands |= self.row_landings[occupied] << (r * rs)
        for c in range(w):
            occupied = (mask_t >> (c * self.column_stride)) & self.column_full
            column_lands |= self.column_landings[occupied] << c
        stones = mask.bit_count()
        current, opponent = (x_wide, o_wide) if stones % 2 == 0 else (o_wide, x_wide)
        return current, opponent, mask, mask_t, row_lands, column_lands, tuple(keys), stones

    def winning_cells(self, stones: int, mask: int) -> int:
        """Empty cells where ``stones`` would complete a line of four."""
        return winning_cells(stones, self.row_stride) & (self.board ^ mask)

    # -- solving ---------------------------------------------------------------------------
    def score(self, x: int, o: int) -> int:
        """The exact score of a position nobody has won yet, from compact bitboards."""
        current, opponent, mask, mask_t, row_lands, column_lands, keys, stones = self.position(x, o)
        cells = self.cells
        landing = row_lands | column_lands
        if not landing:
            return 0
        if self.winning_cells(current, mask) & landing:
            return (cells + 1 - stones) // 2
        low = -((cells - stones) // 2)
        high = (cells + 1 - stones) // 2
        negamax = self._negamax
        arguments = (current, opponent, mask, mask_t, row_lands, column_lands, keys, stones)
        return bisect_score(lambda alpha, beta: negamax(*arguments, alpha, beta), low, high)

    def _build(self) -> Closures:
        cells = self.cells
        min_score = -(cells // 2) + 3
        max_score = (cells + 1) // 2 - 3
        lower_offset = max_score - 2 * min_score + 2
        lower_base = max_score - min_score + 1
        search = self
        nodes = 0
        next_check = 0
        stride = self.row_stride
        table = self.table
        slots = self.table_size
        cell_info = self.cell_info
        weight = self.weight

        def negamax(
            current: int,
            opponent: int,
            mask: int,
            mask_t: int,
            row_lands: int,
            column_lands: int,
            keys: tuple[int, ...],
            stones: int,
            alpha: int,
            beta: int,
            s1: int = stride,
            s2: int = 2 * stride,
            s3: int = 3 * stride,
            d1: int = stride - 1,
            d2: int = 2 * (stride - 1),
            d3: int = 3 * (stride - 1),
            e1: int = stride + 1,
            e2: int = 2 * (stride + 1),
            e3: int = 3 * (stride + 1),
            board: int = self.board,
            row_landings: list[int] = self.row_landings,
            column_landings: list[int] = self.column_landings,
            row_full: int = self.row_full,
            column_full: int = self.column_full,
            x_weights: dict[int, tuple[int, ...]] = self.x_weights,
            o_weights: dict[int, tuple[int, ...]] = self.o_weights,
            table_get: Callable[[int], int | None] = table.get,
        ) -> int:
            nonlocal nodes, next_check
            nodes += 1
            if nodes >= next_check:
                next_check = search._checkpoint(nodes)
            landing = row_lands | column_lands
            if not landing:
                return 0
            empty = board ^ mask
            p = current
            a = p << s1
            b = p >> s1
            q = a & (p << s2)
            r = (q & (p << s3)) | (q & b)
            q = b & (p >> s2)
            r |= (q & a) | (q & (p >> s3))
            q = (p << 1) & (p << 2)
            r |= (q & (p << 3)) | (q & (p >> 1))
            q = (p >> 1) & (p >> 2)
            r |= (q & (p << 1)) | (q & (p >> 3))
            a = p << d1
            b = p >> d1
            q = a & (p << d2)
            r |= (q & (p << d3)) | (q & b)
            q = b & (p >> d2)
            r |= (q & a) | (q & (p >> d3))
            a = p << e1
            b = p >> e1
            q = a & (p << e2)
            r |= (q & (p << e3)) | (q & b)
            q = b & (p >> e2)
            r |= (q & a) | (q & (p >> e3))
            if r & landing:
                return (cells + 1 - stones) // 2
            high = (cells - 1 - stones) // 2
            if beta > high:
                beta = high
                if alpha >= beta:
                    return beta
            key = min(keys)
            value = table_get(key)
            if value is not None:
                if value > lower_base:
                    low = value - lower_offset
                    if alpha < low:
                        alpha = low
                        if alpha >= beta:
                            return alpha
                else:
                    high = value + min_score - 1
                    if beta > high:
                        beta = high
                        if alpha >= beta:
                            return beta
            # Move ordering: a cell where the opponent would complete a line first,
            # then by the lines the move leaves one short, then central cells first.
            p = opponent
            a = p << s1
            b = p >> s1
            q = a & (p << s2)
            r = (q & (p << s3)) | (q & b)
            q = b & (p >> s2)
            r |= (q & a) | (q & (p >> s3))
            q = (p << 1) & (p << 2)
            r |= (q & (p << 3)) | (q & (p >> 1))
            q = (p >> 1) & (p >> 2)
            r |= (q & (p << 1)) | (q & (p >> 3))
            a = p << d1
            b = p >> d1
            q = a & (p << d2)
            r |= (q & (p << d3)) | (q & b)
            q = b & (p >> d2)
            r |= (q & a) | (q & (p >> d3))
            a = p << e1
            b = p >> e1
            q = a & (p << e2)
            r |= (q & (p << e3)) | (q & b)
            q = b & (p >> e2)
            r |= (q & a) | (q & (p >> e3))
            threats = r & empty
            ordered = []
            rest = landing
            while rest:
                move = rest & -rest
                rest ^= move
                index = move.bit_length() - 1
                bit, bit_t, row_shift, column_shift, column, row_cells, column_cells = cell_info[
                    index
                ]
                child_mask = mask | bit
                child_mask_t = mask_t | bit_t
                child_row_lands = (row_lands & ~row_cells) | (
                    row_landings[(child_mask >> row_shift) & row_full] << row_shift
                )
                child_column_lands = (column_lands & ~column_cells) | (
                    column_landings[(child_mask_t >> column_shift) & column_full] << column
                )
                reach = child_row_lands | child_column_lands
                # A move after which the opponent reaches one of its winning cells
                # loses at once: not searched.
                if threats & ~bit & reach:
                    continue
                # Lines of the side to move this stone would make one short.
                p = current | move
                a = p << s1
                b = p >> s1
                q = a & (p << s2)
                r = (q & (p << s3)) | (q & b)
                q = b & (p >> s2)
                r |= (q & a) | (q & (p >> s3))
                q = (p << 1) & (p << 2)
                r |= (q & (p << 3)) | (q & (p >> 1))
                q = (p >> 1) & (p >> 2)
                r |= (q & (p << 1)) | (q & (p >> 3))
                a = p << d1
                b = p >> d1
                q = a & (p << d2)
                r |= (q & (p << d3)) | (q & b)
                q = b & (p >> d2)
                r |= (q & a) | (q & (p >> d3))
                a = p << e1
                b = p >> e1
                q = a & (p << e2)
                r |= (q & (p << e3)) | (q & b)
                q = b & (p >> e2)
                r |= (q & a) | (q & (p >> e3))
                r &= empty
                # Winning cells the opponent must answer at once first, then the
                # lines left one short, then central cells.
                score = (r & reach).bit_count() * 1000 + r.bit_count() * 10 + weight[index]
                ordered.append(
                    (score, index, child_mask, child_mask_t, child_row_lands, child_column_lands)
                )
            if not ordered:  # every move lets the opponent win at once
                return -((cells - stones) // 2)
            # The opponent cannot win with its next stone: at worst with the one after.
            low = -((cells - 2 - stones) // 2)
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
            ordered.sort(reverse=True)
            weights = x_weights if stones % 2 == 0 else o_weights
            for _, index, child_mask, child_mask_t, child_row_lands, child_column_lands in ordered:
                score = -negamax(
                    opponent,
                    current | (1 << index),
                    child_mask,
                    child_mask_t,
                    child_row_lands,
                    child_column_lands,
                    tuple([k + w for k, w in zip(keys, weights[index], strict=True)]),
                    stones + 1,
                    -beta,
                    -alpha,
                )
                if score >= beta:
                    if len(table) >= slots:
                        table.clear()
                    table[key] = score + lower_offset
                    return score
                if score > alpha:
                    alpha = score
            if len(table) >= slots:
                table.clear()
            table[key] = alpha - min_score + 1
            return alpha

        def count() -> int:
            return nodes

        def recheck() -> None:
            nonlocal next_check
            next_check = nodes

        return negamax, count, recheck
