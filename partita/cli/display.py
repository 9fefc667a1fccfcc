"""Text from records as the CLI shows it: control characters escaped, no markup.

A record's values (tags, comments, tokens) and the problems that quote them may hold
any character. Printed raw, an escape sequence (``\\x1b]0;...\\x07`` sets the
terminal's title, ``\\x1b[2J`` clears it, colours...) would act on the user's
terminal, and a bidirectional control would reorder what is shown. So the CLI shows
every such character as an escape, on a terminal and in plain output alike; JSON
output escapes them by itself, and PGR written to a file or a pipe stays exact.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["EscapingStream", "count", "plain", "printable", "wrap_units"]

#: What a terminal may act on: C0 and C1 controls and DEL, the line and paragraph
#: separators, and the bidirectional controls (U+061C, U+200E-F, U+202A-E, U+2066-9).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_IN_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``, ``\\t``,
    ``\\u202e``); ``lines`` keeps line breaks and tabs (a diagram, a PGR text)."""
    pattern = _UNSAFE_IN_LINES if lines else _UNSAFE
    return pattern.sub(_escape, text)


def plain(text: str) -> Text:
    """``text`` escaped (see :func:`printable`) as a rich ``Text``: a table cell or a
    line that rich prints as it is, never reading ``[...]`` in it as markup."""
    from rich.text import Text

    return Text(printable(text))


class EscapingStream:
    """A text stream that escapes control characters (but line breaks and tabs) on
    their way to ``stream``: PGR or SVG shown on a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(printable(text, lines=True))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


def count(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` with thousands separators and ``noun`` in the right number:
    ``1 game``, ``56,528,678 nodes`` (``plural``: when it is not ``noun + "s"``)."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def wrap_units(units: list[str], width: int) -> list[str]:
    """``units`` (tokens, or a move number with its move: ``12. t4``) joined by
    spaces into lines of at most ``width`` characters, breaking only between units:
    a unit is never split (one longer than ``width`` has a line of its own), so a
    line copied from the screen reads back as the same tokens."""
    lines: list[str] = []
    line = ""
    for unit in units:
        if line and len(line) + 1 + len(unit) > width:
            lines.append(line)
            line = unit
        else:
            line = f"{line} {unit}" if line else unit
    if line:
        lines.append(line)
    return lines
