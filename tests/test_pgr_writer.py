"""The canonical PGR writer: tag order, numbering, spelling, passes, wrapping, depth."""

from __future__ import annotations

import io
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from partita.errors import IllegalMoveError, NotationError
from partita.game.notation import GameNotation
from partita.game.registry import get_game
from partita.game.rules import Rules
from partita.notation.model import Node, Record
from partita.notation.reader import parse_record, read_records
from partita.notation.writer import write_record, write_records


# -- a small fake game: moves a, b, c; every fifth ply is a forced pass ----------------------
class CountRules(Rules):
    name = "count-test"
    title = "Count"
    min_sides = 2
    max_sides = 4

    def initial(self, sides=2):
        return (0, sides)

    def sides(self, state):
        return state[1]

    def side_to_move(self, state):
        return state[0] % state[1]

    def must_pass(self, state):
        return state[0] % 5 == 4

    def legal_moves(self, state):
        return ("--",) if self.must_pass(state) else ("a", "b", "c")

    def illegal_reason(self, state, move):
        if move in self.legal_moves(state):
            return None
        return "a pass is forced here" if self.must_pass(state) else "no pass allowed here"

    def apply(self, state, move):
        return (state[0] + 1, state[1])

    def outcome(self, state):
        return None

    def forced_pass(self, state):
        return "--" if self.must_pass(state) else None

    def is_pass(self, move):
        return move == "--"

    def ply(self, state):
        return state[0]

    def key(self, state):
        return state

    def diagram(self, state):
        return str(state)


class CountNotation(GameNotation):
    def canonical_token(self, text):
        if text == "--" or text.lower() in ("a", "b", "c"):
            return text.lower()
        raise NotationError(f"malformed move '{text}': a move is a, b, c or --")

    def parse_move(self, state, text):
        move = self.canonical_token(text)
        reason = self.rules.illegal_reason(state, move)
        if reason is not None:
            raise IllegalMoveError(f"illegal move '{text}': {reason}")
        return move

    def format_move(self, state, move):
        return move

    def parse_position(self, text, sides=None):
        if not text.startswith("ply "):
            raise NotationError(f"malformed position '{text}'")
        return (int(text[4:]), sides or 2)

    def format_position(self, state):
        return f"ply {state[0]}"


COUNT = CountNotation(CountRules())


def line_record(moves, tags=None, result="*"):
    record = Record(tags=dict(tags or {}))
    record.result = result
    node = record.root
    for move in moves:
        node = node.add_move(move)
    return record


def movetext(text: str) -> str:
    """The movetext part of a written record, on one line."""
    return " ".join(text.split("\n\n", 1)[-1].split("\n")).strip()


# -- tags ---------------------------------------------------------------------------------------
def test_tags_in_canonical_order_escaped_then_a_blank_line():
    record = line_record(["t4"], result="1-0")
    record.tags.update(
        {
            "Annotator": 'Ann "the" \\ critic',
            "Result": "1-0",
            "Player2": "Bruno",
            "Round": "3",
            "Player1": "Anna",
            "Game": "forza4x4",
            "Opening": "x",
            "Date": "2024.05.01",
            "Site": "Roma",
            "Event": "Cup",
        }
    )
    assert write_record(record) == (
        '[Game "forza4x4"]\n[Event "Cup"]\n[Site "Roma"]\n[Date "2024.05.01"]\n'
        '[Round "3"]\n[Player1 "Anna"]\n[Player2 "Bruno"]\n[Result "1-0"]\n'
        '[Annotator "Ann \\"the\\" \\\\ critic"]\n[Opening "x"]\n\n1. t4 1-0\n'
    )


def test_no_tags_no_blank_line_and_the_result_fallbacks():
    assert write_record(line_record(["a", "b"])) == "1. a b *\n"
    record = line_record([], tags={"Result": "0-1"}, result=None)
    assert write_record(record) == '[Result "0-1"]\n\n0-1\n'
    assert write_record(line_record([], result=None)) == "*\n"


def test_a_tag_name_that_cannot_be_written_is_refused():
    with pytest.raises(NotationError, match="tag name '1x'"):
        write_record(line_record([], tags={"1x": "y"}))


# -- numbering without a game ------------------------------------------------------------------------
def test_two_sides_by_arithmetic():
    assert write_record(line_record(list("abcde"))) == "1. a b 2. c d 3. e *\n"


def test_sides_from_the_player_tags():
    tags = {"Player1": "A", "Player2": "B", "Player3": "C"}
    assert movetext(write_record(line_record(list("abcdefg"), tags))) == "1. a b c 2. d e f 3. g *"


