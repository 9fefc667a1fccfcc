"""Annotating a game: every side's expected score at each ply, how sure it is, and
the moves that threw some of it away.

Each position of the mainline gets a value, the expected score of every side (seat
order, 1 a win, 0 a loss, 1/2 a shared draw), and says where it comes from: the
outcome once the game is over (``end``); the game's exact solver where it has one
and the position is within its budget (``exact``: a win is 1, a draw 1/2); a search
otherwise (``search``: ``mcts:N`` by default, or ``greedy``), reported with its
budget, the playouts behind it and a confidence interval.

A move is judged inside one valuation of the position before it, never by the
difference of two:

* where the solver valued that position, by the exact scores of its moves: the
  played move's result against the best one's (a win thrown into a draw drops by
  1/2), so ``??`` marks exactly the moves that changed the theoretical result;
* where a search valued it, by the played move's value against the search's best
  move's in that same search. The played move is searched until it has at least
  :func:`forced_visits` playouts, so that the two are compared on evidence; each
  value has a Wilson interval at :data:`CONFIDENCE_Z` over its playouts (none for
  a value the search proved, or one the solver or the outcome gives after the
  move). The mark follows the drop the evidence carries, the best move's lower
  bound less the played move's upper bound: the drop beyond the search's
  uncertainty, so the intervals must be apart by more than the threshold:

  * more than :data:`BLUNDER` (0.35): ``??``; more than :data:`MISTAKE` (0.15): ``?``.

  Once the value after the move is known (the search of the next position may
  prove the played move lost; a move the search itself preferred is then
  compared with its next choice), and before a mark is put, the best and the
  played move are each searched further, to :func:`verify_visits` playouts
  (half the root's), and judged again on that evidence. Where the game has a solver, the positions after the two moves are
  then solved within :data:`SETTLE_FACTOR` times a position's solver budget,
  and the mark stands on their exact values where it reaches them (a played
  move that keeps a win is never marked). A searched value against an exact one
  (a move proven lost against one the search finds good) carries a mark only
  where the search puts the searched move on the other side of an even score
  (1/2 for two sides): a searched mean is not a game-theoretic value, and a
  lost position often reads 0.4 to a search. Where the searched move is on the
  wrong side, it is first searched to :func:`mixed_visits` playouts (the
  root's) and read again, since a mean still climbs towards the move's value
  while the search of its replies settles. Where the evidence does not carry
  a mark, the values are still reported (``judgement`` in ``--json``);

* a move that was the only one, a chance move, or the move the search itself
  plays (unless it is then proven worse) is never marked.

With ``mcts:N`` in a game of perfect information one search tree follows the
game: the subtree under the move played becomes the root of the next position,
and each position is searched until its root has ``N`` playouts (those it
brought along included; at least ``N/4`` new), so consecutive values share their
evidence and do not swing with two searches' noise.

The record is annotated in place: after each judged move a machine-readable
comment ``[%eval 0.62,0.38] [%evalsrc mcts:1000 n=1000 ±0.04]`` (the expected
scores after it, two decimals, seat order; then where they come from:
``[%evalsrc end]``, ``[%evalsrc exact]``, or the search's budget, its root's
playouts and the half-width of the side to move's interval, ``proven`` for a
value the search proved), before the first judged move the same for the
position it starts from; the NAG on marked moves, with a comment naming a better
move (``t5 wins in 7``, ``t5 draws`` from the solver; ``t5 was better: 0.71`` from
a search, the mover's expected score after it). Comments ``[%eval ...]`` from an
earlier run are replaced.

In a hidden-information game (a card game) each move is judged from what its mover
knew: both positions are searched from the mover's information only (see
:mod:`partita.analysis.mcts`), each on its own (a determinized search keeps no
tree); a chance ply (a shuffle, a face-off) is valued from the information of the
side that moves next.

Positions are solved from the last move back to the first (late positions are
cheap, and what the solver learns there speeds up the earlier ones); the rest are
searched in order, seeded by ``seed``, so an annotation is the same every run for
a budget in playouts.
"""

from __future__ import annotations

import math
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from partita.analysis.agents import Agent, MctsAgent, agent_from_spec
from partita.analysis.defaults import DEFAULT_AGENT, DEFAULT_POSITION_BUDGET
from partita.analysis.mcts import SearchResult, SearchTree
from partita.analysis.solving import DEFAULT_TABLE_SIZE, has_solver, score_value, solver_for
from partita.errors import BudgetExceeded, PartitaError
from partita.game.rules import CHANCE, Rules
from partita.notation.model import Node, Record
from partita.notation.replay import PASS_TOKEN, replay

