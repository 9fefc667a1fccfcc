"""Pure-Python search core for top-entry gravity boards (Connect Four).

Pascal Pons' design, in plain ints: the board is column-major with one spare bit
above each column, ``current`` holds the stones of the side to move and ``mask``
every stone, so that ``current + mask`` is a unique key. The search is negamax with
alpha-beta on a null window, driven by a bisection on the score (``solve``), with a
transposition table of bounded size holding upper and lower bounds, move ordering by
threats created (centre first among equals), and early detection of forced and
losing positions ("non-losing moves").

The hot function is one closure with every constant bound as a default argument
(local variable access is the cheapest thing CPython does); helpers are inlined.
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


class TopEntrySearch(SearchCore):
    """Exact search for a ``width`` x ``height`` top-entry board, lines of four.

    ``table_size`` bounds the transposition table (entries: it is emptied when
    full); ``node_limit`` (a total of ``nodes``) and ``deadline`` (a
    ``time.perf_counter()`` value) bound the work: when either is reached,
    :class:`~partita.games.gravity._search.SearchExhausted` is raised.
    """

    def __init__(
        self,
        width: int = 7,
        height: int = 6,
        *,
        table_size: int = 1 << 20,
        node_limit: int | None = None,
        deadline: float | None = None,
    ) -> None:
        self.width = width
        self.height = height
        super().__init__(table_size, node_limit, deadline)
        stride = height + 1
        self.stride = stride
        self.bottom = sum(1 << (column * stride) for column in range(width))
        self.board = self.bottom * ((1 << height) - 1)
        self.column_masks = [((1 << height) - 1) << (column * stride) for column in range(width)]
        centre = (width - 1) / 2
        self.order = sorted(range(width), key=lambda column: (abs(column - centre), column))
        self._from_engine = BitMap(
            [(c * stride + height - 1 - r) for r in range(height) for c in range(width)]
        )
        self._start()

    # -- positions ----------------------------------------------------------------------
    def winning_cells(self, stones: int, mask: int) -> int:
        """Empty cells where ``stones`` would complete a line of four."""
        return winning_cells(stones, self.stride) & (self.board ^ mask)

    def can_win_next(self, current: int, mask: int) -> bool:
        return bool(self.winning_cells(current, mask) & ((mask + self.bottom) & self.board))

    def position(self, x: int, o: int) -> tuple[int, int, int]:
        """``(current, mask, stones)`` of a position given by compact row-major
        bitboards (cell ``r * width + c``, row 0 at the top), as the engine has them."""
        x_bits = self._from_engine(x)
        o_bits = self._from_engine(o)
        mask = x_bits | o_bits
        stones = mask.bit_count()
        return (x_bits if stones % 2 == 0 else o_bits), mask, stones

    # -- solving ---------------------------------------------------------------------------
    def score(self, x: int, o: int) -> int:
        """The exact score of a position (compact bitboards) nobody has won yet."""
        return self.solve(*self.position(x, o))

    def solve(self, current: int, mask: int, moves: int) -> int:
        """The exact score of a position nobody has won yet (side-to-move convention)."""
        cells = self.width * self.height
        if moves >= cells:
            return 0
        if self.can_win_next(current, mask):
            return (cells + 1 - moves) // 2
        low = -((cells - moves) // 2)
        high = (cells + 1 - moves) // 2
        negamax = self._negamax
        return bisect_score(
            lambda alpha, beta: negamax(current, mask, moves, alpha, beta, -1), low, high
        )

    def _build(self) -> Closures:
        """The negamax closure, with every constant bound locally."""
        stride = self.stride
        cells = self.width * self.height
        min_score = -(cells // 2) + 3
        max_score = (cells + 1) // 2 - 3
        lower_offset = max_score - 2 * min_score + 2
        lower_base = max_score - min_score + 1
        search = self
        slots = self.table_size
        nodes = 0
        next_check = 0

        def negamax(
            current: int,
            mask: int,
            moves: int,
            alpha: int,
            beta: int,
            threats: int,
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
            bottom: int = self.bottom,
            columns: tuple[int, ...] = tuple(self.column_masks[column] for column in self.order),
            table: dict[int, int] = self.table,
            table_get: Callable[[int], int | None] = self.table.get,
            cells: int = cells,
        ) -> int:
            # ``threats``: the cells where the opponent would complete a line (the
            # parent computed them while ordering its moves), or -1 if unknown.
            nonlocal nodes, next_check
            nodes += 1
            if nodes >= next_check:
                next_check = search._checkpoint(nodes)
            # The side to move cannot win at once (checked before the call), so it
            # wins at best with its next stone but one.
            high = (cells - 1 - moves) // 2
            if beta > high:
                beta = high
                if alpha >= beta:
                    return beta
            key = current + mask
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
            empty = board ^ mask
            if threats < 0:
                p = current ^ mask
                a = p << s1
                b = p >> s1
                q = a & (p << s2)
                r = (q & (p << s3)) | (q & b)
                q = b & (p >> s2)
                r |= (q & a) | (q & (p >> s3)) | ((p << 1) & (p << 2) & (p << 3))
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
            else:
                threats &= empty
            possible = (mask + bottom) & board
            forced = possible & threats
            if forced:
                if forced & (forced - 1):
                    return -((cells - moves) // 2)
                possible = forced
            possible &= ~(threats >> 1)
            if not possible:
                return -((cells - moves) // 2)
            if moves >= cells - 2:
                return 0
            # Neither side can win with its next stone.
            low = -((cells - 2 - moves) // 2)
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
            opponent = current ^ mask
            if possible & (possible - 1):
                # Order the moves by the lines they threaten to complete, centre first.
                ordered = []
                for column in columns:
                    move = possible & column
                    if move:
                        p = current | move
                        a = p << s1
                        b = p >> s1
                        q = a & (p << s2)
                        r = (q & (p << s3)) | (q & b)
                        q = b & (p >> s2)
                        r |= (q & a) | (q & (p >> s3)) | ((p << 1) & (p << 2) & (p << 3))
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
                        ordered.append((r.bit_count(), move, r))
                ordered.sort(key=_first, reverse=True)
                for _, move, r in ordered:
                    score = -negamax(opponent, mask | move, moves + 1, -beta, -alpha, r)
                    if score >= beta:
                        if len(table) >= slots:
                            table.clear()
                        table[key] = score + lower_offset
                        return score
                    if score > alpha:
                        alpha = score
            else:
                score = -negamax(opponent, mask | possible, moves + 1, -beta, -alpha, -1)
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


def _first(pair: tuple[int, int, int]) -> int:
    return pair[0]
