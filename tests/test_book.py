"""Opening books: an exact book agrees with the solver on every position it holds
and answers every position it covers through any symmetry; building is resumable
and the same with several workers; a statistics book counts the archive's moves."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from test_cli import EXAMPLES, partita

from partita.analysis.book import (
    EXACT,
    Book,
    BookSolver,
    build_exact_book,
    build_statistics_book,
)
from partita.bulk import import_paths
from partita.database import open_archive
from partita.database.schema import MIGRATIONS, SCHEMA_VERSION
from partita.database.schema import archive as opened_archive
from partita.game.registry import get_game
from partita.games.gravity.notation import GravityNotation
from partita.games.gravity.rules import GravityRules
from partita.games.gravity.solver import Solver

#: A small board with four symmetries (mirrors and the half turn: pieces enter
#: from the top and the bottom), and one without a square's.
SMALL = GravityNotation(GravityRules(4, 4, "tb", 4))
TOP = GravityNotation(GravityRules(5, 4, "t", 4))
DEPTH = 4


def rows(path: Path) -> list[tuple]:
    """The book's rows without what a build measures (nodes, seconds)."""
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT game, setup, kind, key, ply, position, score, moves, games, budget "
            "FROM book ORDER BY key"
        ).fetchall()


def reachable(game, depth: int) -> list:
    """Every position (not folded) up to ``depth`` plies from the start, not over."""
    rules = game.rules
    level, found = [rules.initial()], []
    for _ in range(depth + 1):
        found.extend(level)
        following = {}
        for state in level:
            for move in rules.legal_moves(state):
                child = rules.apply(state, move)
                if rules.outcome(child) is None:
                    following[rules.key(child)] = child
        level = list(following.values())
    return found


