"""Input robustness: what damaged or hostile records must not do.

Each section is one case the fuzzing found: huge numbers, control characters on the
terminal and in SVG, line ends, BOMs and Unicode spaces across an export, many
wrong variations (linear time), library errors that are partita's own, files left
half-written, and memory bounded for huge lines and records.
"""

from __future__ import annotations

import contextlib
import gc
import io
import random
import re
import sqlite3
import time
import tracemalloc
import xml.dom.minidom
from pathlib import Path

import pytest
from campaign import archive_games

from partita import bulk, database
from partita.analysis.diagrams import render_diagram, xml_text
from partita.cli.app import main
from partita.cli.display import plain, printable
from partita.cli.output import replaced_file
from partita.database.prepare import stored_text
from partita.database.schema import archive
from partita.errors import PartitaError
from partita.game.registry import all_games, get_game
from partita.notation import replay as replay_module
from partita.notation.model import Record, SourceRef
from partita.notation.reader import parse_record, read_records
from partita.notation.replay import KEPT_STATES, replay
from partita.notation.sources import MAX_LINE_LENGTH, binary_lines
from partita.notation.writer import write_record

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HUGE = "9" * 5000  # past Python's limit of 4,300 digits for int()


def cli(args: list[str], *, terminal: bool = False) -> tuple[int, str, str]:
    """Run `partita ARGS` in this process through its error boundary: (exit code,
    stdout, stderr); ``terminal`` makes stdout say it is a terminal."""

    class Out(io.StringIO):
        def isatty(self) -> bool:
            return terminal

    out, err = Out(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args)
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 1
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def relative_problems(replayed) -> list[tuple]:
    first = replayed.record.source.line
    return [
        (p.kind, p.line - first, p.column, p.ply, p.token, p.message) for p in replayed.problems
    ]


# -- numbers of any length ----------------------------------------------------------------
def test_a_huge_nag_or_move_number_is_a_problem_not_a_crash():
    text = f'[Game "forza4x4"]\n[Result "*"]\n\n1. t4 ${HUGE} {HUGE}. r5 *\n'
    replayed = replay(parse_record(text))
    messages = [problem.message for problem in replayed.problems]
    assert messages == [
        f"NAG '${'9' * 56}...' has 5,000 digits: a number in a record has at most 9 "
        "(it is left out)",
        f"move number '{'9' * 57}...' has 5,000 digits: a number in a record has at most 9 "
        "(it is left out)",
    ]
    assert [p.kind for p in replayed.problems] == ["syntax", "syntax"]
    assert replayed.moves == ["t4", "r5"]
    assert parse_record(text).root.continuation.nags == []


def test_nine_digits_are_still_a_number():
    record = parse_record('[Game "forza4x4"]\n[Result "*"]\n\n1. t4 $123456789 *\n')
    assert record.syntax_problems == []
    assert record.root.continuation.nags == [123456789]


HUGE_MOVES = {
    "forza4x4": f"t{HUGE}",
    "connect4": f"t{HUGE}",
    "universal-forces": f"G@O1:{HUGE}",
    "circular-reasoning": f"@T>O{HUGE}",
    "forceball": f"deck:c{HUGE}",
}


@pytest.mark.parametrize("game", sorted(HUGE_MOVES))
def test_a_move_with_a_huge_number_is_malformed(game):
    token = HUGE_MOVES[game]
    text = f'[Game "{game}"]\n[Result "*"]\n\n{token} *\n'
    [problem] = replay(parse_record(text)).problems
    assert problem.kind == "malformed-move"
    assert problem.token == token
    assert len(problem.message) < 400  # the token is quoted shortened


def example_records() -> list[Path]:
    return sorted(path for path in EXAMPLES.glob("*/*.pgr"))


