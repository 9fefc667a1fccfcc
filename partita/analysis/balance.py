"""Is the game fair? Seat scores, the first seat's advantage, game lengths and
how often each rule fires, per configuration, from any archive's games.

For each configuration (sides and game-specific tags,
:class:`~partita.game.configuration.Configuration`) of the selected valid games:

* each seat's **score**: its mean result (win 1, draw 1/2, loss 0) over the
  decided games, with a 95% **Wilson score interval** (``z = 1.96``). Draws count as
  half a win in the mean; the interval takes the variance of a win-or-loss result
  of that mean, which is at least the real variance when there are draws, so the
  interval is, if anything, a little wide. Wilson rather than the normal
  approximation: it stays inside [0, 1] and keeps its coverage near 0 and 1 and
  for a few dozen games;
* the **first seat's advantage**: its score minus the fair share (the mean of the
  seats' scores: ``1 / sides`` when every game has one winner or is a two-sided
  draw, more where draws are shared by three or four sides, each scoring 1/2),
  with the same interval shifted; *significant* when the interval leaves out 0;
* the **length** of games in plies: mean, median, quartiles, extremes, histogram;
* the **agents' strength** where agents played
  (:mod:`partita.analysis.agent_strength`): each agent's score and head-to-heads,
  the first seat's advantage at each strength (restricted play), and warnings
  when the agents are too weak to say much about the game;
* **rule events**: what each game's package counts (its spec's ``rule_counters``:
  stacks and pins, gateway passes, fouls...), as events per game and the share of
  games in which each fired at least once.

Counting the events replays every game's moves (the archive's ``moves`` column)
through the rules; the games are cut into tasks run through
:mod:`partita.execution` (``workers``, ``scheduler``): the moves travel, counts come
back. Unfinished games (``*``) count in lengths and events, not in scores.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from partita.analysis.agent_strength import AgentFigures, agents_of
from partita.analysis.tasks import GameRef, game_ref, resolve_game
from partita.errors import PartitaError, UnknownGameError
from partita.execution import default_workers, open_executor
from partita.game.configuration import Configuration, varying_settings
from partita.game.registry import get_game, get_spec
from partita.game.rules import DRAW, WIN, parse_result_token

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "Z95",
    "ConfigurationBalance",
    "SeatScore",
    "balance",
    "balance_of_rows",
    "wilson_interval",
]

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054
#: Games per task when events are counted in workers.
TASK_GAMES = 200


def wilson_interval(score: float, count: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``score`` seen over ``count``
    trials; ``(0, 1)`` for none."""
    if count <= 0:
        return 0.0, 1.0
    z2 = z * z
    centre = (score + z2 / (2 * count)) / (1 + z2 / count)
    half = z / (1 + z2 / count) * math.sqrt(score * (1 - score) / count + z2 / (4 * count * count))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(slots=True)
class SeatScore:
    """One seat's results over the decided games of a configuration."""

    seat: int
    won: int = 0
    drawn: int = 0
    lost: int = 0

    @property
    def games(self) -> int:
        return self.won + self.drawn + self.lost

    @property
    def score(self) -> float | None:
        return (self.won + self.drawn / 2) / self.games if self.games else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.score or 0.0, self.games)

    def as_dict(self) -> dict:
        low, high = self.interval
        return {
            "seat": self.seat + 1,
            "games": self.games,
            "won": self.won,
            "drawn": self.drawn,
            "lost": self.lost,
            "score": None if self.score is None else round(self.score, 4),
            "interval": [round(low, 4), round(high, 4)],
        }


