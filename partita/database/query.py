"""Querying the archive: games by tags, opening prefix and position; one record back.

The filters are one :class:`partita.database.filters.GameFilter` (``selection``),
or its fields as keywords (``game``, ``player``, ``tags``...: see
:meth:`GameFilter.of`); their matching rules are in :mod:`partita.database.filters`
and ``docs/archive.md``.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from partita.database.filters import GameFilter
from partita.database.schema import archive
from partita.errors import ArchiveError, PartitaError
from partita.notation.model import Record

__all__ = ["count_games", "game_problems", "get_record", "query_games", "select_games"]

_SUMMARY_COLUMNS = (
    "g.id, g.game, g.event, g.site, g.date, g.round, g.player1, g.player2, g.player3, "
    "g.player4, g.result, g.termination, g.sides, g.plies, g.status, g.final_position"
)


def select_games(
    db: Database,
    columns: str = "g.*",
    *,
    selection: GameFilter | None = None,
    limit: int | None = None,
    column_params: Sequence[Any] = (),
    **filters: Any,
) -> Iterator[dict]:
    """Rows of ``games`` (as ``g``) matching ``selection`` narrowed by the keyword
    filters (:meth:`GameFilter.of`), by id; streamed.

    ``columns`` is an SQL column list over ``g`` (and ``hit.ply``, ``hit.line``
    for a position filter), with ``column_params`` for its parameters.
    """
    joins, where, params = GameFilter.of(selection, **filters).sql()
    params = [*column_params, *params]
    sql = f"SELECT {columns} FROM {joins} WHERE {where} ORDER BY g.id"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return db.query(sql, params)


def query_games(
    target: str | Path | Database,
    selection: GameFilter | None = None,
    *,
    limit: int | None = None,
    **filters: Any,
) -> list[dict]:
    """The games of ``selection`` (narrowed by the keyword filters of
    :meth:`GameFilter.of`), by id: per game ``id``, ``game``, ``event``, ``site``,
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
    with archive(target, readonly=True) as db:
        rows = []
        for row in select_games(
            db, columns, selection=chosen, limit=limit, column_params=column_params
        ):
            players = [row.pop(f"player{seat}") for seat in range(1, 5)]
            row["players"] = [name for name in players if name is not None]
            rows.append(row)
        names = openings_of_games(
            db, [(row["id"], row["game"]) for row in rows], chosen.opening_files
        )
        for row in rows:
            entry = names.get(row["id"])
            row["opening"] = None if entry is None else entry.name
        return rows


def count_games(
    target: str | Path | Database,
    selection: GameFilter | None = None,
    *,
    limit: int | None = None,
    **filters: Any,
) -> int:
    """How many games match the filters (those of :func:`query_games`), at most
    ``limit``: the work an export has ahead, for its progress."""
    if limit is not None and limit < 0:
        raise ArchiveError(f"limit must be 0 or more, not {limit}")
    with archive(target, readonly=True) as db:
        chosen = GameFilter.of(selection, **filters)
        return sum(1 for _ in select_games(db, "g.id", selection=chosen, limit=limit))


def get_record(target: str | Path | Database, game_id: int) -> Record:
    """The stored record of game ``game_id``, read back from its stored text.

    Its source names the archive game (``archive:ID``); ``ArchiveError`` if there
    is no such game.
    """
    from partita.notation.reader import read_records

    with archive(target, readonly=True) as db:
        row = db.execute("SELECT pgr FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise ArchiveError(f"there is no game {game_id} in the archive")
    for record in read_records(io.StringIO(row[0]), name=f"archive:{game_id}"):
        return record
    raise PartitaError(f"game {game_id}: its stored text holds no record")


def game_problems(target: str | Path | Database, game_id: int) -> list[dict]:
    """The stored problems of game ``game_id``, in their order."""
    with archive(target, readonly=True) as db:
        return list(
            db.query(
                "SELECT kind, severity, line, [column], ply, move_number, token, message "
                "FROM problems WHERE game_id = ? ORDER BY id",
                (game_id,),
            )
        )
