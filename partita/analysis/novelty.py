"""Novelties: the first move of a game that leaves the tree of a reference set.

The game's mainline is replayed; after each ply the position is looked up in
the reference (the archive's position index, or the games of a record file). The
novelty is the first move after which no reference game ever stood on the
position: a move that only transposes into a known position is not one. With it
come how often the position before it was reached and what was played there
before (moves, games, results of the side to move, dates, example games).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from partita.database.connection import archive_errors
from partita.errors import PartitaError
from partita.game.configuration import Configuration
from partita.game.notation import GameNotation
from partita.game.rules import DRAW, WIN, parse_result_token
from partita.notation.model import Record
from partita.notation.replay import ReplayedRecord, move_label, replay

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "ArchiveReference",
    "Continuation",
    "Novelty",
    "RecordsReference",
    "find_novelty",
    "novelty_against_archive",
    "novelty_against_file",
]


@dataclass(slots=True)
class Continuation:
    """A move the reference games played in a position, and how it went for the
    side that played it."""

    move: str
    games: int
    won: int = 0
    drawn: int = 0
    lost: int = 0
    last_date: str | None = None
    examples: list[int] = field(default_factory=list)

    @property
    def score(self) -> float | None:
        decided = self.won + self.drawn + self.lost
        return (self.won + self.drawn / 2) / decided if decided else None

    def as_dict(self) -> dict:
        return {
            "move": self.move,
            "games": self.games,
            "won": self.won,
            "drawn": self.drawn,
            "lost": self.lost,
            "score": None if self.score is None else round(self.score, 4),
            "last_date": self.last_date,
            "examples": self.examples,
        }


@dataclass(slots=True)
class Novelty:
    """Where a game left the reference (``ply`` is ``None`` if it never did, or
    if its starting position is unknown to the reference: see ``reason``)."""

    game: str
    plies: int
    reference_games: int
    ply: int | None = None
    move_number: str | None = None
    move: str | None = None
    position: str | None = None
    reached: int = 0
    played: list[Continuation] = field(default_factory=list)
    reason: str = ""

    def as_dict(self) -> dict:
        return {
            "game": self.game,
            "plies": self.plies,
            "reference_games": self.reference_games,
            "ply": self.ply,
            "move_number": self.move_number,
            "move": self.move,
            "position": self.position,
            "reached": self.reached,
            "played": [continuation.as_dict() for continuation in self.played],
            "reason": self.reason,
        }


@dataclass(slots=True)
class _Seen:
    """One reference game standing on a position: its id, result, date and the
    move it played next (``None`` if it ended there)."""

    game_id: int
    result: str | None
    date: str | None
    next_move: str | None


class RecordsReference:
    """A reference set held in memory: the mainlines of records of one game set up
    as ``configuration`` (by default the game's default set-up; positions of two
    set-ups never meet), records equal to ``skip`` (the game under study) left out."""

    def __init__(
        self,
        game: GameNotation,
        records: Iterable[Record | ReplayedRecord],
        *,
        skip: Record | None = None,
        configuration: Configuration | None = None,
    ) -> None:
        self.game = game
        wanted = configuration or Configuration.default(game)
        self._seen: dict[Hashable, list[_Seen]] = defaultdict(list)
        self.size = 0
        number = 0
        for item in records:
            replayed = item if isinstance(item, ReplayedRecord) else replay(item)
            number += 1
            if replayed.game is None or replayed.game.name != game.name:
                continue
            if replayed.initial_state is None:
                continue
            if replayed.configuration != wanted:
                continue
            if skip is not None and replayed.record.same_game(skip):
                continue
            self.size += 1
            tags = replayed.record.tags
            result = tags.get("Result", replayed.record.result)
            keys = [game.rules.key(replayed.initial_state), *replayed.keys]
            moves = replayed.moves
            for ply, key in enumerate(keys):
                upcoming = moves[ply] if ply < len(moves) else None
                self._seen[key].append(_Seen(number, result, tags.get("Date"), upcoming))

    def games_at(self, state: Any, key: Hashable, ply: int) -> list[_Seen]:
        return self._seen.get(key, [])


class ArchiveReference:
    """The archive's valid games of one game set up as ``configuration`` (by
    default the game's default set-up) as the reference, through its position
    index (invalid games are left out, as in the opening tree: their results may
    contradict their moves; games of other set-ups too: their positions never
    meet); ``exclude`` leaves out game ids (the game itself, when it is there)."""

    def __init__(
        self,
        target: Archive,
        game: GameNotation,
        exclude: Iterable[int] = (),
        configuration: Configuration | None = None,
    ) -> None:
        from partita.database.keys import key_folder
        from partita.database.selection import configured_game_ids

        configuration = configuration or Configuration.default(game)
        self.game = game
        self.db = target
        self.fold = key_folder(game.name, configuration)
        self.exclude = set(exclude)
        self.ids = set(
            configured_game_ids(
                self.db, game.name, configuration.sides, configuration.tag_filters()
            )
        )
        self.size = len(self.ids - self.exclude)

    def games_at(self, state: Any, key: Hashable, ply: int) -> list[_Seen]:
        if ply == 0:
            return self._starts(state)
        from partita.database.selection import games_through

        found = []
        for game_id, result, date, moves, at in games_through(
            self.db, self.game.name, self.fold(key)
        ):
            if game_id in self.exclude:
                continue
            tokens = moves.split(maxsplit=at + 1)
            found.append(_Seen(game_id, result, date, tokens[at] if at < len(tokens) else None))
        return found

    def _starts(self, state: Any) -> list[_Seen]:
        """Games starting on ``state``: the initial position (games without a
        setup) or a setup position (games whose Position tag is that one)."""
        from partita.database.selection import games_from_initial, games_from_setups

        game = self.game
        sides = game.rules.sides(state)
        if game.rules.key(state) == game.rules.key(game.initial(sides)):
            rows = games_from_initial(self.db, game.name, sides)
        else:
            wanted = game.rules.key(state)
            rows = []
            for game_id, result, date, moves, position in games_from_setups(self.db, game.name):
                try:
                    if game.rules.key(game.parse_position(position)) == wanted:
                        rows.append((game_id, result, date, moves))
                except PartitaError:
                    continue
        found = []
        for game_id, result, date, moves in rows:
            if game_id in self.exclude or game_id not in self.ids:
                continue
            first = moves.split(maxsplit=1)
            found.append(_Seen(game_id, result, date, first[0] if first else None))
        return found


def find_novelty(replayed: ReplayedRecord, reference: Any) -> Novelty:
    """The first move of ``replayed``'s mainline after which no game of
    ``reference`` (a :class:`RecordsReference` or :class:`ArchiveReference`)
    stood on the position."""
    game = replayed.game
    if game is None or replayed.initial_state is None:
        raise PartitaError("the record cannot be replayed (its game or setup is unusable)")
    rules = game.rules
    result = Novelty(game=game.name, plies=replayed.plies, reference_games=reference.size)
    state = replayed.initial_state
    seen = reference.games_at(state, rules.key(state), 0)
    if not seen:
        result.reason = "no reference game starts from this game's starting position"
        return result
    read_move = game.parse_move
    for ply, token in enumerate(replayed.moves, start=1):
        after = rules.apply(state, read_move(state, token))
        following = reference.games_at(after, rules.key(after), ply)
        if not following:
            result.ply = ply
            result.move_number = move_label(rules, state)
            result.move = token
            result.position = game.format_position(state)
            result.reached = len(seen)
            result.played = _continuations(seen, rules.side_to_move(state), rules.sides(state))
            result.reason = f"{token} leaves the reference: no game reached the position after it"
            return result
        state, seen = after, following
    result.reason = "every position of the game was reached by a reference game"
    return result


def _known(date: str | None) -> TypeGuard[str]:
    """A date whose year is known (``2023.??.??`` yes, ``????.??.??`` no)."""
    return date is not None and date[:4].isdigit()


def _continuations(seen: list[_Seen], mover: int, sides: int) -> list[Continuation]:
    """What the reference games played next, most played first."""
    by_move: dict[str, Continuation] = {}
    for item in seen:
        if item.next_move is None:
            continue
        entry = by_move.setdefault(item.next_move, Continuation(item.next_move, 0))
        entry.games += 1
        if item.result is not None and mover >= 0:
            try:
                scores = parse_result_token(item.result, sides)
            except ValueError:
                scores = None
            if scores is not None:
                if scores[mover] == WIN:
                    entry.won += 1
                elif scores[mover] == DRAW:
                    entry.drawn += 1
                else:
                    entry.lost += 1
        if _known(item.date) and (entry.last_date is None or item.date > entry.last_date):
            entry.last_date = item.date
        entry.examples.append(item.game_id)
    for entry in by_move.values():
        entry.examples = sorted(entry.examples, reverse=True)[:3]
    return sorted(by_move.values(), key=lambda entry: (-entry.games, entry.move))


@archive_errors
def novelty_against_archive(
    record: Record, target: Archive, *, game_id: int | None = None
) -> Novelty:
    """The novelty of ``record`` against the archive's games of its game. The game
    itself is left out: by ``game_id`` when it comes from the archive, else by its
    content hash when the archive holds a copy."""
    replayed = replay(record)
    if replayed.game is None:
        raise PartitaError("the record names no supported game")
    exclude = set()
    if game_id is not None:
        exclude.add(game_id)
    else:
        import hashlib

        from partita.database.prepare import stored_text
        from partita.database.selection import game_ids_with_hash

        digest = hashlib.sha256(stored_text(replayed).encode("utf-8")).hexdigest()
        exclude.update(game_ids_with_hash(target, digest))
    reference = ArchiveReference(
        target, replayed.game, exclude, configuration=replayed.configuration
    )
    return find_novelty(replayed, reference)


def novelty_against_file(record: Record, reference_file: str | Path) -> Novelty:
    """The novelty of ``record`` against the records of a file (of the same game)."""
    from partita.notation.reader import read_records

    replayed = replay(record)
    if replayed.game is None:
        raise PartitaError("the record names no supported game")
    reference = RecordsReference(
        replayed.game,
        read_records(Path(reference_file)),
        skip=record,
        configuration=replayed.configuration,
    )
    return find_novelty(replayed, reference)
