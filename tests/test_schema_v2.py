"""Schema version 2: positions indexed by game, games.twin_key filled and indexed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_hash_key import as_version_5

from partita.bulk import import_paths
from partita.database import SCHEMA_VERSION, open_archive
from partita.database.indexed import _DELETE_POSITIONS
from partita.database.schema import archive
from partita.database.twinkey import row_twin_key

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def examples_archive(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("v2") / "examples.db"
    with archive(path) as opened:
        import_paths(opened, [EXAMPLES])
    return path


def _plan(db, sql: str, params: tuple = ()) -> str:
    return " | ".join(row[-1] for row in db.execute(f"EXPLAIN QUERY PLAN {sql}", params))


def test_a_new_archive_has_the_version_2_indexes_and_column(tmp_path):
    db = open_archive(tmp_path / "new.db").db
    assert SCHEMA_VERSION >= 2
    assert "twin_key" in db["games"].columns_dict
    assert db["game_positions"].pks == ["game_id", "ply"]  # a game's positions, by its id
    assert {index.name: index.columns for index in db["games"].indexes}["games_twin"] == [
        "twin_key"
    ]
    db.close()


def test_deleting_a_games_rows_reads_only_that_game(examples_archive):
    db = open_archive(examples_archive)
    plan = _plan(db, _DELETE_POSITIONS, (1,))
    assert "SEARCH game_positions USING PRIMARY KEY (game_id=?)" in plan
    assert "SEARCH positions USING PRIMARY KEY (key=? AND game_id=? AND ply=?)" in plan
    assert "SEARCH game_positions USING PRIMARY KEY (game_id=?)" in _plan(
        db, "DELETE FROM game_positions WHERE game_id = ?", (1,)
    )
    assert "USING INDEX problems_game (game_id=?)" in _plan(
        db, "DELETE FROM problems WHERE game_id = ?", (1,)
    )
    db.close()


def test_valid_games_have_a_twin_key_and_invalid_ones_none(examples_archive):
    db = open_archive(examples_archive)
    counts = dict(
        db.execute("SELECT status, count(twin_key) FROM games GROUP BY status").fetchall()
    )
    valid = db.execute("SELECT count(*) FROM games WHERE status = 'valid'").fetchone()[0]
    assert counts["valid"] == valid > 0
    assert counts["invalid"] == 0
    db.close()


def test_migrating_a_version_1_archive_fills_the_keys_the_importer_gives(
    examples_archive, tmp_path
):
    imported = tmp_path / "v1.db"
    shutil.copy(examples_archive, imported)
    db = open_archive(imported).db
    expected = dict(db.execute("SELECT id, twin_key FROM games").fetchall())
    # Back to version 1: what an archive written before migration 2 holds.
    as_version_5(db.conn)
    db.execute("DROP INDEX games_twin")
    db.execute("DROP INDEX positions_game")
    db.execute("ALTER TABLE games DROP COLUMN twin_key")
    # migration 4's, 5's and 6's
    for table in ("game_players", "game_tags", "positions_load", "variation_positions"):
        db.execute(f"DROP TABLE {table}")
    db.execute("DELETE FROM schema_version WHERE version >= 2")
    db.conn.commit()
    db.close()

    db = open_archive(imported).db
    assert [row[0] for row in db.execute("SELECT version FROM schema_version")] == list(
        range(1, SCHEMA_VERSION + 1)
    )
    assert dict(db.execute("SELECT id, twin_key FROM games").fetchall()) == expected
    assert db["game_positions"].count == db["positions"].count
    db.close()


def test_the_row_key_agrees_with_the_stored_key_for_every_example(examples_archive):
    db = open_archive(examples_archive)
    rows = db.execute("SELECT game, sides, tags, moves, status, twin_key FROM games").fetchall()
    assert len(rows) > 90
    for game, sides, tags, moves, status, stored in rows:
        assert row_twin_key(game, sides, tags, moves, status) == stored
    db.close()


def test_an_unknown_game_or_an_unusable_set_up_has_no_row_key():
    assert row_twin_key("no-such-game", 2, "{}", "t1", "valid") is None
    tags = '{"Game": "forza4x4", "SetUp": "1", "Position": "not a position"}'
    assert row_twin_key("forza4x4", 2, tags, "t1", "valid") is None
    assert row_twin_key("forza4x4", 2, '{"Game": "forza4x4"}', "t1", "invalid") is None
    assert isinstance(row_twin_key("forza4x4", 2, '{"Game": "forza4x4"}', "t1", "valid"), int)
