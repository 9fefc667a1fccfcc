"""The PGR reader: tokens, the tree it builds, syntax problems, files and streaming."""

from __future__ import annotations

import gc
import io
import sys
import tracemalloc
from pathlib import Path

import pytest

from partita.notation import pgr, scanner
from partita.notation.model import Node, SourceRef
from partita.notation.reader import (
    SKIP,
    HeaderCollector,
    RecordBuilder,
    RecordVisitor,
    parse_record,
    read_headers,
    read_records,
    visit_records,
)

TOKENIZERS = [pytest.param(scanner.tokenize, id="scanner"), pytest.param(pgr.tokenize, id="pgr")]


# -- tokens -------------------------------------------------------------------------------------
TOKEN_TABLE = [
    ('[Event "x"]', [("tag", '[Event "x"]', 0)]),
    ('[Event "a \\"b\\" \\\\"]', [("tag", '[Event "a \\"b\\" \\\\"]', 0)]),
    ("[Event x]", [("bad-tag", "[Event x]", 0)]),
    ("1. t4 r5", [("number", "1.", 0), ("move", "t4", 3), ("move", "r5", 6)]),
    (
        "1.t4 1...r5",
        [("number", "1.", 0), ("move", "t4", 2), ("number", "1...", 5), ("move", "r5", 9)],
    ),
    ("t4!? r5?", [("move", "t4", 0), ("suffix", "!?", 2), ("move", "r5", 5), ("suffix", "?", 7)]),
    ("t4 !!", [("move", "t4", 0), ("suffix", "!!", 3)]),
    ("t4$12 $3", [("move", "t4", 0), ("nag", "$12", 2), ("nag", "$3", 6)]),
    ("{a\n b}", [("comment", "{a\n b}", 0)]),
    ("{a {b}", [("comment", "{a {b}", 0)]),
    ("; to the end\nt4", [("line-comment", "; to the end", 0), ("move", "t4", 13)]),
    ("(t4)", [("open", "(", 0), ("move", "t4", 1), ("close", ")", 3)]),
    ("1-0", [("result", "1-0", 0)]),
    ("0-1", [("result", "0-1", 0)]),
    ("1/2-1/2", [("result", "1/2-1/2", 0)]),
    ("*", [("result", "*", 0)]),
    ("0-1-0", [("result", "0-1-0", 0)]),
    ("1/2-1/2-1/2-1/2", [("result", "1/2-1/2-1/2-1/2", 0)]),
    ("1-0-0-0-0", [("result", "1-0-0-0-0", 0)]),
    ("1-0)", [("result", "1-0", 0), ("close", ")", 3)]),
    ("--", [("move", "--", 0)]),
    ("1-0x", [("move", "1-0x", 0)]),
    ("**", [("move", "**", 0)]),
    ("1/2", [("move", "1/2", 0)]),
    ("12", [("bare-number", "12", 0)]),
    (
        "G@O1:9 O1:9-O2:10 O2:10+O2:11 M1:3xM1:4 C1-H",
        [
            ("move", "G@O1:9", 0),
            ("move", "O1:9-O2:10", 7),
            ("move", "O2:10+O2:11", 18),
            ("move", "M1:3xM1:4", 30),
            ("move", "C1-H", 40),
        ],
    ),
    ("@C>O2 T<M10 S>G", [("move", "@C>O2", 0), ("move", "T<M10", 6), ("move", "S>G", 12)]),
    ("} ] $", [("stray", "}", 0), ("stray", "]", 2), ("stray", "$", 4)]),
    ("{never closed\n1-0", [("unclosed-comment", "{never closed\n1-0", 0)]),
    ("t4\u00a0r5\tl8\x0bb1", [("move", "t4\u00a0r5", 0), ("move", "l8", 6), ("move", "b1", 9)]),
    ("", []),
    (" \t\r\n", []),
]


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@pytest.mark.parametrize(("text", "expected"), TOKEN_TABLE)
def test_tokens(tokenize, text, expected):
    assert tokenize(text) == expected


@pytest.mark.parametrize("tokenize", TOKENIZERS)
def test_tokenize_a_slice_gives_offsets_into_the_whole_text(tokenize):
    assert tokenize("xx t4 r5 yy", 3, 8) == [("move", "t4", 3), ("move", "r5", 6)]


