"""What the analysis reads from the archive: the selected games' mainlines and set-ups,
where they reached a position, the positions they share, their stored text.

The opening tree, the novelty finder and the report ask these functions, never SQL
of their own, so the schema is known in :mod:`partita.database` alone. Each takes an
open :class:`~partita.database.connection.Archive` (the caller opens the archive once) and returns plain
rows. Filters are those of :func:`partita.database.query.query_games`; a list of game
ids (``game_ids``) travels as one JSON array parameter, whatever its length.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from partita.database.connection import Archive
from partita.database.query import select_games

__all__ = [
    "annotated_games",
    "configured_game_ids",
    "decisive_candidates",
    "first_plies_at",
    "frequent_positions",
    "game_ids_with_hash",
    "game_lines",
    "game_setups",
    "games_from_initial",
    "games_from_setups",
    "games_through",
    "selected_games",
    "stored_game",
    "stored_pgr",
    "valid_game_ids",
]

#: The SQL of a game's starting position: its Position tag when it is set up.
_START = (
    "CASE WHEN json_extract({g}.tags, '$.SetUp') = '1' "
    "THEN json_extract({g}.tags, '$.Position') END"
)


def _ids(game_ids: Sequence[int]) -> str:
    return json.dumps(list(game_ids))


def game_lines(db: Archive, *, include_invalid: bool = False, **filters: Any) -> Iterator[dict]:
    """The selected games' mainlines, by id: ``id``, ``game``, ``moves`` (canonical
    tokens, ``""`` for none), ``result``, ``date``, ``date_min``, ``date_max``,
    ``start`` (the Position tag of a set-up game, else ``None``). Invalid games
    (stored with their legal prefix) only with ``include_invalid``."""
    columns = (
        "g.id, g.game, coalesce(g.moves, '') AS moves, g.result, g.date, g.date_min, "
        f"g.date_max, g.status, {_START.format(g='g')} AS start"
    )
    for row in select_games(db, columns, **filters):
        if include_invalid or row["status"] == "valid":
            del row["status"]
            yield row


def game_setups(
    db: Archive,
    name: str,
    tag_names: Sequence[str],
    *,
    include_invalid: bool = False,
    **filters: Any,
) -> Iterator[tuple[int | None, dict[str, str]]]:
    """Per selected game of the game ``name``: its sides and the value of each tag
    of ``tag_names`` (``""`` when the record leaves it out)."""
    values = "".join(
        f", coalesce(json_extract(g.tags, '$.\"{tag}\"'), '') AS v{index}"
        for index, tag in enumerate(tag_names)
    )
    for row in select_games(db, f"g.sides, g.status{values}", game=name, **filters):
        if include_invalid or row["status"] == "valid":
            yield row["sides"], {tag: row[f"v{index}"] for index, tag in enumerate(tag_names)}


def first_plies_at(
    db: Archive, position: str, name: str, **filters: Any
) -> Iterator[tuple[int, int]]:
    """``(game id, ply)`` of each selected game of ``name`` that reached
    ``position`` (position notation) in its mainline, at the first ply after which
    it stood there."""
    wanted = dict(filters, position=position, game=name, mainline_only=True)
    for row in select_games(db, "g.id, hit.ply", **wanted):
        yield row["id"], row["ply"]


def selected_games(db: Archive, **filters: Any) -> list[dict]:
    """The selected games' summaries, by id: ``id``, ``game``, ``event``, ``site``,
    ``date``, ``date_min``, ``date_max``, ``player1`` to ``player4``, ``result``,
    ``termination``, ``sides``, ``plies``, ``status`` and ``tags`` (JSON text)."""
    columns = (
        "g.id, g.game, g.event, g.site, g.date, g.date_min, g.date_max, "
        "g.player1, g.player2, g.player3, g.player4, g.result, g.termination, g.sides, "
        "g.plies, g.status, g.tags"
    )
    return list(select_games(db, columns, **filters))


def frequent_positions(
    db: Archive, name: str, game_ids: Sequence[int], *, from_ply: int, limit: int
) -> list[tuple[Any, int, int, int]]:
    """The positions most of the valid games ``game_ids`` of the game ``name`` reached after
    ply ``from_ply`` or later, two games at least: ``(folded key, games, first game
    id, first ply)``, the most reached first (then the latest ply, then the key)."""
    return [
        tuple(row)
        for row in db.execute(
            "SELECT p.key, count(DISTINCT p.game_id) AS games, min(p.game_id), min(p.ply) "
            "FROM game_positions p JOIN games g ON g.id = p.game_id "
            "WHERE p.game_id IN (SELECT value FROM json_each(?)) "
            "AND g.game = ? AND g.status = 'valid' AND p.ply >= ? "
            "GROUP BY p.key HAVING games >= 2 "
            "ORDER BY games DESC, min(p.ply) DESC, p.key LIMIT ?",
            (_ids(game_ids), name, from_ply, limit),
        ).fetchall()
    ]


def stored_game(db: Archive, game_id: int) -> dict | None:
    """Game ``game_id``'s set-up and mainline: ``id``, ``moves`` (``""`` for none),
    ``start`` (its Position tag when set up, else ``None``), ``sides`` and ``tags``
    (JSON text); ``None`` if there is no such game."""
    rows = list(
        db.query(
            "SELECT id, coalesce(moves, '') AS moves, "
            f"{_START.format(g='games')} AS start, sides, tags FROM games WHERE id = ?",
            (game_id,),
        )
    )
    return rows[0] if rows else None


def decisive_candidates(db: Archive, name: str, game_ids: Sequence[int]) -> Iterator[dict]:
    """The valid games ``game_ids`` of the game ``name`` whose result is neither ``*`` nor
    ``1/2-1/2``, the latest first: ``id``, ``moves``, ``result``, ``sides``,
    ``date``, ``event``, ``player1`` to ``player4``, ``start``, ``tags`` (JSON
    text). The caller decides which results are decisive for its sides."""
    return db.query(
        "SELECT g.id, coalesce(g.moves, '') AS moves, g.result, g.sides, g.date, g.event, "
        "g.player1, g.player2, g.player3, g.player4, "
        f"{_START.format(g='g')} AS start, g.tags FROM games g "
        "WHERE g.id IN (SELECT value FROM json_each(?)) "
        "AND g.game = ? AND g.status = 'valid' AND g.result NOT IN ('*', '1/2-1/2') "
        "ORDER BY g.date_max DESC, g.id DESC",
        (_ids(game_ids), name),
    )


def annotated_games(db: Archive, name: str, game_ids: Sequence[int]) -> Iterator[dict]:
    """The valid games ``game_ids`` of the game ``name`` whose record holds an ``[%eval ...]``
    comment (``partita annotate``'s), the latest first: ``id``, ``pgr``,
    ``player1`` to ``player4``."""
    return db.query(
        "SELECT g.id, g.pgr, g.player1, g.player2, g.player3, g.player4 FROM games g "
        "WHERE g.id IN (SELECT value FROM json_each(?)) "
        "AND g.game = ? AND g.status = 'valid' AND instr(g.pgr, '[%eval ') > 0 "
        "ORDER BY g.date_max DESC, g.id DESC",
        (_ids(game_ids), name),
    )


def stored_pgr(db: Archive, game_id: int) -> str | None:
    """The stored record text of game ``game_id`` (``None`` if there is none)."""
    row = db.execute("SELECT pgr FROM games WHERE id = ?", (game_id,)).fetchone()
    return row[0] if row is not None else None


def configured_game_ids(
    db: Archive, name: str, sides: int, tag_filters: Sequence[str]
) -> list[int]:
    """The ids of the valid games of the game ``name`` set up with ``sides`` sides and the
    tags of ``tag_filters`` (``NAME=VALUE``, a tag left out counting as its
    default: :meth:`Configuration.tag_filters
    <partita.game.configuration.Configuration.tag_filters>`), by id."""
    rows = select_games(db, "g.id, g.status", game=name, sides=sides, tags=list(tag_filters))
    return sorted(row["id"] for row in rows if row["status"] == "valid")


def valid_game_ids(db: Archive, name: str) -> list[int]:
    """The ids of the valid games of the game ``name``, by id."""
    return [
        row[0]
        for row in db.execute(
            "SELECT id FROM games WHERE game = ? AND status = 'valid' ORDER BY id", (name,)
        )
    ]


def games_through(
    db: Archive, name: str, folded_key: int
) -> list[tuple[int, str | None, str | None, str, int]]:
    """``(id, result, date, moves, ply)`` of the valid games of the game ``name`` that stood on
    the position of ``folded_key`` after some ply (one row per ply)."""
    return [
        tuple(row)
        for row in db.execute(
            "SELECT g.id, g.result, g.date, coalesce(g.moves, ''), p.ply FROM positions p "
            "JOIN games g ON g.id = p.game_id WHERE p.key = ? AND g.game = ? "
            "AND g.status = 'valid'",
            (folded_key, name),
        )
    ]


def games_from_initial(
    db: Archive, name: str, sides: int
) -> list[tuple[int, str | None, str | None, str]]:
    """``(id, result, date, moves)`` of the valid games of the game ``name`` with ``sides``
    sides that start from the initial position (no set-up)."""
    return [
        tuple(row)
        for row in db.execute(
            "SELECT id, result, date, coalesce(moves, '') FROM games "
            "WHERE game = ? AND status = 'valid' "
            "AND sides = ? AND coalesce(json_extract(tags, '$.SetUp'), '0') != '1'",
            (name, sides),
        )
    ]


def games_from_setups(db: Archive, name: str) -> list[tuple[int, str | None, str | None, str, str]]:
    """``(id, result, date, moves, position)`` of the valid games of the game ``name`` set up
    from a position (their Position tag, ``""`` when missing)."""
    return [
        tuple(row)
        for row in db.execute(
            "SELECT id, result, date, coalesce(moves, ''), "
            "coalesce(json_extract(tags, '$.Position'), '') FROM games "
            "WHERE game = ? AND status = 'valid' AND json_extract(tags, '$.SetUp') = '1'",
            (name,),
        )
    ]


def game_ids_with_hash(db: Archive, digest: str) -> list[int]:
    """The ids of the games whose stored text has the content hash ``digest``."""
    from partita.database.hashkey import game_ids_with_hash as ids_with_hash

    return ids_with_hash(db.conn, digest)
