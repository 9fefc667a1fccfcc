"""How many cores this process may use, how many of them other work leaves idle
now, and how worker processes may start: what the automatic worker counts of
import and validate are made of.

No heavy import (a one-process import loads this module too).
"""

from __future__ import annotations

import os
import sys

__all__ = [
    "IDLE_SAMPLE_SECONDS",
    "PROC_STAT",
    "idle_cores",
    "processes_for_idle_cores",
    "running_threads",
    "sampled_idle_share",
    "start_idle_sample",
    "usable_cpus",
    "worker_start_method",
]


def processes_for_idle_cores(limit: int) -> int:
    """This process and one worker per further idle core, at most ``limit`` and the
    usable CPUs in all, at least 1: this process takes the first idle core, each
    further one (rounded: at least half of it idle) is a worker. A worker on a core
    other work keeps busy only takes turns with it (the measurements:
    benchmarks/results/2026-12-06-archive.md)."""
    cpus = usable_cpus()
    extra = int(idle_cores(cpus) - 0.5)
    return max(1, min(cpus, limit, 1 + extra))


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


#: Where the system keeps its CPU times (Linux), and how long :func:`idle_cores`
#: watches them.
PROC_STAT = "/proc/stat"
IDLE_SAMPLE_SECONDS = 0.1


def idle_cores(cpus: int) -> float:
    """The cores other work leaves idle now: the idle share of the system's CPU
    time over a tenth of a second (:func:`sampled_idle_share`) times ``cpus``, where
    the system keeps its CPU times; else the CPUs less the 1-minute load average
    (0 idle when it is higher), which lags a minute behind (an import that has just
    ended still counts there); where the system has neither, every core."""
    share = sampled_idle_share()
    if share is not None:
        return share * cpus
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows; a system that cannot say
        return float(cpus)
    return max(0.0, cpus - load)


#: A sample begun by :func:`start_idle_sample` serves :func:`sampled_idle_share`
#: up to this many seconds after it began; an older one says little of now.
EARLY_SAMPLE_MAX_SECONDS = 2.0

# (monotonic seconds, the system's CPU times, this process's CPU ticks) at the
# start of an early sample, or None.
_early_sample: tuple[float, list[int], float] | None = None


def start_idle_sample() -> None:
    """Begin the sample :func:`sampled_idle_share` reads next, now: the CLI calls it
    as it starts, so that the tenth of a second the sample needs passes while the
    command loads and reads its arguments instead of in a sleep (about a tenth of a
    small import's time). One read of :data:`PROC_STAT`; nothing where it cannot be
    read."""
    global _early_sample
    before = _cpu_times()
    _early_sample = None if before is None else (_monotonic(), before, _own_ticks())


def sampled_idle_share() -> float | None:
    """The share of the system's CPU time spent idle (waiting for input or output
    included) over :data:`IDLE_SAMPLE_SECONDS` at least, from :data:`PROC_STAT`;
    ``None`` where it cannot be read (not Linux) or says nothing (no time passed).

    From the sample :func:`start_idle_sample` began, if any (used once, and only
    within :data:`EARLY_SAMPLE_MAX_SECONDS`), sleeping only what is left of the
    tenth of a second: this process's own CPU time since then counts as idle, since
    it is the start-up of the work that asks (which takes the first idle core), not
    other work. Else over a sleep of :data:`IDLE_SAMPLE_SECONDS`."""
    import time

    global _early_sample
    early, _early_sample = _early_sample, None
    if early is not None and _monotonic() - early[0] > EARLY_SAMPLE_MAX_SECONDS:
        early = None
    if early is None:
        before, own_before = _cpu_times(), 0.0
        if before is None:
            return None
        time.sleep(IDLE_SAMPLE_SECONDS)
    else:
        started, before, own_before = early
        left = started + IDLE_SAMPLE_SECONDS - _monotonic()
        if left > 0:
            time.sleep(left)
    after = _cpu_times()
    if after is None:
        return None
    spent = [later - earlier for earlier, later in zip(before, after, strict=False)]
    total = sum(spent)
    if total <= 0:
        return None
    idle: float = spent[3] + (spent[4] if len(spent) > 4 else 0)  # idle, iowait
    if early is not None:
        idle += _own_ticks() - own_before
    return min(1.0, max(0.0, idle / total))


def _monotonic() -> float:
    import time

    return time.monotonic()


def _own_ticks() -> float:
    """This process's CPU time so far (user and system), in :data:`PROC_STAT`'s
    unit (clock ticks)."""
    times = os.times()
    return (times.user + times.system) * os.sysconf("SC_CLK_TCK")


def _cpu_times() -> list[int] | None:
    """The system's CPU times so far (the ``cpu`` line of :data:`PROC_STAT`: user,
    nice, system, idle, iowait, irq, softirq, steal), ``None`` if unreadable."""
    try:
        with open(PROC_STAT, encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if len(fields) < 5 or fields[0] != "cpu":
        return None
    try:
        return [int(field) for field in fields[1:9]]
    except ValueError:
        return None


def worker_start_method(
    fork: bool, *, platform: str | None = None, threads: int | None = None
) -> str:
    """How to start local worker processes: ``"fork"`` when the caller allows it
    (``fork``: it holds nothing a copy of the process must not share, as the CLI's
    import), on Linux, and this process runs no other thread now (``threads``,
    default :func:`running_threads`); else ``"spawn"``, a fresh interpreter.

    A fork copies the process as it is, in a few milliseconds, where a spawned
    worker imports partita again (0.25-0.47 s of CPU on this machine,
    benchmarks/results/2026-12-02-import.md); but a thread running during the fork may hold a lock the
    copy then never sees released, and macOS's system libraries are not safe to
    use after a fork at all. Checked by the caller right before it forks."""
    if not fork or (platform or sys.platform) != "linux":
        return "spawn"
    if threads is None:
        threads = running_threads()
    return "fork" if threads == 1 else "spawn"


def running_threads() -> int | None:
    """The threads this process runs now, those no Python code started included
    (Linux's ``/proc/self/task``), ``None`` where that cannot be read."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None
