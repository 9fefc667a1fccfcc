"""How strong were the agents behind a balance? From the games themselves.

A balance measured with agents describes the agents as much as the game: seats
that weak players favour need not be those strong players favour. For the games of
one configuration whose every seat was played by an agent (``Player1..N`` tags that
are agent specs, as ``partita simulate`` writes them), :class:`AgentFigures` gives

* each agent's **score**: its mean result over the seats it played (win 1, draw
  1/2, loss 0), with a 95% Wilson interval;
* each pair's **head-to-head**: in every decided game where both sat at the table,
  for each seat of the one and each seat of the other, 1 if the one finished ahead,
  1/2 level, 0 behind (with three or four sides this is the share of opponents
  beaten, the usual pairwise measure). The interval treats the pairs as
  independent, which pairs from one game are not quite: read it as a little
  narrow;
* **restricted play** (Jaffe et al., "Evaluating Competitive Game Balance with
  Restricted Play", AIIDE 2012): the first seat's advantage among the games where
  every seat was the same agent, per agent, ordered by the agents' strength
  (``random``, ``greedy``, then ``mcts`` by budget), and the change from the weakest
  to the strongest with a 95% interval (the difference of two independent
  proportions, normal approximation): does a seat's advantage grow or shrink
  with skill?
* **warnings** when the agents are too weak to say much about the game: only
  ``random`` and ``greedy`` played; a search agent that does not beat ``greedy``
  significantly (its head-to-head interval reaches 1/2); a search agent whose
  strength these games do not show (it never met ``greedy``).

:func:`play_strengths` plays the games that measure one configuration at several
strengths (``partita balance --strengths``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from partita.analysis.agents import parse_agent_spec
from partita.errors import PartitaError
from partita.game.configuration import Configuration
from partita.game.notation import GameNotation

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "STRENGTHS_EVENT",
    "AgentFigures",
    "AgentScore",
    "Level",
    "agent_rank",
    "agents_of",
    "play_strengths",
    "strength_runs",
]

#: The normal quantile of a two-sided 95% interval.
_Z95 = 1.959963984540054
#: Agents that do not search.
WEAK = ("random", "greedy")


def agent_rank(spec: str) -> tuple[int, float, str]:
    """A sort key from the weakest agent to the strongest: ``random``, ``greedy``,
    then searches by budget (playouts, or seconds after every playout budget)."""
    kind, settings = parse_agent_spec(spec)
    if kind in WEAK:
        return WEAK.index(kind), 0.0, spec
    if "playouts" in settings:
        return 2, float(settings["playouts"]), spec
    return 3, float(settings["seconds"]), spec


def agents_of(tags: dict[str, str], sides: int) -> list[str] | None:
    """The agent of each seat, from the ``PlayerN`` tags; ``None`` unless every
    seat was played by an agent."""
    agents = []
    for seat in range(sides):
        name = (tags.get(f"Player{seat + 1}") or "").strip()
        try:
            parse_agent_spec(name)
        except PartitaError:
            return None
        agents.append(name)
    return agents


def _wilson(score: float, count: int) -> tuple[float, float]:
    from partita.analysis.balance import wilson_interval

    return wilson_interval(score, count)


@dataclass(slots=True)
class AgentScore:
    """One agent's points over the seats it played, and against each other agent."""

    agent: str
    seats: int = 0
    points: float = 0.0
    #: opponent -> [points, pairs]
    versus: dict[str, list[float]] = field(default_factory=dict)

    @property
    def score(self) -> float | None:
        return self.points / self.seats if self.seats else None

    @property
    def interval(self) -> tuple[float, float]:
        return _wilson(self.score or 0.0, self.seats)

    def against(self, other: str) -> tuple[float, float, float, int] | None:
        """Head-to-head score against ``other``, its interval, and the pairs."""
        points, pairs = self.versus.get(other, (0.0, 0))
        if not pairs:
            return None
        score = points / pairs
        low, high = _wilson(score, int(pairs))
        return score, low, high, int(pairs)

    def as_dict(self) -> dict:
        low, high = self.interval
        versus = {}
        for other in sorted(self.versus, key=agent_rank):
            found = self.against(other)
            if found is not None:
                versus[other] = {
                    "score": round(found[0], 4),
                    "interval": [round(found[1], 4), round(found[2], 4)],
                    "pairs": found[3],
                }
        return {
            "agent": self.agent,
            "seats": self.seats,
            "score": None if self.score is None else round(self.score, 4),
            "interval": [round(low, 4), round(high, 4)],
            "versus": versus,
        }