@pytest.fixture(scope="module")
def small_book(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("book") / "small.book"
    summary = build_exact_book(path, SMALL, DEPTH, solver=Solver, budget=None)
    assert summary.solved == summary.positions > 20 and summary.unsolved == 0
    assert summary.searched == summary.per_ply[-1]
    assert summary.backed_up == summary.positions - summary.per_ply[-1]
    return path


def test_the_book_agrees_with_the_solver_on_every_position_in_it(small_book):
    stored = rows(small_book)
    assert len(stored) == build_exact_book(small_book, SMALL, DEPTH, solver=Solver).positions
    solver = Solver(SMALL)
    for _, _, kind, _, ply, position, score, moves, _, _ in stored:
        assert kind == EXACT
        state = SMALL.parse_position(position)
        assert (state.x | state.o).bit_count() == ply
        solution = solver.solve(state)
        assert score == solution.score, position
        expected = [[SMALL.format_move(state, item.move), item.score] for item in solution.moves]
        assert json.loads(moves) == expected, position


def test_every_position_it_covers_is_answered_through_its_symmetry(small_book):
    solver = Solver(SMALL)
    with Book(small_book) as book:
        booked = BookSolver(Solver(SMALL), book, SMALL)
        positions = reachable(SMALL, DEPTH)
        assert len(positions) > len(rows(small_book))  # symmetric ones were folded
        for state in positions:
            direct = solver.solve(state)
            answer = booked.solve(state)
            assert answer.nodes == 0  # from the book, no search
            assert answer.score == direct.score
            assert [(item.move, item.score) for item in answer.moves] == [
                (item.move, item.score) for item in direct.moves
            ]
            assert answer.own_moves(answer.score) == direct.own_moves(direct.score)
        assert book.hits == book.lookups == len(positions)
        # past the book's last ply the solver searches
        deeper = SMALL.rules.apply(positions[-1], SMALL.rules.legal_moves(positions[-1])[0])
        assert booked.solve(deeper).nodes > 0


def test_a_rerun_searches_nothing_and_an_interrupted_build_completes_the_same(small_book, tmp_path):
    again = build_exact_book(small_book, SMALL, DEPTH, solver=Solver)
    assert again.searched == 0 and again.skipped == again.per_ply[-1]

    cut = tmp_path / "cut.book"
    searched = []

    def stop_after_two_chunks(progress):
        if progress.phase == "search" and progress.done:
            searched.append(progress.done)
            if len(searched) == 2:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_exact_book(cut, SMALL, DEPTH, solver=Solver, progress=stop_after_two_chunks)
    assert 0 < len(rows(cut)) < len(rows(small_book))
    completed = build_exact_book(cut, SMALL, DEPTH, solver=Solver)
    assert completed.skipped == searched[-1]
    assert rows(cut) == rows(small_book)


def test_two_workers_build_the_same_book(small_book, tmp_path):
    path = tmp_path / "two.book"
    build_exact_book(path, SMALL, DEPTH, solver=Solver, workers=2)
    assert rows(path) == rows(small_book)


def test_positions_beyond_the_budget_are_kept_unsolved_and_tried_again_with_more(tmp_path):
    path = tmp_path / "budget.book"
    tight = build_exact_book(path, TOP, 3, solver=Solver, budget=1)
    assert tight.solved == 0 and tight.unsolved == tight.positions
    assert {row[9] for row in rows(path)} == {1}  # the budget that was not enough
    assert build_exact_book(path, TOP, 3, solver=Solver, budget=1).searched == 0
    enough = build_exact_book(path, TOP, 3, solver=Solver, budget=None)
    assert enough.searched == enough.per_ply[-1] and enough.unsolved == 0
    assert {row[9] for row in rows(path)} == {None}


def test_an_archive_gets_the_book_table_through_its_migration(tmp_path, monkeypatch):
    from partita.database import schema

    monkeypatch.setattr(schema, "MIGRATIONS", MIGRATIONS[:1])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 1)
    old = open_archive(tmp_path / "old.db").db
    assert "book" not in old.table_names()
    old.close()
    monkeypatch.undo()
    db = open_archive(tmp_path / "old.db").db
    assert "book" in db.table_names()
    assert db["book"].pks == ["game", "setup", "kind", "key"]
    assert db.execute("SELECT max(version) FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


#: A Connect Four position 12 plies in (columns 3 and 4 full): small books from it
#: take seconds, not the hours the empty board's would.
ROOT_COLUMNS = "444444333333"


def test_solve_and_annotate_answer_from_a_book_in_the_archive(tmp_path):
    db = tmp_path / "games.db"
    root = " ".join(f"t{column}" for column in ROOT_COLUMNS)
    code, out, err = partita(
        "book", "connect4", "--depth", "1", "--moves", root, "--db", str(db), "--workers", "1",
        "--json",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert summary["positions"] == 6 and summary["solved"] == 6  # columns 3 and 4 are full
    code, out, _ = partita("solve", "--game", "connect4", "--columns", ROOT_COLUMNS, "--json",
                           env={"PARTITA_DB": str(db)})  # fmt: skip
    assert code == 0
    booked = json.loads(out)
    assert booked["nodes"] == 0 and booked["score"] == summary["root"]["score"]
    game = get_game("connect4")
    state = game.play_line(root)
    direct = Solver(game).solve(state)
    assert booked["score"] == direct.score
    assert [(item["move"], item["score"]) for item in booked["moves"]] == [
        (game.format_move(state, item.move), item.score) for item in direct.moves
    ]
    # With a budget of one node the solver answers nothing, the book the two
    # positions it holds: before ply 13 (the root) and before ply 14.
    record = tmp_path / "game.pgr"
    record.write_text(
        '[Game "connect4"]\n[Player1 "A"]\n[Player2 "B"]\n[Result "*"]\n\n'
        + " ".join(f"{n // 2 + 1}. {move}" if n % 2 == 0 else move
                   for n, move in enumerate([*root.split(), "t5", "t2"]))
        + " *\n",
        encoding="utf-8",
    )  # fmt: skip
    code, out, err = partita("annotate", str(record), "--budget", "1", "--agent", "greedy",
                             "--json", "--db", str(db))  # fmt: skip
    assert code == 0, err
    sources = {ply["ply"]: ply["source"]["before"] for ply in json.loads(out)["plies"]}
    assert sources[13] == sources[14] == "exact"
    assert {sources[ply] for ply in range(1, 13)} == {"search"}


def test_a_statistics_book_counts_the_moves_of_the_archive(tmp_path):
    db = tmp_path / "games.db"
    with opened_archive(db) as opened:
        import_paths(opened, [EXAMPLES / "universal-forces"])
    game = get_game("universal-forces")
    assert game.rules.symmetry_count == 1  # no folding: counts compare with the games
    with open_archive(db) as archive:
        lines = [
            row["moves"].split()
            for row in archive.query(
                "SELECT moves FROM games WHERE game = 'universal-forces' AND sides = 2 "
                "AND status = 'valid' AND json_extract(tags, '$.RoundLimit') IS NULL "
                "AND json_extract(tags, '$.Position') IS NULL"
            )
        ]
    assert len(lines) >= 2
    from partita.game.configuration import Configuration

    configuration = Configuration.of(game, 2, {})
    with opened_archive(db, readonly=True) as opened:
        summary = build_statistics_book(
            tmp_path / "stats.book", opened, "universal-forces", 2, configuration=configuration
        )
    assert summary.games >= len(lines)
    with Book(tmp_path / "stats.book") as book:
        entry = book.entry(game, game.rules.initial(2), "statistics")
    assert entry is not None and entry.games == summary.games
    played = Counter(moves[0] for moves in lines if moves)
    counted = {game.format_move(game.rules.initial(2), move): n for move, n, *_ in entry.moves}
    for token, count in played.items():
        assert counted[token] >= count
    assert sum(counted.values()) == summary.games


def test_open_book_finds_a_book_or_says_there_is_none(small_book, tmp_path):
    from partita.analysis.book import open_book
    from partita.errors import PartitaError

    with open_book(small_book) as found:
        assert found is not None and found.has_table
    other = tmp_path / "other.db"  # SQLite, but no book table
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    text = tmp_path / "notes.txt"
    text.write_text("no database here\n", encoding="utf-8")
    for nothing in (tmp_path / "missing.db", other, text):
        assert open_book(nothing) is None
    with pytest.raises(PartitaError, match="other.db holds no opening book"):
        open_book(other, required=True)
    with pytest.raises(PartitaError):
        open_book(text, required=True)
