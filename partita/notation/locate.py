"""Lines and columns of character offsets into a record's text.

Tokens and tree nodes keep character offsets into their record's text; a problem
needs a file line and column. Only problems need them, so they are computed on
demand, here.
"""

from __future__ import annotations

from partita.notation.model import Record

__all__ = ["Locator"]


class Locator:
    """Line and column of offsets into a record's text, counting forward from the
    last one asked (problems come in text order), so many problems stay linear."""

    def __init__(self, record: Record) -> None:
        self.text = record.text
        self.first_line = record.source.line
        self.offset = 0
        self.line = record.source.line
        self.line_start = 0

    def __call__(self, offset: int) -> tuple[int, int]:
        if offset < 0:
            return self.first_line, 1
        if offset < self.offset:
            self.offset, self.line, self.line_start = 0, self.first_line, 0
        text = self.text
        self.line += text.count("\n", self.offset, offset)
        newline = text.rfind("\n", self.offset, offset)
        if newline >= 0:
            self.line_start = newline + 1
        self.offset = offset
        return self.line, offset - self.line_start + 1
