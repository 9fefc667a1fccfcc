"""Names folded for matching, and tag values read as numbers: what the archive
stores in its indexed players and tags (:mod:`partita.database.indexed`) and what
the filters compare with (:mod:`partita.database.filters`, which exports both).

A module of its own, with nothing else to import: every import fills those
tables (SQLite calls these two functions), and the filters module costs a small
import about 5 ms more of start-up (its regular expressions, the games' registry).
"""

from __future__ import annotations

import re
import unicodedata
from typing import overload

__all__ = ["fold", "number"]

_NUMBER = re.compile(r"\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*")


@overload
def fold(text: str) -> str: ...
@overload
def fold(text: None) -> None: ...
def fold(text: str | None) -> str | None:
    """``text`` for comparing names: case-folded, compatibility-decomposed (NFKD),
    combining marks dropped, case-folded again (``Zoë`` and ``ZOE`` both give ``zoe``).

    Folding the case first turns what case mapping spells as a letter (the Greek iota
    subscript, ``ᾳ`` -> ``αι``) into that letter before the marks go; the second fold
    catches capitals that a decomposition brings (``㎒`` -> ``MHz``). Turkish dotless
    ``ı`` becomes ``i``, as ``I``, ``İ`` and ``i`` already do: its case pairs (``ı``/``I``,
    ``i``/``İ``) would otherwise make ``ISIK`` miss ``Işık``.
    """
    if text is None:
        return None
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return bare.casefold().replace("\u0131", "i")


def number(text: str | None) -> float | None:
    """The number a tag value writes (``"1850"``, ``"-2.5"``), else ``None``.

    ``\\s`` matches a few separators (``\\x1c``-``\\x1f``) that ``float`` does not
    strip: such a value is no number rather than an error inside SQLite."""
    if text is None or not _NUMBER.fullmatch(text):
        return None
    try:
        return float(text)
    except ValueError:
        return None
