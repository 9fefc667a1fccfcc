"""Writing prepared records into the archive, one batch per transaction.

An :class:`ArchiveWriter` queues records turned into rows (by
:func:`~partita.database.prepare.prepare_record`, in this process or a worker) and
writes each batch in ONE transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``): the
content hashes of the batch are looked up (by their integer key,
:mod:`~partita.database.hashkey`, then in full), duplicates (already in the archive, or
twice in the batch) are dropped, game ids are assigned (``max(id) + 1`` onwards,
inside the transaction, so the positions and problems rows can be written with plain
``executemany``, the positions of the whole batch with one ``INSERT ... SELECT`` from
``json_each``), and games, positions, variation positions and problems go in
together. A batch that fails leaves no row behind.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from partita.database.hashkey import hash_key, stored_hashes
from partita.database.indexed import MARK_LOADING, defer_game_indexes, index_games
from partita.database.prepare import Refusal, StoredRecord, prepare_record, variation_rows
from partita.database.schema import POSITION_COLUMNS, PROBLEM_COLUMNS, STORED_GAME_COLUMNS
from partita.database.variations import VARIATIONS_INSERT
from partita.notation.replay import ReplayedRecord

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = ["DEFAULT_BATCH_SIZE", "ArchiveWriter", "ImportSummary", "insert_positions"]

#: Records per transaction at least (an import makes its batches grow with the
#: archive: :func:`partita.bulk.importer.batch_limit`); a kill loses at most
#: one batch of work.
DEFAULT_BATCH_SIZE = 1000

#: A bulk batch is written in pieces of at most this many plies (or
#: :data:`PIECE_RECORDS` records) inside its one transaction, so that the rows held in
#: Python stay bounded while the batches grow with the archive
#: (:func:`~partita.bulk.importer.batch_limit`): the import's memory stays flat
#: in the corpus size (benchmarks/results/2026-12-02-import.md).
PIECE_PLIES = 32_768
PIECE_RECORDS = 1000


@dataclass(slots=True)
class ImportSummary:
    """The outcome of an import: ``imported`` counts the games stored (``invalid``
    of them with status invalid), ``duplicates`` the records already there (or
    twice in the input), ``refused`` the invalid records strict mode turned away;
    ``empty_files`` names the files that held no record; ``twins`` the games stored
    that have a twin stored before them (same game, set-up and mainline:
    :mod:`partita.database.twins`), each ``{"game", "twin_of"}``."""

    files: int = 0
    records: int = 0
    imported: int = 0
    duplicates: int = 0
    invalid: int = 0
    refused: int = 0
    plies: int = 0
    problems: int = 0
    bytes: int = 0
    refusals: list[Refusal] = field(default_factory=list)
    empty_files: list[str] = field(default_factory=list)
    twins: list[dict[str, int]] = field(default_factory=list)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["refusals"] = [refusal.as_dict() for refusal in self.refusals]
        return data


_GAMES_INSERT = (
    f"INSERT INTO games ({', '.join(STORED_GAME_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(STORED_GAME_COLUMNS))})"
)
#: A batch's positions rows in one statement: ``?2`` is a JSON array with one array
#: of folded keys per stored game of the batch, in id order (the ids are consecutive
#: from ``?1``); key ``i`` of array ``g`` (both counted from 0) is the row
#: ``(key, ?1 + g, ply i + 1)``. SQLite makes the rows itself, for about a third of
#: the CPU of ``executemany`` of 3-tuples, which builds and binds a tuple per row
#: (benchmarks/results/2026-12-02-import.md).
_POSITIONS_FROM_JSON = "SELECT {columns} FROM json_each(?2) g, json_each(g.value) k"
#: Into ``game_positions``, every batch: the rows come in game and ply order, which
#: is its key's, so each is an append.
_GAME_POSITIONS_INSERT = "INSERT INTO game_positions (game_id, ply, key) " + (
    _POSITIONS_FROM_JSON.format(columns="?1 + g.key, k.key + 1, k.value")
)
#: Into the ``positions`` B-tree (not in a bulk import, whose finish sorts them in
#: from ``game_positions``): in key order, so the inserts walk it forwards.
_POSITIONS_INSERT = (
    f"INSERT INTO positions ({', '.join(POSITION_COLUMNS)}) "
    + _POSITIONS_FROM_JSON.format(columns="k.value, ?1 + g.key, k.key + 1")
    + " ORDER BY 1"
)


def insert_positions(
    conn: sqlite3.Connection, first_id: int, keys_json: str, *, bulk: bool
) -> None:
    """The positions rows of consecutive games from ``first_id`` on, ``keys_json``
    their folded keys (a JSON array of one array per game, in id order), inside the
    caller's transaction: into ``game_positions``, and into ``positions`` too unless
    ``bulk`` (the archive then marked loading from ``first_id``, unless it already is:
    :func:`~partita.database.indexed.finish_loading` sorts them in)."""
    conn.execute(_GAME_POSITIONS_INSERT, (first_id, keys_json))
    if bulk:
        conn.execute(MARK_LOADING, (first_id,))
    else:
        conn.execute(_POSITIONS_INSERT, (first_id, keys_json))


_PROBLEMS_INSERT = (
    f"INSERT INTO problems ({', '.join(f'[{name}]' for name in PROBLEM_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(PROBLEM_COLUMNS))})"
)


class ArchiveWriter:
    """Stores replayed records in batches, each batch in one transaction.

    ``add`` turns a record into rows (refusing it in strict mode if invalid);
    ``add_prepared`` takes a record some process has already turned into rows;
    ``write_pending`` writes what is pending so far inside the batch's open
    transaction; ``flush`` writes the rest and commits the batch. ``summary``
    counts what was committed: a batch that fails leaves no row and no count
    behind.

    Every batch appends its positions rows to ``game_positions`` (game order);
    ``bulk=True`` writes them there only (an append each, whatever the archive's
    size), not into the ``positions`` B-tree, and marks the archive loading;
    :func:`~partita.database.indexed.finish_loading` sorts them in at the end
    (:mod:`~partita.database.indexed` says what happens if the import is stopped);
    its first batch also drops the ``games`` indexes that only readers use, which
    ``finish_loading`` builds again. A bulk batch is written in pieces of
    :data:`PIECE_PLIES` plies as its records arrive, inside its one transaction
    (``pending`` counts them until the commit).

    ``target``: the archive, open for writing.
    """

    def __init__(
        self,
        target: Archive,
        *,
        strict: bool = False,
        batch_size: int = DEFAULT_BATCH_SIZE,
        bulk: bool = False,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch size must be at least 1, not {batch_size}")
        self.conn: sqlite3.Connection = target.conn
        self.strict = strict
        self.batch_size = batch_size
        self.bulk = bulk
        self.summary = ImportSummary()
        self._pending: list[StoredRecord] = []
        self._pending_plies = 0
        self._indexes_deferred = False
        # Bulk mode writes a batch in pieces inside its open transaction: the
        # records written so far, and their counts, committed by flush().
        self._written = 0
        self._uncommitted = [0, 0, 0, 0, 0]

    @property
    def pending(self) -> int:
        """Records of the batch not yet committed (written in pieces or not)."""
        return self._written + len(self._pending)

    def add(self, replayed: ReplayedRecord) -> None:
        """Queue one replayed record (refused at once in strict mode if invalid)."""
        self.add_prepared(prepare_record(replayed, self.strict))

    def add_prepared(self, prepared: StoredRecord | Refusal) -> None:
        """Queue one record already turned into rows (or refused) by
        :func:`~partita.database.prepare.prepare_record`, with this writer's
        strictness, in this process or in a worker."""
        summary = self.summary
        summary.records += 1
        if isinstance(prepared, Refusal):
            summary.refused += 1
            summary.refusals.append(prepared)
        else:
            self._pending.append(prepared)
            if self.bulk:
                self._pending_plies += len(prepared.moves)
                if self._pending_plies >= PIECE_PLIES or len(self._pending) >= PIECE_RECORDS:
                    self.write_pending()

    def write_pending(self) -> None:
        """Write the pending records' rows inside the batch's transaction (opened
        by the first piece), without committing (nothing if none are pending): a
        bulk batch's Python rows are then at most a piece, whatever the batch's
        size; and a parallel import writes each chunk as it arrives, while the
        workers prepare the next ones, rather than the whole batch at its end."""
        if not self._pending:
            return
        batch, self._pending, self._pending_plies = self._pending, [], 0
        conn = self.conn
        try:
            if not self._written:
                conn.execute("BEGIN IMMEDIATE")
            counts = self._write(conn, batch)
        except BaseException:
            self._abandon()
            raise
        self._written += len(batch)
        self._uncommitted = [
            done + more for done, more in zip(self._uncommitted, counts, strict=True)
        ]

    def _abandon(self) -> None:
        """Roll the batch's transaction back: none of its rows or counts stay."""
        conn = self.conn
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        self._written = 0
        self._uncommitted = [0, 0, 0, 0, 0]
        self._indexes_deferred = False

    def flush(self) -> None:
        """Write the pending records and commit the batch (nothing if none)."""
        if not self._pending and not self._written:
            return
        self.write_pending()
        try:
            self.conn.execute("COMMIT")
        except BaseException:
            self._abandon()
            raise
        counts, self._uncommitted, self._written = self._uncommitted, [0, 0, 0, 0, 0], 0
        summary = self.summary
        imported, invalid, plies, problems, duplicates = counts
        summary.imported += imported
        summary.invalid += invalid
        summary.plies += plies
        summary.problems += problems
        summary.duplicates += duplicates

    def _write(self, conn, batch: list[StoredRecord]) -> tuple[int, int, int, int, int]:
        # Looked up under the write lock (BEGIN IMMEDIATE): no other writer can store
        # one of these hashes before this batch commits (partita.database.hashkey).
        existing = stored_hashes(conn, [item.hash for item in batch])
        next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0]
        games: list[tuple] = []
        keys: list[list[int]] = []  # per stored game, in id order
        plies = 0
        problems: list[tuple] = []
        variations: list[tuple] = []
        duplicates = invalid = 0
        for item in batch:
            if item.hash in existing:
                duplicates += 1
                continue
            existing.add(item.hash)
            game_id = next_id
            next_id += 1
            games.append((game_id, *item.game, hash_key(item.hash)))
            keys.append(item.keys)
            plies += len(item.keys)
            if item.problems:
                problems.extend((game_id, *problem) for problem in item.problems)
            if item.variations:
                variations.extend(variation_rows(game_id, item.variations))
            if not item.valid:
                invalid += 1
        if self.bulk and not self._indexes_deferred:
            defer_game_indexes(conn)
            self._indexes_deferred = True  # undone if the transaction rolls back
        self._insert_games(conn, games)
        if games:
            index_games(conn, games[0][0], games[-1][0])
        if plies:
            # Folded keys are ints, whose repr is JSON: str() writes the array in C.
            self._insert_positions(conn, games[0][0], str(keys))
        # Few (a game in twenty has a variation in a club's archive): straight into
        # their B-tree, in key order, in bulk mode too.
        variations.sort()
        self._insert_variations(conn, variations)
        self._insert_problems(conn, problems)
        return len(games), invalid, plies, len(problems), duplicates

    # The inserts are methods so that tests can make one fail half-way.
    def _insert_games(self, conn, rows: list[tuple]) -> None:
        conn.executemany(_GAMES_INSERT, rows)

    def _insert_positions(self, conn, first_id: int, keys_json: str) -> None:
        insert_positions(conn, first_id, keys_json, bulk=self.bulk)

    def _insert_variations(self, conn, rows: list[tuple]) -> None:
        conn.executemany(VARIATIONS_INSERT, rows)

    def _insert_problems(self, conn, rows: list[tuple]) -> None:
        conn.executemany(_PROBLEMS_INSERT, rows)
