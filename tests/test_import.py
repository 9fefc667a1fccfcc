"""Importing into the archive: counts, duplicates, strict and lenient, atomic batches."""

from __future__ import annotations

import concurrent.futures
import importlib.util
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from faults import allow_inserts, refuse_inserts
from sqlite_utils import Database

from partita import cores
from partita.bulk import import_paths, importer, prepare
from partita.bulk import workers as parallel
from partita.database.schema import archive as opened_archive
from partita.errors import ArchiveError, PartitaError
from partita.game import registry
from partita.game.registry import get_game
from partita.game.spec import GameSpec
from partita.games.gravity.notation import GravityNotation
from partita.games.gravity.rules import GravityState

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
    with opened_archive(tmp_path / "db.sqlite") as opened:
        summary = import_paths(opened, [tmp_path / "in"], batch_size=4)
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
    with opened_archive(tmp_path / "db.sqlite") as opened:
        first = import_paths(opened, [tmp_path / "a.pgr"])
    before = counts(tmp_path / "db.sqlite")
    with opened_archive(tmp_path / "db.sqlite") as opened:
        again = import_paths(opened, [tmp_path / "a.pgr"])
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
    with opened_archive(tmp_path / "db.sqlite") as opened:
        summary = import_paths(opened, [tmp_path], batch_size=100)
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
    with opened_archive(tmp_path / "db.sqlite") as opened:
        summary = import_paths(opened, [tmp_path / "mixed.pgr"], batch_size=2)
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
    with opened_archive(tmp_path / "db.sqlite") as opened:
        summary = import_paths(opened, [tmp_path / "mixed.pgr"], strict=True)
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


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failure_half_way_through_a_batch_leaves_no_trace_of_it(tmp_path, monkeypatch, workers):
    monkeypatch.setattr(importer, "CHUNK_BYTES", 300)  # a few records a chunk
    plies = write_games(tmp_path / "a.pgr", 10, seed=6)
    database = tmp_path / "db.sqlite"
    # The second batch's games written, then its positions refused (a parallel
    # import writes a batch chunk by chunk), as a disk failing half-way would.
    refuse_inserts(database, "game_positions", when="NEW.game_id > 4")
    with pytest.raises(ArchiveError, match="disk unplugged"), opened_archive(database) as opened:
        import_paths(opened, [tmp_path / "a.pgr"], batch_size=4, workers=workers)
    assert counts(database) == {
        "games": 4,
        "positions": sum(plies[:4]),
        "problems": 0,
    }
    check_whole_games(database)
    allow_inserts(database, "game_positions")
    with opened_archive(database) as opened:
        rerun = import_paths(opened, [tmp_path / "a.pgr"], batch_size=4)
    assert (rerun.imported, rerun.duplicates) == (6, 4)
    assert counts(database)["positions"] == sum(plies)
    check_whole_games(database)


@pytest.mark.parametrize("workers", [1, 2])
def test_an_exception_from_the_progress_callback_stops_after_a_whole_batch(
    tmp_path, monkeypatch, workers
):
    monkeypatch.setattr(importer, "CHUNK_BYTES", 300)
    write_games(tmp_path / "a.pgr", 9, seed=7)
    seen = []

    def progress(done):
        seen.append((done.records, done.bytes_done, done.bytes_total))
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), opened_archive(tmp_path / "db.sqlite") as opened:
        import_paths(
            opened,
            [tmp_path / "a.pgr"],
            batch_size=3,
            progress=progress,
            workers=workers,
        )
    size = (tmp_path / "a.pgr").stat().st_size
    assert [records for records, _, _ in seen] == [3, 6]
    assert all(total == size and 0 < done < size for _, done, total in seen)
    assert counts(tmp_path / "db.sqlite")["games"] == 6
    with opened_archive(tmp_path / "db.sqlite") as opened:
        rerun = import_paths(opened, [tmp_path / "a.pgr"], batch_size=3)
    assert (rerun.imported, rerun.duplicates) == (3, 6)
    check_whole_games(tmp_path / "db.sqlite")


