"""Deleting games and changing tags: consistent, atomic, true to the importer."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from partita.bulk import import_paths
from partita.cli.app import _register_commands, app
from partita.database import export_games, open_archive
from partita.database.maintenance import delete_games, matching_games, set_tag, unset_tag
from partita.database.schema import archive
from partita.errors import ArchiveError
from partita.notation.reader import read_records
from partita.notation.writer import write_record

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GAMES = sorted(path.name for path in EXAMPLES.iterdir() if path.is_dir() and path.name != "invalid")

#: Columns of a game's row that a fresh import of the same text gives again.
ROW = (
    "game, event, site, date, round, player1, player2, player3, player4, result, "
    "termination, sides, plies, status, final_position, date_min, date_max, tags, pgr, "
    "moves, hash, twin_key"
)


@pytest.fixture(scope="module")
def examples_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("maintenance") / "examples.db"
    with archive(path) as opened:
        import_paths(opened, [EXAMPLES])
    return path


@pytest.fixture
def db(examples_db, tmp_path) -> Path:
    """A fresh copy of the examples' archive for one test."""
    copy = tmp_path / "copy.db"
    shutil.copy(examples_db, copy)
    return copy


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    _register_commands()
    return CliRunner()


def rows(path: Path, sql: str, params: tuple = ()) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


def orphans(path: Path) -> tuple[int, int]:
    """Positions and problems rows whose game is not in the archive."""
    [(positions,)] = rows(
        path, "SELECT count(*) FROM positions WHERE game_id NOT IN (SELECT id FROM games)"
    )
    [(problems,)] = rows(
        path, "SELECT count(*) FROM problems WHERE game_id NOT IN (SELECT id FROM games)"
    )
    return positions, problems


def per_game_rows(path: Path) -> dict[int, tuple[int, int]]:
    """Each game's (positions, problems) row counts."""
    positions = dict(rows(path, "SELECT game_id, count(*) FROM positions GROUP BY game_id"))
    problems = dict(rows(path, "SELECT game_id, count(*) FROM problems GROUP BY game_id"))
    return {
        game_id: (positions.get(game_id, 0), problems.get(game_id, 0))
        for (game_id,) in rows(path, "SELECT id FROM games")
    }


# -- delete ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_deleting_a_games_records_takes_their_rows_and_leaves_the_others(db, runner, game):
    before = per_game_rows(db)
    doomed = [
        row[0] for row in rows(db, "SELECT id FROM games WHERE game = ? ORDER BY id", (game,))
    ]
    assert doomed
    outcome = runner.invoke(app, ["delete", "--db", str(db), "--game", game, "--yes", "--json"])
    assert outcome.exit_code == 0, outcome.output
    data = json.loads(outcome.stdout)
    assert data["games"] == doomed
    assert data["positions"] == sum(before[game_id][0] for game_id in doomed)
    assert data["problems"] == sum(before[game_id][1] for game_id in doomed)
    assert rows(db, "SELECT count(*) FROM games WHERE game = ?", (game,)) == [(0,)]
    assert orphans(db) == (0, 0)
    kept = {game_id: counts for game_id, counts in before.items() if game_id not in doomed}
    assert per_game_rows(db) == kept


def test_ids_and_filters_together_delete_the_ids_that_match(db):
    forza = [row[0] for row in rows(db, "SELECT id FROM games WHERE game = 'forza4x4' LIMIT 2")]
    other = rows(db, "SELECT id FROM games WHERE game = 'connect4' LIMIT 1")[0][0]
    with archive(db, readonly=True) as opened:
        assert matching_games(opened, [*forza, other], game="forza4x4") == forza
    with archive(db, readonly=True) as opened:
        assert matching_games(opened, [other, *forza]) == sorted([*forza, other])


def test_a_missing_id_deletes_nothing(db, runner):
    before = per_game_rows(db)
    with (
        pytest.raises(ArchiveError, match="there is no game 9999 in the archive"),
        archive(db, readonly=True) as opened,
    ):
        delete_games(opened, [1, 9999])
    outcome = runner.invoke(app, ["delete", "1", "9998", "9999", "--db", str(db), "--yes"])
    assert outcome.exit_code == 1
    assert per_game_rows(db) == before


