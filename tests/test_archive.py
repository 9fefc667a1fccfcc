"""The archive: schema and indexes, key folding, queries, fetch, export, round trips."""

from __future__ import annotations

import io
import random
import re
import sqlite3
from collections import Counter
from hashlib import blake2b
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlite_utils import Database

from partita.bulk import import_paths
from partita.database import (
    SCHEMA_VERSION,
    export_games,
    fold_key,
    game_problems,
    get_record,
    open_archive,
    query_games,
)
from partita.database.keys import encode_key, key_folder
from partita.database.prepare import date_bounds
from partita.database.schema import archive as opened_archive
from partita.errors import ArchiveError, NotationError, SetupError
from partita.game.registry import get_game
from partita.notation.reader import read_records

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


# -- schema ----------------------------------------------------------------------------------


def test_a_new_archive_has_the_tables_keys_and_indexes(tmp_path):
    db = open_archive(tmp_path / "a.db").db
    assert set(db.table_names()) == {
        "games", "positions", "problems", "book", "schema_version",
        "game_players", "game_tags", "variation_positions", "game_positions",
        "positions_pending",
    }  # fmt: skip
    assert db["game_players"].pks == ["game_id", "seat"]
    assert db["game_tags"].pks == ["game_id", "name"]
    assert {
        index.name: index.columns
        for index in db["game_tags"].indexes
        if not index.name.startswith("sqlite_")
    } == {
        "game_tags_value": ["name", "value"],
        "game_tags_number": ["name", "number"],
    }
    assert [
        index.columns
        for index in db["game_players"].indexes
        if not index.name.startswith("sqlite_")
    ] == [["folded"]]
    # game order: every writer appends; no other index of positions to keep
    assert db["game_positions"].pks == ["game_id", "ply"]
    for table in ("positions", "game_positions"):
        assert [i.name for i in db[table].indexes if not i.name.startswith("sqlite_")] == []
    assert db["games"].pks == ["id"]
    assert db["problems"].pks == ["id"]
    assert db["positions"].pks == ["key", "game_id", "ply"]
    assert "WITHOUT ROWID" in db["positions"].schema
    assert {(fk.column, fk.other_table, fk.other_column) for fk in db["problems"].foreign_keys} == {
        ("game_id", "games", "id")
    }
    assert {(fk.column, fk.other_table) for fk in db["positions"].foreign_keys} == {
        ("game_id", "games")
    }
    indexes = {index.name: (index.columns, index.unique) for index in db["games"].indexes}
    # The content hash is found through its integer key (migration 6), not a text index.
    assert indexes["games_hash_key"] == (["hash_key"], 0)
    assert "games_hash" not in indexes
    assert indexes["games_moves"] == (["moves"], 0)
    assert {index.name for index in db["problems"].indexes} >= {"problems_game"}
    columns = set(db["games"].columns_dict)
    assert columns >= {
        "game", "event", "site", "date", "round", "player1", "player2", "player3", "player4",
        "result", "termination", "sides", "plies", "status", "final_position", "tags", "pgr",
        "moves", "hash", "source_file", "source_index", "source_offset", "hash_key",
    }  # fmt: skip
    assert db.execute("SELECT version FROM schema_version").fetchall() == [
        (version,) for version in range(1, SCHEMA_VERSION + 1)
    ]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_reopening_applies_no_migration_twice(tmp_path):
    open_archive(tmp_path / "a.db").close()
    db = open_archive(tmp_path / "a.db").db
    assert db["schema_version"].count == SCHEMA_VERSION
    db.close()


def test_an_archive_from_a_newer_partita_is_refused(tmp_path):
    db = open_archive(tmp_path / "a.db").db
    db["schema_version"].insert({"version": SCHEMA_VERSION + 1, "description": "future"})
    db.close()
    with pytest.raises(ArchiveError, match="newer than this partita"):
        open_archive(tmp_path / "a.db")