@dataclass(slots=True)
class Level:
    """The games where every seat was one agent: each seat's points and games."""

    agent: str
    sides: int
    points: list[float] = field(default_factory=list)
    games: int = 0

    def add(self, scores: Sequence[Fraction]) -> None:
        if not self.points:
            self.points = [0.0] * self.sides
        for seat, score in enumerate(scores):
            self.points[seat] += float(score)
        self.games += 1

    @property
    def advantage(self) -> tuple[float, float] | None:
        """The first seat's score minus the fair share (the mean of the seats'
        scores), and the standard error of the first seat's score."""
        if not self.games:
            return None
        scores = [points / self.games for points in self.points]
        first = scores[0]
        error = math.sqrt(max(first * (1 - first), 1e-12) / self.games)
        return first - sum(scores) / self.sides, error

    def as_dict(self) -> dict:
        advantage = self.advantage
        return {
            "agent": self.agent,
            "games": self.games,
            "first_seat_advantage": None if advantage is None else round(advantage[0], 4),
            "interval": None
            if advantage is None
            else [
                round(advantage[0] - _Z95 * advantage[1], 4),
                round(advantage[0] + _Z95 * advantage[1], 4),
            ],
        }


@dataclass(slots=True)
class AgentFigures:
    """The agents of one configuration's games (see the module docstring)."""

    sides: int
    agents: dict[str, AgentScore] = field(default_factory=dict)
    levels: dict[str, Level] = field(default_factory=dict)
    games: int = 0

    def add(self, agents: Sequence[str], scores: Sequence[Fraction]) -> None:
        """One decided game: the agent and the result of each seat."""
        self.games += 1
        for seat, (agent, score) in enumerate(zip(agents, scores, strict=True)):
            entry = self.agents.setdefault(agent, AgentScore(agent))
            entry.seats += 1
            entry.points += float(score)
            for other_seat, (other, other_score) in enumerate(zip(agents, scores, strict=True)):
                if other_seat == seat or other == agent:
                    continue
                pair = entry.versus.setdefault(other, [0.0, 0])
                pair[0] += 1.0 if score > other_score else 0.5 if score == other_score else 0.0
                pair[1] += 1
        if len(set(agents)) == 1:
            self.levels.setdefault(agents[0], Level(agents[0], self.sides)).add(scores)

    def ranked(self) -> list[AgentScore]:
        return [self.agents[name] for name in sorted(self.agents, key=agent_rank)]

    def ranked_levels(self) -> list[Level]:
        return [self.levels[name] for name in sorted(self.levels, key=agent_rank)]

    def trend(self) -> tuple[Level, Level, float, float, float] | None:
        """From the weakest level to the strongest (two or more levels): the change
        of the first seat's advantage and its 95% interval."""
        levels = [level for level in self.ranked_levels() if level.games]
        if len(levels) < 2:
            return None
        weak, strong = levels[0], levels[-1]
        low_advantage, high_advantage = weak.advantage, strong.advantage
        assert low_advantage is not None and high_advantage is not None
        change = high_advantage[0] - low_advantage[0]
        error = math.hypot(low_advantage[1], high_advantage[1])
        return weak, strong, change, change - _Z95 * error, change + _Z95 * error

    def warnings(self) -> list[str]:
        """Why these agents may be too weak to say much about the game."""
        if not self.agents:
            return []
        names = [entry.agent for entry in self.ranked()]
        if all(parse_agent_spec(name)[0] in WEAK for name in names):
            return [
                f"only {' and '.join(names)} played: the figures describe weak play, "
                "not the game under good play"
            ]
        found = []
        for entry in self.ranked():
            if parse_agent_spec(entry.agent)[0] in WEAK:
                continue
            against = entry.against("greedy")
            if against is None:
                found.append(
                    f"{entry.agent} never met greedy in these games: its strength is not "
                    "known (simulate it against greedy to find out)"
                )
            elif against[1] <= 0.5:
                found.append(
                    f"{entry.agent} does not clearly beat greedy (head-to-head "
                    f"{against[0]:.3f}, 95% interval {against[1]:.3f} to {against[2]:.3f}): "
                    "the agents may be too weak to say much about the game"
                )
        return found

    def as_dict(self) -> dict:
        trend = self.trend()
        return {
            "games": self.games,
            "agents": [entry.as_dict() for entry in self.ranked()],
            "levels": [level.as_dict() for level in self.ranked_levels()],
            "trend": None
            if trend is None
            else {
                "from": trend[0].agent,
                "to": trend[1].agent,
                "change": round(trend[2], 4),
                "interval": [round(trend[3], 4), round(trend[4], 4)],
                "significant": trend[3] > 0 or trend[4] < 0,
            },
            "warnings": self.warnings(),
        }

    def describe(self) -> list[str]:
        """Lines for a reader: each agent's score and head-to-heads, the levels and
        the trend, the warnings."""
        lines = []
        for entry in self.ranked():
            low, high = entry.interval
            versus = []
            for other in sorted(entry.versus, key=agent_rank):
                found = entry.against(other)
                if found is not None:
                    versus.append(f"{found[0]:.3f} vs {other} ({found[1]:.3f}-{found[2]:.3f})")
            lines.append(
                f"agent {entry.agent}: {entry.score:.3f} ({low:.3f}-{high:.3f}) over "
                f"{entry.seats} seats" + (f"; head-to-head {', '.join(versus)}" if versus else "")
            )
        levels = [level for level in self.ranked_levels() if level.games]
        if len(levels) > 1:
            parts = []
            for level in levels:
                advantage = level.advantage
                assert advantage is not None
                parts.append(f"{advantage[0]:+.3f} with {level.agent} ({level.games} games)")
            lines.append("first seat's advantage by skill: " + ", ".join(parts))
            trend = self.trend()
            assert trend is not None
            verdict = (
                "grows with skill"
                if trend[3] > 0
                else "shrinks with skill"
                if trend[4] < 0
                else "no significant change with skill"
            )
            lines.append(
                f"from {trend[0].agent} to {trend[1].agent}: {trend[2]:+.3f} "
                f"({trend[3]:+.3f} to {trend[4]:+.3f}), {verdict}"
            )
        lines.extend(f"warning: {text}" for text in self.warnings())
        return lines