__all__ = [
    "BLUNDER",
    "CONFIDENCE_Z",
    "DEFAULT_AGENT",
    "DEFAULT_POSITION_BUDGET",
    "MISTAKE",
    "Annotation",
    "Judgement",
    "PlyAnnotation",
    "Valuation",
    "annotate_record",
    "eval_comment",
    "forced_visits",
    "interval",
    "kept_comment",
    "mixed_visits",
    "parse_eval_comment",
    "parse_evalsrc_comment",
    "verify_visits",
    "workers_refused",
]

#: Drops in the mover's expected score that earn ``?`` and ``??``.
MISTAKE = 0.15
BLUNDER = 0.35
BLUNDER_NAG, MISTAKE_NAG = "??", "?"
#: The normal quantile of the searched values' intervals (two-sided 99 %).
CONFIDENCE_Z = 2.576
#: The played move's least playouts: this share of its root's (and at least
#: :data:`FORCED_LEAST`).
FORCED_SHARE = 1 / 8
FORCED_LEAST = 32
#: Before a search marks a move, the best and the played move each get this share
#: of the root's playouts at least.
VERIFY_SHARE = 1 / 2
#: Where those two values are a searched one against an exact one and the searched
#: one sits on the wrong side of even to carry the mark, it gets this share of the
#: root's playouts at least before the mark is left out.
MIXED_SHARE = 1
#: The solver's budget for the positions after the two moves of a mark a search
#: is about to put, as a multiple of a position's (a mark is rare, so its check
#: may cost more than a position's value).
SETTLE_FACTOR = 10
#: New playouts a reused root gets at least, as a share of the budget.
NEW_SHARE = 1 / 4

_EVAL = re.compile(r"\[%eval ([0-9.]+(?:,[0-9.]+)*)\]")
_EVALSRC = re.compile(r"\[%evalsrc ([^\]]*)\]")
_OURS = re.compile(r"\[%eval [^\]]*\](?:\s+\[%evalsrc [^\]]*\])?")
_EXACT_VALUE = {"win": 1.0, "draw": 0.5, "loss": 0.0}

#: Where a value comes from: the game is over, the exact solver, a search.
END, EXACT, SEARCH = "end", "exact", "search"
#: A judgement comparing an exact value with a searched one.
MIXED = "mixed"


def interval(mean: float, visits: int, z: float = CONFIDENCE_Z) -> tuple[float, float]:
    """The Wilson score interval of a mean of ``visits`` playout results in 0-1.

    A playout's result is an expected score between 0 and 1 (a win, a draw, a
    loss, or the game's heuristic where the playout stopped): its variance is at
    most ``p(1 - p)``, that of a win-or-loss result, so the Wilson interval of
    that case bounds it. ``(0, 1)`` without playouts."""
    if visits <= 0:
        return (0.0, 1.0)
    mean = min(max(mean, 0.0), 1.0)
    z2 = z * z
    denominator = 1 + z2 / visits
    centre = (mean + z2 / (2 * visits)) / denominator
    half = z * math.sqrt(mean * (1 - mean) / visits + z2 / (4 * visits * visits)) / denominator
    return (max(centre - half, 0.0), min(centre + half, 1.0))


def forced_visits(root_visits: int) -> int:
    """The playouts a played move gets at least in the search of its position,
    before it is compared with the best move: an eighth of the root's, at least
    :data:`FORCED_LEAST`."""
    return max(FORCED_LEAST, math.ceil(root_visits * FORCED_SHARE))


def verify_visits(root_visits: int) -> int:
    """The playouts the best and the played move each get at least before a
    search marks the played one: half the root's, at least :data:`FORCED_LEAST`."""
    return max(FORCED_LEAST, math.ceil(root_visits * VERIFY_SHARE))


def mixed_visits(root_visits: int) -> int:
    """The playouts the searched move of a searched value against an exact one gets
    at least before the search reads it against even (:attr:`Judgement.carries`)
    and leaves the mark out: as many as the root's, at least :data:`FORCED_LEAST`."""
    return max(FORCED_LEAST, math.ceil(root_visits * MIXED_SHARE))


