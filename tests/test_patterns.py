"""Pattern search: the pattern syntax of the gravity games, Universal Forces and
Circular Reasoning (property tests), `query --pattern` on every game that has one,
and the game that has none."""

from __future__ import annotations

import doctest
import json
import random
from pathlib import Path

import pytest
from cli_runner import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.bulk import import_paths
from partita.database.schema import archive as opened_archive
from partita.errors import NotationError
from partita.games.circular_reasoning.notation import CIRCULAR_REASONING
from partita.games.circular_reasoning.rules import GOAL, RESERVE, cell_name
from partita.games.gravity.notation import CONNECT4, FORZA4X4
from partita.games.universal_forces.notation import UNIVERSAL_FORCES
from partita.games.universal_forces.rules import FORCES

ROOT = Path(__file__).resolve().parent.parent


def playout(notation, seed: int, plies: int, sides: int = 2):
    """A position after up to ``plies`` random moves (fewer if the game ends)."""
    rng = random.Random(seed)
    rules = notation.rules
    state = notation.initial(sides)
    for _ in range(plies):
        if rules.outcome(state) is not None:
            break
        state = rules.apply(state, rules.sample_move(state, rng))
    return state


def gravity_cells(notation, state) -> list[list[str]]:
    """The board as rows of ``x``, ``o`` and ``.``, from the top."""
    rules = notation.rules
    rows = []
    for row in range(1, rules.height + 1):
        cells = []
        for column in range(1, rules.width + 1):
            bit = 1 << rules.bit(column, row)
            cells.append("x" if state.x & bit else "o" if state.o & bit else ".")
        rows.append(cells)
    return rows


def gravity_text(rows: list[list[str]], side: str = "") -> str:
    return "/".join("".join(row) for row in rows) + (f" {side}" if side else "")


@pytest.mark.parametrize("notation", [CONNECT4, FORZA4X4], ids=lambda game: game.name)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 30), data=st.data())
def test_gravity_patterns(notation, seed, plies, data):
    state = playout(notation, seed, plies)
    # Its own notation is an exact pattern; so are its cells spelled with '.'.
    assert notation.parse_pattern(notation.format_position(state)).matches(state)
    rows = gravity_cells(notation, state)
    side = "xo"[state.ply & 1]
    assert notation.parse_pattern(gravity_text(rows, side)).matches(state)
    # Wildcards only match everything.
    anything = [["?"] * len(row) for row in rows]
    assert notation.parse_pattern(gravity_text(anything)).matches(state)
    assert notation.parse_pattern(gravity_text(anything, "?")).matches(state)
    # One required cell changed: no match.
    row = data.draw(st.integers(0, len(rows) - 1))
    column = data.draw(st.integers(0, len(rows[0]) - 1))
    now = rows[row][column]
    other = data.draw(
        st.sampled_from(
            [
                char
                for char in "xo.*"
                if char != now and (now, char) != ("x", "*") and (now, char) != ("o", "*")
            ]
        )
    )
    changed = [list(line) for line in rows]
    changed[row][column] = other
    assert not notation.parse_pattern(gravity_text(changed, side)).matches(state)
    # And the other side to move: no match.
    assert not notation.parse_pattern(gravity_text(rows, "ox"[state.ply & 1])).matches(state)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6), plies=st.integers(0, 40), sides=st.integers(2, 4), data=st.data()
)
def test_universal_forces_patterns(seed, plies, sides, data):
    state = playout(UNIVERSAL_FORCES, seed, plies, sides)
    board, *_rest = UNIVERSAL_FORCES.format_position(state).split()
    seat = str(state.to_move + 1)
    exact = "?" if board == "-" else board
    assert UNIVERSAL_FORCES.parse_pattern(exact).matches(state)
    assert UNIVERSAL_FORCES.parse_pattern(f"{exact} {seat}").matches(state)
    assert UNIVERSAL_FORCES.parse_pattern("?").matches(state)
    assert UNIVERSAL_FORCES.parse_pattern("? ?").matches(state)
    other_seat = str((state.to_move + 1) % sides + 1)
    assert not UNIVERSAL_FORCES.parse_pattern(f"{exact} {other_seat}").matches(state)
    names = UNIVERSAL_FORCES.rules.geometry.names
    cell = data.draw(st.integers(0, len(names) - 1))
    contents = state.cells[cell]
    if contents:
        # The cell emptied, or its bottom force of another kind.
        bottom_side, bottom_kind = divmod(contents[0], 4)
        wrong = FORCES[(bottom_kind + 1) % 4]
        forces = "".join(
            f"{piece // 4 + 1}{wrong if at == 0 else FORCES[piece % 4]}"
            for at, piece in enumerate(contents)
        )
        changes = [".", forces]
    else:
        changes = ["*", "1G", "??"]
    condition = f"{names[cell]}={data.draw(st.sampled_from(changes))}"
    others = [
        part
        for part in ([] if board == "-" else board.split(","))
        if not part.startswith(names[cell] + "=")
    ]
    assert not UNIVERSAL_FORCES.parse_pattern(",".join([*others, condition])).matches(state)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6), plies=st.integers(0, 40), sides=st.integers(2, 4), data=st.data()
)
def test_circular_reasoning_patterns(seed, plies, sides, data):
    state = playout(CIRCULAR_REASONING, seed, plies, sides)
    position = CIRCULAR_REASONING.format_position(state)
    own = position.split(" / ")[0]
    mover = position.split()[-1]
    assert CIRCULAR_REASONING.parse_pattern(own).matches(state)
    assert CIRCULAR_REASONING.parse_pattern(f"{own} {mover}").matches(state)
    assert CIRCULAR_REASONING.parse_pattern("?").matches(state)
    wildcards = " ".join(f"{seat}:C?,T?,S?" for seat in range(1, sides + 1))
    assert CIRCULAR_REASONING.parse_pattern(wildcards).matches(state)
    other = f"P{(int(mover[1:]) % sides) + 1}"
    assert not CIRCULAR_REASONING.parse_pattern(f"{own} {other}").matches(state)
    # One token's required place changed: no match.
    index = data.draw(st.integers(0, len(state.tokens) - 1))
    seat, shape = divmod(index, 3)
    now = state.tokens[index]
    choices = [name for name in ("@", "G", "O1", "M7", "I16", "*") if name != cell_name(now)]
    if now not in (GOAL, RESERVE):
        choices.remove("*")
    wanted = data.draw(st.sampled_from(choices))
    places = own.split()[seat].split(":")[1].split(",")
    places[shape] = "CTS"[shape] + wanted
    changed = own.split()
    changed[seat] = f"{seat + 1}:{','.join(places)}"
    assert not CIRCULAR_REASONING.parse_pattern(" ".join(changed)).matches(state)
    # A segment condition against what stands there.
    if now not in (GOAL, RESERVE):
        assert CIRCULAR_REASONING.parse_pattern(
            f"{cell_name(now)}={seat + 1}{'CTS'[shape]}"
        ).matches(state)
        assert not CIRCULAR_REASONING.parse_pattern(f"{cell_name(now)}=.").matches(state)