@dataclass(slots=True)
class ConfigurationBalance:
    """The balance figures of one configuration of one game."""

    game: str
    title: str
    configuration: Configuration
    label: str
    games: int = 0
    decided: int = 0
    unfinished: int = 0
    seats: list[SeatScore] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    #: event -> times it fired; event -> games in which it fired
    events: Counter = field(default_factory=Counter)
    event_games: Counter = field(default_factory=Counter)
    #: games whose moves could not be replayed (stored as valid under other rules)
    skipped: int = 0
    #: the agents' strength, from the decided games every seat of which an agent played
    agents: AgentFigures | None = None

    @property
    def sides(self) -> int:
        return self.configuration.sides

    @property
    def fair_share(self) -> float:
        """What each seat would score if seats made no difference: the mean of the
        seats' scores. ``1 / sides`` when every game has one winner or is a draw of
        two sides; more when draws are shared by more than two (each drawing side
        scores 1/2)."""
        scores = [seat.score for seat in self.seats if seat.score is not None]
        if len(scores) != self.sides:
            return 1 / self.sides
        return sum(scores) / self.sides

    @property
    def first_seat_advantage(self) -> tuple[float, float, float] | None:
        """The first seat's score minus the fair share, and its 95% interval."""
        first = self.seats[0] if self.seats else None
        if first is None or first.score is None:
            return None
        low, high = first.interval
        share = self.fair_share
        return first.score - share, low - share, high - share

    @property
    def significant(self) -> bool:
        """Whether the first seat's advantage interval leaves out 0."""
        advantage = self.first_seat_advantage
        return advantage is not None and (advantage[1] > 0 or advantage[2] < 0)

    def length_figures(self) -> dict:
        lengths = sorted(self.lengths)
        if not lengths:
            return {"games": 0}
        quartiles = statistics.quantiles(lengths, n=4) if len(lengths) > 1 else [lengths[0]] * 3
        return {
            "games": len(lengths),
            "mean": round(statistics.fmean(lengths), 2),
            "median": statistics.median(lengths),
            "quartiles": [round(quartiles[0], 1), round(quartiles[2], 1)],
            "min": lengths[0],
            "max": lengths[-1],
        }

    def histogram(self, bins: int = 20) -> tuple[list[int], list[int]]:
        """Lower edges of equal integer bins of the lengths, and the games in each."""
        if not self.lengths:
            return [], []
        low, high = min(self.lengths), max(self.lengths)
        width = max(1, math.ceil((high - low + 1) / bins))
        edges = list(range(low, high + 1, width))
        counts = [0] * len(edges)
        for length in self.lengths:
            counts[(length - low) // width] += 1
        return edges, counts

    def event_rows(self) -> list[tuple[str, int, float, float]]:
        """``(event, times, per game, share of games)``, most frequent first."""
        games = self.games or 1
        return [
            (name, count, count / games, self.event_games[name] / games)
            for name, count in sorted(self.events.items(), key=lambda item: (-item[1], item[0]))
        ]

    def as_dict(self) -> dict:
        advantage = self.first_seat_advantage
        return {
            "game": self.game,
            "configuration": {"sides": self.sides, **self.configuration.tags()},
            "label": self.label,
            "games": self.games,
            "decided": self.decided,
            "unfinished": self.unfinished,
            "skipped": self.skipped,
            "seats": [seat.as_dict() for seat in self.seats],
            "fair_share": round(self.fair_share, 4),
            "first_seat_advantage": None
            if advantage is None
            else {
                "advantage": round(advantage[0], 4),
                "interval": [round(advantage[1], 4), round(advantage[2], 4)],
                "significant": self.significant,
            },
            "agents": None
            if self.agents is None or not self.agents.games
            else self.agents.as_dict(),
            "lengths": self.length_figures(),
            "events": [
                {
                    "event": name,
                    "count": count,
                    "per_game": round(per_game, 4),
                    "games_share": round(share, 4),
                }
                for name, count, per_game, share in self.event_rows()
            ],
        }


# -- counting ------------------------------------------------------------------------------


def _count_events(
    task: tuple[GameRef, int, list[tuple[str, str | None]]],
) -> tuple[Counter, Counter, int]:
    """A worker's task: replay games (moves, set-up position) of ``sides`` sides and
    count their rule events: (events, games each fired in, games that could not be
    replayed)."""
    reference, sides, games = task
    notation = resolve_game(reference)
    rules = notation.rules
    try:
        counter = get_spec(notation.name).rule_counter()
    except PartitaError:
        counter = None
    read = notation.parse_move
    events: Counter = Counter()
    event_games: Counter = Counter()
    skipped = 0
    for moves, start in games:
        seen: Counter = Counter()
        try:
            state = notation.parse_position(start, sides) if start else rules.initial(sides)
            for token in moves.split():
                move = read(state, token)
                after = rules.apply(state, move)
                if counter is not None:
                    seen.update(counter(rules, state, move, after))
                state = after
        except (PartitaError, ValueError, KeyError):
            skipped += 1
            continue
        events.update(seen)
        event_games.update(seen.keys())
    return events, event_games, skipped


def balance_of_rows(
    rows: Sequence[dict],
    *,
    workers: int | None = 1,
    scheduler: str | None = None,
) -> list[ConfigurationBalance]:
    """The balance of archive rows (``game``, ``sides``, ``tags``, ``result``,
    ``plies``, ``moves``, ``status``: valid games only are counted), one entry per
    game and configuration, the games in name order, the largest configuration
    first."""
    groups: dict[tuple[str, Configuration], list[dict]] = {}
    for row in rows:
        if row["status"] != "valid" or not row["game"]:
            continue
        try:
            notation = get_game(row["game"])
        except UnknownGameError:
            continue
        tags = json.loads(row["tags"] or "{}")
        sides = row["sides"] or notation.rules.min_sides
        configuration = Configuration.of(notation, sides, tags)
        groups.setdefault((row["game"], configuration), []).append(row)
    ordered = sorted(groups.items(), key=lambda item: (item[0][0], -len(item[1]), item[0][1].label))
    by_game: dict[str, list[Configuration]] = {}
    for (name, configuration), _ in ordered:
        by_game.setdefault(name, []).append(configuration)
    results: list[ConfigurationBalance] = []
    tasks: list[tuple[GameRef, int, list[tuple[str, str | None]]]] = []
    owners: list[ConfigurationBalance] = []
    for (name, configuration), game_rows in ordered:
        notation = configuration.configure(get_game(name))
        varying = varying_settings(by_game[name]) if len(by_game[name]) > 1 else set()
        entry = ConfigurationBalance(
            name,
            notation.rules.title,
            configuration,
            configuration.describe(varying),
            seats=[SeatScore(seat) for seat in range(configuration.sides)],
            agents=AgentFigures(configuration.sides),
        )
        for row in game_rows:
            entry.games += 1
            entry.lengths.append(row["plies"] or 0)
            try:
                scores = parse_result_token(row["result"] or "*", configuration.sides)
            except ValueError:
                scores = None
            if scores is None:
                entry.unfinished += 1
                continue
            entry.decided += 1
            agents = agents_of(json.loads(row["tags"] or "{}"), configuration.sides)
            if agents is not None and entry.agents is not None:
                entry.agents.add(agents, scores)
            for seat, score in zip(entry.seats, scores, strict=True):
                if score == WIN:
                    seat.won += 1
                elif score == DRAW:
                    seat.drawn += 1
                else:
                    seat.lost += 1
        reference = game_ref(notation, configuration.tags())
        games = [(row["moves"] or "", row.get("start")) for row in game_rows]
        for start in range(0, len(games), TASK_GAMES):
            tasks.append((reference, configuration.sides, games[start : start + TASK_GAMES]))
            owners.append(entry)
        results.append(entry)
    if workers is None:
        workers = default_workers(len(tasks))
    with open_executor(workers, scheduler=scheduler) as execution:
        for entry, (events, event_games, skipped) in zip(
            owners, execution.map_ordered(_count_events, tasks), strict=True
        ):
            entry.events.update(events)
            entry.event_games.update(event_games)
            entry.skipped += skipped
    return results


_COLUMNS = (
    "g.id, g.game, g.sides, g.tags, g.result, g.plies, g.moves, g.status, "
    "CASE WHEN json_extract(g.tags, '$.SetUp') = '1' "
    "THEN json_extract(g.tags, '$.Position') END AS start"
)


def balance(
    target: Archive,
    *,
    workers: int | None = 1,
    scheduler: str | None = None,
    game_ids: Sequence[int] | None = None,
    **filters: Any,
) -> list[ConfigurationBalance]:
    """The balance of the archive ``target``'s valid games matching ``filters``
    (those of :func:`partita.database.query_games`; or exactly ``game_ids``), per
    game and configuration. ``workers=None``: one per CPU, at most one per task of
    :data:`TASK_GAMES` games."""
    from partita.database.query import select_games

    filters = {name: value for name, value in filters.items() if value is not None}
    if game_ids is not None:
        rows = list(
            target.query(
                f"SELECT {_COLUMNS} FROM games g WHERE g.id IN "
                "(SELECT value FROM json_each(?)) ORDER BY g.id",
                [json.dumps(list(game_ids))],
            )
        )
    else:
        rows = list(select_games(target, _COLUMNS, **filters))
    return balance_of_rows(rows, workers=workers, scheduler=scheduler)
