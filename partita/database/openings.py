"""Opening names: per-game TOML files mapping names to positions, and the name of a game.

A names file has one table per `Game` tag; each entry names the position a move
sequence (from the game's initial position) or a position notation reaches::

    [somegame]
    "Centre opening" = "t4"
    "Centre opening, stacked reply" = "t4 t4"
    "Three sides: ..." = { moves = "...", sides = 3 }
    "A named position" = { position = "..." }

Names come from the game's shipped file (:attr:`GameSpec.openings`), then each file
of ``$PARTITA_OPENINGS`` (paths separated by ``os.pathsep``), then the files a
command is given (``--openings FILE``); a later file's name replaces an earlier
one for the same position, and adds the others. A name belongs to a *position*
(its folded key, the archive's ``positions.key``), so a game that reaches it by
another order of moves has the name too. The key is folded with the set-up of the
entry's sides and the game's default settings: games of another set-up (an
advanced variant, another board size) never stand on it and have no name.

The name of a game is its **deepest** named position: of the named positions its
legal mainline stood on, the one of the most plies (``depth``: the length of the
entry's moves, or the ply of its position), then the latest in the game. The
archive's position index finds them (one range of the ``positions`` primary key
per named position); no replay.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from partita.database.keys import fold_key, key_folder
from partita.errors import PartitaError
from partita.game.configuration import Configuration
from partita.game.registry import all_specs, get_game, get_spec

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "ENVIRONMENT",
    "OpeningBook",
    "OpeningName",
    "game_opening_names",
    "opening_book",
    "opening_of_line",
    "openings_of_games",
]

#: The environment variable naming the user's names files.
ENVIRONMENT = "PARTITA_OPENINGS"


@dataclass(frozen=True, slots=True)
class OpeningName:
    """One named position: ``name``, the ``game``, the folded position ``key``, its
    ``depth`` in plies, the ``moves`` that reach it (``()`` for a position entry),
    the number of ``sides``, and the ``source`` file it came from."""

    name: str
    game: str
    key: int
    depth: int
    moves: tuple[str, ...]
    sides: int
    source: str

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "game": self.game,
            "depth": self.depth,
            "moves": " ".join(self.moves),
            "sides": self.sides,
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class OpeningBook:
    """The opening names of one game, by folded position key."""

    game: str
    by_key: Mapping[int, OpeningName] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.by_key)

    def names(self) -> list[OpeningName]:
        """Every name, shallowest first, then by name."""
        return sorted(self.by_key.values(), key=lambda entry: (entry.depth, entry.name))

    def matching(self, text: str) -> list[OpeningName]:
        """The names holding ``text``, case and accents ignored."""
        from partita.database.filters import fold

        wanted = fold(text) or ""
        return [entry for entry in self.names() if wanted in (fold(entry.name) or "")]

    def deepest(self, keys: Iterable[tuple[int, int]]) -> OpeningName | None:
        """The name of a game given ``(folded key, ply)`` of the positions it stood
        on: the deepest named one, then the latest; ``None`` if none is named."""
        best: tuple[int, int] | None = None
        found: OpeningName | None = None
        for key, ply in keys:
            entry = self.by_key.get(key)
            if entry is not None and (best is None or (entry.depth, ply) > best):
                best, found = (entry.depth, ply), entry
        return found

    def name_of_state(
        self, state: Any, *, symmetric: bool = False, configuration: Configuration | None = None
    ) -> str | None:
        """The name of one position (any of its symmetric images with
        ``symmetric``) of a game set up as ``configuration`` (by default the
        default settings, as many sides as the state has), or ``None``. Names
        belong to the default settings: another set-up's positions have none."""
        notation = get_game(self.game)
        rules = notation.rules
        if configuration is None:
            configuration = Configuration.of(notation, rules.sides(state), {})
        keys = rules.symmetric_keys(state) if symmetric else (rules.key(state),)
        for key in keys:
            entry = self.by_key.get(fold_key(self.game, key, configuration))
            if entry is not None:
                return entry.name
        return None


def _user_files() -> tuple[str, ...]:
    value = os.environ.get(ENVIRONMENT, "")
    return tuple(part for part in value.split(os.pathsep) if part.strip())