@dataclass(frozen=True, slots=True)
class Valuation:
    """Where a position's value comes from and how sure it is.

    ``source``: ``end`` (the outcome), ``exact`` (the solver; ``nodes`` it searched)
    or ``search`` (``agent``'s spec; ``visits`` the root's playouts, ``reused`` of
    them brought from the search of the position before, ``playouts`` run for this
    position; ``interval`` the side to move's value's; ``proven`` where the search
    proved the value, which is then exact). ``seconds``: the time it took."""

    source: str
    agent: str | None = None
    visits: int = 0
    playouts: int = 0
    reused: int = 0
    seconds: float = 0.0
    interval: tuple[float, float] | None = None
    proven: bool = False
    nodes: int | None = None

    @property
    def exact(self) -> bool:
        return self.source != SEARCH or self.proven

    def comment(self) -> str:
        """``[%evalsrc ...]``: ``end``, ``exact``, or ``mcts:1000 n=812 ±0.03``."""
        if self.source != SEARCH:
            return f"[%evalsrc {self.source}]"
        words = [self.agent or "search", f"n={self.visits}"]
        if self.proven:
            words.append("proven")
        elif self.interval is not None:
            low, high = self.interval
            words.append(f"±{(high - low) / 2:.2f}")
        return "[%evalsrc " + " ".join(words) + "]"

    def as_dict(self) -> dict:
        data: dict[str, Any] = {"source": self.source, "exact": self.exact}
        if self.source == EXACT:
            data["nodes"] = self.nodes
            data["seconds"] = round(self.seconds, 4)
        elif self.source == SEARCH:
            data.update(
                agent=self.agent,
                visits=self.visits,
                playouts=self.playouts,
                reused=self.reused,
                seconds=round(self.seconds, 4),
                interval=None
                if self.interval is None
                else [round(part, 4) for part in self.interval],
                proven=self.proven,
            )
        return data


@dataclass(frozen=True, slots=True)
class Judgement:
    """A move judged inside the search of the position before it: the search's
    best move and the played one, each with the mover's value, its interval and
    playouts (an exact value has a zero-width interval). ``drop`` is the best
    move's value less the played move's; ``sure_drop`` what the evidence carries of
    it, the best move's lower bound less the played move's upper bound (positive:
    the intervals are apart, ``separated``). ``best_exact`` and ``played_exact``
    say which value is exact (proven by the search, given by the solver or the
    outcome); ``basis`` sums them up: both searched (``search``), both exact
    (``exact``), or one of each (``mixed``); ``sides`` counts the game's sides.
    The mark follows ``sure_drop``, where the values can carry one
    (:attr:`carries`): a searched value is a mean of playouts, not a
    game-theoretic one (a won position may read 0.6 to ``mcts:1000``, a lost
    one 0.4), so a searched value against an exact one
    says little unless the search puts it on the other side of even."""

    best: str
    best_value: float
    best_interval: tuple[float, float]
    best_visits: int
    played_value: float
    played_interval: tuple[float, float]
    played_visits: int
    best_exact: bool = False
    played_exact: bool = False
    sides: int = 2

    @property
    def basis(self) -> str:
        if self.best_exact and self.played_exact:
            return EXACT
        return MIXED if self.best_exact or self.played_exact else SEARCH

    @property
    def drop(self) -> float:
        return self.best_value - self.played_value

    @property
    def carries(self) -> bool:
        """Whether these two values can carry a mark at all: both on the same
        footing, or, on a ``mixed`` one, the searched value on the other side of
        the even share (1/2 for two sides) from the exact one: a better move the
        search finds at least even against a played move proven lost (or drawn),
        a played move it finds at most even against a best move proven won."""
        if self.basis != MIXED:
            return True
        even = 1 / self.sides
        if self.best_exact:
            return self.played_value <= even < self.best_value
        return self.played_value < even <= self.best_value

    @property
    def sure_drop(self) -> float:
        return self.best_interval[0] - self.played_interval[1]

    @property
    def separated(self) -> bool:
        return self.sure_drop > 0

    def as_dict(self) -> dict:
        return {
            "best": self.best,
            "best_value": round(self.best_value, 4),
            "best_interval": [round(part, 4) for part in self.best_interval],
            "best_visits": self.best_visits,
            "played_value": round(self.played_value, 4),
            "played_interval": [round(part, 4) for part in self.played_interval],
            "played_visits": self.played_visits,
            "sure_drop": round(self.sure_drop, 4),
            "separated": self.separated,
            "basis": self.basis,
            "carries": self.carries,
        }


