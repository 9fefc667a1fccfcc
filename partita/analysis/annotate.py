"""Annotating a game: every side's expected score before and after each move.

Each position of the mainline gets a value, the expected score of every side (seat
order, 1 a win, 0 a loss, 1/2 a shared draw): from the outcome once the game is
over; from the game's exact solver where it has one and the position is within
its budget (a win is 1, a draw 1/2); from an agent's search otherwise (``mcts:N``
by default, or ``greedy``). A move is judged by the drop in its mover's expected
score from the position before it to the position after it:

* more than :data:`BLUNDER` (0.35): ``??``; more than :data:`MISTAKE` (0.15): ``?``;
* a move that was the only one, a chance move, or a move the search itself ranks
  best is never marked; where a search values the position before the move, the
  drop must also show within that search (its best move's value against the
  played move's), so that two searches' noise alone marks nothing;
* exact values only drop by whole results (a win thrown into a draw drops by 1/2),
  so with the solver ``??`` marks exactly the moves that changed the theoretical
  result, as before.

The record is annotated in place: after each judged move a machine-readable
comment ``[%eval 0.62,0.38]`` (the expected scores after it, two decimals, seat
order), before the first judged move the same for the position it starts from;
the NAG on marked moves, with a comment naming a better move (``t5 wins in 7``,
``t5 draws`` from the solver; ``t5 was better: 0.71`` from a search, the mover's
expected score after it). Comments ``[%eval ...]`` from an earlier run are
replaced.

In a hidden-information game (Forceball) each move is judged from what its mover
knew: both positions are searched from the mover's information only (see
:mod:`partita.analysis.mcts`); a chance ply (a shuffle, a face-off) is valued from
the information of the side that moves next.

Positions are solved from the last move back to the first (late positions are
cheap, and what the solver learns there speeds up the earlier ones); the rest are
searched in order, each with its own seed (``seed`` and the position's index), so
an annotation is the same every run for a budget in playouts.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from partita.analysis.agents import Agent, agent_from_spec
from partita.analysis.mcts import MIN_VISITS
from partita.analysis.solving import DEFAULT_TABLE_SIZE, has_solver, score_value, solver_for
from partita.errors import BudgetExceeded, PartitaError
from partita.games.base import CHANCE, Rules
from partita.notation.model import Node, Record

__all__ = [
    "BLUNDER",
    "DEFAULT_AGENT",
    "DEFAULT_POSITION_BUDGET",
    "MISTAKE",
    "Annotation",
    "PlyAnnotation",
    "annotate_record",
    "eval_comment",
    "kept_comment",
    "parse_eval_comment",
]

#: Default node budget for solving one position of a game.
DEFAULT_POSITION_BUDGET = 200_000
#: The agent that values positions the solver does not.
DEFAULT_AGENT = "mcts:1000"
#: Drops in the mover's expected score that earn ``?`` and ``??``.
MISTAKE = 0.15
BLUNDER = 0.35
BLUNDER_NAG, MISTAKE_NAG = "??", "?"

_EVAL = re.compile(r"\[%eval ([0-9.]+(?:,[0-9.]+)*)\]")
_EXACT_VALUE = {"win": 1.0, "draw": 0.5, "loss": 0.0}

#: Where a value comes from: the game is over, the exact solver, a search.
END, EXACT, SEARCH = "end", "exact", "search"


def eval_comment(value: tuple[float, ...]) -> str:
    """``[%eval 0.62,0.38]``: expected scores in seat order, two decimals."""
    return "[%eval " + ",".join(f"{part:.2f}" for part in value) + "]"


def parse_eval_comment(comment: str) -> tuple[float, ...] | None:
    """The values of an ``[%eval ...]`` comment, ``None`` if it holds none."""
    match = _EVAL.search(comment)
    if match is None:
        return None
    return tuple(float(part) for part in match.group(1).split(","))


def kept_comment(token: str, solution: Any) -> str:
    """``t5 wins in 7`` or ``t5 draws``: a move keeping ``solution``'s result."""
    if solution.score == 0:
        return f"{token} draws"
    count = solution.own_moves(solution.score)
    verb = "wins" if solution.score > 0 else "loses"
    return f"{token} {verb} in {count}"


