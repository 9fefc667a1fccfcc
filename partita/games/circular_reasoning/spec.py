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
    rollout_plies=10,
    docs="docs/circular-reasoning.md",
    rule_counters="partita.games.circular_reasoning.balance:rule_counters",
    openings="partita.games.circular_reasoning:openings.toml",
)