def test_token_values():
    assert scanner.tag_pair('[Event "a \\"b\\" \\\\ c"]') == ("Event", 'a "b" \\ c')
    assert scanner.tag_pair('[ Site\t"x" ]') == ("Site", "x")
    assert scanner.move_number("12.") == (12, False)
    assert scanner.move_number("3...") == (3, True)
    assert scanner.comment_text("comment", "{  a\n\n  b\t c }") == "a b c"
    assert scanner.comment_text("line-comment", ";  a  b ") == "a b"


# -- the tree -----------------------------------------------------------------------------------
HEADER = '[Game "forza4x4"]\n[Player1 "Anna"]\n[Player2 "Bruno"]\n[Result "*"]\n\n'


def tree(text: str):
    record = parse_record(HEADER + text)
    assert record.syntax_problems == [], [str(p) for p in record.syntax_problems]
    return record


def test_rulebook_example():
    record = tree("1. t4 r5 2. r5 t2 3. l8 *")
    assert record.tags == {"Game": "forza4x4", "Player1": "Anna", "Player2": "Bruno", "Result": "*"}
    assert list(record.tags) == ["Game", "Player1", "Player2", "Result"]
    assert record.mainline_moves() == ["t4", "r5", "r5", "t2", "l8"]
    assert record.result == "*"
    assert record.position(record.result_offset) == (6, 25)
    numbers = [node.written_number for node in record.root.mainline()]
    assert numbers == [(1, False), None, (2, False), None, (3, False)]


def test_move_offsets_turn_into_lines_and_columns():
    record = tree("1. t4 r5\n2. r5 t2 *")
    places = [record.position(node.offset) for node in record.root.mainline()]
    assert places == [(6, 4), (6, 7), (7, 4), (7, 7)]


def test_glued_and_continuation_numbers():
    record = tree("1.t4 1...r5 2... r5 *")
    assert record.mainline_moves() == ["t4", "r5", "r5"]
    assert [n.written_number for n in record.root.mainline()] == [(1, False), (1, True), (2, True)]


def test_annotations_land_on_their_move():
    record = tree("{before} 1. t4!? $1 $14 {after t4} ; a line comment\n r5?? {x} *")
    root = record.root
    t4, r5 = list(root.mainline())
    assert root.comments == ["before"]
    assert (t4.suffix, t4.nags, t4.comments) == ("!?", [1, 14], ["after t4", "a line comment"])
    assert (r5.suffix, r5.nags, r5.comments) == ("??", [], ["x"])


def test_comment_white_space_is_collapsed():
    record = tree("1. t4 {  two\n\n   lines\tand  [tabs]  } *")
    assert record.root.continuation.comments == ["two lines and [tabs]"]


def test_variation_is_an_alternative_to_the_move_before_it():
    record = tree("1. t4 r5 (1... r6 {in} 2. t1) (1... b2) 2. l1 *")
    root = record.root
    t4 = root.continuation
    assert [c.move for c in t4.children] == ["r5", "r6", "b2"]
    r6 = t4.children[1]
    assert r6.comments == ["in"]
    assert r6.continuation.move == "t1"
    assert t4.children[0].continuation.move == "l1"


def test_variation_of_the_first_move_and_starting_comments():
    record = tree("1. t4 ({why not} {b4?} 1. b4 (1. l1)) 1... r5 *")
    root = record.root
    assert [c.move for c in root.children] == ["t4", "b4", "l1"]
    b4 = root.children[1]
    assert b4.starting_comments == ["why not", "b4?"]
    assert b4.comments == []
    assert root.continuation.continuation.move == "r5"


def test_comment_after_a_variation_belongs_to_the_move_before_it():
    record = tree("1. t4 {a} (1. b4) {b} r5 *")
    assert record.root.continuation.comments == ["a", "b"]


def test_a_pass_is_a_move_and_results_of_many_sides():
    record = parse_record('[Game "x"]\n\n1. G@O1:1 -- R@O1:7 0-1-0')
    assert record.mainline_moves() == ["G@O1:1", "--", "R@O1:7"]
    assert record.result == "0-1-0"
    assert record.syntax_problems == []


def test_tag_values_are_unescaped_and_any_text():
    record = parse_record('[Event "The \\"big\\" one \\\\ {not a comment}"]\n[Site ""]\n\n*')
    assert record.tags == {"Event": 'The "big" one \\ {not a comment}', "Site": ""}
    assert record.syntax_problems == []


def test_record_without_tags():
    record = parse_record("1. t4 r5 1-0")
    assert record.tags == {}
    assert record.mainline_moves() == ["t4", "r5"]