@dataclass(frozen=True, slots=True)
class _Value:
    """A position's value: expected scores, where they come from, and what stands
    behind them (the solver's solution or the search's result)."""

    value: tuple[float, ...]
    source: str
    solution: Any = None
    search: Any = None


@dataclass(frozen=True, slots=True)
class PlyAnnotation:
    """One judged ply: its number (from 1) and move; the seat that played it (``None``
    for the chance side); every side's expected score before and after it, and
    where each comes from (``end``, ``exact``, ``search``); the mover's drop; the
    NAG given (``""``, ``?``, ``??``); a better move and the comment naming it.
    ``value_before``/``score_before`` (and after) are the solver's ``win``/``draw``/
    ``loss`` and score where the position was solved exactly."""

    ply: int
    move: str
    mover: int | None
    before: tuple[float, ...]
    after: tuple[float, ...]
    source_before: str
    source_after: str
    drop: float
    nag: str = ""
    better: str | None = None
    comment: str | None = None
    value_before: str | None = None
    score_before: int | None = None
    value_after: str | None = None
    score_after: int | None = None

    def as_dict(self) -> dict:
        return {
            "ply": self.ply,
            "move": self.move,
            "mover": self.mover,
            "before": [round(part, 4) for part in self.before],
            "after": [round(part, 4) for part in self.after],
            "source": {"before": self.source_before, "after": self.source_after},
            "drop": round(self.drop, 4),
            "nag": self.nag,
            "better": self.better,
            "comment": self.comment,
            "exact": {
                "before": None
                if self.value_before is None
                else {"value": self.value_before, "score": self.score_before},
                "after": None
                if self.value_after is None
                else {"value": self.value_after, "score": self.score_after},
            },
        }


@dataclass(slots=True)
class Annotation:
    """What :func:`annotate_record` found: every judged ply, the value of the
    position the judged moves start from, how many positions the solver solved and
    the plies whose position was beyond its budget (valued by the agent instead)."""

    game: str
    sides: int
    agent: str
    seed: int
    start: tuple[float, ...] = ()
    plies: list[PlyAnnotation] = field(default_factory=list)
    solved: int = 0
    unsolved: list[int] = field(default_factory=list)
    searched: int = 0

    @property
    def marked(self) -> list[PlyAnnotation]:
        """The plies given ``?`` or ``??``."""
        return [ply for ply in self.plies if ply.nag]

    @property
    def blunders(self) -> list[PlyAnnotation]:
        """The plies given ``??``."""
        return [ply for ply in self.plies if ply.nag == "??"]

    def as_dict(self) -> dict:
        """The object `partita annotate --json` prints."""
        return {
            "game": self.game,
            "sides": self.sides,
            "agent": self.agent,
            "seed": self.seed,
            "thresholds": {"?": MISTAKE, "??": BLUNDER},
            "start": [round(part, 4) for part in self.start],
            "solved": self.solved,
            "unsolved": self.unsolved,
            "searched": self.searched,
            "marked": [ply.ply for ply in self.marked],
            "plies": [ply.as_dict() for ply in self.plies],
        }


@dataclass(slots=True)
class _Ply:
    number: int
    node: Node | None  # None: a forced pass the record left out
    before: Any
    move: Any
    after: Any


