"""Players that choose moves through the rules contract alone, named by a short spec.

``agent_from_spec(spec, game, seed=...)`` reads the one spelling used everywhere (the
CLI's ``--agent``, the benchmark, a script):

* ``random``: a uniformly random legal move (``Rules.sample_move``);
* ``greedy``: one ply with the game's heuristic: the move whose position scores
  best for the mover (an immediate win first);
* ``mcts:N``: Monte Carlo tree search with ``N`` playouts a move
  (:mod:`partita.analysis.mcts`); ``mcts:2s`` searches for 2 seconds instead
  (``mcts:0.5s``); options follow after commas:
  ``mcts:2000,c=0.7,plies=40,samples=8,bias=1,widen=2,minimax=0.3,reuse=1`` (the
  exploration constant, the playout length before the heuristic scores a
  position, the determinized states of a hidden-information game, the weight of
  the heuristic's head start, progressive widening, the weight of the heuristic's
  values backed up by max-n, tree reuse between moves (1 on, 0 off; see
  :class:`MctsAgent`); see :mod:`partita.analysis.mcts`; ``widen`` and
  ``minimax`` default to the game's own, its spec's ``extra["search"]``);
  ``workers=K`` searches each position ``K`` times at once in ``K`` processes, the
  budget shared among them, and adds their statistics up (root parallelism,
  :mod:`partita.analysis.parallel_search`; 1, the default: one search here). The playout
  length defaults to the game's own (its spec's ``rollout_plies``; 0: the
  heuristic scores each new position at once), else 60; docs/analysis.md lists
  the shipped games' and why.

An agent's ``choose(state, rng)`` returns a move for the side to move;
``evaluate(state, rng, viewer=...)`` returns a :class:`~partita.analysis.mcts.SearchResult`:
the expected score of every side and the statistics gathered on each move (the
MCTS visits and values; for ``greedy`` one visit each), which ``choose`` also
keeps in ``last``. In a hidden-information game both use only the information of
the side they play for (the side to move, or ``viewer``). An agent is a context
manager: ``close()`` stops the processes of an agent with ``workers``.
"""

from __future__ import annotations

import random
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Self

from partita.analysis.heuristics import Evaluation, evaluation_for, expected_scores, rules_of
from partita.analysis.mcts import (
    DEFAULT_BIAS,
    DEFAULT_DETERMINIZATIONS,
    DEFAULT_EXPLORATION,
    Mcts,
    MoveStatistics,
    SearchResult,
    SearchTree,
    child_of,
)
from partita.analysis.parallel_search import SearchPool
from partita.errors import PartitaError
from partita.game.rules import CHANCE, Rules

__all__ = [
    "AGENT_SPELLING",
    "Agent",
    "GreedyAgent",
    "MctsAgent",
    "RandomAgent",
    "agent_from_spec",
    "agent_workers",
    "answered",
    "parse_agent_spec",
    "playable_choice",
]

#: How an agent is named, for error messages and help texts.
AGENT_SPELLING = (
    "random, greedy, or mcts:N (N playouts a move; mcts:2s for 2 seconds; "
    "options after commas: mcts:2000,c=1.0,plies=10,samples=8,bias=1.0,widen=2,minimax=0.3,"
    "reuse=1,workers=2)"
)

_MCTS = re.compile(r"mcts:(?:(?P<playouts>[1-9][0-9_]*)|(?P<seconds>[0-9]*\.?[0-9]+)s)")
_OPTIONS = {
    "c": float,
    "plies": int,
    "samples": int,
    "bias": float,
    "minimax": float,
    "widen": float,
    "reuse": int,
    "workers": int,
}
#: Whether ``mcts:N`` keeps its tree from one of its moves to the next (``reuse=``).
DEFAULT_REUSE = False
#: Independent searches of each position, in as many processes (``workers=``).
DEFAULT_WORKERS = 1
#: The most processes one agent searches in (as ``--workers`` of a command).
MOST_WORKERS = 64
#: How many plies below its last move an agent looks for the position it is to move
#: in again, per side of the game (its own move, every other side's reply, and
#: forced moves it played without searching).
REUSE_PLIES_PER_SIDE = 2
#: The fewest playouts ``mcts:N`` weighs one answer with (:meth:`Agent.answer`
#: shares a move's budget among the answers).
MIN_ANSWER_PLAYOUTS = 16
#: The ``(state, move)`` pairs that led to a state, oldest first.
History = Sequence[tuple[Any, Any]]


