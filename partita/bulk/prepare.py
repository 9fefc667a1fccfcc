"""A chunk of raw records turned into what the archive stores: a worker's task.

For a *plain* record (tags written the canonical way, then move numbers, moves and a
result; see :mod:`partita.bulk.plain`), :func:`prepare_raw` replays the raw
text directly (:func:`~partita.bulk.plain.replay_raw`) and hands the replay and
its canonical text to :func:`~partita.database.prepare.prepare_record`, which makes
the rows as for any record (the keys folded with :mod:`partita.database.keys`'
fold, by the game's key replay as it makes them). Any
other record, or one replay might find a problem in, goes the full way (read,
replay, prepare). A differential test (``tests/test_fast_prepare.py``) holds the
two equal, field by field, on every shipped example and on generated records of
every game.

``PARTITA_FULL_PATH=1`` in the environment turns the fast path off (every record the
full way; a worker process inherits it): for benchmarks, and to rule it out when
hunting a bug.
"""

from __future__ import annotations

from partita.bulk.chunks import ChunkData, raw_records
from partita.bulk.plain import FULL_PATH_VARIABLE, fast_path_enabled, replay_raw
from partita.database.prepare import Refusal, StoredRecord, prepare_record, record_folder
from partita.notation.reader import build_record
from partita.notation.replay import replay
from partita.notation.splitter import RawRecord

__all__ = [
    "FULL_PATH_VARIABLE",
    "fast_path_enabled",
    "fast_prepare",
    "prepare_chunk",
    "prepare_raw",
]


def prepare_chunk(data: ChunkData) -> list[StoredRecord | Refusal]:
    """Read, replay and turn into rows a chunk of raw records: the work of an import
    outside the archive, done by a worker process (or by this one, serially). Plain
    records take the fast path, the others the full one; the rows are the same."""
    strict = data[1]
    if fast_path_enabled():
        return [prepare_raw(raw, strict) for raw in raw_records(data)]
    return [
        prepare_record(replay(build_record(raw), strict=strict), strict)
        for raw in raw_records(data)
    ]


def prepare_raw(raw: RawRecord, strict: bool) -> StoredRecord | Refusal:
    """What the archive stores of one raw record: by the fast path when the record
    is plain, else the full way (``build_record``, ``replay``, ``prepare_record``);
    the same either way."""
    stored = fast_prepare(raw, strict)
    if stored is not None:
        return stored
    return prepare_record(replay(build_record(raw), strict=strict), strict)


def fast_prepare(raw: RawRecord, strict: bool) -> StoredRecord | None:
    """The rows of a plain record without problems, exactly as the full path makes
    them (the keys folded by the game's key replay as it makes them, with the
    archive's fold); ``None`` when the record is not plain, or replay might find a
    problem."""
    plain = replay_raw(raw, strict, folders=record_folder)
    if plain is None:
        return None
    stored = prepare_record(plain.replayed, strict, text=plain.text, folded_keys=plain.folded)
    assert isinstance(stored, StoredRecord), "a record without problems is stored"
    return stored
