"""The last phase of a tree's build: the results, dates and example games of the
kept moves, from the games under them."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from partita.analysis.tree.expand import NO_NODES, KeptEdge
from partita.analysis.tree.trie import PrefixTrie
from partita.analysis.tree.value import GameLine
from partita.game.rules import DRAW, WIN, parse_result_token

__all__ = ["gather_results", "rate_edges", "result_classes", "seat_ratings"]

#: Per game id, each seat's rating when it was played (``None``: unknown).
Ratings = Mapping[int, Sequence[float | None]]

_MISSING = object()


def result_classes(token: str | None, sides: int) -> tuple[int, ...] | None:
    """Per side 0 (won), 1 (drawn) or 2 (lost); ``None`` for an undecided result."""
    if token is None:
        return None
    try:
        scores = parse_result_token(token, sides)
    except ValueError:
        return None
    if scores is None:
        return None
    return tuple(0 if score == WIN else 1 if score == DRAW else 2 for score in scores)


def gather_results(
    edges: list[KeptEdge],
    trie: PrefixTrie,
    line_leaf: list[int],
    line_data: list[GameLine],
    sides: int,
    examples: int,
    ratings: Ratings | None = None,
) -> None:
    """Results, dates and examples of the kept edges, from the games under them
    (and with ``ratings``, each move's average rating and performance: :func:`rate_edges`).

    Most edges of a big tree are played by one game: they take a short path, and
    their tallies are shared tuples (one per result token), which keeps a tree of
    hundreds of thousands of moves small.
    """
    if not edges:
        return
    # Per trie node the number of its edge, -1 for none (a list: a dict of
    # hundreds of thousands of nodes costs several times more).
    edge_of = [-1] * len(trie.parent)
    for number, edge in enumerate(edges):
        for member in edge.nodes:
            edge_of[member] = number
        edge.nodes = NO_NODES  # mapped: free the list
    # Per edge its games' line numbers: an int for one game, a list for more.
    per_edge: list[Any] = [None] * len(edges)
    parents = trie.parent
    for line_number, node in enumerate(line_leaf):
        while node >= 0:
            number = edge_of[node]
            if number >= 0:
                found = per_edge[number]
                if found is None:
                    per_edge[number] = line_number
                elif type(found) is int:
                    per_edge[number] = [found, line_number]
                else:
                    found.append(line_number)
            node = parents[node]
    del edge_of
    shared: dict[tuple[int, ...], tuple[int, ...]] = {}

    def share(values: tuple[int, ...]) -> tuple[int, ...]:
        return shared.setdefault(values, values)

    single: dict[str | None, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]] = {}

    def one_game(
        token: str | None,
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
        found = single.get(token)
        if found is None:
            outcome = result_classes(token, sides)
            if outcome is None:
                found = (share((0,) * sides), share((0,) * sides), share((0,) * sides), 1)
            else:
                found = tuple(  # type: ignore[assignment]
                    share(tuple(int(kind == wanted) for kind in outcome)) for wanted in (0, 1, 2)
                ) + (0,)
            single[token] = found  # type: ignore[assignment]
        return found  # type: ignore[return-value]

    rated = None if ratings is None else seat_ratings(line_data, ratings, sides)
    results = [line.result for line in line_data]
    # Unknown bounds sort last for the first date and first for the last one.
    lows = [line.date_min or "~" for line in line_data]
    highs = [line.date_max or "" for line in line_data]
    order = [(line.date_max or "", line.id) for line in line_data]
    classes: dict[str | None, tuple[int, ...] | None] = {}
    for number, (edge, members) in enumerate(zip(edges, per_edge, strict=True)):
        per_edge[number] = None  # tallied below: free the list
        stats = edge.stats
        if rated is not None and members is not None:
            rate_edges(stats, [members] if type(members) is int else members, rated)
        if type(members) is int:
            line = line_data[members]
            stats.won, stats.drawn, stats.lost, stats.unfinished = one_game(line.result)
            stats.first_date = line.date if line.date_min else None
            stats.last_date = line.date if line.date_max else None
            stats.examples = (line.id,)
            continue
        tallies = [[0, 0, 0] for _ in range(sides)]
        unfinished = 0
        for token, games in Counter(map(results.__getitem__, members)).items():
            outcome = classes.get(token, _MISSING)
            if outcome is _MISSING:
                outcome = classes[token] = result_classes(token, sides)
            if outcome is None:
                unfinished += games
            else:
                kind: int
                for side, kind in enumerate(outcome):  # type: ignore[arg-type]
                    tallies[side][kind] += games
        stats.won = share(tuple(tally[0] for tally in tallies))
        stats.drawn = share(tuple(tally[1] for tally in tallies))
        stats.lost = share(tuple(tally[2] for tally in tallies))
        stats.unfinished = unfinished
        first = min(members, key=lows.__getitem__)
        last = max(members, key=highs.__getitem__)
        stats.first_date = line_data[first].date if line_data[first].date_min else None
        stats.last_date = line_data[last].date if line_data[last].date_max else None
        latest = heapq.nlargest(examples, members, key=order.__getitem__)
        stats.examples = tuple(line_data[number].id for number in latest)


def seat_ratings(
    line_data: list[GameLine], ratings: Ratings, sides: int
) -> list[tuple[tuple[float | None, float | None, float | None], ...] | None]:
    """Per line, per seat: its rating (``None``: unknown), its opponents' average
    rating and its score (both ``None`` unless the game is decided and every
    opponent's rating is known): what :func:`rate_edges` sums, worked out once a game."""
    outcomes: dict[str | None, tuple[int, ...] | None] = {}
    found: list[tuple[tuple[float | None, float | None, float | None], ...] | None] = []
    for line in line_data:
        seats = ratings.get(line.id)
        if seats is None or len(seats) != sides:
            found.append(None)
            continue
        token = line.result
        if token not in outcomes:
            outcomes[token] = result_classes(token, sides)
        outcome = outcomes[token]
        per_seat = []
        for seat in range(sides):
            others = [value for other, value in enumerate(seats) if other != seat]
            if outcome is None or any(value is None for value in others):
                per_seat.append((seats[seat], None, None))
            else:
                kind = outcome[seat]
                score = 1.0 if kind == 0 else 0.5 if kind == 1 else 0.0
                per_seat.append((seats[seat], sum(others) / len(others), score))  # type: ignore[arg-type]
        found.append(tuple(per_seat))
    return found


def rate_edges(
    stats: Any,
    members: Sequence[int],
    rated: Sequence[tuple[tuple[float | None, float | None, float | None], ...] | None],
) -> None:
    """The mover's average rating and performance over the games ``members`` (line
    numbers) that made the move ``stats``, as Scid's tree shows them (AvElo, Perf);
    ``rated`` is :func:`seat_ratings`' list.

    ``rating``: the mean of the mover's ratings, over the games where the mover's
    rating is known. ``performance``: over the decided games where every
    opponent's rating is known, the opponents' average (per game, the mean of the
    other seats' ratings; averaged over the games) plus the difference the mover's
    score fraction means (:func:`partita.database.ratings.performance_rating`); a
    draw scores 1/2 for each drawn side, as the tree's score does.
    """
    from partita.database.ratings import performance_rating

    mover = stats.mover
    if mover < 0:
        return
    own_total = 0.0
    own_count = 0
    opponents_total = 0.0
    points = 0.0
    counted = 0
    for number in members:
        seats = rated[number]
        if seats is None:
            continue
        own, opponents, score = seats[mover]
        if own is not None:
            own_total += own
            own_count += 1
        if score is not None:
            opponents_total += opponents
            points += score
            counted += 1
    if own_count:
        stats.rating, stats.rating_games = own_total / own_count, own_count
    if counted:
        stats.performance = performance_rating(opponents_total / counted, points / counted)
        stats.performance_games = counted
