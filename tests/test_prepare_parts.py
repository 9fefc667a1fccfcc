"""The preparation's cheaper parts give the values of their reference forms.

The importer's row builder folds keys a record at a time, makes the twin key from a
hash state kept per set-up, writes the tags' JSON with one encoder, and counts sides
through a cache; replay decides a result check without formatting the rules'
result. Each is held here to the plain formula it replaces (``fold_key``,
``Configuration.of``, ``json.dumps``, the uncached count), on every shipped example
and on generated values: the stored keys must not change.
"""

from __future__ import annotations

import json
from hashlib import blake2b
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from partita.bulk import plain as plain_reading
from partita.bulk import validation
from partita.bulk.plain import FULL_PATH_VARIABLE
from partita.bulk.prepare import fast_prepare, prepare_raw
from partita.bulk.validation import validate_files
from partita.database import prepare as preparing
from partita.database.keys import fold_key, key_list_folder
from partita.database.prepare import prepare_record
from partita.database.twinkey import twin_key
from partita.game.configuration import Configuration
from partita.notation import replay as replaying
from partita.notation.files import expand_paths
from partita.notation.reader import build_record, read_records, split_records
from partita.notation.replay import count_sides, replay
from partita.notation.writer import tag_order

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

key_parts = st.recursive(
    st.integers(min_value=-(2**130), max_value=2**130)
    | st.booleans()
    | st.text(max_size=8)
    | st.binary(max_size=8)
    | st.none(),
    lambda inner: st.tuples(inner, inner) | st.lists(inner, max_size=3).map(tuple),
    max_leaves=8,
)


@given(st.lists(key_parts, max_size=20), st.sampled_from(["forza4x4", "connect4", "x"]))
def test_a_list_of_keys_folds_to_each_keys_fold_key(keys, game):
    assert key_list_folder(game)(keys) == [fold_key(game, key) for key in keys]


@given(st.lists(st.integers(min_value=-(2**200), max_value=2**200), max_size=50))
def test_int_keys_of_every_size_fold_as_fold_key_folds_them(keys):
    assert key_list_folder("forza4x4")(keys) == [fold_key("forza4x4", key) for key in keys]


def reference_twin_key(notation, sides, tags, start, moves) -> int:
    """The twin key as its docstring defines it (what ``row_twin_key`` computes)."""
    settings = Configuration.of(notation, sides, tags).settings
    return fold_key(notation.name, (sides, settings, notation.rules.key(start), " ".join(moves)))


def example_replays():
    for path in sorted(EXAMPLES.rglob("*.pgr")):
        for record in read_records(path):
            replayed = replay(record)
            if replayed.game is not None and replayed.initial_state is not None:
                yield replayed


def test_twin_keys_of_every_example_are_the_defined_fold():
    seen = 0
    for replayed in example_replays():
        tags = replayed.record.tags
        sides = count_sides(tags, replayed.game.rules.min_sides)[0]
        for moves in (replayed.moves, replayed.moves[:1], []):  # a set-up seen again
            got = twin_key(replayed.game, sides, tags, replayed.initial_state, moves)
            assert got == reference_twin_key(
                replayed.game, sides, tags, replayed.initial_state, moves
            )
        seen += 1
    assert seen > 50


@given(st.lists(st.sampled_from(["t4", "r5", "é1", "--", ""]), max_size=6))
def test_twin_keys_of_any_mainline_are_the_defined_fold(moves):
    replayed = next(example_replays())
    tags = replayed.record.tags
    sides = count_sides(tags, replayed.game.rules.min_sides)[0]
    start = replayed.initial_state
    assert twin_key(replayed.game, sides, tags, start, moves) == reference_twin_key(
        replayed.game, sides, tags, start, moves
    )


@given(st.dictionaries(st.text(max_size=6), st.text(max_size=12), max_size=6))
def test_the_tags_json_is_json_dumps_without_ascii_escapes(tags):
    assert preparing._tags_json(tags) == json.dumps(tags, ensure_ascii=False)


