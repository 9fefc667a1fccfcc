"""The spec of Universal Forces (named in a ``partita.games`` entry point)."""

from __future__ import annotations

from partita.game.spec import GameSpec

__all__ = ["UNIVERSAL_FORCES"]

UNIVERSAL_FORCES = GameSpec(
    name="universal-forces",
    title="Universal Forces",
    notation="partita.games.universal_forces.notation:UNIVERSAL_FORCES",
    board="partita.games.universal_forces.board:UniversalForcesBoard",
    evaluation="partita.games.universal_forces.evaluation:evaluation",
    rollout="partita.games.universal_forces.heuristics:rollout",
    rollout_plies=0,
    # about 45 moves a position: a search tries the heuristic's favourites first
    extra={"search": {"widening": 2.0}},
    docs="docs/universal-forces.md",
    rule_counters="partita.games.universal_forces.balance:rule_counters",
    openings="partita.games.universal_forces:openings.toml",
)