def eval_comment(value: tuple[float, ...], valuation: Valuation | None = None) -> str:
    """``[%eval 0.62,0.38]``: expected scores in seat order, two decimals; with a
    ``valuation``, followed by its ``[%evalsrc ...]``."""
    text = "[%eval " + ",".join(f"{part:.2f}" for part in value) + "]"
    return text if valuation is None else f"{text} {valuation.comment()}"


def parse_eval_comment(comment: str) -> tuple[float, ...] | None:
    """The values of an ``[%eval ...]`` comment, ``None`` if it holds none."""
    match = _EVAL.search(comment)
    if match is None:
        return None
    return tuple(float(part) for part in match.group(1).split(","))


def parse_evalsrc_comment(comment: str) -> dict | None:
    """What an ``[%evalsrc ...]`` says: ``source`` (``end``, ``exact``, ``search``),
    and for a search ``agent``, ``visits``, ``proven`` and ``margin`` (the
    interval's half-width, ``None`` if proven); ``None`` if the comment has none."""
    match = _EVALSRC.search(comment)
    if match is None:
        return None
    words = match.group(1).split()
    if words in (["end"], ["exact"]):
        return {"source": words[0]}
    data: dict[str, Any] = {"source": SEARCH, "agent": None, "visits": None}
    data.update(proven=False, margin=None)
    for word in words:
        if word.startswith("n=") and word[2:].isdigit():
            data["visits"] = int(word[2:])
        elif re.fullmatch(r"±[0-9]*\.?[0-9]+", word):
            data["margin"] = float(word[1:])
        elif word == "proven":
            data["proven"] = True
        elif data["agent"] is None:
            data["agent"] = word
    return data


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
    search: SearchResult | None = None
    valuation: Valuation = Valuation(END)