@pytest.mark.parametrize(
    "notation, text, message",
    [
        (CONNECT4, "7/7/7/7/7/7/7", "has 7 rows, the board has 6"),
        (CONNECT4, "7/7/7/7/7/8", "row 6 ('8') covers 8 cells, the board is 7 wide"),
        (CONNECT4, "7/7/7/7/7/6q", "malformed pattern '7/7/7/7/7/6q' at column"),
        (FORZA4X4, "8/8/8/8/8/8/8/8 z", "expected side to move (x, o or ?)"),
        (UNIVERSAL_FORCES, "O1:9=1G,O1:9=.", "O1:9 is given twice"),
        (UNIVERSAL_FORCES, "O1:9=1Q", "malformed pattern 'O1:9=1Q'"),
        (UNIVERSAL_FORCES, "I1:9=*", "there is no cell I1:9"),
        (UNIVERSAL_FORCES, "-", "malformed pattern '-'"),
        (CIRCULAR_REASONING, "1:C?,T?,S? 1:C@,T@,S@", "side 1 is given twice"),
        (CIRCULAR_REASONING, "O0=*", "'O0' is no cell"),
        (CIRCULAR_REASONING, "1:C?,T?", "malformed pattern '1:C?,T?'"),
    ],
)
def test_a_bad_pattern_is_a_notation_error(notation, text, message):
    with pytest.raises(NotationError) as raised:
        notation.parse_pattern(text)
    assert message in str(raised.value)


def test_the_docs_pages_patterns_run():
    for page in ("forza4x4.md", "universal-forces.md", "circular-reasoning.md"):
        failures, tried = doctest.testfile(str(ROOT / "docs" / page), module_relative=False)
        assert tried >= 8 and failures == 0, page


RECORDS = [
    ("connect4", "t4 t3 t5 t1 t2", 2),
    ("connect4", "t1 t7 t1", 2),
    ("forza4x4", "t4 r5 r5 t2 l8", 2),
    ("universal-forces", "G@O1:1 B@O1:13 O1:1-O2:1 O1:13-O2:14", 2),
    ("universal-forces", "R@O1:31 B@O1:29 R@O1:23 O1:31-O2:31", 3),
    ("circular-reasoning", "@T>O3 @T>O4", 2),
]


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("patterns")
    texts = []
    for number, (game, moves, sides) in enumerate(RECORDS, start=1):
        players = "".join(f'[Player{seat} "P{seat}"]\n' for seat in range(1, sides + 1))
        texts.append(f'[Game "{game}"]\n[Event "E{number}"]\n{players}[Result "*"]\n\n{moves} *\n')
    (folder / "games.pgr").write_text("\n".join(texts), encoding="utf-8")
    with opened_archive(folder / "games.db") as opened:
        summary = import_paths(opened, [folder / "games.pgr"])
    assert summary.imported == len(RECORDS) and summary.invalid == 0
    return folder / "games.db"


def found(archive: Path, *args: str) -> list[tuple[int, int]]:
    code, out, err = run_cli(["query", "--db", archive, *args, "--json"])
    assert code == 0, err
    return [(row["id"], row["pattern_ply"]) for row in json.loads(out)]


