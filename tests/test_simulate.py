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
from test_cli import ROOT, partita

from partita.analysis.selfplay import (
    SIMULATION_TAG,
    game_seed,
    seat_agents,
    simulate,
    split_agents,
)
from partita.errors import PartitaError
from partita.games.registry import get_game
from partita.notation.configuration import Configuration
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
    return simulate(CONNECT4, 6, AGENTS, **settings)


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


def test_an_interrupted_run_rerun_gives_the_archive_of_an_uninterrupted_one(tmp_path, monkeypatch):
    # Each run in its own folder, the shards given as the same relative path (the
    # archive keeps the path a record was read from, as an import does).
    for place in ("whole", "cut"):
        (tmp_path / place).mkdir()
    monkeypatch.chdir(tmp_path / "whole")
    whole = run(Path("out"), db="games.db")
    assert whole.imported == 6
    calls = []

    def stop_after_the_first_shard(progress):
        calls.append(progress.done)
        if progress.stored and progress.done >= 2:
            raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path / "cut")
    with pytest.raises(KeyboardInterrupt):
        run(Path("out"), db="games.db", workers=2, progress=stop_after_the_first_shard)
    assert len(shards(Path("out"))) == 1
    assert len(archive_dump(Path("games.db"))["games"]) == 2
    rest = run(Path("out"), db="games.db")
    assert (rest.skipped, rest.played, rest.imported) == (2, 4, 4)
    expected = archive_dump(tmp_path / "whole" / "games.db")
    assert archive_dump(Path("games.db")) == expected
    assert shards(Path("out")) == shards(tmp_path / "whole" / "out")
    # the archive alone, its shard files gone: the games are played again, not duplicated
    for path in Path("out").glob("shard-*.pgr"):
        path.unlink()
    again = run(Path("out"), db="games.db")
    assert (again.played, again.imported, again.shards) == (6, 0, 3)
    assert archive_dump(Path("games.db")) == expected


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
    assert json.loads(out)["skipped"] == stored
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
    simulate(game.configure({"League": "little"}), 3, ["random"], configuration=little, db=db)
    # the default league (pro) leaves its tag out: its games are not the little league's
    pro = simulate(game, 3, ["random"], db=db)
    assert (pro.played, pro.imported) == (3, 3)
    again = simulate(game, 3, ["random"], db=db)
    assert (again.played, again.skipped) == (0, 3)
