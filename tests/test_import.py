"""Importing into the archive: counts, duplicates, strict and lenient, atomic batches."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlite_utils import Database

from partita.database import ArchiveWriter, import_paths
from partita.errors import PartitaError
from partita.games.gravity import GravityState
from partita.notation.registry import get_game

ROOT = Path(__file__).resolve().parent.parent
FORZA = get_game("forza4x4")


def random_game(rng: random.Random, plies: int) -> list[str]:
    """Entry codes of a random legal Forza 4x4 line of up to ``plies`` plies,
    stopping before any move that would end the game (so ``*`` is its result)."""
    rules = FORZA.rules
    state: GravityState = rules.initial()
    tokens = []
    for _ in range(plies):
        moves = [move for move in rules.legal_moves(state) if not rules.apply(state, move).line]
        if not moves:
            break
        move = rng.choice(moves)
        tokens.append(move.notation())
        state = rules.apply(state, move)
    return tokens


def record_text(tokens: list[str], *, event: str, result: str = "*", extra: str = "") -> str:
    """A PGR record written by hand (numbered moves), independent of the writer."""
    words = []
    for ply, token in enumerate(tokens):
        if ply % 2 == 0:
            words.append(f"{ply // 2 + 1}.")
        words.append(token)
    movetext = textwrap.fill(" ".join([*words, result]), 80)
    return (
        f'[Game "forza4x4"]\n[Event "{event}"]\n[Player1 "Anna"]\n[Player2 "Bruno"]\n'
        f'[Result "{result}"]\n{extra}\n{movetext}\n'
    )


def write_games(path: Path, count: int, seed: int, *, first: int = 0) -> list[int]:
    """``count`` random unfinished games in one file; their ply counts."""
    rng = random.Random(seed)
    texts, plies = [], []
    for number in range(first, first + count):
        tokens = random_game(rng, rng.randint(4, 24))
        plies.append(len(tokens))
        texts.append(record_text(tokens, event=f"game {number}"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(texts), encoding="utf-8")
    return plies


def counts(db_path: Path) -> dict[str, int]:
    db = Database(db_path)
    try:
        return {table: db[table].count for table in ("games", "positions", "problems")}
    finally:
        db.close()


def check_whole_games(db_path: Path) -> None:
    """Every stored game has exactly its plies in positions, and no orphan rows."""
    db = Database(db_path)
    try:
        broken = db.execute(
            "SELECT g.id FROM games g LEFT JOIN positions p ON p.game_id = g.id "
            "GROUP BY g.id HAVING count(p.game_id) != g.plies"
        ).fetchall()
        assert broken == []
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()


def test_import_counts_games_plies_and_files(tmp_path):
    plies = write_games(tmp_path / "in" / "a.pgr", 7, seed=1)
    plies += write_games(tmp_path / "in" / "deeper" / "b.pgr", 5, seed=2, first=7)
    (tmp_path / "in" / "notes.txt").write_text("not a record file", encoding="utf-8")
    summary = import_paths(tmp_path / "db.sqlite", [tmp_path / "in"], batch_size=4)
    assert (summary.files, summary.records, summary.imported) == (2, 12, 12)
    assert (summary.duplicates, summary.invalid, summary.refused) == (0, 0, 0)
    assert summary.plies == sum(plies)
    assert counts(tmp_path / "db.sqlite") == {
        "games": 12,
        "positions": sum(plies),
        "problems": 0,
    }
    check_whole_games(tmp_path / "db.sqlite")


def test_second_import_adds_nothing(tmp_path):
    write_games(tmp_path / "a.pgr", 6, seed=3)
    first = import_paths(tmp_path / "db.sqlite", [tmp_path / "a.pgr"])
    before = counts(tmp_path / "db.sqlite")
    again = import_paths(tmp_path / "db.sqlite", [tmp_path / "a.pgr"])
    assert (first.imported, again.imported, again.duplicates) == (6, 0, 6)
    assert counts(tmp_path / "db.sqlite") == before


def test_duplicates_inside_one_batch_and_one_file_count_as_duplicates(tmp_path):
    rng = random.Random(4)
    one = record_text(random_game(rng, 10), event="twice")
    other = record_text(random_game(rng, 10), event="once")
    # The same record again with other blank space and CRLF line ends: same game.
    crlf = one.replace("\n", "\r\n").replace("1. ", "1.  ")
    (tmp_path / "a.pgr").write_text(one + "\n" + other + "\n" + one, encoding="utf-8")
    (tmp_path / "b.pgr").write_bytes(crlf.encode("utf-8"))
    summary = import_paths(tmp_path / "db.sqlite", [tmp_path], batch_size=100)
    assert (summary.records, summary.imported, summary.duplicates) == (4, 2, 2)


INVALID = [
    # illegal move: b4's entry cell is taken after t4 (the legal prefix t4 is kept)
    ('[Game "forza4x4"]\n[Event "illegal"]\n[Result "*"]\n\n1. t4 b4 2. t5 *\n', "illegal-move", 1),
    # a game nobody supports
    ('[Game "chess"]\n[Event "unknown"]\n[Result "*"]\n\n1. e4 e5 *\n', "unknown-game", 0),
    # no Game tag at all
    ('[Event "no game"]\n[Result "*"]\n\n1. t4 *\n', "missing-tag", 0),
]
#: Valid in lenient mode (a warning), refused in strict mode.
WARNED = ('[Game "forza4x4"]\n[Event "spelling"]\n[Result "*"]\n\n1. T4 r5 *\n', "spelling", 2)


def write_mixed(path: Path) -> None:
    rng = random.Random(5)
    good = [record_text(random_game(rng, 12), event=f"good {n}") for n in range(3)]
    texts = [good[0], INVALID[0][0], good[1], INVALID[1][0], INVALID[2][0], WARNED[0], good[2]]
    path.write_text("\n".join(texts), encoding="utf-8")


def test_lenient_import_stores_invalid_records_with_their_problems(tmp_path):
    write_mixed(tmp_path / "mixed.pgr")
    summary = import_paths(tmp_path / "db.sqlite", [tmp_path / "mixed.pgr"], batch_size=2)
    assert (summary.records, summary.imported, summary.invalid, summary.refused) == (7, 7, 3, 0)
    db = Database(tmp_path / "db.sqlite")
    rows = {
        row["event"]: row
        for row in db.query(
            "SELECT g.event, g.game, g.status, g.plies, g.moves, "
            "group_concat(p.kind) AS kinds FROM games g "
            "LEFT JOIN problems p ON p.game_id = g.id GROUP BY g.id"
        )
    }
    for text, kind, plies in [*INVALID, WARNED]:
        event = text.split('[Event "')[1].split('"')[0]
        assert kind in rows[event]["kinds"].split(",")
        assert rows[event]["plies"] == plies
    assert rows["illegal"]["status"] == "invalid" and rows["illegal"]["moves"] == "t4"
    assert rows["unknown"]["game"] == "chess" and rows["unknown"]["status"] == "invalid"
    assert rows["no game"]["game"] is None
    assert rows["spelling"]["status"] == "valid" and rows["spelling"]["moves"] == "t4 r5"
    db.close()
    check_whole_games(tmp_path / "db.sqlite")


def test_strict_import_refuses_invalid_records_and_reports_them(tmp_path):
    write_mixed(tmp_path / "mixed.pgr")
    summary = import_paths(tmp_path / "db.sqlite", [tmp_path / "mixed.pgr"], strict=True)
    assert (summary.records, summary.imported, summary.invalid, summary.refused) == (7, 3, 0, 4)
    refused = {(refusal.index, refusal.problems[0].kind) for refusal in summary.refusals}
    assert refused == {
        (1, "illegal-move"),
        (3, "unknown-game"),
        (4, "missing-tag"),
        (5, "spelling"),
    }
    assert all(p.severity == "error" for r in summary.refusals for p in r.problems)
    assert counts(tmp_path / "db.sqlite")["problems"] == 0
    json.dumps(summary.as_dict())  # the CLI's --json prints it


def test_a_failure_half_way_through_a_batch_leaves_no_trace_of_it(tmp_path, monkeypatch):
    plies = write_games(tmp_path / "a.pgr", 10, seed=6)
    real = ArchiveWriter._insert_positions
    calls = []

    def fail_on_second_batch(self, conn, rows):
        calls.append(len(rows))
        if len(calls) == 2:
            conn.executemany(
                "INSERT INTO positions VALUES (?, ?, ?, ?, ?)",
                rows[: len(rows) // 2],
            )
            raise OSError("disk unplugged")
        real(self, conn, rows)

    monkeypatch.setattr(ArchiveWriter, "_insert_positions", fail_on_second_batch)
    with pytest.raises(OSError, match="disk unplugged"):
        import_paths(tmp_path / "db.sqlite", [tmp_path / "a.pgr"], batch_size=4)
    assert counts(tmp_path / "db.sqlite") == {
        "games": 4,
        "positions": sum(plies[:4]),
        "problems": 0,
    }
    check_whole_games(tmp_path / "db.sqlite")
    monkeypatch.setattr(ArchiveWriter, "_insert_positions", real)
    rerun = import_paths(tmp_path / "db.sqlite", [tmp_path / "a.pgr"], batch_size=4)
    assert (rerun.imported, rerun.duplicates) == (6, 4)
    assert counts(tmp_path / "db.sqlite")["positions"] == sum(plies)
    check_whole_games(tmp_path / "db.sqlite")


def test_an_exception_from_the_progress_callback_stops_after_a_whole_batch(tmp_path):
    write_games(tmp_path / "a.pgr", 9, seed=7)
    seen = []

    def progress(done):
        seen.append((done.records, done.bytes_done, done.bytes_total))
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_paths(tmp_path / "db.sqlite", [tmp_path / "a.pgr"], batch_size=3, progress=progress)
    size = (tmp_path / "a.pgr").stat().st_size
    assert [records for records, _, _ in seen] == [3, 6]
    assert all(total == size and 0 < done < size for _, done, total in seen)
    assert counts(tmp_path / "db.sqlite")["games"] == 6
    rerun = import_paths(tmp_path / "db.sqlite", [tmp_path / "a.pgr"], batch_size=3)
    assert (rerun.imported, rerun.duplicates) == (3, 6)
    check_whole_games(tmp_path / "db.sqlite")


KILLED_IMPORT = """
import sys
from partita.database import import_paths