@pytest.mark.parametrize("path", example_records(), ids=lambda path: path.name)
def test_every_number_of_an_example_can_be_huge(path):
    """Runs of digits of the example's first record (in tags, positions, moves, move
    numbers, NAGs, comments) made 5,000 digits long, one at a time: read, replayed
    and written without an exception, and a move's problem quotes it shortened."""
    [first, *_] = read_records(path)
    text = first.text
    runs = list(re.finditer(r"[0-9]+", text))
    for run in runs[:: max(1, len(runs) // 12)]:
        mutated = text[: run.start()] + HUGE + text[run.end() :]
        record = parse_record(mutated)
        replayed = replay(record)
        assert parse_record(write_record(record, replayed.game)).tags == record.tags
        assert all(len(p.message) < 400 for p in replayed.problems if p.ply is not None)


def test_player_tags_with_huge_numbers_are_no_player_tags():
    tags = (
        f'[Game "forza4x4"]\n[Player1 "a"]\n[Player2 "b"]\n[Player{HUGE} "c"]\n[Result "*"]\n\n*\n'
    )
    replayed = replay(parse_record(tags))
    assert replayed.valid  # an unknown tag, kept
    assert f"Player{HUGE}" in replayed.record.tags


# -- control characters on the terminal ------------------------------------------------------
HOSTILE = (
    '[Game "forza4x4"]\n'
    '[Event "Evil\x1b]0;pwned\x07 [/bad] [bold]cup"]\n'
    '[Player1 "Ann\x1b[2J"]\n'
    '[Player2 "Bob\x1b[31mred\u202e"]\n'
    '[Result "*"]\n\n1. t4 r5 zz *\n'
)
RAW = ["\x1b]0;", "\x07", "\x1b[2J", "\x1b[31m", "\u202e"]


def test_printable_escapes_control_characters_and_keeps_the_rest():
    assert printable("a\x1b]0;t\x07b\tc\nd\u202ee\u00a0f\u200dg") == (
        "a\\x1b]0;t\\x07b\\tc\\nd\\u202ee\u00a0f\u200dg"
    )
    assert printable("a\tb\nc\x1b\x9b", lines=True) == "a\tb\nc\\x1b\\x9b"
    assert printable("Zoë Müller") == "Zoë Müller"
    assert plain("[/bad]").plain == "[/bad]"  # no markup read


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "evil.pgr").write_text(HOSTILE, encoding="utf-8")
    with archive(folder / "evil.db") as opened:
        bulk.import_paths(opened, [folder / "evil.pgr"])
    return folder / "evil.pgr", folder / "evil.db"


@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "terminal"])
@pytest.mark.parametrize(
    "command",
    [
        ["show", "{file}"],
        ["show", "1", "--db", "{db}"],
        ["query", "--db", "{db}"],
        ["validate", "{file}"],
    ],
    ids=["show-file", "show-archive", "query", "validate"],
)
def test_control_characters_from_records_never_reach_the_output(hostile, command, terminal):
    file, db = hostile
    args = [part.format(file=file, db=db) for part in command]
    code, out, err = cli(args, terminal=terminal)
    assert code in (0, 1)
    for raw in RAW:
        assert raw not in out + err, (raw, out)
    assert "\\x1b" in out  # shown, escaped
    if command[0] != "validate":
        assert "[/bad]" in out or "[/bad" in out  # a record's brackets are no markup


def test_pgr_output_is_exact_into_a_pipe_and_escaped_on_a_terminal(hostile):
    file, _ = hostile
    _, piped, _ = cli(["show", str(file), "--format", "pgr"])
    assert "\x1b]0;pwned\x07" in piped
    assert parse_record(piped).tags["Player1"] == "Ann\x1b[2J"
    _, shown, _ = cli(["show", str(file), "--format", "pgr"], terminal=True)
    assert "\\x1b]0;pwned\\x07" in shown and "\x1b" not in shown


