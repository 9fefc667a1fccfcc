"""Records from standard input and from compressed files; `-o -` to standard output."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard
from typer.testing import CliRunner

from partita.bulk import import_paths
from partita.cli.app import _register_commands, app
from partita.database.schema import archive
from partita.errors import InputError
from partita.notation import inputs
from partita.notation.files import expand_paths
from partita.notation.inputs import compression_of, open_input
from partita.notation.reader import read_records

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GAMES = sorted(path.name for path in EXAMPLES.iterdir() if path.is_dir() and path.name != "invalid")
RULEBOOK = EXAMPLES / "forza4x4" / "rulebook-example.pgr"

#: Each format and how the test writes it (the standard library; Zstandard: the package).
COMPRESSORS = {
    "gzip": gzip.compress,
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "zstd": lambda data: zstandard.ZstdCompressor().compress(data),
}


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    _register_commands()
    return CliRunner()


def game_text(game: str) -> bytes:
    """Every example record of a game, one file's worth of bytes."""
    return b"\n".join(path.read_bytes() for path in sorted((EXAMPLES / game).glob("*.pgr")))


def summary(records) -> list[tuple]:
    return [
        (list(record.tags.items()), record.mainline_moves(), record.result) for record in records
    ]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_each_compression_reads_as_the_plain_text(kind, game, tmp_path):
    plain = game_text(game)
    # The name says nothing: the first bytes decide.
    packed = tmp_path / f"{game}.records"
    packed.write_bytes(COMPRESSORS[kind](plain))
    assert compression_of(packed.read_bytes()[:6]) == kind
    expected = summary(read_records(plain))
    assert len(expected) >= 1
    assert summary(read_records(packed)) == expected
    assert summary(read_records(str(packed))) == expected


def stored_games(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT hash, moves, status FROM games ORDER BY id").fetchall()


@pytest.fixture(scope="module")
def plain_import(tmp_path_factory) -> tuple[bytes, list[tuple]]:
    """Every example as one text, and the games its import stores."""
    folder = tmp_path_factory.mktemp("plain")
    everything = b"\n".join(game_text(game) for game in GAMES)
    (folder / "all.pgr").write_bytes(everything)
    with archive(folder / "plain.db") as opened:
        import_paths(opened, [folder / "all.pgr"])
    return everything, stored_games(folder / "plain.db")


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_importing_a_compressed_file_stores_the_same_games(kind, plain_import, tmp_path, runner):
    everything, expected = plain_import
    packed = tmp_path / f"all.pgr.{kind}"
    packed.write_bytes(COMPRESSORS[kind](everything))
    outcome = runner.invoke(app, ["import", str(packed), "--db", str(tmp_path / "p.db"), "--json"])
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(outcome.stdout)["imported"] == len(expected) > 40
    assert stored_games(tmp_path / "p.db") == expected


def test_a_folder_holds_compressed_record_files_too(tmp_path):
    (tmp_path / "deep").mkdir()
    (tmp_path / "a.pgr").write_bytes(RULEBOOK.read_bytes())
    (tmp_path / "deep" / "b.pgr.gz").write_bytes(gzip.compress(RULEBOOK.read_bytes()))
    (tmp_path / "deep" / "c.pgr.zst").write_bytes(COMPRESSORS["zstd"](RULEBOOK.read_bytes()))
    (tmp_path / "notes.txt").write_text("not records")
    (tmp_path / "d.gz").write_bytes(gzip.compress(b"not records either"))
    assert [path.relative_to(tmp_path).as_posix() for path in expand_paths([tmp_path])] == [
        "a.pgr",
        "deep/b.pgr.gz",
        "deep/c.pgr.zst",
    ]


def test_damaged_compressed_data_is_one_clear_error(tmp_path, runner):
    whole = gzip.compress(game_text("connect4"))
    cut = tmp_path / "cut.pgr"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match=r"cut\.pgr: the gzip data is damaged or cut short"):
        list(read_records(cut))
    garbage = tmp_path / "garbage.pgr.xz"
    garbage.write_bytes(COMPRESSORS["xz"](b"x")[:12] + b"\x00" * 40)
    with pytest.raises(InputError, match=r"garbage\.pgr\.xz: the xz data is damaged"):
        list(read_records(garbage))


def test_a_zst_file_without_zstandard_says_what_is_missing(tmp_path, monkeypatch):
    packed = tmp_path / "games.pgr.zst"
    packed.write_bytes(COMPRESSORS["zstd"](RULEBOOK.read_bytes()))
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard fails
    with pytest.raises(InputError) as caught:
        list(read_records(packed))
    assert str(caught.value) == (
        f"{packed}: the file is Zstandard-compressed, and reading it needs the zstandard "
        "package (pip install zstandard, or partita[zstd])"
    )