def test_movetext_on_a_tag_line_and_comments_among_tags():
    record = parse_record('[Game "x"] {c}\n[Site "y"]\n1. t4 *')
    assert record.tags == {"Game": "x", "Site": "y"}
    assert record.root.comments == ["c"]
    assert record.mainline_moves() == ["t4"]
    assert record.syntax_problems == []


# -- syntax problems ----------------------------------------------------------------------------
def problems(text: str):
    record = parse_record(text)
    return [(p.kind, p.line, p.column, p.token) for p in record.syntax_problems]


INVALID = [
    # (text, [(kind, line, column, token)])
    ("[Event x]\n\n*", [("syntax", 1, 8, "[Event x]")]),
    ('[Event "x]\n\n*', [("syntax", 1, 8, '[Event "x]')]),
    ('[1Event "x"]\n\n*', [("syntax", 1, 2, '[1Event "x"]')]),
    ('[Event "x"\n\n*', [("syntax", 1, 11, '[Event "x"')]),
    ('[Event "a\\nb"]\n\n*', [("syntax", 1, 8, '[Event "a\\nb"]')]),
    ('[Event "x"]\n[Event "y"]\n\n*', [("syntax", 2, 1, '[Event "y"]')]),
    (
        "1. t4 {never closed\n1-0",
        [("syntax", 1, 7, "{never closed\n1-0")],
    ),
    ("1. t4 (r5 1-0", [("syntax", 1, 7, "(")]),
    ("1. t4 (r5 (b1) 1-0", [("syntax", 1, 7, "(")]),
    ("1. t4 r5) 1-0", [("syntax", 1, 9, ")")]),
    ("(t4) 1. r5 1-0", [("syntax", 1, 1, "(")]),
    ("1. t4 ((r5) b1) 1-0", [("syntax", 1, 8, "(")]),
    ("1. t4 () 1-0", [("syntax", 1, 7, "(")]),
    ("$1 1. t4 1-0", [("syntax", 1, 1, "$1")]),
    ("! 1. t4 1-0", [("syntax", 1, 1, "!")]),
    ("1. t4! ? 1-0", [("syntax", 1, 8, "?")]),
    ("1. t4 (! r5) 1-0", [("syntax", 1, 8, "!")]),
    ("1. t4 1-0 r5", [("syntax", 1, 11, "r5")]),
    ("1. t4 1-0 r5 b1 {c}", [("syntax", 1, 11, "r5")]),
    ("1. t4 1-0 *", [("syntax", 1, 11, "*")]),
    ("1. t4 1-0 {c}", [("syntax", 1, 11, "{c}")]),
    ("1. t4 12 r5 *", [("syntax", 1, 7, "12")]),
    ("1. t4 } r5 *", [("syntax", 1, 7, "}")]),
    ("1. t4 $ r5 *", [("syntax", 1, 7, "$")]),
    ("1. t4 ] *", [("syntax", 1, 7, "]")]),
    ('1. t4 [Event "x"] *', [("syntax", 1, 7, '[Event "x"]')]),
    ("1. t4 [oops *", [("syntax", 1, 13, "[oops *"), ("missing-result", 1, 14, None)]),
    ("1. t4 r5", [("missing-result", 1, 9, None)]),
    ("", [("missing-result", 1, 1, None)]),
    ('[Game "x"]\n', [("missing-result", 1, 11, None)]),
    ("1. t4 (r5\n(b1", [("syntax", 1, 7, "("), ("missing-result", 2, 4, None)]),
]


@pytest.mark.parametrize(("text", "expected"), INVALID)
def test_syntax_problems(text, expected):
    assert problems(text) == expected


def test_problem_messages_name_the_token_and_the_reason():
    record = parse_record('[Event "x"]\n[Player1 "Ann"]\n[Player2 "Bo"]\n[Site x]\n\n1. t4 r5) 1-0')
    messages = [(p.message, p.context, p.record, p.file) for p in record.syntax_problems]
    assert messages == [
        (
            "malformed tag pair '[Site x]': expected the value in double quotes "
            "(inside it only \\\" and \\\\ are escapes), found 'x]'",
            "x, Ann - Bo",
            0,
            "<string>",
        ),
        ("unmatched ')': no variation is open", "x, Ann - Bo", 0, "<string>"),
    ]
    (missing,) = parse_record("1. t4").syntax_problems
    assert missing.message.startswith("the movetext does not end with a result token")
    assert missing.severity == "error"