def progress(done):
    print(done.imported, flush=True)

import_paths(sys.argv[1], [sys.argv[2]], batch_size=5, progress=progress)
print("finished", flush=True)
"""


def test_a_killed_import_holds_whole_games_and_a_rerun_completes_it(tmp_path):
    plies = write_games(tmp_path / "in" / "a.pgr", 400, seed=8)
    database = tmp_path / "db.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_IMPORT, str(database), str(tmp_path / "in")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert child.stdout is not None
    for _ in range(3):  # let three batches commit, then kill it while it works on
        child.stdout.readline()
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    stored = counts(database)["games"]
    assert 15 <= stored < 400
    check_whole_games(database)
    rerun = import_paths(database, [tmp_path / "in"], batch_size=50)
    assert rerun.imported + rerun.duplicates == 400
    assert rerun.duplicates == stored
    assert counts(database) == {"games": 400, "positions": sum(plies), "problems": 0}
    check_whole_games(database)


def test_import_of_a_missing_path_fails_before_any_work(tmp_path):
    with pytest.raises(PartitaError, match="no such file"):
        import_paths(tmp_path / "db.sqlite", [tmp_path / "nowhere.pgr"])
    assert not (tmp_path / "db.sqlite").exists()


def test_batch_size_must_be_positive(tmp_path):
    write_games(tmp_path / "a.pgr", 1, seed=9)
    with pytest.raises(ValueError, match="batch size"):
        import_paths(tmp_path / "db.sqlite", [tmp_path / "a.pgr"], batch_size=0)
