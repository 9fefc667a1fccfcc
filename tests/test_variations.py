"""Variations indexed for position search (schema version 5): replay numbers the
variations in reading order, the import (both modes), tag changes, deletion, merge
and the migration keep ``variation_positions`` true, position search finds a
position reached only in a variation and says so, ``--mainline-only`` does not, and
the mainline readers (tree, twins, opening names) are unchanged by variations."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_runner import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hash_key import as_version_5
from test_query_output import on_a_terminal

from partita.bulk import import_paths
from partita.database import SCHEMA_VERSION, query_games
from partita.database.filters import GameFilter
from partita.database.maintenance import delete_games, set_tag, unset_tag
from partita.database.merge import merge_archive
from partita.database.schema import archive, migrate_archive, open_archive
from partita.database.selection import first_plies_at
from partita.database.twins import find_twins
from partita.errors import ArchiveError
from partita.game.registry import get_game
from partita.notation.reader import parse_record, read_records
from partita.notation.replay import replay

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
#: Every game's examples folder.
FOLDERS = {
    "forza4x4": "forza4x4",
    "connect4": "connect4",
    "universal-forces": "universal-forces",
    "circular-reasoning": "circular-reasoning",
    "forceball": "forceball",
}


# -- replay: the variations in reading order ----------------------------------------------


def forza(movetext: str) -> str:
    return f'[Game "forza4x4"]\n[Result "*"]\n\n{movetext} *\n'


def test_replay_numbers_variations_in_reading_order_nested_ones_where_they_open():
    replayed = replay(
        parse_record(forza("1. t4 r5 (1... l2 2. t1 (2. t8) 2... b8) (1... l7) 2. r5"))
    )
    assert replayed.problems == []
    lines = [(line.plies_before, line.moves) for line in replayed.variations]
    assert lines == [(1, ["l2", "t1", "b8"]), (2, ["t8"]), (1, ["l7"])]
    # A variation's keys are those of the mainline that plays its moves.
    promoted = replay(parse_record(forza("1. t4 l2 2. t1 b8")))
    assert replayed.variations[0].keys == promoted.keys[1:]
    nested = replay(parse_record(forza("1. t4 l2 2. t8")))
    assert replayed.variations[1].keys == nested.keys[2:]


def test_an_illegal_move_ends_its_variation_and_nested_ones_still_count():
    # b5 slides to the top: t5 is then occupied. (l1) replaces t5 and is legal.
    replayed = replay(parse_record(forza("1. t4 r5 (1... b5 2. t5 (2. l1) 2... t6) 2. r5")))
    assert [problem.message for problem in replayed.problems] == [
        "illegal move 't5': entry cell t5 is occupied"
    ]
    assert [(line.plies_before, line.moves) for line in replayed.variations] == [
        (1, ["b5"]),
        (2, ["l1"]),
    ]


def test_a_variation_whose_first_move_is_illegal_keeps_its_number_without_plies():
    text = (EXAMPLES / "invalid" / "illegal-move-in-variation.pgr").read_text(encoding="utf-8")
    replayed = replay(parse_record(text))
    assert [(line.plies_before, line.moves) for line in replayed.variations] == [(1, [])]


def test_validation_without_keys_collects_no_variation_plies():
    replayed = replay(parse_record(forza("1. t4 r5 (1... l2) 2. r5")), keys=False)
    assert replayed.variations == [] and replayed.problems == []


@st.composite
def forza_trees(draw) -> tuple[str, list[list[str]]]:
    """A Forza 4x4 record with random variations (some nested), and for every
    variation in reading order the whole line of moves a reader follows to its end
    (the mainline before it, then its own moves)."""
    notation = get_game("forza4x4")
    rules = notation.rules
    variations: list[list[str]] = []

    def line(state, before: list[str], length: int, depth: int) -> tuple[str, list[str]]:
        """The text of a line of up to ``length`` moves from ``state`` (reached by
        ``before``) and its own moves."""
        words: list[str] = []
        played = list(before)
        for _ in range(length):
            legal = [notation.format_move(state, move) for move in rules.legal_moves(state)]
            if not legal or rules.outcome(state) is not None:
                break
            token = draw(st.sampled_from(sorted(legal)))
            words.append(token)
            others = [other for other in legal if other != token]
            if depth < 2 and others and draw(st.integers(0, 3)) == 0:
                alternative = draw(st.sampled_from(sorted(others)))
                index = len(variations)
                variations.append([])  # numbered where its "(" opens
                start = rules.apply(state, notation.parse_move(state, alternative))
                text, own = line(start, [*played, alternative], draw(st.integers(0, 3)), depth + 1)
                variations[index] = [*played, alternative, *own]
                words.append(f"({alternative} {text})".replace(" )", ")"))
            state = rules.apply(state, notation.parse_move(state, token))
            played.append(token)
        return " ".join(words), played[len(before) :]

    movetext, _ = line(rules.initial(), [], draw(st.integers(1, 10)), 0)
    return forza(movetext), variations


@settings(max_examples=40, deadline=None)
@given(forza_trees())
def test_each_variation_reaches_what_the_mainline_playing_its_line_reaches(tree):
    text, lines = tree
    replayed = replay(parse_record(text))
    # The mainline may end in four in a row, which the record's "*" then contradicts.
    assert [problem for problem in replayed.problems if problem.kind != "wrong-result"] == []
    assert len(replayed.variations) == len(lines) == text.count("(")
    for variation, moves in zip(replayed.variations, lines, strict=True):
        promoted = replay(parse_record(forza(" ".join(moves))))
        assert variation.plies_before + len(variation.moves) == len(moves)
        assert variation.moves == moves[variation.plies_before :]
        assert variation.keys == promoted.keys[variation.plies_before :]


# -- a record with a variation for every game -------------------------------------------------


def record_with_variation(game: str, plies: int = 8, at: int = 4) -> tuple[str, str, str, int]:
    """A record of ``game`` made from one of its examples: its tags (result ``*``),
    its first ``plies`` plies, and a two-ply variation replacing ply ``at`` or a
    later one; the text, the text without the variation, the notation of the
    position the variation ends on (which the mainline never reaches) and its ply."""
    replayed = None
    for path in sorted((EXAMPLES / FOLDERS[game]).glob("*.pgr")):
        with path.open(encoding="utf-8") as handle:
            for record in read_records(handle, name=str(path)):
                candidate = replay(record)
                if candidate.valid and len(candidate.moves) >= plies + 2:
                    replayed = candidate
                    break
        if replayed is not None:
            break
    assert replayed is not None and replayed.game is not None
    notation, rules = replayed.game, replayed.game.rules
    moves, keys = replayed.moves[:plies], set(replayed.keys[:plies])
    for ply in range(at, plies):
        before = replayed.states[ply - 2] if ply >= 2 else replayed.initial_state
        for move in rules.legal_moves(before):
            token = notation.format_move(before, move)
            after = rules.apply(before, move)
            if token == moves[ply - 1] or rules.key(after) in keys or rules.outcome(after):
                continue
            follow = rules.legal_moves(after)
            if not follow:
                continue
            end = rules.apply(after, follow[0])
            if rules.key(end) in keys:
                continue
            variation = f"({token} {notation.format_move(after, follow[0])})"
            tags = {name: value for name, value in replayed.record.tags.items()}
            tags.pop("Termination", None)
            tags["Result"] = "*"
            header = "".join(f'[{name} "{value}"]\n' for name, value in tags.items())
            words = [*moves[:ply], variation, *moves[ply:], "*"]
            plain = [*moves, "*"]
            return (
                header + "\n" + " ".join(words) + "\n",
                header + "\n" + " ".join(plain) + "\n",
                notation.format_position(end),
                ply + 1,
            )
    raise AssertionError(f"no variation found for {game}")


@pytest.fixture(scope="module")
def hand_made(tmp_path_factory) -> tuple[Path, dict[str, tuple[int, str, int]]]:
    """An archive of one record per game with a variation, each after one copy of
    the same record without it (game ids 1, 2 per game, in FOLDERS order); per game
    (the id of the one with the variation, the position only it reaches, the ply)."""
    folder = tmp_path_factory.mktemp("variations")
    texts, found = [], {}
    for number, game in enumerate(FOLDERS):
        text, plain, position, ply = record_with_variation(game)
        texts += [plain, text]
        found[game] = (2 * number + 2, position, ply)
    (folder / "games.pgr").write_text("\n".join(texts), encoding="utf-8")
    with archive(folder / "games.db") as opened:
        summary = import_paths(opened, [folder / "games.pgr"])
    assert summary.imported == len(texts) and summary.invalid == 0
    return folder / "games.db", found


def rows(path: Path, sql: str, params: tuple = ()) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


@pytest.mark.parametrize("game", FOLDERS)
def test_a_position_reached_only_in_a_variation_is_found_and_flagged(hand_made, game):
    path, found = hand_made
    game_id, position, ply = found[game]
    with archive(path, readonly=True) as opened:
        hits = query_games(opened, game=game, position=position)
    assert [(row["id"], row["found"], row["variation"], row["ply"]) for row in hits] == [
        (game_id, "variation", 1, ply)
    ]
    with archive(path, readonly=True) as opened:
        assert query_games(opened, game=game, position=position, mainline_only=True) == []


@pytest.mark.parametrize("game", FOLDERS)
def test_the_variation_rows_are_the_two_plies_of_the_variation(hand_made, game):
    path, found = hand_made
    game_id, _position, ply = found[game]
    stored = rows(
        path,
        "SELECT game_id, ply, line, next_move IS NULL FROM variation_positions "
        "WHERE game_id IN (?, ?) ORDER BY ply",
        (game_id - 1, game_id),
    )
    assert stored == [(game_id, ply - 1, 1, 0), (game_id, ply, 1, 1)]


def test_a_mainline_position_is_found_in_the_mainline_first(hand_made):
    path, found = hand_made
    game_id = found["forza4x4"][0]
    record = parse_record(rows(path, "SELECT pgr FROM games WHERE id = ?", (game_id,))[0][0])
    replayed = replay(record)
    assert replayed.game is not None
    position = replayed.game.format_position(replayed.states[1])
    with archive(path, readonly=True) as opened:
        hits = query_games(opened, game="forza4x4", position=position)
    assert {(row["found"], row["variation"], row["ply"]) for row in hits} == {("mainline", None, 2)}
    assert {row["id"] for row in hits} == {game_id - 1, game_id}


def query(path: Path, *args: str) -> tuple[int, str, str]:
    return run_cli(["query", "--db", str(path), *args])


def test_every_output_format_flags_how_the_game_was_found(hand_made):
    path, found = hand_made
    game_id, position, ply = found["connect4"]
    where = ["--game", "connect4", "--position", position]
    code, out, err = query(path, *where, "--json")
    assert code == 0, err
    [row] = json.loads(out)
    assert (row["id"], row["found"], row["variation"], row["ply"]) == (game_id, "variation", 1, ply)
    code, out, _ = query(path, *where, "--nl")
    assert [json.loads(line)["found"] for line in out.splitlines()] == ["variation"]
    for option, delimiter in (("--csv", ","), ("--tsv", "\t")):
        code, out, _ = query(path, *where, option)
        table = list(csv.reader(io.StringIO(out), delimiter=delimiter))
        assert table[0][-3:] == ["ply", "found", "variation"]
        assert table[1][0] == str(game_id) and table[1][-3:] == [str(ply), "variation", "1"]
    code, out, _ = query(path, *where)  # piped: the plain table
    header, line = out.splitlines()
    assert header.split()[-3:] == ["ply", "found", "variation"]
    assert line.split()[0] == str(game_id) and line.split()[-3:] == [str(ply), "variation", "1"]
    code, out, err = query(path, *where, "--mainline-only", "--csv")
    assert code == 0 and out.splitlines() == [",".join(table[0])]


def test_the_terminal_table_has_a_found_column(hand_made):
    path, found = hand_made
    _game_id, position, _ply = found["forza4x4"]
    out = on_a_terminal("query", "--db", str(path), "--game", "forza4x4", "--position", position)
    assert "found" in out and "var. 1" in out


def test_export_by_position_takes_a_variation_unless_mainline_only(hand_made, tmp_path):
    path, found = hand_made
    game_id, position, _ply = found["universal-forces"]
    where = ["export", "--db", str(path), "--game", "universal-forces", "--position", position]
    code, out, err = run_cli([*where, "--format", "csv"])
    assert code == 0, err
    assert [row[0] for row in csv.reader(io.StringIO(out))][1:] == [str(game_id)]
    code, out, err = run_cli([*where, "--format", "csv", "--mainline-only"])
    assert code == 0 and [row[0] for row in csv.reader(io.StringIO(out))][1:] == []


def test_position_search_by_variation_follows_the_key_index(hand_made):
    path, found = hand_made
    _game_id, position, _ply = found["forza4x4"]
    db = open_archive(path, readonly=True)
    try:
        for mainline_only in (False, True):
            joins, where, params = GameFilter(
                games="forza4x4", position=position, mainline_only=mainline_only
            ).sql()
            plan = " | ".join(
                row[-1]
                for row in db.execute(
                    f"EXPLAIN QUERY PLAN SELECT g.id FROM {joins} WHERE {where}", params
                )
            )
            assert "SEARCH p USING PRIMARY KEY (key=?)" in plan
            assert ("SEARCH v USING PRIMARY KEY (key=?)" in plan) is not mainline_only
            assert "SCAN p" not in plan and "SCAN v" not in plan
            assert "variation_positions_game" not in plan and "positions_game" not in plan
    finally:
        db.close()


def test_the_table_keys_and_indexes(tmp_path):
    db = open_archive(tmp_path / "a.db").db
    try:
        assert db["variation_positions"].pks == ["key", "game_id", "line", "ply"]
        assert "WITHOUT ROWID" in db["variation_positions"].schema
        indexes = db["variation_positions"].indexes
        assert [index.columns for index in indexes if not index.name.startswith("sqlite_")] == [
            ["game_id"]
        ]
    finally:
        db.close()


# -- the mainline readers are unchanged by variations ------------------------------------------


def without_variation_rows(path: Path, tmp_path: Path) -> Path:
    """A copy of the archive whose variation_positions table is empty."""
    copy = tmp_path / "bare.db"
    shutil.copy(path, copy)
    connection = sqlite3.connect(copy)
    connection.execute("DELETE FROM variation_positions")
    connection.commit()
    connection.close()
    return copy


@pytest.fixture(scope="module")
def examples_archive(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("examples") / "examples.db"
    with archive(path) as opened:
        import_paths(opened, [EXAMPLES])
    return path


def test_the_examples_have_variation_rows_in_the_gravity_games(examples_archive):
    games = dict(
        rows(
            examples_archive,
            "SELECT g.game, count(DISTINCT v.game_id) FROM variation_positions v "
            "JOIN games g ON g.id = v.game_id GROUP BY g.game",
        )
    )
    assert games.keys() == {"forza4x4", "connect4"} and min(games.values()) >= 5


@pytest.mark.parametrize("game", ["forza4x4", "connect4"])
def test_tree_twins_and_openings_do_not_read_the_variations(examples_archive, tmp_path, game):
    bare = without_variation_rows(examples_archive, tmp_path)
    for path_args in ([], ["--depth", "4", "--min-games", "2"]):
        results = []
        for path in (examples_archive, bare):
            code, out, err = run_cli(
                ["tree", "--db", str(path), "--game", game, *path_args, "--json"]
            )
            assert code == 0, err
            results.append(json.loads(out))
        assert results[0] == results[1]
    for fuzzy in (None, 2, 6):
        with (
            archive(examples_archive, readonly=True) as opened1,
            archive(bare, readonly=True) as opened2,
        ):
            assert find_twins(opened1, fuzzy_depth=fuzzy, game=game) == find_twins(
                opened2, fuzzy_depth=fuzzy, game=game
            )
    with (
        archive(examples_archive, readonly=True) as opened1,
        archive(bare, readonly=True) as opened2,
    ):
        assert [row["opening"] for row in query_games(opened1, game=game)] == [
            row["opening"] for row in query_games(opened2, game=game)
        ]


def test_the_tree_from_a_position_only_a_variation_reaches_has_no_game(hand_made):
    path, found = hand_made
    _game_id, position, _ply = found["forza4x4"]
    db = open_archive(path, readonly=True)
    try:
        assert list(first_plies_at(db, position, "forza4x4")) == []
    finally:
        db.close()
    code, out, err = run_cli(
        ["tree", "--db", str(path), "--game", "forza4x4", "--position", position, "--json"]
    )
    # The tree's position filter reads the mainline: no game is selected.
    assert code == 0, err
    assert json.loads(out)["games"] == 0
    with archive(path, readonly=True) as opened:
        assert query_games(opened, game="forza4x4", position=position) != []


# -- writers keep the rows true ------------------------------------------------------------


def variation_dump(path: Path) -> set[tuple]:
    """Each variation row by its game's content hash (ids left out)."""
    return set(
        rows(
            path,
            "SELECT g.hash, v.key, v.ply, v.line, v.move, v.next_move FROM variation_positions v "
            "JOIN games g ON g.id = v.game_id",
        )
    )