def test_other_files_are_refused_as_archives(tmp_path):
    other = Database(tmp_path / "other.db")
    other["games"].insert({"name": "chess"})
    other.close()
    with pytest.raises(ArchiveError, match="not a partita archive"):
        open_archive(tmp_path / "other.db")
    (tmp_path / "notes.db").write_text("shopping list\n" * 200, encoding="utf-8")
    with pytest.raises(ArchiveError, match="notes.db"):
        open_archive(tmp_path / "notes.db")
    with (
        pytest.raises(ArchiveError, match="no archive at"),
        opened_archive(tmp_path / "missing.db", readonly=True) as opened,
    ):
        query_games(opened)
    assert not (tmp_path / "missing.db").exists()


# -- key folding ------------------------------------------------------------------------------


def test_fold_key_is_the_documented_blake2b_of_the_encoding():
    key = (1 << 128) | 0b1011  # a Forza 4x4 key: side bit, then pieces
    payload = key.to_bytes(17, "little", signed=True)
    data = b"forza4x4\x00i" + (17).to_bytes(4, "little") + payload
    expected = int.from_bytes(blake2b(data, digest_size=8).digest(), "little", signed=True)
    assert fold_key("forza4x4", key) == expected
    assert fold_key("forza4x4", 0) == int.from_bytes(
        blake2b(b"forza4x4\x00i\x01\x00\x00\x00\x00", digest_size=8).digest(), "little", signed=True
    )


def test_encoding_tells_apart_what_differs():
    values = [0, 1, -1, True, False, "1", b"1", (1,), ((1,),), (1, 2), ((1, 2),), ("a", "b"),
              ("ab",), None, (None,), 255, 256, -256]  # fmt: skip
    encodings = [encode_key(value) for value in values]
    assert len(set(encodings)) == len(values)
    assert fold_key("forza4x4", 5) != fold_key("connect4", 5)
    with pytest.raises(TypeError, match="position key"):
        encode_key(1.5)


keys = st.recursive(
    st.integers() | st.text() | st.binary() | st.booleans(),
    lambda children: st.tuples(children, children) | st.tuples(children),
    max_leaves=8,
)


@given(keys)
def test_the_fast_folder_agrees_with_fold_key(key):
    assert key_folder("forza4x4")(key) == fold_key("forza4x4", key)
    assert -(2**63) <= fold_key("forza4x4", key) < 2**63


def test_deep_tuple_keys_do_not_recurse():
    key: object = 0
    for _ in range(5000):
        key = (key,)
    assert isinstance(fold_key("x", key), int)


# -- a small archive built by hand ------------------------------------------------------------

# fmt: off
RECORDS = [
    # (Event, Player1, Player2, Date, Result, Termination, movetext)
    ("Spring Open", "Anna Rossi", "Bruno Bianchi", "2024.03.10", "*", None, "1. t4 r5 2. r5 t2 3. l8"),
    ("Spring Open", "Bruno Bianchi", "Carla Verdi", "2024.03.??", "0-1", "resignation", "1. t4 r5 2. t1"),
    ("Autumn Cup", "Zoë Müller", "anna rossi", "2023.10.05", "1/2-1/2", "agreement", "1. t4 t4 2. b1"),
    ("Autumn Cup", "Dario", "Elena", "????.??.??", "*", None, "1. r5 t4"),
    ("Broken", "Anna Rossi", "Elena", "2022.01.01", "*", None, "1. t4 b4 2. t5"),
]
# fmt: on
CONNECT4 = (
    '[Game "connect4"]\n[Event "Club night"]\n[Date "2024.??.??"]\n[Player1 "Anna"]\n'
    '[Player2 "Hugo"]\n[Result "*"]\n\n1. t4 t4 *\n'
)


def hand_text() -> str:
    texts = []
    for event, one, two, date, result, termination, movetext in RECORDS:
        ending = f'[Termination "{termination}"]\n' if termination else ""
        texts.append(
            f'[Game "forza4x4"]\n[Event "{event}"]\n[Date "{date}"]\n[Player1 "{one}"]\n'
            f'[Player2 "{two}"]\n[Result "{result}"]\n{ending}\n{movetext} {result}\n'
        )
    texts.append(CONNECT4)
    return "\n".join(texts)


