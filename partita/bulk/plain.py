"""Reading a plain record straight from its raw text: the fast path of imports and
validations.

Most records of an exported archive are *plain*: tag pairs written the canonical
way (``[Name "value"]``, one a line), then move numbers, moves, comments and a
result, nothing else. For those, :func:`replay_raw` skips the token stream, the
record tree and the tree-walking writer (after python-chess, whose reader is fast
because the common case costs little): a few regular expressions read the record,
the game's key replay (:func:`key_replay`: the one its spec offers as
``fast_replay``, else the reference replay's loop) replays the moves, and its
canonical text is the text as read when a cheap exact check finds it canonical
already (no comment), else :func:`~partita.notation.writer.write_mainline`'s.

The full path (:func:`~partita.notation.reader.build_record`, then
:func:`~partita.notation.replay.replay`) stays the reference. The moment anything is
unusual (a line problem, a tag written otherwise, a NAG, suffix, variation, line
comment, a comment glued to a word, an escape, tab, carriage return or non-ASCII
character outside a comment, a move number written otherwise, any problem replay
would report), :func:`replay_raw` returns ``None`` and the caller takes the full
path. ``tests/test_fast_prepare.py`` and ``tests/test_prepare_parts.py`` hold the
two equal on every shipped example and on generated records of every game (what an
import stores, and what validation reports).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Hashable, Sequence
from functools import lru_cache
from itertools import compress, repeat
from operator import is_not, itemgetter
from typing import Any, NamedTuple, Protocol, cast

from partita.game.notation import GameNotation
from partita.game.registry import get_spec
from partita.game.rules import MAX_DIGITS
from partita.notation.model import Record
from partita.notation.pgr import COMMENT
from partita.notation.replay import (
    KEPT_STATES,
    ReplayedRecord,
    clean_prefix,
    plain_header,
    plain_result_holds,
)
from partita.notation.scanner import comment_text
from partita.notation.splitter import RawRecord
from partita.notation.writer import LINE_WIDTH, Notes, tag_order, write_mainline

__all__ = [
    "FULL_PATH_VARIABLE",
    "KeyFold",
    "KeyReplay",
    "PlainReplay",
    "fast_path_enabled",
    "key_replay",
    "reference_key_replay",
    "replay_raw",
]

#: The environment variable that turns the fast path off (``1``): every record then
#: goes the full way (a worker process inherits it), for benchmarks and to rule the
#: fast path out when hunting a bug.
FULL_PATH_VARIABLE = "PARTITA_FULL_PATH"

#: What a key replay gives: the keys, the move numbers before each token, the
#: last state.
KeyReplayed = tuple[list[Hashable], list[tuple[int, bool]], Any]


class KeyFold(Protocol):
    """The archive's fold of position keys as a key replay may use it
    (:class:`partita.database.keys.KeyListFolder`): ``fold(keys)``, each key's
    folded int; ``int_prefixes(longest)``, opaque bytes a compiled replay hashes
    before an int key's own bytes (see there)."""

    def __call__(self, keys: Sequence[Hashable]) -> list[int]: ...

    def int_prefixes(self, longest: int) -> tuple[bytes, ...]: ...


class KeyReplay(Protocol):
    """A game's key replay of canonical tokens: ``replay(state, tokens)`` gives the
    position key after each token (``rules.key``), the rules' ``move_number``
    before each and the state after the last, when every token is a legal,
    canonically spelled move that needs no inserted pass (what
    :func:`~partita.notation.replay.clean_prefix` accepts); ``None`` otherwise.
    Given the archive's ``fold``, the keys come folded (``fold(keys)``)."""

    def __call__(
        self, state: Any, tokens: Sequence[str], fold: KeyFold | None = None
    ) -> KeyReplayed | None: ...


class PlainReplay(NamedTuple):
    """A plain record replayed: the replay, its canonical text (``""`` when not
    asked for), and its keys folded by the archive's fold when one was given
    (``replayed.keys`` is then empty)."""

    replayed: ReplayedRecord
    text: str
    folded: list[int] | None


#: Moves replayed at a time (a bound on what the key replay holds at once).
_WINDOW = 4096


def fast_path_enabled() -> bool:
    """False when ``PARTITA_FULL_PATH=1`` asks for the full path everywhere."""
    return os.environ.get(FULL_PATH_VARIABLE) != "1"


def key_replay(game: GameNotation[Any, Any]) -> KeyReplay:
    """The key replay of a configured game: the one its spec offers
    (``GameSpec.fast_replay``, a factory given the configured notation), else
    :func:`reference_key_replay` bound to it. Kept per game object."""
    replay = _REPLAYS.get(game)
    if replay is None:
        factory = get_spec(game.name).fast_replay_factory()
        replay = factory(game) if factory is not None else _reference_replay(game)
        if len(_REPLAYS) >= _REPLAYS_KEPT:
            _REPLAYS.clear()
        _REPLAYS[game] = replay
    return replay


