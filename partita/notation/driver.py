"""Driving a visitor through one record: the reader's second layer.

:func:`drive` tokenizes a :class:`~partita.notation.splitter.RawRecord` (the fast
scanner, or the pyparsing reference), checks its structure (parentheses, what a NAG
or a variation follows, the result) and calls a
:class:`~partita.notation.visitor.RecordVisitor` in a well-formed order; whatever
breaks that order becomes a problem, and reading goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from partita.errors import quoted
from partita.game.rules import MAX_DIGITS
from partita.notation import pgr, scanner
from partita.notation.pgr import (
    BAD_TAG,
    CLOSE,
    COMMENT,
    ERROR_KINDS,
    LINE_COMMENT,
    MOVE,
    NAG,
    NUMBER,
    OPEN,
    RESULT,
    SUFFIX,
    TAG,
    UNCLOSED_COMMENT,
)
from partita.notation.splitter import RawRecord
from partita.notation.visitor import SKIP, RecordVisitor

__all__ = ["Tokenizer", "drive", "tokenizer"]

#: A tokenizer: ``(text, start, end) -> [(kind, token, offset), ...]``.
Tokenizer = Callable[..., list[tuple[str, str, int]]]
#: Where problems go: ``(kind, message, offset, token)``.
ProblemSink = Callable[[str, str, int, str | None], None]
_WHITESPACE = pgr.WHITESPACE


def tokenizer(reference: bool) -> Tokenizer:
    """The pyparsing reference tokenizer if ``reference``, else the fast scanner."""
    return pgr.tokenize if reference else scanner.tokenize


_AFTER_RESULT = "token '{token}' after the result '{result}': a record ends with its result"


def drive(raw: RawRecord, visitor: RecordVisitor, tokenize: Tokenizer) -> Any:
    """Drive ``visitor`` through the record ``raw``; return ``visitor.result()``."""
    text = raw.text
    if visitor.begin_record(raw.source, text) is SKIP:
        visitor.end_record()
        return visitor.result()
    problem = visitor.visit_problem
    for offset, message in raw.problems:
        problem("syntax", message, offset, None)

    # Tag section: tag pairs, and anything else on those lines kept for the movetext.
    start = raw.movetext_start
    pending: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    for token in tokenize(text, 0, start):
        kind = token[0]
        if kind == TAG:
            name, value = scanner.tag_pair(token[1])
            if name in seen:
                problem(
                    "syntax",
                    f"duplicate tag {name} (the first value is kept)",
                    token[2],
                    token[1],
                )
            else:
                seen.add(name)
                visitor.visit_tag(name, value, token[2])
        elif kind == BAD_TAG:
            _lexical(problem, token)
        else:
            pending.append(token)
    if visitor.end_tags() is SKIP:
        visitor.end_record()
        return visitor.result()
    tokens = pending + tokenize(text, start) if start < len(text) else pending

    # Movetext. ``levels`` holds, for the main line and each open variation, whether
    # a move has been seen there (0 none, 1 a move, 2 a move with its suffix).
    levels = [0]
    opened: list[int] = []  # offsets of the open '('
    dropped = 0  # depth inside a variation dropped for opening before any move
    dropped_offset = -1
    number: tuple[int, bool] | None = None
    result: str | None = None
    after_result_reported = False
    for token in tokens:
        kind, token_text, offset = token
        if kind in ERROR_KINDS:
            _lexical(problem, token)
            if kind != UNCLOSED_COMMENT or result is not None or dropped:
                continue
        if result is not None:
            if not after_result_reported:
                after_result_reported = True
                problem(
                    "syntax",
                    _AFTER_RESULT.format(token=token_text, result=result),
                    offset,
                    token_text,
                )
            continue
        if dropped:
            if kind == OPEN:
                dropped += 1
                continue
            if kind == CLOSE:
                dropped -= 1
                continue
            if kind != RESULT:
                continue
            problem(
                "syntax",
                "variation '(' is never closed before the result",
                dropped_offset,
                "(",
            )
            dropped = 0
        if kind == MOVE:
            visitor.visit_move(token_text, offset, number)
            number = None
            levels[-1] = 1
        elif kind == NUMBER:
            if len(token_text.rstrip(".")) > MAX_DIGITS:
                problem("syntax", _too_long("move number", token_text), offset, token_text)
                number = None
            else:
                number = scanner.move_number(token_text)
        elif kind in (COMMENT, LINE_COMMENT, UNCLOSED_COMMENT):
            visitor.visit_comment(scanner.comment_text(kind, token_text), offset)
        elif kind == NAG:
            if len(token_text) - 1 > MAX_DIGITS:
                problem("syntax", _too_long("NAG", token_text), offset, token_text)
            elif levels[-1]:
                visitor.visit_nag(int(token_text[1:]), offset)
            else:
                problem("syntax", f"NAG '{token_text}' before any move", offset, token_text)
        elif kind == SUFFIX:
            if levels[-1] == 1:
                visitor.visit_suffix(token_text, offset)
                levels[-1] = 2
            elif levels[-1] == 2:
                problem(
                    "syntax",
                    f"second suffix '{token_text}' on one move (a move has at most one)",
                    offset,
                    token_text,
                )
            else:
                problem("syntax", f"suffix '{token_text}' before any move", offset, token_text)
        elif kind == OPEN:
            number = None
            if levels[-1]:
                visitor.begin_variation()
                levels.append(0)
                opened.append(offset)
            else:
                problem(
                    "syntax",
                    "variation '(' before any move: a variation is an alternative to "
                    "the move before it (the variation is left out)",
                    offset,
                    "(",
                )
                dropped, dropped_offset = 1, offset
        elif kind == CLOSE:
            number = None
            if opened:
                if not levels[-1]:
                    problem("syntax", "empty variation '()'", opened[-1], "(")
                levels.pop()
                opened.pop()
                visitor.end_variation()
            else:
                problem("syntax", "unmatched ')': no variation is open", offset, ")")
        elif kind == RESULT:
            if opened:
                _close_all(visitor, problem, levels, opened, "before the result")
            visitor.visit_result(token_text, offset)
            result = token_text
        elif kind == TAG:
            problem("syntax", f"tag pair '{token_text}' inside the movetext", offset, token_text)
    if result is None:
        end = len(text.rstrip(_WHITESPACE))
        if dropped:
            problem("syntax", "variation '(' is never closed", dropped_offset, "(")
        if opened:
            _close_all(visitor, problem, levels, opened, "")
        if not tokens or tokens[-1][0] != UNCLOSED_COMMENT:  # that one says it already
            problem(
                "missing-result",
                "the movetext does not end with a result token (1-0, 0-1, 1/2-1/2, *, ...)",
                end,
                None,
            )
    visitor.end_record()
    return visitor.result()


def _too_long(what: str, token: str) -> str:
    digits = len(token.strip("$."))
    return (
        f"{what} {quoted(token)} has {digits:,} digits: a number in a record has at most "
        f"{MAX_DIGITS} (it is left out)"
    )


def _lexical(problem: ProblemSink, token: tuple[str, str, int]) -> None:
    kind, token_text, offset = token
    found = scanner.lexical_problem(kind, token_text)
    if found is not None:
        delta, message = found
        shown = token_text if len(token_text) <= 40 else token_text[:40] + "..."
        problem("syntax", message, offset + delta, shown)


def _close_all(
    visitor: RecordVisitor,
    problem: ProblemSink,
    levels: list[int],
    opened: list[int],
    when: str,
) -> None:
    count = len(opened)
    more = f" ({count} variations are open)" if count > 1 else ""
    when = f" {when}" if when else ""
    problem("syntax", f"variation '(' is never closed{when}{more}", opened[0], "(")
    for _ in range(count):
        visitor.end_variation()
    del levels[1:]
    opened.clear()