player_names = st.sampled_from(
    ["Player1", "Player2", "Player3", "Player4", "Player5", "Player0", "Player01", "Players",
     "Event", "Game", "Player12"]
)  # fmt: skip


@given(st.lists(player_names, max_size=7, unique=True), st.integers(min_value=1, max_value=3))
def test_counted_sides_are_the_uncached_count(names, minimum):
    tags = dict.fromkeys(names, "x")
    assert count_sides(tags, minimum) == replaying._count_sides(tags, minimum)
    assert count_sides(dict(tags), minimum) == replaying._count_sides(tags, minimum)  # cached


def test_the_side_count_cache_stays_bounded():
    for count in range(replaying._SIDES_KEPT + 10):
        count_sides({f"Tag{count}": "x", "Player1": "a", "Player2": "b"}, 2)
    assert len(replaying._SIDES) <= replaying._SIDES_KEPT
    assert count_sides({"Player1": "a", "Player3": "b"}, 2) == (
        2,
        "player tags must run from Player1 without gaps, found Player1, Player3",
    )


# -- the fast path's whole-text reading -------------------------------------------------------

HEADER = '[Game "forza4x4"]\n[Player1 "A"]\n[Player2 "B"]\n[Result "*"]\n\n'


def stored_both_ways(text: str, strict: bool = False):
    """The fast path's rows (or ``None`` when it defers) and the full path's."""
    (raw,) = split_records(text.encode("utf-8"), name="odd.pgr")
    full = prepare_record(replay(build_record(raw), strict=strict), strict)
    assert prepare_raw(raw, strict) == full
    return fast_prepare(raw, strict), full


@pytest.mark.parametrize(
    ("movetext", "taken"),
    [
        ("1. t4 r5 2. r5 t2 *", True),
        ("t4 r5 2. r5 t2 *", True),  # no number before the first move
        ("1. t4 r5 r5 t2 *", True),  # numbers left out
        ("1.  t4\nr5   2. r5 t2\n*", True),  # odd spacing, still plain
        ("01. t4 r5 02. r5 t2 *", True),  # leading zeros: plain, but written anew
        ("*", True),  # no move at all
        ("1.t4 r5 *", False),  # a number glued to its move
        ("1. t4 2 r5 *", False),  # a bare number
        ("1. t4 r5 1-0 *", False),  # a result before the end
        ("1. t4 * r5 *", False),
        ("1. 2. t4 r5 *", False),  # two numbers in a row
        ("1. t4 r5 2. *", False),  # a number before the result
        ("1.... t4 *", False),
        ("1. t4 r5 2.. r5 *", False),
        (f"{'9' * 12}. t4 *", False),  # a number too long
        ("1. t4! r5 *", False),  # a suffix
        ("1. t4 r5?! *", False),
        ("1... t4 r5 *", False),  # the wrong dots
        ("2. t4 r5 *", False),  # the wrong number
        ("1. t4 2. r5 *", False),  # a number before a move that opens no round
    ],
)
def test_the_fast_path_reads_numbers_and_words_as_the_full_path_does(movetext, taken):
    fast, full = stored_both_ways(HEADER + movetext + "\n")
    assert (fast is not None) == taken
    if fast is not None:
        assert fast == full


def test_a_record_kept_as_read_is_exactly_canonical():
    canonical = HEADER + "1. t4 r5 2. r5 t2 *\n"
    padded = HEADER + "01. t4 r5 02. r5 t2 *\n"
    fast, _ = stored_both_ways(canonical)
    assert fast is not None and fast.game[18] == canonical
    fast, _ = stored_both_ways(padded)
    assert fast is not None and fast.game[18] == canonical  # the writer's numbers


