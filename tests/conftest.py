"""Test-run options shared by every test module.

Hypothesis profiles: ``fast``, the default run's, tries fewer examples (the run has
to stay within a few minutes on two cores); ``thorough``
(``--hypothesis-profile=thorough``) gives every property test its full count
(:mod:`budget`) and the others 300.

`--cpu-durations=N` lists the N tests that used the most CPU time (this process plus
the subprocesses it waited for), setup and teardown included, then every test file's
total: on a machine shared with other work, wall-clock durations say more about the
neighbours than the tests. Under pytest-xdist each worker measures its own tests and
sends the figure with the test's report (``user_properties``), so the totals are the
same with and without ``-n``.

The run uses both cores (pytest-xdist, ``-n auto --dist loadfile`` in pyproject's
addopts; ``-n 0`` for one process). Each test file runs whole in one worker, so its
module fixtures are built once; the files of ``SHARED_WORKER`` share a worker, so a
session fixture they share is built once.

A run started in the background of a non-interactive shell (``pytest &``) inherits
Ctrl-C ignored, and so would every command the tests start, which then never see
the interrupts the Ctrl-C tests send them: this process takes Python's own handler
back, and its children get the default one.
"""

from __future__ import annotations

import os
import signal
import time
from collections import defaultdict
from collections.abc import Generator

import pytest
from budget import FAST, THOROUGH
from hypothesis import settings
from report_archives import REPORT_GROUP, ExamplesReport, examples_report
from web_server import browser, page, web_archive, web_server  # noqa: F401 (fixtures)

#: The default run: fewer examples than Hypothesis's 100 for the tests that name no
#: count, and no deadline (on a loaded machine a deadline fails a correct test).
settings.register_profile(FAST, max_examples=25, deadline=None)
settings.register_profile(THOROUGH, max_examples=300, deadline=None)
settings.load_profile(FAST)  # --hypothesis-profile, read after this, replaces it

# The gravity solver's tests test partita's own search, whether or not the optional
# bitbully engine is installed; the tests of that engine ask for it by name.
os.environ.setdefault("PARTITA_GRAVITY_ENGINE", "search")

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

_cpu_seconds: defaultdict[str, float] = defaultdict(float)


#: Test files that run in one xdist worker, by the name of what they share (a session
#: fixture built once in that worker). xdist's own ``--dist loadgroup`` marks do not
#: work with pytest 9 (xdist renames the node id, which pytest 9 no longer reads).
SHARED_WORKER = {
    "tests/test_report.py": REPORT_GROUP,
    "tests/test_report_browser.py": REPORT_GROUP,
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadfile``, with the files of :data:`SHARED_WORKER` kept together."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedFileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            return SHARED_WORKER.get(path, path)

    return SharedFileScheduling(config, log)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-durations",
        type=int,
        default=None,
        metavar="N",
        help="list the N tests that used the most CPU time (0 for all)",
    )


def _cpu_now() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    times = os.times()
    return time.process_time() + times.children_user + times.children_system


#: The name under which a test's CPU seconds travel in its report (from an xdist worker).
_CPU_PROPERTY = "cpu_seconds"
#: When each running test started, in CPU seconds (see _cpu_now), by node id.
_cpu_started: dict[str, float] = {}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator:
    if item.config.getoption("cpu_durations") is None:
        return (yield)
    _cpu_started[item.nodeid] = _cpu_now()
    try:
        return (yield)
    finally:
        _cpu_started.pop(item.nodeid, None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Generator:
    """The teardown report, the test's last, carries its CPU seconds so far."""
    report = yield
    started = _cpu_started.get(item.nodeid)
    if call.when == "teardown" and started is not None:
        report.user_properties.append((_CPU_PROPERTY, _cpu_now() - started))
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Collect the figures where the summary is written (the controller under xdist)."""
    for name, value in report.user_properties:
        if name == _CPU_PROPERTY:
            _cpu_seconds[report.nodeid] += value


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    limit = config.getoption("cpu_durations")
    if limit is None or not _cpu_seconds:
        return
    ranked = sorted(_cpu_seconds.items(), key=lambda pair: pair[1], reverse=True)
    total = sum(_cpu_seconds.values())
    terminalreporter.write_sep("=", f"CPU time per test (total {total:.1f}s)")
    for nodeid, seconds in ranked[: limit or None]:
        terminalreporter.write_line(f"{seconds:8.2f}s  {nodeid}")
    per_file: defaultdict[str, float] = defaultdict(float)
    for nodeid, seconds in _cpu_seconds.items():
        per_file[nodeid.split("::", 1)[0]] += seconds
    terminalreporter.write_sep("=", "CPU time per test file")
    for path, seconds in sorted(per_file.items(), key=lambda pair: pair[1], reverse=True):
        terminalreporter.write_line(f"{seconds:8.2f}s  {path}")


@pytest.fixture(scope="session")
def examples_report_page(tmp_path_factory) -> ExamplesReport:
    """The one report page the report and browser tests read (report_archives.py)."""
    return examples_report(tmp_path_factory.mktemp("examples-report"))
