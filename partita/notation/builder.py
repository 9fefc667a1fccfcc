"""The visitors partita ships: :class:`RecordBuilder` (the game tree) and
:class:`HeaderCollector` (the tags alone, movetext skipped)."""

from __future__ import annotations

from partita.notation.model import Node, Record, SourceRef
from partita.notation.problems import KINDS, Problem
from partita.notation.visitor import SKIP, RecordVisitor, Skip

__all__ = ["HeaderCollector", "RecordBuilder", "record_context"]


def record_context(tags: dict[str, str]) -> str:
    """The record's Event and players, to recognise it in a long file."""
    players = [tags[f"Player{n}"] for n in range(1, 5) if f"Player{n}" in tags]
    parts = [tags["Event"]] if tags.get("Event") else []
    if players:
        parts.append(" - ".join(players))
    return ", ".join(parts)


class RecordBuilder(RecordVisitor):
    """Builds a :class:`Record` with an explicit stack (no recursion at any depth).

    Comments before the first move go to the root; a comment right after ``(`` to
    the ``starting_comments`` of the variation's first move; any other comment,
    NAG or suffix to the move before it. A variation after a move is an
    alternative to that move: a later child of that move's parent.
    """

    def begin_record(self, source: SourceRef, text: str) -> None:
        self.record = Record(source=source, text=text)
        self._current = self.record.root
        self._parent: Node | None = None
        self._stack: list[tuple[Node, Node | None]] = []
        self._starting: list[str] | None = None
        self._problems: list[tuple[str, str, int, str | None]] = []

    def visit_tag(self, name: str, value: str, offset: int) -> None:
        self.record.tags[name] = value

    def visit_move(self, move: str, offset: int, written_number: tuple[int, bool] | None) -> None:
        node = Node(move, offset=offset, written_number=written_number)
        if self._starting is not None:
            node.starting_comments = self._starting
            self._starting = None
        self._current.children.append(node)
        self._parent = self._current
        self._current = node

    def visit_suffix(self, suffix: str, offset: int) -> None:
        self._current.suffix = suffix

    def visit_nag(self, nag: int, offset: int) -> None:
        self._current.nags.append(nag)

    def visit_comment(self, text: str, offset: int) -> None:
        if self._starting is not None:
            self._starting.append(text)
        else:
            self._current.comments.append(text)

    def begin_variation(self) -> None:
        assert self._parent is not None  # the driver opens a variation after a move only
        self._stack.append((self._current, self._parent))
        self._current, self._parent = self._parent, None  # the next move is a sibling
        self._starting = []

    def end_variation(self) -> None:
        leftover = self._starting
        self._starting = None
        self._current, self._parent = self._stack.pop()
        if leftover:  # comments of an empty variation: keep them on the move
            self._current.comments.extend(leftover)

    def visit_result(self, result: str, offset: int) -> None:
        self.record.result = result
        self.record.result_offset = offset

    def visit_problem(self, kind: str, message: str, offset: int, token: str | None) -> None:
        self._problems.append((kind, message, offset, token))

    def end_record(self) -> None:
        if not self._problems:
            return
        record = self.record
        context = record_context(record.tags)
        locate = record.position
        source = record.source
        record.syntax_problems.extend(
            Problem(
                kind=kind,
                message=message,
                severity=KINDS[kind],
                file=source.file,
                line=line,
                column=column,
                record=source.index,
                token=token,
                context=context,
            )
            for kind, message, offset, token in sorted(self._problems, key=_by_offset)
            for line, column in (locate(offset),)
        )

    def result(self) -> Record:
        return self.record


def _by_offset(problem: tuple[str, str, int, str | None]) -> int:
    return problem[2]


class HeaderCollector(RecordVisitor):
    """Keeps only where a record is and its tags; skips the movetext unread."""

    def begin_record(self, source: SourceRef, text: str) -> None:
        self.source = source
        self.tags: dict[str, str] = {}

    def visit_tag(self, name: str, value: str, offset: int) -> None:
        self.tags[name] = value

    def end_tags(self) -> Skip:
        return SKIP

    def result(self) -> tuple[SourceRef, dict[str, str]]:
        return self.source, self.tags
