"""Twins: games that are the same game on the board, however their records differ.

Exact twins share ``games.twin_key`` (the game, its set-up and its canonical
mainline: :mod:`partita.database.twinkey`), so finding them is one ``GROUP BY`` over
the ``games_twin`` index. *Fuzzy* twins at depth N reached the same position after
N plies (the ``positions`` table: the same game, number of sides and folded
position key at ply N), whatever came before or after: pgn-extract's
``--fuzzydepth``. A game shorter than N plies has no position there and no fuzzy
twin.

Deleting twins keeps one game of each group: the ``oldest`` (the first stored,
lowest id) or the one with ``most-tags`` (ties: the oldest).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from partita.errors import ArchiveError

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = ["KEEP_RULES", "TwinGroup", "find_twins", "new_twins", "twins_to_delete"]

#: How a group's kept game is chosen when twins are deleted.
KEEP_RULES = ("oldest", "most-tags")

_SUMMARY = (
    "g.id, g.game, g.event, g.site, g.date, g.round, g.player1, g.player2, g.player3, "
    "g.player4, g.result, g.plies, g.status, "
    "(SELECT count(*) FROM json_each(g.tags)) AS tag_count"
)
_CHUNK = 900


@dataclass(slots=True)
class TwinGroup:
    """Games that are twins of each other, by id; ``ply`` is the fuzzy depth (the
    position they share after that many plies), ``None`` for exact twins."""

    games: list[dict[str, Any]]
    ply: int | None = None
    kept: int | None = field(default=None)

    @property
    def ids(self) -> list[int]:
        return [game["id"] for game in self.games]

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ply": self.ply, "games": self.games}
        if self.kept is not None:
            data["kept"] = self.kept
        return data


def _groups_sql(
    fuzzy_depth: int | None, filters: dict[str, Any], db: Any = None
) -> tuple[str, list[Any]]:
    """The query giving one row per group: the ids of its games, comma-separated
    (``db``: the archive a position filter reads its set-ups from)."""
    from partita.database.filters import GameFilter

    selection = GameFilter.of(**filters)
    if fuzzy_depth is None:
        if not selection:
            # A covering scan of games_twin, in key order: nothing else is read.
            return (
                "SELECT group_concat(id) FROM games WHERE twin_key IS NOT NULL "
                "GROUP BY twin_key HAVING count(*) > 1",
                [],
            )
        joins, where, params = selection.sql(db)
        return (
            f"SELECT group_concat(g.id) FROM {joins} WHERE {where} AND g.twin_key IS NOT NULL "
            "GROUP BY g.twin_key HAVING count(*) > 1",
            params,
        )
    joins, where, params = selection.sql(db)
    # CROSS JOIN: the games drive, each finds its ply by game_positions' key.
    return (
        f"SELECT group_concat(g.id) FROM {joins} CROSS JOIN game_positions twin "
        f"ON twin.game_id = g.id AND twin.ply = ? WHERE {where} "
        "GROUP BY g.game, g.sides, twin.key HAVING count(*) > 1",
        [fuzzy_depth, *params],
    )


def find_twins(
    target: Archive, *, fuzzy_depth: int | None = None, **filters: Any
) -> list[TwinGroup]:
    """The groups of twins among the games matching ``filters`` (those of
    :func:`partita.database.query_games`), each group's games by id, groups by
    their first id. Exact twins by default; with ``fuzzy_depth`` N, the games that
    reached the same position after N plies (N at least 1)."""
    if fuzzy_depth is not None and fuzzy_depth < 1:
        raise ArchiveError(f"the fuzzy depth counts plies from 1, not {fuzzy_depth}")
    sql, params = _groups_sql(fuzzy_depth, filters, target)
    groups = sorted(
        sorted(int(game_id) for game_id in ids.split(",")) for (ids,) in target.execute(sql, params)
    )
    summaries = _summaries(target.conn, [game_id for group in groups for game_id in group])
    return [TwinGroup([summaries[game_id] for game_id in group], fuzzy_depth) for group in groups]


def _summaries(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """Each game's summary: id, game, event, site, date, round, players, result,
    plies, status, tags (how many)."""
    found: dict[int, dict[str, Any]] = {}
    conn_rows = conn.cursor()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ", ".join("?" * len(chunk))
        cursor = conn_rows.execute(f"SELECT {_SUMMARY} FROM games g WHERE g.id IN ({marks})", chunk)
        names = [column[0] for column in cursor.description]
        for values in cursor:
            row = dict(zip(names, values, strict=True))
            players = [row.pop(f"player{seat}") for seat in range(1, 5)]
            row["players"] = [name for name in players if name is not None]
            row["tags"] = row.pop("tag_count")
            found[row["id"]] = row
    return found


def twins_to_delete(groups: list[TwinGroup], keep: str = "oldest") -> list[int]:
    """The ids to delete so that each group keeps one game (``keep``: ``oldest``,
    the lowest id; ``most-tags``, the most tags, ties to the oldest); sets each
    group's ``kept``. A game is in one group at most (it has one twin key, and
    one position at each ply)."""
    if keep not in KEEP_RULES:
        raise ArchiveError(f"keep '{keep}' is not one of {', '.join(KEEP_RULES)}")
    doomed: set[int] = set()
    for group in groups:
        if keep == "oldest":
            kept = min(group.ids)
        else:
            kept = min(group.games, key=lambda game: (-game["tags"], game["id"]))["id"]
        group.kept = kept
        doomed.update(game_id for game_id in group.ids if game_id != kept)
    return sorted(doomed)


def new_twins(target: Archive, first_id: int) -> list[dict[str, int]]:
    """The games from id ``first_id`` on that have a twin stored before them:
    ``{"game": id, "twin_of": the first such twin}`` (what an import reports).
    ``target``: the archive."""
    return [
        {"game": game_id, "twin_of": twin_of}
        for game_id, twin_of in target.execute(
            "SELECT n.id, min(o.id) FROM games n JOIN games o "
            "ON o.twin_key = n.twin_key AND o.id < n.id "
            "WHERE n.id >= ? AND n.twin_key IS NOT NULL GROUP BY n.id ORDER BY n.id",
            (first_id,),
        )
    ]
