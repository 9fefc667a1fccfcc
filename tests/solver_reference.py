"""Independent references for the solver tests: Connect Four positions from column
strings, random late positions, and exact scores by plain minimax over the engine
(tiny positions only)."""

from __future__ import annotations

import functools
import random
from typing import Any

from partita.game.registry import get_game
from partita.games.gravity.rules import GravityState


def connect4_state(columns: str) -> GravityState:
    """The Connect Four position after the moves of a column string (Pons' "4453")."""
    game = get_game("connect4")
    state = game.rules.initial()
    for move in game.moves_from_columns(columns):
        state = game.rules.apply(state, move)
    return state


def random_position(rules: Any, stones: int, rng: random.Random) -> Any | None:
    """The position after ``stones`` random moves, or ``None`` if the game ended
    (or no move was left) before that."""
    state = rules.initial()
    for _ in range(stones):
        moves = rules.legal_moves(state)
        if not moves:
            return None
        state = rules.apply(state, rng.choice(moves))
        if rules.outcome(state) is not None:
            return None
    return state


def minimax_score(rules: Any, state: GravityState) -> int:
    """Exact score in Pons' convention (generalised: cells / 2 + 1 minus the
    winner's stones), by plain minimax over the engine's moves."""
    cells = rules.width * rules.height

    @functools.cache
    def score(x: int, o: int, ply: int) -> int:
        current = GravityState(x, o, ply, 0)
        best = None
        for move in rules.legal_moves(current):
            child = rules.apply(current, move)
            if child.line:
                value = cells // 2 + 1 - (child.x if ply % 2 == 0 else child.o).bit_count()
            elif not rules.legal_moves(child):
                value = 0
            else:
                value = -score(child.x, child.o, child.ply)
            best = value if best is None else max(best, value)
        return 0 if best is None else best

    return score(state.x, state.o, state.ply)
