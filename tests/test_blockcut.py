"""The block cutter against the line path: the same records, places and problems.

The line path (``cut_records`` over ``binary_lines``) is the referee. Hypothesis
builds files from the pieces that change how lines and records split (tags, spaces
and tabs before ``[``, blank lines, braces, semicolons, CR and CRLF, BOMs, invalid
UTF-8, U+FFFD, NUL, over-long lines, no final newline), and tiny blocks put the
block boundaries anywhere.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.errors import InputError
from partita.notation import blockcut, reader, sources, splitter
from partita.notation.inputs import open_input
from partita.notation.sources import MAX_LINE_LENGTH

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "examples").rglob("*.pgr")) + sorted(
    path for path in (ROOT.parent / "shared" / "data").rglob("*") if path.is_file()
)


def _records(cut: object) -> list[tuple[object, ...]]:
    return [
        (raw.text, raw.source, raw.movetext_start, raw.problems)
        for raw in cut  # type: ignore[attr-defined]
    ]


def _line_path(data: bytes, limit: int = MAX_LINE_LENGTH) -> list[tuple[object, ...]]:
    return _records(splitter.cut_records(sources.binary_lines(io.BytesIO(data), limit), "f"))


def _block_path(
    data: bytes, block_size: int, limit: int = MAX_LINE_LENGTH
) -> list[tuple[object, ...]]:
    stream = io.BytesIO(data)
    return _records(blockcut.cut_stream(stream, "f", block_size=block_size, limit=limit))


LINES = st.sampled_from(
    [
        '[Game "forza4x4"]',
        '[Event "Open é"]',
        '  [Site "Milano"]',
        '\t[Round "1"]',
        ' \t [Result "1-0"]',
        "[Bad",
        "1. r7 t6 2. r2 l5 1-0",
        "10. b2 l6 11. b5 1-0",
        "  1. a1 b2",
        "1. e4 { a comment",
        "that goes on }",
        "{ whole } 1. x y",
        '{ [Tag "in a comment"]',
        "; line comment {",
        "1. a b ; {",
        "}",
        "",
        "",
        "   ",
        "\t",
        "\f",
        "x" * 40,
        "café ü 1. a",
        '\ufeff[Game "connect4"]',
        "a\ufffdb",
        "nul\x00here",
        "%",
        "% an escape line",
        " % no escape line",
    ]
)
ENDINGS = st.sampled_from([b"\n", b"\n", b"\n", b"\n", b"\r\n", b"\r"])
RAW = st.sampled_from([b"\xff", b"\xc3", b"\xe2\x82", b"\xef\xbb\xbf", b"\x80abc"])


@st.composite
def files(draw: st.DrawFn) -> bytes:
    """A file of lines with mixed endings, a few raw bytes, maybe no final newline."""
    parts: list[bytes] = []
    for _ in range(draw(st.integers(0, 40))):
        line = draw(LINES).encode("utf-8")
        if draw(st.integers(0, 30)) == 0:
            line += draw(RAW)
        parts.append(line + draw(ENDINGS))
    data = b"".join(parts)
    if data and draw(st.booleans()):
        data = data.rstrip(b"\r\n")
    return data


@settings(max_examples=400, deadline=None)
@given(
    data=files(),
    block_size=st.integers(1, 80),
    limit=st.sampled_from([MAX_LINE_LENGTH, 30, 12]),
)
def test_block_cutter_gives_what_the_line_path_gives(
    data: bytes, block_size: int, limit: int
) -> None:
    assert _block_path(data, block_size, limit) == _line_path(data, limit)


@settings(max_examples=200, deadline=None)
@given(
    records=st.lists(
        st.tuples(
            st.lists(st.sampled_from(['[A "1"]', ' [B "2"]', '\t[C "x"]']), max_size=4),
            st.lists(
                st.sampled_from(
                    ["1. a b", "2. c d 1-0", "", " ", "\t", "\f \v", "é 1. x", '  [D "4"]']
                ),
                max_size=5,
            ),
        ),
        max_size=8,
    ),
    block_size=st.integers(1, 64),
)
def test_plain_records_split_alike(
    records: list[tuple[list[str], list[str]]], block_size: int
) -> None:
    """Plain files only (the block cutter's own path), with boundaries anywhere."""
    text = "".join("\n".join([*tags, *movetext]) + "\n" for tags, movetext in records)
    data = text.encode("utf-8")
    assert _block_path(data, block_size) == _line_path(data)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n\n  \n",
        b'[A "1"]',
        b'[A "1"]\n\n',
        b"1. a b",
        b'[A "1"]\n1. a b\n[B "2"]\n1. c d',
        b'[A "1"]\n1. a b\n\n\n  [B "2"]\n1. c d\n\n',
        b'1. a { open\n\n[B "2"]\n1. c d\n',
        b'1. a { open\n[B "2"]\n}\n[C "3"]\n1. e\n',
        b'1. a\r\n[B "2"]\r\n1. b\r',
        b'\xef\xbb\xbf[A "1"]\n1. a\n',
        b'1. a \xff b\n[B "2"]\n1. c\n',
    ],
)
@pytest.mark.parametrize("block_size", [1, 2, 5, 1 << 16])
def test_edge_cases(data: bytes, block_size: int) -> None:
    assert _block_path(data, block_size) == _line_path(data)


