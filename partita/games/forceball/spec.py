"""The spec of Forceball (named in a ``partita.games`` entry point)."""

from __future__ import annotations

from partita.game.spec import GameSpec

__all__ = ["FORCEBALL"]

FORCEBALL = GameSpec(
    name="forceball",
    title="Forceball",
    notation="partita.games.forceball.notation:FORCEBALL",
    board="partita.games.forceball.board:ForceballBoard",
    report_sections=("partita.games.forceball.report:forceball_section",),
    commands=("partita.games.forceball.cli:decks",),
    evaluation="partita.games.forceball.heuristics:evaluation",
    rollout="partita.games.forceball.heuristics:rollout",
    rollout_plies=10,
    docs="docs/forceball.md",
    rule_counters="partita.games.forceball.balance:rule_counters",
)