@dataclass(frozen=True, slots=True)
class PlyAnnotation:
    """One judged ply: its number (from 1) and move; the seat that played it (``None``
    for the chance side); every side's expected score before and after it, and
    where each comes from (``end``, ``exact``, ``search``); the mover's drop (the
    one that judged the move: the exact scores' or the search's best move's value
    less the played move's, where the position before was solved or searched); the
    NAG given (``""``, ``?``, ``??``); a better move and the comment naming it.
    ``value_before``/``score_before`` (and after) are the solver's ``win``/``draw``/
    ``loss`` and score where the position was solved exactly. ``valuation_before``
    and ``valuation_after`` say how each value was found; ``judgement`` the
    comparison inside the search before the move (``None`` where the solver or no
    search judged it)."""

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
    valuation_before: Valuation = Valuation(END)
    valuation_after: Valuation = Valuation(END)
    judgement: Judgement | None = None

    def as_dict(self) -> dict:
        return {
            "ply": self.ply,
            "move": self.move,
            "mover": self.mover,
            "before": [round(part, 4) for part in self.before],
            "after": [round(part, 4) for part in self.after],
            "source": {"before": self.source_before, "after": self.source_after},
            "valuation": {
                "before": self.valuation_before.as_dict(),
                "after": self.valuation_after.as_dict(),
            },
            "drop": round(self.drop, 4),
            "nag": self.nag,
            "better": self.better,
            "comment": self.comment,
            "judgement": None if self.judgement is None else self.judgement.as_dict(),
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
    the plies whose position was beyond its budget (valued by the agent instead);
    the searches' cost: ``playouts`` run in all and ``reused`` (playouts a root
    brought from the search before it), ``seconds`` of searching."""

    game: str
    sides: int
    agent: str
    seed: int
    start: tuple[float, ...] = ()
    start_valuation: Valuation = Valuation(END)
    plies: list[PlyAnnotation] = field(default_factory=list)
    solved: int = 0
    unsolved: list[int] = field(default_factory=list)
    searched: int = 0
    playouts: int = 0
    reused: int = 0
    seconds: float = 0.0

    @property
    def marked(self) -> list[PlyAnnotation]:
        """The plies given ``?`` or ``??``."""
        return [ply for ply in self.plies if ply.nag]

    @property
    def blunders(self) -> list[PlyAnnotation]:
        """The plies given ``??``."""
        return [ply for ply in self.plies if ply.nag == "??"]

    def as_dict(self) -> dict:
        """The object `partita annotate --json` prints for a record."""
        return {
            "game": self.game,
            "sides": self.sides,
            "agent": self.agent,
            "seed": self.seed,
            "thresholds": {"?": MISTAKE, "??": BLUNDER},
            "confidence_z": CONFIDENCE_Z,
            "start": [round(part, 4) for part in self.start],
            "start_valuation": self.start_valuation.as_dict(),
            "solved": self.solved,
            "unsolved": self.unsolved,
            "searched": self.searched,
            "playouts": self.playouts,
            "reused": self.reused,
            "seconds": round(self.seconds, 4),
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
    replayed = replay(record)
    game = replayed.game
    if game is None or replayed.initial_state is None:
        reason = "; ".join(problem.message for problem in replayed.problems[:1])
        raise PartitaError(f"cannot replay this record: {reason or 'unknown game or setup'}")
    rules = game.rules
    searcher = agent if isinstance(agent, Agent) else agent_from_spec(agent, game, seed=seed)
    if searcher.rules.name != rules.name:
        raise PartitaError(f"a {searcher.rules.name} agent cannot judge a {game.name} game")
    if isinstance(searcher, MctsAgent):
        refused = workers_refused(searcher.spec, searcher.workers, rules)
        if refused is not None:
            raise PartitaError(refused)
    owned = searcher is not agent  # made here: its search processes stop here
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
            valuation = Valuation(
                EXACT, nodes=getattr(solution, "nodes", None), seconds=solution.seconds
            )
            value = _exact_value(rules, states[key[0]], solution.value)
            values[key] = _Value(value, EXACT, solution, valuation=valuation)
            annotation.solved += 1
            advance()
    if isinstance(searcher, MctsAgent) and not hidden:
        _search_along(searcher, game, plies, states, first, values, annotation, seed, advance)
    else:
        try:
            for key in pending:
                if key in values:
                    continue
                position, viewer = key
                rng = random.Random(seed * 1_000_003 + position)
                history = [(ply.before, ply.move) for ply in plies[:position]] if hidden else ()
                result = searcher.evaluate(states[position], rng, viewer=viewer, history=history)
                values[key] = _Value(
                    tuple(result.value),
                    SEARCH,
                    search=result,
                    valuation=_search_valuation(searcher.spec, result, result.playouts, 0),
                )
                annotation.searched += 1
                annotation.playouts += result.playouts
                annotation.seconds += result.seconds
                advance()
        finally:
            if owned:
                searcher.close()

    settled: dict[tuple[int, Any], float | None] = {}

    def settle_exactly(state: Any, move: Any) -> float | None:
        """The mover's exact value after ``move``, where the solver reaches it."""
        key = (id(state), move)
        if key not in settled:
            settled[key] = _exact_after(
                rules,
                solver,
                state,
                move,
                None if max_nodes is None else max_nodes * SETTLE_FACTOR,
                None if max_seconds is None else max_seconds * SETTLE_FACTOR,
            )
        return settled[key]

    settle = None if solver is None or hidden else settle_exactly
    start = values[(first, viewer_of(first))]
    annotation.start, annotation.start_valuation = start.value, start.valuation
    _write_eval(record.root if first == 0 else plies[first - 1].node, start)
    for index in range(first, len(plies)):
        ply = plies[index]
        viewer = viewer_of(index)
        before, after = values[(index, viewer)], values[(index + 1, viewer)]
        judged = _judge(game, ply, before, after, settle)
        annotation.plies.append(judged)
        if before.source == SEARCH and solver is not None:
            annotation.unsolved.append(ply.number)
        if ply.node is not None:
            _write_eval(ply.node, after)
            if judged.nag:
                ply.node.suffix = judged.nag
                if judged.comment and judged.comment not in ply.node.comments:
                    ply.node.comments.append(judged.comment)
    return annotation


def workers_refused(spec: str, workers: int, rules: Rules) -> str | None:
    """Why ``annotate`` takes no agent ``spec`` searching in ``workers`` processes
    for a game of ``rules``, or ``None``: a game of perfect information is followed
    with one search tree, in this process."""
    if workers <= 1 or rules.hidden_information:
        return None
    return (
        f"agent '{spec}': annotating a {rules.name} game follows it with one search tree, in "
        "this process; workers= applies to games with hidden information"
    )


