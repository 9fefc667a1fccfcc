"""The gravity games' heuristic and playout policy (Forza 4x4, Connect Four).

Both rest on *threats*: the empty cells where a side would complete a line, found
for the whole board at once with a few shifts of the bitboards (for each
direction and each place of the missing piece in a window, the AND of the shifted
pieces). A threat is *playable* when a piece entering somewhere would come to rest
on it now.

* The playout policy (after the examples' heuristic player, without its noise):
  win at once if possible, else block a playable threat of the opponent, else a
  random move. The *safe* one (Connect Four's) also keeps its random move off the
  cell right under an opponent's threat, where the next piece through the same
  entry would complete the opponent's line: who runs out of other moves first
  loses, as in the real game, instead of handing the line over at random.
* The evaluation: the side to move with a playable threat wins next ply (0.95); a
  side to move facing two playable threats loses (0.1, it can block one); else a
  logistic of the difference in open lines (windows holding pieces of one side
  only, weighted 1, 4, 16... by how full they are, a threat counting extra).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from partita.games.gravity.rules import Entry, GravityRules, GravityState

__all__ = ["GravityHeuristics", "evaluation", "rollout", "safe_rollout"]

#: The mover's expected score with a playable threat (it wins next ply) and when
#: facing two playable threats of the opponent (it can block only one).
WINNING = 0.95
LOSING = 0.1
#: Logistic scale of the open-lines difference.
SCALE = 12.0


class GravityHeuristics:
    """Threats, landing cells and open lines of one board configuration."""

    def __init__(self, rules: GravityRules) -> None:
        self.rules = rules
        width, height, length = rules.width, rules.height, rules.line_length
        self.length = length
        self.full = (1 << rules.cell_count) - 1
        self.windows = tuple(rules._windows)
        self.slides = rules._slides
        # Per direction: the bit shift of one step, and the cells a window may start on.
        self.directions: list[tuple[int, int]] = []
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            start = 0
            for row in range(height):
                for column in range(width):
                    end_c, end_r = column + dc * (length - 1), row + dr * (length - 1)
                    if 0 <= end_c < width and 0 <= end_r < height:
                        start |= 1 << (row * width + column)
            if start:
                self.directions.append((dr * width + dc, start))
        self.weights = (0,) + tuple(4 ** (count - 1) for count in range(1, length + 1))

    def threats(self, own: int, occupied: int) -> int:
        """The empty cells where ``own`` would complete a line of ``line_length``."""
        length = self.length
        if length == 4:
            return self._threats4(own) & ~occupied & self.full
        found = 0
        for step, start in self.directions:
            shifted = [
                (own >> (k * step) if step > 0 else own << (-k * step)) & start
                for k in range(length)
            ]
            for missing in range(length):
                cells = start
                for k in range(length):
                    if k != missing:
                        cells &= shifted[k]
                if cells:
                    offset = missing * step
                    found |= cells << offset if offset >= 0 else cells >> -offset
        return found & ~occupied & self.full

    def _threats4(self, own: int) -> int:
        """:meth:`threats` for lines of four, unrolled (the playouts' hot spot)."""
        found = 0
        for step, start in self.directions:
            if step > 0:
                a = own & start
                b = own >> step & start
                c = own >> 2 * step & start
                d = own >> 3 * step & start
                found |= (
                    b & c & d
                    | (a & c & d) << step
                    | (a & b & d) << 2 * step
                    | (a & b & c) << 3 * step
                )
            else:
                back = -step
                a = own & start
                b = own << back & start
                c = own << 2 * back & start
                d = own << 3 * back & start
                found |= (
                    b & c & d
                    | (a & c & d) >> back
                    | (a & b & d) >> 2 * back
                    | (a & b & c) >> 3 * back
                )
        return found

    def landing(self, occupied: int, move: Entry) -> int:
        """The bit of the cell ``move`` would come to rest on (``move`` legal)."""
        _, path, forward, step, far = self.slides[move.side][move.index]  # type: ignore[misc]
        blocked = occupied & path
        if not blocked:
            return far
        if forward:
            return (blocked & -blocked) >> step
        return 1 << (blocked.bit_length() - 1 + step)

    def sides(self, state: GravityState) -> tuple[int, int]:
        """The pieces of the side to move and of the other side."""
        return (state.o, state.x) if state.ply & 1 else (state.x, state.o)

    def choose(self, state: GravityState, rng: Any) -> Entry:
        """The playout policy: win, else block, else at random."""
        return self._policy(state, rng, safe=False)

    def choose_safe(self, state: GravityState, rng: Any) -> Entry:
        """The safe playout policy: win, else block, else at random among the moves
        that do not let the opponent complete a line through the same entry next."""
        return self._policy(state, rng, safe=True)

    def _policy(self, state: GravityState, rng: Any, safe: bool) -> Entry:
        moves = self.rules.legal_moves(state)
        own, other = self.sides(state)
        occupied = own | other
        mine = self.threats(own, occupied)
        theirs = self.threats(other, occupied)
        if mine or theirs:
            slides = self.slides
            blocks = []
            harmless = []
            for move in moves:
                # The landing cell (as :meth:`landing`, inlined: this is the playouts'
                # inner loop) and, for the safe policy, the next one through the same
                # entry: one step back along the path.
                _, path, forward, step, far = slides[move.side][move.index]  # type: ignore[misc]
                blocked = occupied & path
                if not blocked:
                    cell = far
                elif forward:
                    cell = (blocked & -blocked) >> step
                else:
                    cell = 1 << (blocked.bit_length() - 1 + step)
                if cell & mine:
                    return move
                if cell & theirs:
                    blocks.append(move)
                elif safe and not (cell >> step if forward else cell << step) & path & theirs:
                    harmless.append(move)
            if blocks:
                return blocks[0] if len(blocks) == 1 else rng.choice(blocks)
            if harmless:
                return harmless[int(rng.random() * len(harmless))]
        return moves[int(rng.random() * len(moves))]

    def evaluate(self, state: GravityState) -> tuple[float, float]:
        """Expected scores of x and o (the position is not over)."""
        own, other = self.sides(state)
        occupied = own | other
        mine = self.threats(own, occupied)
        theirs = self.threats(other, occupied)
        playable = 0
        if mine or theirs:
            for move in self.rules.legal_moves(state):
                playable |= self.landing(occupied, move)
        if mine & playable:
            mover = WINNING
        elif (theirs & playable).bit_count() >= 2:
            mover = LOSING
        else:
            weights = self.weights
            balance = 0
            for window in self.windows:
                if not window & other:
                    balance += weights[(own & window).bit_count()]
                elif not window & own:
                    balance -= weights[(other & window).bit_count()]
            balance += 8 * (mine.bit_count() - theirs.bit_count())
            mover = 1.0 / (1.0 + math.exp(-balance / SCALE))
        return (1.0 - mover, mover) if state.ply & 1 else (mover, 1.0 - mover)


def evaluation(rules: GravityRules) -> Callable[[GravityState], tuple[float, float]]:
    """The spec's ``evaluation`` factory."""
    return GravityHeuristics(rules).evaluate


def rollout(rules: GravityRules) -> Callable[[GravityState, Any], Entry]:
    """The spec's ``rollout`` factory."""
    return GravityHeuristics(rules).choose


def safe_rollout(rules: GravityRules) -> Callable[[GravityState, Any], Entry]:
    """The spec's ``rollout`` factory for the safe policy (Connect Four's)."""
    return GravityHeuristics(rules).choose_safe