def test_problems_and_errors_are_escaped_too(tmp_path):
    path = tmp_path / "bad.pgr"
    path.write_text('[Game "no\x1b[2Jgame"]\n[Result "*"]\n\n*\n', encoding="utf-8")
    code, out, err = cli(["show", str(path)])
    assert code == 1
    assert "\x1b" not in out + err and "no\\x1b[2Jgame" in out
    code, _, err = cli(["show", str(tmp_path / "no\x1b]0;such\x07.pgr")])
    assert code == 1
    assert "\x1b" not in err and "\x07" not in err and "no\\x1b]0;such\\x07.pgr" in err


# -- SVG is well-formed XML --------------------------------------------------------------------
def test_svg_output_drops_the_characters_xml_forbids(hostile):
    file, _ = hostile
    code, out, _ = cli(["show", str(file), "--format", "svg"])
    assert code == 0
    xml.dom.minidom.parseString(out)  # raises on a character XML forbids
    assert "\x1b" not in out and "\x07" not in out


@pytest.mark.parametrize("game", [game.name for game in all_games()])
def test_every_board_draws_well_formed_xml_whatever_the_caption(game):
    notation = get_game(game)
    caption = "Ann\x00\x1b[2J\x07 & <Bob> \ufffe"
    svg = render_diagram(notation, notation.initial(notation.rules.min_sides), caption=caption)
    document = xml.dom.minidom.parseString(svg)
    assert document.documentElement.tagName == "svg"
    assert "Ann[2J" in svg or "Ann" in svg


def test_xml_text_keeps_what_xml_allows():
    assert xml_text("a\tb\nc\rd\x00\x01\x1b\ufffee\U0001f600") == "a\tb\nc\rde\U0001f600"


# -- line ends, BOMs and Unicode spaces survive an export ----------------------------------------
def test_a_lone_cr_ends_a_line():
    data = b'[Game "forza4x4"]\r[Result "*"]\r\r1. t4 zz *\r'
    [record] = read_records(data)
    assert record.tags == {"Game": "forza4x4", "Result": "*"}
    [problem] = replay(record).problems
    assert (problem.line, problem.column) == (4, 7)
    assert "\r" not in record.text


def test_a_bom_anywhere_is_dropped_and_byte_offsets_stay_exact():
    one = '\ufeff[Game "forza4x4"]\n[Result "*"]\n\n1. t4 *\n'.encode()
    data = one + one + '[Game "connect4"]\n[Event "a\ufeffb"]\n\n1. t\ufeff4 *\n'.encode()
    records = list(read_records(data))
    assert [r.source.byte_offset for r in records] == [3, len(one) + 3, 2 * len(one)]
    assert [r.tags.get("Game") for r in records] == ["forza4x4", "forza4x4", "connect4"]
    assert records[2].tags["Event"] == "ab" and records[2].mainline_moves() == ["t4"]
    assert all(r.syntax_problems == [] for r in records)
    for record in records:
        again = next(read_records(data[record.source.byte_offset :]))
        assert again.same_game(record)


def test_unicode_spaces_are_part_of_tokens():
    record = parse_record('[Game "forza4x4"]\n[Result "*"]\n\n1. t4\u00a0r5 \u2028 *\u00a0\n')
    assert record.mainline_moves() == ["t4\u00a0r5", "\u2028", "*\u00a0"]
    assert record.result is None