def _search_along(
    searcher: MctsAgent,
    game: Any,
    plies: list[_Ply],
    states: list[Any],
    first: int,
    values: dict[tuple[int, int | None], _Value],
    annotation: Annotation,
    seed: int,
    advance: Callable[[], None],
) -> None:
    """Value the positions from ``first`` on that have no value yet with one search
    tree that follows the game (see the module docstring), searching the played
    move of each enough to judge it."""
    rules = searcher.rules
    rng = random.Random(seed * 1_000_003 + first)
    budget = searcher.playouts
    least = max(1, math.ceil(budget * NEW_SHARE)) if budget is not None else 1
    tree: SearchTree | None = None
    unchecked: dict[int, Any] = {}  # a searched position's tree node, by the index after it
    for index in range(first, len(states)):
        key = (index, None)
        if key not in values:
            if tree is None:
                tree = SearchTree(searcher.search, states[index])
            started = time.perf_counter()
            reused = tree.visits
            ran = tree.grow(rng, visits=budget, least=least, seconds=searcher.seconds)
            # The position's value: the mean of every playout through it (those it
            # brought along included), before the played move is searched further.
            value, behind = tree.value()
            visits = tree.visits
            if index < len(plies) and _judgeable(rules, plies[index].before):
                ran += tree.force(plies[index].move, forced_visits(tree.visits), rng)
            seconds = time.perf_counter() - started
            result = tree.result(ran, seconds)
            valuation = Valuation(
                SEARCH,
                agent=searcher.spec,
                visits=visits,
                playouts=ran,
                reused=reused,
                seconds=seconds,
                interval=None
                if result.side == CHANCE or result.exact
                else interval(value[result.side], behind),
                proven=result.exact,
            )
            values[key] = _Value(value, SEARCH, search=result, valuation=valuation)
            annotation.searched += 1
            annotation.playouts += ran
            annotation.reused += reused
            annotation.seconds += seconds
            advance()
        # A mark is checked once the value after the move is known: the position
        # after it was solved, or searched in the step before (its search may
        # prove the played move lost, which the search before it had not seen).
        if tree is not None and index in unchecked:
            _check(tree, game, plies, index, unchecked.pop(index), values, annotation, rng)
        if index < len(plies) and tree is not None:
            if values[key].source == SEARCH and _judgeable(rules, plies[index].before):
                unchecked[index + 1] = tree.root
            if (index + 1, None) in values and index + 1 in unchecked:
                _check(
                    tree, game, plies, index + 1, unchecked.pop(index + 1), values, annotation, rng
                )
            tree.advance(plies[index].move, rng)


def _check(
    tree: SearchTree,
    game: Any,
    plies: list[_Ply],
    after: int,
    root: Any,
    values: dict[tuple[int, int | None], _Value],
    annotation: Annotation,
    rng: Any,
) -> None:
    """Where the search of position ``after - 1`` (whose tree node is ``root``) is
    about to mark the move played there, now that the position after it has a
    value, search its best and the played move further, each to
    :func:`verify_visits` playouts (the played one has those of the search of the
    position after it, when that was searched), so that the mark stands on that
    evidence or goes; a searched value against an exact one that would not carry
    the mark is searched on to :func:`mixed_visits` playouts. The search is then
    read again, its best move kept first."""
    before = values[(after - 1, None)]
    search = before.search
    ply = plies[after - 1]
    if search is None or search.side == CHANCE or len(search.moves) < 2:
        return
    best = search.moves[0].move
    value_after = values[(after, None)]
    if best == ply.move:
        if value_after.source == SEARCH and not value_after.valuation.proven:
            return  # the search plays that move itself
        # Its value is exact now: the position after it was solved, or its search
        # proved it. Compare it with the search's next choice.
        best = search.moves[1].move
        search = _best_first(search, best)
    judgement = _inside(game, ply, search.side, search, value_after)
    if judgement is None or judgement.basis == EXACT or not _nag(judgement.sure_drop):
        return
    current = tree.root
    tree.root = root
    try:
        started = time.perf_counter()
        root_visits = tree.visits
        visits = verify_visits(root_visits)
        ran = tree.force(best, visits, rng) + tree.force(ply.move, visits, rng)
        read = _best_first(tree.result(), best)
        judgement = _inside(game, ply, search.side, read, value_after)
        if (
            judgement is not None
            and judgement.basis == MIXED
            and _nag(judgement.sure_drop)
            and not judgement.carries
        ):
            # Read against even, the searched one of the two gets the root's playouts:
            # a mean still climbs towards its value as the search of the move's
            # replies settles, and half the root's may leave a drawn move below even.
            searched = ply.move if judgement.best_exact else best
            ran += tree.force(searched, mixed_visits(root_visits), rng)
        playouts = before.valuation.playouts + ran
        seconds = before.valuation.seconds + time.perf_counter() - started
        read = tree.result(playouts, seconds)
    finally:
        tree.root = current
    values[(after - 1, None)] = replace(
        before,
        search=_best_first(read, best),
        valuation=replace(before.valuation, playouts=playouts, seconds=seconds),
    )
    annotation.playouts += ran
    annotation.seconds += seconds - before.valuation.seconds


