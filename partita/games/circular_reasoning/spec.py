"""The spec of Circular Reasoning (named in a ``partita.games`` entry point)."""

from __future__ import annotations

from partita.game.spec import GameSpec

__all__ = ["CIRCULAR_REASONING"]

CIRCULAR_REASONING = GameSpec(
    name="circular-reasoning",
    title="Circular Reasoning",
    notation="partita.games.circular_reasoning.notation:CIRCULAR_REASONING",
    board="partita.games.circular_reasoning.board:CircularReasoningBoard",
    evaluation="partita.games.circular_reasoning.heuristics:evaluation",
    rollout="partita.games.circular_reasoning.heuristics:rollout",
    # a playout of 20 plies, then the heuristic: as strong at equal time as 10 plies
    # with twice the playouts, and a larger budget gains more (docs/analysis.md)
    rollout_plies=20,
    docs="docs/circular-reasoning.md",
    rule_counters="partita.games.circular_reasoning.balance:rule_counters",
    openings="partita.games.circular_reasoning:openings.toml",
)