KILLED_IMPORT = """
import multiprocessing, sys
from partita.database import archive
from partita.bulk import import_paths, importer

importer.CHUNK_BYTES = 2000  # the workers take part from the start

def progress(done):
    workers = [process.pid for process in multiprocessing.active_children()]
    print(done.imported, *workers, flush=True)

with archive(sys.argv[1]) as opened:
    import_paths(opened, [sys.argv[2]], batch_size=5, progress=progress, workers=int(sys.argv[3]))
print("finished", flush=True)
"""


def running(pid: int) -> bool:
    """Whether a process runs (a zombie does not: it waits for init to reap it)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc here
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("stop", ["kill", "ctrl-c"])
def test_a_stopped_import_holds_whole_games_and_a_rerun_completes_it(tmp_path, workers, stop):
    plies = write_games(tmp_path / "in" / "a.pgr", 400, seed=8)
    database = tmp_path / "db.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_IMPORT, str(database), str(tmp_path / "in"), str(workers)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # the KeyboardInterrupt's traceback
        text=True,
        cwd=ROOT,
        start_new_session=True,  # its own process group, as a terminal's job
    )
    assert child.stdout is not None
    for _ in range(3):  # let three batches commit, then stop it while it works on
        line = child.stdout.readline()
    if stop == "kill":
        os.kill(child.pid, signal.SIGKILL)
    else:  # Ctrl-C: SIGINT to the whole process group, workers included
        os.killpg(child.pid, signal.SIGINT)
    assert "finished" not in child.stdout.read()
    child.wait(timeout=20)
    # The worker processes exit: stopped by the import, or noticing it was killed.
    worker_pids = [int(pid) for pid in line.split()[1:]]
    assert len(worker_pids) == workers - 1  # this process is one of the workers
    deadline = time.monotonic() + 10
    while any(running(pid) for pid in worker_pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(pid) for pid in worker_pids)
    stored = counts(database)["games"]
    assert 15 <= stored < 400 and stored % 5 == 0
    check_whole_games(database)
    with opened_archive(database) as opened:
        rerun = import_paths(opened, [tmp_path / "in"], batch_size=50)
    assert rerun.imported + rerun.duplicates == 400
    assert rerun.duplicates == stored
    assert counts(database) == {"games": 400, "positions": sum(plies), "problems": 0}
    check_whole_games(database)


def test_import_of_a_missing_path_fails_before_any_work(tmp_path):
    with (
        pytest.raises(PartitaError, match="no such file"),
        opened_archive(tmp_path / "db.sqlite") as opened,
    ):
        import_paths(opened, [tmp_path / "nowhere.pgr"])
    assert counts(tmp_path / "db.sqlite")["games"] == 0
    from cli_runner import run_cli

    code, _, err = run_cli(["import", str(tmp_path / "nowhere.pgr"), "--db", str(tmp_path / "x")])
    assert code == 2 and "does not exist" in err
    assert not (tmp_path / "x").exists()  # the command checks its inputs before it opens it


def test_batch_size_must_be_positive(tmp_path):
    write_games(tmp_path / "a.pgr", 1, seed=9)
    with (
        pytest.raises(ValueError, match="batch size"),
        opened_archive(tmp_path / "db.sqlite") as opened,
    ):
        import_paths(opened, [tmp_path / "a.pgr"], batch_size=0)


def test_workers_must_be_positive(tmp_path):
    write_games(tmp_path / "a.pgr", 1, seed=9)
    with (
        pytest.raises(ValueError, match="workers must be at least 1, not 0"),
        opened_archive(tmp_path / "db.sqlite") as opened,
    ):
        import_paths(opened, [tmp_path / "a.pgr"], workers=0)
    assert counts(tmp_path / "db.sqlite")["games"] == 0


# -- the parallel import ----------------------------------------------------------------


def dump(db_path: Path) -> dict[str, list[tuple]]:
    """Every row of the archive, ids and all, in a fixed order."""
    db = Database(db_path)
    try:
        return {
            "games": db.execute("SELECT * FROM games ORDER BY id").fetchall(),
            "positions": db.execute(
                "SELECT * FROM positions ORDER BY key, game_id, ply"
            ).fetchall(),
            "problems": db.execute("SELECT * FROM problems ORDER BY id").fetchall(),
        }
    finally:
        db.close()


def write_corpus(folder: Path) -> None:
    """Several files: valid games, invalid and warned ones, duplicates (in a file and
    across files), an empty file, a byte that is not UTF-8."""
    write_games(folder / "a.pgr", 40, seed=10)
    write_games(folder / "b" / "b.pgr", 25, seed=11, first=40)
    write_mixed(folder / "b" / "mixed.pgr")
    (folder / "c.pgr").write_bytes((folder / "a.pgr").read_bytes()[:2000] + b"\n")
    (folder / "d.pgr").write_bytes(b"")
    bad = record_text(random_game(random.Random(12), 8), event="caff\xe8 latin-1")
    (folder / "e.pgr").write_bytes(bad.encode("latin-1"))
    write_games(folder / "f.pgr", 30, seed=10)  # the games of a.pgr again


@pytest.mark.parametrize("strict", [False, True])
def test_parallel_and_serial_imports_give_the_same_archive(tmp_path, monkeypatch, strict):
    monkeypatch.setattr(importer, "CHUNK_BYTES", 1500)  # several chunks a file
    write_corpus(tmp_path / "in")
    results = {}
    for workers in (1, 2, 3):
        events = []
        with opened_archive(tmp_path / f"db{workers}.sqlite") as opened:
            summary = import_paths(
                opened,
                [tmp_path / "in"],
                strict=strict,
                batch_size=7,
                progress=events.append,
                workers=workers,
            )
        results[workers] = (summary.as_dict(), events, dump(tmp_path / f"db{workers}.sqlite"))
    serial = results[1]
    summary = serial[0]
    files = sorted((tmp_path / "in").rglob("*.pgr"))
    records = sum(path.read_bytes().count(b"[Game ") for path in files) + 1  # 'no game'
    assert summary["files"] == len(files) == 7 and summary["records"] == records
    # f.pgr repeats 30 games of a.pgr, c.pgr its first ones (the last one cut short).
    cut = (tmp_path / "in" / "c.pgr").read_bytes().count(b"[Game ")
    assert summary["duplicates"] == 30 + cut - 1
    # Invalid: three in mixed.pgr, the cut record, the latin-1 one (strict: and the
    # misspelt one).
    assert (summary["invalid"], summary["refused"]) == ((0, 6) if strict else (5, 0))
    assert len(serial[2]["games"]) == summary["imported"] > 0
    for workers in (2, 3):
        parallel = results[workers]
        assert serial[0] == parallel[0]  # the summaries, refusals and their problems
        assert serial[1] == parallel[1]  # the progress calls, in order
        assert serial[2] == parallel[2]  # every row, ids included
        check_whole_games(tmp_path / f"db{workers}.sqlite")


@pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="Dask's distributed is not installed (pip install -e '.[cluster]')",
)
def test_an_import_prepared_on_a_dask_cluster_gives_the_same_archive(tmp_path, monkeypatch):
    """`import --scheduler local:2`: the records are read and replayed on a local
    Dask cluster's workers and written here, into the same archive, ids included."""
    from cli_runner import run_cli

    monkeypatch.setattr(importer, "CHUNK_BYTES", 1500)  # several chunks a file
    write_corpus(tmp_path / "in")
    with opened_archive(tmp_path / "serial.sqlite") as opened:
        serial = import_paths(opened, [tmp_path / "in"], batch_size=7)
    code, out, err = run_cli(
        ["import", str(tmp_path / "in"), "--db", str(tmp_path / "dask.sqlite"),
         "--scheduler", "local:2", "--json"]
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["imported"], summary["duplicates"], summary["invalid"]) == (
        serial.imported,
        serial.duplicates,
        serial.invalid,
    )
    assert dump(tmp_path / "serial.sqlite") == dump(tmp_path / "dask.sqlite")
    check_whole_games(tmp_path / "dask.sqlite")


