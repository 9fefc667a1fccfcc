"""Lines and columns of character offsets into a record's text.

Tokens and tree nodes keep character offsets into their record's text; a problem
needs a file line and column. Only problems need them, so they are computed on
demand: a :class:`Locator` notes where each line starts as far as it has been asked
(every character is scanned once) and finds an offset's line by bisection, so any
number of problems, asked in any order, costs time linear in the text.
"""

from __future__ import annotations

from bisect import bisect_right

__all__ = ["Locator"]


class Locator:
    """Line and column (both from 1) in the file of offsets into ``text``, a record
    whose first line is ``first_line``; a negative offset gives the first line."""

    __slots__ = ("text", "first_line", "_starts", "_scanned")

    def __init__(self, text: str, first_line: int = 1) -> None:
        self.text = text
        self.first_line = first_line
        #: Offsets where the lines start, as far as the text has been scanned.
        self._starts = [0]
        self._scanned = 0

    def __call__(self, offset: int) -> tuple[int, int]:
        if offset < 0:
            return self.first_line, 1
        if offset > self._scanned:
            self._scan(offset)
        starts = self._starts
        index = bisect_right(starts, offset) - 1
        return self.first_line + index, offset - starts[index] + 1

    def _scan(self, offset: int) -> None:
        text, starts, find = self.text, self._starts, self.text.find
        position = find("\n", self._scanned, offset)
        while position >= 0:
            starts.append(position + 1)
            position = find("\n", position + 1, offset)
        self._scanned = min(offset, len(text))