ROUND_TRIP_CASES = {
    "lone CR": b'[Game "forza4x4"]\r[Event "a"]\r[Result "*"]\r\r1. t4 r5 T4 *\r',
    "CR inside a tag": b'[Game "forza4x4"]\n[Event "a\rb"]\n[Result "*"]\n\n1. t4 r5 *\n',
    "mixed line ends": b'[Game "forza4x4"]\r\n[Result "*"]\n\r1. t4\r2. zz *\n\r\n',
    "BOM inside a file": '[Game "forza4x4"]\n[Result "*"]\n\n1. t4 r5 *\n\ufeff[Game "forza4x4"]'
    '\n[Result "*"]\n\n1. t4 b4 *\n'.encode(),
    "BOM after a blank line": '\n\ufeff[Game "forza4x4"]\n[Result "*"]\n\n1. t4 zz *\n'.encode(),
    "BOM in a comment": '[Game "forza4x4"]\n[Result "*"]\n\n1. t4 {a \ufeff b} zz *\n'.encode(),
    "U+2028 after the result": '[Game "forza4x4"]\n[Result "*"]\n\n1. t4 zz *\u2028'.encode(),
    "NBSP after the result": '[Game "forza4x4"]\n[Result "*"]\n\n1. t4 zz *\u00a0'.encode(),
    "NBSP on a line of its own": '[Game "forza4x4"]\n[Result "*"]\n\n1. t4 *\n\u00a0\n'.encode(),
    "NBSP in a tag": '[Game "forza4x4"]\n[Event "\u00a0x\u00a0"]\n[Result "*"]\n\n1. t4 *'.encode(),
    "space before the first tag": b' [Game "forza4x4"]\n[Result "*"]\n\n1. t4 zz *\n',
    "VT before the first tag": b'\x0b[Game "forza4x4"]\n[Result "*"]\n\n1. t4 *\n',
    "unclosed comment with a trailing space": b'[Game "forza4x4"]\n[Result "*"]\n\n1. t4 {a \n',
    "invalid UTF-8": b'[Game "forza4x4"]\n[Event "\xff"]\n[Result "*"]\n\n1. t4 *\n',
}


@pytest.mark.parametrize("data", list(ROUND_TRIP_CASES.values()), ids=list(ROUND_TRIP_CASES))
def test_a_record_reads_the_same_after_export_and_reimport(tmp_path, data):
    (tmp_path / "in.pgr").write_bytes(data)
    with archive(tmp_path / "first.db") as opened:
        bulk.import_paths(opened, [tmp_path / "in.pgr"])
    with (
        (tmp_path / "out.pgr").open("w", encoding="utf-8", newline="\n") as stream,
        archive(tmp_path / "first.db", readonly=True) as opened,
    ):
        database.export_games(opened, stream)
    with archive(tmp_path / "second.db") as opened:
        bulk.import_paths(opened, [tmp_path / "out.pgr"])
    assert archive_games(tmp_path / "second.db") == archive_games(tmp_path / "first.db")
    with archive(tmp_path / "first.db") as opened:
        again = bulk.import_paths(opened, [tmp_path / "out.pgr"])
    assert again.imported == 0 and again.duplicates == again.records  # same hashes


# -- linear time -----------------------------------------------------------------------------------
class CountingText(str):
    """A record text that counts the characters its searches and slices go through."""

    work = 0

    def find(self, sub, start=0, end=None):  # noqa: D102
        end = len(self) if end is None else end
        found = super().find(sub, start, end)
        CountingText.work += max(0, (found + 1 if found >= 0 else end) - start)
        return found

    def count(self, sub, start=0, end=None):  # noqa: D102
        end = len(self) if end is None else end
        CountingText.work += max(0, end - start)
        return super().count(sub, start, end)

    def __getitem__(self, index):
        if isinstance(index, slice):
            CountingText.work += len(range(*index.indices(len(self))))
        return super().__getitem__(index)


def test_placing_many_problems_goes_through_the_text_once():
    text = CountingText("".join(f"line {n}\n" for n in range(5000)))
    record = Record(text=text, source=SourceRef(line=10))
    offsets = list(range(0, len(text), 7))
    random.Random(1).shuffle(offsets)
    CountingText.work = 0
    places = [record.position(offset) for offset in offsets]
    assert CountingText.work <= 2 * len(text)  # the old way: about len(text) per problem
    for offset, (line, column) in zip(offsets, places, strict=True):
        before = str.__getitem__(text, slice(0, offset))
        assert line == 10 + before.count("\n")
        assert column == offset - (before.rfind("\n") + 1) + 1


def wrong_variations(count: int, nested: bool) -> str:
    variations = "(zz9 " * count + ")" * count if nested else " ".join(["(zz9)"] * count)
    return f'[Game "forza4x4"]\n[Result "*"]\n\n1. t4 {variations} *\n'


