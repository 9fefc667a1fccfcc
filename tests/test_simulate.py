"""Self-play: the same records on one process, local workers and a Dask cluster;
a run cut short and rerun gives what an uninterrupted run gives; the records are
valid games of the asked set-up, between the asked agents."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_runner import partita_job
from test_cli import ROOT, partita, partita_process

from partita.analysis.selfplay import (
    SIMULATION_TAG,
    game_seed,
    seat_agents,
    simulate,
    split_agents,
)
from partita.database.schema import archive
from partita.errors import PartitaError
from partita.game.configuration import Configuration
from partita.game.registry import get_game
from partita.notation.reader import read_records
from partita.notation.replay import replay

HAVE_DASK = importlib.util.find_spec("distributed") is not None

CONNECT4 = get_game("connect4")
AGENTS = ["mcts:20", "greedy"]


def shards(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.glob("shard-*.pgr"))}


def archive_dump(path: Path) -> dict[str, list]:
    """Everything the archive stores of its games (ids included)."""
    with sqlite3.connect(path) as connection:
        return {
            table: connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
            for table in ("games", "positions", "problems")
        }


def run(folder: Path, **options) -> object:
    settings = {"seed": 11, "rotate": True, "shard_size": 2, "output": folder}
    settings.update(options)
    db = settings.pop("db", None)
    if db is None:
        return simulate(CONNECT4, 6, AGENTS, **settings)
    with archive(db) as opened:  # the archive open for the run, as the command opens it
        return simulate(CONNECT4, 6, AGENTS, db=opened, **settings)


def test_one_two_workers_and_a_dask_cluster_write_byte_identical_records(tmp_path):
    if not HAVE_DASK:
        pytest.skip("Dask's distributed is not installed: pip install -e '.[cluster]'")
    one = run(tmp_path / "one", workers=1)
    two = run(tmp_path / "two", workers=2)
    dask = run(tmp_path / "dask", scheduler="local:2")
    assert (one.where, two.where, dask.where) == ("inline", "processes", "dask")
    assert one.played == two.played == dask.played == 6
    reference = shards(tmp_path / "one")
    assert list(reference) == ["shard-00000.pgr", "shard-00001.pgr", "shard-00002.pgr"]
    assert shards(tmp_path / "two") == reference
    assert shards(tmp_path / "dask") == reference


def test_chance_moves_are_seeded_too_on_local_workers(tmp_path):
    forceball = get_game("forceball")
    common = {"seed": 3, "shard_size": 3}
    simulate(forceball, 6, ["random"], output=tmp_path / "one", workers=1, **common)
    simulate(forceball, 6, ["random"], output=tmp_path / "two", workers=2, **common)
    assert shards(tmp_path / "one") == shards(tmp_path / "two")
    other = simulate(forceball, 6, ["random"], output=tmp_path / "other", seed=4, shard_size=3)
    assert other.played == 6 and shards(tmp_path / "other") != shards(tmp_path / "one")


def test_the_records_are_valid_games_of_the_set_up_between_the_agents(tmp_path):
    game = get_game("circular-reasoning")
    configuration = Configuration.of(game, 3, {"Variant": "advanced"})
    summary = simulate(
        game.configure({"Variant": "advanced"}),
        6,
        ["greedy", "random", "random"],
        configuration=configuration,
        seed=5,
        rotate=True,
        output=tmp_path,
        shard_size=4,
    )
    records = [
        record for path in sorted(tmp_path.glob("shard-*.pgr")) for record in read_records(path)
    ]
    assert [record.tags[SIMULATION_TAG] for record in records] == [f"5/{i}" for i in range(6)]
    for index, record in enumerate(records):
        assert record.tags["Variant"] == "advanced"
        seats = [record.tags[f"Player{seat}"] for seat in (1, 2, 3)]
        # rotation: the greedy agent moves one seat on per game
        assert seats.index("greedy") == index % 3
        replayed = replay(record, strict=True)
        assert replayed.valid and replayed.problems == []
        outcome = replayed.game.rules.outcome(replayed.final_state)
        assert record.tags["Result"] == (outcome.result_token() if outcome else "*")
    assert sum(summary.results.values()) == 6
    manifest = json.loads((tmp_path / "simulation.json").read_text(encoding="utf-8"))
    assert manifest["agents"] == ["greedy", "random", "random"] and manifest["seed"] == 5


def archive_games(path: Path) -> dict[str, tuple]:
    """The archive's games by their ``Simulation`` tag: what the archive promises
    is the same after a stop and a rerun (records, moves, tags, results, rows),
    ids and a record's line and offset in its shard aside."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            "SELECT json_extract(tags, '$.Simulation'), pgr, moves, tags, result, plies, "
            "status, hash, final_position, source_file, source_index FROM games"
        ).fetchall()
        keys = dict(
            connection.execute(
                "SELECT json_extract(g.tags, '$.Simulation'), group_concat(p.key) FROM games g "
                "JOIN positions p ON p.game_id = g.id GROUP BY g.id"
            ).fetchall()
        )
    games = {row[0]: (*row[1:], keys.get(row[0])) for row in rows}
    assert len(games) == len(rows)  # one game of each index
    return games


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_run_keeps_every_finished_game_and_a_rerun_completes_it(
    tmp_path, monkeypatch, workers
):
    # Each run in its own folder, the shards given as the same relative path (the
    # archive keeps the path a record was read from, as an import does).
    for place in ("whole", "cut"):
        (tmp_path / place).mkdir()
    monkeypatch.chdir(tmp_path / "whole")
    whole = run(Path("out"), db="games.db")
    assert whole.imported == 6
    seen = []

    def stop_after_three_games(progress):
        seen.append(progress.done)
        if progress.done == 3:
            raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path / "cut")
    with pytest.raises(KeyboardInterrupt):
        run(Path("out"), db="games.db", workers=workers, progress=stop_after_three_games)
    assert seen == [0, 1, 2, 3]  # one report per game stored, in order
    stored = archive_games(Path("games.db"))
    # every game reported is kept, committed or not; with workers, those finished
    # ahead of the fourth too
    assert {"11/0", "11/1", "11/2"} <= set(stored)
    assert workers > 1 or len(stored) == 3
    assert list(shards(Path("out"))) == ["shard-00000.pgr"]  # shard 1 lacks game 3
    rest = run(Path("out"), db="games.db")
    assert (rest.skipped, rest.imported) == (2, 6 - len(stored))
    assert archive_games(Path("games.db")) == archive_games(tmp_path / "whole" / "games.db")
    if workers == 1:  # stopped in order: the very same archive, ids and places included
        assert archive_dump(Path("games.db")) == archive_dump(tmp_path / "whole" / "games.db")
    assert shards(Path("out")) == shards(tmp_path / "whole" / "out")
    # the archive alone, its shard files gone: the games are played again, not duplicated
    for path in Path("out").glob("shard-*.pgr"):
        path.unlink()
    again = run(Path("out"), db="games.db")
    assert (again.played, again.imported, again.shards) == (6, 0, 3)
    assert archive_games(Path("games.db")) == archive_games(tmp_path / "whole" / "games.db")