def test_naming_no_game_is_a_usage_error(db, runner):
    outcome = runner.invoke(app, ["delete", "--db", str(db), "--yes"])
    assert outcome.exit_code == 2
    assert "name the games" in outcome.output
    with pytest.raises(ArchiveError, match="name the games"), archive(db, readonly=True) as opened:
        matching_games(opened)


def test_delete_asks_first_and_no_keeps_everything(db, runner):
    before = per_game_rows(db)
    outcome = runner.invoke(app, ["delete", "--db", str(db), "--game", "connect4"], input="n\n")
    assert outcome.exit_code == 1
    count = sum(1 for _ in rows(db, "SELECT id FROM games WHERE game = 'connect4'"))
    assert f"delete {count} games from" in outcome.output
    assert "nothing deleted" in outcome.output
    assert per_game_rows(db) == before
    outcome = runner.invoke(app, ["delete", "--db", str(db), "--game", "connect4"], input="")
    assert outcome.exit_code == 1 and per_game_rows(db) == before  # nobody answered
    outcome = runner.invoke(app, ["delete", "--db", str(db), "--game", "connect4"], input="y\n")
    assert outcome.exit_code == 0, outcome.output
    assert f"deleted {count} games" in outcome.output
    assert rows(db, "SELECT count(*) FROM games WHERE game = 'connect4'") == [(0,)]


def test_filters_matching_nothing_delete_nothing(db, runner):
    outcome = runner.invoke(app, ["delete", "--db", str(db), "--event", "no such event", "--json"])
    assert outcome.exit_code == 0
    assert json.loads(outcome.stdout) == {
        "games": [],
        "positions": 0,
        "problems": 0,
        "variation_positions": 0,
    }


def test_a_deletion_that_fails_half_way_leaves_every_row(db):
    before = per_game_rows(db)
    last = max(before)
    with sqlite3.connect(db) as conn:
        conn.execute(
            f"CREATE TRIGGER refuse BEFORE DELETE ON games WHEN old.id = {last} "
            "BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    with (
        pytest.raises(ArchiveError, match="refused"),
        archive(db, readonly=True) as opened,
    ):  # the archive names the error
        delete_games(opened, [1, 2, last])
    assert per_game_rows(db) == before


def test_deleting_uses_the_game_indexes(db):
    conn = open_archive(db).conn
    for table, index in (("game_positions", "PRIMARY KEY"), ("problems", "problems_game")):
        plan = " ".join(
            row[-1]
            for row in conn.execute(f"EXPLAIN QUERY PLAN DELETE FROM {table} WHERE game_id = 1")
        )
        assert index in plan, plan
    conn.close()


# -- tag set / unset ------------------------------------------------------------------------------


def fresh_import_row(text: str, tmp_path: Path) -> tuple:
    """The row a fresh import of ``text`` stores (what a tag change must equal)."""
    source = tmp_path / "fresh.pgr"
    source.write_text(text, encoding="utf-8")
    target = tmp_path / "fresh.db"
    with archive(target) as opened:
        import_paths(opened, [source])
    [row] = rows(target, f"SELECT {ROW} FROM games")
    target.unlink()
    return row


def first_valid(db: Path, game: str) -> int:
    return rows(db, "SELECT min(id) FROM games WHERE game = ? AND status = 'valid'", (game,))[0][0]


