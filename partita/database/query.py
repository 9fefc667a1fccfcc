"""Querying the archive: games by tags, opening prefix and position; one record back.

The filters are one :class:`partita.database.filters.GameFilter` (``selection``),
or its fields as keywords (``game``, ``player``, ``tags``...: see
:meth:`GameFilter.of`); their matching rules are in :mod:`partita.database.filters`
and ``docs/archive.md``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from partita.database.connection import Archive
from partita.database.filters import GameFilter
from partita.errors import ArchiveError, PartitaError
from partita.notation.model import Record

__all__ = ["ORDERS", "count_games", "game_problems", "get_record", "query_games", "select_games"]

_SUMMARY_COLUMNS = (
    "g.id, g.game, g.event, g.site, g.date, g.round, g.player1, g.player2, g.player3, "
    "g.player4, g.result, g.termination, g.sides, g.plies, g.status, g.final_position"
)


#: The orders a listing may ask for (:func:`query_games`'s ``order``): SQL over ``g``,
#: the id breaking ties.
ORDERS = {
    "id": "g.id",
    "date": "g.date",
    "game": "g.game",
    "event": "g.event",
    "player1": "g.player1",
    "player2": "g.player2",
    "result": "g.result",
    "plies": "g.plies",
    "status": "g.status",
}


def _order_by(order: str, descending: bool) -> str:
    if order not in ORDERS:
        raise ArchiveError(f"cannot sort by '{order}' (one of {', '.join(ORDERS)})")
    way = " DESC" if descending else ""
    if order == "id":
        return f"g.id{way}"
    return f"{ORDERS[order]}{way}, g.id{way}"


def select_games(
    db: Archive,
    columns: str = "g.*",
    *,
    selection: GameFilter | None = None,
    limit: int | None = None,
    column_params: Sequence[Any] = (),
    order: str = "id",
    descending: bool = False,
    offset: int = 0,
    **filters: Any,
) -> Iterator[dict]:
    """Rows of ``games`` (as ``g``) matching ``selection`` narrowed by the keyword
    filters (:meth:`GameFilter.of`), by id (or by ``order``, one of :data:`ORDERS`,
    ``descending``); streamed, from the ``offset``-th.

    ``columns`` is an SQL column list over ``g`` (and ``hit.ply``, ``hit.line``
    for a position filter), with ``column_params`` for its parameters.
    """
    joins, where, params = GameFilter.of(selection, **filters).sql(db)
    params = [*column_params, *params]
    sql = f"SELECT {columns} FROM {joins} WHERE {where} ORDER BY {_order_by(order, descending)}"
    if limit is not None or offset:
        sql += " LIMIT ?"
        params.append(-1 if limit is None else limit)
    if offset:
        sql += " OFFSET ?"
        params.append(offset)
    return db.query(sql, params)


def query_games(
    target: Archive,
    selection: GameFilter | None = None,
    *,
    limit: int | None = None,
    order: str = "id",
    descending: bool = False,
    offset: int = 0,
    **filters: Any,
) -> list[dict]:
    """The games of ``selection`` (narrowed by the keyword filters of
    :meth:`GameFilter.of`), by id (or by ``order``, one of :data:`ORDERS`,
    ``descending``; from the ``offset``-th, for pages): per game ``id``, ``game``, ``event``, ``site``,
    ``date``, ``round``, ``players`` (Player1 onwards), ``result``,
    ``termination``, ``sides``, ``plies``, ``status``, ``final_position``,
    ``opening`` (its opening name, see :mod:`partita.database.openings`, or
    ``None``); for a position query ``ply``, ``found`` (``"mainline"`` or
    ``"variation"``: where the game reached the position) and ``variation`` (the
    variation's number in the record's reading order, ``None`` in the mainline);
    ``pattern_ply`` (the first matching ply) for a pattern query."""
    from partita.database.openings import openings_of_games

    if limit is not None and limit < 0:
        raise ArchiveError(f"limit must be 0 or more, not {limit}")
    chosen = GameFilter.of(selection, **filters)
    columns = _SUMMARY_COLUMNS
    if chosen.position is not None:
        columns += ", " + chosen.position_columns()
    column_params: list = []
    if chosen.pattern is not None:
        column, column_params = chosen.pattern_column()
        columns += ", " + column
    rows = []
    if offset < 0:
        raise ArchiveError(f"offset must be 0 or more, not {offset}")
    if limit is not None and chosen.position is None and chosen.pattern is None:
        # A page: its ids first (the sort carries two values a game, not every
        # column), then its rows.
        ids = [
            row["id"]
            for row in select_games(
                target, "g.id", selection=chosen, limit=limit, order=order,
                descending=descending, offset=offset,
            )
        ]  # fmt: skip
        found = {
            row["id"]: row
            for row in target.query(
                f"SELECT {columns} FROM games g WHERE g.id IN (SELECT value FROM json_each(?))",
                [json.dumps(ids)],
            )
        }
        selected: Iterable[dict] = (found[game_id] for game_id in ids)
    else:
        selected = select_games(
            target,
            columns,
            selection=chosen,
            limit=limit,
            column_params=column_params,
            order=order,
            descending=descending,
            offset=offset,
        )
    for row in selected:
        players = [row.pop(f"player{seat}") for seat in range(1, 5)]
        row["players"] = [name for name in players if name is not None]
        rows.append(row)
    names = openings_of_games(
        target, [(row["id"], row["game"]) for row in rows], chosen.opening_files
    )
    for row in rows:
        entry = names.get(row["id"])
        row["opening"] = None if entry is None else entry.name
    return rows


def count_games(
    target: Archive,
    selection: GameFilter | None = None,
    *,
    limit: int | None = None,
    **filters: Any,
) -> int:
    """How many games match the filters (those of :func:`query_games`), at most
    ``limit``: the work an export has ahead, for its progress."""
    if limit is not None and limit < 0:
        raise ArchiveError(f"limit must be 0 or more, not {limit}")
    chosen = GameFilter.of(selection, **filters)
    if limit is None:
        joins, where, params = chosen.sql(target)
        distinct = "DISTINCT g.id" if chosen.position is not None else "*"
        sql = f"SELECT count({distinct}) FROM {joins} WHERE {where}"
        return int(target.execute(sql, params).fetchone()[0])
    return sum(1 for _ in select_games(target, "g.id", selection=chosen, limit=limit))


def get_record(target: Archive, game_id: int) -> Record:
    """The stored record of game ``game_id``, read back from its stored text.

    Its source names the archive game (``archive:ID``); ``ArchiveError`` if there
    is no such game.
    """
    from partita.notation.reader import read_records

    row = target.execute("SELECT pgr FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise ArchiveError(f"there is no game {game_id} in the archive")
    for record in read_records(io.StringIO(row[0]), name=f"archive:{game_id}"):
        return record
    raise PartitaError(f"game {game_id}: its stored text holds no record")


def game_problems(target: Archive, game_id: int) -> list[dict]:
    """The stored problems of game ``game_id``, in their order."""
    return list(
        target.query(
            "SELECT kind, severity, line, [column], ply, move_number, token, message "
            "FROM problems WHERE game_id = ? ORDER BY id",
            (game_id,),
        )
    )
