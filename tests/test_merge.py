"""Merging archives: games copied with their positions and problems, duplicates
skipped, the other archive untouched, all or nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from test_positions_v7 import without_game_positions
from typer.testing import CliRunner

from partita.bulk import import_paths
from partita.cli.app import _register_commands, app
from partita.database import SCHEMA_VERSION
from partita.database.merge import merge_archive
from partita.database.schema import archive
from partita.errors import ArchiveError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GAMES = sorted(path.name for path in EXAMPLES.iterdir() if path.is_dir() and path.name != "invalid")


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    _register_commands()
    return CliRunner()


def rows(path: Path, sql: str, params: tuple = ()) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


def by_hash(path: Path) -> dict[str, tuple]:
    """Each game of an archive, by content hash: its row (no id, no source), its
    positions and its problems (each without ids)."""
    games = {}
    with sqlite3.connect(path) as conn:
        names = [row[1] for row in conn.execute("PRAGMA table_info(games)")]
        kept = [name for name in names if name != "id"]
        for values in conn.execute(f"SELECT id, {', '.join(kept)} FROM games"):
            game_id, row = values[0], dict(zip(kept, values[1:], strict=True))
            positions = conn.execute(
                "SELECT key, ply FROM positions WHERE game_id = ? ORDER BY ply",
                (game_id,),
            ).fetchall()
            problems = conn.execute(
                'SELECT kind, severity, line, "column", ply, move_number, token, message '
                "FROM problems WHERE game_id = ? ORDER BY id",
                (game_id,),
            ).fetchall()
            games[row["hash"]] = (tuple(sorted(row.items())), positions, problems)
    return games


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("game", GAMES)
def test_merging_copies_every_game_with_its_rows_and_skips_duplicates(game, tmp_path, runner):
    files = sorted((EXAMPLES / game).glob("*.pgr"))
    here, other = tmp_path / "here.db", tmp_path / "other.db"
    with archive(here) as opened:
        import_paths(opened, [files[0], EXAMPLES / "invalid"])
    with archive(other) as opened:
        import_paths(opened, [*files, EXAMPLES / "invalid"])
    before_here, before_other = by_hash(here), by_hash(other)
    other_bytes = file_digest(other)
    other_ids = dict(rows(other, "SELECT hash, id FROM games"))
    here_ids = dict(rows(here, "SELECT hash, id FROM games"))
    first_new = max(here_ids.values()) + 1

    outcome = runner.invoke(app, ["merge", str(other), "--db", str(here), "--json"])
    assert outcome.exit_code == 0, outcome.output
    merged = json.loads(outcome.stdout)

    after = by_hash(here)
    assert after == {**before_other, **before_here}  # every game, rows and all
    assert file_digest(other) == other_bytes  # the other archive is not written
    mapping = merged["mapping"]
    assert [entry["from"] for entry in mapping] == sorted(other_ids.values())
    new_ids = dict(rows(here, "SELECT hash, id FROM games"))
    copied = iter(range(first_new, first_new + len(before_other)))
    for digest, old_id in sorted(other_ids.items(), key=lambda item: item[1]):
        entry = mapping[sorted(other_ids.values()).index(old_id)]
        if digest in here_ids:
            assert entry == {"from": old_id, "duplicate_of": here_ids[digest]}
        else:
            assert entry == {"from": old_id, "to": next(copied)} and new_ids[digest] == entry["to"]
    assert merged["duplicates"] == len(set(here_ids) & set(other_ids)) > 0
    assert merged["copied"] == len(set(other_ids) - set(here_ids)) > 0
    [(positions,)] = rows(here, "SELECT count(*) FROM positions WHERE game_id >= ?", (first_new,))
    assert merged["positions"] == positions > 0
    assert rows(
        here, "SELECT count(*) FROM positions WHERE game_id NOT IN (SELECT id FROM games)"
    ) == [(0,)]
    again = runner.invoke(app, ["merge", str(other), "--db", str(here)])
    assert again.exit_code == 0
    assert f"0 games copied from {other}" in again.output
    assert f"{len(other_ids)} duplicates skipped" in again.output


def test_merging_into_a_new_archive_copies_everything_in_order(tmp_path):
    other = tmp_path / "other.db"
    with archive(other) as opened:
        import_paths(opened, [EXAMPLES / "forceball", EXAMPLES / "circular-reasoning"])
    with archive(tmp_path / "new.db") as opened:
        merged = merge_archive(opened, other)
    count = rows(other, "SELECT count(*) FROM games")[0][0]
    assert merged.mapping == [{"from": n, "to": n} for n in range(1, count + 1)]
    assert by_hash(tmp_path / "new.db") == by_hash(other)
    # Both positions tables, game by game, as the other archive holds them.
    for table in ("positions", "game_positions"):
        sql = f"SELECT game_id, ply, key FROM {table} ORDER BY game_id, ply"
        assert rows(tmp_path / "new.db", sql) == rows(other, sql)


def test_an_archive_of_schema_1_is_read_as_it_is_and_its_twin_keys_computed(tmp_path):
    other = tmp_path / "old.db"
    with archive(other) as opened:
        import_paths(opened, [EXAMPLES / "forza4x4", EXAMPLES / "universal-forces"])
    expected = by_hash(other)
    with sqlite3.connect(other) as conn:
        without_game_positions(conn)
        conn.execute("DROP INDEX games_twin")
        conn.execute("DROP INDEX positions_game")
        conn.execute("ALTER TABLE games DROP COLUMN twin_key")
        conn.execute("DELETE FROM schema_version WHERE version >= 2")
    old_bytes = file_digest(other)
    with archive(tmp_path / "new.db") as opened:
        merge_archive(opened, other)
    assert by_hash(tmp_path / "new.db") == expected
    assert file_digest(other) == old_bytes  # not migrated
    assert rows(other, "SELECT max(version) FROM schema_version") == [(1,)]


def test_a_merge_that_fails_half_way_changes_nothing(tmp_path):
    here, other = tmp_path / "here.db", tmp_path / "other.db"
    with archive(here) as opened:
        import_paths(opened, [EXAMPLES / "connect4"])
    with archive(other) as opened:
        import_paths(opened, [EXAMPLES / "invalid"])
    before = by_hash(here)
    with sqlite3.connect(here) as conn:
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON problems BEGIN SELECT RAISE(ABORT, 'full'); END"
        )
    with pytest.raises(ArchiveError, match="full"), archive(here) as opened:
        merge_archive(opened, other)
    assert by_hash(here) == before


def test_what_cannot_be_merged(tmp_path, runner):
    here = tmp_path / "here.db"
    with archive(here) as opened:
        import_paths(opened, [EXAMPLES / "connect4"])
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE games (name TEXT)")
    newer = tmp_path / "newer.db"
    shutil.copy(here, newer)
    with sqlite3.connect(newer) as conn:
        conn.execute(
            "INSERT INTO schema_version VALUES (?, 'from the future', '')", (SCHEMA_VERSION + 1,)
        )
    with pytest.raises(ArchiveError, match="is not a partita archive"), archive(here) as opened:
        merge_archive(opened, foreign)
    with (
        pytest.raises(ArchiveError, match="newer than this partita knows"),
        archive(here) as opened,
    ):
        merge_archive(opened, newer)
    with pytest.raises(ArchiveError, match="is this archive"), archive(here) as opened:
        merge_archive(opened, here)
    with pytest.raises(ArchiveError, match="no archive at"), archive(here) as opened:
        merge_archive(opened, tmp_path / "missing.db")
    outcome = runner.invoke(app, ["merge", str(tmp_path / "missing.db"), "--db", str(here)])
    assert outcome.exit_code == 2
