"""Reading a plain record straight from its raw text: the fast path of importers.

Most records of an exported archive are *plain*: tag pairs written the canonical way
(``[Name "value"]``, one a line), then move numbers, moves and a result, nothing
else. For those, :func:`replay_raw` skips the token stream, the record tree and the
tree-walking writer (after python-chess, whose reader is fast because the common
case costs little): a few regular expressions read the record, the game's
``replay_canonical`` replays it (:func:`~partita.notation.replay.replay_plain`), and
its canonical text is the text as read when a cheap exact check finds it canonical
already, else :func:`~partita.notation.writer.write_mainline`'s.

The full path (:func:`~partita.notation.reader.build_record`, then
:func:`~partita.notation.replay.replay`) stays the reference. The moment anything is
unusual (a line problem, a tag written otherwise, a comment, NAG, suffix,
variation, escape, tab, carriage return or non-ASCII character in the movetext, a
move number written otherwise, any problem replay would report), :func:`replay_raw`
returns ``None`` and the caller takes the full path. ``tests/test_fast_prepare.py``
holds the two equal on every shipped example and on generated records of every
game (what an import stores, and what validation reports).
"""

from __future__ import annotations

import os
import re
from itertools import accumulate
from operator import itemgetter

from partita.games.base import MAX_DIGITS
from partita.notation.model import Record
from partita.notation.replay import ReplayedRecord, replay_plain
from partita.notation.splitter import RawRecord
from partita.notation.writer import LINE_WIDTH, tag_order, write_mainline

__all__ = ["FULL_PATH_VARIABLE", "fast_path_enabled", "replay_raw"]

#: The environment variable that turns the fast path off (``1``): every record then
#: goes the full way (a worker process inherits it), for benchmarks and to rule the
#: fast path out when hunting a bug.
FULL_PATH_VARIABLE = "PARTITA_FULL_PATH"


def fast_path_enabled() -> bool:
    """False when ``PARTITA_FULL_PATH=1`` asks for the full path everywhere."""
    return os.environ.get(FULL_PATH_VARIABLE) != "1"


#: A tag line as the canonical writer writes it, its value needing no escape.
_TAG_LINE = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*) "([^"\\\n\r\ufeff]*)"\]\n')
#: The tag part of a plain record: tag lines and blank lines, nothing else.
_TAG_BLOCK = re.compile(r'(?:\[[A-Za-z][A-Za-z0-9_]* "[^"\\\n\r\ufeff]*"\]\n|\n)*')
#: What a plain movetext never holds: a character other than printable ASCII, a
#: space or a line break (a tab, a carriage return, a non-ASCII space...), or one of
#: the grammar's delimiters (comments, NAGs, variations, tags).
_NOT_PLAIN = re.compile(r"[^ \n!-~]|[{}();\[\]$]")
#: A move-number word: ``12.`` opens a round, ``12...`` continues one.
_NUMBER_WORD = re.compile(rf"(?<!\S)([0-9]{{1,{MAX_DIGITS}}})(\.\.\.|\.)(?!\S)")
#: A word before the result that makes the record no plain one: a word starting
#: with a digit that is no move number (a bare or glued number, a result before the
#: end, a number too long), or ``*`` alone (a result).
_ODD_WORD = re.compile(
    rf"(?<!\S)(?:\*(?!\S)|(?![0-9]{{1,{MAX_DIGITS}}}(?:\.\.\.|\.)(?!\S))[0-9])"
)
#: A word ending like a suffix annotation (``t4!``, ``r5?!``).
_SUFFIX_WORD = re.compile(r"[!?](?!\S)")
#: A move number written with a leading zero (every word starting with a digit is
#: a move number once :data:`_ODD_WORD` found none other).
_PADDED = re.compile(r"(?<!\S)0")
#: A result token (the grammar's, as a whole word).
_RESULT = re.compile(r"\*|(?:1/2|[01])(?:-(?:1/2|[01]))+")
#: A word's first character that makes it no move: a move number, a bare number or
#: a result starts with a digit (``*`` alone is a result, ``*y`` a move).
_DIGITS = frozenset("0123456789")


