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

import pyparsing as pp

from partita.errors import NotationError, shorten

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


# -- the token grammar --------------------------------------------------------------------
def _atom(pattern: str, name: str, kind: str) -> pp.ParserElement:
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


tag_token = _atom(TAG_PATTERN, "tag pair", TAG)
bad_tag_token = _atom(BAD_TAG_PATTERN, "malformed tag pair", BAD_TAG)
comment_token = _atom(COMMENT_PATTERN, "comment", COMMENT)
unclosed_comment_token = _atom(UNCLOSED_COMMENT_PATTERN, "unclosed comment", UNCLOSED_COMMENT)
line_comment_token = _atom(LINE_COMMENT_PATTERN, "';' comment", LINE_COMMENT)
nag_token = _atom(NAG_PATTERN, "NAG", NAG)
open_token = _atom(r"\(", "'('", OPEN)
close_token = _atom(r"\)", "')'", CLOSE)
number_token = _atom(NUMBER_PATTERN, "move number", NUMBER)
result_token = _atom(RESULT_PATTERN, "result", RESULT)
bare_number_token = _atom(BARE_NUMBER_PATTERN, "bare number", BARE_NUMBER)
move_token = pp.Regex(MOVE_PATTERN).set_name("move token")
move_token.set_whitespace_chars(WHITESPACE)
move_token.add_parse_action(_move_action)
move_token = move_token(MOVE)
stray_token = _atom(STRAY_PATTERN, "stray character", STRAY)

#: One token; the order of the alternatives is part of the definition.
TOKEN = pp.MatchFirst(
    [
        tag_token,
        bad_tag_token,
        comment_token,
        unclosed_comment_token,
        line_comment_token,
        nag_token,
        open_token,
        close_token,
        number_token,
        result_token,
        bare_number_token,
        move_token,
        stray_token,
    ]
).set_name("token")
TOKEN.set_whitespace_chars(WHITESPACE)

_END_OF_TEXT = pp.StringEnd().set_name("end of text")
_END_OF_TEXT.set_whitespace_chars(WHITESPACE)
#: A record's text (or any part of it that starts and ends between tokens).
TOKEN_STREAM = (pp.ZeroOrMore(TOKEN)("tokens") + _END_OF_TEXT).set_name("token stream")
TOKEN_STREAM.set_whitespace_chars(WHITESPACE)
TOKEN_STREAM.parse_with_tabs()


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[tuple[str, str, int]]:
    """The tokens of ``text[start:end]`` as ``(kind, text, offset)``, offsets into ``text``.

    Reference path (pyparsing); :func:`partita.notation.scanner.tokenize` is the fast
    one. Never fails on input: malformed text comes out as error tokens.
    """
    part = text[start:end]
    try:
        parsed = TOKEN_STREAM.parse_string(part, parse_all=True)
    except pp.ParseBaseException as error:  # the grammar covers every string
        raise NotationError(
            f"cannot tokenize the record at line {error.lineno}, column {error.col}: {error.msg}"
        ) from None
    if start:
        return [(kind, token, offset + start) for kind, token, offset in parsed]
    return list(parsed)


# -- tag pairs, one by one (for precise messages) ---------------------------------------------
_LBRACKET = pp.Suppress("[").set_name("'['")
_TAG_NAME = pp.Regex(r"[A-Za-z][A-Za-z0-9_]*")("name").set_name(
    "a tag name (a letter, then letters, digits or _)"
)
_TAG_VALUE = pp.Regex(r'"(?:[^"\\\n]|\\["\\])*+"')("value").set_name(
    'the value in double quotes (inside it only \\" and \\\\ are escapes)'
)
_RBRACKET = pp.Suppress("]").set_name("']' after the value")
for _element in (_LBRACKET, _TAG_NAME, _TAG_VALUE, _RBRACKET):
    _element.set_whitespace_chars(" \t")
#: One tag pair, committed after ``[`` so that an error points at the real spot.
TAG_PAIR = (_LBRACKET - _TAG_NAME - _TAG_VALUE - _RBRACKET).set_name("tag pair")
TAG_PAIR.parse_with_tabs()


def check_tag_pair(text: str) -> tuple[int, str] | None:
    """Why ``text`` (from ``[`` to the end of its line) is no tag pair: the offset of
    the first wrong character and the reason; ``None`` if it starts with a good one."""
    try:
        TAG_PAIR.parse_string(text)
    except pp.ParseBaseException as error:
        shown = shorten(text.strip())
        found = text[error.loc : error.loc + 12].split(" ")[0] if error.loc < len(text) else ""
        if found.startswith('"') and error.msg == f"Expected {_TAG_VALUE.name}":
            reason = 'the value has no closing quote (inside it only \\" and \\\\ are escapes)'
            return error.loc, f"malformed tag pair '{shown}': {reason}"
        where = f"found '{found}'" if found else "found the end of the line"
        expected = error.msg[len("Expected ") :] if error.msg.startswith("Expected ") else error.msg
        return error.loc, f"malformed tag pair '{shown}': expected {expected}, {where}"
    return None
