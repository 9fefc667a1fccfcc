"""Annotating a game's decisive mistakes with the exact solver.

Each move of the mainline is judged against the solved position before it: a move
that turns a won position into a draw or a loss, or a drawn one into a loss, gets
the suffix ``??`` and a comment naming a move that kept the result
(``{t5 wins in 7}``: t5 wins, the winner playing 7 moves, t5 included;
``{t5 draws}``). Moves that only lose time (a slower win, a quicker loss) are not
marked. Positions the budget cannot solve are skipped and counted.

Positions are solved from the last move back to the first: late positions are
cheap, and what the solver learns there (its transposition table) speeds up the
earlier ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from partita.analysis.solving import DEFAULT_TABLE_SIZE, score_value, solver_for
from partita.errors import BudgetExceeded, PartitaError
from partita.notation.model import Node, Record

__all__ = ["DEFAULT_POSITION_BUDGET", "Annotation", "Blunder", "annotate_record", "kept_comment"]

#: Default node budget for solving one position of a game.
DEFAULT_POSITION_BUDGET = 200_000

_RANK = {"loss": 0, "draw": 1, "win": 2}


@dataclass(frozen=True, slots=True)
class Blunder:
    """A move that changed the theoretical result: its ply (from 1), its token,
    the position's value and score before it, the value and score it left, and the
    comment naming a move that kept the result."""

    ply: int
    move: str
    value_before: str
    score_before: int
    value_after: str
    score_after: int
    comment: str


@dataclass(slots=True)
class Annotation:
    """What :func:`annotate_record` did: the blunders found, how many positions were
    solved, and the plies whose position the budget could not solve."""

    blunders: list[Blunder] = field(default_factory=list)
    solved: int = 0
    unsolved: list[int] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "solved": self.solved,
            "unsolved": self.unsolved,
            "blunders": [
                {
                    "ply": blunder.ply,
                    "move": blunder.move,
                    "before": {"value": blunder.value_before, "score": blunder.score_before},
                    "after": {"value": blunder.value_after, "score": blunder.score_after},
                    "comment": blunder.comment,
                }
                for blunder in self.blunders
            ],
        }


def kept_comment(token: str, solution: Any) -> str:
    """``t5 wins in 7`` or ``t5 draws``: a move keeping ``solution``'s result."""
    if solution.score == 0:
        return f"{token} draws"
    count = solution.own_moves(solution.score)
    verb = "wins" if solution.score > 0 else "loses"
    return f"{token} {verb} in {count}"


def annotate_record(
    record: Record,
    *,
    from_ply: int = 1,
    max_nodes: int | None = DEFAULT_POSITION_BUDGET,
    max_seconds: float | None = None,
    table_size: int = DEFAULT_TABLE_SIZE,
    solver: Any = None,
) -> Annotation:
    """Mark the decisive mistakes of ``record``'s mainline, in place.

    Moves from ply ``from_ply`` (counted from 1) are judged; each position gets at
    most ``max_nodes`` nodes and ``max_seconds`` seconds of search. The record's
    game must be one the solver handles (``PartitaError`` otherwise, or when the
    record cannot be replayed at all). Moves after the first illegal one are left
    alone, as replay leaves them.
    """
    # Imported here: the replay loads the games' grammars, and the CLI imports this
    # module at start-up for DEFAULT_POSITION_BUDGET.
    from partita.notation.replay import replay

    replayed = replay(record)
    game = replayed.game
    if game is None or replayed.initial_state is None:
        reason = "; ".join(problem.message for problem in replayed.problems[:1])
        raise PartitaError(f"cannot replay this record: {reason or 'unknown game or setup'}")
    if solver is None:
        solver = solver_for(game, table_size=table_size)
    elif solver.rules.name != game.rules.name:
        raise PartitaError(f"a {solver.rules.name} solver cannot judge a {game.name} game")
    rules = game.rules
    played: list[tuple[int, Node, Any, Any]] = []
    state = replayed.initial_state
    for ply, node in enumerate(record.root.mainline(), start=1):
        if ply > replayed.plies:
            break
        assert node.move is not None, "only the root holds no move"
        move = game.parse_move(state, node.move)
        if ply >= from_ply:
            played.append((ply, node, state, move))
        state = rules.apply(state, move)
    annotation = Annotation()
    for ply, node, before, move in reversed(played):
        try:
            solution = solver.solve(before, max_nodes=max_nodes, max_seconds=max_seconds)
        except BudgetExceeded:
            annotation.unsolved.append(ply)
            continue
        annotation.solved += 1
        move_score = next(item.score for item in solution.moves if item.move == move)
        if _RANK[score_value(move_score)] >= _RANK[solution.value]:
            continue
        kept = game.format_move(before, solution.best[0])
        comment = kept_comment(kept, solution)
        node.suffix = "??"
        node.comments.append(comment)
        annotation.blunders.append(
            Blunder(
                ply=ply,
                move=game.format_move(before, move),
                value_before=solution.value,
                score_before=solution.score,
                value_after=score_value(move_score),
                score_after=move_score,
                comment=comment,
            )
        )
    annotation.blunders.reverse()
    annotation.unsolved.reverse()
    return annotation
