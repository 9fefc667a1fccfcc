"""Monte Carlo tree search (UCT) for 2-4 sides, through the rules contract alone.

Each node keeps, for every side, the sum of the expected scores its playouts
brought back (max-n: one value per side, no zero-sum assumption), so a node's mean
is the expected score of every side from there. A playout goes down the tree
choosing, at a side's turn, the child that maximises that side's mean plus
``exploration * sqrt(ln N / n)`` (UCB1); at the chance side's turn (a shuffle, a
reveal: ``Rules.side_to_move(state) == CHANCE``) it samples a move with
``Rules.sample_move`` instead of searching (a chance node keeps at most
``chance_samples`` sampled outcomes and revisits them uniformly afterwards, so the
tree stays finite). At the first new node it plays on with the game's playout
policy (its ``rollout``, else ``Rules.sample_move``) for at most ``rollout_plies``
plies (the game's ``rollout_plies``, else 60; a game whose playouts are dear and
whose heuristic carries the rest sets 10, or 0), then
scores the end with the outcome or, if the game goes on, with the game's heuristic
(its ``evaluation``, else 1/n each); every node on the way adds that value.

The game's heuristic also guides the descent (progressive bias): when a node is
expanded each child gets the heuristic's value of its position, the children are
tried in that order, and a child's selection score adds ``bias * h / (n + 1)``
(``h`` its value for the side choosing, ``n`` its playouts), a head start that the
playouts' means take over. With few playouts and many moves the search thus starts
from the greedy player's choices instead of random ones.

Two further uses of the heuristic, each off unless an option or the game's spec
(``extra["search"]``, :func:`~partita.analysis.heuristics.search_settings_for`)
sets it: *progressive widening* (``widening`` W: a node with ``n`` playouts
chooses among the ``1 + W * sqrt(n)`` children the heuristic likes best, so a
small budget over many moves goes deeper along the favourites) and *implicit
minimax* (``minimax`` A: each node also keeps the heuristic's value backed up by
max-n through its expanded subtree, weighed A against the playouts' mean 1 - A
in the selection score; Lanctot et al., 2014).

Two cheap pieces of exactness: a node is expanded whole (every candidate move
applied at once), so a move that wins at once is seen on the first visit and makes
the node *solved*; and a node whose every child is solved is solved too (its
mover's best). Solved values are exact and back up as they are.

Where the contract says ``legal_moves`` may list a representative subset (a game
that overrides ``sample_move``: a card game's composite turns), a node's candidate
moves are that list plus a few moves drawn from the playout policy and from
``sample_move``.

Choices of another side within a move (:meth:`Rules.decisions`: the answer to
raised stakes asked within a turn): a node's moves are grouped by their choices,
in order, into a small tree of *decision nodes* inside the ply, each chosen at
by the side that makes that choice (UCB1 on its own mean) and valued as that
side's best choice, so the mover never chooses another side's answer for it. Where a move holds such a choice the
candidates include the other answers too (:meth:`Rules.answers`). The root's
statistics are then one per choice of the mover's own, each shown by the move its
most visited answers lead to.

Hidden information (:attr:`Rules.hidden_information`): :meth:`Mcts.search` with a
``viewer`` searches from that side's information only. It draws
``determinizations`` states with :meth:`Rules.determinize` (what the viewer cannot
see resampled), searches each as a game of perfect information with an equal
share of the budget, and adds up the root's move statistics (visits and values
per move); when the viewer is to move, every sample searches the same root moves,
those of the viewer's own position. This is determinized MCTS (perfect
information Monte Carlo); see ``docs/analysis.md`` for why.

A search is deterministic for a given ``rng`` seed and a budget in playouts; a
budget in seconds depends on the machine.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from partita.analysis.collector import collector_paused
from partita.analysis.heuristics import (
    Evaluation,
    Policy,
    evaluation_for,
    expected_scores,
    rollout_for,
    rollout_plies_for,
    rules_of,
    search_settings_for,
)
from partita.errors import PartitaError
from partita.game.rules import CHANCE, Rules

__all__ = [
    "DEFAULT_BIAS",
    "DEFAULT_DETERMINIZATIONS",
    "DEFAULT_EXPLORATION",
    "DEFAULT_MINIMAX",
    "DEFAULT_WIDENING",
    "DEFAULT_ROLLOUT_PLIES",
    "Mcts",
    "MoveStatistics",
    "SearchResult",
    "SearchTree",
]

#: UCB1's exploration constant for values from 0 to 1 (OpenSpiel's uct_c = 2 on -1..1).
DEFAULT_EXPLORATION = 1.0
#: Weight of the heuristic's value of a child in its selection score (progressive
#: bias: ``bias * h / (n + 1)``, fading as playouts come in); 0 turns it off.
DEFAULT_BIAS = 1.0
#: Plies a playout runs before the heuristic scores the position, for a game whose
#: spec does not set its own ``rollout_plies`` (a game whose playouts are dear
#: sets less; 0: the heuristic scores each new position at once).
DEFAULT_ROLLOUT_PLIES = 60
#: Weight of the heuristic's values backed up by max-n through the tree (implicit
#: minimax) against the playouts' means in a child's selection score; 0 turns it off.
DEFAULT_MINIMAX = 0.0
#: Progressive widening: a node with ``n`` playouts chooses among its heuristic's
#: ``1 + widening * sqrt(n)`` favourite moves (all of them once that is more); 0
#: searches every move from the first playout.
DEFAULT_WIDENING = 0.0
#: Determinized states searched for a side of a hidden-information game.
DEFAULT_DETERMINIZATIONS = 8
#: Sampled outcomes a chance node keeps.
DEFAULT_CHANCE_SAMPLES = 8
#: Playouts the best move needs before its mean is the root's value (below it,
#: the mean of all the root's playouts is: less noisy, if a little pessimistic).
MIN_VISITS = 8
#: Moves drawn from each of the policy and ``sample_move`` at a node whose
#: ``legal_moves`` is a representative subset.
DEFAULT_EXTRA_CANDIDATES = 4


@dataclass(frozen=True, slots=True)
class MoveStatistics:
    """What a search gathered on one move of the root: how often it was tried, the
    mean expected score of every side after it, and whether that value is exact."""

    move: Any
    visits: int
    value: tuple[float, ...]
    exact: bool = False


@dataclass(frozen=True, slots=True)
class SearchResult:
    """A search's answer for its root position.

    ``side`` is the side to move there (``CHANCE`` possible); ``value`` the expected
    score of every side (seat order) with best play as the search sees it: the
    value of its best move (once that has :data:`MIN_VISITS` playouts; the mean of
    all playouts before), or the mean over sampled outcomes at a chance node;
    ``moves`` the root's moves, best first (most visited; a move that wins at once
    before all); ``exact`` says the value is proven. ``samples`` counts the
    determinized states searched (1 for perfect information).
    """

    side: int
    value: tuple[float, ...]
    moves: tuple[MoveStatistics, ...]
    playouts: int
    seconds: float
    exact: bool
    samples: int = 1

    @property
    def best(self) -> Any:
        """The move the search would play (``None`` at a chance node or at the end)."""
        if self.side == CHANCE or not self.moves:
            return None
        return self.moves[0].move

    def statistics(self, move: Any) -> MoveStatistics | None:
        return next((item for item in self.moves if item.move == move), None)

    def as_dict(self, token: Callable[[Any], str] = str) -> dict:
        """Plain data: ``token`` writes a move (the game's notation)."""
        return {
            "side": None if self.side == CHANCE else self.side,
            "value": [round(value, 4) for value in self.value],
            "exact": self.exact,
            "playouts": self.playouts,
            "seconds": round(self.seconds, 4),
            "samples": self.samples,
            "moves": [
                {
                    "move": token(item.move),
                    "visits": item.visits,
                    "value": [round(value, 4) for value in item.value],
                    "exact": item.exact,
                }
                for item in self.moves
            ],
        }


class _Node:
    """One position of the tree. ``children`` is a list parallel to ``moves`` at a
    side's turn, a dict by sampled move at the chance side's; ``None`` until the
    node is expanded. ``solved`` holds the exact value once it is known."""

    __slots__ = (
        "state",
        "side",
        "visits",
        "totals",
        "moves",
        "children",
        "samples",
        "solved",
        "prior",
        "backed",
        "decision",
    )

    def __init__(self, state: Any, side: int, sides: int, solved: tuple[float, ...] | None):
        self.state = state
        self.side = side
        self.visits = 0
        self.totals = [0.0] * sides
        self.moves: list[Any] = []
        self.children: Any = None
        self.samples: list[Any] = []
        self.solved = solved
        #: The heuristic's value of the position, set when its parent is expanded.
        self.prior: tuple[float, ...] = ()
        #: The heuristic's values backed up by max-n over the expanded subtree
        #: (implicit minimax); ``()`` until the node is expanded (its ``prior`` then).
        self.backed: tuple[float, ...] = ()
        #: A decision node: a choice within a move (``state`` is the position the
        #: move is made from, ``side`` the side choosing), never a position.
        self.decision = False

    def mean(self) -> tuple[float, ...]:
        if self.solved is not None:
            return self.solved
        visits = self.visits or 1
        return tuple(total / visits for total in self.totals)


class _Group:
    """Stands, in a node's ``moves``, for the moves that made one choice (a decision
    node's); never equal to a move."""

    __slots__ = ("choice",)

    def __init__(self, choice: Any) -> None:
        self.choice = choice

    def __repr__(self) -> str:
        return f"<choice {self.choice!r}>"


def child_of(node: _Node, move: Any) -> _Node | None:
    """The child of ``node`` reached by ``move``, through its decision nodes."""
    for known, child in zip(node.moves, node.children or (), strict=True):
        if isinstance(known, _Group):
            found = child_of(child, move)
            if found is not None:
                return found
        elif known == move:
            return child
    return None


def _grouped(entries: Sequence[tuple[Any, ...]], depth: int) -> list[list[tuple[Any, ...]]]:
    """``entries`` (each ``(decisions, ...)``, all alike before ``depth``) by their
    choice at ``depth``, in the order they come: an entry whose decisions end there
    is a group of its own (its move makes no choice further down)."""
    groups: list[list[tuple[Any, ...]]] = []
    going_on: dict[Any, list[tuple[Any, ...]]] = {}
    for entry in entries:
        steps = entry[0]
        if len(steps) == depth + 1:
            groups.append([entry])
            continue
        group = going_on.get(steps[depth].choice)
        if group is None:
            group = going_on[steps[depth].choice] = []
            groups.append(group)
        group.append(entry)
    return groups


def _decided(node: _Node) -> tuple[float, ...]:
    """A node's value; a decision node's is its chooser's best choice's (the mean
    of all its playouts would count the playouts its chooser spent trying the
    choices he rejects: the answer that gives points away, which the side asking
    would be credited with)."""
    if not node.decision or node.solved is not None:
        return node.mean()
    chooser = node.side
    tried = [_decided(child) for child in node.children if child.visits or child.solved]
    if not tried:
        return node.mean()
    return max(tried, key=lambda value: value[chooser])


def _principal(node: _Node) -> Any:
    """The move a decision node's most visited choices lead to."""
    while True:
        index = max(
            range(len(node.children)),
            key=lambda i: (node.children[i].visits, -i),
        )
        move, node = node.moves[index], node.children[index]
        if not isinstance(move, _Group):
            return move


@dataclass(slots=True)
class _Summed:
    """One group's statistics in a :class:`_Tally`."""

    move: Any  # the spelling shown: the most visited
    spelled_visits: int = 0
    visits: int = 0
    totals: list[float] = field(default_factory=list)  # values times their weights
    weights: int = 0
    exact: bool = True  # exact in every search that had it
    proven: tuple[float, ...] | None = None  # a value one search proved


class _Tally:
    """Root statistics added up over searches of one position (the determinized
    tables of one search, or the independent searches of :meth:`Mcts.merge`), by
    group (a move, or the mover's own choice in it): visits summed, values
    weighted by them (an exact value that was never visited, a win found at once,
    counts once), each group shown by its most visited spelling."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        #: group -> its statistics, in the order the groups come.
        self.entries: dict[Any, _Summed] = {}

    def add(
        self, group: Any, move: Any, item: MoveStatistics, *, spelled: bool, proven: bool
    ) -> None:
        """Count ``item`` (found as ``move``) under ``group``; ``spelled``: ``move``
        may show the group; ``proven``: an exact value is the move's value whatever
        the other searches found (one game searched, not several tables)."""
        entry = self.entries.get(group)
        if entry is None:
            entry = self.entries[group] = _Summed(move, totals=[0.0] * len(item.value))
        if item.visits > entry.spelled_visits and spelled:
            entry.move, entry.spelled_visits = move, item.visits
        entry.visits += item.visits
        weight = item.visits or int(item.exact)
        entry.weights += weight
        for seat, part in enumerate(item.value):
            entry.totals[seat] += part * weight
        if proven:
            entry.exact = False  # the proven value says it
            if item.exact:
                entry.proven = item.value
        else:
            entry.exact = entry.exact and item.exact

    def moves(self) -> list[MoveStatistics]:
        return [
            MoveStatistics(
                entry.move,
                entry.visits,
                tuple(part / (entry.weights or 1) for part in entry.totals),
                entry.exact,
            )
            if entry.proven is None
            else MoveStatistics(entry.move, entry.visits, entry.proven, True)
            for entry in self.entries.values()
        ]


def _ranked(
    side: int,
    moves: list[MoveStatistics],
    solved: tuple[float, ...] | None,
    mean: tuple[float, ...],
    playouts: int,
    seconds: float,
) -> SearchResult:
    """A perfect-information search's answer from its root's move statistics:
    ``solved`` the root's proven value if any, ``mean`` that of all its playouts."""
    if solved is not None:  # proven: the best exact value first
        moves.sort(key=lambda item: (item.exact, item.value[side], item.visits), reverse=True)
        return SearchResult(side, solved, tuple(moves), playouts, seconds, True)
    # The most visited open move, valued by its mean once it has MIN_VISITS
    # playouts, else by the mean of every open move's playouts (the proven ones
    # left out: they are known); a proven move at least as good goes first.
    moves.sort(key=lambda item: (item.visits, item.value[side]), reverse=True)
    open_moves = [item for item in moves if not item.exact and item.visits]
    proven = [item for item in moves if item.exact]
    value: tuple[float, ...] | None = None
    if open_moves:
        if open_moves[0].visits >= MIN_VISITS:
            value = open_moves[0].value
        else:
            visits = sum(item.visits for item in open_moves)
            value = tuple(
                sum(item.value[seat] * item.visits for item in open_moves) / visits
                for seat in range(len(open_moves[0].value))
            )
    best_proven = max(proven, key=lambda item: item.value[side], default=None)
    exact = False
    if best_proven is not None and (value is None or best_proven.value[side] >= value[side]):
        value = best_proven.value
        moves.remove(best_proven)
        moves.insert(0, best_proven)
        exact = not open_moves
    elif open_moves:
        moves.remove(open_moves[0])
        moves.insert(0, open_moves[0])
    if value is None:
        value = mean
    return SearchResult(side, value, tuple(moves), playouts, seconds, exact)


def _hidden_result(
    side: int,
    viewer: int,
    moves: list[MoveStatistics],
    mean: tuple[float, ...],
    playouts: int,
    seconds: float,
    samples: int,
) -> SearchResult:
    """A determinized search's answer from the root statistics added up over its
    tables: a move that wins at once in every table first, then the most visited;
    the value that of the viewer's best move (with :data:`MIN_VISITS` playouts)
    where the viewer is to move, else ``mean``, that of every playout."""

    def rank(item: MoveStatistics) -> tuple:
        mover_value = item.value[side] if side >= 0 else 0.0
        return (item.exact and mover_value >= 1.0, item.visits, mover_value)

    moves.sort(key=rank, reverse=True)
    if side == viewer and moves and (moves[0].visits >= MIN_VISITS or rank(moves[0])[0]):
        mean = moves[0].value
    return SearchResult(side, mean, tuple(moves), playouts, seconds, False, samples)


class Mcts:
    """UCT search over one configured rules engine (see the module docstring).

    ``evaluation``, ``rollout`` and ``rollout_plies`` default to the game's own (its
    spec), else to 1/n each, uniformly random moves and :data:`DEFAULT_ROLLOUT_PLIES`.
    """

    def __init__(
        self,
        game: Any,
        *,
        evaluation: Evaluation | None = None,
        rollout: Policy | None = None,
        exploration: float = DEFAULT_EXPLORATION,
        rollout_plies: int | None = None,
        determinizations: int = DEFAULT_DETERMINIZATIONS,
        chance_samples: int = DEFAULT_CHANCE_SAMPLES,
        extra_candidates: int = DEFAULT_EXTRA_CANDIDATES,
        bias: float = DEFAULT_BIAS,
        minimax: float | None = None,
        widening: float | None = None,
    ) -> None:
        self.rules: Rules = rules_of(game)
        if rollout_plies is None:
            rollout_plies = rollout_plies_for(self.rules, DEFAULT_ROLLOUT_PLIES)
        if rollout_plies < 0 or determinizations < 1 or chance_samples < 1:
            raise PartitaError(
                "a search needs rollout_plies >= 0, determinizations >= 1, chance_samples >= 1"
            )
        self.evaluation = evaluation if evaluation is not None else evaluation_for(self.rules)
        self.policy = rollout if rollout is not None else rollout_for(self.rules)
        self.exploration = exploration
        self.rollout_plies = rollout_plies
        self.determinizations = determinizations
        self.chance_samples = chance_samples
        self.extra_candidates = extra_candidates
        self.bias = bias
        declared = search_settings_for(self.rules)
        if minimax is None:
            minimax = declared.get("minimax", DEFAULT_MINIMAX)
        if not 0.0 <= minimax <= 1.0:
            raise PartitaError(f"a search's minimax weight is from 0 to 1, not {minimax}")
        self.minimax = minimax
        if widening is None:
            widening = declared.get("widening", DEFAULT_WIDENING)
        if widening < 0:
            raise PartitaError(f"a search's widening cannot be negative, not {widening}")
        self.widening = widening
        #: Whether children get the heuristic's value when their parent is expanded.
        self.priors = bool(bias or minimax)
        # The contract: a game that overrides sample_move may list a subset of its moves.
        self.lists_subset = type(self.rules).sample_move is not Rules.sample_move
        #: Whether a move may hold another side's choices (:meth:`Rules.decisions`).
        self.splits = type(self.rules).decisions is not Rules.decisions

    # -- the public search ------------------------------------------------------------
    def search(
        self,
        state: Any,
        rng: Any,
        *,
        playouts: int | None = None,
        seconds: float | None = None,
        viewer: int | None = None,
        history: Sequence[tuple[Any, Any]] = (),
        within: Sequence[Any] | None = None,
    ) -> SearchResult:
        """Search ``state`` for at most ``playouts`` playouts and ``seconds`` seconds
        (at least one of them). ``viewer``: in a hidden-information game, the side
        whose information the search may use (default: the side to move; at a
        chance node, everything, which only a perfect-information caller should ask);
        ``history``: the ``(state, move)`` pairs that led to ``state``, so that what
        the viewer saw happen is kept (:meth:`Rules.determinize`); ``within``: the
        root's moves, where only these may be chosen (the mover's ways on once
        another side has answered; legal moves of ``state``, the mover's own).
        """
        if playouts is None and seconds is None:
            raise PartitaError("a search needs a budget: playouts or seconds")
        if playouts is not None and playouts < 1:
            raise PartitaError(f"a search needs at least 1 playout, not {playouts}")
        rules = self.rules
        if viewer is None and rules.outcome(state) is None:
            side = rules.side_to_move(state)
            viewer = side if side != CHANCE else None
        with collector_paused():
            if not rules.hidden_information or viewer is None or rules.outcome(state) is not None:
                return self._search(state, rng, playouts, seconds, within, close=False)
            return self._search_hidden(state, rng, playouts, seconds, viewer, history, within)

    # -- hidden information: determinized searches --------------------------------------
    def _search_hidden(
        self,
        state: Any,
        rng: Any,
        playouts: int | None,
        seconds: float | None,
        viewer: int,
        history: Sequence[tuple[Any, Any]],
        within: Sequence[Any] | None = None,
    ) -> SearchResult:
        rules = self.rules
        samples = self.determinizations
        if playouts is not None:
            samples = min(samples, playouts)
        side = rules.side_to_move(state)
        started = time.perf_counter()
        samples_drawn = [rules.determinize(state, viewer, rng, history) for _ in range(samples)]
        # The viewer's own moves, drawn from a table it cannot tell from the real one
        # (a playout policy may look at the whole table), kept where every table
        # plays them (each with its own cards where it names hidden ones): the
        # statistics then add up over moves the viewer can make on what it knows.
        playable = None
        if side == viewer:
            offered = list(within) if within is not None else self.candidates(samples_drawn[0], rng)
            playable = self.playable_moves(offered, samples_drawn)
        # what the viewer chooses, per move it can play: the statistics add up by it
        # (the whole move where ``within`` has made the other sides' choices)
        group_of = {
            move: move if within is not None else self.group_key(state, move)
            for move, _ in playable or ()
        }
        shown_by: dict[Any, Any] = {}  # a viewer's move of each group
        for move, group in group_of.items():
            shown_by.setdefault(group, move)
        tally = _Tally()
        value = [0.0] * rules.sides(state)
        done = 0
        for index in range(samples):
            share = None
            if playouts is not None:
                share = playouts // samples + (1 if index < playouts % samples else 0)
            limit = None
            if seconds is not None:
                limit = max(seconds - (time.perf_counter() - started), 0.0) / (samples - index)
            root_moves = None
            key: dict[Any, Any] = {}
            if playable is not None:
                key = {realized[index]: move for move, realized in playable}
                root_moves = list(key)
            result = self._search(
                samples_drawn[index], rng, share, limit, root_moves, close=within is None
            )
            done += result.playouts
            for seat, part in enumerate(result.value):
                value[seat] += part * result.playouts
            for item in result.moves:
                move = key.get(item.move, item.move)
                group = group_of.get(move, move)
                if self.splits and move not in group_of and playable is not None:
                    # another side's answer the sample added: kept under the
                    # viewer's own choice, shown by a move the viewer can play
                    group = self.group_key(samples_drawn[index], item.move)
                    move = shown_by.get(group, move)
                tally.add(group, move, item, spelled=move in group_of, proven=False)
        mean = tuple(part / (done or 1) for part in value)
        return _hidden_result(
            side, viewer, tally.moves(), mean, done, time.perf_counter() - started, samples
        )

    def merge(
        self,
        state: Any,
        results: Sequence[SearchResult],
        *,
        viewer: int | None = None,
        within: Sequence[Any] | None = None,
        seconds: float = 0.0,
    ) -> SearchResult:
        """One answer from independent searches of ``state`` (as :meth:`search`
        asked with the same ``viewer`` and ``within``, each with its own rng: root
        parallelism): per move of the root (per choice of the mover's own, where
        other sides choose within a move) the visits added up and the values
        weighted by them, the moves ranked and the best chosen as one search
        chooses from its root's statistics; ``seconds``: what the searches took.

        In a game of perfect information a move or a root proven in one search is
        proven (its exact value is kept); in a hidden-information game each search
        drew its own tables, so a value is exact only where every search that
        tried the move proved it, and the determinized states add up (``samples``).
        """
        if not results:
            raise PartitaError("nothing to merge: no search of the position")
        rules = self.rules
        ended = rules.outcome(state) is not None
        if ended or len(results) == 1:
            return results[0]
        side = rules.side_to_move(state)
        if viewer is None:
            viewer = side if side != CHANCE else None
        hidden = rules.hidden_information and viewer is not None
        sides = len(results[0].value)
        done = sum(result.playouts for result in results)
        mean = tuple(
            sum(result.value[seat] * result.playouts for result in results) / (done or 1)
            for seat in range(sides)
        )
        tally = _Tally()
        for result in results:
            for item in result.moves:
                if side == CHANCE or within is not None or (hidden and side != viewer):
                    group = item.move  # as one search keeps them
                else:
                    group = self.group_key(state, item.move)
                tally.add(group, item.move, item, spelled=True, proven=not hidden)
        moves = tally.moves()
        samples = sum(result.samples for result in results)
        if side == CHANCE:
            moves.sort(key=lambda item: item.visits, reverse=True)
            return SearchResult(side, mean, tuple(moves), done, seconds, False, samples)
        if hidden and viewer is not None:
            return _hidden_result(side, viewer, moves, mean, done, seconds, samples)
        solved = next((result.value for result in results if result.exact), None)
        return _ranked(side, moves, solved, mean, done, seconds)

    # -- one perfect-information search -----------------------------------------------------
    def _search(
        self,
        state: Any,
        rng: Any,
        playouts: int | None,
        seconds: float | None,
        root_moves: Sequence[Any] | None,
        *,
        close: bool = True,
    ) -> SearchResult:
        """One tree; ``root_moves``: the root's moves (``close``: with the other
        sides' answers to them added)."""
        started = time.perf_counter()
        root = self._node(state)
        if root.solved is not None:  # the game is over
            return SearchResult(CHANCE, root.solved, (), 0, 0.0, True)
        if root_moves is not None:
            if close and self.splits:
                root_moves = self.with_answers(state, root_moves)
            self._expand(root, rng, root_moves)
        deadline = None if seconds is None else started + seconds
        done = 0
        while playouts is None or done < playouts:
            if root.solved is not None and done:
                break  # nothing left to learn
            self._playout(root, rng)
            done += 1
            if deadline is not None and not done & 15 and time.perf_counter() >= deadline:
                break
        return self._result(root, done, time.perf_counter() - started)

    def _node(self, state: Any) -> _Node:
        rules = self.rules
        outcome = rules.outcome(state)
        sides = rules.sides(state)
        if outcome is not None:
            return _Node(state, CHANCE, sides, expected_scores(outcome))
        return _Node(state, rules.side_to_move(state), sides, None)

    def candidates(self, state: Any, rng: Any) -> list[Any]:
        """The moves a node searches: ``legal_moves``, plus draws from the policy and
        ``sample_move`` where that list may be a subset."""
        moves = list(self.rules.legal_moves(state))
        if self.lists_subset and self.extra_candidates:
            seen = set(moves)
            for _ in range(self.extra_candidates):
                for draw in (self.policy, self.rules.sample_move):
                    move = draw(state, rng)
                    if move not in seen:
                        seen.add(move)
                        moves.append(move)
        if self.splits:
            moves = self.with_answers(state, moves)
        return moves

    def with_answers(self, state: Any, moves: Sequence[Any]) -> list[Any]:
        """``moves`` and, for each choice another side makes in one of them, that
        side's other answers (:meth:`Rules.answers`), each once."""
        rules = self.rules
        found = list(moves)
        seen = set(found)
        asked: set[tuple[Any, ...]] = set()  # the choices before an answer: asked once
        for move in moves:
            steps = rules.decisions(state, move)
            for index in range(1, len(steps)):
                before = tuple(step.choice for step in steps[:index])
                if steps[index].side == steps[0].side or before in asked:
                    continue
                asked.add(before)
                for answer in rules.answers(state, move, index):
                    if answer not in seen:
                        seen.add(answer)
                        found.append(answer)
        return found

    def by_choice(self, state: Any, items: Sequence[MoveStatistics]) -> list[MoveStatistics]:
        """One-ply statistics (a move's value after it) folded by the mover's own
        choice: where other sides choose within the moves, each group is valued as
        they would choose, each side its best (max-n down the decisions), and shown
        by the move their choices lead to; ``items`` as they are otherwise."""
        if not self.splits:
            return list(items)
        rules = self.rules
        entries = [(rules.decisions(state, item.move), item) for item in items]

        def chosen(group: list[tuple[Any, ...]], depth: int) -> MoveStatistics:
            """The item ``group`` (alike up to ``depth``) stands for: its own where it
            holds one, else the best of its choices at ``depth + 1`` for their chooser."""
            if len(group) == 1:
                return group[0][1]
            chooser = group[0][0][depth + 1].side
            options = [chosen(inner, depth + 1) for inner in _grouped(group, depth + 1)]
            return max(options, key=lambda item: item.value[chooser])

        return [chosen(group, 0) for group in _grouped(entries, 0)]

    def group_key(self, state: Any, move: Any) -> Any:
        """What the mover himself chose in ``move`` (its first decision): the moves
        a search's root statistics are kept by."""
        if not self.splits:
            return move
        return self.rules.decisions(state, move)[0].choice

    def playable_moves(
        self, moves: Sequence[Any], tables: Sequence[Any]
    ) -> list[tuple[Any, tuple[Any, ...]]]:
        """Each of ``moves`` (found on ``tables[0]``) that every one of ``tables``
        (states its mover cannot tell apart) plays, with the move as each table
        plays it (:meth:`Rules.realize`: a reward's cards are that table's).

        A move that holds a guessed card (one the mover cannot see, played or
        revealed) is left out unless every table has that card where the move
        needs it: what the mover can play on what it knows. If no move is left,
        those that the most tables play."""
        rules = self.rules
        counted: list[tuple[int, Any, tuple[Any, ...]]] = []
        seen: set[tuple[Any, ...]] = set()
        for move in moves:
            realized = tuple(rules.realize(table, move) for table in tables)
            if realized in seen:
                continue
            seen.add(realized)
            fits = sum(
                rules.illegal_reason(table, played) is None
                for table, played in zip(tables, realized, strict=True)
            )
            counted.append((fits, move, realized))
        most = max((fits for fits, _, _ in counted), default=0)
        wanted = len(tables) if most == len(tables) else most
        return [(move, realized) for fits, move, realized in counted if fits == wanted and fits]

    def _expand(self, node: _Node, rng: Any, moves: Sequence[Any] | None = None) -> None:
        if node.side == CHANCE:
            node.children = {}
            return
        rules = self.rules
        if moves is None:
            moves = self.candidates(node.state, rng)
        else:  # the viewer's own moves, kept where this sample allows them
            moves = [move for move in moves if rules.illegal_reason(node.state, move) is None]
        moves = list(moves)
        rng.shuffle(moves)
        children = []
        side = node.side
        evaluation = self.evaluation if self.priors else None
        for move in moves:
            child = self._node(rules.apply(node.state, move))
            children.append(child)
            if child.solved is not None:
                child.prior = child.solved
            elif evaluation is not None:
                child.prior = evaluation(child.state)
        if evaluation is not None and self.bias:  # the heuristic's favourites are tried first
            order = sorted(range(len(moves)), key=lambda i: children[i].prior[side], reverse=True)
            moves = [moves[i] for i in order]
            children = [children[i] for i in order]
        if self.splits and len(moves) > 1:
            steps = [rules.decisions(node.state, move) for move in moves]
            if any(len(step) > 1 for step in steps):
                moves, children = self._decide(
                    node, list(zip(steps, moves, children, strict=True)), 0
                )
        node.moves = moves
        node.children = children
        if node.solved is None:
            node.solved = self._settled(side, children)

    @staticmethod
    def _settled(side: int, children: Sequence[_Node]) -> tuple[float, ...] | None:
        """A node's exact value from its children's, where they settle it: a child
        that wins at once for ``side``, or every child solved (its best)."""
        solved = [child.solved for child in children if child.solved is not None]
        for value in solved:
            if value[side] >= 1.0:
                return value
        if children and len(solved) == len(children):
            return max(solved, key=lambda value: value[side])
        return None

    def _decide(
        self, node: _Node, entries: Sequence[tuple[Any, ...]], depth: int
    ) -> tuple[list[Any], list[_Node]]:
        """The choices at ``depth`` of ``entries`` (``(decisions, move, child)``, all
        alike before ``depth``): a move whose decisions end there is a child of its
        own; the moves that share a choice and go on below one decision node, the
        side making their next choice choosing there (one move alone needs none)."""
        moves: list[Any] = []
        children: list[_Node] = []
        for group in _grouped(entries, depth):
            if len(group) == 1:
                moves.append(group[0][1])
                children.append(group[0][2])
                continue
            chooser = group[0][0][depth + 1].side
            inner = _Node(node.state, chooser, len(node.totals), None)
            inner.decision = True
            inner.moves, inner.children = self._decide(node, group, depth + 1)
            priors = [child.prior for child in inner.children if child.prior]
            if priors:
                inner.prior = max(priors, key=lambda value: value[chooser])
            if self.bias and priors and len(priors) == len(inner.children):
                paired = sorted(
                    zip(inner.moves, inner.children, strict=True),
                    key=lambda pair: pair[1].prior[chooser],
                    reverse=True,
                )
                inner.moves = [move for move, _ in paired]
                inner.children = [child for _, child in paired]
            inner.solved = self._settled(chooser, inner.children)
            if inner.solved is not None:
                inner.prior = inner.solved
            moves.append(_Group(group[0][0][depth].choice))
            children.append(inner)
        return moves, children

    def _playout(self, root: _Node, rng: Any) -> None:
        path = [root]
        node = root
        while True:
            if node.solved is not None:
                value = node.solved
                break
            if node.children is None:
                self._expand(node, rng)
                if node.solved is not None:
                    value = node.solved
                    break
            child = self._chance_child(node, rng) if node.side == CHANCE else self._select(node)
            if child is None:  # no candidate move at all: score the position as it is
                value = self.evaluation(node.state)
                break
            path.append(child)
            if child.visits == 0 and not child.decision:
                if child.solved is not None:
                    value = child.solved
                elif child.prior and not self.rollout_plies:
                    value = child.prior  # a playout of no ply: the heuristic, known already
                else:
                    value = self._rollout(child.state, rng)
                break
            node = child
        for visited in path:
            visited.visits += 1
            totals = visited.totals
            for seat, part in enumerate(value):
                totals[seat] += part
        self._propagate(path)
        if self.minimax:
            self._back_up(path)

    @staticmethod
    def _heuristic(node: _Node) -> tuple[float, ...]:
        """A node's heuristic value as the tree knows it: exact where solved, else
        backed up from its expanded subtree, else its own."""
        if node.solved is not None:
            return node.solved
        return node.backed or node.prior

    def _back_up(self, path: list[_Node]) -> None:
        """Implicit minimax: each node on the path takes its mover's best child's
        heuristic value (max-n), a chance node the mean over its sampled outcomes."""
        heuristic = self._heuristic
        for node in reversed(path[:-1]):
            children = node.children
            if not children:
                continue
            if node.side == CHANCE:
                values = [heuristic(children[move]) for move in node.samples]
                values = [value for value in values if value]
                if values:
                    node.backed = tuple(
                        sum(part) / len(values) for part in zip(*values, strict=True)
                    )
                continue
            side = node.side
            best: tuple[float, ...] = ()
            for child in children:
                value = heuristic(child)
                if value and (not best or value[side] > best[side]):
                    best = value
            node.backed = best

    def _select(self, node: _Node) -> _Node | None:
        """UCB1 over the children not yet solved (a solved child has nothing left to
        teach); an untried child first."""
        side = node.side
        log_visits = math.log(node.visits) if node.visits > 1 else 0.0
        exploration = self.exploration
        bias = self.bias
        minimax = self.minimax
        best = None
        best_score = -math.inf
        children = node.children
        if self.widening and self.bias:  # the heuristic's favourites, more as visits come
            children = children[: 1 + int(self.widening * math.sqrt(node.visits))]
        for child in children:
            if child.solved is not None:
                continue
            visits = child.visits
            if not visits:
                return child
            score = child.totals[side] / visits if not child.decision else _decided(child)[side]
            if minimax:
                backed = child.backed or child.prior
                score = (1.0 - minimax) * score + minimax * backed[side]
            score += exploration * math.sqrt(log_visits / visits)
            if bias:
                score += bias * child.prior[side] / (visits + 1)
            if score > best_score:
                best, best_score = child, score
        if best is None and len(children) < len(node.children):  # the window is solved
            best = next((child for child in node.children if child.solved is None), None)
        if best is None and node.children:  # every child solved (the node is too)
            best = max(node.children, key=lambda child: child.mean()[side])
        return best

    def _chance_child(self, node: _Node, rng: Any) -> _Node:
        if len(node.samples) < self.chance_samples:
            move = self.rules.sample_move(node.state, rng)
            node.samples.append(move)
        else:
            move = rng.choice(node.samples)
        child = node.children.get(move)
        if child is None:
            child = node.children[move] = self._node(self.rules.apply(node.state, move))
            if child.solved is not None:
                child.prior = child.solved
            elif self.minimax:  # what implicit minimax backs up through a chance node
                child.prior = self.evaluation(child.state)
        return child

    def _rollout(self, state: Any, rng: Any) -> tuple[float, ...]:
        rules = self.rules
        apply, outcome, side_to_move = rules.apply, rules.outcome, rules.side_to_move
        sample, policy = rules.sample_move, self.policy
        for _ in range(self.rollout_plies):
            move = sample(state, rng) if side_to_move(state) == CHANCE else policy(state, rng)
            state = apply(state, move)
            ended = outcome(state)
            if ended is not None:
                return expected_scores(ended)
        return self.evaluation(state)

    @staticmethod
    def _propagate(path: list[_Node]) -> None:
        """Solve the parents of a newly solved node where that settles them."""
        for index in range(len(path) - 2, -1, -1):
            parent, child = path[index], path[index + 1]
            if parent.solved is not None or child.solved is None or parent.side == CHANCE:
                return
            side = parent.side
            if child.solved[side] >= 1.0:
                parent.solved = child.solved
            elif all(other.solved is not None for other in parent.children):
                parent.solved = max(
                    (other.solved for other in parent.children), key=lambda value: value[side]
                )
            else:
                return

    def _result(self, root: _Node, playouts: int, seconds: float) -> SearchResult:
        side = root.side
        if side == CHANCE:
            children = root.children or {}
            moves = [
                MoveStatistics(move, child.visits, child.mean(), child.solved is not None)
                for move, child in children.items()
            ]
            moves.sort(key=lambda item: item.visits, reverse=True)
            return SearchResult(side, root.mean(), tuple(moves), playouts, seconds, False)
        head = root  # below choices that all the root's moves share (``within``)
        while (
            head.children
            and len(head.children) == 1
            and head.children[0].decision
            and head.children[0].children
        ):
            head = head.children[0]
        if head.side != side:
            head = root
        moves = [
            MoveStatistics(
                _principal(child) if isinstance(move, _Group) else move,
                child.visits,
                _decided(child),
                child.solved is not None,
            )
            for move, child in zip(head.moves, head.children or (), strict=True)
        ]
        return _ranked(side, moves, root.solved, root.mean(), playouts, seconds)


class SearchTree:
    """A search tree kept from one position to the next, for a caller that follows a
    line of play (annotating a record): the subtree under the move played becomes
    the next root, its playouts counted, so each position starts from what the
    search of the one before it learned there. Perfect information only (a
    hidden-information search draws new tables for every position).

    ``grow`` searches the root, ``force`` searches one of its moves until it has a
    number of playouts (so that a move the search would not choose can be compared
    with the one it would), ``result`` reads the root as :meth:`Mcts.search` does,
    ``advance`` moves the root on. ``playouts`` counts the playouts run in all.
    """

    def __init__(self, search: Mcts, state: Any) -> None:
        self.search = search
        self.root = search._node(state)
        #: Playouts this tree has run, over every root it had.
        self.playouts = 0

    @property
    def state(self) -> Any:
        return self.root.state

    @property
    def visits(self) -> int:
        """The root's playouts, those of earlier roots that went through it included."""
        return self.root.visits

    def grow(
        self,
        rng: Any,
        *,
        visits: int | None = None,
        least: int = 1,
        seconds: float | None = None,
    ) -> int:
        """Playouts from the root until it has ``visits`` (reused ones count) and
        this call ran at least ``least``, or ``seconds`` have passed (with no
        ``visits``: until then); fewer once the root is proven. Returns how many ran."""
        if visits is None and seconds is None:
            raise PartitaError("a search needs a budget: playouts or seconds")
        root = self.root
        search = self.search
        deadline = None if seconds is None else time.perf_counter() + seconds
        done = 0
        with collector_paused():
            while root.solved is None:
                if visits is not None and root.visits >= visits and done >= least:
                    break
                search._playout(root, rng)
                done += 1
                if deadline is not None and not done & 15 and time.perf_counter() >= deadline:
                    break
        self.playouts += done
        return done

    def force(self, move: Any, visits: int, rng: Any) -> int:
        """Playouts through ``move`` (a move of the root) until its position has
        ``visits`` playouts or is proven; the root counts them as its own. Returns
        how many ran."""
        root = self.root
        search = self.search
        if root.solved is not None and root.side == CHANCE:
            return 0
        child = self._child(move, rng)
        done = 0
        with collector_paused():
            while child.solved is None and child.visits < visits:
                before = list(child.totals)
                search._playout(child, rng)
                root.visits += 1
                for seat, total in enumerate(child.totals):
                    root.totals[seat] += total - before[seat]
                done += 1
        Mcts._propagate([root, child])
        self.playouts += done
        return done

    def value(self) -> tuple[tuple[float, ...], int]:
        """The root's value and the playouts behind it: proven, else the mean of
        every playout through the root. Its best move's mean would lean towards the
        side to move: that move's replies are still being tried, and the best of
        many noisy means is chosen for being high (by 0.2 with 30 moves and 1,000
        playouts), so it swings from ply to ply."""
        root = self.root
        return root.mean(), root.visits

    def result(self, playouts: int = 0, seconds: float = 0.0) -> SearchResult:
        """The root read as :meth:`Mcts.search` reads it (``playouts``, ``seconds``:
        what to report as this position's cost)."""
        if self.root.solved is not None and self.root.children is None:
            return SearchResult(CHANCE, self.root.solved, (), 0, 0.0, True)
        return self.search._result(self.root, playouts, seconds)

    def advance(self, move: Any, rng: Any) -> int:
        """Make the position after ``move`` the root, keeping its subtree; returns
        the playouts it brings (0: the search had not been there)."""
        root = self.root
        child = None
        if root.children is not None:
            child = root.children.get(move) if root.side == CHANCE else child_of(root, move)
        if child is None:
            child = self.search._node(self.search.rules.apply(root.state, move))
        self.root = child
        return child.visits

    def _child(self, move: Any, rng: Any) -> _Node:
        """The root's child after ``move``, added where the root's candidates left
        it out (a game whose ``legal_moves`` lists a subset)."""
        root = self.root
        search = self.search
        if root.children is None:
            search._expand(root, rng)
        if root.side == CHANCE:
            child = root.children.get(move)
            if child is None:
                child = root.children[move] = search._node(search.rules.apply(root.state, move))
            return child
        found = child_of(root, move)
        if found is not None:
            return found
        child = search._node(search.rules.apply(root.state, move))
        child.prior = (
            child.solved
            if child.solved is not None
            else search.evaluation(child.state)
            if search.priors
            else ()
        )
        root.moves.append(move)
        root.children.append(child)
        return child