def test_continuation_numbers_after_comments_and_variations():
    record = parse_record("{start} a b {why} c (c2 {hm} d2) (c3) d e (e2) f *")
    assert write_record(record) == (
        "{start} 1. a b {why} 2. c ( 2. c2 {hm} 2... d2 ) ( 2. c3 ) 2... d 3. e ( 3. e2 )\n3... f *\n"
    )


def test_variation_that_does_not_open_a_round_starts_with_a_continuation():
    record = parse_record("1. a b (1... b2 2. c2) 2. c *")
    assert write_record(record) == "1. a b ( 1... b2 2. c2 ) 2. c *\n"


def test_starting_comments_come_before_the_number():
    record = parse_record("1. a b ({first} {second} 1... b2) 2. c *")
    assert write_record(record) == "1. a b ( {first} {second} 1... b2 ) 2. c *\n"


def test_annotations_written_in_order():
    record = parse_record("1. a!? $3 $14 {c} b?? *")
    assert write_record(record) == "1. a!? $3 $14 {c} 1... b?? *\n"


def test_without_a_game_a_written_starting_number_is_kept():
    record = parse_record("5... b 6. c *")
    assert write_record(record) == "5... b 6. c *\n"


# -- comments -----------------------------------------------------------------------------------------
def test_comments_are_normalised_and_cannot_close_early():
    record = line_record(["a"])
    record.root.continuation.comments.extend(["  two   words\n", "", "a } brace"])
    assert write_record(record) == "1. a {two words} {} {a brace} *\n"


# -- wrapping -----------------------------------------------------------------------------------------
def test_lines_of_at_most_80_characters_and_long_comments_wrap():
    record = line_record(["a", "b", "c"] * 30)
    record.root.continuation.comments.append(" ".join(["word"] * 40))
    text = write_record(record)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert len(text.splitlines()) > 3
    back = parse_record(text)
    assert back.same_game(record)
    assert write_record(back) == text


def test_a_token_longer_than_a_line_stands_alone():
    long_move = "x" * 100
    record = line_record(["a", long_move, "c"])
    record.root.continuation.comments.append("y" * 90)
    lines = write_record(record).splitlines()
    assert lines == ["1. a", "{" + "y" * 90 + "}", "1... " + long_move, "2. c *"]
    assert parse_record("\n".join(lines)).same_game(record)


def test_a_comment_word_starting_with_a_bracket_does_not_split_the_record():
    words = ["word"] * 15 + ["[Event", '"x"]'] + ["word"] * 10
    record = line_record(["a"] + ["b"] * 5)
    record.root.continuation.comments.append(" ".join(words))
    text = write_record(record)
    assert any(line.startswith("[Event") for line in text.splitlines())
    (back,) = read_records(text)
    assert back.same_game(record) and back.syntax_problems == []


# -- with a game --------------------------------------------------------------------------------------
def test_forced_passes_are_written_as_passes():
    record = line_record(["a", "b", "a", "b", "a", "b"], {"Game": "count-test"})
    text = write_record(record, COUNT)
    assert movetext(text) == "1. a b 2. a b 3. -- a 4. b *"
    assert write_record(parse_record(text), COUNT) == text


def test_an_explicit_pass_is_not_doubled():
    record = line_record(["a", "b", "a", "b", "--", "a"])
    assert movetext(write_record(record, COUNT)) == "1. a b 2. a b 3. -- a *"


def test_canonical_spelling_and_arithmetic_after_an_unplayable_move():
    record = line_record(["A", "zz", "B", "c", "--", "a"])
    # zz cannot be played: from there the numbering goes on by arithmetic.
    assert movetext(write_record(record, COUNT)) == "1. a zz 2. b c 3. -- a *"


def test_setup_position_starts_with_a_continuation():
    tags = {"SetUp": "1", "Position": "ply 3"}
    record = line_record(["b", "--", "a"], tags)
    assert movetext(write_record(record, COUNT)) == "2... b 3. -- a *"


def test_three_sides_with_a_game():
    tags = {"Player1": "A", "Player2": "B", "Player3": "C"}
    record = line_record(["a", "b", "c", "a", "b", "a"], tags)
    assert movetext(write_record(record, COUNT)) == "1. a b c 2. a -- b 3. a *"


def test_forza_rulebook_example_in_canonical_form():
    text = (
        '[Result "*"]\n[Player2 "Bruno"]\n[Game "forza4x4"]\n[Player1 "Anna"]\n\n'
        "T4 r05 r5 (L1) t2 {nice} l8 *"
    )
    written = write_record(parse_record(text))
    assert written == (
        '[Game "forza4x4"]\n[Player1 "Anna"]\n[Player2 "Bruno"]\n[Result "*"]\n\n'
        "1. t4 r5 2. r5 ( 2. l1 ) 2... t2 {nice} 3. l8 *\n"
    )
    assert write_record(parse_record(written)) == written


