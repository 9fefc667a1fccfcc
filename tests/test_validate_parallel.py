"""`partita validate` through the execution layer: the same output, exit code and
order with one process, local workers and a Dask cluster; what travels; Ctrl-C."""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import pickle
import random
import signal
import sys
import time
from pathlib import Path

import pytest
from cli_runner import partita_job, run_cli

from partita.bulk import validation
from partita.bulk import workers as worker_layer
from partita.bulk.chunks import chunks
from partita.bulk.validation import RecordCheck, check_chunk, validate_files
from partita.bulk.workers import auto_workers
from partita.execution import open_executor
from partita.notation.files import expand_paths
from partita.notation.reader import read_records
from partita.notation.replay import replay


def reference(paths, strict=False):
    """Each record of ``paths`` read and replayed the reference way."""
    for path in expand_paths(paths):
        for record in read_records(path):
            yield replay(record, strict=strict)


ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
INVALID = EXAMPLES / "invalid"

needs_dask = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="Dask's distributed is not installed (pip install -e '.[cluster]')",
)


def spread_corpus(folder: Path) -> list[Path]:
    """Three files (one gzipped) of the shipped records, valid and invalid shuffled
    together, so that with small chunks the invalid ones fall in many chunks."""
    shipped = [path.read_bytes() for path in expand_paths([EXAMPLES]) if path.suffix == ".pgr"]
    assert sum(b'"invalid' in text.lower() or b"Invalid" in text for text in shipped) > 10
    rng = random.Random(13)
    folder.mkdir()
    paths = []
    for number in range(3):
        texts = shipped[:]
        rng.shuffle(texts)
        data = b"\n".join(text.rstrip(b"\n") + b"\n" for text in texts)
        path = folder / f"part-{number}.pgr"
        if number == 2:
            path = path.with_suffix(".pgr.gz")
            data = gzip.compress(data, mtime=0)
        path.write_bytes(data)
        paths.append(path)
    return paths


def validated(args: list[str], **kwargs: object) -> tuple[int, str, str]:
    code, out, err = run_cli(["validate", *args], **kwargs)  # type: ignore[arg-type]
    return code, out, err


# -- the same whatever runs it -------------------------------------------------------------------


@pytest.mark.parametrize("options", [[], ["--json"], ["--strict"], ["--json", "--strict"]])
def test_local_workers_give_the_serial_output_on_the_shipped_examples(options, monkeypatch):
    monkeypatch.setattr(validation, "CHUNK_BYTES", 3000)  # several chunks a folder
    serial = validated([str(EXAMPLES), *options, "--workers", "1"])
    parallel = validated([str(EXAMPLES), *options, "--workers", "2"])
    assert parallel == serial
    code, out, err = serial
    assert code == 1 and err == ""  # the invalid examples
    if "--json" in options:
        records = [json.loads(line) for line in out.splitlines()]
        assert len(records) > 150 and not all(record["valid"] for record in records)
        # input order: the files as found, each record's index counting from 0 in it
        files = [str(path) for path in expand_paths([EXAMPLES])]
        order = [(files.index(record["file"]), record["index"]) for record in records]
        assert order == sorted(order)
    else:
        assert out.splitlines()[-1].startswith(f"{sum(1 for _ in reference([EXAMPLES]))} records")


def test_errors_spread_over_many_chunks_keep_their_order_and_places(tmp_path, monkeypatch):
    monkeypatch.setattr(validation, "CHUNK_BYTES", 2000)
    paths = [str(path) for path in spread_corpus(tmp_path / "in")]
    pieces = list(chunks([Path(path) for path in paths], False, 2000))
    assert len(pieces) > 30
    # JSON lines carry every place and message; the text form, and two processes,
    # are compared with the serial run on the shipped examples above.
    serial_json = validated([*paths, "--json", "--workers", "1"])
    assert validated([*paths, "--json", "--workers", "3"]) == serial_json
    records = [json.loads(line) for line in serial_json[1].splitlines()]
    invalid_chunks = {
        number
        for number, piece in enumerate(pieces)
        for record in records
        if not record["valid"]
        and record["file"] == piece.data[0]
        and record["index"] in {entry[1] for entry in piece.data[2]}
    }
    assert len(invalid_chunks) > 20  # errors in most chunks, not in one
    assert serial_json[0] == 1
    assert any(
        not record["valid"] and record["file"].endswith("part-2.pgr.gz") for record in records
    )