def test_a_bad_record_keeps_what_can_be_read():
    record = parse_record('[Game "x"]\n[Bad\n\n1. t4 } r5 (b1) $ l2 1-0')
    assert record.tags == {"Game": "x"}
    assert record.mainline_moves() == ["t4", "r5", "l2"]
    assert record.root.continuation.variations[0].move == "b1"
    assert record.result == "1-0"
    assert len(record.syntax_problems) == 3


def test_unclosed_variations_are_closed_for_the_tree():
    record = parse_record("1. t4 (r5 (b1 l1 1-0")
    assert record.result == "1-0"
    root = record.root
    assert [c.move for c in root.children] == ["t4", "r5", "b1"]
    assert root.children[2].continuation.move == "l1"


def test_problems_of_a_record_later_in_a_file_give_file_lines():
    text = '[Game "x"]\n\n1. t4 *\n\n[Game "y"]\n\n1. t4\n  r5 } *\n'
    first, second = read_records(text, name="games.pgr")
    assert first.syntax_problems == []
    (problem,) = second.syntax_problems
    assert (problem.file, problem.line, problem.column, problem.record) == ("games.pgr", 8, 6, 1)


# -- files, records, offsets ------------------------------------------------------------------------
def test_records_split_at_tag_lines_after_the_movetext():
    text = (
        '[Game "a"]\n[Result "*"]\n\n1. t4 {a comment\n\n[with a bracket line]\n} *\n\n\n'
        '[Game "b"]\n\n1. t4\n\n r5 1-0\n'
        '[Game "c"]\n1. t4\n'  # no result: the next tag line still starts a record
        '[Game "d"]\n*'
    )
    records = list(read_records(text))
    assert [r.tags["Game"] for r in records] == ["a", "b", "c", "d"]
    assert [r.source.index for r in records] == [0, 1, 2, 3]
    assert [r.source.line for r in records] == [1, 10, 15, 17]
    assert records[0].root.continuation.comments == ["a comment [with a bracket line]"]
    assert records[1].mainline_moves() == ["t4", "r5"]
    assert [p.kind for p in records[2].syntax_problems] == ["missing-result"]
    assert records[2].syntax_problems[0].line == 16
    assert records[3].result == "*"
    assert records[0].text.endswith("} *")
    assert records[1].text == '[Game "b"]\n\n1. t4\n\n r5 1-0'


def test_an_unclosed_comment_does_not_swallow_the_next_records():
    text = '[Game "a"]\n\n1. t4 {oops\nr5 *\n\n[Game "b"]\n\n1. t4 *\n'
    first, second = read_records(text)
    assert [p.kind for p in first.syntax_problems] == ["syntax"]  # it says what it swallowed
    assert second.tags == {"Game": "b"} and second.syntax_problems == []


def test_parse_record_reads_the_whole_string_as_one_record():
    record = parse_record('[Game "a"]\n\n1. t4 *\n[Game "b"]\n')
    assert record.tags == {"Game": "a"}
    assert [p.token for p in record.syntax_problems] == ['[Game "b"]']


def test_parse_record_with_a_source_counts_lines_from_it():
    source = SourceRef(file="f.pgr", index=4, line=10, byte_offset=300)
    record = parse_record("\n1. t4 } *", source=source)
    assert record.source == SourceRef(file="f.pgr", index=4, line=11, byte_offset=301)
    (problem,) = record.syntax_problems
    assert (problem.file, problem.line, problem.column, problem.record) == ("f.pgr", 11, 7, 4)


RECORDS_TEXT = (
    '[Game "forza4x4"]\r\n[Event "Caffè ☕ «prova»"]\r\n[Result "1-0"]\r\n\r\n'
    "1. t4 {très bien ✓} r5 2. r5 t2 3. l8 1-0\r\n\r\n"
    '[Game "forza4x4"]\r\n[Event "second"]\r\n[Result "*"]\r\n\r\n1. b1 {é\r\n} *\r\n'
    '[Game "x"]\n\n1. t4 1-0'
)


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_byte_offsets_let_a_caller_seek_back_to_a_record(tmp_path, bom):
    path = tmp_path / "games.pgr"
    path.write_bytes(bom + RECORDS_TEXT.encode("utf-8"))
    records = list(read_records(path))
    assert len(records) == 3
    assert records[0].tags["Event"] == "Caffè ☕ «prova»"
    assert records[0].source.byte_offset == len(bom)
    assert [r.source.line for r in records] == [1, 7, 13]
    assert all(r.syntax_problems == [] for r in records)
    raw = path.read_bytes()
    with path.open("rb") as stream:
        for record in records:
            stream.seek(record.source.byte_offset)
            again = next(read_records(stream))
            assert again.same_game(record)
            assert raw[record.source.byte_offset :].startswith(b'[Game "')
    assert records[1].root.continuation.comments == ["é"]
    assert "\r" not in records[0].text