def test_an_archive_only_run_plays_only_the_missing_games(tmp_path):
    db = tmp_path / "games.db"
    game = get_game("forza4x4")
    with archive(db) as opened:
        simulate(game, 4, ["random"], seed=5, db=opened)
    with archive(db) as opened:
        more = simulate(game, 9, ["random"], seed=5, db=opened, workers=2)
    assert (more.skipped, more.played, more.imported) == (4, 5, 5)
    with archive(tmp_path / "whole.db") as opened:
        simulate(game, 9, ["random"], seed=5, db=opened)
    assert archive_dump(db) == archive_dump(tmp_path / "whole.db")  # ids follow the indices
    with sqlite3.connect(db) as connection:
        places = connection.execute("SELECT source_file, source_index FROM games").fetchall()
    assert places == [("<simulate>", index) for index in range(9)]


# The SIGINT tests: forza4x4 between random agents, about 100 games a second on one
# core, so the run is still going when the test has read a few progress lines.
STOPPED = ["simulate", "forza4x4", "--games", "200", "--agents", "random", "--seed", "3"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("whole") / "whole.db"
    with archive(db) as opened:
        simulate(get_game("forza4x4"), 200, ["random"], seed=3, db=opened)
    return db


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_stops_within_two_seconds_keeping_every_finished_game(
    tmp_path, uninterrupted, workers
):
    db = tmp_path / "cut.db"
    process = partita_job(*STOPPED, "--workers", workers, "--db", str(db), "--json")
    assert process.stdout is not None
    lines = []
    while not lines or json.loads(lines[-1]).get("played", 0) < 5:
        line = process.stdout.readline()
        assert line, "the run ended before it was interrupted"
        lines.append(line)
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: to the whole group, workers included
    stopped = time.monotonic()
    # Read on through the file readline used: communicate() would skip what it read ahead.
    out = process.stdout.read()
    assert process.stderr is not None
    err = process.stderr.read()
    process.wait(timeout=30)
    seconds = time.monotonic() - stopped
    assert process.returncode == 130, err
    assert seconds < 2, f"{seconds:.2f} s to stop"
    assert err.splitlines()[-1] == "partita: interrupted" and "Traceback" not in err
    reports = [json.loads(line) for line in lines + out.splitlines()]
    assert all(report["type"] == "progress" for report in reports)  # no summary: stopped
    reported = reports[-1]["played"]
    assert reported < 200
    stored = archive_games(db)
    # every game reported as stored is there, and nothing else than finished games
    assert {f"3/{index}" for index in range(reported)} <= set(stored)
    whole = archive_games(uninterrupted)
    assert all(stored[index] == whole[index] for index in stored)
    code, out, err = partita(*STOPPED, "--db", str(db), "--workers", workers, "--json")
    assert code == 0, err
    summary = json.loads(out.splitlines()[-1])
    assert summary["type"] == "summary"
    assert (summary["skipped"], summary["played"]) == (len(stored), 200 - len(stored))
    assert archive_games(db) == whole


def test_the_progress_is_json_lines_with_json_and_nothing_when_piped(tmp_path):
    arguments = ["simulate", "forza4x4", "--games", "6", "--workers", "1"]
    done = partita_process(*arguments, "--db", str(tmp_path / "a.db"))
    assert done.returncode == 0 and done.stderr == ""  # no bar on a pipe
    assert len(done.stdout.splitlines()) == 1 and "6 games played" in done.stdout
    done = partita_process(*arguments, "--db", str(tmp_path / "b.db"), "--json", "--seed", "1")
    assert done.returncode == 0 and done.stderr == ""
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    assert [report["type"] for report in reports] == ["progress"] * 7 + ["summary"]
    assert [report["played"] for report in reports[:-1]] == list(range(7))
    assert {report["to_play"] for report in reports[:-1]} == {6}
    last = reports[-2]
    assert last["seconds_left"] == 0 and last["games_per_second"] > 0
    assert reports[-1]["played"] == 6 and reports[-1]["imported"] == 6


@pytest.mark.slow
def test_a_killed_command_rerun_completes_the_same_archive(tmp_path):
    """A real kill (SIGKILL) at a moment the test does not choose; the run above does
    the same deterministically in the default suite."""
    arguments = [
        "simulate", "connect4", "--games", "40", "--agents", "mcts:60,greedy", "--seed", "2",
        "--shard-size", "2", "--workers", "1",
    ]  # fmt: skip
    code, _, err = partita(*arguments, "--db", str(tmp_path / "whole.db"))
    assert code == 0, err
    environment = {k: v for k, v in os.environ.items() if k not in ("PARTITA_DB",)}
    process = subprocess.Popen(
        [sys.executable, "-m", "partita", *arguments, "--db", str(tmp_path / "cut.db")],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if _stored_games(tmp_path / "cut.db") >= 4:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    stored = _stored_games(tmp_path / "cut.db")
    assert process.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert 4 <= stored < 40 and stored % 2 == 0  # whole shards only
    code, out, err = partita(*arguments, "--db", str(tmp_path / "cut.db"), "--json")
    assert code == 0, err
    assert json.loads(out.splitlines()[-1])["skipped"] == stored
    assert archive_dump(tmp_path / "cut.db") == archive_dump(tmp_path / "whole.db")


def _stored_games(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
            return connection.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_folder_of_another_run_is_refused(tmp_path):
    run(tmp_path, workers=1)
    with pytest.raises(PartitaError, match="holds the shards of another run"):
        run(tmp_path, seed=12)


def test_seeds_and_seats():
    assert game_seed(1, 2, "0") != game_seed(1, 2, "1") != game_seed(1, 3, "0")
    assert game_seed(1, 2, "0") == game_seed(1, 2, "0")
    assert seat_agents(["a", "b", "c"], 3, 4, True) == ["c", "a", "b"]
    assert seat_agents(["a"], 3, 4, True) == ["a", "a", "a"]
    with pytest.raises(PartitaError, match="2 agents for 3 sides"):
        seat_agents(["a", "b"], 3, 0, False)
    assert split_agents("mcts:500,c=0.7,plies=20,random, greedy") == [
        "mcts:500,c=0.7,plies=20",
        "random",
        "greedy",
    ]


def test_the_command_refuses_bad_agents_and_schedulers_before_any_work(tmp_path, capsys):
    from partita.cli.app import main

    def usage_error(*arguments: str) -> str:
        with pytest.raises(SystemExit) as stop:
            main(["simulate", "connect4", "-o", str(tmp_path), *arguments])
        assert stop.value.code == 2
        return capsys.readouterr().err

    assert "unknown agent 'mcts:fast'" in usage_error("--agents", "mcts:fast")
    assert "3 agents for 2 sides" in usage_error("--agents", "random,random,random")
    assert "local:N" in usage_error("--scheduler", "local:x")
    assert "connect4 has no set-up tag League" in usage_error("--tag", "League=pro")
    assert not list(tmp_path.iterdir())


def test_runs_of_two_set_ups_with_one_seed_are_told_apart_in_the_archive(tmp_path):
    game = get_game("forceball")
    db = tmp_path / "games.db"
    little = Configuration.of(game, 2, {"League": "little"})
    with archive(db) as opened:
        simulate(
            game.configure({"League": "little"}), 3, ["random"], configuration=little, db=opened
        )
    # the default league (pro) leaves its tag out: its games are not the little league's
    with archive(db) as opened:
        pro = simulate(game, 3, ["random"], db=opened)
    assert (pro.played, pro.imported) == (3, 3)
    with archive(db) as opened:
        again = simulate(game, 3, ["random"], db=opened)
    assert (again.played, again.skipped) == (0, 3)