def orphans(path: Path) -> list[tuple]:
    return rows(
        path,
        "SELECT v.game_id FROM variation_positions v LEFT JOIN games g ON g.id = v.game_id "
        "WHERE g.id IS NULL",
    )


def test_a_bulk_import_stores_the_rows_a_batched_one_does(examples_archive, tmp_path):
    bulk = tmp_path / "bulk.db"
    with archive(bulk) as opened:
        import_paths(opened, [EXAMPLES], bulk=True)
    assert variation_dump(bulk) == variation_dump(examples_archive)
    assert len(variation_dump(bulk)) > 100


def test_a_parallel_import_stores_the_rows_a_serial_one_does(examples_archive, tmp_path):
    parallel = tmp_path / "parallel.db"
    with archive(parallel) as opened:
        import_paths(opened, [EXAMPLES], workers=2)
    assert rows(parallel, "SELECT * FROM variation_positions ORDER BY game_id, line, ply") == rows(
        examples_archive, "SELECT * FROM variation_positions ORDER BY game_id, line, ply"
    )


def test_deleting_games_deletes_their_rows_only(examples_archive, tmp_path):
    path = tmp_path / "a.db"
    shutil.copy(examples_archive, path)
    ids = [row[0] for row in rows(path, "SELECT DISTINCT game_id FROM variation_positions")]
    before = rows(path, "SELECT count(*) FROM variation_positions WHERE game_id != ?", (ids[0],))
    with archive(path, readonly=True) as opened:
        deletion = delete_games(opened, [ids[0]])
    assert deletion.variation_positions > 0
    assert rows(path, "SELECT count(*) FROM variation_positions") == before
    assert orphans(path) == []