def test_forza_setup_with_the_second_side_to_move():
    tags = {"Game": "forza4x4", "SetUp": "1", "Position": "8/8/8/8/8/8/8/3x4 o"}
    record = line_record(["t5", "b1", "b2"], tags)
    assert movetext(write_record(record)) == "1... t5 2. b1 b2 *"
    assert movetext(write_record(record, get_game("forza4x4"))) == "1... t5 2. b1 b2 *"


def test_forza_illegal_move_numbered_by_arithmetic():
    record = line_record(["t4", "b4", "T5", "q9", "l1"], {"Game": "forza4x4"})
    assert movetext(write_record(record)) == "1. t4 b4 2. t5 q9 3. l1 *"


def test_unknown_game_falls_back_to_no_game():
    record = line_record(["A", "zz"], {"Game": "no-such-game"})
    assert movetext(write_record(record)) == "1. A zz *"


# -- several records, idempotence, depth ---------------------------------------------------------------
def test_write_records_separates_records_with_a_blank_line():
    records = [line_record(["a"], {"Event": str(n)}) for n in range(3)]
    stream = io.StringIO()
    assert write_records(records, stream) == 3
    text = stream.getvalue()
    assert text == '[Event "0"]\n\n1. a *\n\n[Event "1"]\n\n1. a *\n\n[Event "2"]\n\n1. a *\n'
    back = list(read_records(text))
    assert [r.tags["Event"] for r in back] == ["0", "1", "2"]
    assert all(b.same_game(r) for b, r in zip(back, records, strict=True))


def test_write_is_idempotent_on_a_messy_record():
    text = (
        '[Site "s"]\n[Game "x"]\n;c1\n{c2\n\n c3} 1.a! $1 (1.a2 (1.a3 b3) b2 {v} c2) '
        "1...b {x} ; y\n c 5. d (d2 ({s} d3)) e f g h i j k l m n o p q r s t u v w x y z "
        "a b c d e f g h i j k l m n o p q r s t u v w x y z 1/2-1/2"
    )
    once = write_record(parse_record(text))
    assert write_record(parse_record(once)) == once
    assert parse_record(once).same_game(parse_record(once))
    assert max(len(line) for line in once.splitlines()) <= 80


DEPTH = 10_000


def test_ten_thousand_nested_variations_written_and_read_back():
    limit = sys.getrecursionlimit()
    record = line_record(["a", "b"])
    node = record.root.continuation
    for _ in range(DEPTH):
        variation = node.add_move("b2")
        node = variation.add_move("c2")
        node = variation
    text = write_record(record)
    assert text.count("(") == DEPTH
    assert max(len(line) for line in text.splitlines()) <= 80
    back = parse_record(text)
    assert back.syntax_problems == []
    assert back.same_game(record)
    assert write_record(back) == text
    assert sys.getrecursionlimit() == limit


def test_written_numbers_are_not_part_of_equality():
    plain = line_record(["a", "b"])
    numbered = parse_record("7. a 9... b *")
    assert numbered.root == plain.root
    assert isinstance(numbered.root.continuation, Node)


@given(
    moves=st.lists(st.text(alphabet="ab", min_size=1, max_size=30), max_size=40),
    width=st.integers(min_value=1, max_value=90),
)
def test_the_movetext_fills_lines_greedily_and_keeps_every_move(moves, width):
    """The movetext lines: the moves in order, one space between two units (a move
    with the number before it is one); no line longer than ``width`` unless it is
    one unit; and no unit could have joined the line before it."""
    text = write_record(line_record(moves, tags={"Event": "wrapped"}), width=width)
    lines = [units_of(line) for line in text.split("\n\n", 1)[1].rstrip("\n").split("\n")]
    assert [unit.split(" ")[-1] for line in lines for unit in line][:-1] == moves
    assert lines[-1][-1] == "*"
    for line in lines:
        assert len(" ".join(line)) <= width or len(line) == 1
    for before, after in zip(lines, lines[1:], strict=False):
        assert len(" ".join(before)) + 1 + len(after[0]) > width


def units_of(line: str) -> list[str]:
    """A movetext line's units: words, a move number joined to the move after it."""
    units: list[str] = []
    for word in line.split(" "):
        if units and units[-1].endswith("."):
            units[-1] += " " + word
        else:
            units.append(word)
    return units


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("Anna Rossi", '[Event "Anna Rossi"]'),
        ('say "hi"', '[Event "say \\"hi\\""]'),
        ("back\\slash", '[Event "back\\\\slash"]'),
        ("two\r\nlines\nthree\rfour", '[Event "two lines three four"]'),
        ("\ufeffmarked", '[Event "marked"]'),
    ],
)
def test_tag_values_are_escaped_only_where_needed(value, written):
    record = Record(tags={"Event": value})
    assert write_record(record).splitlines()[0] == written
