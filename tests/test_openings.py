"""Opening names: the shipped names files, user files ($PARTITA_OPENINGS, --openings),
the deepest match naming a game (transpositions included), the Opening column of
`query` in every format, `show`, and the --opening-name filter."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from cli_runner import run_cli

from partita.bulk import import_paths
from partita.database.openings import opening_book, opening_of_line
from partita.database.schema import archive as opened_archive
from partita.errors import PartitaError
from partita.game.registry import all_specs, get_game

#: Per game, records (moves) and the opening name each must get from the shipped names.
GAMES = {
    "connect4": [
        ("t4 t7 t2", "Centre opening"),
        ("t4 t3 t5 t1", "Centre opening, left-centre reply, right-centre base"),
        # The same position by another order: a transposition has the name too.
        ("t5 t3 t4 t1", "Centre opening, left-centre reply, right-centre base"),
        ("t4 t4 t4 t4", "Centre opening, stacked reply, centre tower"),
        ("t1 t1", "Far-left opening"),
    ],
    "forza4x4": [
        ("t4 r5 r5 t2 l8 t1", "Rulebook example"),
        ("t4 r5 t1", "Centre, side reply (t4 r5)"),
        ("b1 t8", None),
    ],
    "universal-forces": [
        ("G@O1:1 B@O1:13 O1:1-O2:1 O1:13-O2:14", "Mountain march (O1:1 to O2:1)"),
        ("Y@O1:3 G@O1:1", "Wind entry (O1:3)"),
    ],
    "circular-reasoning": [
        ("@T>O3 @T>O4", "The spec's example"),
        ("@C>O2", "Circle entry (O2)"),
    ],
}


def _record(game: str, moves: str, number: int) -> str:
    sides = 2
    players = "".join(f'[Player{seat} "P{seat}"]\n' for seat in range(1, sides + 1))
    return f'[Game "{game}"]\n[Event "Names {number}"]\n{players}[Result "*"]\n\n{moves} *\n'


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("openings")
    texts = []
    for game, lines in GAMES.items():
        for moves, _name in lines:
            texts.append(_record(game, moves, len(texts) + 1))
    (folder / "games.pgr").write_text("\n".join(texts), encoding="utf-8")
    with opened_archive(folder / "games.db") as opened:
        summary = import_paths(opened, [folder / "games.pgr"])
    assert summary.imported == len(texts) and summary.invalid == 0
    return folder / "games.db"


def expected_names() -> list[str | None]:
    return [name for lines in GAMES.values() for _moves, name in lines]


def test_every_shipped_names_file_loads_and_names_legal_lines():
    shipped = [spec for spec in all_specs() if spec.openings is not None]
    assert {spec.name for spec in shipped} >= set(GAMES)
    for spec in shipped:
        book = opening_book(spec.name)
        assert len(book) >= 3, spec.name
        for entry in book.names():
            assert entry.depth == len(entry.moves) >= 1
            # The key is the position the moves reach: replaying them names it.
            notation = get_game(spec.name)
            state = notation.initial(entry.sides)
            keys = []
            for token in entry.moves:
                state = notation.rules.apply(state, notation.parse_move(state, token))
                keys.append(notation.rules.key(state))
            if entry.sides == notation.rules.min_sides:
                assert opening_of_line(spec.name, keys) == entry


def test_query_names_each_game_by_its_deepest_named_position(archive):
    code, out, _ = run_cli(["query", "--db", archive, "--json"])
    assert code == 0
    assert [row["opening"] for row in json.loads(out)] == expected_names()


def test_the_opening_column_is_in_every_output_format(archive):
    names = expected_names()
    _, out, _ = run_cli(["query", "--db", archive, "--nl"])
    assert [json.loads(line)["opening"] for line in out.splitlines()] == names
    _, out, _ = run_cli(["query", "--db", archive, "--csv"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [row["opening"] or None for row in rows] == names
    _, out, _ = run_cli(["query", "--db", archive, "--tsv"])
    lines = out.splitlines()
    column = lines[0].split("\t").index("opening")
    assert [line.split("\t")[column] or None for line in lines[1:]] == names
    _, out, _ = run_cli(["query", "--db", archive])  # piped: the plain table
    header, *table = out.splitlines()
    assert header.split()[-1] == "opening"
    for line, name in zip(table, names, strict=True):
        assert line.rstrip().endswith(name) if name else "opening" not in line


@pytest.mark.parametrize(
    "text, wanted",
    [
        ("CENTRE TOWER", ["t4 t4 t4 t4"]),
        ("céntre opening, left", ["t4 t3 t5 t1", "t5 t3 t4 t1"]),  # accents ignored
        ("rulebook", ["t4 r5 r5 t2 l8 t1"]),
        ("march", ["G@O1:1 B@O1:13 O1:1-O2:1 O1:13-O2:14"]),
        ("spec's", ["@T>O3 @T>O4"]),
        ("no such opening", []),
    ],
)
def test_opening_name_filter_holds_the_text(archive, text, wanted):
    code, out, _ = run_cli(["query", "--db", archive, "--opening-name", text, "--json"])
    assert code == 0
    moves = {game_id: moves for game_id, moves in _moves_by_id().items()}
    assert [moves[row["id"]] for row in json.loads(out)] == wanted


def _moves_by_id() -> dict[int, str]:
    return {
        number: moves
        for number, moves in enumerate(
            (moves for lines in GAMES.values() for moves, _name in lines), start=1
        )
    }


def test_the_filter_and_the_column_agree(archive):
    _, out, _ = run_cli(["query", "--db", archive, "--json"])
    rows = json.loads(out)
    for name in {row["opening"] for row in rows if row["opening"]}:
        _, found, _ = run_cli(["query", "--db", archive, "--opening-name", name, "--json"])
        holding = [row["id"] for row in rows if row["opening"] and name in row["opening"]]
        assert [row["id"] for row in json.loads(found)] == holding


def test_opening_name_is_or_when_repeated(archive):
    _, out, _ = run_cli(
        [
            "query",
            "--db",
            archive,
            "--opening-name",
            "far-left",
            "--opening-name",
            "circle",
            "--json",
        ]
    )
    assert [row["opening"] for row in json.loads(out)] == ["Far-left opening", "Circle entry (O2)"]


def test_a_user_file_overrides_and_adds_names(archive, tmp_path):
    names = tmp_path / "mine.toml"
    names.write_text(
        '[connect4]\n"Alpha" = "t4"\n"Beta" = "t4 t4"\n'
        '[forza4x4]\n"Side duel" = { moves = "t4 r5" }\n',
        encoding="utf-8",
    )
    code, out, _ = run_cli(
        ["query", "--db", archive, "--json"], env={"PARTITA_OPENINGS": str(names)}
    )
    assert code == 0
    got = [row["opening"] for row in json.loads(out)]
    assert got[0] == "Alpha"  # t4 t7 t2: the user's name for the centre opening
    assert got[3] == "Centre opening, stacked reply, centre tower"  # still deeper than Beta
    assert got[6] == "Side duel"  # the user's name replaces the shipped one, same position
    # The deepest match: a game named Beta is not found by Alpha.
    _, out, _ = run_cli(
        ["query", "--db", archive, "--openings", names, "--opening-name", "alpha", "--json"]
    )
    assert [row["id"] for row in json.loads(out)] == [1]


def test_show_prints_the_opening(archive, tmp_path):
    code, out, _ = run_cli(["show", "--db", archive, "2"])
    assert code == 0
    assert "Opening: Centre opening, left-centre reply, right-centre base" in out
    _, out, _ = run_cli(["show", "--db", archive, "3", "--format", "json"])
    assert json.loads(out)["opening"] == "Centre opening, left-centre reply, right-centre base"
    names = tmp_path / "mine.toml"
    names.write_text('[connect4]\n"Transposed" = { position = "7/7/7/7/7/2oxx2 o" }\n', "utf-8")
    _, out, _ = run_cli(["show", "--db", archive, "3", "--format", "json", "--openings", names])
    assert json.loads(out)["opening"] == "Transposed"
    _, out, _ = run_cli(["show", "--db", archive, "8"])  # no named position
    assert "Opening:" not in out


@pytest.mark.parametrize(
    "text, message",
    [
        ('[connect4]\n"A" = \n', "line 2"),
        ('[nosuchgame]\n"A" = "t4"\n', "[nosuchgame] is no game partita knows"),
        ('[connect4]\n"A" = "t4 t9"\n', "[connect4] 'A': ply 2:"),
        (
            '[connect4]\n"A" = { moves = "t4", position = "7/7/7/7/7/3x3 o" }\n',
            "either moves or a position",
        ),
        ('[connect4]\n"A" = { moves = "t4", sides = 5 }\n', "sides must be a number from 2 to 2"),
        ('[connect4]\n"A" = ""\n', "the starting position needs no name"),
        ('[connect4]\n"A" = 4\n', "give moves"),
    ],
)
def test_a_bad_names_file_is_one_clear_error(archive, tmp_path, text, message):
    names = tmp_path / "bad.toml"
    names.write_text(text, encoding="utf-8")
    with pytest.raises(PartitaError, match="opening names file") as raised:
        opening_book("connect4", [names])
    assert message in str(raised.value)
    code, _, err = run_cli(["query", "--db", archive, "--openings", names])
    assert code == 1
    assert err.startswith("partita: error: opening names file") and message in err


def test_a_missing_names_file_is_a_usage_error(archive, tmp_path):
    code, _, err = run_cli(["query", "--db", archive, "--openings", tmp_path / "none.toml"])
    assert code == 2 and "none.toml" in err
    code, _, err = run_cli(
        ["query", "--db", archive], env={"PARTITA_OPENINGS": str(tmp_path / "none.toml")}
    )
    assert code == 1 and "none.toml" in err


@pytest.mark.parametrize("columns, shown", [("120", True), ("80", False)])
def test_the_terminal_table_has_the_opening_when_it_has_room(archive, monkeypatch, columns, shown):
    import contextlib

    from partita.cli import main

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", columns)
    out = Terminal()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        main(["query", "--db", str(archive), "--game", "universal-forces"])
    assert done.value.code in (0, None)
    text = out.getvalue()
    assert ("Mountain march" in text) is shown
    assert ("opening names: a terminal of 100 columns" in text) is not shown
