"""The execution layer: inline, local processes and a Dask cluster behind one
executor, results in input order, the cluster path refused clearly without Dask."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

from partita.execution import ClusterUnavailable, check_scheduler, open_executor

HAVE_DASK = importlib.util.find_spec("distributed") is not None
needs_dask = pytest.mark.skipif(
    not HAVE_DASK, reason="Dask's distributed is not installed (pip install -e '.[cluster]')"
)


def where_and_square(number: int) -> tuple[int, int, str | None]:
    """A task: the process it ran in, its result, what the initializer left."""
    return os.getpid(), number * number, os.environ.get("PARTITA_TEST_SETUP")


def fail_on_three(number: int) -> int:
    if number == 3:
        raise ValueError("three is refused")
    return number


def mark_setup(value: str) -> None:
    os.environ["PARTITA_TEST_SETUP"] = value


def test_one_worker_runs_inline_in_this_process_without_the_initializer():
    with open_executor(1, initializer=mark_setup, initargs=("done",)) as execution:
        assert execution.kind == "inline" and execution.workers == 1
        results = list(execution.map_ordered(where_and_square, range(5)))
    assert [square for _, square, _ in results] == [0, 1, 4, 9, 16]
    assert {pid for pid, _, _ in results} == {os.getpid()}
    assert {setup for _, _, setup in results} == {None}


def test_local_workers_run_elsewhere_after_the_initializer_in_input_order():
    with open_executor(2, initializer=mark_setup, initargs=("done",)) as execution:
        assert execution.kind == "processes" and execution.workers == 2
        results = list(execution.map_ordered(where_and_square, range(20)))
    assert [square for _, square, _ in results] == [n * n for n in range(20)]
    assert os.getpid() not in {pid for pid, _, _ in results}
    assert {setup for _, _, setup in results} == {"done"}


def test_a_task_error_comes_back_in_its_turn():
    seen = []
    with pytest.raises(ValueError, match="three is refused"), open_executor(2) as execution:
        for result in execution.map_ordered(fail_on_three, range(6)):
            seen.append(result)
    assert seen == [0, 1, 2]


def test_tasks_in_flight_are_bounded():
    consumed = []

    def items():
        for number in range(100):
            consumed.append(number)
            yield number

    with open_executor(2) as execution:
        results = execution.map_ordered(where_and_square, items(), window=4)
        next(results)
        assert len(consumed) <= 5  # the window, and the one just taken
        results.close()


def test_the_cluster_path_names_what_to_install_without_dask(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    with pytest.raises(ClusterUnavailable, match=r"pip install 'partita\[cluster\]'"):
        check_scheduler("tcp://127.0.0.1:8786")
    with pytest.raises(ClusterUnavailable), open_executor(scheduler="local:2"):
        pass


@needs_dask
def test_a_local_address_must_name_its_worker_count():
    with pytest.raises(ClusterUnavailable, match="local:N"):
        check_scheduler("localhost")


@needs_dask
def test_an_unreachable_scheduler_is_one_clear_error(monkeypatch):
    monkeypatch.setattr("partita.execution.CONNECT_TIMEOUT", "1s")
    with (
        pytest.raises(ClusterUnavailable, match="cannot reach the Dask scheduler"),
        open_executor(scheduler="tcp://127.0.0.1:9"),
    ):
        pass


@needs_dask
def test_a_local_dask_cluster_gives_the_same_results_in_order():
    with open_executor(scheduler="local:2") as execution:
        assert execution.kind == "dask" and execution.workers == 2
        results = list(execution.map_ordered(abs, range(-10, 10)))
    assert results == [abs(number) for number in range(-10, 10)]


def test_ctrl_c_stops_a_run_and_its_workers_quietly(tmp_path):
    """Ctrl-C at a terminal signals the whole process group: the command stops with
    exit 130, no traceback, no worker left behind; the shards written stay whole."""
    import signal
    import subprocess
    import time

    from cli_runner import partita_job

    process = partita_job(
        "simulate", "connect4", "--games", "400", "--agents", "mcts:40", "--shard-size", "2",
        "--workers", "2", "-o", str(tmp_path),
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(tmp_path.glob("shard-*.pgr")):
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    time.sleep(0.5)
    left = subprocess.run(
        ["ps", "-o", "pid=,stat=,args=", "-g", str(process.pid)], capture_output=True, text=True
    ).stdout
    alive = [line for line in left.splitlines() if line.split()[1][0] != "Z"]
    assert alive == [], left  # nothing of the group runs on (the dead wait to be reaped)
    assert not list(tmp_path.glob(".*.part"))


def test_every_scheduler_option_reads_the_execution_layers_variable():
    from typing import get_args

    from partita.cli.options import SchedulerOption
    from partita.execution import SCHEDULER_VARIABLE

    assert get_args(SchedulerOption)[1].envvar == SCHEDULER_VARIABLE