#: The event of the games :func:`play_strengths` simulates.
STRENGTHS_EVENT = "partita balance --strengths"


def strength_runs(strengths: Sequence[str], sides: int) -> list[tuple[list[str], bool]]:
    """The runs that measure a configuration at several strengths: each agent in
    every seat (a level of restricted play), and each search agent against
    ``greedy`` in the other seats, seats rotating (its strength); as ``(agents,
    rotate)``."""
    runs: list[tuple[list[str], bool]] = [([agent], False) for agent in strengths]
    for agent in strengths:
        if parse_agent_spec(agent)[0] not in WEAK:
            runs.append(([agent] + ["greedy"] * (sides - 1), True))
    return runs


def play_strengths(
    game: GameNotation,
    configuration: Configuration,
    strengths: Sequence[str],
    games: int,
    db: Archive,
    *,
    seed: int = 0,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[Any], object] | None = None,
) -> int:
    """Simulate ``games`` games of each run of :func:`strength_runs` into the
    archive ``db`` (event :data:`STRENGTHS_EVENT`; a rerun completes what is
    missing, as ``simulate`` does); the games played."""
    from partita.analysis.selfplay import simulate

    played = 0
    for agents, rotate in strength_runs(strengths, configuration.sides):
        summary = simulate(
            game,
            games,
            agents,
            configuration=configuration,
            seed=seed,
            rotate=rotate,
            db=db,
            workers=workers,
            scheduler=scheduler,
            event=STRENGTHS_EVENT,
            progress=progress,
        )
        played += summary.played
    return played