@pytest.mark.parametrize("game", GAMES)
def test_setting_a_tag_stores_the_record_as_an_import_would(db, runner, game, tmp_path):
    game_id = first_valid(db, game)
    [(old_hash, old_twin)] = rows(db, "SELECT hash, twin_key FROM games WHERE id = ?", (game_id,))
    outcome = runner.invoke(
        app, ["tag", "set", str(game_id), "Event", 'Zoë\'s "open"', "--db", str(db), "--json"]
    )
    assert outcome.exit_code == 0, outcome.output
    change = json.loads(outcome.stdout)
    assert change["after"] == 'Zoë\'s "open"' and change["status"] == "valid"
    [row] = rows(db, f"SELECT {ROW} FROM games WHERE id = ?", (game_id,))
    stored = dict(zip([name.strip() for name in ROW.split(",")], row, strict=True))
    assert stored["event"] == 'Zoë\'s "open"'
    assert '[Event "Zoë\'s \\"open\\""]' in stored["pgr"]
    assert stored["hash"] == hashlib.sha256(stored["pgr"].encode()).hexdigest() != old_hash
    assert stored["twin_key"] == old_twin  # another Event: the same game on the board
    [record] = read_records(io.StringIO(stored["pgr"]))
    assert write_record(record) == stored["pgr"]  # canonical
    assert fresh_import_row(stored["pgr"], tmp_path) == row
    assert change["hash"] == stored["hash"]


@pytest.mark.parametrize("game", GAMES)
def test_adding_then_removing_a_tag_gives_the_record_back(db, game):
    game_id = first_valid(db, game)
    before = rows(db, f"SELECT {ROW} FROM games WHERE id = ?", (game_id,))
    positions = rows(db, "SELECT * FROM positions WHERE game_id = ? ORDER BY ply", (game_id,))
    with archive(db, readonly=True) as opened:
        added = set_tag(opened, game_id, "Annotator", "Ada")
    assert added.before is None and added.changed
    [(pgr,)] = rows(db, "SELECT pgr FROM games WHERE id = ?", (game_id,))
    assert '[Annotator "Ada"]' in pgr
    with archive(db, readonly=True) as opened:
        removed = unset_tag(opened, game_id, "Annotator")
    assert removed.before == "Ada" and removed.after is None
    assert rows(db, f"SELECT {ROW} FROM games WHERE id = ?", (game_id,)) == before
    assert (
        rows(db, "SELECT * FROM positions WHERE game_id = ? ORDER BY ply", (game_id,)) == positions
    )


def test_fixing_the_tag_of_an_invalid_record_makes_it_valid(db, tmp_path):
    [(game_id,)] = rows(db, "SELECT id FROM games WHERE source_file LIKE '%bad-date.pgr'")
    assert rows(db, "SELECT status FROM games WHERE id = ?", (game_id,)) == [("invalid",)]
    assert rows(db, "SELECT count(*) FROM problems WHERE game_id = ?", (game_id,)) == [(1,)]
    with archive(db, readonly=True) as opened:
        change = set_tag(opened, game_id, "Date", "2024.03.05")
    assert change.before == "2024-03-05" and change.status == "valid"
    [row] = rows(db, f"SELECT {ROW} FROM games WHERE id = ?", (game_id,))
    assert rows(db, "SELECT count(*) FROM problems WHERE game_id = ?", (game_id,)) == [(0,)]
    assert fresh_import_row(row[ROW.split(", ").index("pgr")], tmp_path) == row
    assert row[ROW.split(", ").index("date_min")] == "2024.03.05"


def test_a_change_that_breaks_a_valid_game_is_refused_and_changes_nothing(db, runner):
    game_id = first_valid(db, "forza4x4")
    before = rows(db, f"SELECT {ROW} FROM games WHERE id = ?", (game_id,))
    [(result,)] = rows(db, "SELECT result FROM games WHERE id = ?", (game_id,))
    assert result in ("1-0", "0-1")
    other = "0-1" if result == "1-0" else "1-0"
    outcome = runner.invoke(app, ["tag", "set", str(game_id), "Result", other, "--db", str(db)])
    assert outcome.exit_code == 1
    assert f"setting Result to '{other}' would make the game invalid" in str(outcome.exception)
    with (
        pytest.raises(ArchiveError, match="removing Game would make the game invalid"),
        archive(db, readonly=True) as opened,
    ):
        unset_tag(opened, game_id, "Game")
    assert rows(db, f"SELECT {ROW} FROM games WHERE id = ?", (game_id,)) == before


