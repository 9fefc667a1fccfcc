"""A record without some of its annotations: comments, NAGs, variations.

What `partita export --no-comments --no-nags --no-variations` writes. The copy is
made with an explicit stack (variation trees may be deep); the record given is left
as it is.
"""

from __future__ import annotations

import dataclasses

from partita.notation.model import Node, Record

__all__ = ["stripped"]


def stripped(
    record: Record, *, comments: bool = True, nags: bool = True, variations: bool = True
) -> Record:
    """A copy of ``record`` keeping its comments, NAGs and variations only where
    asked (``False`` drops them; without NAGs, the suffixes ``!`` ``?`` go too); the
    tags, moves and result stay."""
    root = _copy(record.root, comments=comments, nags=nags)
    stack = [(record.root, root)]
    while stack:
        source, copy = stack.pop()
        children = source.children if variations else source.children[:1]
        for child in children:
            made = copy.add(_copy(child, comments=comments, nags=nags))
            stack.append((child, made))
    return dataclasses.replace(record, root=root)


def _copy(node: Node, *, comments: bool, nags: bool) -> Node:
    return Node(
        node.move,
        suffix=node.suffix if nags else "",
        nags=list(node.nags) if nags else [],
        comments=list(node.comments) if comments else [],
        starting_comments=list(node.starting_comments) if comments else [],
        offset=node.offset,
        written_number=node.written_number,
    )
