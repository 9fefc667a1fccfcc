"""The fast path of the PGR tokenizer: one compiled ``re`` pattern.

It produces exactly the token stream of the reference grammar
(:func:`partita.notation.pgr.tokenize`): the same ``(kind, text, offset)`` tuples,
hence the same problems; a differential hypothesis test keeps the two equal. The
atomic patterns are the grammar's; only their assembly differs (a move token is
matched as a whole word and its suffix split off afterwards, which is cheaper than
the grammar's lazy pattern for the common case of no suffix).

Also here: the small helpers that turn a token into its value (a tag's name and
value, a comment's text, a move number), shared by both paths.
"""

from __future__ import annotations

import functools
import re

from partita.notation.pgr import (
    BAD_TAG,
    BAD_TAG_PATTERN,
    BARE_NUMBER,
    BARE_NUMBER_PATTERN,
    CLOSE,
    COMMENT,
    COMMENT_PATTERN,
    LINE_COMMENT,
    LINE_COMMENT_PATTERN,
    MOVE,
    NAG,
    NAG_PATTERN,
    NUMBER,
    NUMBER_PATTERN,
    OPEN,
    RESULT,
    RESULT_PATTERN,
    STRAY,
    STRAY_PATTERN,
    SUFFIX,
    SUFFIX_PATTERN,
    TAG,
    TAG_PATTERN,
    UNCLOSED_COMMENT,
    UNCLOSED_COMMENT_PATTERN,
    WORD_PATTERN,
    check_tag_pair,
    shorten,
)

__all__ = [
    "comment_text",
    "lexical_problem",
    "move_number",
    "tag_pair",
    "tokenize",
]

Token = tuple[str, str, int]

# One named group per alternative (the kind, '-' made '_'), and no other group.
_ALTERNATIVES = [
    (TAG, TAG_PATTERN.replace("?P<name>", "?:").replace("?P<value>", "?:")),
    (BAD_TAG, BAD_TAG_PATTERN),
    (COMMENT, COMMENT_PATTERN),
    (UNCLOSED_COMMENT, UNCLOSED_COMMENT_PATTERN),
    (LINE_COMMENT, LINE_COMMENT_PATTERN),
    (NAG, NAG_PATTERN),
    (OPEN, r"\("),
    (CLOSE, r"\)"),
    (NUMBER, NUMBER_PATTERN),
    (RESULT, RESULT_PATTERN),
    (BARE_NUMBER, BARE_NUMBER_PATTERN),
    (MOVE, WORD_PATTERN),
    (STRAY, STRAY_PATTERN),
]
#: Token kind of each group number of the master pattern (one group per alternative).
_KIND_OF_GROUP = [""] + [kind for kind, _ in _ALTERNATIVES]


@functools.cache
def _master() -> re.Pattern[str]:
    """The master pattern: one group per alternative, the first that matches wins.
    Compiled on first use (about 5 ms): an import of plain records reads them
    without the scanner (:mod:`partita.bulk.plain`)."""
    pattern = re.compile(
        "[ \t\n\r\f\v]*(?:"
        + "|".join(f"(?P<{kind.replace('-', '_')}>{pattern})" for kind, pattern in _ALTERNATIVES)
        + ")"
    )
    assert pattern.groups == len(_ALTERNATIVES)
    return pattern


_SUFFIX_SPLIT = re.compile(rf"(.*?)({SUFFIX_PATTERN})\Z", re.DOTALL)
_TAG_PARTS = re.compile(TAG_PATTERN)
_ESCAPE = re.compile(r"\\([\"\\])")
_SPACES = re.compile(r"[ \t\n\r\f\v]+")
#: The tokens that may hold white space at their end, and their patterns.
_RUN_ON = {
    kind: re.compile(pattern)
    for kind, pattern in (
        (BAD_TAG, BAD_TAG_PATTERN),
        (UNCLOSED_COMMENT, UNCLOSED_COMMENT_PATTERN),
        (LINE_COMMENT, LINE_COMMENT_PATTERN),
    )
}
_WHITESPACE_CHARS = " \t\n\r\f\v"
_WHITESPACE = frozenset(_WHITESPACE_CHARS)


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """The tokens of ``text[start:end]`` as ``(kind, text, offset)``, offsets into ``text``.

    Fast path; :func:`partita.notation.pgr.tokenize` is the reference.
    """
    if end is None:
        end = len(text)
    # White space at the end is left out before matching: every other character
    # starts a token, but a white-space run that no token follows fails at each of
    # its places in turn, which is quadratic in its length.
    full_end = end
    if end > start and text[end - 1] in _WHITESPACE:
        end = start + len(text[start:end].rstrip(_WHITESPACE_CHARS))
    tokens: list[Token] = []
    append = tokens.append
    kinds = _KIND_OF_GROUP
    for match in _master().finditer(text, start, end):
        group = match.lastindex
        assert group is not None  # every alternative of the master pattern is a group
        kind = kinds[group]
        token = match[group]
        offset = match.start(group)
        if kind == MOVE and token[-1] in "!?":
            split = _SUFFIX_SPLIT.match(token)
            if split is not None:
                move, suffix = split.groups()
                if move:
                    append((MOVE, move, offset))
                append((SUFFIX, suffix, offset + len(move)))
                continue
        append((kind, token, offset))
    if end < full_end and tokens and tokens[-1][0] in _RUN_ON:
        # A token that runs on over white space takes the white space left out.
        kind, token, offset = tokens[-1]
        longer = _RUN_ON[kind].match(text, offset, full_end)
        assert longer is not None  # it matched up to ``end`` already
        tokens[-1] = (kind, longer.group(), offset)
    return tokens


# -- token values ------------------------------------------------------------------------------
def tag_pair(token: str) -> tuple[str, str]:
    """Name and value (unescaped) of a ``tag`` token."""
    match = _TAG_PARTS.match(token)
    assert match is not None, f"not a tag token: {token!r}"
    value = match["value"]
    if "\\" in value:
        value = _ESCAPE.sub(r"\1", value)
    return match["name"], value


def comment_text(kind: str, token: str) -> str:
    """A comment's text: without its delimiters, stripped, every white-space run made
    one space (so a comment's line breaks are not kept)."""
    if kind == LINE_COMMENT:
        body = token[1:]
    elif kind == COMMENT:
        body = token[1:-1]
    else:  # unclosed
        body = token[1:]
    return _SPACES.sub(" ", body).strip(" ")


def move_number(token: str) -> tuple[int, bool]:
    """``(number, is_continuation)`` of a move number token: ``12.`` -> (12, False),
    ``12...`` -> (12, True); two dots or more read as a continuation."""
    digits = token.rstrip(".")
    return int(digits), len(token) - len(digits) > 1


def lexical_problem(kind: str, token: str) -> tuple[int, str] | None:
    """The syntax problem an error token is: offset within the token and message."""
    if kind == BAD_TAG:
        found = check_tag_pair(token)
        if found is not None:
            return found
        return 0, f"malformed tag pair '{shorten(token.strip())}'"
    if kind == UNCLOSED_COMMENT:
        shown = token if len(token) <= 20 else token[:20] + "..."
        shown = _SPACES.sub(" ", shown)
        return 0, f"comment '{shown}' is never closed: no '}}' before the end of the record"
    if kind == BARE_NUMBER:
        return 0, f"bare number '{shorten(token)}' is no move (a move number ends with '.')"
    if kind == STRAY:
        if token == "$":
            return 0, "stray '$': a NAG is '$' and a number, as in $1"
        if token == "}":
            return 0, "stray '}' outside a comment"
        return 0, f"stray '{token}' outside a tag pair"
    return None