_REPLAYS: dict[GameNotation[Any, Any], KeyReplay] = {}
_REPLAYS_KEPT = 64


def reference_key_replay(
    game: GameNotation[Any, Any], state: Any, tokens: Sequence[str], fold: KeyFold | None = None
) -> KeyReplayed | None:
    """What every :class:`KeyReplay` must give (a differential test holds a game's
    ``fast_replay`` to it): the reference replay's clean prefix, its keys (folded
    by ``fold`` when given) and the move numbers."""
    states = clean_prefix(game, state, tokens)
    if len(states) < len(tokens):
        return None
    rules = game.rules
    key, move_number = rules.key, rules.move_number
    befores = [state, *states]
    keys: list[Hashable] = [key(after) for after in states]
    return (
        keys if fold is None else cast("list[Hashable]", fold(keys)),
        [move_number(before) for before in befores[:-1]],
        befores[-1],
    )


def _reference_replay(game: GameNotation[Any, Any]) -> KeyReplay:
    def replay(
        state: Any, tokens: Sequence[str], fold: KeyFold | None = None
    ) -> KeyReplayed | None:
        return reference_key_replay(game, state, tokens, fold)

    return replay


def replay_plain(
    record: Record,
    moves: list[str],
    numbers: list[tuple[int, bool] | None],
    strict: bool = False,
    labels: list[tuple[int, bool]] | None = None,
    folders: Callable[[GameNotation[Any, Any], dict[str, str]], KeyFold] | None = None,
) -> tuple[ReplayedRecord, list[int] | None] | None:
    """The replay of a record that is tags and a mainline only (``record.root`` holds
    no node; ``moves`` are its move tokens, ``numbers`` the move number written
    before each, as the rules' ``move_number`` it claims: ``12.`` is ``(12, True)``,
    ``12...`` ``(12, False)``), when :func:`~partita.notation.replay.replay` would
    find no problem in it at all; ``None`` as soon as it might (the caller then
    replays the record in full).

    The same checks as the reference replay, in its code where they are not the
    mainline's (:func:`~partita.notation.replay.plain_header`,
    :func:`~partita.notation.replay.plain_result_holds`); the moves through the
    game's :func:`key_replay` (every move must pass it, so no move is misspelled or
    illegal and no pass is inserted), each written number as the rules number it.
    ``states`` stays empty (no state but the last is built); ``labels`` (when given)
    receives the rules' ``move_number`` before each move: what the canonical writer
    numbers the moves with. ``folders`` (the configured game and the record's tags
    to the archive's fold of its set-up's keys): the keys come folded, second in the result (``keys`` then empty).
    """
    header = plain_header(record)
    if header is None:
        return None
    game, start = header
    if len(moves) > KEPT_STATES:
        return None  # the full replay's bounded memory for a huge record
    replay = key_replay(game)
    fold = None if folders is None else folders(game, record.tags)
    keys: list[Hashable] = []
    befores: list[tuple[int, bool]] = labels if labels is not None else []
    before = start
    done = 0
    while done < len(moves):  # a window at a time, as the mainline replay does
        window = moves[done : done + _WINDOW]
        replayed_window = replay(before, window, fold)
        if replayed_window is None:
            return None  # a move to check one by one: the full replay reports it
        window_keys, window_labels, before = replayed_window
        written = numbers[done : done + _WINDOW]
        if list(compress(written, written)) != list(compress(window_labels, written)):
            return None  # a move-number problem: a number other than the rules'
        keys.extend(window_keys)
        befores.extend(window_labels)
        done += len(window)
    replayed = ReplayedRecord(
        record=record,
        game=game,
        strict=strict,
        moves=moves,
        keys=keys if fold is None else [],
        initial_state=start,
        final_state=before,
        outcome=game.rules.outcome(before),
    )
    if not plain_result_holds(record, replayed):
        return None
    return replayed, None if fold is None else cast("list[int]", keys)