class Agent(ABC):
    """A player for one configured game; ``rng`` defaults to the agent's own
    (seeded by ``seed``), so a seeded agent plays the same moves every run."""

    def __init__(self, game: Any, spec: str, seed: int | None = None) -> None:
        self.rules = rules_of(game)
        self.spec = spec
        self.rng = random.Random(seed)
        #: The statistics behind the last choice (``None`` for ``random``).
        self.last: SearchResult | None = None

    def choose(
        self,
        state: Any,
        rng: Any = None,
        history: History = (),
        within: Sequence[Any] | None = None,
    ) -> Any:
        """A move for the side to move in ``state`` (a chance move is sampled);
        ``history``: the ``(state, move)`` pairs that led there, if known (what the
        side saw happen, in a hidden-information game); ``within``: the legal moves
        to choose among, where not every move may be chosen (the mover's ways on
        after another side's answer, :func:`answered`)."""
        rng = self.rng if rng is None else rng
        if self.rules.side_to_move(state) == CHANCE:
            return self.rules.sample_move(state, rng)
        result = self.evaluate(state, rng, history=history, within=within)
        if result.best is None:
            raise PartitaError("the game is over: there is no move to choose")
        if not self.rules.hidden_information:
            return result.best
        return self._playable(state, result, rng)

    def _playable(self, state: Any, result: SearchResult, rng: Any) -> Any:
        """The best move of ``result`` the real table allows. A search of a
        hidden-information game chooses on determinized tables, and a move found
        there may name cards the mover could not see (:meth:`Rules.realize` puts
        the real ones in) or play one he does not hold: then the next best; a
        random move if none fits."""
        rules = self.rules
        for item in result.moves:
            move = rules.realize(state, item.move)
            if rules.illegal_reason(state, move) is None:
                return move
        return rules.sample_move(state, rng)

    @abstractmethod
    def evaluate(
        self,
        state: Any,
        rng: Any = None,
        *,
        viewer: int | None = None,
        history: History = (),
        within: Sequence[Any] | None = None,
    ) -> SearchResult:
        """The expected score of every side in ``state`` and each move's statistics,
        from ``viewer``'s information (default: the side to move); ``within``: the
        only moves to weigh (see :meth:`choose`)."""

    def answer(
        self, state: Any, options: Sequence[Any], side: int, rng: Any = None, history: History = ()
    ) -> int:
        """Which of ``options`` (moves of the side to move in ``state`` that differ in
        a choice ``side`` makes within them: raised stakes accepted or declined)
        ``side``, for whom this agent plays, prefers: the one whose position after
        it it values most, from its own information (``history``: what led to
        ``state``). It sees each position after the move, not the move's hidden
        part: the same assumption the search makes of an answering side."""
        rng = self.rng if rng is None else rng
        rules = self.rules
        values = []
        for option in options:
            after = rules.apply(state, option)
            outcome = rules.outcome(after)
            if outcome is not None:
                values.append(expected_scores(outcome)[side])
                continue
            result = self._weigh(after, rng, side, [*history, (state, option)], len(options))
            values.append(result.value[side])
        return max(range(len(options)), key=lambda index: values[index])

    def _weigh(
        self, state: Any, rng: Any, viewer: int, history: History, options: int
    ) -> SearchResult:
        """The value of ``state`` for one of ``options`` answers (:meth:`answer`)."""
        return self.evaluate(state, rng, viewer=viewer, history=history)

    def close(self) -> None:
        """Let go of what the agent holds beyond itself (an ``mcts:N,workers=K``
        agent's processes); it may search again after. Most agents hold nothing."""
        return None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


class RandomAgent(Agent):
    """A uniformly random legal move: the baseline every other agent should beat."""

    def choose(
        self,
        state: Any,
        rng: Any = None,
        history: History = (),
        within: Sequence[Any] | None = None,
    ) -> Any:
        rng = self.rng if rng is None else rng
        if within:
            return rng.choice(list(within))
        return self.rules.sample_move(state, rng)

    def evaluate(
        self,
        state: Any,
        rng: Any = None,
        *,
        viewer: int | None = None,
        history: History = (),
        within: Sequence[Any] | None = None,
    ) -> SearchResult:
        raise PartitaError("the random agent does not evaluate positions: use greedy or mcts:N")

    def answer(
        self, state: Any, options: Sequence[Any], side: int, rng: Any = None, history: History = ()
    ) -> int:
        return (self.rng if rng is None else rng).randrange(len(options))