@pytest.fixture
def hand_archive(tmp_path) -> Path:
    (tmp_path / "hand.pgr").write_text(hand_text(), encoding="utf-8")
    with opened_archive(tmp_path / "hand.db") as opened:
        summary = import_paths(opened, [tmp_path / "hand.pgr"])
    assert (summary.imported, summary.invalid) == (6, 1)
    return tmp_path / "hand.db"


def who(rows: list[dict]) -> list[tuple[str, str]]:
    """(event, first player) of each row: how the expectations name the records."""
    return [(row["event"], row["players"][0]) for row in rows]


A = ("Spring Open", "Anna Rossi")
B = ("Spring Open", "Bruno Bianchi")
C = ("Autumn Cup", "Zoë Müller")
D = ("Autumn Cup", "Dario")
F = ("Broken", "Anna Rossi")
E = ("Club night", "Anna")


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, [A, B, C, D, F, E]),
        ({"game": "connect4"}, [E]),
        ({"game": "forza4x4"}, [A, B, C, D, F]),
        ({"player": "anna"}, [A, C, F, E]),
        ({"player": "MÜLLER"}, [C]),
        ({"player": "elena"}, [D, F]),
        ({"result": "0-1"}, [B]),
        ({"result": "*", "game": "forza4x4"}, [A, D, F]),
        ({"event": "spring"}, [A, B]),
        ({"event": "CUP"}, [C, D]),
        ({"date_from": "2024", "date_to": "2024"}, [A, B, E]),
        ({"date_from": "2024.03", "date_to": "2024.03"}, [A, B]),
        ({"date_from": "2024.03.01", "date_to": "2024.03.15"}, [A]),
        ({"date_to": "2023.12.31"}, [C, F]),
        ({"date_from": "2023.10.05"}, [A, B, C, E]),
        ({"opening": "t4 r5"}, [A, B]),
        ({"opening": "t4"}, [A, B, C, F, E]),
        ({"opening": "t4", "game": "forza4x4"}, [A, B, C, F]),
        ({"opening": "T4 R5", "game": "forza4x4"}, [A, B]),
        ({"opening": "t4 r"}, []),
        ({"opening": "t4 r5 r5 t2 l8"}, [A]),
        ({"opening": "r5"}, [D]),
        ({"sides": 2}, [A, B, C, D, F, E]),
        ({"sides": 3}, []),
        ({"game": "forza4x4", "player": "anna", "opening": "t4"}, [A, C, F]),
        ({"limit": 2}, [A, B]),
    ],
)
def test_query_filters(hand_archive, filters, expected):
    with opened_archive(hand_archive, readonly=True) as opened:
        assert who(query_games(opened, **filters)) == expected


def test_query_rows_carry_the_summary_of_each_game(hand_archive):
    with opened_archive(hand_archive, readonly=True) as opened:
        (row,) = query_games(opened, event="broken")
    assert row["game"] == "forza4x4" and row["status"] == "invalid" and row["plies"] == 1
    assert row["players"] == ["Anna Rossi", "Elena"] and row["date"] == "2022.01.01"
    with opened_archive(hand_archive, readonly=True) as opened:
        (row,) = query_games(opened, opening="t4 r5 r5 t2 l8")
    assert row["status"] == "valid" and row["plies"] == 5 and row["result"] == "*"
    assert row["final_position"] == "8/8/8/1o6/ox6/8/8/2xx4 o"  # the spec's example
    assert "ply" not in row