def test_the_records_and_their_places_are_right() -> None:
    """Pinned by hand, not by the line path: index, first line, byte offset (after a
    two-byte character), movetext start, trailing blank lines dropped."""
    data = 'é\n[A "1"]\n1. a b  \n  \n\n[B "2"]\n\n1. c\n'.encode()
    for block_size in (1, 3, 100):
        got = _block_path(data, block_size)
        assert [
            (text, source.index, source.line, source.byte_offset, start)
            for text, source, start, _ in got
        ] == [
            ("é", 0, 1, 0, 0),
            ('[A "1"]\n1. a b  ', 1, 2, 3, 8),
            ('[B "2"]\n\n1. c', 2, 6, 24, 9),
        ]


def test_long_lines_past_a_block_keep_their_problem() -> None:
    """A line longer than the limit running over many blocks: cut short with a
    problem, the next record's place right."""
    data = b'[A "1"]\n1. ' + b"a" * 500 + b'\n[B "2"]\n1. b\n'
    got = _block_path(data, 16, limit=100)
    assert got == _line_path(data, limit=100)
    assert "line longer than 100 bytes" in got[0][3][0][1]
    assert got[1][1].line == 3 and got[1][1].byte_offset == len(data) - 13


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.name)
def test_shipped_files_cut_alike(path: Path) -> None:
    data = path.read_bytes()
    expected = _line_path(data)
    for block_size in (7, 4096, blockcut.BLOCK_SIZE):
        assert _block_path(data, block_size) == expected


def test_shipped_files_are_there() -> None:
    assert len(SHIPPED) > 100
    assert any("connect4-pons" in str(path) for path in SHIPPED)


def test_split_records_reads_files_and_compressed_files_in_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """split_records on a path, a gzip file and bytes takes the block cutter and
    gives the line path's records."""
    data = b"".join(path.read_bytes() for path in sorted((ROOT / "examples").glob("*/*.pgr")))
    plain = tmp_path / "games.pgr"
    plain.write_bytes(data)
    packed = tmp_path / "games.pgr.gz"
    packed.write_bytes(gzip.compress(data))
    expected = _line_path(data)
    assert len(expected) > 50
    calls: list[str] = []

    def counting(stream: object, name: str) -> Iterator[splitter.RawRecord]:
        calls.append(name)
        return blockcut.cut_stream(stream, name)

    monkeypatch.setattr(reader, "cut_stream", counting)
    for source in (plain, packed, data):
        assert _records(reader.split_records(source, name="f")) == expected
    assert calls == ["f", "f", "f"]


def _until_error(cut: Iterator[splitter.RawRecord]) -> tuple[list[tuple[object, ...]], str]:
    got: list[tuple[object, ...]] = []
    try:
        for raw in cut:
            got.append((raw.text, raw.source, raw.movetext_start, raw.problems))
    except InputError as error:
        return got, str(error)
    return got, ""


def test_damaged_compressed_data_gives_the_records_before_the_damage(tmp_path: Path) -> None:
    """Compressed data is read by whole lines: the records before the damage come
    out (as on the line path), then the error."""
    whole = b"".join(path.read_bytes() for path in sorted((ROOT / "examples").glob("*/*.pgr")))
    packed = gzip.compress(whole * 4, mtime=0)
    cut = tmp_path / "cut.pgr.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    with open_input(cut) as stream:
        expected = _until_error(
            splitter.cut_records(sources.binary_lines(stream), "f")  # type: ignore[arg-type]
        )
    with open_input(cut) as stream:
        got = _until_error(blockcut.cut_stream(stream, "f", block_size=4096))
    assert "damaged or cut short" in expected[1] and len(expected[0]) > 50
    assert got == expected


class _Trickle(io.RawIOBase):
    """A pipe that gives at most 5 bytes a read."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        piece, self._data = self._data[:5], self._data[5:]
        buffer[: len(piece)] = piece
        return len(piece)


@pytest.mark.parametrize("wrap", [lambda raw: raw, io.BufferedReader])
def test_short_reads_cut_alike(wrap: object) -> None:
    """A stream that gives little at a time (``read`` only, or ``read1``)."""
    data = b'[A "1"]\n1. a b\n\n[B "2"]\n{ c\n\n[C "3"]\n} 1. d\n[D "4"]\n1. e'
    stream = wrap(_Trickle(data))  # type: ignore[operator]
    assert _records(blockcut.cut_stream(stream, "f", block_size=64)) == _line_path(data)