#: A tag line as the canonical writer writes it, its value needing no escape.
_TAG_LINE = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*) "([^"\\\n\r\ufeff]*)"\]\n')
_find_tags = _TAG_LINE.findall
#: What a plain movetext never holds: a character other than printable ASCII, a
#: space or a line break (a tab, a carriage return, a non-ASCII space...), or one of
#: the grammar's delimiters (comments, NAGs, variations, tags).
_NOT_PLAIN = re.compile(r"[^\n !-#%-'*-:<-Z\\^-z|~]")  # one class: quicker than two
#: A comment, its text in the group (the reader's: up to the first ``}``).
_COMMENT = re.compile(r"\{([^}]*)\}")
#: What a fast-path comment never holds: a carriage return, a byte-order mark.
_ODD_COMMENT = re.compile("[\r\ufeff]")
#: A move number: ``12.`` opens a round, ``12...`` continues one.
_NUMBER = re.compile(rf"([0-9]{{1,{MAX_DIGITS}}})(\.|\.\.\.)")
#: Move numbers already read, as the label each claims (``"12."`` -> ``(12, True)``:
#: move 12, opening its round), at most this many.
_NUMBERS: dict[str, tuple[int, bool]] = {}
_NUMBERS_KEPT = 4096
#: A result token (the grammar's, as a whole word).
_RESULT = re.compile(r"\*|(?:1/2|[01])(?:-(?:1/2|[01]))+")
#: A word's first character that makes it no move: a move number, a bare number or
#: a result starts with a digit (``*`` alone is a result, ``*y`` a move).
_DIGITS = frozenset("0123456789")
#: A move token's last character that would be a suffix annotation.
_SUFFIX_END = frozenset("!?")


def _move_number(word: str) -> tuple[int, bool] | None:
    """The label a move-number word claims, the rules' ``move_number`` form
    ``(number, opens a round)`` (``12.`` opens, ``12...`` continues); ``None`` for
    any other word that starts with a digit (the fast path defers those)."""
    number = _NUMBER.fullmatch(word)
    if number is None:
        return None
    value = (int(number[1]), number[2] == ".")
    if len(_NUMBERS) < _NUMBERS_KEPT:
        _NUMBERS[word] = value
    return value


def replay_raw(
    raw: RawRecord,
    strict: bool,
    *,
    text: bool = True,
    folders: Callable[[GameNotation[Any, Any], dict[str, str]], KeyFold] | None = None,
) -> PlainReplay | None:
    """The replay of a plain raw record without problems, exactly as the full path
    makes it, and its canonical text (``""`` unless ``text``: validation needs
    none); ``None`` when the record is not plain, or replay might find a problem.
    ``folders``: the keys come folded (see :func:`replay_plain`)."""
    if raw.problems:
        return None
    raw_text = raw.text
    start = raw.movetext_start
    head = raw_text[:start]
    pairs = _find_tags(head)
    tags = dict(pairs)
    if len(tags) != len(pairs):
        return None  # a duplicate tag: a problem
    # The tag lines and blank lines only: each tag line is its name, its value and
    # six characters (one of them its line end), and whatever the tag lines leave
    # must be as many characters as it has line ends.
    line_ends = head.count("\n")
    if sum(map(len, tags)) + sum(map(len, tags.values())) + 5 * len(pairs) + line_ends != start:
        return None
    blank_lines = line_ends - len(pairs)
    movetext = raw_text[start:]
    read = _read_movetext(movetext)
    if read is None:
        return None
    moves, numbers, result, padded, notes = read
    record = Record(
        tags=tags,
        result=result,
        source=raw.source,
        text=raw_text,
        result_offset=start + movetext.rindex(result),
    )
    labels: list[tuple[int, bool]] = []
    played = replay_plain(record, moves, numbers, strict, labels, folders)
    if played is None:
        return None
    replayed, folded = played
    if not text:
        return PlainReplay(replayed, "", folded)
    if notes:
        return PlainReplay(
            replayed, write_mainline(tags, moves, labels, result, notes=notes), folded
        )
    if (
        blank_lines == 1
        and raw_text[start - 2 : start] == "\n\n"
        and _in_tag_order(tags)
        and _canonical_movetext(movetext, numbers, labels, padded)
    ):
        return PlainReplay(replayed, raw_text + "\n", folded)  # as the writer writes it
    return PlainReplay(replayed, write_mainline(tags, moves, labels, result), folded)


def _in_tag_order(tags: dict[str, str]) -> bool:
    """``list(tags) == tag_order(tags)``, kept per tuple of names (few occur)."""
    return _names_in_tag_order(tuple(tags))


@lru_cache(maxsize=1024)
def _names_in_tag_order(names: tuple[str, ...]) -> bool:
    return list(names) == tag_order(dict.fromkeys(names, ""))


