"""The gravity games' faster key replay: their spec's ``fast_replay``, used by the
bulk import and validation (:func:`partita.bulk.plain.key_replay`).

For canonical entry tokens it gives what the reference replay's loop gives (the
position key after each move, the move number before each, the last state):
through ``_native.Replay`` (in ``_native.c``, an optional extension) where it is
built, else through :meth:`GravityRules.replay_entry_keys
<partita.games.gravity.rules.GravityRules.replay_entry_keys>` after a token-to-entry
look-up. The compiled replay decides only what it is sure of: at any other token, a
move it finds illegal or a position it does not take, it gives up, and the Python
loop replays the moves. The keys are the rules' raw keys, or, given the archive's
fold (:class:`~partita.bulk.plain.KeyFold`), folded: the Python loop calls the
fold, the compiled replay hashes the fold's opaque prefixes
(:meth:`~partita.database.keys.KeyListFolder.int_prefixes`) before each key's
bytes, without a Python call per key and without knowing the encoding.

``PARTITA_PYTHON_REPLAY=1`` in the environment (read at import, so a worker process
inherits it) or :data:`enabled` set to ``False`` forces the Python loop: for
differential tests and A/B benchmarks.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Protocol, cast

from partita.games.gravity.rules import GravityState

if TYPE_CHECKING:
    from partita.bulk.plain import KeyFold
    from partita.games.gravity.notation import GravityNotation

__all__ = [
    "PYTHON_REPLAY_VARIABLE",
    "NativeReplay",
    "available",
    "compiled_replay",
    "enabled",
    "fast_replay",
    "native_replay",
    "python_replay",
]

#: The environment variable that forces the Python replay loop (``1``).
PYTHON_REPLAY_VARIABLE = "PARTITA_PYTHON_REPLAY"

#: What a key replay gives: the keys, the move numbers, the last state.
Replayed = tuple[list[Hashable], list[tuple[int, bool]], GravityState]


class Replay(Protocol):
    """A key replay of one board (see :data:`partita.bulk.plain.KeyReplay`)."""

    def __call__(
        self, state: GravityState, tokens: Sequence[str], fold: KeyFold | None = None
    ) -> Replayed | None: ...


class NativeReplay(Protocol):
    """What ``_native.Replay`` offers (see ``_native.c``)."""

    def keys(
        self,
        board: bytes,
        ply: int,
        tokens: Sequence[str],
        prefixes: tuple[bytes, ...] | None = None,
    ) -> tuple[list[Hashable], list[tuple[int, bool]], int, int, int] | None:
        """From the position whose ``x | o << W*H`` is ``board`` (little-endian, 2*W*H
        bits) at ``ply``: the keys, the move-number labels, the last position's
        ``x | o << W*H``, ply and line; ``None`` when it gives up. With ``prefixes``
        (the hash's prefix for each length of a key's bytes, opaque bytes from
        :meth:`~partita.database.keys.KeyListFolder.int_prefixes`), each key folded."""
        ...


try:  # the optional compiled core (an older build has no Replay)
    _Replay = getattr(import_module("partita.games.gravity._native"), "Replay", None)
except ImportError:  # pragma: no cover - depends on the build
    _Replay = None

#: Whether the compiled replay was built.
available: bool = _Replay is not None
#: Whether fast_replay uses it: built, and not turned off by the environment.
enabled: bool = available and os.environ.get(PYTHON_REPLAY_VARIABLE) != "1"


def native_replay(width: int, height: int, sides: str, line_length: int) -> NativeReplay | None:
    """The compiled replay of one board, or ``None`` when it was not built."""
    if _Replay is None:
        return None
    replay: NativeReplay = _Replay(width, height, sides, line_length)
    return replay


def compiled_replay(notation: GravityNotation) -> Replay | None:
    """The compiled key replay of one configured gravity game (``None`` where it
    gives up), or ``None`` when it was not built."""
    rules = notation.rules
    compiled = native_replay(rules.width, rules.height, rules.entry_sides, rules.line_length)
    if compiled is None:
        return None
    cells = rules.cell_count
    board_bytes = (2 * cells + 7) // 8
    key_bytes = (2 * cells + 1 + 8) // 8  # the longest key, with room for a sign bit

    def replay(
        state: GravityState, tokens: Sequence[str], fold: KeyFold | None = None
    ) -> Replayed | None:
        if state.line:  # the game is over: no move is legal
            return None if tokens else ([], [], state)
        x, o = state.x, state.o
        if (x | o) >> cells:  # bits off the board, or negative: no state play reaches
            return None
        board = (x | o << cells).to_bytes(board_bytes, "little")
        prefixes = None if fold is None else fold.int_prefixes(key_bytes)
        replayed = compiled.keys(board, state.ply, tokens, prefixes)
        if replayed is None:
            return None
        keys, labels, after, ply, line = replayed
        if not keys:
            return keys, labels, state
        return keys, labels, GravityState(after & (1 << cells) - 1, after >> cells, ply, line)

    return replay


def python_replay(notation: GravityNotation) -> Replay:
    """The Python key replay of one configured gravity game: canonical tokens looked
    up, then :meth:`~partita.games.gravity.rules.GravityRules.replay_entry_keys`."""
    rules = notation.rules
    canonical = {entry.notation(): entry for entry in rules.entries}

    def replay(
        state: GravityState, tokens: Sequence[str], fold: KeyFold | None = None
    ) -> Replayed | None:
        entries = []
        for token in tokens:
            entry = canonical.get(token)
            if entry is None:
                return None
            entries.append(entry)
        replayed = rules.replay_entry_keys(state, entries)
        if replayed is None or fold is None:
            return replayed
        keys, labels, after = replayed
        return cast("list[Hashable]", fold(keys)), labels, after

    return replay


def fast_replay(notation: GravityNotation) -> Replay:
    """The key replay of one configured gravity game (see the module docstring):
    the compiled one where it is built and :data:`enabled`, the Python loop
    wherever that gives up."""
    loop = python_replay(notation)
    made: list[Replay | None] = []

    def replay(
        state: GravityState, tokens: Sequence[str], fold: KeyFold | None = None
    ) -> Replayed | None:
        if enabled:
            if not made:  # made on first use
                made.append(compiled_replay(notation))
            compiled = made[0]
            if compiled is not None:
                replayed = compiled(state, tokens, fold)
                if replayed is not None:
                    return replayed
        return loop(state, tokens, fold)

    return replay