def seconds(text: str) -> float:
    start = time.process_time()
    record = parse_record(text)
    replayed = replay(record)
    assert len(replayed.problems) >= text.count("zz9")
    write_record(record, replayed=replayed)
    stored = stored_text(replayed)
    assert stored.startswith("[Game")
    return time.process_time() - start


@pytest.mark.slow
@pytest.mark.parametrize("nested", [False, True], ids=["siblings", "nested"])
def test_wrong_variations_cost_linear_time(nested):
    """32,000 wrong variations: 8 times as many cost about 8 times as long (a
    quadratic cost would be 64 times; 24 leaves room for a busy machine)."""
    seconds(wrong_variations(500, nested))  # warm up
    small = min(seconds(wrong_variations(4000, nested)) for _ in range(3))
    large = min(seconds(wrong_variations(32000, nested)) for _ in range(2))
    assert large < 24 * small, (small, large)


# -- library errors are partita's own; files are written whole ----------------------------------
@pytest.mark.parametrize("players", [1, 5])
def test_a_circular_reasoning_record_with_a_wrong_player_count(players):
    tags = "".join(f'[Player{n} "p{n}"]\n' for n in range(1, players + 1))
    text = f'[Game "circular-reasoning"]\n{tags}[Result "*"]\n\n1. @T>O3 *\n'
    record = parse_record(text)
    replayed = replay(record)
    [problem] = replayed.problems
    assert problem.kind == "bad-tag" and "2 to 4 sides" in problem.message
    written = write_record(record)  # no bare ValueError
    assert parse_record(written).same_game(record) or written.count("[Player") == players
    with pytest.raises(PartitaError, match="2 to 4 sides, not 5"):
        get_game("circular-reasoning").initial(5)


def test_export_canonical_writes_such_a_record(tmp_path):
    (tmp_path / "in.pgr").write_text(
        '[Game "circular-reasoning"]\n[Player1 "solo"]\n[Result "*"]\n\n1. @T>O3 *\n',
        encoding="utf-8",
    )
    db = tmp_path / "a.db"
    with archive(db) as opened:
        bulk.import_paths(opened, [tmp_path / "in.pgr"])
    code, _, err = cli(["export", "--db", str(db), "--canonical", "-o", str(tmp_path / "o.pgr")])
    assert code == 0, err
    assert parse_record((tmp_path / "o.pgr").read_text(encoding="utf-8")).tags["Player1"] == "solo"


def test_a_failed_export_leaves_the_old_file_and_nothing_else(tmp_path):
    db = tmp_path / "a.db"
    with archive(db) as opened:
        bulk.import_paths(opened, [EXAMPLES / "forza4x4"])
    # The third game's stored text damaged (bytes that are no UTF-8, as another
    # program could write them): the export fails there, half-way.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET pgr = CAST(X'FF41' AS TEXT) WHERE id = 3")
    code, out, err = cli(["export", "--db", str(db)])
    assert code == 1 and out.count("[Game ") == 2 and "UTF-8" in err
    target = tmp_path / "out.pgr"
    target.write_text("the previous export\n", encoding="utf-8")
    code, _, err = cli(["export", "--db", str(db), "--canonical", "-o", str(target)])
    assert code == 1 and "UTF-8" in err
    assert target.read_text(encoding="utf-8") == "the previous export\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.db", "out.pgr"]
    fresh = tmp_path / "fresh.pgr"
    code, _, _ = cli(["export", "--db", str(db), "--canonical", "-o", str(fresh)])
    assert code == 1 and not fresh.exists()


def test_replaced_file_replaces_only_when_all_is_written(tmp_path):
    target = tmp_path / "t.txt"
    with replaced_file(target) as stream:
        stream.write("one\n")
        assert not target.exists()  # not before the end
    assert target.read_text(encoding="utf-8") == "one\n"
    with pytest.raises(KeyboardInterrupt), replaced_file(target) as stream:
        stream.write("two\n")
        raise KeyboardInterrupt
    assert target.read_text(encoding="utf-8") == "one\n"
    assert [path.name for path in tmp_path.iterdir()] == ["t.txt"]