@pytest.mark.parametrize(
    "header",
    [
        '[Game "forza4x4"]\n[Result "*"]\n[Game "forza4x4"]\n\n',  # a duplicate tag
        '[Game "forza4x4"]\n[Result "*"] \n\n',  # a space after a tag
        '[Game "forza4x4"]\n[Result "a\\"b"]\n\n',  # an escape
    ],
)
def test_tags_written_otherwise_take_the_full_path(header):
    fast, _ = stored_both_ways(header + "1. t4 r5 *\n")
    assert fast is None


def test_blank_lines_among_the_tags_are_read_and_written_anew():
    text = '\n[Game "forza4x4"]\n\n[Player1 "A"]\n[Player2 "B"]\n[Result "*"]\n\n1. t4 r5 *\n'
    fast, full = stored_both_ways(text)
    assert fast is not None and fast.game[18] == HEADER + "1. t4 r5 *\n"


# -- comments on the fast path ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("movetext", "taken"),
    [
        ("{before all} 1. t4 r5 *", True),
        ("1. {after the number} t4 r5 *", True),  # the comment goes before the move
        ("1. t4 {one} {two} r5 2. r5 {three\n  lines}\n t2 *", True),
        ("1. t4 {} r5 {Zoë's  move, 1-0?} *", True),  # empty, non-ASCII, a result inside
        ("1. t4 {a} 1... r5 {b} 2. r5 t2 {c} *", True),
        ("1. t4{glued} r5 *", False),
        ("1. t4 {glued}r5 *", False),
        ("1. t4 r5 * {after the result}", False),
        ("1. t4 {never closed r5 *", False),
        ("1. t4 } r5 *", False),
        ("1. t4 {a} $1 r5 *", False),  # a NAG
        ("1. t4 {a} (1... r4) r5 *", False),  # a variation
        ("1. t4 {a} 2. r5 *", False),  # a wrong number after a comment
    ],
)
def test_the_fast_path_reads_comments_as_the_full_path_does(movetext, taken):
    fast, full = stored_both_ways(HEADER + movetext + "\n")
    assert (fast is not None) == taken
    if fast is not None:
        assert fast == full


def test_a_commented_record_is_stored_in_the_writers_form():
    fast, _ = stored_both_ways(HEADER + "1. t4 {a  quiet\nmove} r5 *\n")
    assert fast is not None
    assert fast.game[18] == HEADER + "1. t4 {a quiet move} 1... r5 *\n"


comment_texts = st.text(alphabet=st.sampled_from("ab 1-0*.\n\t;()$!?é{"), max_size=12).map(
    lambda text: "{" + text + "}"
)


@given(
    st.lists(st.tuples(st.integers(min_value=0, max_value=40), comment_texts), max_size=4),
    st.booleans(),
)
def test_comments_anywhere_are_stored_as_the_full_path_stores_them(inserted, strict):
    words = ["1.", "t4", "r5", "2.", "r5", "t2", "3.", "l8", "t4", "4.", "b1", "b2", "*"]
    for place, comment in sorted(inserted, reverse=True):
        words.insert(min(place, len(words)), comment)
    stored_both_ways(HEADER + " ".join(words) + "\n", strict)


# -- one-process validation takes the fast path ---------------------------------------------


def checks_of(files, monkeypatch, full: bool) -> list:
    monkeypatch.setenv(FULL_PATH_VARIABLE, "1" if full else "0")
    return list(validate_files(files, workers=1))


