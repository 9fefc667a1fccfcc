"""Querying the archive: games by tags, opening prefix and position; one record back.

Filters combine with AND. Matching rules (also in ``docs/archive.md``):

* ``game``, ``result``, ``sides``: equal;
* ``tags``: ``NAME=VALUE`` pairs; the record's tag ``NAME`` has exactly ``VALUE``
  (``Variant=advanced``, ``League=pro``), a tag the record leaves out counting as
  its game's default; ``NAME=`` matches records without the tag;
* ``player`` (any seat) and ``event``: a case-insensitive part of the name
  (Unicode case folding: ``müller`` finds ``Müller``);
* ``date_from`` / ``date_to``: ``YYYY``, ``YYYY.MM`` or ``YYYY.MM.DD``; a game
  matches when every day its date can mean lies in the range (``2024.03.??`` is
  within 2024.03 but not within 2024.03.01-2024.03.15); a game without a known
  year never matches a date filter;
* ``opening``: the mainline starts with these moves (canonical tokens, space
  separated; spellings are made canonical through the game's notation when
  ``game`` is given), found by one range on the ``games_moves`` index;
* ``position``: the game reached this position (the game's position notation)
  after some ply of its legal mainline; with no ``game`` every supported game
  whose notation reads the string is tried. The result carries ``ply``, the first
  ply after which the position stood.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from sqlite_utils import Database

from partita.database.keys import fold_key
from partita.database.schema import archive
from partita.errors import ArchiveError, NotationError, PartitaError, SetupError
from partita.games.registry import all_games, get_game
from partita.notation.model import Record

__all__ = ["count_games", "game_problems", "get_record", "query_games", "select_games"]

_PARTIAL_DATE = re.compile(r"(\d{4})(?:[.-](\d{2}|\?\?))?(?:[.-](\d{2}|\?\?))?")

_SUMMARY_COLUMNS = (
    "g.id, g.game, g.event, g.site, g.date, g.round, g.player1, g.player2, g.player3, "
    "g.player4, g.result, g.termination, g.sides, g.plies, g.status, g.final_position"
)


def _date_bound(text: str, *, upper: bool) -> str:
    """``YYYY[.MM[.DD]]`` made a full ``YYYY.MM.DD`` bound (lower: first day of
    what is left out; upper: last day)."""
    import calendar

    match = _PARTIAL_DATE.fullmatch(text.strip())
    if match is None:
        raise ArchiveError(f"date '{text}' is not of the form YYYY.MM.DD (or YYYY, YYYY.MM)")
    year, month, day = match.groups()
    month = None if month in (None, "??") else int(month)
    day = None if day in (None, "??") else int(day)
    if month is not None and not 1 <= month <= 12:
        raise ArchiveError(f"date '{text}': there is no month {month:02d}")
    if upper:
        month_value = 12 if month is None else month
        last = calendar.monthrange(int(year), month_value)[1]
        day_value = last if day is None else day
    else:
        month_value = 1 if month is None else month
        day_value = 1 if day is None else day
    if not 1 <= day_value <= 31:
        raise ArchiveError(f"date '{text}': there is no day {day_value:02d}")
    return f"{year}.{month_value:02d}.{day_value:02d}"


_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _tag_pairs(tags: Sequence[str]) -> list[tuple[str, str]]:
    """``NAME=VALUE`` filters split, with an error naming a malformed one."""
    pairs = []
    for text in tags:
        name, equals, value = text.partition("=")
        if not equals or not _TAG_NAME.fullmatch(name.strip()):
            raise ArchiveError(f"tag filter '{text}' is not of the form NAME=VALUE (League=pro)")
        pairs.append((name.strip(), value))
    return pairs


def _tag_defaults(name: str) -> list[tuple[str, str]]:
    """``(game, default value)`` of every game that gives tag ``name`` a default."""
    return [
        (notation.name, spec.default)
        for notation in all_games()
        for spec in notation.rules.tags
        if spec.name == name and spec.default
    ]


def _json_path(name: str) -> str:
    return f'$."{name}"'


def _position_keys(position: str, game: str | None) -> list[tuple[str, int, bool, int]]:
    """(game, folded key, is the game's initial position, sides) of every game whose
    notation reads ``position``."""

    def entry(notation, state) -> tuple[str, int, bool, int]:
        key = notation.rules.key(state)
        sides = notation.rules.sides(state)
        initial = key == notation.rules.key(notation.initial(sides))
        return notation.name, fold_key(notation.name, key), initial, sides

    if game is not None:
        notation = get_game(game)
        return [entry(notation, notation.parse_position(position))]
    found = []
    errors = []
    for notation in all_games():
        try:
            state = notation.parse_position(position)
        except (NotationError, SetupError) as error:
            errors.append(f"{notation.name}: {error}")
            continue
        found.append(entry(notation, state))
    if not found:
        raise NotationError(
            f"position '{position}' is no position of any supported game ({'; '.join(errors)})"
        )
    return found


def _opening_prefix(opening: str, game: str | None) -> str:
    tokens = opening.split()
    if game is not None:
        notation = get_game(game)
        tokens = [notation.canonical_token(token) for token in tokens]
    return " ".join(tokens)


def _where(
    *,
    game: str | None = None,
    player: str | None = None,
    result: str | None = None,
    event: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    opening: str | None = None,
    position: str | None = None,
    sides: int | None = None,
    tags: Sequence[str] | None = None,
) -> tuple[str, str, list]:
    """The FROM part (with the position join), the WHERE part and its parameters."""
    joins = "games g"
    clauses: list[str] = []
    params: list = []
    if position is not None:
        pairs = _position_keys(position, game)
        # The first ply after which the position stood, per game: one range of the
        # positions primary key per (game, key) pair. The positions table has no
        # row for ply 0, so a game's initial position matches every game of it
        # that did not start from a setup and has as many sides, at ply 0.
        alternatives = " OR ".join("(p.key = ? AND g.game = ?)" for _ in pairs)
        starts = "".join(
            " UNION ALL SELECT s.id, 0 FROM games s WHERE s.game = ? AND s.sides = ? "
            "AND coalesce(json_extract(s.tags, '$.SetUp'), '0') != '1'"
            for _name, _key, initial, _sides in pairs
            if initial
        )
        joins = (
            "games g JOIN (SELECT game_id, min(ply) AS ply FROM ("
            "SELECT p.game_id, p.ply FROM positions p "
            f"JOIN games g ON g.id = p.game_id WHERE {alternatives}{starts}) "
            "GROUP BY game_id) hit ON hit.game_id = g.id"
        )
        for name, key, _initial, _sides in pairs:
            params.extend((key, name))
        for name, _key, initial, sides in pairs:
            if initial:
                params.extend((name, sides))
    if game is not None:
        get_game(game)  # an unknown game is an error, not an empty answer
        clauses.append("g.game = ?")
        params.append(game)
    if player is not None:
        needle = player.casefold()
        clauses.append(
            "("
            + " OR ".join(f"instr(partita_casefold(g.player{seat}), ?) > 0" for seat in range(1, 5))
            + ")"
        )
        params.extend([needle] * 4)
    if result is not None:
        clauses.append("g.result = ?")
        params.append(result)
    if event is not None:
        clauses.append("instr(partita_casefold(g.event), ?) > 0")
        params.append(event.casefold())
    if date_from is not None:
        clauses.append("g.date_min >= ?")
        params.append(_date_bound(date_from, upper=False))
    if date_to is not None:
        clauses.append("g.date_max <= ?")
        params.append(_date_bound(date_to, upper=True))
    if opening is not None:
        prefix = _opening_prefix(opening, game)
        if prefix:
            # Equal to the prefix, or the prefix then a space: one index range, as
            # no token holds a character below '!'.
            clauses.append("g.moves >= ? AND g.moves < ?")
            params.extend((prefix, prefix + "!"))
    if sides is not None:
        clauses.append("g.sides = ?")
        params.append(sides)
    for name, value in _tag_pairs(tags or ()):
        if not value:
            clauses.append("json_extract(g.tags, ?) IS NULL")
            params.append(_json_path(name))
            continue
        defaults = _tag_defaults(name)
        if defaults:
            # A tag a record leaves out has its game's default value.
            cases = " ".join("WHEN ? THEN ?" for _ in defaults)
            clauses.append(f"coalesce(json_extract(g.tags, ?), CASE g.game {cases} END) = ?")
            params.append(_json_path(name))
            for pair in defaults:
                params.extend(pair)
        else:
            clauses.append("json_extract(g.tags, ?) = ?")
            params.append(_json_path(name))
        params.append(value)
    where = " AND ".join(clauses) if clauses else "1"
    return joins, where, params


def select_games(
    db: Database, columns: str = "g.*", *, limit: int | None = None, **filters
) -> Iterator[dict]:
    """Rows of ``games`` (as ``g``) matching the filters, by id; streamed.

    ``columns`` is an SQL column list over ``g`` (and ``hit.ply`` for a position
    filter). The filters are those of :func:`query_games`.
    """
    joins, where, params = _where(**filters)
    sql = f"SELECT {columns} FROM {joins} WHERE {where} ORDER BY g.id"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return db.query(sql, params)


def query_games(
    target: str | Path | Database,
    *,
    game: str | None = None,
    player: str | None = None,
    result: str | None = None,
    event: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    opening: str | None = None,
    position: str | None = None,
    sides: int | None = None,
    tags: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[dict]:
    """The games matching every filter given, by id: per game ``id``, ``game``,
    ``event``, ``site``, ``date``, ``round``, ``players`` (Player1 onwards),
    ``result``, ``termination``, ``sides``, ``plies``, ``status``,
    ``final_position``, and ``ply`` for a position query (see the module
    docstring for how each filter matches)."""
    if limit is not None and limit < 0:
        raise ArchiveError(f"limit must be 0 or more, not {limit}")
    filters = {
        "game": game,
        "player": player,
        "result": result,
        "event": event,
        "date_from": date_from,
        "date_to": date_to,
        "opening": opening,
        "position": position,
        "sides": sides,
        "tags": tags,
    }
    columns = _SUMMARY_COLUMNS + (", hit.ply" if position is not None else "")
    with archive(target, readonly=True) as db:
        rows = []
        for row in select_games(db, columns, limit=limit, **filters):
            players = [row.pop(f"player{seat}") for seat in range(1, 5)]
            row["players"] = [name for name in players if name is not None]
            rows.append(row)
        return rows


def count_games(target: str | Path | Database, *, limit: int | None = None, **filters) -> int:
    """How many games match the filters (those of :func:`query_games`), at most
    ``limit``: the work an export has ahead, for its progress."""
    if limit is not None and limit < 0:
        raise ArchiveError(f"limit must be 0 or more, not {limit}")
    with archive(target, readonly=True) as db:
        return sum(1 for _ in select_games(db, "g.id", limit=limit, **filters))


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