def test_import_on_a_cluster_without_dask_says_what_to_install(tmp_path, monkeypatch):
    from cli_runner import run_cli

    monkeypatch.setitem(sys.modules, "distributed", None)  # its import fails
    (tmp_path / "a.pgr").write_text('[Game "connect4"]\n\n1. t4 *\n', encoding="utf-8")
    code, out, err = run_cli(
        ["import", str(tmp_path / "a.pgr"), "--db", str(tmp_path / "db.sqlite"),
         "--scheduler", "tcp://127.0.0.1:8786"]
    )  # fmt: skip
    assert code == 2 and "pip install 'partita[cluster]'" in err
    assert not (tmp_path / "db.sqlite").exists()  # refused before any work


class RenamedForza(GravityNotation):
    """Forza 4x4 under another name: a game only the process that registers it knows."""

    @property
    def name(self) -> str:
        return "forza-here"


@pytest.fixture
def forza_here():
    """A game registered at run time, as a script registers its own, forgotten after
    the test."""
    spec = registry.register(GameSpec("forza-here", "Forza here", RenamedForza(FORZA.rules)))
    yield spec
    registry.unregister(spec.name)


def test_a_game_registered_at_run_time_imports_the_same_with_workers(tmp_path, forza_here):
    rng = random.Random(15)
    texts = [record_text(random_game(rng, 10), event=f"game {n}") for n in range(6)]
    text = "\n".join(texts).replace('[Game "forza4x4"]', '[Game "forza-here"]')
    (tmp_path / "a.pgr").write_text(text, encoding="utf-8")
    summaries = []
    for workers in (1, 2):
        with opened_archive(tmp_path / f"db{workers}.sqlite") as opened:
            summaries.append(import_paths(opened, [tmp_path / "a.pgr"], workers=workers))
    # The workers do not know the game: this process imports everything itself.
    assert summaries[0].as_dict() == summaries[1].as_dict()
    assert (summaries[1].imported, summaries[1].invalid) == (6, 0)
    assert dump(tmp_path / "db1.sqlite") == dump(tmp_path / "db2.sqlite")


