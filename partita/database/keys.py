"""Position keys folded to one signed 64-bit integer, the archive's position column.

A rules engine's key (:meth:`partita.game.rules.Rules.key`) is an int, a string,
bytes, or a tuple of those, of any size (an 8x8 bitboard with its side to move is a 129-bit int). SQLite
indexes a 64-bit INTEGER best, so the archive stores

    fold(game, key) = int.from_bytes(blake2b(prefix + encode(key), 8 bytes), "little", signed)

where ``prefix`` (:func:`prefix_for`) is ``game + NUL`` for the game's default
set-up (:attr:`Configuration.is_default <partita.game.configuration.Configuration.is_default>`)
and ``game + NUL + "c" + encode((sides, settings))`` for any other, ``settings``
the tags away from their default as ``(name, value)`` pairs sorted by name. A 5 x 5
board and a 3 x 3 one, or a three-sided game and a two-sided one, never share a
key; the ``c`` is no type tag of the encoding, so no prefix is the start of another
set-up's data.

where ``encode`` is a canonical byte encoding, a type tag then the value:

* ``int``: ``i``, a 4-byte little-endian length, the two's complement
  little-endian bytes of the minimal length that holds the sign bit;
* ``bool``: ``?`` and one byte 0 or 1 (a bool is not the int 0 or 1);
* ``str``: ``s``, the length, the UTF-8 bytes;
* ``bytes``: ``b``, the length, the bytes;
* ``tuple`` (and ``list``): ``t``, the element count, each element encoded;
* ``None``: ``n``.

The game's name and set-up go into the hash, so equal keys of two games, or of two
set-ups of one game, never meet. The fold
is stable across runs, platforms and Python versions (no ``hash()``), which is what
lets a query made today find a game imported last year. Two different positions
share a folded key with probability about 2**-64 per pair: negligible for any
archive partita will see.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from hashlib import blake2b
from struct import unpack
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from partita.game.configuration import Configuration

__all__ = [
    "KeyListFolder",
    "encode_key",
    "fold_key",
    "key_folder",
    "key_list_folder",
    "prefix_for",
]

_LENGTH = 4


def _length(count: int) -> bytes:
    return count.to_bytes(_LENGTH, "little")


def encode_key(key: Hashable) -> bytes:
    """The canonical bytes of a position key (see the module docstring).

    Nested tuples are walked with an explicit stack: no recursion.
    """
    parts: list[bytes] = []
    stack: list[Any] = [key]  # anything a key may hold
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is bool:
            parts.append(b"?\x01" if value else b"?\x00")
        elif kind is int or isinstance(value, int):
            size = (value.bit_length() + 8) // 8  # room for the sign bit
            parts.append(b"i" + _length(size) + value.to_bytes(size, "little", signed=True))
        elif isinstance(value, str):
            data = value.encode("utf-8")
            parts.append(b"s" + _length(len(data)) + data)
        elif isinstance(value, bytes | bytearray | memoryview):
            data = bytes(value)
            parts.append(b"b" + _length(len(data)) + data)
        elif isinstance(value, tuple | list):
            parts.append(b"t" + _length(len(value)))
            stack.extend(reversed(value))
        elif value is None:
            parts.append(b"n")
        else:
            raise TypeError(
                f"a position key is made of ints, strings, bytes and tuples, not {kind.__name__}"
            )
    return b"".join(parts)


def prefix_for(name: str, configuration: Configuration | None = None) -> bytes:
    """What the hash reads before a key's encoding for a position of the game ``name`` set up
    as ``configuration`` (``None``: the default set-up); see the module docstring."""
    head = name.encode("utf-8") + b"\x00"
    if configuration is None or configuration.is_default:
        return head
    settings = tuple(sorted(configuration.tags().items()))
    return head + b"c" + encode_key((configuration.sides, settings))


def fold_key(name: str, key: Hashable, configuration: Configuration | None = None) -> int:
    """The signed 64-bit integer the archive stores for ``key`` of game ``name`` set
    up as ``configuration`` (``None``: the default set-up)."""
    digest = blake2b(prefix_for(name, configuration) + encode_key(key), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def key_folder(name: str, configuration: Configuration | None = None) -> Callable[[Hashable], int]:
    """``fold_key`` bound to one game and set-up, with a fast path for plain int keys.

    The importer folds every ply of every record; hashing a prepared prefix copy
    and skipping the general encoder for ints (bitboard keys) is about
    twice as fast and gives the same values (a test checks it).
    """
    fold_all = key_list_folder(name, configuration)

    def fold(key: Hashable) -> int:
        return fold_all((key,))[0]

    return fold


def key_list_folder(name: str, configuration: Configuration | None = None) -> KeyListFolder:
    """``fold_key`` of each key of a list, bound to one game and set-up: the
    importer's form of :func:`key_folder` (a record's keys in one call, the digests
    turned into integers all at once); the same values (a test checks it)."""
    return KeyListFolder(name, configuration)


class KeyListFolder:
    """``fold_key`` of each key of a list for one game and set-up (:func:`key_list_folder`).

    ``prefix`` is what the hash reads before each key's encoding
    (:func:`prefix_for`: the game's name and NUL, then its set-up where it is not
    the default). This module is the one place the fold is written: a game's replay
    gives raw keys and the archive folds them here, or a compiled replay hashes
    the opaque prefixes :meth:`int_prefixes` gives it before each key's own bytes.
    """

    __slots__ = ("_fold", "_int_prefixes", "prefix")

    def __init__(self, name: str, configuration: Configuration | None = None) -> None:
        self.prefix = prefix_for(name, configuration)
        self._fold = _list_folder(self.prefix)
        self._int_prefixes: tuple[bytes, ...] = ()

    def __call__(self, keys: Sequence[Hashable]) -> list[int]:
        return self._fold(keys)

    def int_prefixes(self, longest: int) -> tuple[bytes, ...]:
        """What the hash reads before an int key's own bytes (two's complement,
        little-endian, the fewest that hold the sign bit), for each length of those
        bytes from 0 to ``longest``: an int key's fold is the hash of
        ``int_prefixes[len(data)] + data``, 8 bytes of digest read as a signed
        little-endian int. Opaque to a compiled replay that folds keys as it makes
        them, so that only this module knows the encoding."""
        if len(self._int_prefixes) <= longest:
            self._int_prefixes = tuple(
                self.prefix + b"i" + _length(size) for size in range(longest + 1)
            )
        return self._int_prefixes


def _list_folder(prefix_bytes: bytes) -> Callable[[Sequence[Hashable]], list[int]]:
    prefix = blake2b(prefix_bytes, digest_size=8)
    copy = prefix.copy
    headers: dict[int, bytes] = {}

    def fold_all(keys: Sequence[Hashable]) -> list[int]:
        digests: list[bytes] = []
        append = digests.append
        for key in keys:
            if type(key) is int:
                size = (key.bit_length() + 8) >> 3
                header = headers.get(size)
                if header is None:
                    header = headers[size] = b"i" + size.to_bytes(_LENGTH, "little")
                data = header + key.to_bytes(size, "little", signed=True)
            else:
                data = encode_key(key)
            hasher = copy()
            hasher.update(data)
            append(hasher.digest())
        return list(unpack(f"<{len(digests)}q", b"".join(digests)))

    return fold_all