def opening_book(name: str, files: Sequence[str | Path] = ()) -> OpeningBook:
    """The opening names of the game ``name``: shipped, then ``$PARTITA_OPENINGS``, then
    ``files`` (later names replace earlier ones for the same position).
    ``PartitaError`` naming the file, the entry and the reason for a bad one."""
    paths = tuple(str(path) for path in (*_user_files(), *files))
    stamps = tuple(_stamp(path) for path in paths)
    return _book(name, paths, stamps)


def _stamp(path: str) -> tuple[int, int]:
    try:
        status = Path(path).stat()
    except OSError as error:
        raise PartitaError(
            f"opening names file {path}: cannot read it ({error.strerror or error})"
        ) from None
    return status.st_mtime_ns, status.st_size


@lru_cache(maxsize=32)
def _book(name: str, paths: tuple[str, ...], stamps: tuple[tuple[int, int], ...]) -> OpeningBook:
    spec = get_spec(name)
    by_key: dict[int, OpeningName] = {}
    shipped = spec.openings_text()
    sources: list[tuple[str, str]] = []
    if shipped is not None:
        sources.append((f"{name}'s shipped names ({spec.openings})", shipped))
    for path in paths:
        try:
            sources.append((path, Path(path).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as error:
            raise PartitaError(f"opening names file {path}: cannot read it ({error})") from None
    for source, text in sources:
        for entry in _entries(source, text, name):
            for key in [key for key, known in by_key.items() if known.name == entry.name]:
                del by_key[key]  # a name given again moves to its new position
            by_key[entry.key] = entry
    return OpeningBook(name, by_key)


def _entries(source: str, text: str, game: str) -> list[OpeningName]:
    """The entries of one file for ``game``; every table must name a known game."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PartitaError(f"opening names file {source}: {error}") from None
    known = {spec.name for spec in all_specs()}
    for name, value in data.items():
        if name not in known:
            raise PartitaError(
                f"opening names file {source}: [{name}] is no game partita knows "
                f"(known: {', '.join(sorted(known))})"
            )
        if not isinstance(value, dict):
            raise PartitaError(
                f"opening names file {source}: '{name}' must be a table [{name}] of names"
            )
    table = data.get(game, {})
    return [_entry(source, game, name, value) for name, value in table.items()]


def _entry(source: str, game: str, name: str, value: Any) -> OpeningName:
    where = f"opening names file {source}: [{game}] '{name}'"
    if not name.strip():
        raise PartitaError(f"{where}: a name must not be empty")
    if isinstance(value, str):
        value = {"moves": value}
    if not isinstance(value, dict) or set(value) - {"moves", "position", "sides"}:
        raise PartitaError(
            f'{where}: give moves ("t4 t3"), or a table with moves or position (and sides)'
        )
    if ("moves" in value) == ("position" in value):
        raise PartitaError(f"{where}: give either moves or a position, not both or neither")
    notation = get_game(game)
    rules = notation.rules
    sides = value.get("sides", rules.min_sides)
    if not isinstance(sides, int) or not rules.min_sides <= sides <= rules.max_sides:
        raise PartitaError(
            f"{where}: sides must be a number from {rules.min_sides} to {rules.max_sides}"
        )
    try:
        if "position" in value:
            state = notation.parse_position(str(value["position"]), sides)
            moves: tuple[str, ...] = ()
            depth = rules.ply(state)
        else:
            state = notation.initial(sides)
            canonical = []
            for ply, token in enumerate(str(value["moves"]).split(), start=1):
                try:
                    move = notation.parse_move(state, token)
                except PartitaError as error:
                    raise PartitaError(f"ply {ply}: {error}") from None
                canonical.append(notation.format_move(state, move))
                state = rules.apply(state, move)
            moves = tuple(canonical)
            depth = len(moves)
    except PartitaError as error:
        raise PartitaError(f"{where}: {error}") from None
    if depth < 1:
        raise PartitaError(f"{where}: the starting position needs no name (give moves)")
    key = fold_key(game, rules.key(state), Configuration.of(notation, sides, {}))
    return OpeningName(name.strip(), game, key, depth, moves, sides, source)


def opening_of_line(
    name: str,
    keys: Sequence[Hashable],
    files: Sequence[str | Path] = (),
    configuration: Configuration | None = None,
) -> OpeningName | None:
    """The opening name of a line of a game set up as ``configuration`` (``None``:
    the default set-up) given the position keys (the rules engine's) after each of
    its plies: what :func:`openings_of_games` finds for an archived game, for a
    record that is not in the archive."""
    book = opening_book(name, files)
    if not book:
        return None
    fold = key_folder(name, configuration)
    return book.deepest((fold(key), ply) for ply, key in enumerate(keys, start=1))


def _books(games: Iterable[str | None], files: Sequence[str | Path]) -> dict[str, OpeningBook]:
    """The non-empty books of ``games`` (games partita does not know have none)."""
    known = {spec.name for spec in all_specs()}
    books = {}
    for game in games:
        if game not in known:
            continue
        book = opening_book(game, files)
        if book:
            books[game] = book
    return books


#: Above this many games, the names are found through the named positions alone
#: (a range per position) rather than per game.
_PER_GAME = 2_000


def openings_of_games(
    db: Archive, games: Sequence[tuple[int, str | None]], files: Sequence[str | Path] = ()
) -> dict[int, OpeningName]:
    """The opening name of each of ``games`` (``(id, game)`` pairs) that has one."""
    by_game: dict[str | None, list[int]] = {}
    for game_id, game in games:
        by_game.setdefault(game, []).append(game_id)
    found: dict[int, OpeningName] = {}
    for game, books in _books(by_game, files).items():
        ids = by_game[game]
        keys = json.dumps(list(books.by_key))
        if len(ids) <= _PER_GAME:
            rows = db.execute(
                "SELECT game_id, key, ply FROM game_positions WHERE key IN "
                "(SELECT value FROM json_each(?)) AND game_id IN (SELECT value FROM json_each(?))",
                (keys, json.dumps(ids)),
            )
        else:
            rows = db.execute(
                "SELECT game_id, key, ply FROM positions WHERE key IN "
                "(SELECT value FROM json_each(?))",
                (keys,),
            )
        wanted = set(ids)
        per_game: dict[int, list[tuple[int, int]]] = {}
        for game_id, key, ply in rows:
            if game_id in wanted:
                per_game.setdefault(game_id, []).append((key, ply))
        for game_id, hits in per_game.items():
            entry = books.deepest(hits)
            if entry is not None:
                found[game_id] = entry
    return found


def game_opening_names(
    names: Sequence[str], games: Iterable[str], files: Sequence[str | Path] = ()
) -> tuple[str, list] | None:
    """The SQL condition (over ``games g``) and its parameters of "the game's
    opening name holds one of ``names``" (case and accents ignored), for the games
    ``games`` that have names; ``None`` when no name of them matches (no game can)."""
    parts = []
    params: list = []
    for book in _books(games, files).values():
        hits = {entry.key for text in names for entry in book.matching(text)}
        if not hits:
            continue
        # Only positions at least as deep as the shallowest hit can outrank it.
        floor = min(book.by_key[key].depth for key in hits)
        entries = [
            [key, entry.depth, int(key in hits)]
            for key, entry in book.by_key.items()
            if entry.depth >= floor
        ]
        parts.append(
            "g.id IN (SELECT r.game_id FROM (SELECT p.game_id, b.hit, row_number() OVER "
            "(PARTITION BY p.game_id ORDER BY b.depth DESC, p.ply DESC) AS rank FROM "
            "(SELECT json_extract(value, '$[0]') AS key, json_extract(value, '$[1]') AS depth, "
            "json_extract(value, '$[2]') AS hit FROM json_each(?)) b "
            "CROSS JOIN positions p ON p.key = b.key WHERE p.game_id IN "
            "(SELECT game_id FROM positions WHERE key IN (SELECT value FROM json_each(?)))) r "
            "WHERE r.rank = 1 AND r.hit = 1)"
        )
        params += [json.dumps(entries), json.dumps(sorted(hits))]
    if not parts:
        return None
    return "(" + " OR ".join(parts) + ")", params
