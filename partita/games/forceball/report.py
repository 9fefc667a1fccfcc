"""Forceball statistics for the report: how attacks are won, goals per period, the
referee's fouls, Stress, Lucky shots and Goalies, raised stakes.

Forceball has no board and its opening tree says little (a game starts with a
shuffle of the whole deck), so its part of the report adds this section. Every
figure comes from replaying the games' turns through the rules engine
(:meth:`ForceballRules.summarize`), never from the records' comments.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from partita.analysis import charts
from partita.analysis.report import Section, Table
from partita.errors import PartitaError
from partita.games.forceball.cards import ATTACK_TYPES, DEFENCE_TYPES
from partita.games.forceball.notation import ForceballNotation
from partita.games.forceball.values import TurnSummary

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = ["ForceballStatistics", "forceball_section", "forceball_statistics"]

#: The ways an attack is won, in the rulebook's order; ``None`` (no maneuver: the
#: attacker made none, or a foul on the first maneuver) is "the ball taken".
WIN_KINDS = (*ATTACK_TYPES, *DEFENCE_TYPES, None)


@dataclass(slots=True)
class ForceballStatistics:
    """Counts over a set of Forceball games (seat 0 is Player1)."""

    games: int = 0
    turns: int = 0
    attacks: int = 0
    #: (won with, won by the attacker) -> attacks
    won: Counter[tuple[str | None, bool]] = field(default_factory=Counter)
    #: period -> points per seat from goals
    goals: dict[int, list[int]] = field(default_factory=dict)
    #: period -> points per seat from declined doublings
    declined_points: dict[int, list[int]] = field(default_factory=dict)
    fouls: int = 0
    fouls_seen: int = 0
    stress: int = 0
    specials: Counter[str] = field(default_factory=Counter)
    doublings_accepted: int = 0
    doublings_declined: int = 0
    periods_ended: int = 0

    def add(self, summary: TurnSummary) -> None:
        self.turns += 1
        if summary.foul:
            self.fouls += 1
            self.fouls_seen += summary.foul_seen
        self.doublings_accepted += summary.stakes_accepted
        self.doublings_declined += summary.stakes_declined
        self.periods_ended += summary.period_ended
        if summary.special:
            self.specials[summary.special] += 1
        scored = self.declined_points if summary.stakes_declined else self.goals
        if any(summary.points):
            per_seat = scored.setdefault(summary.period, [0, 0])
            for seat in (0, 1):
                per_seat[seat] += summary.points[seat]
        if summary.attack_won_by is not None:
            self.attacks += 1
            by_attacker = summary.attack_won_by == summary.attacker
            self.won[(summary.won_with, by_attacker)] += 1
            self.stress += summary.ended_by == "stress"


def forceball_statistics(
    db: Archive, notation: ForceballNotation, game_ids: list[int]
) -> ForceballStatistics:
    """The statistics of the archive's valid games among ``game_ids``, replayed
    through ``notation`` (the configured Forceball notation of the report part)."""
    from partita.analysis.tree import move_reader

    rules = notation.rules
    read = move_reader(notation)
    statistics = ForceballStatistics()
    rows = db.execute(
        "SELECT id, moves, json_extract(tags, '$.SetUp'), json_extract(tags, '$.Position') "
        "FROM games WHERE game = 'forceball' AND status = 'valid' "
        "AND id IN (SELECT value FROM json_each(?)) ORDER BY id",
        (json.dumps(game_ids),),
    )
    for _game_id, moves, setup, position in rows:
        try:
            state = notation.parse_position(position) if setup == "1" else rules.initial()
            statistics.games += 1
            for token in (moves or "").split():
                move = read(state, token)
                summary = rules.summarize(state, move)
                if summary is not None:
                    statistics.add(summary)
                state = rules.apply(state, move)
        except (PartitaError, ValueError):
            continue  # stored as valid under other rules: counted, not analysed
    return statistics


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'' if number == 1 else 's'}"


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "–"


def _win_label(kind: str | None) -> str:
    return kind if kind is not None else "ball taken (no maneuver)"


def forceball_section(
    db: Archive, notation: ForceballNotation, game_ids: list[int]
) -> Section | None:
    """The report's Forceball section for these games (``None`` without turns)."""
    stats = forceball_statistics(db, notation, game_ids)
    if not stats.turns:
        return None
    section = Section("Forceball: attacks, goals, fouls and stakes")
    goals = sum(sum(points) for points in stats.goals.values())
    section.paragraphs.append(
        f"{_count(stats.games, 'game')}, {_count(stats.turns, 'turn')}, "
        f"{_count(stats.attacks, 'attack')} won, {_count(goals, 'point')} from goals, "
        f"{_count(stats.periods_ended, 'period')} played to the end."
    )
    rows: list[list[Any]] = []
    for kind in WIN_KINDS:
        by_attacker = stats.won[(kind, True)]
        by_defender = stats.won[(kind, False)]
        if by_attacker or by_defender:
            total = by_attacker + by_defender
            rows.append(
                [_win_label(kind), by_attacker, by_defender, total, _share(total, stats.attacks)]
            )
    if rows:
        section.tables.append(
            Table(["won with", "by the attacker", "by the defender", "attacks", "share"], rows)
        )
        section.charts.append(
            charts.bar_chart(
                [row[0] if len(row[0]) < 14 else "no maneuver" for row in rows],
                [row[3] for row in rows],
                title="How attacks were won",
                ylabel="attacks",
                annotations=[row[4] for row in rows],
                salt="forceball-attacks",
            )
        )
    periods = sorted(set(stats.goals) | set(stats.declined_points))
    if periods:
        headers = ["period", "Player1: goals", "Player2: goals"]
        declined = bool(stats.declined_points)  # raised stakes: the pro league only
        if declined:
            headers += ["Player1: declined doublings", "Player2: declined doublings"]
        period_rows = []
        for period in periods:
            row = [period, *stats.goals.get(period, [0, 0])]
            if declined:
                row += stats.declined_points.get(period, [0, 0])
            period_rows.append(row)
        section.tables.append(Table(headers, period_rows))
    section.tables.append(
        Table(
            ["event", "count"],
            [
                ["fouls (a card declared as another type)", stats.fouls],
                ["fouls the referee saw", stats.fouls_seen],
                ["attacks lost to a Stress card", stats.stress],
                ["Lucky shots", stats.specials["Lucky shot"]],
                ["Goalies", stats.specials["Goalie"]],
                ["doublings accepted", stats.doublings_accepted],
                ["doublings declined", stats.doublings_declined],
            ],
        )
    )
    return section
