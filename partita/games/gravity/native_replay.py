"""The compiled key replay of the gravity games, when it is built and not turned off.

``_native.Replay`` (in ``_native.c``, an optional extension) does for canonical
entry tokens what :meth:`GravityRules.replay_entry_keys
<partita.games.gravity.rules.GravityRules.replay_entry_keys>` does after the
token-to-entry look-up: the key after each move, the move number before each and
the last position, as the same Python values. It decides only what it is sure of:
at any other token, a move it finds illegal or a position it does not take, it
gives up, and the checked Python loop replays the moves and finds the exact problem
(:meth:`GravityNotation.replay_keys
<partita.games.gravity.notation.GravityNotation.replay_keys>`).

``PARTITA_PYTHON_REPLAY=1`` in the environment (read at import, so a worker process
inherits it) or :data:`enabled` set to ``False`` forces the Python loop: for
differential tests and A/B benchmarks.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from importlib import import_module
from typing import Protocol

__all__ = ["PYTHON_REPLAY_VARIABLE", "NativeReplay", "available", "enabled", "native_replay"]

#: The environment variable that forces the Python replay loop (``1``).
PYTHON_REPLAY_VARIABLE = "PARTITA_PYTHON_REPLAY"


class NativeReplay(Protocol):
    """What ``_native.Replay`` offers (see ``_native.c``)."""

    def keys(
        self,
        board: bytes,
        ply: int,
        tokens: Sequence[str],
        prefix: bytes | None = None,
    ) -> tuple[list[Hashable], list[tuple[int, bool]], int, int, int] | None:
        """From the position whose ``x | o << W*H`` is ``board`` (little-endian, 2*W*H
        bits) at ``ply``: the keys, the move-number labels, the last position's
        ``x | o << W*H``, ply and line; ``None`` when it gives up. With ``prefix``
        (a :class:`~partita.database.keys.KeyListFolder`'s, opaque bytes: what the
        hash reads before each key), each key comes folded as the archive stores
        it, by a BLAKE2b in C (the same ints as :func:`~partita.database.keys.fold_key`)."""
        ...


try:  # the optional compiled core (an older build has no Replay)
    _Replay = getattr(import_module("partita.games.gravity._native"), "Replay", None)
except ImportError:  # pragma: no cover - depends on the build
    _Replay = None

#: Whether the compiled replay was built.
available: bool = _Replay is not None
#: Whether replay_keys uses it: built, and not turned off by the environment.
enabled: bool = available and os.environ.get(PYTHON_REPLAY_VARIABLE) != "1"


def native_replay(width: int, height: int, sides: str, line_length: int) -> NativeReplay | None:
    """The compiled replay of one board, or ``None`` when it was not built."""
    if _Replay is None:
        return None
    replay: NativeReplay = _Replay(width, height, sides, line_length)
    return replay
