"""Test-run options shared by every test module.

Hypothesis profiles: ``fast``, the default run's, tries fewer examples (the run has
to stay within a few minutes on two cores); ``thorough``
(``--hypothesis-profile=thorough``) gives every property test its full count
(:mod:`budget`) and the others 300.

`--cpu-durations=N` lists the N tests that used the most CPU time (this process plus
the subprocesses it waited for), setup and teardown included: on a machine shared
with other work, wall-clock durations say more about the neighbours than the tests.

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

#: The default run: fewer examples than Hypothesis's 100 for the tests that name no
#: count, and no deadline (on a loaded machine a deadline fails a correct test).
settings.register_profile(FAST, max_examples=25, deadline=None)
settings.register_profile(THOROUGH, max_examples=300, deadline=None)
settings.load_profile(FAST)  # --hypothesis-profile, read after this, replaces it

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

_cpu_seconds: defaultdict[str, float] = defaultdict(float)


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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator:
    if item.config.getoption("cpu_durations") is None:
        return (yield)
    started = _cpu_now()
    try:
        return (yield)
    finally:
        _cpu_seconds[item.nodeid] += _cpu_now() - started


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    limit = config.getoption("cpu_durations")
    if limit is None or not _cpu_seconds:
        return
    ranked = sorted(_cpu_seconds.items(), key=lambda pair: pair[1], reverse=True)
    total = sum(_cpu_seconds.values())
    terminalreporter.write_sep("=", f"CPU time per test (total {total:.1f}s)")
    for nodeid, seconds in ranked[: limit or None]:
        terminalreporter.write_line(f"{seconds:8.2f}s  {nodeid}")