def test_tag_changes_keep_the_rows(examples_archive, tmp_path):
    path = tmp_path / "a.db"
    shutil.copy(examples_archive, path)
    game_id = rows(path, "SELECT min(game_id) FROM variation_positions")[0][0]
    kept = rows(
        path,
        "SELECT key, ply, line, move, next_move FROM variation_positions WHERE game_id = ? "
        "ORDER BY line, ply",
        (game_id,),
    )
    with archive(path, readonly=True) as opened:
        set_tag(opened, game_id, "Event", "Renamed")
    with archive(path, readonly=True) as opened:
        set_tag(opened, game_id, "Annotator", "Zoë")
    with archive(path, readonly=True) as opened:
        unset_tag(opened, game_id, "Annotator")
    again = rows(
        path,
        "SELECT key, ply, line, move, next_move FROM variation_positions WHERE game_id = ? "
        "ORDER BY line, ply",
        (game_id,),
    )
    assert again == kept and kept


def test_a_merge_copies_the_rows_with_the_new_ids(examples_archive, tmp_path):
    target = tmp_path / "target.db"
    (tmp_path / "one.pgr").write_text(forza("1. t4 r5 (1... l2) 2. r5"), encoding="utf-8")
    with archive(target) as opened:
        import_paths(opened, [tmp_path / "one.pgr"])
    with archive(target) as opened:
        merged = merge_archive(opened, examples_archive)
    assert merged.variation_positions == len(variation_dump(examples_archive))
    assert variation_dump(target) == variation_dump(examples_archive) | variation_dump_of_one(
        tmp_path
    )
    assert orphans(target) == []


