"""Players: per player and per game, their games, results by seat, score, dates and
rating; a head-to-head between two players; an event's crosstable.

A player is a name as the ``PlayerN`` tags spell it, matched case- and
accent-insensitively: the name is decomposed (NFKD), its combining marks dropped,
case-folded and its blank space made single, so ``ZOE``, ``Zoe`` and ``Zoë`` are
one player (shown with the spelling the records use most). A person playing two
games is two rows: one per game, since a result in one game says nothing about
strength in another.

Results are the records' result fields, seat by seat: ``1`` won, ``1/2`` drawn (or
shared), ``0`` lost, ``*`` unfinished. The score is the points of the decided
games. Head-to-heads and crosstables count each pair of seats of a game as a game
between those two players, scored from their fields as the ratings do
(:mod:`partita.database.ratings`).

The games are those the filters of :func:`partita.database.query_games` select,
all of them (valid or not) for the counts and scores; the ratings use the valid
dated ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from partita.database.connection import Archive
from partita.database.filters import GameFilter, fold
from partita.database.ratings import RatedGame, Rating, elo_ratings
from partita.errors import ArchiveError
from partita.game.rules import parse_result_token

__all__ = [
    "Crosstable",
    "HeadToHead",
    "PlayerStats",
    "SeatRecord",
    "crosstables",
    "fold_name",
    "game_ratings",
    "head_to_head",
    "player_stats",
]

_SEATS = 4
_RATING_TAG = re.compile(r"\s*(\d{1,4})\s*")


@lru_cache(maxsize=1 << 16)
def fold_name(name: str) -> str:
    """A name as players are matched: folded as the filters fold it (:func:`fold`), single
    spaces (``Zoë  MÜLLER`` -> ``zoe muller``)."""
    return " ".join((fold(name) or "").split())


class _Game(NamedTuple):
    """One game as the players' statistics read it (a tuple: there are many)."""

    id: int
    game: str
    date: str | None
    date_min: str | None
    valid: bool
    event: str | None
    names: tuple[str, ...]
    keys: tuple[str, ...]
    scores: tuple[float, ...] | None  # 1, 0.5, 0 per seat; None: unfinished or unreadable
    rating_tags: tuple[float | None, ...]


def _rating_tag(value: Any) -> float | None:
    if value is None:
        return None
    match = _RATING_TAG.fullmatch(str(value))
    return float(match.group(1)) if match else None


@lru_cache(maxsize=256)
def _scores(result: str | None, sides: int) -> tuple[float, ...] | None:
    """Each seat's result field as a number (``None`` for ``*`` or a malformed token)."""
    try:
        fields = parse_result_token(result or "*", sides)
    except ValueError:
        return None
    return None if fields is None else tuple(float(value) for value in fields)


def games_sql(filters: dict[str, Any], db: Any = None) -> tuple[str, list[Any]]:
    """The query of the games the statistics read, and its parameters. It reads the
    table in its own order (a sort in Python is cheaper than reading it through an
    index); the tags only of a record that has a rating tag."""
    joins, where, params = GameFilter.of(**filters).sql(db)
    players = ", ".join(f"g.player{seat}" for seat in range(1, _SEATS + 1))
    sql = (
        f"SELECT g.id, g.game, g.sides, g.date, g.date_min, g.status, g.result, g.event, "
        f"{players}, CASE WHEN instr(g.tags, 'Elo\"') > 0 THEN g.tags END "
        f"FROM {joins} WHERE {where} AND g.game IS NOT NULL"
    )
    return sql, params


def _games(db: Archive, filters: dict[str, Any]) -> list[_Game]:
    """The selected games with all their seats named, by game, then date (the first
    day it can mean; undated games first), then id."""
    sql, params = games_sql(filters, db)
    games = []
    for row in db.execute(sql, params):
        game_id, game, sides, date, date_min, status, result, event, *names, tags = row
        sides = sides or 2
        if not 2 <= sides <= _SEATS or not all(names[:sides]):
            continue  # a seat without a name: nobody to count the game for
        seated = tuple(map(str.strip, names[:sides]))
        if tags is None:
            rating_tags: tuple[float | None, ...] = (None,) * sides
        else:
            values = json.loads(tags)
            rating_tags = tuple(
                _rating_tag(values.get(f"Player{seat}Elo")) for seat in range(1, sides + 1)
            )
        games.append(
            _Game(
                game_id,
                game,
                date,
                date_min,
                status == "valid",
                event,
                seated,
                tuple(map(fold_name, seated)),
                _scores(result, sides),
                rating_tags,
            )
        )
    games.sort(key=_game_order)
    return games


def _game_order(game: _Game) -> tuple[str, str, int]:
    return game.game, game.date_min or "", game.id


def _ratings(games: Sequence[_Game]) -> dict[Hashable, Rating]:
    """Elo ratings per (game, player) from the valid, dated, decided games, in the
    order given (date order within each game)."""
    rated = (
        RatedGame(
            [(game.game, key) for key in game.keys],
            game.scores,
            game.rating_tags,
        )
        for game in games
        if game.valid and game.date_min is not None and game.scores is not None
    )
    return elo_ratings(rated)