def test_one_process_validation_reports_what_the_full_path_reports(monkeypatch, tmp_path):
    generated = tmp_path / "mixed.pgr"
    generated.write_text(
        HEADER
        + "1. t4 {a comment} r5 2. r5 t2 *\n\n"
        + HEADER
        + "1. t4 r5 2. r5 t2 *\n\n"
        + HEADER
        + "1. t4 r5 2. r5 t2 3. x9 *\n\n"  # an illegal move
        + HEADER.replace('"*"', '"1-0"')
        + "1. t4 r5 1-0\n",  # a result the rules deny
        encoding="utf-8",
    )
    files = [*expand_paths([EXAMPLES]), generated]
    taken = []
    original = plain_reading.replay_raw

    def counting(raw, strict, *, text=True):
        plain = original(raw, strict, text=text)
        taken.append(plain is not None)
        return plain

    full = checks_of(files, monkeypatch, full=True)
    assert not taken  # the full path reads nothing the fast way
    monkeypatch.setattr(validation, "replay_raw", counting)
    fast = checks_of(files, monkeypatch, full=False)
    assert fast == full
    assert len(taken) == len(full) and sum(taken) >= 3
    assert [check.valid for _, check in fast[-4:]] == [True, True, False, True]
    assert fast[-1][1].problems and fast[-2][1].problems


dates = st.one_of(
    st.none(),
    st.from_regex(r"(\d{4}|\?{4})\.(\d{2}|\?\?)\.(\d{2}|\?\?)", fullmatch=True),
    st.text(max_size=10),
)


@given(st.lists(dates, max_size=5))
def test_date_bounds_are_the_same_asked_again(values):
    for date in values + values:  # the second time from the cache
        assert preparing.date_bounds(date) == preparing._date_bounds(date)
    assert len(preparing._BOUNDS) <= preparing._BOUNDS_KEPT


def test_the_twin_key_caches_stay_bounded():
    from partita.database import twinkey

    replayed = next(example_replays())
    tags = replayed.record.tags
    for count in range(twinkey._SPECS_KEPT + 5):
        configured = replayed.game.configure(tags)
        start = configured.initial(2)
        assert twin_key(configured, 2, tags, start, [str(count)]) == reference_twin_key(
            configured, 2, tags, start, [str(count)]
        )
    assert len(twinkey._SPECS) <= twinkey._SPECS_KEPT
    assert len(twinkey._HASHERS) <= twinkey._HASHERS_KEPT


def test_every_plain_example_replays_to_the_same_keys_folded_as_it_goes():
    """The plain path hands the game's key replay the archive's fold of the
    record's set-up: the keys it gives back folded are ``fold_key`` of the keys it
    gives without one, under the record's set-up."""
    games = set()
    setups = set()
    for path in sorted(EXAMPLES.rglob("*.pgr")):
        for raw in split_records(path):
            plain = plain_reading.replay_raw(raw, False)
            if plain is None or not plain.replayed.moves:
                continue
            folded = plain_reading.replay_raw(raw, False, folders=preparing.record_folder)
            assert folded is not None
            name = plain.replayed.game.name
            games.add(name)
            assert folded.replayed.keys == []
            tags = plain.replayed.record.tags
            setup = Configuration.of(plain.replayed.game, count_sides(tags, 2)[0], tags)
            setups.add(setup.is_default)
            assert folded.folded == [fold_key(name, key, setup) for key in plain.replayed.keys]
            assert folded.replayed.moves == plain.replayed.moves and folded.text == plain.text
            assert plain.folded is None
    assert len(games) >= 4, games
    assert setups == {True, False}  # default set-ups and others


def test_the_plain_movetext_class_is_printable_ascii_without_delimiters():
    """``_NOT_PLAIN`` (one character class) refuses exactly what its definition says:
    anything but a line break, a space or printable ASCII, and ``{}();[]$``."""
    for code in range(0x3100):
        character = chr(code)
        plain_character = character in "\n " or (
            "!" <= character <= "~" and character not in "{}();[]$"
        )
        assert (plain_reading._NOT_PLAIN.search(character) is None) == plain_character, code


move_words = st.sampled_from(["t4", "r5", "l10", "b2", "*y", "x", "--", "t4!", "1", "0-1"])
number_words = st.builds(
    lambda number, dots, zero: f"{'0' if zero else ''}{number}{dots}",
    st.integers(1, 12),
    st.sampled_from([".", "..."]),
    st.booleans(),
)