def _best_first(search: SearchResult, best: Any) -> SearchResult:
    """``search`` with ``best`` as the move it judges by."""
    first = search.statistics(best)
    assert first is not None
    return replace(search, moves=(first, *(item for item in search.moves if item.move != best)))


def _exact_after(
    rules: Any,
    solver: Any,
    state: Any,
    move: Any,
    max_nodes: int | None,
    max_seconds: float | None,
) -> float | None:
    """The mover's exact value after ``move`` in ``state``: the outcome, or the
    solver's within its budget; ``None`` beyond it."""
    mover = rules.side_to_move(state)
    after = rules.apply(state, move)
    outcome = rules.outcome(after)
    if outcome is not None:
        return float(outcome.scores[mover])
    try:
        solution = solver.solve(after, max_nodes=max_nodes, max_seconds=max_seconds)
    except BudgetExceeded:
        return None
    return _exact_value(rules, after, solution.value)[mover]


def _search_valuation(spec: str, result: SearchResult, ran: int, reused: int) -> Valuation:
    """How sure a search's value is: the interval of its best move's value for the
    side to move (none at a chance node), or a proof."""
    visits = sum(item.visits for item in result.moves) or result.playouts
    span = None
    if result.side != CHANCE and result.moves and not result.exact:
        best = result.moves[0]
        span = (
            (best.value[result.side],) * 2
            if best.exact
            else interval(best.value[result.side], best.visits)
        )
    return Valuation(
        SEARCH,
        agent=spec,
        visits=max(visits, reused + ran),
        playouts=ran,
        reused=reused,
        seconds=result.seconds,
        interval=span,
        proven=result.exact,
    )


def _exact_value(rules: Any, state: Any, value: str) -> tuple[float, ...]:
    """A solved two-sided position's expected scores from its value for the mover."""
    mover = rules.side_to_move(state)
    share = _EXACT_VALUE[value]
    return (share, 1.0 - share) if mover == 0 else (1.0 - share, share)


def _mainline_plies(record: Record, game: Any, replayed: Any) -> list[_Ply]:
    """The legal prefix of the mainline, ply by ply (omitted forced passes included)."""
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


def _write_eval(node: Node | None, value: _Value) -> None:
    """Put ``[%eval ...] [%evalsrc ...]`` on ``node``, replacing one an earlier run
    left."""
    if node is None:
        return
    node.comments[:] = [comment for comment in node.comments if not _OURS.fullmatch(comment)]
    node.comments.append(eval_comment(value.value, value.valuation))


