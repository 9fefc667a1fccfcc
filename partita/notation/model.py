"""The game-tree model of a record (after python-chess's ``GameNode``).

A :class:`Record` has its tags (an order-keeping mapping), a root :class:`Node`
whose first child starts the mainline, and the result token of its movetext. A
node holds one move *as written* (the token, not yet resolved by any rules engine),
its suffix annotation, NAGs, the comments before and after it, and its children:
``children[0]`` continues the line, the others are variations (alternatives to
``children[0]``).

Trees may be arbitrarily deep (10,000 nested variations), so nothing here
recurses: equality, copying and walking use explicit stacks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from partita.notation.problems import Problem

from partita.notation.locate import Locator

#: Tags written first, in this order, by the canonical writer.
SEVEN_TAG_ORDER = ("Game", "Event", "Site", "Date", "Round")


class Node:
    """One move as written in a record, with its annotations and children."""

    __slots__ = (
        "move",
        "suffix",
        "nags",
        "comments",
        "starting_comments",
        "children",
        "offset",
        "written_number",
    )

    def __init__(
        self,
        move: str | None = None,
        *,
        suffix: str = "",
        nags: list[int] | None = None,
        comments: list[str] | None = None,
        starting_comments: list[str] | None = None,
        offset: int = -1,
        written_number: tuple[int, bool] | None = None,
    ) -> None:
        #: The move token as written (``None`` for the root).
        self.move = move
        #: ``!``, ``?``, ``!!``, ``??``, ``!?``, ``?!`` or ``""``.
        self.suffix = suffix
        #: Numeric annotation glyphs (``$N``) in their order.
        self.nags: list[int] = nags if nags is not None else []
        #: Comments after the move (for the root: before the first move).
        self.comments: list[str] = comments if comments is not None else []
        #: Comments that open a variation, before its first move.
        self.starting_comments: list[str] = (
            starting_comments if starting_comments is not None else []
        )
        #: Continuation first, then the variations.
        self.children: list[Node] = []
        #: Character offset of the move token in its record's text (-1: not read).
        self.offset = offset
        #: The move number written before this move, as ``(number, dots)`` where
        #: ``dots`` is true for a continuation ``N...``; ``None`` if none was written.
        #: Checked by replay, not part of equality (the writer renumbers).
        self.written_number = written_number

    # -- building ---------------------------------------------------------------
    def add(self, child: Node) -> Node:
        self.children.append(child)
        return child

    def add_move(self, move: str, **annotations: Any) -> Node:
        return self.add(Node(move, **annotations))

    # -- reading ------------------------------------------------------------------
    @property
    def continuation(self) -> Node | None:
        return self.children[0] if self.children else None

    @property
    def variations(self) -> list[Node]:
        """Alternatives to the continuation."""
        return self.children[1:]

    def mainline(self) -> Iterator[Node]:
        """The nodes of the line that starts after this node, following first children."""
        node = self
        while node.children:
            node = node.children[0]
            yield node

    def walk(self) -> Iterator[Node]:
        """Every node under this one (itself included), depth first, without recursion."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def same_annotations(self, other: Node) -> bool:
        return (
            self.move == other.move
            and self.suffix == other.suffix
            and self.nags == other.nags
            and self.comments == other.comments
            and self.starting_comments == other.starting_comments
            and len(self.children) == len(other.children)
        )

    def __eq__(self, other: object) -> bool:
        """Same moves, annotations and shape (source offsets do not count)."""
        if not isinstance(other, Node):
            return NotImplemented
        stack = [(self, other)]
        while stack:
            left, right = stack.pop()
            if not left.same_annotations(right):
                return False
            stack.extend(zip(left.children, right.children, strict=True))
        return True

    __hash__ = None  # type: ignore[assignment]  # mutable: no hash

    def __repr__(self) -> str:
        return f"Node({self.move!r}, children={len(self.children)})"


@dataclass(slots=True)
class SourceRef:
    """Where a record came from: file, its index in the file (from 0), the line
    where it starts (from 1) and its byte offset (for seeking back to it)."""

    file: str = "<string>"
    index: int = 0
    line: int = 1
    byte_offset: int = 0


@dataclass(slots=True, eq=False)
class Record:
    """One game record: tags, the move tree, the result token, and where it came from.

    ``syntax_problems`` are the problems found while reading the text (a malformed
    tag, an unclosed comment...). Replaying the record through its rules adds the
    rest (see :mod:`partita.notation.replay`).
    """

    tags: dict[str, str] = field(default_factory=dict)
    root: Node = field(default_factory=Node)
    result: str | None = None
    source: SourceRef = field(default_factory=SourceRef)
    #: The record's text (the movetext part starts at ``movetext_offset``), kept so
    #: offsets become line and column only when a problem needs them.
    text: str = ""
    syntax_problems: list[Problem] = field(default_factory=list)
    #: Character offset of the result token in :attr:`text` (-1: none was read).
    result_offset: int = -1
    _locator: Locator | None = field(default=None, init=False, repr=False)

    @property
    def game(self) -> str | None:
        return self.tags.get("Game")

    def mainline_moves(self) -> list[str]:
        # Only the root holds no move.
        return cast("list[str]", [node.move for node in self.root.mainline()])

    def same_game(self, other: Record) -> bool:
        """Same tags (in order), moves, annotations and result: what a round trip keeps."""
        return (
            list(self.tags.items()) == list(other.tags.items())
            and self.result == other.result
            and self.root == other.root
        )

    def position(self, offset: int) -> tuple[int, int]:
        """Line and column (both from 1) in the source file of a character offset
        into :attr:`text` (a negative offset: the record's first line).

        Asking for many offsets, in any order, costs time linear in the text (see
        :class:`~partita.notation.locate.Locator`)."""
        locator = self._locator
        if (
            locator is None
            or locator.text is not self.text
            or (locator.first_line != self.source.line)
        ):
            locator = self._locator = Locator(self.text, self.source.line)
        return locator(offset)