# -- bounded memory -----------------------------------------------------------------------------
def peak_bytes(action) -> int:
    action()  # warm up: lazy imports and caches first
    gc.collect()
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_an_unterminated_tag_value_costs_a_few_times_its_size():
    size = 1_000_000
    data = b'[Game "forza4x4"]\n[Event "' + b"a" * size + b"\n\n1. t4 *\n"
    peak = peak_bytes(lambda: [replay(record) for record in read_records(data)])
    assert peak < 12 * size, peak  # it was about 140 times its size
    [record] = read_records(data)
    assert "no closing quote" in record.syntax_problems[0].message


def test_a_line_past_the_limit_is_cut_with_a_problem():
    rest = 2_500_000
    data = (
        b'[Game "forza4x4"]\n[Result "*"]\n\n1. t4 ;'
        + b"x" * (MAX_LINE_LENGTH + rest)
        + b"\n2. t5 *\n"
    )
    peak = peak_bytes(lambda: list(read_records(data)))
    assert peak < 6 * MAX_LINE_LENGTH + len(data) // 100, peak  # never the whole line
    [record] = read_records(data)
    [problem] = record.syntax_problems
    assert problem.message == (
        # the rest: the x's past the limit, the 7 characters of "1. t4 ;" before them
        # and the 3 bytes that the U+FFFD marking the cut takes in the limit
        f"line longer than {MAX_LINE_LENGTH:,} bytes: the rest of it ({rest + 10:,} bytes) "
        "is left out (U+FFFD marks the cut)"
    )
    assert (problem.line, problem.column) == (4, MAX_LINE_LENGTH - 2)
    assert record.mainline_moves() == ["t4", "t5"]  # the next line is read again


def test_a_long_line_of_lone_cr_line_ends_is_many_lines():
    data = b"".join(b"1. t4 r5\r" for _ in range(200_000))
    lines = list(binary_lines(io.BytesIO(data)))
    assert len(lines) == 200_000 and lines[-1] == ("1. t4 r5", 9, 0, None)


def universal_forces_record(plies: int) -> str:
    cycle = ["O1:3-O1:4", "O1:21-O1:22", "O1:4-O1:3", "O1:22-O1:21"]
    moves = ["Y@O1:3", "B@O1:21"] + [cycle[n % 4] for n in range(plies - 2)]
    rounds = [f"{n // 2 + 1}. {' '.join(moves[n : n + 2])}" for n in range(0, plies, 2)]
    return '[Game "universal-forces"]\n[Result "*"]\n\n' + "\n".join(rounds) + " *\n"


def test_states_are_kept_only_up_to_the_limit(monkeypatch):
    text = universal_forces_record(300)
    kept = replay(parse_record(text))
    assert len(kept.states) == 300
    monkeypatch.setattr(replay_module, "KEPT_STATES", 100)
    record = parse_record(text)
    dropped = replay(record)
    assert dropped.states == [] and dropped.plies == 300 and dropped.valid
    assert dropped.keys == kept.keys and dropped.final_state == kept.final_state
    assert write_record(record, replayed=dropped) == write_record(record, replayed=kept)
    assert replay(record, keys=False).keys == []


@pytest.mark.slow
def test_a_huge_record_is_validated_in_bounded_memory():
    """100,000 Universal Forces plies: replay keeps no state (it kept every one, about
    1.6 KB each), and validation keeps no key either."""
    plies = 100_000
    assert plies > KEPT_STATES
    record = parse_record(universal_forces_record(plies))
    peak = peak_bytes(lambda: replay(record, keys=False))
    assert peak < 300 * plies, peak
    replayed = replay(record)
    assert replayed.valid and replayed.plies == plies and replayed.states == []
    assert len(replayed.keys) == plies
