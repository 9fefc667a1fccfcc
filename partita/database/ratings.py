"""Elo ratings from the archive's games, per game.

Every player starts at :data:`START_RATING` (1500), or at the rating a record's
``PlayerNElo`` tag gives them the first time they play that game (a whole number;
later tags are ignored: from then on the archive's own rating counts). The games
are taken in date order (the first day their date can mean, then the archive's
order): the valid games with a known year and a decided result (not ``*``).

A two-sided game changes each rating by ``K * (S - E)``, ``S`` the score (1, 1/2
or 0), ``E = 1 / (1 + 10 ** ((opponent - own) / 400))`` the expected score, with
:data:`K_FACTOR` K = 32. A game of N sides (3 or 4) counts as a game between each
pair of seats, scored from their result fields (the higher field wins the pair,
equal fields draw it: in ``1-0-0`` the winner beats both others, who draw each
other), every pair with K / (N - 1), so that one game moves a rating by at most K
as a two-sided game does; every pair is rated from the ratings before the game.
Two seats of one person are not a pair.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "K_FACTOR",
    "PERFORMANCE_CAP",
    "START_RATING",
    "RatedGame",
    "Rating",
    "elo_ratings",
    "expected_score",
    "performance_rating",
]

#: The rating of a player the archive has not rated yet (and who brings no tag).
START_RATING = 1500.0
#: How far one two-sided game moves a rating at most.
K_FACTOR = 32.0


class RatedGame(NamedTuple):
    """One game as the ratings see it: each seat's player (a key), the result field
    of each seat (1, 0.5 or 0), and each seat's rating tag (``None`` where absent)."""

    players: Sequence[Hashable]
    scores: Sequence[float]
    tags: Sequence[float | None]


@dataclass(slots=True)
class Rating:
    """A player's rating now, the games it counts and its highest value."""

    rating: float
    games: int = 0
    peak: float = 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {"rating": round(self.rating, 1), "games": self.games, "peak": round(self.peak, 1)}


def expected_score(own: float, other: float) -> float:
    """The score Elo expects of a player rated ``own`` against one rated ``other``."""
    return 1.0 / (1.0 + 10.0 ** ((other - own) / 400.0))


#: How far a performance lies from the opponents' average at a score of 0 or 1
#: (FIDE's table stops at 800 too).
PERFORMANCE_CAP = 800.0
#: The spread of a rating difference in the normal model behind FIDE's table of
#: rating differences: 200 points per player, sqrt(2) * 200 for a pair.
_SPREAD = 200.0 * 2.0**0.5


def performance_rating(opponents: float, score: float) -> float:
    """The performance of a player who scored ``score`` (a fraction, 0 to 1) against
    opponents rated ``opponents`` on average: that average plus the rating
    difference the score means in the normal model FIDE's table of rating
    differences rests on (``dp``: +72 at 60 %, +191 at 75 %, -191 at 25 %), at most
    ``PERFORMANCE_CAP`` either way (a score of 1 or 0)."""
    if score >= 1.0:
        return opponents + PERFORMANCE_CAP
    if score <= 0.0:
        return opponents - PERFORMANCE_CAP
    from statistics import NormalDist

    difference = NormalDist(0.0, _SPREAD).inv_cdf(score)
    return opponents + max(-PERFORMANCE_CAP, min(PERFORMANCE_CAP, difference))


def _pair_score(mine: float, theirs: float) -> float:
    if mine > theirs:
        return 1.0
    return 0.5 if mine == theirs else 0.0


def elo_ratings(
    games: Iterable[RatedGame],
    *,
    k_factor: float = K_FACTOR,
    start: float = START_RATING,
    before: list[tuple[float, ...]] | None = None,
) -> dict[Hashable, Rating]:
    """The rating of every player of ``games`` (in the order given: date order).
    ``before``, when given, receives each game's seats' ratings before it (what the
    opening tree averages), one tuple per game in order."""
    ratings: dict[Hashable, Rating] = {}
    for players, scores, tags in games:
        entries = []
        for player, tag in zip(players, tags, strict=True):
            entry = ratings.get(player)
            if entry is None:
                first = start if tag is None else tag
                entry = ratings[player] = Rating(first, 0, first)
            entries.append(entry)
        if before is not None:
            before.append(tuple(entry.rating for entry in entries))
        seats = len(entries)
        if seats == 2:  # the common case, written out
            first_entry, second_entry = entries
            if players[0] == players[1]:
                continue
            change = k_factor * (
                _pair_score(scores[0], scores[1])
                - expected_score(first_entry.rating, second_entry.rating)
            )
            for entry, delta in ((first_entry, change), (second_entry, -change)):
                entry.rating += delta
                entry.games += 1
                if entry.rating > entry.peak:
                    entry.peak = entry.rating
            continue
        current = [entry.rating for entry in entries]
        pair_k = k_factor / (seats - 1)
        changes = [0.0] * seats
        played = [False] * seats
        for i in range(seats):
            for j in range(i + 1, seats):
                if players[i] == players[j]:
                    continue
                expected = expected_score(current[i], current[j])
                change = pair_k * (_pair_score(scores[i], scores[j]) - expected)
                changes[i] += change
                changes[j] -= change
                played[i] = played[j] = True
        for seat, entry in enumerate(entries):
            if not played[seat]:
                continue
            entry.rating += changes[seat]
            entry.games += 1
            if entry.rating > entry.peak:
                entry.peak = entry.rating
    return ratings