@needs_dask
def test_a_dask_cluster_gives_the_serial_output(tmp_path, monkeypatch):
    """A Dask LocalCluster of 2 workers reads and replays, named by --scheduler and
    by $PARTITA_SCHEDULER (one cluster for both: its start is most of the time)."""
    import logging

    import distributed

    monkeypatch.setattr(validation, "CHUNK_BYTES", 3000)
    paths = [str(path) for path in spread_corpus(tmp_path / "in")]
    serial_text = validated([str(EXAMPLES), "--workers", "1"])
    serial_json = validated([*paths, "--json", "--strict", "--workers", "1"])
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # any free port: another run may hold 8787
        silence_logs=logging.ERROR,
    ) as cluster:
        address = cluster.scheduler_address
        assert validated([str(EXAMPLES), "--scheduler", address]) == serial_text
        on_dask = validated([*paths, "--json", "--strict"], env={"PARTITA_SCHEDULER": address})
    assert on_dask == serial_json and serial_json[0] == serial_text[0] == 1


def test_the_progress_advances_by_bytes_done_whatever_runs_it(tmp_path, monkeypatch):
    """The bar's updates: each record's byte offset in the input, then each file's
    end, rising to the input's size; the same with workers."""
    from contextlib import contextmanager

    from partita.cli.commands import records

    monkeypatch.setattr(validation, "CHUNK_BYTES", 2000)
    paths = spread_corpus(tmp_path / "in")[:2]  # the plain files: sizes are their bytes
    updates: dict[str, list[int]] = {}

    for workers in ("1", "2"):
        seen: list[int] = []

        @contextmanager
        def bar(label, *, total, seen=seen, **options):
            seen.append(total)
            yield lambda done: seen.append(done)

        monkeypatch.setattr(records, "progress_bar", bar)
        validated([*map(str, paths), "--json", "--workers", workers])
        updates[workers] = seen
    assert updates["1"] == updates["2"]
    total, *done = updates["1"]
    sizes = [path.stat().st_size for path in paths]
    assert total == sum(sizes) and done == sorted(done) and done[-1] == total
    assert sizes[0] in done and len(done) > 2 * 100


def test_standard_input_is_read_once_here_and_validated_by_workers(monkeypatch):
    monkeypatch.setattr(validation, "CHUNK_BYTES", 2000)
    text = "\n".join(path.read_text("utf-8") for path in sorted(INVALID.glob("*.pgr"))[:12])
    serial = validated(["-", "--json", "--workers", "1"], input=text)
    assert validated(["-", "--json", "--workers", "2"], input=text) == serial
    records = [json.loads(line) for line in serial[1].splitlines()]
    assert {record["file"] for record in records} == {"<stdin>"} and len(records) >= 12