class GreedyAgent(Agent):
    """One ply with the game's heuristic: every candidate move is played and the
    position after it scored (exactly where the game ends); the mover's best wins,
    ties broken at random. In a hidden-information game each candidate is scored
    on ``samples`` determinized states of the mover's information."""

    def __init__(
        self,
        game: Any,
        spec: str = "greedy",
        seed: int | None = None,
        *,
        evaluation: Evaluation | None = None,
        samples: int = 4,
    ) -> None:
        super().__init__(game, spec, seed)
        self.evaluation = evaluation if evaluation is not None else evaluation_for(self.rules)
        self.samples = samples
        self._search = Mcts(self.rules, evaluation=self.evaluation)

    def evaluate(
        self,
        state: Any,
        rng: Any = None,
        *,
        viewer: int | None = None,
        history: History = (),
        within: Sequence[Any] | None = None,
    ) -> SearchResult:
        rng = self.rng if rng is None else rng
        rules = self.rules
        started = time.perf_counter()
        outcome = rules.outcome(state)
        if outcome is not None:
            return SearchResult(CHANCE, expected_scores(outcome), (), 0, 0.0, True)
        side = rules.side_to_move(state)
        if viewer is None:
            viewer = side if side != CHANCE else None
        if rules.hidden_information and viewer is not None:
            worlds = [rules.determinize(state, viewer, rng, history) for _ in range(self.samples)]
        else:
            worlds = [state]
        if side == CHANCE:
            value, _ = self._score(worlds, None)
            return SearchResult(side, value, (), 1, 0.0, False)
        # the same candidates as MCTS
        moves = list(within) if within is not None else self._search.candidates(worlds[0], rng)
        if len(worlds) > 1:  # what the mover can play on what it knows (as MCTS does)
            playable = self._search.playable_moves(moves, worlds)
        else:
            playable = [(move, (move,)) for move in moves]
        rng.shuffle(playable)
        scored = []
        for move, realized in playable:
            value, exact = self._score(worlds, realized)
            scored.append(MoveStatistics(move, 1, value, exact))
        if within is None:  # the other sides choose their part of a move themselves
            scored = self._search.by_choice(state, scored)
        scored.sort(key=lambda item: item.value[side], reverse=True)
        value = scored[0].value if scored else self.evaluation(state)
        exact = bool(scored) and scored[0].exact and scored[0].value[side] >= 1.0
        self.last = SearchResult(
            side, value, tuple(scored), len(scored), time.perf_counter() - started, exact
        )
        return self.last

    def _score(
        self, worlds: list[Any], moves: Sequence[Any] | None
    ) -> tuple[tuple[float, ...], bool]:
        """The heuristic's mean value after the move (``moves``: as each world plays
        it; ``None``: of the worlds themselves) over the worlds where it is legal,
        and whether it is exact (the game ended in every one)."""
        rules = self.rules
        totals = [0.0] * rules.sides(worlds[0])
        exact = len(worlds) == 1
        counted = 0
        for index, world in enumerate(worlds):
            if moves is not None:
                move = moves[index]
                if len(worlds) > 1 and rules.illegal_reason(world, move) is not None:
                    continue
                world = rules.apply(world, move)
            outcome = rules.outcome(world)
            if outcome is not None:
                value = expected_scores(outcome)
            else:
                value = self.evaluation(world)
                exact = False
            counted += 1
            for seat, part in enumerate(value):
                totals[seat] += part
        return tuple(total / (counted or 1) for total in totals), exact and counted > 0


