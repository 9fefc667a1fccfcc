"""`partita query` output: --json, --nl, --csv, --tsv, a plain table when piped, and a
limited table with a note on a terminal."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import run_cli

from partita.bulk import import_paths
from partita.database.schema import archive
from partita.game.registry import all_games

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

RECORDS = [
    ("Spring\tOpen", "Anna, Rossi", "Bruno", "1-0", "1. t4 r5 2. r5 t2 3. l8"),
    ("Spring Open", 'Bruno "B" Bianchi', "Zoë", "0-1", "1. t4 r5 2. t1"),
    ("Autumn Cup", "Zoë Müller", "Dario", "1/2-1/2", "1. t4 t4 2. b1"),
]
CONNECT4 = '[Game "connect4"]\n[Event "Club"]\n[Player1 "Hugo"]\n[Player2 "Anna"]\n[Result "*"]\n\n1. t4 *\n'


@pytest.fixture(scope="module")
def small_archive(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("listing")
    texts = [
        f'[Game "forza4x4"]\n[Event "{event}"]\n[Date "2024.03.10"]\n[Player1 "{one}"]\n'
        f'[Player2 "{two}"]\n[Result "{result}"]\n\n{moves} {result}\n'
        for event, one, two, result, moves in RECORDS
    ]
    (folder / "games.pgr").write_text(
        "\n".join([*texts, CONNECT4]).replace('"B"', '\\"B\\"'), "utf-8"
    )
    with archive(folder / "games.db") as opened:
        summary = import_paths(opened, [folder / "games.pgr"])
    assert summary.imported == 4
    return folder / "games.db"


def query(db: Path, *args: str) -> tuple[int, str, str]:
    return run_cli(["query", "--db", str(db), *args])


def test_json_lines_are_the_json_rows(small_archive):
    code, out, _ = query(small_archive, "--json")
    rows = json.loads(out)
    code_nl, lines, _ = query(small_archive, "--nl")
    assert code == code_nl == 0
    assert [json.loads(line) for line in lines.splitlines()] == rows
    assert len(rows) == 4 and rows[1]["players"] == ['Bruno "B" Bianchi', "Zoë"]


def test_csv_has_a_header_and_one_quoted_row_per_game(small_archive):
    code, out, _ = query(small_archive, "--csv", "--game", "forza4x4")
    assert code == 0
    table = list(csv.reader(io.StringIO(out)))
    assert table[0][:8] == ["id", "game", "event", "site", "date", "round", "player1", "player2"]
    assert len(table) == 4
    first = dict(zip(table[0], table[1], strict=True))
    assert first["event"] == "Spring\tOpen" and first["player1"] == "Anna, Rossi"
    assert first["result"] == "1-0" and first["plies"] == "5" and first["player3"] == ""
    second = dict(zip(table[0], table[2], strict=True))
    assert second["player1"] == 'Bruno "B" Bianchi'


def test_tsv_escapes_tabs_so_each_game_is_one_line(small_archive):
    code, out, _ = query(small_archive, "--tsv")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 5 and all(line.count("\t") == lines[0].count("\t") for line in lines)
    assert "Spring\\tOpen" in lines[1]


def test_position_adds_the_ply_found_and_variation_columns(small_archive):
    code, out, _ = query(small_archive, "--csv", "--position", "8/8/8/8/8/8/8/3x4 o")
    assert code == 0
    table = list(csv.reader(io.StringIO(out)))
    assert table[0][-3:] == ["ply", "found", "variation"]
    assert {tuple(row[-3:]) for row in table[1:]} == {("1", "mainline", "")}


def test_piped_the_table_is_plain_and_unwrapped(small_archive):
    code, out, err = query(small_archive, "--player", "zoe")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == [
        "id",
        "game",
        "date",
        "event",
        "players",
        "result",
        "plies",
        "status",
        "opening",
    ]
    assert len(lines) == 3 and not any(char in out for char in "│┃━─┏")
    assert 'Bruno "B" Bianchi - Zoë' in lines[1] and "Zoë Müller - Dario" in lines[2]
    assert "2 games" in err


def test_one_output_format_at_a_time(small_archive):
    code, _, err = query(small_archive, "--csv", "--json")
    assert code == 2 and "--json and --csv" in err


def test_the_examples_of_every_game_list_in_every_format(tmp_path):
    db = tmp_path / "examples.db"
    run_cli(["import", str(EXAMPLES), "--db", str(db)])
    rows = json.loads(query(db, "--json")[1])
    games = {row["game"] for row in rows} & {notation.name for notation in all_games()}
    assert len(games) == 5
    for game in games:
        expected = [row["id"] for row in rows if row["game"] == game]
        csv_rows = list(csv.DictReader(io.StringIO(query(db, "--csv", "--game", game)[1])))
        assert [int(row["id"]) for row in csv_rows] == expected
        tsv = query(db, "--tsv", "--game", game)[1].splitlines()
        assert [int(line.split("\t")[0]) for line in tsv[1:]] == expected
        plain = query(db, "--game", game)[1].splitlines()
        assert [int(line.split()[0]) for line in plain[1:]] == expected


def on_a_terminal(*args: str) -> str:
    """What `partita ARGS` prints on a (pseudo-)terminal of 200 columns."""
    leader, follower = os.openpty()
    environment = {**os.environ, "COLUMNS": "200", "TERM": "dumb"}
    environment.pop("PARTITA_DB", None)
    done = subprocess.run(
        [sys.executable, "-m", "partita", *args],
        stdout=follower,
        stderr=subprocess.PIPE,
        env=environment,
        cwd=ROOT,
        timeout=120,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert done.returncode == 0, done.stderr
    return b"".join(chunks).decode("utf-8")


def test_on_a_terminal_a_limited_table_says_how_to_see_more(small_archive):
    out = on_a_terminal("query", "--db", str(small_archive), "--limit", "2")
    assert "first 2 games shown; --limit N for more" in out
    assert "Autumn" not in out
    out = on_a_terminal("query", "--db", str(small_archive))
    assert "4 games" in out and "shown" not in out and "Autumn" in out