def test_position_query_gives_the_ply_where_the_position_stood(hand_archive):
    with opened_archive(hand_archive, readonly=True) as opened:
        rows = query_games(opened, position="8/8/8/1o6/ox6/8/8/2xx4 o", game="forza4x4")
    assert who(rows) == [A] and rows[0]["ply"] == 5
    with opened_archive(hand_archive, readonly=True) as opened:
        after_t4 = query_games(opened, position="8/8/8/8/8/8/8/3x4 o")
    assert who(after_t4) == [A, B, C, F]
    assert [row["ply"] for row in after_t4] == [1, 1, 1, 1]
    with opened_archive(hand_archive, readonly=True) as opened:
        after_t4_t4 = query_games(opened, position="8/8/8/8/8/8/3o4/3x4 x")
    assert who(after_t4_t4) == [C] and after_t4_t4[0]["ply"] == 2
    with opened_archive(hand_archive, readonly=True) as opened:
        connect = query_games(opened, position="7/7/7/7/7/3x3 o")
    assert who(connect) == [E] and connect[0]["ply"] == 1
    with opened_archive(hand_archive, readonly=True) as opened:
        assert query_games(opened, position="8/8/8/8/8/8/8/x7 o", game="forza4x4") == []
    with opened_archive(hand_archive, readonly=True) as opened:
        assert who(query_games(opened, position="8/8/8/8/8/8/8/3x4 o", player="bruno")) == [A, B]


def test_bad_filters_are_errors_that_name_them(hand_archive):
    with (
        pytest.raises(NotationError, match="no position of any supported game"),
        opened_archive(hand_archive, readonly=True) as opened,
    ):
        query_games(opened, position="hello")
    with (
        pytest.raises((NotationError, SetupError), match="8/8/8 o"),
        opened_archive(hand_archive, readonly=True) as opened,
    ):
        query_games(opened, position="8/8/8 o", game="forza4x4")
    with (
        pytest.raises(NotationError, match="'z9'"),
        opened_archive(hand_archive, readonly=True) as opened,
    ):
        query_games(opened, opening="t4 z9", game="forza4x4")
    with (
        pytest.raises(ArchiveError, match="'2024/03'"),
        opened_archive(hand_archive, readonly=True) as opened,
    ):
        query_games(opened, date_from="2024/03")
    with (
        pytest.raises(ArchiveError, match="month 13"),
        opened_archive(hand_archive, readonly=True) as opened,
    ):
        query_games(opened, date_to="2024.13")


def query_plan(db_path: Path, **filters) -> str:
    """The query plan of the SQL query_games runs for these filters."""
    statements = []
    with opened_archive(db_path, readonly=True) as opened:
        execute = opened.execute

        def traced(sql, parameters=()):
            statements.append((sql, parameters))
            return execute(sql, parameters)

        opened.execute = traced  # the archive's statements, seen as they run
        query_games(opened, **filters)
        sql, params = next(
            (s, p) for s, p in statements if s.startswith("SELECT") and "FROM games" in s
        )
        plan = execute(f"EXPLAIN QUERY PLAN {sql}", params).fetchall()
    return "\n".join(row[-1] for row in plan)


def test_position_and_opening_queries_use_their_indexes(hand_archive):
    plan = query_plan(hand_archive, position="8/8/8/8/8/8/8/3x4 o", game="forza4x4")
    assert "SEARCH p USING PRIMARY KEY (key=?)" in plan
    assert "SCAN p" not in plan
    plan = query_plan(hand_archive, opening="t4 r5")
    assert "USING INDEX games_moves (moves>? AND moves<?)" in plan
    assert "SCAN g" not in plan


def test_date_bounds_cover_every_day_a_date_can_mean():
    assert date_bounds("2024.03.10") == ("2024.03.10", "2024.03.10")
    assert date_bounds("2024.02.??") == ("2024.02.01", "2024.02.29")
    assert date_bounds("2023.02.??") == ("2023.02.01", "2023.02.28")
    assert date_bounds("2024.??.??") == ("2024.01.01", "2024.12.31")
    assert date_bounds("????.03.10") == (None, None)
    assert date_bounds("10 March 2024") == (None, None)
    assert date_bounds(None) == (None, None)


# -- fetch and export -------------------------------------------------------------------------