def game_ratings(db: Archive, name: str) -> dict[int, tuple[float | None, ...]]:
    """Per game of ``name`` (by id), each seat's rating when it was played: the
    record's ``PlayerNElo`` tag where it has one, else the archive's Elo of that
    player before the game (for the games the ratings count: valid, dated,
    decided), else ``None``. The Elo pass reads every game of ``name``, whatever a
    caller's selection: a rating depends on the whole history."""
    games = _games(db, {"game": name})
    rated = [
        one for one in games if one.valid and one.date_min is not None and one.scores is not None
    ]
    before: list[tuple[float, ...]] = []
    elo_ratings(
        (
            RatedGame([(one.game, key) for key in one.keys], one.scores or (), one.rating_tags)
            for one in rated
        ),
        before=before,
    )
    computed = {one.id: values for one, values in zip(rated, before, strict=True)}
    found: dict[int, tuple[float | None, ...]] = {}
    for one in games:
        archived = computed.get(one.id)
        found[one.id] = tuple(
            tag if tag is not None else (None if archived is None else archived[seat])
            for seat, tag in enumerate(one.rating_tags)
        )
    return found


@dataclass(slots=True)
class SeatRecord:
    """A player's results from one seat (Player1, Player2...)."""

    games: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    unfinished: int = 0

    def add(self, score: float | None) -> None:
        self.games += 1
        if score is None:
            self.unfinished += 1
        elif score == 1.0:
            self.won += 1
        elif score == 0.0:
            self.lost += 1
        else:
            self.drawn += 1


@dataclass(slots=True)
class PlayerStats:
    """One player in one game: games, results by seat, points of the decided games,
    first and last date, rating (``None``: no rated game)."""

    name: str
    game: str
    games: int = 0
    seats: dict[int, SeatRecord] = field(default_factory=dict)
    points: float = 0.0
    decided: int = 0
    first_date: str | None = None
    last_date: str | None = None
    rating: Rating | None = None

    @property
    def score(self) -> float | None:
        """Points per decided game (``None`` without one)."""
        return self.points / self.decided if self.decided else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "game": self.game,
            "games": self.games,
            "seats": {
                str(seat): {
                    "games": record.games,
                    "won": record.won,
                    "drawn": record.drawn,
                    "lost": record.lost,
                    "unfinished": record.unfinished,
                }
                for seat, record in sorted(self.seats.items())
            },
            "points": self.points,
            "decided": self.decided,
            "score": self.score,
            "first_date": self.first_date,
            "last_date": self.last_date,
            "rating": None if self.rating is None else self.rating.as_dict(),
        }


def _display_names(games: Sequence[_Game]) -> dict[str, str]:
    """The spelling each folded name is shown with: the most used (ties: the first)."""
    spellings: dict[str, dict[str, int]] = {}
    for game in games:
        for key, name in zip(game.keys, game.names, strict=True):
            counts = spellings.get(key)
            if counts is None:
                spellings[key] = {name: 1}
            else:
                counts[name] = counts.get(name, 0) + 1
    # max() keeps the first of equal counts, and a dict its first-seen order.
    return {key: max(counts, key=counts.__getitem__) for key, counts in spellings.items()}


def player_stats(
    target: Archive, *, names: Sequence[str] = (), **filters: Any
) -> list[PlayerStats]:
    """One row per player and game among the games the filters select (``names``:
    only the players whose name holds one of these, accent- and case-insensitively),
    by game, then rating (highest first), games and name."""
    filters.pop("player", None)  # the players command chooses rows by name instead
    games = _games(target, filters)
    shown = _display_names(games)
    ratings = _ratings(games)
    wanted = [fold_name(name) for name in names]
    chosen: dict[str, bool] = {}
    rows: dict[tuple[str, str], PlayerStats] = {}
    for game in games:
        scores = game.scores
        date_min = game.date_min
        for seat, key in enumerate(game.keys, start=1):
            keep = chosen.get(key)
            if keep is None:
                keep = chosen[key] = not wanted or any(part in key for part in wanted)
            if not keep:
                continue
            stats = rows.get((game.game, key))
            if stats is None:
                stats = rows[game.game, key] = PlayerStats(shown[key], game.game)
                stats.rating = ratings.get((game.game, key))
            stats.games += 1
            score = None if scores is None else scores[seat - 1]
            record = stats.seats.get(seat)
            if record is None:
                record = stats.seats[seat] = SeatRecord()
            record.add(score)
            if score is not None:
                stats.points += score
                stats.decided += 1
            if date_min is not None:  # the games come in date order within a game
                if stats.first_date is None:
                    stats.first_date = game.date
                stats.last_date = game.date
    return sorted(
        rows.values(),
        key=lambda row: (
            row.game,
            -(row.rating.rating if row.rating else float("-inf")),
            -row.games,
            fold_name(row.name),
        ),
    )


def _pair_result(mine: float, theirs: float) -> float:
    if mine > theirs:
        return 1.0
    return 0.5 if mine == theirs else 0.0