class _Pipe(io.RawIOBase):
    """A stream that cannot seek and gives one byte at a time, as a slow pipe may."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if not self._data:
            return 0
        buffer[0], self._data = self._data[0], self._data[1:]
        return 1


@pytest.mark.parametrize("kind", [None, *sorted(COMPRESSORS)])
def test_standard_input_is_read_even_one_byte_at_a_time(kind, monkeypatch):
    data = RULEBOOK.read_bytes()
    sent = data if kind is None else COMPRESSORS[kind](data)

    class Stdin:
        buffer = io.BufferedReader(_Pipe(sent), buffer_size=1)

    monkeypatch.setattr(inputs.sys, "stdin", Stdin)
    with open_input("-") as stream:
        assert stream.name == "<stdin>" and stream.compression == kind
        assert b"".join(stream) == data


def test_a_dash_reads_standard_input_in_every_records_command(tmp_path, runner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = game_text("universal-forces")
    outcome = runner.invoke(app, ["validate", "-", "--json"], input=text)
    assert outcome.exit_code == 0, outcome.output
    checked = [json.loads(line) for line in outcome.stdout.splitlines()]  # JSON lines
    assert len(checked) == len(list(read_records(text)))
    assert {entry["file"] for entry in checked} == {"<stdin>"}
    outcome = runner.invoke(
        app, ["import", "-", "--db", "s.db", "--json"], input=gzip.compress(text)
    )
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(outcome.stdout)["imported"] == len(checked)
    with sqlite3.connect(tmp_path / "s.db") as conn:
        assert conn.execute("SELECT DISTINCT source_file FROM games").fetchall() == [("<stdin>",)]
    outcome = runner.invoke(
        app, ["show", "-", "--format", "position"], input=bz2.compress(RULEBOOK.read_bytes())
    )
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.strip() == "8/8/8/1o6/ox6/8/8/2xx4 o"
    # greedy: the default agent's playouts cost seconds and say nothing about reading "-"
    outcome = runner.invoke(
        app, ["annotate", "-", "-o", "-", "--agent", "greedy"], input=RULEBOOK.read_bytes()
    )
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.startswith('[Game "forza4x4"]')
    assert not (tmp_path / "-").exists()


def test_a_missing_records_path_is_a_usage_error(tmp_path, runner):
    outcome = runner.invoke(app, ["validate", str(tmp_path / "nothing.pgr")])
    assert outcome.exit_code == 2 and "does not exist" in outcome.output
    outcome = runner.invoke(app, ["import", "-", str(tmp_path / "nothing.pgr")])
    assert outcome.exit_code == 2 and "does not exist" in outcome.output


def test_dash_o_dash_writes_to_standard_output(tmp_path, runner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    few = [RULEBOOK, EXAMPLES / "forza4x4" / "problems.pgr"]
    with archive(tmp_path / "a.db") as opened:
        import_paths(opened, few)
    outcome = runner.invoke(app, ["export", "--db", "a.db", "-o", "-"])
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.count('[Game "forza4x4"]') == len(list(read_records(few[1]))) + 1
    outcome = runner.invoke(
        app,
        ["report", "--db", "a.db", "-o", "-", "--depth", "1", "--viewer-games", "0", "--no-charts"],
    )
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.lstrip().lower().startswith("<!doctype html")
    outcome = runner.invoke(app, ["tree", "--db", "a.db", "--game", "forza4x4", "--dot", "-"])
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.startswith("digraph")
    outcome = runner.invoke(app, ["tree", "--db", "a.db", "--game", "forza4x4", "--graphml", "-"])
    assert outcome.exit_code == 0, outcome.output
    assert "<graphml" in outcome.stdout
    assert not (tmp_path / "-").exists()


def test_a_real_pipe_of_damaged_compressed_records(tmp_path):
    """The command as a shell runs it, `cat cut.pgr.gz | partita validate -`: the
    records before the damage are read, then one clear line and exit 1."""
    cut = gzip.compress(game_text("circular-reasoning"))[:300]
    done = subprocess.run(
        [sys.executable, "-m", "partita", "validate", "-"],
        input=cut,
        capture_output=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert done.stderr.decode().splitlines() == [
        "partita: error: <stdin>: the gzip data is damaged or cut short "
        "(Compressed file ended before the end-of-stream marker was reached)"
    ]