#: The real chunk preparation, for the stand-ins below (a worker process imports
#: this module to find them, and then uses the real one).
REAL_PREPARE_CHUNK = prepare.prepare_chunk


def fail_on_the_bomb(data):
    """A stand-in for the workers' task that breaks on the record whose Event is 'bomb'."""
    if any('[Event "bomb"]' in record[0] for record in data[2]):
        raise RuntimeError("the replay broke")
    return REAL_PREPARE_CHUNK(data)


def die_on_the_bomb(data):
    """A stand-in for the workers' task whose process dies on the 'bomb' record (in
    a worker only: never the test's own process)."""
    in_worker = multiprocessing.parent_process() is not None
    if in_worker and any('[Event "bomb"]' in record[0] for record in data[2]):
        os._exit(3)
    return REAL_PREPARE_CHUNK(data)


def write_with_bomb(path: Path, at: int) -> None:
    rng = random.Random(13)
    texts = [record_text(random_game(rng, 10), event=f"game {n}") for n in range(30)]
    texts[at] = record_text(random_game(rng, 10), event="bomb")
    path.write_text("\n".join(texts), encoding="utf-8")


@pytest.mark.parametrize("workers", [1, 2])
def test_an_unexpected_error_surfaces_with_its_place(tmp_path, monkeypatch, workers):
    monkeypatch.setattr(importer, "CHUNK_BYTES", 1)  # one record a chunk
    monkeypatch.setattr(parallel, "_QUEUED_HERE", 0)  # every chunk goes to the worker
    monkeypatch.setattr(importer, "prepare_chunk", fail_on_the_bomb)
    write_with_bomb(tmp_path / "a.pgr", at=12)
    with (
        pytest.raises(RuntimeError, match="the replay broke") as raised,
        opened_archive(tmp_path / "db.sqlite") as opened,
    ):
        import_paths(opened, [tmp_path / "a.pgr"], batch_size=5, workers=workers)
    where = "in a worker process" if workers > 1 else "in this process"
    assert [note for note in raised.value.__notes__ if "record 12 (from 0) of" in note] == [
        f"while reading and replaying record 12 (from 0) of {tmp_path / 'a.pgr'}, {where}"
    ]
    # Records 0 to 11 came before it: two whole batches are stored, no more.
    assert counts(tmp_path / "db.sqlite")["games"] == 10
    check_whole_games(tmp_path / "db.sqlite")


def test_a_worker_that_dies_stops_the_import_after_whole_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(importer, "CHUNK_BYTES", 1)
    monkeypatch.setattr(parallel, "_QUEUED_HERE", 0)
    monkeypatch.setattr(importer, "prepare_chunk", die_on_the_bomb)
    write_with_bomb(tmp_path / "a.pgr", at=12)
    with (
        pytest.raises(BrokenProcessPool) as raised,
        opened_archive(tmp_path / "db.sqlite") as opened,
    ):
        import_paths(opened, [tmp_path / "a.pgr"], batch_size=5, workers=2)
    assert "a worker process of the import stopped" in raised.value.__notes__[0]
    stored = counts(tmp_path / "db.sqlite")["games"]
    assert stored in (0, 5, 10)
    check_whole_games(tmp_path / "db.sqlite")