def test_every_kind_of_source_gives_the_same_records(tmp_path):
    path = tmp_path / "games.pgr"
    data = b"\xef\xbb\xbf" + RECORDS_TEXT.encode("utf-8")
    path.write_bytes(data)
    text = data.decode("utf-8")
    sources = {
        "path": path,
        "str path": str(path),
        "binary stream": io.BytesIO(data),
        "text stream": io.StringIO(text),
        "str": text,
        "bytes": data,
    }
    expected = list(read_records(path))
    for label, source in sources.items():
        got = list(read_records(source))
        assert len(got) == len(expected), label
        for a, b in zip(got, expected, strict=True):
            assert a.same_game(b), label
            assert (a.source.line, a.source.byte_offset) == (b.source.line, b.source.byte_offset)
    assert next(read_records(path)).source.file == str(path)
    assert next(read_records(text)).source.file == "<string>"
    assert next(read_records(io.BytesIO(data), name="x.pgr")).source.file == "x.pgr"


def test_invalid_utf8_is_a_problem_and_reading_goes_on():
    data = b'[Game "a"]\n\n1. t4 {bad \xff byte} *\n\n[Game "b"]\n\n*\n'
    first, second = read_records(data)
    assert [(p.kind, p.line, p.column) for p in first.syntax_problems] == [("syntax", 3, 12)]
    assert "utf-8" in first.syntax_problems[0].message.lower()
    assert second.syntax_problems == []


def test_an_empty_file_has_no_records(tmp_path):
    path = tmp_path / "empty.pgr"
    path.write_bytes(b"\xef\xbb\xbf\n\n")
    assert list(read_records(path)) == []
    assert list(read_records("")) == []


# -- visitors -----------------------------------------------------------------------------------
def test_read_headers_reads_tags_and_places_only():
    headers = list(read_headers(RECORDS_TEXT))
    assert [(ref.index, ref.line, tags.get("Event")) for ref, tags in headers] == [
        (0, 1, "Caffè ☕ «prova»"),
        (1, 7, "second"),
        (2, 13, None),
    ]


class EventLog(RecordVisitor):
    def begin_record(self, source, text):
        self.events = []

    def visit_tag(self, name, value, offset):
        self.events.append(("tag", name, value))

    def visit_move(self, move, offset, written_number):
        self.events.append(("move", move, written_number))

    def visit_suffix(self, suffix, offset):
        self.events.append(("suffix", suffix))

    def visit_nag(self, nag, offset):
        self.events.append(("nag", nag))

    def visit_comment(self, text, offset):
        self.events.append(("comment", text))

    def begin_variation(self):
        self.events.append("(")

    def end_variation(self):
        self.events.append(")")

    def visit_result(self, result, offset):
        self.events.append(("result", result))

    def visit_problem(self, kind, message, offset, token):
        self.events.append(("problem", kind, token))

    def result(self):
        return self.events


def test_visitor_events_are_well_formed():
    (events,) = visit_records('[A "1"]\n\n{c} 1. t4! $2 (1. b1 (1. l1)) r5 (1-0\n', EventLog)
    assert events == [
        ("tag", "A", "1"),
        ("comment", "c"),
        ("move", "t4", (1, False)),
        ("suffix", "!"),
        ("nag", 2),
        "(",
        ("move", "b1", (1, False)),
        "(",
        ("move", "l1", (1, False)),
        ")",
        ")",
        ("move", "r5", None),
        "(",
        ("problem", "syntax", "("),
        ")",
        ("result", "1-0"),
    ]


def test_skipping_records_and_movetext():
    class SkipSecond(RecordBuilder):
        def begin_record(self, source, text):
            super().begin_record(source, text)
            return SKIP if source.index == 1 else None

    records = list(visit_records(RECORDS_TEXT, SkipSecond))
    assert [len(r.tags) for r in records] == [3, 0, 1]
    assert records[1].source.line == 7

    class TagsOnly(RecordBuilder):
        def end_tags(self):
            return SKIP

    records = list(visit_records(RECORDS_TEXT, TagsOnly))
    assert [r.mainline_moves() for r in records] == [[], [], []]
    assert records[0].tags["Event"] == "Caffè ☕ «prova»"
    assert all(r.syntax_problems == [] for r in records)


