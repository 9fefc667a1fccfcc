"""Root parallelism: ``mcts:N,workers=K`` searches each position K times at once in
K processes of the execution layer, the budget shared, and adds the searches up."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import time

import pytest

from partita.analysis.agents import agent_from_spec, agent_workers, parse_agent_spec
from partita.analysis.mcts import Mcts
from partita.analysis.selfplay import simulate
from partita.errors import PartitaError
from partita.game.registry import get_game
from partita.games.forceball.values import Turn
from tests.cli_runner import partita_job, run_cli
from tests.solver_reference import connect4_state

CONNECT4 = get_game("connect4")


def pids() -> set[int]:
    return {process.pid for process in multiprocessing.active_children()}


# -- the spelling ---------------------------------------------------------------------


def test_workers_is_an_option_of_mcts():
    assert parse_agent_spec("mcts:400,workers=2")[1]["workers"] == 2
    assert parse_agent_spec("mcts:0.5s,workers=3")[1]["workers"] == 3
    assert parse_agent_spec("mcts:400")[1]["workers"] == 1
    assert agent_workers("mcts:400,workers=2") == 2
    assert agent_workers("greedy") == agent_workers("mcts:400") == 1
    assert agent_from_spec("mcts:400", CONNECT4).pool is None


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("mcts:400,workers=0", "workers is 1 (one search) or more"),
        ("mcts:400,workers=65", "at most 64"),
        ("mcts:400,workers=two", "workers='two' is not a number"),
        ("mcts:400,workers=2,reuse=1", "choose one"),
    ],
)
def test_a_bad_workers_is_refused_in_one_line(spec, words):
    with pytest.raises(PartitaError, match="^agent ") as raised:
        parse_agent_spec(spec)
    assert words in str(raised.value) and "\n" not in str(raised.value)


# -- the searches and their sum ---------------------------------------------------------


def test_a_seeded_agent_with_workers_chooses_the_same_move_and_spends_its_budget():
    state = connect4_state("44")
    chosen = []
    for _ in range(2):
        with agent_from_spec("mcts:40,workers=2", CONNECT4, seed=11) as agent:
            chosen.append(agent.choose(state))
            result = agent.last
            assert result is not None and result.playouts == 40
            assert sum(item.visits for item in result.moves) == 40
            assert result.best == chosen[-1]
            assert result.moves[0].visits == max(item.visits for item in result.moves)
    assert chosen[0] == chosen[1]


def test_merge_adds_up_the_visits_and_weighs_the_values_by_them():
    search = Mcts(CONNECT4.rules)
    state = connect4_state("4433")
    results = [search.search(state, random.Random(seed), playouts=30) for seed in (1, 2)]
    merged = search.merge(state, results)
    assert merged.playouts == 60
    for item in merged.moves:
        parts = [found for result in results if (found := result.statistics(item.move))]
        assert item.visits == sum(part.visits for part in parts)
        if item.visits and not item.exact:
            mean = sum(part.value[0] * part.visits for part in parts) / item.visits
            assert item.value[0] == pytest.approx(mean)
    assert merged.best == max(merged.moves, key=lambda item: item.visits).move


def test_workers_find_a_win_in_one():
    # Player1 has three in column 1 and is to move
    state = connect4_state("121212")
    with agent_from_spec("mcts:40,workers=2", CONNECT4, seed=3) as agent:
        move = agent.choose(state)
        assert CONNECT4.format_move(state, move) == "t1"
        assert agent.last is not None and agent.last.exact
        assert agent.last.value == (1.0, 0.0)


# -- hidden information -----------------------------------------------------------------


def forceball_turns(seed: int, plies: int = 300):
    """``(state, history, move)`` at each turn of a seeded random pro-league game."""
    rules = get_game("forceball").configure({"League": "pro"}).rules
    rng = random.Random(seed)
    state = rules.initial(2)
    history: list = []
    for _ in range(plies):
        if rules.outcome(state) is not None:
            return
        move = rules.sample_move(state, rng)
        if isinstance(move, Turn):
            yield state, list(history), move
        history.append((state, move))
        state = rules.apply(state, move)


def test_a_forceball_agent_with_workers_plays_a_legal_move_from_its_own_information():
    game = get_game("forceball").configure({"League": "pro"})
    rules = game.rules
    state, history, _ = next(forceball_turns(2))
    viewer = rules.side_to_move(state)
    with agent_from_spec("mcts:40,workers=2", game, seed=5) as agent:
        move = agent.choose(state, history=history)
        assert rules.illegal_reason(state, move) is None
        result = agent.last
        assert result is not None and result.playouts == 40
        assert result.samples == 2 * 8  # each worker its own determinized tables
        assert sum(item.visits for item in result.moves) == 40
        # the other side's view of the same position
        other = agent.evaluate(state, viewer=1 - viewer, history=history)
        assert other.playouts == 40 and len(other.value) == 2


def test_a_forceball_agent_with_workers_chooses_within_the_ways_on():
    game = get_game("forceball").configure({"League": "pro"})
    rules = game.rules
    for state, history, move in forceball_turns(5, plies=600):
        steps = rules.decisions(state, move)
        answering = [at for at in range(1, len(steps)) if steps[at].side != steps[0].side]
        if not answering:
            continue
        ways: dict = {}
        for other in rules.answers(state, move, answering[0]):
            ways.setdefault(rules.decisions(state, other)[answering[0]].choice, []).append(other)
        group = next((group for group in ways.values() if len(group) > 1), None)
        if group is None:
            continue
        with agent_from_spec("mcts:40,workers=2", game, seed=1) as agent:
            chosen = agent.choose(state, history=history, within=group)
        assert chosen in group
        return
    pytest.fail("no turn with an answer and several ways on")


# -- the processes ----------------------------------------------------------------------


def test_the_agents_processes_are_gone_after_close():
    before = pids()
    agent = agent_from_spec("mcts:20,workers=2", CONNECT4, seed=1)
    assert pids() == before  # started on the first search, not before
    agent.choose(connect4_state("4"))
    started = pids() - before
    assert len(started) == 2 and agent.pool is not None and agent.pool.running
    agent.close()
    assert not pids() & started and not agent.pool.running
    agent.choose(connect4_state("44"))  # it may search again: new workers
    agent.close()
    assert pids() == before


def test_simulate_leaves_no_process_behind(tmp_path):
    before = pids()
    summary = simulate(CONNECT4, 2, ["mcts:20,workers=2"], seed=1, output=tmp_path, workers=1)
    assert summary.played == 2
    assert pids() == before
    # the same records again for the same seed
    again = simulate(CONNECT4, 2, ["mcts:20,workers=2"], seed=1, output=tmp_path / "b", workers=1)
    assert again.played == 2
    assert (tmp_path / "shard-00000.pgr").read_text() == (
        tmp_path / "b" / "shard-00000.pgr"
    ).read_text()


# -- where a user meets it --------------------------------------------------------------


def test_simulate_warns_when_its_workers_and_the_agents_outnumber_the_cpus(tmp_path):
    result = run_cli(
        [
            "simulate",
            "connect4",
            "--games",
            "0",
            "--agents",
            "mcts:20,workers=64",
            "--workers",
            "2",
            "-o",
            str(tmp_path / "out"),
        ]
    )
    assert result.code == 0, result.stderr
    warned = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warned) == 1 and "up to 64 processes" in warned[0]


def test_annotate_refuses_workers_for_a_game_of_perfect_information(tmp_path):
    record = tmp_path / "game.pgr"
    record.write_text('[Game "connect4"]\n\n1. t4 t4 *\n', encoding="utf-8")
    result = run_cli(["annotate", str(record), "--agent", "mcts:50,workers=2", "--no-book"])
    assert result.code == 2
    assert "workers= applies to games with hidden information" in result.stderr


def test_ctrl_c_stops_simulate_and_the_agents_processes_promptly(tmp_path):
    process = partita_job(
        "simulate",
        "connect4",
        "--games",
        "50",
        "--agents",
        "mcts:300,workers=2",
        "--workers",
        "1",
        "--db",
        str(tmp_path / "cut.db"),
        "--json",
    )
    assert process.stdout is not None
    while True:  # a game played: the agents' processes are running
        line = process.stdout.readline()
        assert line, "the run ended before it was interrupted"
        if json.loads(line).get("played", 0) >= 1:
            break
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: to the whole group
    stopped = time.monotonic()
    _, err = process.communicate(timeout=30)
    assert time.monotonic() - stopped < 2
    assert process.returncode == 130 and "Traceback" not in err, err
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # every process of the group is gone
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail("a process of the interrupted run is still there")


def test_a_win_found_at_once_keeps_its_value_when_hidden_searches_add_up():
    # A move proven to win before any playout went through it (0 visits) is worth
    # its win, not 0, once the tables or searches are added up; so it ranks first.
    from partita.analysis.mcts import MoveStatistics, SearchResult

    game = get_game("forceball").configure({"League": "pro"})
    state, _, _ = next(forceball_turns(2))
    side = game.rules.side_to_move(state)
    first, second = game.rules.legal_moves(state)[:2]
    won = tuple(1.0 if seat == side else 0.0 for seat in range(2))
    other = tuple(0.6 if seat == side else 0.4 for seat in range(2))
    results = [
        SearchResult(
            side,
            other,
            (MoveStatistics(second, 30, other, False), MoveStatistics(first, 0, won, True)),
            30,
            0.0,
            False,
            8,
        )
        for _ in range(2)
    ]
    merged = Mcts(game.rules).merge(state, results, viewer=side)
    assert merged.best == first
    assert merged.moves[0].value == won and merged.moves[0].exact
    assert merged.moves[1].value == other and merged.moves[1].visits == 60