def _judge(
    game: Any,
    ply: _Ply,
    before: _Value,
    after: _Value,
    settle: Callable[[Any, Any], float | None] | None = None,
) -> PlyAnnotation:
    """Judge ``ply`` from the values before and after it; ``settle(state, move)``,
    where the solver is at hand, is the mover's exact value after ``move`` (``None``
    beyond the solver's budget): a mark a search is about to put is checked with it."""
    rules = game.rules
    mover = rules.side_to_move(ply.before)
    token = game.format_move(ply.before, ply.move)
    exact_before = before.solution
    exact_after = after.solution
    fields: dict[str, Any] = {
        "valuation_before": before.valuation,
        "valuation_after": after.valuation,
    }
    move_score = None
    if exact_before is not None:
        fields["value_before"], fields["score_before"] = exact_before.value, exact_before.score
        move_score = next(
            (item.score for item in exact_before.moves if item.move == ply.move), None
        )
    if exact_after is not None:
        fields["value_after"], fields["score_after"] = exact_after.value, exact_after.score
        # The solver's value is the side to move's; from the mover's side it is reversed
        # when the turn passes.
        if rules.side_to_move(ply.after) != mover:
            fields["value_after"] = {"win": "loss", "loss": "win"}.get(
                exact_after.value, exact_after.value
            )
            fields["score_after"] = -exact_after.score
    elif move_score is not None:
        fields["value_after"], fields["score_after"] = score_value(move_score), move_score
    values = (ply.number, token, None if mover == CHANCE else mover, before.value, after.value)
    sources = (before.source, after.source)
    if mover == CHANCE:
        return PlyAnnotation(*values, *sources, 0.0, **fields)
    drop = before.value[mover] - after.value[mover]
    nag = better = comment = None
    if before.source == EXACT:
        if move_score is not None:  # the exact scores of the moves judge it
            drop = _EXACT_VALUE[exact_before.value] - _EXACT_VALUE[score_value(move_score)]
        nag = _nag(drop)
        if nag:
            better = game.format_move(ply.before, exact_before.best[0])
            comment = kept_comment(better, exact_before)
    elif before.source == SEARCH and before.search is not None:
        judgement = _inside(game, ply, mover, before.search, after)
        if (
            judgement is not None
            and settle is not None
            and judgement.best != token
            and judgement.basis != EXACT
            and _nag(judgement.sure_drop)
        ):
            judgement = _settled(game, ply, judgement, settle)
        fields["judgement"] = judgement
        if judgement is not None:
            drop = judgement.drop
            if judgement.best != token and judgement.carries:
                nag = _nag(judgement.sure_drop)
            if nag:
                better = judgement.best
                comment = f"{better} was better: {judgement.best_value:.2f}"
    if nag and not _judgeable(rules, ply.before):
        nag = better = comment = None
    return PlyAnnotation(*values, *sources, drop, nag or "", better, comment, **fields)


def _inside(
    game: Any, ply: _Ply, mover: int, search: SearchResult, after: _Value
) -> Judgement | None:
    """The played move against the search's best, in the search of the position
    before it; the played move's value is the exact one where the position after
    it is solved or over. ``None`` where the search has no statistics on it."""
    best = search.moves[0] if search.moves and search.best is not None else None
    if best is None:
        return None
    played = search.statistics(ply.move)
    if played is None and after.source == SEARCH:
        return None
    best_value = best.value[mover]
    best_span = (best_value, best_value) if best.exact else interval(best_value, best.visits)
    played_exact = best.exact
    if best.move == ply.move:
        played_value, played_span, played_visits = best_value, best_span, best.visits
    elif after.source != SEARCH or after.valuation.proven:
        played_value = after.value[mover]
        played_span = (played_value, played_value)
        played_visits = played.visits if played is not None else 0
        played_exact = True
    else:
        assert played is not None
        played_value = played.value[mover]
        played_visits = played.visits
        played_exact = played.exact
        played_span = (
            (played_value, played_value) if played.exact else interval(played_value, played.visits)
        )
    return Judgement(
        game.format_move(ply.before, best.move),
        best_value,
        best_span,
        best.visits,
        played_value,
        played_span,
        played_visits,
        best.exact,
        played_exact,
        len(best.value),
    )


def _settled(
    game: Any,
    ply: _Ply,
    judgement: Judgement,
    settle: Callable[[Any, Any], float | None],
) -> Judgement:
    """``judgement`` with the solver's values where it reaches the positions after
    the played and the best move (``settle``), so that a mark the search is
    about to put stands on exact values where they can be had. A played move that
    keeps a win changed nothing, whatever the best one."""
    played = judgement.played_value if judgement.played_exact else settle(ply.before, ply.move)
    if played is not None and played >= 1.0:
        best: float | None = played  # nothing is better than a win
    elif judgement.best_exact:
        best = judgement.best_value
    else:
        best = settle(ply.before, game.parse_move(ply.before, judgement.best))
    return replace(
        judgement,
        best_value=judgement.best_value if best is None else best,
        best_interval=judgement.best_interval if best is None else (best, best),
        best_exact=best is not None,
        played_value=judgement.played_value if played is None else played,
        played_interval=judgement.played_interval if played is None else (played, played),
        played_exact=played is not None,
    )


def _nag(drop: float) -> str | None:
    return BLUNDER_NAG if drop > BLUNDER else MISTAKE_NAG if drop > MISTAKE else None


def _judgeable(rules: Rules, state: Any) -> bool:
    """Whether the mover had a choice: not the chance side, and more than one legal
    move, in a game that lists them all (the contract: one that overrides
    ``sample_move`` may list a subset)."""
    if rules.side_to_move(state) == CHANCE:
        return False
    if type(rules).sample_move is not Rules.sample_move:
        return True
    return len(rules.legal_moves(state)) > 1