def test_header_collector_is_a_visitor():
    (header,) = visit_records('[Game "x"]\n\n1. t4 } *', HeaderCollector)
    assert header[1] == {"Game": "x"}


# -- depth -----------------------------------------------------------------------------------------
DEPTH = 10_000


def deep_text(depth: int) -> str:
    """Each variation holds two moves and a variation of its second one."""
    return "1. t4 r5 " + "(1... r6 2. t1 " * depth + ")" * depth + " *"


@pytest.mark.parametrize("reference", [False, True])
def test_ten_thousand_nested_variations(reference):
    limit = sys.getrecursionlimit()
    depth = DEPTH if not reference else 1_000  # the reference is slow, not recursive
    record = parse_record(deep_text(depth), reference=reference)
    assert record.syntax_problems == []
    node, levels = record.root.continuation, 0
    while len(node.children) == 2:
        assert node.children[0].move == ("r5" if levels == 0 else "t1")
        node = node.children[1]
        assert node.move == "r6"
        levels += 1
    assert levels == depth
    assert node.children[0].move == "t1" and node.children[0].children == []
    assert parse_record(deep_text(depth)).root == record.root
    assert sys.getrecursionlimit() == limit


def test_deep_trees_compare_without_recursion():
    left, right = Node(), Node()
    for root in (left, right):
        node = root
        for _ in range(DEPTH):
            node.add_move("t4")
            node = node.add_move("r5")
    assert left == right
    node = right
    while node.children:
        node = node.children[-1]
    node.comments.append("different")
    assert left != right


def test_ten_thousand_unclosed_variations_give_one_problem():
    record = parse_record("1. t4 " + "(1. r5 " * DEPTH)
    assert [(p.kind, p.token) for p in record.syntax_problems] == [
        ("syntax", "("),
        ("missing-result", None),
    ]
    assert "10000 variations are open" in record.syntax_problems[0].message


# -- streaming ----------------------------------------------------------------------------------------
RECORD = (
    '[Game "forza4x4"]\n[Event "stream {0}"]\n[Player1 "Anna"]\n[Player2 "Bruno"]\n'
    '[Result "*"]\n\n1. t4 r5 2. r5 t2 {a comment} 3. l8 (3. l1 b2) 3... b1 *\n\n'
)


def write_corpus(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as stream:
        for index in range(count):
            stream.write(RECORD.replace("{0}", str(index)))


def peak_memory_reading(path: Path) -> tuple[int, int]:
    for _record in read_records(path):  # warm up: lazy imports and caches first
        break
    gc.collect()
    tracemalloc.start()
    try:
        count = 0
        for record in read_records(path):
            count += len(record.mainline_moves())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return count, peak


def test_memory_stays_flat_while_streaming(tmp_path):
    small, large = tmp_path / "small.pgr", tmp_path / "large.pgr"
    write_corpus(small, 200)
    write_corpus(large, 4_000)  # about 15 times the peak; 100 000 in the slow test below
    small_moves, small_peak = peak_memory_reading(small)
    large_moves, large_peak = peak_memory_reading(large)
    assert (small_moves, large_moves) == (200 * 6, 4_000 * 6)
    assert large_peak < small_peak * 1.5 + 64_000, (small_peak, large_peak)
    assert large.stat().st_size > 10 * large_peak  # far more read than ever held


@pytest.mark.slow
def test_memory_stays_flat_over_a_hundred_thousand_records(tmp_path):
    small, large = tmp_path / "small.pgr", tmp_path / "large.pgr"
    write_corpus(small, 1_000)
    write_corpus(large, 100_000)
    _, small_peak = peak_memory_reading(small)
    moves, large_peak = peak_memory_reading(large)
    assert moves == 100_000 * 6
    assert large_peak < small_peak * 1.5 + 64_000, (small_peak, large_peak)


# -- the docs page's examples run ------------------------------------------------------------------
def test_record_format_page_examples():
    import doctest

    page = Path(__file__).resolve().parent.parent / "docs" / "record-format.md"
    failures, tried = doctest.testfile(str(page), module_relative=False)
    assert tried > 10
    assert failures == 0