def test_setting_result_changes_the_result_token_too(tmp_path):
    source = tmp_path / "open.pgr"
    source.write_text('[Game "forza4x4"]\n[Result "*"]\n\n1. t4 t4 2. t4 *\n', encoding="utf-8")
    target = tmp_path / "open.db"
    with archive(target) as opened:
        import_paths(opened, [source])
    with archive(target, readonly=True) as opened:
        change = set_tag(opened, 1, "Result", "1/2-1/2")
    assert change.status == "valid"
    [(pgr, result)] = rows(target, "SELECT pgr, result FROM games")
    assert pgr.rstrip().endswith("1/2-1/2") and result == "1/2-1/2"
    assert '[Result "1/2-1/2"]' in pgr


def test_a_change_that_makes_two_records_one_is_refused(tmp_path):
    source = tmp_path / "two.pgr"
    source.write_text(
        '[Game "forza4x4"]\n[Event "A"]\n[Result "*"]\n\n1. t4 *\n\n'
        '[Game "forza4x4"]\n[Event "B"]\n[Result "*"]\n\n1. t4 *\n',
        encoding="utf-8",
    )
    target = tmp_path / "two.db"
    with archive(target) as opened:
        import_paths(opened, [source])
    with (
        pytest.raises(ArchiveError, match="game 2 would become the same record as game 1"),
        archive(target, readonly=True) as opened,
    ):
        set_tag(opened, 2, "Event", "A")
    assert rows(target, "SELECT event FROM games ORDER BY id") == [("A",), ("B",)]


def test_tag_mistakes_are_one_clear_line(db, runner):
    cases = [
        (["tag", "set", "1", "bad name", "x"], "tag name 'bad name' is not a letter"),
        (["tag", "set", "9999", "Event", "x"], "there is no game 9999 in the archive"),
        (["tag", "unset", "1", "NoSuchTag"], "game 1 has no tag NoSuchTag"),
    ]
    for args, message in cases:
        outcome = runner.invoke(app, [*args, "--db", str(db)])
        assert outcome.exit_code == 1
        assert message in str(outcome.exception)
    unchanged = runner.invoke(
        app, ["tag", "set", "1", "Game", "circular-reasoning", "--db", str(db)]
    )
    assert unchanged.exit_code == 0 and "unchanged" in unchanged.output


def test_a_tag_change_that_fails_half_way_changes_nothing(db):
    game_id = first_valid(db, "forza4x4")
    before = rows(db, f"SELECT {ROW} FROM games WHERE id = ?", (game_id,))
    positions = rows(db, "SELECT count(*) FROM positions WHERE game_id = ?", (game_id,))
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON positions "
            "BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    with (
        pytest.raises(ArchiveError, match="refused"),
        archive(db, readonly=True) as opened,
    ):  # the archive names the error
        set_tag(opened, game_id, "Event", "Elsewhere")
    assert rows(db, f"SELECT {ROW} FROM games WHERE id = ?", (game_id,)) == before
    assert rows(db, "SELECT count(*) FROM positions WHERE game_id = ?", (game_id,)) == positions


def test_an_exported_changed_game_imports_as_the_same_record(db, tmp_path):
    game_id = first_valid(db, "universal-forces")
    with archive(db, readonly=True) as opened:
        set_tag(opened, game_id, "Round", "7")
    stream = io.StringIO()
    with archive(db, readonly=True) as opened:
        assert export_games(opened, stream, tags=["Round=7"]) >= 1
    again = tmp_path / "again.db"
    source = tmp_path / "export.pgr"
    source.write_text(stream.getvalue(), encoding="utf-8")
    with archive(again) as opened:
        import_paths(opened, [source])
    [(digest,)] = rows(db, "SELECT hash FROM games WHERE id = ?", (game_id,))
    assert (digest,) in rows(again, "SELECT hash FROM games")


def test_the_real_command_says_one_line_and_exits_1(db):
    """`partita tag` and `partita delete` as a shell runs them: one line, no traceback."""
    for args, line in (
        (
            ["tag", "set", "9999", "Event", "x"],
            "partita: error: there is no game 9999 in the archive",
        ),
        (["delete", "9999", "--yes"], "partita: error: there is no game 9999 in the archive"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "partita", *args, "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert (done.returncode, done.stderr.splitlines()) == (1, [line])