def replay_raw(
    raw: RawRecord, strict: bool, *, text: bool = True
) -> tuple[ReplayedRecord, str] | None:
    """The replay of a plain raw record without problems, exactly as the full path
    makes it, and its canonical text (``""`` unless ``text``: validation needs
    none); ``None`` when the record is not plain, or replay might find a problem.

    The record is read with a few regular expressions over its whole text, not
    word by word: one match checks the tag lines, one split cuts the movetext at
    its move numbers, one search finds any word that is not plain."""
    if raw.problems:
        return None
    raw_text = raw.text
    start = raw.movetext_start
    if _TAG_BLOCK.fullmatch(raw_text, 0, start) is None:
        return None
    pairs = _TAG_LINE.findall(raw_text, 0, start)
    tags = dict(pairs)
    if len(tags) != len(pairs):
        return None  # a duplicate tag: a problem
    movetext = raw_text[start:]
    if _NOT_PLAIN.search(movetext) is not None:
        return None
    words = movetext.rsplit(None, 1)
    if not words or _RESULT.fullmatch(words[-1]) is None:
        return None
    body = words[0] if len(words) == 2 else ""
    if _ODD_WORD.search(body) is not None:
        return None
    if ("!" in body or "?" in body) and _SUFFIX_WORD.search(body) is not None:
        return None
    parts = _NUMBER_WORD.split(body)
    segments = parts[0::3]  # the moves before the first number, after each number
    counts = list(map(len, map(str.split, segments)))
    if 0 in counts[1:]:
        return None  # two move numbers in a row, or one before the result
    moves = " ".join(segments).split()
    positions = list(accumulate(counts))[:-1]  # the move each number stands before
    written = list(zip(map(int, parts[1::3]), map(".".__eq__, parts[2::3]), strict=True))
    result = words[-1]
    record = Record(
        tags=tags,
        result=result,
        source=raw.source,
        text=raw_text,
        result_offset=start + movetext.rindex(result),
    )
    labels: list[tuple[int, bool]] = []
    replayed = replay_plain(record, moves, positions, written, strict, labels)
    if replayed is None:
        return None
    if not text:
        return replayed, ""
    if (
        raw_text.count("\n", 0, start) - len(pairs) == 1  # one blank line, after the tags
        and raw_text[start - 2 : start] == "\n\n"
        and list(tags) == tag_order(tags)
        and _canonical_movetext(movetext, positions, written, labels)
        and _PADDED.search(body) is None
    ):
        return replayed, raw_text + "\n"  # already as the writer writes it
    return replayed, write_mainline(tags, moves, labels, result)


def _canonical_movetext(
    movetext: str,
    positions: list[int],
    written: list[tuple[int, bool]],
    labels: list[tuple[int, bool]],
) -> bool:
    """Whether a plain movetext, its move numbers already found right, is what the
    canonical writer writes (the common case for exported archives, which is then
    kept as it is): a number before exactly the moves that open a round and the
    first move, one space between two words, and the lines the writer's greedy
    wrapping makes (each line as long as it can be, at most
    :data:`~partita.notation.writer.LINE_WIDTH`). Leading zeros are the caller's
    check."""
    if labels and (not positions or positions[0] != 0):
        return False  # the first move goes unnumbered
    opens_written = list(map(itemgetter(1), written))
    if not all(opens_written[1:]):
        return False  # a number before a move that opens no round
    if sum(opens_written) != sum(map(itemgetter(1), labels)):
        return False  # a move that opens a round goes unnumbered
    if (
        "  " in movetext
        or " \n" in movetext
        or "\n " in movetext
        or "\n\n" in movetext
        or movetext[0] == " "
        or movetext[-1] == " "
    ):
        return False  # odd spacing
    lines = movetext.split("\n")
    for line, following in zip(lines, lines[1:], strict=False):
        if line[-1] == ".":
            return False  # a move number apart from its move
        if len(line) > LINE_WIDTH and " " in line.removeprefix(_first_unit(line)):
            return False  # too long, and more than one unit
        if len(line) + 1 + len(_first_unit(following)) <= LINE_WIDTH:
            return False  # the next unit would fit on this line
    last = lines[-1]
    return len(last) <= LINE_WIDTH or " " not in last.removeprefix(_first_unit(last))


def _first_unit(line: str) -> str:
    """The first unit of a movetext line the writer never breaks: a move number with
    its move, or one word."""
    end = line.find(" ")
    if end < 0:
        return line
    if line[end - 1] == "." and line[0] in _DIGITS:  # a move number: its move goes with it
        after = line.find(" ", end + 1)
        return line if after < 0 else line[:after]
    return line[:end]