def variation_dump_of_one(tmp_path: Path) -> set[tuple]:
    alone = tmp_path / "alone.db"
    with archive(alone) as opened:
        import_paths(opened, [tmp_path / "one.pgr"])
    return variation_dump(alone)


def as_version_4(source: Path, copy: Path) -> Path:
    """A copy of an archive as partita wrote it before version 5."""
    shutil.copy(source, copy)
    connection = sqlite3.connect(copy)
    connection.execute("DROP TABLE variation_positions")
    as_version_5(connection)
    connection.execute("DELETE FROM schema_version WHERE version >= 5")
    connection.commit()
    connection.close()
    return copy


def test_a_merge_from_a_version_4_archive_computes_the_rows(examples_archive, tmp_path):
    older = as_version_4(examples_archive, tmp_path / "v4.db")
    target = tmp_path / "target.db"
    with archive(target) as opened:
        merge_archive(opened, older)
    assert variation_dump(target) == variation_dump(examples_archive)


def test_migrating_a_version_4_archive_fills_the_rows_a_fresh_import_has(
    examples_archive, tmp_path
):
    older = as_version_4(examples_archive, tmp_path / "v4.db")
    with pytest.raises(ArchiveError, match="schema version 4"):
        open_archive(older, readonly=True)
    calls: list[tuple[int, int]] = []
    assert migrate_archive(older, progress=lambda done, total: calls.append((done, total))) == (
        4,
        SCHEMA_VERSION,
    )
    assert rows(older, "SELECT * FROM variation_positions ORDER BY game_id, line, ply") == rows(
        examples_archive, "SELECT * FROM variation_positions ORDER BY game_id, line, ply"
    )
    games = rows(older, "SELECT count(*) FROM games")[0][0]
    assert calls and calls[-1] == (games, games)


def test_a_failing_migration_leaves_the_version_4_archive_as_it_was(
    examples_archive, tmp_path, monkeypatch
):
    older = as_version_4(examples_archive, tmp_path / "v4.db")
    before = older.read_bytes()

    def fail(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        migrate_archive(older, progress=fail)
    assert older.read_bytes() == before


def test_the_migrate_command_migrates_a_version_4_archive(examples_archive, tmp_path):
    older = as_version_4(examples_archive, tmp_path / "v4.db")
    code, out, err = run_cli(["migrate", "--db", str(older)])
    assert code == 0, err
    assert f"migrated from schema version 4 to {SCHEMA_VERSION}" in " ".join(out.split())
    assert variation_dump(older) == variation_dump(examples_archive)
