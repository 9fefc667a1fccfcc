"""What each process of the concurrent-import test runs (a module of its own, so
that a spawned process imports the archive code alone, not the test module)."""

from __future__ import annotations

from partita.bulk import import_paths
from partita.database.schema import archive


def import_at_once(database: str, source: str, barrier, results) -> None:
    """Wait for the other processes, then import ``source`` into ``database``
    (one that none of them has made yet); report the outcome on ``results``."""
    barrier.wait()
    try:
        with archive(database) as opened:
            summary = import_paths(opened, [source])
        results.put(("ok", summary.imported, summary.duplicates))
    except Exception as error:  # reported to the test, which fails on it
        results.put(("error", type(error).__name__, str(error)))
