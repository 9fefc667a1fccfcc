"""Opening trees: which moves were played from a position, how often, how they scored.

Nodes are positions (position keys, so transpositions merge; with ``symmetry``
positions equal under a symmetry of the board merge too, and moves are mapped by
the same symmetry), edges are moves. Each edge carries the games that played it,
the results per side (won, drawn, lost), the score of the side that moved, the
first and last date, example game ids, and the games that reached the same
position by another move order (transpositions).

How it is built (and why: a networkx graph of every position of 10,000 games
costs seconds and hundreds of MB, plain structures a fraction of that):

1. the games' mainlines (the archive's ``moves`` column, canonical tokens) are
   walked into a prefix trie with the rules' trusted path (``apply``), to ``depth``
   plies after the root; shared prefixes are replayed once; each trie node keeps
   its state, its plain position key and its game count;
2. the tree grows level by level from the root, keeping only edges played by at
   least ``min_games`` games; a position's games are those of every trie node
   whose key is the position's (or, with ``symmetry``, one of its images), so
   transpositions count even through pruned lines; canonical keys are computed
   only for the positions that are kept and their children, with caching, and
   (placement boards) from the parent's images plus the placed piece's;
3. results, dates and examples are gathered for the kept edges only, and only
   the pruned graph is handed to networkx.

The modules: :mod:`.value` (``GameLine``, ``MoveStats``, ``OpeningTree``),
:mod:`.export` (JSON, DOT, GraphML), :mod:`.lines` (the games, from the archive or
from records), :mod:`.trie` (phase 1), :mod:`.symmetry` (canonical keys),
:mod:`.expand` (phase 2), :mod:`.gather` (phase 3), :mod:`.build` (the phases
together), :mod:`.from_archive` (configurations and trees of the archive's games).
"""

from __future__ import annotations

from partita.analysis.tree.build import EXAMPLES, GAMES_PER_MIN_GAME, build_tree, default_min_games
from partita.analysis.tree.from_archive import (
    choose_configuration,
    configurations_from_archive,
    tree_from_archive,
)
from partita.analysis.tree.lines import lines_from_archive, lines_from_records, move_reader
from partita.analysis.tree.value import GameLine, MoveStats, OpeningTree

__all__ = [
    "EXAMPLES",
    "GAMES_PER_MIN_GAME",
    "GameLine",
    "MoveStats",
    "OpeningTree",
    "build_tree",
    "choose_configuration",
    "configurations_from_archive",
    "default_min_games",
    "lines_from_archive",
    "lines_from_records",
    "move_reader",
    "tree_from_archive",
]
