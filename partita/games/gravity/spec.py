"""The specs of Forza 4x4 and Connect Four (named in ``partita.games`` entry points).

Both share the threat heuristic and play out with a threat policy (win, else
block, else random); Connect Four's is the safe one, whose random move keeps off
the cell under an opponent's threat. A playout costs two to three times a random
one; the search wins much more with it at equal playouts, and no less at equal time
(see ``docs/analysis.md``).
"""

from __future__ import annotations

from partita.game.spec import GameSpec

__all__ = ["CONNECT4", "FORZA4X4"]

FORZA4X4 = GameSpec(
    name="forza4x4",
    title="Forza 4x4",
    notation="partita.games.gravity.notation:FORZA4X4",
    board="partita.games.gravity.board:GravityBoard",
    solver="partita.games.gravity.solver:Solver",
    fast_replay="partita.games.gravity.native_replay:fast_replay",
    evaluation="partita.games.gravity.heuristics:evaluation",
    rollout="partita.games.gravity.heuristics:rollout",
    docs="docs/forza4x4.md",
    rule_counters="partita.games.gravity.balance:rule_counters",
    openings="partita.games.gravity:openings/forza4x4.toml",
)

CONNECT4 = GameSpec(
    name="connect4",
    title="Connect Four",
    notation="partita.games.gravity.notation:CONNECT4",
    board="partita.games.gravity.board:GravityBoard",
    solver="partita.games.gravity.solver:Solver",
    fast_replay="partita.games.gravity.native_replay:fast_replay",
    evaluation="partita.games.gravity.heuristics:evaluation",
    rollout="partita.games.gravity.heuristics:safe_rollout",
    docs="docs/forza4x4.md",
    rule_counters="partita.games.gravity.balance:rule_counters",
    openings="partita.games.gravity:openings/connect4.toml",
)
