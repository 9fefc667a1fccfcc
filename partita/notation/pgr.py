"""The PGR text grammar (pyparsing): the reference definition of the record format.

Grammar only, no game knowledge: a record's text is a *flat* stream of tokens (tag
pairs, move numbers, move tokens, suffixes, NAGs, comments, parentheses, results),
so nesting depth never recurses. Structure (which move a comment or a variation
belongs to) is the reader's business (:mod:`partita.notation.reader`); the meaning
of a move token is the game's. The BNF is in ``docs/record-format.md``.

Every token is a ``(kind, text, offset)`` tuple; ``offset`` is the character offset
in the text given. The grammar accepts every string: characters that fit no token
come out as error tokens (``bad-tag``, ``unclosed-comment``, ``bare-number``,
``stray``) that the reader turns into problems. :mod:`partita.notation.scanner`
produces the same stream with one compiled ``re`` pattern (the fast path); a
differential test keeps the two equal.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from partita.errors import NotationError, shorten
from partita.notation.lazy import lazy_grammar

if TYPE_CHECKING:  # imported by the grammar's first use: the scanner needs no pyparsing
    import pyparsing as pp

__all__ = [
    "BAD_TAG",
    "BARE_NUMBER",
    "CLOSE",
    "COMMENT",
    "ERROR_KINDS",
    "LINE_COMMENT",
    "MOVE",
    "NAG",
    "NUMBER",
    "OPEN",
    "RESULT",
    "STRAY",
    "SUFFIX",
    "TAG",
    "TAG_PAIR",
    "TOKEN",
    "TOKEN_STREAM",
    "UNCLOSED_COMMENT",
    "WHITESPACE",
    "check_tag_pair",
    "shorten",
    "tokenize",
]

# -- token kinds --------------------------------------------------------------------
TAG = "tag"
BAD_TAG = "bad-tag"
COMMENT = "comment"
UNCLOSED_COMMENT = "unclosed-comment"
LINE_COMMENT = "line-comment"
NAG = "nag"
OPEN = "open"
CLOSE = "close"
NUMBER = "number"
RESULT = "result"
BARE_NUMBER = "bare-number"
MOVE = "move"
SUFFIX = "suffix"
STRAY = "stray"

#: Kinds that are always a syntax problem.
ERROR_KINDS = frozenset({BAD_TAG, UNCLOSED_COMMENT, BARE_NUMBER, STRAY})

# -- atomic patterns (shared with the scanner) ------------------------------------------
#: White space between tokens (ASCII only: other white space is part of a token).
WHITESPACE = " \t\n\r\f\v"
#: Characters that end a move token besides white space.
DELIMITERS = "{}();[]$"
_WORD_CHAR = r"[^ \t\n\r\f\v{}();\[\]$]"
#: Lookahead: the token ends here (a delimiter, white space or the end follows).
_END = rf"(?!{_WORD_CHAR})"

TAG_PATTERN = (
    r'\[[ \t]*(?P<name>[A-Za-z][A-Za-z0-9_]*)[ \t]*"(?P<value>(?:[^"\\\n]|\\["\\])*+)"[ \t]*\]'
)
BAD_TAG_PATTERN = r"\[[^\n]*"
COMMENT_PATTERN = r"\{[^}]*\}"
UNCLOSED_COMMENT_PATTERN = r"\{[^}]*"
LINE_COMMENT_PATTERN = r";[^\n]*"
NAG_PATTERN = r"\$[0-9]+"
NUMBER_PATTERN = r"[0-9]+\.+"
RESULT_PATTERN = rf"(?:\*|(?:1/2|[01])(?:-(?:1/2|[01]))+){_END}"
BARE_NUMBER_PATTERN = rf"[0-9]+{_END}"
WORD_PATTERN = rf"{_WORD_CHAR}+"
SUFFIX_PATTERN = r"!!|\?\?|!\?|\?!|!|\?"
#: A move token and its suffix: the shortest prefix whose rest is one suffix.
MOVE_PATTERN = rf"(?={_WORD_CHAR})(?P<word>{_WORD_CHAR}*?)(?P<mark>{SUFFIX_PATTERN})?{_END}"
STRAY_PATTERN = r"[}\]$]"


# -- the token grammar (built on first use) -------------------------------------------------
def _atom(pattern: str, name: str, kind: str) -> pp.ParserElement:
    import pyparsing as pp

    element = pp.Regex(pattern).set_name(name)
    element.set_whitespace_chars(WHITESPACE)
    element.add_parse_action(lambda _s, loc, toks: (kind, toks[0], loc))
    return element(kind)


def _move_action(_s: str, loc: int, toks: pp.ParseResults) -> list[tuple[str, str, int]]:
    move, suffix = toks["word"], toks.get("mark")
    tokens = [(MOVE, move, loc)] if move else []
    if suffix:
        tokens.append((SUFFIX, suffix, loc + len(move)))
    return tokens


@cache
def _grammar() -> dict[str, pp.ParserElement]:
    """The token grammar and the tag-pair grammar, built once, when first used
    (the fast path, :mod:`partita.notation.scanner`, needs neither)."""
    import pyparsing as pp

    move_token = pp.Regex(MOVE_PATTERN).set_name("move token")
    move_token.set_whitespace_chars(WHITESPACE)
    move_token.add_parse_action(_move_action)
    elements: dict[str, pp.ParserElement] = {
        "tag_token": _atom(TAG_PATTERN, "tag pair", TAG),
        "bad_tag_token": _atom(BAD_TAG_PATTERN, "malformed tag pair", BAD_TAG),
        "comment_token": _atom(COMMENT_PATTERN, "comment", COMMENT),
        "unclosed_comment_token": _atom(
            UNCLOSED_COMMENT_PATTERN, "unclosed comment", UNCLOSED_COMMENT
        ),
        "line_comment_token": _atom(LINE_COMMENT_PATTERN, "';' comment", LINE_COMMENT),
        "nag_token": _atom(NAG_PATTERN, "NAG", NAG),
        "open_token": _atom(r"\(", "'('", OPEN),
        "close_token": _atom(r"\)", "')'", CLOSE),
        "number_token": _atom(NUMBER_PATTERN, "move number", NUMBER),
        "result_token": _atom(RESULT_PATTERN, "result", RESULT),
        "bare_number_token": _atom(BARE_NUMBER_PATTERN, "bare number", BARE_NUMBER),
        "move_token": move_token(MOVE),
        "stray_token": _atom(STRAY_PATTERN, "stray character", STRAY),
    }
    # One token; the order of the alternatives is part of the definition.
    token = pp.MatchFirst(list(elements.values())).set_name("token")
    token.set_whitespace_chars(WHITESPACE)
    end_of_text = pp.StringEnd().set_name("end of text")
    end_of_text.set_whitespace_chars(WHITESPACE)
    stream = (pp.ZeroOrMore(token)("tokens") + end_of_text).set_name("token stream")
    stream.set_whitespace_chars(WHITESPACE)
    stream.parse_with_tabs()
    elements["TOKEN"] = token
    elements["TOKEN_STREAM"] = stream

    # Tag pairs, one by one (for precise messages).
    left = pp.Suppress("[").set_name("'['")
    name = pp.Regex(r"[A-Za-z][A-Za-z0-9_]*")("name").set_name(
        "a tag name (a letter, then letters, digits or _)"
    )
    value = pp.Regex(r'"(?:[^"\\\n]|\\["\\])*+"')("value").set_name(
        'the value in double quotes (inside it only \\" and \\\\ are escapes)'
    )
    right = pp.Suppress("]").set_name("']' after the value")
    for element in (left, name, value, right):
        element.set_whitespace_chars(" \t")
    tag_pair = (left - name - value - right).set_name("tag pair")
    tag_pair.parse_with_tabs()
    elements["TAG_PAIR"] = tag_pair
    elements["_TAG_VALUE"] = value
    return elements


#: One token; the order of the alternatives is part of the definition.
TOKEN: pp.ParserElement = lazy_grammar(lambda: _grammar()["TOKEN"])
#: A record's text (or any part of it that starts and ends between tokens).
TOKEN_STREAM: pp.ParserElement = lazy_grammar(lambda: _grammar()["TOKEN_STREAM"])
#: One tag pair, committed after ``[`` so that an error points at the real spot.
TAG_PAIR: pp.ParserElement = lazy_grammar(lambda: _grammar()["TAG_PAIR"])


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[tuple[str, str, int]]:
    """The tokens of ``text[start:end]`` as ``(kind, text, offset)``, offsets into ``text``.

    Reference path (pyparsing); :func:`partita.notation.scanner.tokenize` is the fast
    one. Never fails on input: malformed text comes out as error tokens.
    """
    import pyparsing as pp

    part = text[start:end]
    try:
        parsed = _grammar()["TOKEN_STREAM"].parse_string(part, parse_all=True)
    except pp.ParseBaseException as error:  # the grammar covers every string
        raise NotationError(
            f"cannot tokenize the record at line {error.lineno}, column {error.col}: {error.msg}"
        ) from None
    if start:
        return [(kind, token, offset + start) for kind, token, offset in parsed]
    return list(parsed)


def check_tag_pair(text: str) -> tuple[int, str] | None:
    """Why ``text`` (from ``[`` to the end of its line) is no tag pair: the offset of
    the first wrong character and the reason; ``None`` if it starts with a good one."""
    import pyparsing as pp

    grammar = _grammar()
    try:
        grammar["TAG_PAIR"].parse_string(text)
    except pp.ParseBaseException as error:
        shown = shorten(text.strip())
        found = text[error.loc : error.loc + 12].split(" ")[0] if error.loc < len(text) else ""
        if found.startswith('"') and error.msg == f"Expected {grammar['_TAG_VALUE'].name}":
            reason = 'the value has no closing quote (inside it only \\" and \\\\ are escapes)'
            return error.loc, f"malformed tag pair '{shown}': {reason}"
        where = f"found '{found}'" if found else "found the end of the line"
        expected = error.msg[len("Expected ") :] if error.msg.startswith("Expected ") else error.msg
        return error.loc, f"malformed tag pair '{shown}': expected {expected}, {where}"
    return None
