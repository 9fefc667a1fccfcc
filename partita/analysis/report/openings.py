"""The opening tree as the report shows it: players' moves only, within a budget.

Chance moves (a shuffle, a deal, a face-off: the rules' ``CHANCE`` side) are no
openings. The report steps through them: the moves shown at a level are the
players' moves reached from the positions above through chance moves only, and the
same move played after different shuffles is one row (its games, results and
examples summed). In a game without chance every group is one position and the rows
are the tree's own moves.

A long tree is pruned to :attr:`~partita.analysis.report.options.ReportOptions.tree_rows`
rows: the most played moves are kept (a move is never kept without the moves that
lead to it), and the part says how many were left out.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from partita.analysis.report.options import ReportOptions
from partita.analysis.report.tallies import wdl_bar
from partita.analysis.tree import MoveStats, OpeningTree
from partita.game.notation import GameNotation
from partita.game.rules import CHANCE
from partita.notation.replay import move_label

__all__ = ["OpeningMove", "chance_plies", "opening_moves", "tree_rows"]


@dataclass(slots=True)
class OpeningMove:
    """One players' move of the report's tree: the tree's edges with this label
    from one group of positions (one edge unless chance moves came before)."""

    move: str
    edges: list[MoveStats] = field(default_factory=list)

    @property
    def games(self) -> int:
        return sum(edge.games for edge in self.edges)

    @property
    def wdl(self) -> tuple[int, int, int]:
        tallies = [edge.wdl for edge in self.edges]
        return (
            sum(tally[0] for tally in tallies),
            sum(tally[1] for tally in tallies),
            sum(tally[2] for tally in tallies),
        )

    @property
    def unfinished(self) -> int:
        return sum(edge.unfinished for edge in self.edges)

    @property
    def score(self) -> float | None:
        won, drawn, lost = self.wdl
        decided = won + drawn + lost
        return (won + drawn / 2) / decided if decided else None

    @property
    def transpositions(self) -> int:
        return sum(edge.transpositions for edge in self.edges)

    @property
    def examples(self) -> tuple[int, ...]:
        """Up to three example games, those of the most played edges first."""
        found: dict[int, None] = {}
        for edge in sorted(self.edges, key=lambda edge: -edge.games):
            found.update(dict.fromkeys(edge.examples))
        return tuple(found)[:3]

    @property
    def last_date(self) -> str | None:
        dates = [edge.last_date for edge in self.edges if edge.last_date]
        return max(dates) if dates else None

    @property
    def children(self) -> list[Hashable]:
        return list(dict.fromkeys(edge.child for edge in self.edges))

    @property
    def parent(self) -> Hashable:
        return self.edges[0].parent


def opening_moves(tree: OpeningTree, positions: Iterable[Hashable]) -> list[OpeningMove]:
    """The players' moves from ``positions``, through any chance moves, most played
    first (then by move)."""
    grouped: dict[str, OpeningMove] = {}
    stack = list(positions)[::-1]
    visited: set[Hashable] = set()
    while stack:
        position = stack.pop()
        if position in visited:
            continue
        visited.add(position)
        for stats in reversed(tree.moves(position)):
            if stats.mover < 0:  # a chance move: look through it
                stack.append(stats.child)
            else:
                grouped.setdefault(stats.move, OpeningMove(stats.move)).edges.append(stats)
    return sorted(grouped.values(), key=lambda move: (-move.games, move.move))


def chance_plies(notation: GameNotation, starts: Iterable[tuple[Any, str]], moves: int) -> int:
    """How many chance plies come before the ``moves``-th players' move, at most,
    over games given as ``(initial state, mainline)``: what the tree's depth needs
    on top of ``moves`` so that the report shows that many players' moves."""
    rules = notation.rules
    read = notation.parse_move
    most = 0
    for state, mainline in starts:
        chance = real = 0
        for token in mainline.split():
            if real >= moves:
                break
            if rules.side_to_move(state) == CHANCE:
                chance += 1
            else:
                real += 1
            state = rules.apply(state, read(state, token))
        most = max(most, chance)
    return most


def tree_rows(tree: OpeningTree, options: ReportOptions) -> dict:
    """The tree as rows, depth first: at most ``moves_per_position`` moves a
    position and ``depth`` players' moves deep, each with its line from the root
    and its W/D/L bar; pruned to ``tree_rows`` rows (see the module docstring).
    Gives ``rows``, ``total`` (the rows before pruning) and ``budget``."""
    rules = tree.game.rules
    rows: list[dict] = []
    stack: list[tuple[int, OpeningMove, list[str], int]] = [
        (1, move, [], tree.node_games())
        for move in reversed(opening_moves(tree, [tree.root])[: options.moves_per_position])
    ]
    seen = {tree.root}
    while stack:
        level, move, line, above = stack.pop()
        label = f"{move_label(rules, tree.states[move.parent])} {move.move}"
        won, drawn, lost = move.wdl
        games = move.games
        row = {
            "level": level,
            "line": " ".join([*line, label]),
            "label": label,
            "move": move.move,
            "games": games,
            "share": games / above if above else 0.0,
            "won": won,
            "drawn": drawn,
            "lost": lost,
            "unfinished": move.unfinished,
            "score": move.score,
            "transpositions": move.transpositions,
            "examples": move.examples,
            "last_date": move.last_date,
            "bar": wdl_bar(won, drawn, lost, move.unfinished),
            "transposed": False,
        }
        rows.append(row)
        children = move.children
        if len(children) == 1 and children[0] in seen:
            # Reached before by another move order: its moves are listed there.
            row["transposed"] = bool(tree.moves(children[0]))
            continue
        if level >= options.depth:
            continue
        seen.update(children)
        # A move's share: of the games that stood where it was played.
        reached = sum(tree.node_games(child) for child in children)
        following = opening_moves(tree, children)[: options.moves_per_position]
        for child in reversed(following):
            stack.append((level + 1, child, [*line, label], reached))
    total = len(rows)
    if total > options.tree_rows:
        # The most played rows; a parent has at least its children's games and a
        # lower level, so the chosen rows always include the moves leading to them.
        ranked = sorted(
            range(total), key=lambda index: (-rows[index]["games"], rows[index]["level"], index)
        )
        kept = set(ranked[: options.tree_rows])
        rows = [row for index, row in enumerate(rows) if index in kept]
    return {"rows": rows, "total": total, "budget": options.tree_rows}