any_words = st.lists(st.one_of(move_words, number_words), max_size=30)
#: Mostly whole rounds (a number, two moves), sometimes a last round of one move.
round_words = st.tuples(
    st.lists(st.tuples(number_words, move_words, move_words), max_size=10),
    st.lists(st.tuples(number_words, move_words), max_size=1),
).map(lambda rounds: [word for part in rounds for group in part for word in group])


@given(st.one_of(any_words, round_words))
def test_whole_rounds_read_by_slices_as_the_word_loop_reads_them(words):
    """``_read_rounds`` (rounds of a number and two moves, by slices) gives what the
    word loop gives for the same words, or leaves them to it."""
    for word in words:  # the numbers the word loop has read before
        if word[0].isdigit():
            plain_reading._move_number(word)
    movetext = " ".join([*words, "1-0"])
    rounds = plain_reading._read_rounds(words)
    saved = plain_reading._read_rounds
    plain_reading._read_rounds = lambda words: None
    try:
        expected = plain_reading._read_movetext(movetext)
    finally:
        plain_reading._read_rounds = saved
    assert plain_reading._read_movetext(movetext) == expected
    if rounds is not None and "!" not in movetext:
        assert expected is not None
        assert (rounds[0], rounds[1], rounds[2]) == (expected[0], expected[1], expected[3])


def test_canonical_rounds_take_the_slices():
    plain_reading._move_number("1.")
    plain_reading._move_number("2.")
    assert plain_reading._read_rounds(["1.", "t4", "t5", "2.", "r3"]) == (
        ["t4", "t5", "r3"],
        [(1, True), None, (2, True)],
        False,
    )
    assert plain_reading._read_rounds(["1.", "t4", "t5", "2."]) is None
    assert plain_reading._read_rounds(["1.", "t4", "2.", "t5"]) is None


tag_names = st.sampled_from(["Game", "Event", "Site", "Date", "Round", "Player1", "Result", "X"])


@given(st.lists(tag_names, unique=True, max_size=8))
def test_the_kept_tag_order_check_is_the_writers_order(names):
    tags = dict.fromkeys(names, "v")
    expected = list(tags) == tag_order(tags)
    assert plain_reading._in_tag_order(tags) == expected
    assert plain_reading._in_tag_order(tags) == expected  # asked again: kept


def reference_numbered_as_written(numbers, labels) -> bool:
    """The canonical numbering, move by move: a number before the first move and
    before exactly the moves that open a round."""
    return all(
        (written is not None) == (opens or index == 0)
        for index, (written, (_, opens)) in enumerate(zip(numbers, labels, strict=True))
    )


@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), max_size=8),  # one line
)
def test_the_numbering_check_is_the_move_by_move_rule(plies):
    numbers = [
        (index + 1, opens) if written else None for index, (written, opens) in enumerate(plies)
    ]
    labels = [(index + 1, opens) for index, (_, opens) in enumerate(plies)]
    words = []
    for number, (_, opens) in zip(numbers, labels, strict=True):
        if number is not None:
            words.append(f"{number[0]}{'.' if opens else '...'}")
        words.append("t4")
    movetext = " ".join([*words, "*"])
    if reference_numbered_as_written(numbers, labels):
        assert plain_reading._canonical_movetext(movetext, numbers, labels, False)
    else:
        assert not plain_reading._canonical_movetext(movetext, numbers, labels, False)


def test_the_fold_prefixes_give_the_fold_of_int_keys():
    """``int_prefixes`` (what a compiled replay hashes before an int key's bytes)
    folds every int as ``fold_key`` does."""
    folder = key_list_folder("forza4x4")
    prefixes = folder.int_prefixes(20)
    for key in (0, 1, -1, 127, 128, -129, 2**64, 2**128 + 5, -(2**100)):
        data = key.to_bytes((key.bit_length() + 8) // 8, "little", signed=True)
        digest = blake2b(prefixes[len(data)] + data, digest_size=8).digest()
        assert int.from_bytes(digest, "little", signed=True) == fold_key("forza4x4", key)