def annotate_record(
    record: Record,
    *,
    agent: str | Agent = DEFAULT_AGENT,
    seed: int = 0,
    from_ply: int = 1,
    max_nodes: int | None = DEFAULT_POSITION_BUDGET,
    max_seconds: float | None = None,
    table_size: int = DEFAULT_TABLE_SIZE,
    solver: Any = None,
    exact: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Annotation:
    """Value every position of ``record``'s mainline and mark its mistakes, in place.

    Moves from ply ``from_ply`` (counted from 1) are judged. Where the game has an
    exact solver (and ``exact``), each position gets at most ``max_nodes`` nodes
    and ``max_seconds`` seconds of it; the others are valued by ``agent`` (a spec
    such as ``mcts:1000`` or an :class:`~partita.analysis.agents.Agent`), seeded
    by ``seed``. ``progress(done, total)`` is called after each position.
    ``PartitaError`` when the record cannot be replayed at all or the agent spec
    is bad. Moves after the first illegal one are left alone, as replay leaves them.
    """
    # Imported here: the replay loads the games' grammars, and the CLI imports this
    # module at start-up for DEFAULT_POSITION_BUDGET.
    from partita.notation.replay import replay

    replayed = replay(record)
    game = replayed.game
    if game is None or replayed.initial_state is None:
        reason = "; ".join(problem.message for problem in replayed.problems[:1])
        raise PartitaError(f"cannot replay this record: {reason or 'unknown game or setup'}")
    rules = game.rules
    searcher = agent if isinstance(agent, Agent) else agent_from_spec(agent, game, seed=seed)
    if searcher.rules.name != rules.name:
        raise PartitaError(f"a {searcher.rules.name} agent cannot judge a {game.name} game")
    if exact and solver is None and has_solver(game):
        solver = solver_for(game, table_size=table_size)
    elif solver is not None and solver.rules.name != rules.name:
        raise PartitaError(f"a {solver.rules.name} solver cannot judge a {game.name} game")
    if not exact:
        solver = None

    plies = _mainline_plies(record, game, replayed)
    states = [replayed.initial_state] + [ply.after for ply in plies]
    first = min(max(from_ply, 1), len(plies) + 1) - 1  # index of the first judged position
    sides = rules.sides(replayed.initial_state)
    annotation = Annotation(game.name, sides, searcher.spec, seed)
    hidden = rules.hidden_information

    def viewer_of(index: int) -> int | None:
        """Whose information values the position before ply ``index + 1``."""
        if not hidden:
            return None
        for ply in plies[index:] + plies[:index][::-1]:
            side = rules.side_to_move(ply.before)
            if side != CHANCE:
                return side
        return 0

    # Which (position, viewer) pairs are needed: the position before each judged
    # ply and the one after it, from that ply's viewer.
    wanted: dict[tuple[int, int | None], None] = {}  # ordered, without repeats
    for index in range(first, len(plies)):
        viewer = viewer_of(index)
        wanted[(index, viewer)] = wanted[(index + 1, viewer)] = None
    wanted[(first, viewer_of(first))] = None
    values: dict[tuple[int, int | None], _Value] = {}
    total = len(wanted)
    done = 0

    def advance() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    # Game over: exact. The solver: from the last position back to the first.
    pending = []
    for key in wanted:
        outcome = rules.outcome(states[key[0]])
        if outcome is not None:
            values[key] = _Value(tuple(float(score) for score in outcome.scores), END)
            advance()
        else:
            pending.append(key)
    if solver is not None:
        for key in sorted(pending, key=lambda key: key[0], reverse=True):
            try:
                solution = solver.solve(
                    states[key[0]], max_nodes=max_nodes, max_seconds=max_seconds
                )
            except BudgetExceeded:
                continue
            values[key] = _Value(
                _exact_value(rules, states[key[0]], solution.value), EXACT, solution
            )
            annotation.solved += 1
            advance()
    for key in pending:
        if key in values:
            continue
        position, viewer = key
        rng = random.Random(seed * 1_000_003 + position)
        history = [(ply.before, ply.move) for ply in plies[:position]] if hidden else ()
        result = searcher.evaluate(states[position], rng, viewer=viewer, history=history)
        values[key] = _Value(tuple(result.value), SEARCH, search=result)
        annotation.searched += 1
        advance()

    annotation.start = values[(first, viewer_of(first))].value
    _write_eval(record.root if first == 0 else plies[first - 1].node, annotation.start)
    for index in range(first, len(plies)):
        ply = plies[index]
        viewer = viewer_of(index)
        before, after = values[(index, viewer)], values[(index + 1, viewer)]
        judged = _judge(game, ply, before, after)
        annotation.plies.append(judged)
        if before.source == SEARCH and solver is not None:
            annotation.unsolved.append(ply.number)
        if ply.node is not None:
            _write_eval(ply.node, after.value)
            if judged.nag:
                ply.node.suffix = judged.nag
                if judged.comment:
                    ply.node.comments.append(judged.comment)
    return annotation


def _exact_value(rules: Any, state: Any, value: str) -> tuple[float, ...]:
    """A solved two-sided position's expected scores from its value for the mover."""
    mover = rules.side_to_move(state)
    share = _EXACT_VALUE[value]
    return (share, 1.0 - share) if mover == 0 else (1.0 - share, share)


def _mainline_plies(record: Record, game: Any, replayed: Any) -> list[_Ply]:
    """The legal prefix of the mainline, ply by ply (omitted forced passes included)."""
    from partita.notation.replay import PASS_TOKEN

    rules = game.rules
    state = replayed.initial_state
    plies: list[_Ply] = []
    for node in record.root.mainline():
        if len(plies) >= replayed.plies:
            break
        forced = rules.forced_pass(state)
        if forced is not None and node.move != PASS_TOKEN:
            after = rules.apply(state, forced)
            plies.append(_Ply(len(plies) + 1, None, state, forced, after))
            state = after
            if len(plies) >= replayed.plies:
                break
        move = game.parse_move(state, node.move)
        after = rules.apply(state, move)
        plies.append(_Ply(len(plies) + 1, node, state, move, after))
        state = after
    return plies


def _write_eval(node: Node | None, value: tuple[float, ...]) -> None:
    """Put ``[%eval ...]`` on ``node``, replacing one an earlier run left."""
    if node is None:
        return
    node.comments[:] = [comment for comment in node.comments if not _EVAL.fullmatch(comment)]
    node.comments.append(eval_comment(value))


def _judge(game: Any, ply: _Ply, before: _Value, after: _Value) -> PlyAnnotation:
    rules = game.rules
    mover = rules.side_to_move(ply.before)
    token = game.format_move(ply.before, ply.move)
    exact_before = before.solution
    exact_after = after.solution
    fields: dict[str, Any] = {}
    if exact_before is not None:
        fields["value_before"], fields["score_before"] = exact_before.value, exact_before.score
    if exact_after is not None:
        fields["value_after"], fields["score_after"] = exact_after.value, exact_after.score
        # The solver's value is the side to move's; from the mover's side it is reversed
        # when the turn passes.
        if rules.side_to_move(ply.after) != mover:
            fields["value_after"] = {"win": "loss", "loss": "win"}.get(
                exact_after.value, exact_after.value
            )
            fields["score_after"] = -exact_after.score
    elif after.source == END and exact_before is not None:
        move_score = next(item.score for item in exact_before.moves if item.move == ply.move)
        fields["value_after"], fields["score_after"] = score_value(move_score), move_score
    if mover == CHANCE:
        return PlyAnnotation(
            ply.number,
            token,
            None,
            before.value,
            after.value,
            before.source,
            after.source,
            0.0,
            **fields,
        )
    drop = before.value[mover] - after.value[mover]
    nag = BLUNDER_NAG if drop > BLUNDER else MISTAKE_NAG if drop > MISTAKE else ""
    better = comment = None
    if nag and _forced(rules, ply.before):
        nag = ""
    if nag and before.source == EXACT:
        kept = exact_before.best[0]
        better = game.format_move(ply.before, kept)
        comment = kept_comment(better, exact_before)
    elif nag and before.source == SEARCH:
        best = before.search.best
        if best is None or best == ply.move:
            nag = ""  # the search ranks the move best: the drop is its own noise
        else:
            value = before.search.statistics(best).value[mover]
            played = before.search.statistics(ply.move)
            noisy = after.source == SEARCH and not after.search.exact
            if noisy and played is not None and played.visits >= MIN_VISITS:
                # Both views must show the drop: the two positions' values, and the
                # best move against the played one within the search before it.
                inner = value - played.value[mover]
                judged_drop = min(drop, inner)
                nag = (
                    BLUNDER_NAG
                    if judged_drop > BLUNDER
                    else MISTAKE_NAG
                    if judged_drop > MISTAKE
                    else ""
                )
            if nag:
                better = game.format_move(ply.before, best)
                comment = f"{better} was better: {value:.2f}"
    return PlyAnnotation(
        ply.number,
        token,
        mover,
        before.value,
        after.value,
        before.source,
        after.source,
        drop,
        nag,
        better,
        comment,
        **fields,
    )


def _forced(rules: Rules, state: Any) -> bool:
    """Whether the mover had no choice: one legal move, in a game that lists them all
    (the contract: one that overrides ``sample_move`` may list a subset)."""
    if type(rules).sample_move is not Rules.sample_move:
        return False
    return len(rules.legal_moves(state)) <= 1
