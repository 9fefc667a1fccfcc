"""Fuzzing the record layers with mutated example records, for every game.

Each case takes a record (or two) of ``examples/`` (every game's examples and the
invalid ones), mutates its text the way damaged or hostile files do (line ends, BOMs,
Unicode spaces, control characters, huge numbers, deleted and repeated pieces,
stray delimiters, invalid UTF-8), and checks what the archive relies on:

- reading, replaying, writing and preparing the archive's rows raise nothing
  (problems are data), and writing is idempotent;
- exporting what the archive stores and importing that again gives the same records:
  the same moves, position keys, problems (their places counted from the record's
  first line), stored text and content hash.

The default run is bounded (a few seconds); ``-m slow`` runs a long campaign, and
checks that a repeated piece of a mutated record costs linear time (the default
run's timing-free check of the same is in ``tests/test_robustness.py``).
"""

from __future__ import annotations

import io
import json
import time
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from partita.database.prepare import prepare_record, stored_text
from partita.database.schema import GAME_COLUMNS
from partita.notation.reader import parse_record, read_records, split_records
from partita.notation.replay import replay
from partita.notation.writer import write_record

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@cache
def seed_records() -> tuple[str, ...]:
    """The text of every record of the examples (all games, the invalid ones too)."""
    texts = []
    for path in sorted(EXAMPLES.rglob("*.pgr")):
        texts.extend(raw.text + "\n" for raw in split_records(path))
    return tuple(texts)


# -- mutations ----------------------------------------------------------------------------
SNIPPETS = [
    "\r", "\r\n", "\n", "\n\n", "\ufeff", "\u2028", "\u2029", "\u00a0", "\u0085", "\x0b",
    "\x0c", "\t", "\x00", "\x07", "\x1b[2J", "\x1b]0;title\x07", "\u202e", "{", "}", "(",
    ")", "[", "]", ";", "$", '"', "\\", "!", "?", "!!", "*", "1-0", "0-1-0", "1/2-1/2",
    "--", "$1", "$255", "12.", "1...", "7", "9" * 5000, "$" + "9" * 5000,
    "9" * 5000 + ".", "\n[Event \"x\"]\n", '\n[Game "forza4x4"]\n', "\n\n[Result \"*\"]\n",
    '[Player5 "e"]', '[Player1 "a"]', "{\n\n[Event \"c\"]\n", "(t4 (b4) zz)",
]  # fmt: skip

any_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6)
snippets = st.one_of(st.sampled_from(SNIPPETS), any_text)


@st.composite
def mutated(draw) -> bytes:
    """A damaged file: one or two example records, mutated a few times, as bytes."""
    seeds = seed_records()
    text = draw(st.sampled_from(seeds))
    if draw(st.integers(0, 3)) == 0:
        text += draw(st.sampled_from(["", "\n", "\r\n", "\r", "\ufeff"])) + draw(
            st.sampled_from(seeds)
        )
    for _ in range(draw(st.integers(1, 4))):
        size = len(text)
        where = draw(st.integers(0, size))
        kind = draw(st.sampled_from(["insert", "delete", "repeat", "line-ends", "digits"]))
        if kind == "insert":
            text = text[:where] + draw(snippets) + text[where:]
        elif kind == "delete":
            text = text[:where] + text[where + draw(st.integers(1, 40)) :]
        elif kind == "repeat":
            piece = text[where : where + draw(st.integers(1, 60))]
            text = text[:where] + piece * draw(st.integers(2, 5)) + text[where:]
        elif kind == "line-ends":
            text = text.replace("\n", draw(st.sampled_from(["\r", "\r\n", "\n\r", "\u2028"])))
        else:  # a run of digits made huge
            digits = [i for i, char in enumerate(text) if char.isdigit()]
            if digits:
                at = draw(st.sampled_from(digits))
                text = text[:at] + "9" * draw(st.sampled_from([10, 4301, 6000])) + text[at:]
    data = text.encode("utf-8")
    if draw(st.integers(0, 5)) == 0:  # a byte that is no UTF-8
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x80"])) + data[at:]
    return data


# -- the properties -----------------------------------------------------------------------
def archived(data: bytes) -> list[tuple]:
    """What an import stores of each record of ``data``, with the places of the
    problems counted from the record's first line (an export moves records)."""
    rows = []
    for record in read_records(data):  # reading and replay never raise on input
        replayed = replay(record)
        written = write_record(record, replayed.game)  # the writer's general path
        assert write_record(parse_record(written)) == written, "writing is not idempotent"
        stored = prepare_record(replayed, strict=False)
        first = record.source.line
        problems = [
            (kind, severity, line - first, *rest) for kind, severity, line, *rest in stored.problems
        ]
        game = dict(zip(GAME_COLUMNS[1:], stored.game, strict=True))
        for name in ("source_file", "source_index", "source_line", "source_offset"):
            del game[name]  # where the record was, which an export changes
        game["tags"] = json.loads(game["tags"])  # in canonical order after an export
        rows.append((stored.hash, game, stored.keys, stored.moves, problems))
    return rows


def exported(data: bytes) -> bytes:
    """The records of ``data`` as ``partita export`` writes what the archive stores."""
    stream = io.StringIO()
    for index, record in enumerate(read_records(data)):
        if index:
            stream.write("\n")
        stream.write(stored_text(replay(record)))
    return stream.getvalue().encode("utf-8")


def check(data: bytes) -> None:
    first = archived(data)
    again = archived(exported(data))
    assert len(again) == len(first), "the export does not split into the same records"
    for index, (before, after) in enumerate(zip(first, again, strict=True)):
        assert before == after, f"record {index} reads differently after export and re-import"


FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@FUZZ
@given(data=mutated())
def test_mutated_records_read_and_survive_an_export(data):
    check(data)


@pytest.mark.slow
@settings(FUZZ, max_examples=5000)
@given(data=mutated())
def test_mutated_records_campaign(data):
    check(data)


# -- nothing quadratic ------------------------------------------------------------------------------
def cpu_seconds(data: bytes, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        archived(data)
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.slow
@settings(FUZZ, max_examples=25)
@given(data=mutated(), where=st.floats(0, 1), width=st.integers(5, 80))
def test_mutated_records_cost_linear_time(data, where, width):
    """A piece of a mutated record repeated to about 20 KB, then 8 times as much:
    the second costs about 8 times the first (a quadratic cost would be 64 times)."""
    text = data.decode("utf-8", "replace")
    start = int(where * len(text))
    piece = text[start : start + width] or "t4 "
    times = max(1, 20_000 // len(piece))

    def grown(factor: int) -> bytes:
        return (text[:start] + piece * (times * factor) + text[start:]).encode("utf-8")

    small = cpu_seconds(grown(1), 3)
    large = cpu_seconds(grown(8), 2)
    assert large < 24 * max(small, 0.005), (small, large, piece)