@pytest.mark.parametrize(
    "args, expected",
    [
        # Connect Four: x on the centre of the bottom row, o beside it (ply 2 of game 1).
        (["--pattern", "7/7/7/7/7/2ox3"], [(1, 2)]),
        # Three pieces side by side in the bottom row's centre: game 1 after ply 3.
        (
            ["--game", "connect4", "--pattern", "???????/???????/???????/???????/???????/??***??"],
            [(1, 3)],
        ),
        # The start matches a pattern of empty cells (ply 0), every game of the board.
        (["--pattern", "7/7/7/7/7/7"], [(1, 0), (2, 0)]),
        (["--pattern", "7/7/7/7/7/3x3 o"], [(1, 1)]),
        (["--pattern", "7/7/7/7/7/x6 o"], [(2, 1)]),
        # Forza 4x4: the rulebook example's final position, exactly.
        (["--pattern", "8/8/8/1o6/ox6/8/8/2xx4 o"], [(3, 5)]),
        (
            [
                "--pattern",
                "????????/????????/????????/????????/*???????/????????/????????/????????",
            ],
            [(3, 2)],
        ),
        # Universal Forces, two and three sides.
        (["--pattern", "O2:1=1G"], [(4, 3)]),
        (["--pattern", "O2:1=1G,O2:14=2B"], [(4, 4)]),
        (["--pattern", "O1:23=3R"], [(5, 3)]),
        (["--pattern", "O1:29=?B,O2:31=*"], [(5, 4)]),
        (["--game", "universal-forces", "--pattern", "?"], [(4, 0), (5, 0)]),
        # Circular Reasoning.
        (["--pattern", "O4=2T"], [(6, 2)]),
        (["--pattern", "1:C@,T*,S@ P2"], [(6, 1)]),
        (["--game", "circular-reasoning", "--pattern", "O3=."], [(6, 0)]),
        # Other filters AND with it.
        (["--pattern", "7/7/7/7/7/7", "--event", "E2"], [(2, 0)]),
    ],
)
def test_query_finds_the_first_matching_ply(archive, args, expected):
    assert found(archive, *args) == expected


def test_the_pattern_ply_is_in_every_output_format(archive):
    code, out, _ = run_cli(["query", "--db", archive, "--pattern", "O2:1=1G", "--csv"])
    header, row = out.splitlines()
    assert header.split(",")[-1] == "pattern_ply" and row.split(",")[-1] == "3"
    _, out, _ = run_cli(["query", "--db", archive, "--pattern", "O2:1=1G", "--tsv"])
    assert out.splitlines()[1].split("\t")[-1] == "3"
    _, out, _ = run_cli(["query", "--db", archive, "--pattern", "O2:1=1G", "--nl"])
    assert json.loads(out)["pattern_ply"] == 3
    _, out, _ = run_cli(["query", "--db", archive, "--pattern", "O2:1=1G"])
    header, line = out.splitlines()
    assert header.split()[-1] == "pattern_ply" and line.split()[-1] == "3"


def test_export_takes_the_pattern_too(archive):
    code, out, _ = run_cli(["export", "--db", archive, "--pattern", "O1:23=3R"])
    assert code == 0 and out.count('[Game "universal-forces"]') == 1 and "R@O1:31" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--game", "forceball", "--pattern", "?"], "Forceball has no pattern search"),
        (["--game", "connect4", "--pattern", "8/8/8/8/8/8/8/8"], "has 8 rows, the board has 6"),
        (["--pattern", "nothing like a pattern"], "is no pattern of any supported game"),
    ],
)
def test_a_pattern_no_game_reads_is_one_clear_error(archive, args, message):
    code, out, err = run_cli(["query", "--db", archive, *args])
    assert code == 1 and out == ""
    assert err.startswith("partita: error: ") and message in err and len(err.splitlines()) == 1


def test_set_up_and_configured_games_are_replayed_from_their_start(tmp_path):
    texts = [
        '[Game "connect4"]\n[Player1 "A"]\n[Player2 "B"]\n[Result "*"]\n[SetUp "1"]\n'
        '[Position "7/7/7/7/7/3x3 o"]\n\n1... t4 2. t1 *\n',
        '[Game "universal-forces"]\n[Player1 "A"]\n[Player2 "B"]\n[Result "*"]\n'
        '[RoundLimit "10"]\n\n1. G@O1:1 B@O1:13 *\n',
    ]
    (tmp_path / "games.pgr").write_text("\n".join(texts), encoding="utf-8")
    with opened_archive(tmp_path / "games.db") as opened:
        summary = import_paths(opened, [tmp_path / "games.pgr"])
    assert summary.imported == 2 and summary.invalid == 0
    db = tmp_path / "games.db"
    assert found(db, "--pattern", "7/7/7/7/7/3x3 o") == [(1, 0)]
    assert found(db, "--pattern", "7/7/7/7/3o3/3x3") == [(1, 1)]
    assert found(db, "--pattern", "7/7/7/7/3o3/x2x3 o") == [(1, 2)]
    assert found(db, "--pattern", "O1:1=1G,O1:13=2B") == [(2, 2)]
