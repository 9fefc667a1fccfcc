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
    # the heuristic scores each new position at once: the playout policy (the
    # examples' player) loses every game to greedy, and its playouts made the
    # search weaker and slower (benchmarks/results/2026-12-06-forceball-agents.md)
    rollout_plies=0,
    # 20-40 candidate turns a position, and a budget of a few dozen playouts a
    # determinized table: the search goes deeper along the heuristic's favourites
    # (mcts:200 against mcts:50 0.810 with, 0.560 without, over 100 and 200 games;
    # benchmarks/results/2026-12-06-forceball-answers.md)
    extra={"search": {"widening": 1.0}},
    docs="docs/forceball.md",
    rule_counters="partita.games.forceball.balance:rule_counters",
)