def test_get_record_reads_back_the_stored_record(hand_archive):
    with opened_archive(hand_archive, readonly=True) as opened:
        (row,) = query_games(opened, opening="t4 r5 r5 t2 l8")
    with opened_archive(hand_archive, readonly=True) as opened:
        record = get_record(opened, row["id"])
    (original,) = [r for r in read_records(hand_text()) if r.tags.get("Date") == "2024.03.10"]
    assert record.same_game(original)
    assert record.source.file == f"archive:{row['id']}"
    with (
        pytest.raises(ArchiveError, match="no game 99"),
        opened_archive(hand_archive, readonly=True) as opened,
    ):
        get_record(opened, 99)


def test_problems_of_a_stored_invalid_game(hand_archive):
    with opened_archive(hand_archive, readonly=True) as opened:
        (row,) = query_games(opened, event="broken")
    with opened_archive(hand_archive, readonly=True) as opened:
        (problem,) = game_problems(opened, row["id"])
    assert problem["kind"] == "illegal-move" and problem["token"] == "b4"
    assert problem["ply"] == 2 and problem["severity"] == "error"
    assert "occupied" in problem["message"]


def test_export_writes_the_chosen_games_separated_by_blank_lines(hand_archive):
    stream = io.StringIO()
    with opened_archive(hand_archive, readonly=True) as opened:
        assert export_games(opened, stream, event="spring") == 2
    text = stream.getvalue()
    assert text.count('[Game "forza4x4"]') == 2 and "\n\n[Game" in text
    events = [record.tags["Event"] for record in read_records(text)]
    assert events == ["Spring Open", "Spring Open"]
    with opened_archive(hand_archive, readonly=True) as opened:
        assert export_games(opened, io.StringIO(), event="nothing like this") == 0


GAME_FIELDS = (
    "game, event, site, date, round, player1, player2, player3, player4, result, termination, "
    "sides, plies, status, final_position, date_min, date_max, tags, pgr, moves, hash"
)


def archive_content(db_path: Path) -> dict:
    """Everything an archive holds apart from ids, sources and problem places."""
    db = Database(db_path)
    content = {
        "games": Counter(db.execute(f"SELECT {GAME_FIELDS} FROM games").fetchall()),
        "positions": Counter(
            db.execute(
                "SELECT g.hash, p.ply, p.key FROM positions p JOIN games g ON g.id = p.game_id"
            ).fetchall()
        ),
        "problems": Counter(
            db.execute(
                "SELECT g.hash, p.kind, p.severity, p.ply, p.move_number, p.token, p.message "
                "FROM problems p JOIN games g ON g.id = p.game_id"
            ).fetchall()
        ),
    }
    db.close()
    return content


def round_trip(tmp_path: Path, sources: list[Path]) -> tuple[dict, dict]:
    with opened_archive(tmp_path / "first.db") as opened:
        first = import_paths(opened, sources)
    with opened_archive(tmp_path / "first.db") as opened:
        assert import_paths(opened, sources).imported == 0  # adds nothing
    with (
        (tmp_path / "export.pgr").open("w", encoding="utf-8", newline="\n") as stream,
        opened_archive(tmp_path / "first.db", readonly=True) as opened,
    ):
        assert export_games(opened, stream) == first.imported
    with opened_archive(tmp_path / "second.db") as opened:
        second = import_paths(opened, [tmp_path / "export.pgr"])
    assert second.imported == first.imported
    return archive_content(tmp_path / "first.db"), archive_content(tmp_path / "second.db")