def test_a_damaged_compressed_file_fails_in_its_turn(tmp_path, monkeypatch):
    """The records before the damage are reported, then the one error line: as serially."""
    monkeypatch.setattr(validation, "CHUNK_BYTES", 2000)
    whole = b"\n".join(path.read_bytes() for path in expand_paths([EXAMPLES / "forza4x4"]))
    data = gzip.compress(whole * 8, mtime=0)
    cut = tmp_path / "cut.pgr.gz"
    cut.write_bytes(data[: len(data) // 2])
    after = tmp_path / "after.pgr"
    after.write_bytes(whole)
    serial = validated([str(cut), str(after), "--json", "--workers", "1"])
    assert validated([str(cut), str(after), "--json", "--workers", "2"]) == serial
    code, out, err = serial
    assert code == 1 and "damaged or cut short" in err and len(err.splitlines()) == 1
    assert out.count("\n") > 20 and str(after) not in out


# -- what travels ---------------------------------------------------------------------------------


def test_a_worker_sends_back_plain_checks_not_replayed_records():
    piece = next(chunks(sorted(INVALID.glob("*.pgr")), True, 10_000))
    checks = check_chunk(piece.data)
    replayed = [
        replayed
        for path in sorted(INVALID.glob("*.pgr"))
        for replayed in reference([path], strict=True)
    ][: len(checks)]
    assert [check.as_dict() for check in checks] == [record.as_dict() for record in replayed]
    assert any(check.problems for check in checks)
    for check in checks:  # plain values only: tuples, strings, numbers, None
        assert type(check) is RecordCheck
        assert all(type(values) is tuple for values in check.problems)
        assert all(
            value is None or type(value) in (str, int)
            for values in check.problems
            for value in values
        )
    assert len(pickle.dumps(checks)) < len(pickle.dumps(replayed)) / 5


def test_automatic_workers_follow_the_size_and_the_cpus(monkeypatch):
    from partita import cores

    monkeypatch.setattr(cores, "sampled_idle_share", lambda: 1.0)  # an idle machine
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert auto_workers(worker_layer.PARALLEL_MIN_BYTES - 1) == 1
    assert auto_workers(worker_layer.PARALLEL_MIN_BYTES) == 4
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert auto_workers(50_000_000) == 2
    monkeypatch.setattr(cores, "sampled_idle_share", lambda: 0.5)  # a core busy elsewhere
    assert auto_workers(50_000_000) == 1


def test_a_small_input_is_validated_in_this_process_by_default(monkeypatch):
    def no_executor(*args, **kwargs):
        raise AssertionError("a small validation started workers")

    monkeypatch.setattr(validation, "Workers", no_executor)
    checks = list(validate_files(expand_paths([INVALID]), workers=None))
    assert len(checks) > 20 and not all(check.valid for _, check in checks)


def test_workers_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        list(validate_files([INVALID / "illegal-move.pgr"], workers=0))
    code, _, err = validated([str(INVALID), "--workers", "0"])
    assert code == 2 and "--workers" in err


# -- without Dask, and Ctrl-C ---------------------------------------------------------------------


def test_validate_on_a_cluster_without_dask_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # its import fails
    for args, env in (
        (["--scheduler", "tcp://127.0.0.1:8786"], None),
        ([], {"PARTITA_SCHEDULER": "tcp://127.0.0.1:8786"}),
    ):
        code, out, err = validated([str(INVALID / "illegal-move.pgr"), *args], env=env)
        assert code == 2 and "pip install 'partita[cluster]'" in err
        assert out == ""  # refused before any work


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no signal masks here")
def test_local_workers_start_deaf_to_ctrl_c():
    """A Ctrl-C while a worker starts (before it ignores SIGINT) would print its
    traceback: workers start with SIGINT blocked, and ignore it once running."""
    with open_executor(2) as execution:
        blocked = execution.submit(signal.pthread_sigmask, signal.SIG_BLOCK, []).result()
        handler = execution.submit(signal.getsignal, signal.SIGINT).result()
    assert signal.SIGINT in blocked and handler == signal.SIG_IGN
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # not here


def group_running(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize(
    "where",
    [
        ["--workers", "2"],
        pytest.param(["--scheduler", "local:2"], marks=[needs_dask, pytest.mark.slow]),
    ],
)
def test_ctrl_c_during_a_parallel_validation_is_one_line_and_exit_130(tmp_path, where):
    """Ctrl-C goes to the whole process group: local workers and a local cluster's
    worker processes ignore it, and this process stops them (no traceback of theirs)."""
    source = tmp_path / "many.pgr"
    one = b"\n".join(path.read_bytes() for path in expand_paths([EXAMPLES / "forza4x4"]))
    source.write_bytes(b"\n".join([one] * 400))  # a minute of work, stopped in seconds
    child = partita_job("validate", str(source), "--json", *where)
    assert child.stdout is not None
    first = child.stdout.readline()  # the workers are running
    assert json.loads(first)["file"] == str(source)
    os.killpg(child.pid, signal.SIGINT)  # Ctrl-C: the whole group, workers included
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert "Traceback" not in err and err.splitlines() == ["partita: interrupted"]
    deadline = time.monotonic() + 20
    while group_running(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not group_running(child.pid), "worker processes are left running"
