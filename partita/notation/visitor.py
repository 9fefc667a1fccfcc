"""The visitor protocol of the reader (after python-chess's ``BaseVisitor``).

The driver (:mod:`partita.notation.driver`) calls a :class:`RecordVisitor` with the
events of one record in text order; a visitor may skip a record, or its movetext,
cheaply by returning :data:`SKIP`. The visitors partita ships are in
:mod:`partita.notation.builder`.
"""

from __future__ import annotations

from typing import Any

from partita.notation.model import SourceRef

__all__ = ["SKIP", "RecordVisitor", "Skip"]


class Skip:
    """The value a visitor returns to skip the rest of a record (see :data:`SKIP`)."""

    _instance: Skip | None = None

    def __new__(cls) -> Skip:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "SKIP"


#: Returned by :meth:`RecordVisitor.begin_record` (skip the whole record) or
#: :meth:`RecordVisitor.end_tags` (skip the movetext).
SKIP = Skip()


class RecordVisitor:
    """Receives the events of one record, in text order; :meth:`result` gives what it made.

    The driver calls these only in a well-formed order: tags first, a move before any
    suffix, NAG or variation of its level, balanced variations, at most one result, at
    depth 0. Whatever breaks that order is reported with :meth:`visit_problem` instead.
    Offsets are character offsets into the record's text (``Record.position`` turns
    them into a line and a column).
    """

    def begin_record(self, source: SourceRef, text: str) -> Skip | None:
        """A record starts; return :data:`SKIP` to skip it entirely."""
        return None

    def visit_tag(self, name: str, value: str, offset: int) -> None:
        """One tag pair (the value unescaped); a repeated name is reported, not visited."""

    def end_tags(self) -> Skip | None:
        """The tag section is over; return :data:`SKIP` to skip the movetext."""
        return None

    def visit_move(self, move: str, offset: int, written_number: tuple[int, bool] | None) -> None:
        """A move token as written, with the move number written before it, if any."""

    def visit_suffix(self, suffix: str, offset: int) -> None:
        """``!``, ``?``, ``!!``, ``??``, ``!?`` or ``?!`` on the last move."""

    def visit_nag(self, nag: int, offset: int) -> None:
        """A NAG ``$N`` on the last move."""

    def visit_comment(self, text: str, offset: int) -> None:
        """A comment (``{...}`` or ``;``), stripped, white-space runs made one space."""

    def begin_variation(self) -> None:
        """``(``: an alternative to the last move starts."""

    def end_variation(self) -> None:
        """``)``: back to the line the variation left."""

    def visit_result(self, result: str, offset: int) -> None:
        """The result token that ends the movetext."""

    def visit_problem(self, kind: str, message: str, offset: int, token: str | None) -> None:
        """A syntax problem (kind ``syntax`` or ``missing-result``) at ``offset``."""

    def end_record(self) -> None:
        """The record is over."""

    def result(self) -> Any:
        """What the visitor made of the record (yielded by
        :func:`~partita.notation.reader.visit_records`)."""
        return None