def _one_player(keys: set[str], pattern: str, option: str, shown: dict[str, str]) -> str:
    """The one player (folded name) ``pattern`` names among ``keys``."""
    wanted = fold_name(pattern)
    if wanted in keys:
        return wanted
    found = sorted(key for key in keys if wanted in key)
    if len(found) == 1:
        return found[0]
    if not found:
        raise ArchiveError(f"{option} '{pattern}': no player of the selected games has that name")
    listed = ", ".join(shown[key] for key in found[:6]) + (", ..." if len(found) > 6 else "")
    raise ArchiveError(
        f"{option} '{pattern}' names {len(found)} players ({listed}): give more of the name"
    )


@dataclass(slots=True)
class HeadToHead:
    """Two players' games against each other in one game: ``won``/``drawn``/``lost``
    from the first player's side, ``points`` theirs, the games by id."""

    player: str
    opponent: str
    game: str
    games: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    unfinished: int = 0
    points: float = 0.0
    first_date: str | None = None
    last_date: str | None = None
    ids: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        decided = self.won + self.drawn + self.lost
        return {
            "player": self.player,
            "opponent": self.opponent,
            "game": self.game,
            "games": self.games,
            "won": self.won,
            "drawn": self.drawn,
            "lost": self.lost,
            "unfinished": self.unfinished,
            "points": self.points,
            "score": self.points / decided if decided else None,
            "first_date": self.first_date,
            "last_date": self.last_date,
            "ids": self.ids,
        }


def head_to_head(target: Archive, name: str, opponent: str, **filters: Any) -> list[HeadToHead]:
    """The games between the players ``name`` and ``opponent`` name (each exactly
    one player of the selected games), per game, from the first one's side."""
    filters.pop("player", None)
    games = _games(target, filters)
    keys = {key for game in games for key in game.keys}
    shown = _display_names(games)
    mine = _one_player(keys, name, "--player", shown)
    theirs = _one_player(keys, opponent, "--vs", shown)
    if mine == theirs:
        raise ArchiveError(f"--player '{name}' and --vs '{opponent}' name the same player")
    found: dict[str, HeadToHead] = {}
    for game in games:
        if mine not in game.keys or theirs not in game.keys:
            continue
        entry = found.get(game.game)
        if entry is None:
            entry = found[game.game] = HeadToHead(shown[mine], shown[theirs], game.game)
        entry.games += 1
        entry.ids.append(game.id)
        if game.date_min is not None:  # date order within a game, undated first
            if entry.first_date is None:
                entry.first_date = game.date
            entry.last_date = game.date
        if game.scores is None:
            entry.unfinished += 1
            continue
        result = _pair_result(
            game.scores[game.keys.index(mine)], game.scores[game.keys.index(theirs)]
        )
        entry.points += result
        if result == 1.0:
            entry.won += 1
        elif result == 0.0:
            entry.lost += 1
        else:
            entry.drawn += 1
    for entry in found.values():
        entry.ids.sort()
    return [found[name] for name in sorted(found)]


@dataclass(slots=True)
class Crosstable:
    """An event's crosstable in one game: the players ranked by points (pairwise:
    each pair of seats of a game is a game between those two; ties: fewer games
    first, then the name), each row's results against every other player in date
    order (``1``, ``½``, ``0``)."""

    event: str
    game: str
    players: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"event": self.event, "game": self.game, "players": self.players}


_SHOWN = {1.0: "1", 0.5: "½", 0.0: "0"}


def crosstables(target: Archive, **filters: Any) -> list[Crosstable]:
    """One crosstable per event (its exact name) and game among the selected games."""
    filters.pop("player", None)
    games = _games(target, filters)
    shown = _display_names(games)
    tables: dict[tuple[str, str], dict[str, dict[str, list[float]]]] = {}
    for game in games:
        if not game.event:
            continue
        cells = tables.setdefault((game.event, game.game), {})
        for key in game.keys:
            cells.setdefault(key, {})
        if game.scores is None:
            continue
        for i, first in enumerate(game.keys):
            for j in range(i + 1, len(game.keys)):
                second = game.keys[j]
                if first == second:
                    continue
                result = _pair_result(game.scores[i], game.scores[j])
                cells[first].setdefault(second, []).append(result)
                cells[second].setdefault(first, []).append(1.0 - result)
    result_tables = []
    for (event, game_name), cells in sorted(tables.items()):
        totals = {
            key: (sum(sum(results) for results in row.values()), row) for key, row in cells.items()
        }
        order = sorted(
            totals, key=lambda key: (-totals[key][0], _count(totals[key][1]), fold_name(shown[key]))
        )
        table = Crosstable(event, game_name)
        for rank, key in enumerate(order, start=1):
            points, row = totals[key]
            table.players.append(
                {
                    "rank": rank,
                    "name": shown[key],
                    "points": points,
                    "games": _count(row),
                    "results": [
                        None
                        if other == key
                        else " ".join(_SHOWN[result] for result in row.get(other, []))
                        for other in order
                    ],
                }
            )
        result_tables.append(table)
    return result_tables


def _count(row: dict[str, list[float]]) -> int:
    return sum(len(results) for results in row.values())
