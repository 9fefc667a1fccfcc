"""A record named as a user names one: a file and its index, or an archive game's id."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from partita.bulk import import_paths
from partita.database import load_record, load_records, query_games
from partita.database.schema import archive as opened_archive
from partita.database.sources import LARGEST_ID, SourceError, game_id_of
from partita.errors import ArchiveError, PartitaError
from partita.notation.reader import read_records

ROOT = Path(__file__).resolve().parent.parent
EVENING = ROOT / "examples" / "forza4x4" / "casual-evening.pgr"


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("sources") / "games.db"
    with opened_archive(db) as opened:
        import_paths(opened, [EVENING])
    return db


def test_a_file_gives_its_records_in_order(archive):
    expected = list(read_records(EVENING))
    assert len(expected) > 3
    every = load_records(str(EVENING), archive)
    assert len(every) == len(expected)
    assert all(record.same_game(other) for record, other in zip(every, expected, strict=True))
    third = load_record(EVENING, archive, index=2)
    assert third.same_game(expected[2]) and not third.same_game(expected[1])
    assert load_records(EVENING, archive, 2)[0].tags == expected[2].tags
    assert load_record(EVENING, archive).tags == expected[0].tags


def test_an_id_gives_the_archive_game(archive):
    with opened_archive(archive, readonly=True) as opened:
        rows = query_games(opened)
    game_id = rows[1]["id"]
    record = load_record(str(game_id), archive)
    assert record.source.file == f"archive:{game_id}"
    assert record.tags["Round"] == rows[1]["round"] and len(record.mainline_moves()) == 6
    assert record.same_game(list(read_records(EVENING))[1])
    assert load_records(str(game_id), archive, index=5)[0].tags == record.tags  # one game
    assert game_id_of(str(game_id)) == game_id and game_id_of(EVENING) is None


def test_standard_input_is_a_file(archive, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(EVENING.read_bytes())))
    assert load_record("-", archive, index=1).tags == list(read_records(EVENING))[1].tags


def test_what_names_no_record_is_one_error_naming_it(archive, tmp_path):
    with pytest.raises(PartitaError, match="there is no record 99 \\(records count from 0\\)"):
        load_record(EVENING, archive, index=99)
    with pytest.raises(ArchiveError, match="there is no game 999999 in the archive"):
        load_record("999999", archive)
    with pytest.raises(PartitaError, match="nothing.pgr: no such file, and not a game id"):
        load_record(tmp_path / "nothing.pgr", archive)
    empty = tmp_path / "empty.pgr"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(PartitaError, match="empty.pgr: there is no record in it"):
        load_records(empty, archive)


def test_a_folder_or_an_impossible_id_is_a_source_of_the_wrong_kind(archive, tmp_path):
    (tmp_path / "a.pgr").write_text(EVENING.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(SourceError, match="is a folder: name one of its record files such as"):
        load_record(tmp_path, archive)
    too_large = str(LARGEST_ID + 1)
    with pytest.raises(SourceError, match=f"{too_large} is no game id"):
        load_record(too_large, archive)
    assert issubclass(SourceError, PartitaError) and issubclass(SourceError, ValueError)