def test_import_export_import_round_trips_generated_games(tmp_path):
    rng = random.Random(11)
    texts = [hand_text()]
    for number in range(30):
        tokens = []
        rules = get_game("forza4x4").rules
        state = rules.initial()
        while rules.outcome(state) is None and len(tokens) < rng.randint(5, 60):
            move = rng.choice(rules.legal_moves(state))
            tokens.append(move.notation())
            state = rules.apply(state, move)
        words = []
        for ply, token in enumerate(tokens):
            words += [f"{ply // 2 + 1}.", token] if ply % 2 == 0 else [token]
            if ply == 3 and number % 3 == 0:
                words.append("{a comment}")
        outcome = rules.outcome(state)
        result = outcome.result_token() if outcome else "*"
        texts.append(
            f'[Game "forza4x4"]\n[Event "gen {number}"]\n[Result "{result}"]\n\n'
            f"{' '.join(words)} {result}\n"
        )
    (tmp_path / "in.pgr").write_text("\n".join(texts), encoding="utf-8")
    first, second = round_trip(tmp_path, [tmp_path / "in.pgr"])
    assert first == second
    assert sum(first["positions"].values()) > 100


def test_import_export_import_round_trips_the_examples(tmp_path):
    if not any(EXAMPLES.rglob("*.pgr")):
        pytest.skip("no examples yet")
    first, second = round_trip(tmp_path, [EXAMPLES])
    # Bytes that are not UTF-8 are read as U+FFFD; the archive keeps text, so that
    # one problem cannot survive an export (docs/archive.md says so).
    for content in (first, second):
        lost = {game[-1] for game in content["games"] if "\ufffd" in game[18]}
        assert len(lost) == 1
        for table in ("games", "positions", "problems"):
            key = -1 if table == "games" else 0
            content[table] = Counter(
                {row: n for row, n in content[table].items() if row[key] not in lost}
            )
    assert first["problems"] == second["problems"]
    assert first["positions"] == second["positions"]
    assert first["games"] == second["games"]


def test_archive_functions_leave_the_archive_open_for_the_caller(tmp_path):
    (tmp_path / "hand.pgr").write_text(hand_text(), encoding="utf-8")
    opened = open_archive(tmp_path / "open.db")
    import_paths(opened, [tmp_path / "hand.pgr"])
    assert len(query_games(opened, game="forza4x4")) == 5
    assert opened.execute("SELECT count(*) FROM games").fetchone()[0] == 6  # still open
    opened.close()
    with pytest.raises(sqlite3.ProgrammingError):
        opened.execute("SELECT 1")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["hand.pgr", "open.db"]


#: The canonical token of ply ``p.ply`` of game ``g`` and the one played after it
#: (NULL after the last), in plain SQL from ``games.moves``, as docs/archive.md
#: writes them (no canonical token holds a quote, a backslash or a space).
MOVES_ARRAY_SQL = "'[\"' || replace(g.moves, ' ', '\",\"') || '\"]'"
MOVE_SQL = f"json_extract({MOVES_ARRAY_SQL}, '$[' || (p.ply - 1) || ']')"
NEXT_MOVE_SQL = f"json_extract({MOVES_ARRAY_SQL}, '$[' || p.ply || ']')"


def test_positions_know_the_move_played_from_them(hand_archive):
    forza = get_game("forza4x4")
    after_t4 = forza.parse_position("8/8/8/8/8/8/8/3x4 o")
    key = fold_key("forza4x4", forza.rules.key(after_t4))
    db = Database(hand_archive)
    rows = db.execute(
        f"SELECT g.event, p.ply, {MOVE_SQL}, {NEXT_MOVE_SQL} FROM positions p "
        "JOIN games g ON g.id = p.game_id WHERE p.key = ? ORDER BY g.id",
        (key,),
    ).fetchall()
    db.close()
    assert rows == [
        ("Spring Open", 1, "t4", "r5"),
        ("Spring Open", 1, "t4", "r5"),
        ("Autumn Cup", 1, "t4", "t4"),
        ("Broken", 1, "t4", None),  # b4 was illegal: the legal prefix ends here
    ]


def test_every_sql_example_of_the_archive_page_runs(hand_archive):
    page = (ROOT / "docs" / "archive.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sql\n(.*?)```", page, flags=re.S)
    assert len(blocks) >= 5
    db = Database(hand_archive)
    results = [db.execute(block).fetchall() for block in blocks]
    db.close()
    assert all(results), "every example finds something in the small archive"