class NoPool:
    def __init__(self, *args, **kwargs):
        raise AssertionError("a small import started worker processes")


def test_automatic_workers_import_a_small_input_in_this_process(tmp_path, monkeypatch):
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", NoPool)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    write_games(tmp_path / "a.pgr", 20, seed=14)
    with opened_archive(tmp_path / "db.sqlite") as opened:
        summary = import_paths(opened, [tmp_path / "a.pgr"], workers=None)
    assert summary.imported == 20


@pytest.fixture
def load_average_only(monkeypatch):
    """auto_workers reading the load average (no /proc/stat sample)."""
    monkeypatch.setattr(cores, "sampled_idle_share", lambda: None)


def test_automatic_workers_follow_the_size_and_the_cpus(monkeypatch, load_average_only):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert parallel.auto_workers(parallel.PARALLEL_MIN_BYTES - 1) == 1
    assert parallel.auto_workers(parallel.PARALLEL_MIN_BYTES) == 4
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert parallel.auto_workers(50_000_000) == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    assert parallel.auto_workers(50_000_000) == 1


@pytest.mark.parametrize(
    ("cpus", "load", "expected"),
    [
        (2, 0.0, 2),  # a quiet machine: a worker on the second core
        (2, 0.4, 2),  # background noise leaves both cores mostly idle
        (2, 0.6, 1),  # less than 1.5 cores idle: this process takes the one there is
        (2, 1.0, 1),  # one core busy elsewhere: no idle core for a worker
        (2, 4.5, 1),  # a loaded machine: a second process never pays
        (8, 0.0, 4),  # at most MAX_AUTO_WORKERS
        (8, 5.2, 3),  # 2.8 idle cores: this process and two workers
        (8, 7.9, 1),
    ],
)
def test_automatic_workers_use_the_idle_cores_only(
    monkeypatch, load_average_only, cpus, load, expected
):
    """From 1 MB up, one worker per idle core beyond the first (the load average
    against the CPUs), at most 4 processes, one when no core is idle."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, 0.0, 0.0))
    assert parallel.auto_workers(50_000_000) == expected
    assert parallel.auto_workers(parallel.PARALLEL_MIN_BYTES - 1) == 1


def test_automatic_workers_without_a_load_average_count_every_core(monkeypatch, load_average_only):
    def no_load_average():
        raise OSError("no load average here")

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", no_load_average)
    assert parallel.auto_workers(50_000_000) == 2


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # user nice system idle iowait irq softirq steal, two CPUs over the sample
        ("cpu 100 0 50 1000 10 0 0 0", "cpu 102 0 50 1196 10 0 0 0", 2),  # 98% idle
        ("cpu 100 0 50 1000 10 0 0 0", "cpu 190 0 60 1100 10 0 0 0", 1),  # one core busy
        ("cpu 100 0 50 1000 10 0 0 0", "cpu 290 0 60 1000 10 0 0 0", 1),  # both busy
        ("cpu 100 0 50 1000 10 0 0 0", "cpu 105 0 50 1160 40 0 0 0", 2),  # waiting on disk
    ],
)
def test_automatic_workers_count_the_cores_idle_now(monkeypatch, tmp_path, before, after, expected):
    """Where /proc/stat is there, the idle cores are measured over a short sample,
    not read from the load average (which an import that just ended still raises)."""
    stat = tmp_path / "stat"
    samples = iter([before, after])

    def next_sample(seconds):
        stat.write_text(next(samples) + "\n", encoding="ascii")

    forget_early_sample(monkeypatch, tmp_path)  # none begun by a CLI start
    next_sample(0)
    monkeypatch.setattr(cores, "PROC_STAT", str(stat))
    monkeypatch.setattr(time, "sleep", next_sample)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))  # lagging behind
    assert parallel.auto_workers(50_000_000) == expected


def forget_early_sample(monkeypatch, tmp_path) -> None:
    """No sample begun by a CLI start (this process's may have begun one): a sample
    begun where the system's CPU times cannot be read is none."""
    monkeypatch.setattr(cores, "PROC_STAT", str(tmp_path / "no-proc-stat"))
    cores.start_idle_sample()


@pytest.fixture
def early_sample_clock(monkeypatch, tmp_path):
    """A fake /proc/stat (``write(line)``), monotonic clock (``clock[0]``) and CPU
    time of this process (``own[0]``, ticks, as ``os.times`` says it), and the
    sleeps asked for."""
    stat = tmp_path / "stat"
    clock, own, slept = [100.0], [0.0], []
    ticks = os.sysconf("SC_CLK_TCK")

    def write(line):
        stat.write_text(line + "\n", encoding="ascii")

    def sleep(seconds):
        slept.append(seconds)
        clock[0] += seconds

    forget_early_sample(monkeypatch, tmp_path)
    monkeypatch.setattr(cores, "PROC_STAT", str(stat))
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(os, "times", lambda: os.times_result((own[0] / ticks, 0.0, 0.0, 0.0, 0.0)))
    monkeypatch.setattr(time, "sleep", sleep)
    return write, clock, own, slept


def test_an_early_sample_spares_the_sleep_and_counts_this_process_as_idle(early_sample_clock):
    """Begun as the CLI starts, the sample needs no sleep once a tenth of a second has
    passed; this process's own start-up (one core busy, here) is not other work."""
    write, clock, own, slept = early_sample_clock
    write("cpu 100 0 50 1000 10 0 0 0")
    cores.start_idle_sample()
    clock[0] += 0.25
    own[0] += 45  # of the 50 ticks busy over the 0.25 s, 45 are this process's
    write("cpu 140 0 60 1040 10 0 0 0")  # 2 CPUs x 0.25 s: 50 busy, 40 idle
    assert cores.sampled_idle_share() == pytest.approx(85 / 90)
    assert slept == []
    # Used once: the next sample is a fresh one over a whole tenth of a second.
    write("cpu 140 0 60 1040 10 0 0 0")
    cores.sampled_idle_share()
    assert slept == [cores.IDLE_SAMPLE_SECONDS]


def test_an_early_sample_sleeps_what_is_left_of_the_tenth(early_sample_clock):
    write, clock, own, slept = early_sample_clock
    write("cpu 100 0 50 1000 10 0 0 0")
    cores.start_idle_sample()
    clock[0] += 0.03
    assert cores.sampled_idle_share() is None  # the same times: no time passed
    assert slept == [pytest.approx(cores.IDLE_SAMPLE_SECONDS - 0.03)]


def test_an_early_sample_with_other_work_on_a_core_leaves_one_process(
    early_sample_clock, monkeypatch
):
    """Other work keeping a core busy while this process starts on the other: no
    idle core for a worker (the share is a half, this process's time counted idle)."""
    write, clock, own, slept = early_sample_clock
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    write("cpu 100 0 50 1000 10 0 0 0")
    cores.start_idle_sample()
    clock[0] += 0.2
    own[0] += 20
    write("cpu 140 0 50 1000 10 0 0 0")  # both cores busy: this one's and another's
    assert parallel.auto_workers(50_000_000) == 1
    write("cpu 100 0 50 1000 10 0 0 0")
    cores.start_idle_sample()
    clock[0] += 0.2
    own[0] += 20
    write("cpu 120 0 50 1020 10 0 0 0")  # only this process busy
    assert parallel.auto_workers(50_000_000) == 2


def test_an_old_early_sample_is_not_used(early_sample_clock):
    write, clock, own, slept = early_sample_clock
    write("cpu 100 0 50 1000 10 0 0 0")
    cores.start_idle_sample()
    clock[0] += cores.EARLY_SAMPLE_MAX_SECONDS + 1
    own[0] += 1000  # would make every core look idle, were it counted
    cores.sampled_idle_share()
    assert slept == [cores.IDLE_SAMPLE_SECONDS]


def test_automatic_workers_read_the_load_average_without_proc_stat(monkeypatch, tmp_path):
    monkeypatch.setattr(cores, "PROC_STAT", str(tmp_path / "missing"))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.2, 0.0, 0.0))
    assert cores.sampled_idle_share() is None
    assert parallel.auto_workers(50_000_000) == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.0, 0.0))
    assert parallel.auto_workers(50_000_000) == 2