def _read_movetext(
    movetext: str,
) -> tuple[list[str], list[tuple[int, bool] | None], str, bool, Notes] | None:
    """The moves of a plain movetext, the move number written before each (the
    label it claims: :func:`_move_number`), its
    result, whether a number was written with a leading zero, and its comments
    (:data:`~partita.notation.writer.Notes`: by the move they follow, ``-1`` before
    the first, as the reader attaches them); ``None`` when it is not plain.

    A comment (``{...}``, standing apart from the words beside it) goes to the move
    before it, as the reader's record tree holds it; a move number written before
    it still belongs to the move after it. NAGs, suffixes and variations take the
    full path."""
    notes: Notes = {}
    comments: list[str] = []
    if _NOT_PLAIN.search(movetext) is None:
        parts = [movetext]
    else:
        if "{" not in movetext:
            return None
        parts = _COMMENT.split(movetext)
        comments = parts[1::2]
        parts = parts[0::2]
        if _NOT_PLAIN.search("\n".join(parts)) is not None:
            return None
        for before, comment, after in zip(parts, comments, parts[1:], strict=False):
            if _ODD_COMMENT.search(comment) is not None:
                return None
            if (before and before[-1] not in " \n") or (after and after[0] not in " \n"):
                return None  # a comment glued to a word
    last = parts[-1].split()
    if not last or _RESULT.fullmatch(last[-1]) is None:
        return None
    result = last[-1]
    suffixes = "!" in movetext or "?" in movetext
    if not comments and not suffixes:
        rounds = _read_rounds(last[:-1])
        if rounds is not None:
            return rounds[0], rounds[1], result, rounds[2], notes
    known_numbers = _NUMBERS
    moves: list[str] = []
    numbers: list[tuple[int, bool] | None] = []
    written: tuple[int, bool] | None = None
    padded = False  # a move number written with a leading zero
    final = len(parts) - 1
    for index, part in enumerate(parts):
        for word in part.split() if index < final else last[:-1]:
            number = known_numbers.get(word)
            if number is None and word[0] in _DIGITS:
                number = _move_number(word)
                if number is None:
                    return None  # a bare number, a result before the end...
            if number is not None:
                if written is not None:
                    return None  # two move numbers in a row
                written = number
                padded = padded or word[0] == "0"
                continue
            if word == "*" or (suffixes and word[-1] in _SUFFIX_END):
                return None
            moves.append(word)
            numbers.append(written)
            written = None
        if index < final:
            text = comment_text(COMMENT, "{" + comments[index] + "}")
            notes.setdefault(len(moves) - 1, ([], []))[1].append(text)
    if written is not None:
        return None  # a move number before the result
    return moves, numbers, result, padded, notes


#: What starts a word of a round's two moves that :func:`_read_rounds` leaves to
#: the word loop: a digit (a move number, a number or a result) or ``*``.
_NOT_A_MOVE_START = frozenset("0123456789*")


def _read_rounds(
    words: list[str],
) -> tuple[list[str], list[tuple[int, bool] | None], bool] | None:
    """:func:`_read_movetext`'s moves, numbers and padding for the commonest movetext,
    by slices instead of a loop over its words: rounds of a known move number and
    two moves (``1. t4 t5 2. r3 l1 ...``, the last round maybe of one move), no
    suffix, no comment. ``None`` for anything else (the word loop reads it)."""
    count = len(words)
    if count % 3 == 1:
        return None  # not whole rounds
    heads = words[0::3]
    written = list(map(_NUMBERS.get, heads))
    if None in written:
        return None  # a word that is not a move number already read
    firsts, seconds = words[1::3], words[2::3]
    starts = set(map(itemgetter(0), firsts))
    starts.update(map(itemgetter(0), seconds))
    if not starts.isdisjoint(_NOT_A_MOVE_START):
        return None
    moves: list[str] = [""] * (len(firsts) + len(seconds))
    moves[0::2] = firsts
    moves[1::2] = seconds
    numbers: list[tuple[int, bool] | None] = [None] * len(moves)
    numbers[0::2] = written
    return moves, numbers, "0" in "".join(map(itemgetter(0), heads))


def _canonical_movetext(
    movetext: str,
    numbers: list[tuple[int, bool] | None],
    labels: list[tuple[int, bool]],
    padded: bool,
) -> bool:
    """Whether a plain movetext is already what the canonical writer writes (the
    common case for exported archives, which is then kept as it is): a number
    before exactly the moves that open a round and the first move, written without
    leading zeros (``padded``: some were), one space between two words, and the
    lines the writer's greedy wrapping makes (each line as long as it can be, at
    most :data:`~partita.notation.writer.LINE_WIDTH`)."""
    if padded:
        return False
    if numbers:  # numbered exactly where a round opens, and at the first move
        numbered = list(map(is_not, numbers, repeat(None)))
        opening = list(map(itemgetter(1), labels))
        opening[0] = True
        if numbered != opening:
            return False
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