class MctsAgent(Agent):
    """Monte Carlo tree search with a budget of playouts or seconds a move.

    With ``reuse`` (``mcts:N,reuse=1``), ``choose`` keeps the subtree under the move
    it played and, when it is to move again, starts from the node of the position
    reached (found by the moves of ``history`` where given, else among the kept
    subtree's searched positions a few plies down): the playouts that went through
    it are kept and ``N`` new ones are added, so the budget still means ``N`` new
    playouts a move (``last.playouts``) and the root's visits count both
    (``reused``: the kept ones). A position not found, one reached through a chance
    move, and every position of a hidden-information game (its search draws new
    tables each move) are searched afresh. Only the subtree of the position played
    is kept. ``evaluate`` always searches afresh.

    With ``workers`` K above 1 (``mcts:N,workers=K``) each search is K independent
    searches of the position run at once in K processes
    (:class:`~partita.analysis.parallel_search.SearchPool`, started on the first
    search, stopped by :meth:`close`), each with a seed drawn from the agent's rng
    and ``N / K`` of the playouts (the shares add up to ``N``; a budget in seconds:
    each searches that long), their root statistics added up
    (:meth:`Mcts.merge`): the same answers for the same seed, whatever the machine
    when the budget is in playouts. Not with ``reuse`` (the trees stay in the
    workers, and a task may go to any of them).
    """

    def __init__(
        self,
        game: Any,
        spec: str,
        seed: int | None = None,
        *,
        playouts: int | None = None,
        seconds: float | None = None,
        reuse: bool = DEFAULT_REUSE,
        workers: int = DEFAULT_WORKERS,
        **search: Any,
    ) -> None:
        super().__init__(game, spec, seed)
        if playouts is None and seconds is None:
            raise PartitaError(f"agent '{spec}' needs a budget: playouts or seconds")
        _check_workers(spec, workers, reuse)
        self.playouts = playouts
        self.seconds = seconds
        self.search = Mcts(self.rules, **search)
        self.workers = workers
        #: The worker processes of ``workers`` > 1 (started on the first search).
        self.pool = SearchPool(self.rules, search, workers) if workers > 1 else None
        self.reuse = reuse and not self.rules.hidden_information
        #: The kept visits the last choice started from (0: a fresh search).
        self.reused = 0
        #: Choices that started from a kept subtree, over the agent's life.
        self.reuses = 0
        self._kept: SearchTree | None = None

    def evaluate(
        self,
        state: Any,
        rng: Any = None,
        *,
        viewer: int | None = None,
        history: History = (),
        within: Sequence[Any] | None = None,
    ) -> SearchResult:
        rng = self.rng if rng is None else rng
        self.last = self._searched(state, rng, self.playouts, self.seconds, viewer, history, within)
        return self.last

    def _weigh(
        self, state: Any, rng: Any, viewer: int, history: History, options: int
    ) -> SearchResult:
        """One answer's share of a move's budget (at least :data:`MIN_ANSWER_PLAYOUTS`)."""
        playouts = (
            None if self.playouts is None else max(self.playouts // options, MIN_ANSWER_PLAYOUTS)
        )
        seconds = None if self.seconds is None else self.seconds / options
        return self._searched(state, rng, playouts, seconds, viewer, history, None)

    def _searched(
        self,
        state: Any,
        rng: Any,
        playouts: int | None,
        seconds: float | None,
        viewer: int | None,
        history: History,
        within: Sequence[Any] | None,
    ) -> SearchResult:
        """One search of ``state``, or with ``workers`` that many at once, merged."""
        pool = self.pool
        if pool is None or self.rules.outcome(state) is not None:
            return self.search.search(
                state,
                rng,
                playouts=playouts,
                seconds=seconds,
                viewer=viewer,
                history=history,
                within=within,
            )
        count = self.workers if playouts is None else min(self.workers, playouts)
        shares = [
            (
                rng.getrandbits(64),
                None if playouts is None else playouts // count + (index < playouts % count),
                seconds,
            )
            for index in range(count)
        ]
        started = time.perf_counter()
        results = pool.search(state, shares, viewer=viewer, history=history, within=within)
        return self.search.merge(
            state, results, viewer=viewer, within=within, seconds=time.perf_counter() - started
        )

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()

    def choose(
        self,
        state: Any,
        rng: Any = None,
        history: History = (),
        within: Sequence[Any] | None = None,
    ) -> Any:
        rules = self.rules
        if within is not None and len(within) == 1:
            return within[0]
        if rules.side_to_move(state) != CHANCE and within is None:
            moves = rules.legal_moves(state)
            if len(moves) == 1 and not self.search.lists_subset:
                return moves[0]  # forced: nothing to search
            if self.reuse:
                return self._choose_reusing(state, self.rng if rng is None else rng, history)
        return super().choose(state, rng, history, within)

    def _choose_reusing(self, state: Any, rng: Any, history: History) -> Any:
        started = time.perf_counter()
        tree = self._kept_tree(state, history)
        if tree is None:
            tree = SearchTree(self.search, state)
            self.reused = 0
        else:
            self.reused = tree.visits
            self.reuses += 1
        if self.playouts is not None:
            done = tree.grow(
                rng, visits=tree.visits + self.playouts, least=self.playouts, seconds=self.seconds
            )
        else:
            done = tree.grow(rng, seconds=self.seconds)
        self.last = tree.result(done, time.perf_counter() - started)
        move = self.last.best
        if move is None:
            raise PartitaError("the game is over: there is no move to choose")
        tree.advance(move, rng)
        self._kept = tree
        return move

    def _kept_tree(self, state: Any, history: History) -> SearchTree | None:
        """The kept tree re-rooted at ``state``'s node, ``None`` where it is not
        there (or was never searched, or lies past a chance node); the rest of the
        kept tree is dropped either way."""
        tree, self._kept = self._kept, None
        if tree is None:
            return None
        node = _walk(tree.root, history) if history else None
        if node is None or node.state != state:
            limit = REUSE_PLIES_PER_SIDE * self.rules.sides(state)
            node = _find(tree.root, state, limit)
        if node is None or not node.visits:
            return None
        tree.root = node
        return tree


def _walk(root: Any, history: History) -> Any:
    """The node reached from ``root`` by the moves ``history`` shows after
    ``root``'s position; ``None`` where a move leaves the searched tree or a chance
    move is on the way (a sampled outcome stands for the others too)."""
    start = next(
        (index for index in range(len(history) - 1, -1, -1) if history[index][0] == root.state),
        None,
    )
    if start is None:
        return None
    node = root
    for _, move in history[start:]:
        if node.side == CHANCE or node.children is None:
            return None
        node = child_of(node, move)
        if node is None:
            return None
    return node


def _find(root: Any, state: Any, limit: int) -> Any:
    """The searched node of ``state`` at most ``limit`` plies below ``root``,
    breadth first, never past a chance node; ``None`` if there is none."""
    level = [root]
    for depth in range(limit + 1):
        following: list[Any] = []
        for node in level:
            if node.state == state and not node.decision:
                return node
            if depth < limit and node.side != CHANCE and node.children:
                following.extend(child for child in node.children if child.visits)
        if not following:
            return None
        level = following
    return None


def playable_choice(
    agent: Agent, state: Any, rng: Any = None, history: History = ()
) -> tuple[Any, bool]:
    """The agent's move in the real ``state``, and whether it replaces the best
    move of its search.

    In a hidden-information game a move may hold what the agent could not see (the
    cards a reward draws, the one a referee check reveals, drawn from its guess of
    the table); :meth:`Agent.choose` then plays it with the real cards
    (:meth:`Rules.realize`: the same move, not a replaced one), or, where the real
    table refuses it all the same, the agent's best move that the real table
    allows, or a random one. The flag says the latter happened (`partita play`
    warns, `bench_agents` counts it)."""
    move = agent.choose(state, rng, history)
    if not agent.rules.hidden_information or agent.last is None or agent.last.best is None:
        return move, False
    return move, move != agent.rules.realize(state, agent.last.best)


def answered(
    agents: Mapping[int, Agent],
    state: Any,
    move: Any,
    rng: Any = None,
    history: History = (),
) -> Any:
    """``move`` with each choice in it that another side makes (:meth:`Rules.decisions`:
    the answer to raised stakes, the attack's winner's reward) made by that side's
    agent in ``agents`` (by seat), in order, on the real ``state``.

    For every answer the game offers there (:meth:`Rules.answers`) the mover's way
    on is the mover's move where it already made that answer, else his agent's
    choice among the moves that do (a seat without an agent keeps its own move,
    and a choice it would have to go on from is not offered); the answering agent
    then takes the one it prefers (:meth:`Agent.answer`). A side without an agent
    keeps the choice the move made for it."""
    some = next(iter(agents.values()), None)
    if some is None:
        return move
    rules = some.rules
    mover = rules.side_to_move(state)
    if mover == CHANCE or type(rules).decisions is Rules.decisions:
        return move
    index = 1
    while True:
        steps = rules.decisions(state, move)
        index = next(
            (
                at
                for at in range(index, len(steps))
                if steps[at].side not in (mover, CHANCE) and steps[at].side in agents
            ),
            -1,
        )
        if index < 0:
            return move
        answering = steps[index].side
        ways: dict[Any, list[Any]] = {}
        for other in rules.answers(state, move, index):
            ways.setdefault(rules.decisions(state, other)[index].choice, []).append(other)
        options = [move]
        for choice, group in ways.items():
            if choice == steps[index].choice:
                continue
            if len(group) == 1:
                options.append(group[0])
            elif mover in agents:
                options.append(agents[mover].choose(state, rng, history, within=group))
        if len(options) > 1:
            move = options[agents[answering].answer(state, options, answering, rng, history)]
        index += 1


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """The kind of agent ``spec`` names (``random``, ``greedy``, ``mcts``) and its
    settings, checked without a game (so a command line can refuse a bad spec
    before any work); ``PartitaError`` naming the mistake otherwise."""
    text = spec.strip()
    if text in ("random", "greedy"):
        return text, {}
    head, *options = text.split(",")
    match = _MCTS.fullmatch(head)
    if match is None:
        raise PartitaError(f"unknown agent '{spec}': an agent is {AGENT_SPELLING}")
    given: dict[str, Any] = {}
    for option in options:
        key, _, value = (part.strip() for part in option.partition("="))
        convert = _OPTIONS.get(key)
        if convert is None or not value:
            raise PartitaError(
                f"agent '{spec}': '{option}' is no option of mcts "
                "(c, plies, samples, bias, widen, minimax, reuse, workers)"
            )
        try:
            given[key] = convert(value)
        except ValueError:
            raise PartitaError(f"agent '{spec}': {key}={value!r} is not a number") from None
    settings: dict[str, Any] = {
        "exploration": given.get("c", DEFAULT_EXPLORATION),
        "rollout_plies": given.get("plies"),  # None: the game's own (its spec)
        "determinizations": given.get("samples", DEFAULT_DETERMINIZATIONS),
        "bias": given.get("bias", DEFAULT_BIAS),
        "minimax": given.get("minimax"),  # None: the game's own (its spec), else 0
        "widening": given.get("widen"),  # the same
        "reuse": bool(given.get("reuse", DEFAULT_REUSE)),
        "workers": given.get("workers", DEFAULT_WORKERS),
    }
    if given.get("reuse", 0) not in (0, 1):
        raise PartitaError(f"agent '{spec}': reuse is 1 (keep the tree between moves) or 0")
    _check_workers(spec, settings["workers"], settings["reuse"])
    if (settings["rollout_plies"] or 0) < 0 or settings["determinizations"] < 1:
        raise PartitaError(f"agent '{spec}': plies must be 0 or more and samples 1 or more")
    if settings["exploration"] < 0 or settings["bias"] < 0 or (settings["widening"] or 0) < 0:
        raise PartitaError(f"agent '{spec}': c, bias and widen cannot be negative")
    if not 0 <= (settings["minimax"] or 0) <= 1:
        raise PartitaError(f"agent '{spec}': minimax is a weight from 0 to 1")
    if match.group("playouts"):
        settings["playouts"] = int(match.group("playouts").replace("_", ""))
    else:
        seconds = float(match.group("seconds"))
        if seconds <= 0:
            raise PartitaError(f"agent '{spec}': a search needs more than 0 seconds")
        settings["seconds"] = seconds
    return "mcts", settings


def _check_workers(spec: str, workers: int, reuse: bool) -> None:
    if not 1 <= workers <= MOST_WORKERS:
        raise PartitaError(
            f"agent '{spec}': workers is 1 (one search) or more (that many searches "
            f"of each position at once, each in its own process), at most {MOST_WORKERS}"
        )
    if workers > 1 and reuse:
        raise PartitaError(
            f"agent '{spec}': reuse=1 keeps one tree in this process and workers={workers} "
            "searches in other processes: choose one"
        )


def agent_workers(spec: str) -> int:
    """The processes an agent ``spec`` searches in (``workers=``; 1 for ``random``,
    ``greedy`` and a plain ``mcts:N``); ``PartitaError`` for a bad spec."""
    return int(parse_agent_spec(spec)[1].get("workers", 1))


def agent_from_spec(spec: str, game: Any, *, seed: int | None = None) -> Agent:
    """The agent ``spec`` names (see the module docstring) for ``game`` (a notation
    or a rules engine, configured as the record's tags say); ``PartitaError`` naming
    the mistake for a bad spec."""
    kind, settings = parse_agent_spec(spec)
    text = spec.strip()
    if kind == "random":
        return RandomAgent(game, text, seed)
    if kind == "greedy":
        return GreedyAgent(game, text, seed)
    return MctsAgent(game, text, seed, **settings)
