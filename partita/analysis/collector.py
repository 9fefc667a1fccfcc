"""Python's cycle collector paused while a search or a tree build runs.

Both allocate hundreds of thousands of small acyclic objects (nodes, tuples,
dicts), which set the collector off again and again to walk what they have built:
a quarter of a search's time, more than a tree build itself. Their structures hold
no cycle (a node knows its children, not its parent), so reference counting frees
them all the same.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector paused for the block, and left as it was after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
