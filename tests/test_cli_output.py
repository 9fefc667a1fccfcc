"""What the commands print, as a demanding user reads it: tables that keep every
value piped or at 80 columns, counts with separators and the right plural, colour
on a terminal only, tokens never split across lines, a file that holds no record
stored as nothing.

In-process through the entry point (standard output is then a pipe), and on a
pseudo-terminal of 80 columns (tests/terminal.py) where a terminal matters.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_runner import CliResult, run_cli
from terminal import Terminal

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def partita(*args: str, env: dict | None = None) -> CliResult:
    return run_cli(args, env=env)


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("output") / "games.db"
    code, _, _ = partita("import", str(EXAMPLES), "--exclude", "invalid", "--db", str(db))
    assert code == 0
    return db


def terminal_run(*args: str, columns: int = 80, env: dict | None = None) -> tuple[int, str]:
    """``partita ARGS`` on a pseudo-terminal ``columns`` wide: exit code, and what it
    drew (line ends as LF)."""
    term = Terminal(*args, columns=columns, env=env)
    try:
        code = term.close(timeout=120)
    finally:
        term.kill()
    return code, term.output.decode("utf-8", "replace").replace("\r\n", "\n")


# -- tables ----------------------------------------------------------------------------


def test_tree_piped_keeps_every_value_and_shows_every_level(archive):
    code, out, _ = partita(
        "tree", "--game", "forza4x4", "--depth", "6", "--symmetry", "--db", str(archive)
    )
    assert code == 0
    assert "…" not in out
    tree = json.loads(
        partita(
            "tree", "--game", "forza4x4", "--depth", "6", "--symmetry", "--db", str(archive),
            "--json",
        ).stdout
    )  # fmt: skip
    edges = tree["edges"]
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("move"))
    assert header.split()[:6] == ["move", "games", "share", "W/D/L", "score", "transp."]
    rows = lines[lines.index(header) + 1 :]
    # One row per move of the tree (a transposition is not walked twice), indented
    # by its depth: the sixth ply is there, six levels in.
    depths = [(len(row) - len(row.lstrip(" "))) // 2 + 1 for row in rows if row.startswith(" ")]
    assert max(depths) == 6
    assert sum(1 for row in rows if re.match(r"\S+ +\d+ +\d+% ", row.lstrip())) <= len(edges)
    # Every W/D/L and date whole.
    first = edges[0]
    wdl = f"{first['won'][first['mover']]}/{first['drawn'][first['mover']]}/"
    assert wdl in out
    assert first["last_date"] in out


def test_tree_flat_gives_each_move_its_line_from_the_root(archive):
    code, out, _ = partita(
        "tree", "--game", "forza4x4", "--depth", "3", "--flat", "--db", str(archive)
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split()[0] == "line"
    lines_of_moves = [re.split(r"\s{2,}", line)[0] for line in lines[2:] if line[:1].strip()]
    assert any(len(line.split()) == 3 for line in lines_of_moves)
    assert all(line == line.lstrip() for line in lines[2:])


def test_tree_at_80_columns_fits_and_cuts_nothing(archive):
    code, out = terminal_run(
        "tree", "--game", "forza4x4", "--depth", "2", "--symmetry", "--db", str(archive)
    )
    assert code == 0, out
    assert "…" not in out
    shown = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out)
    table = [line for line in shown.splitlines() if "%" in line or "W/D/L" in line]
    assert len(table) > 10
    assert all(len(line) <= 80 for line in table)
    assert "W/D/L" in out and "games" in out
    # Moves, results and dates whole on their line.
    assert re.search(r"\d+/\d+/\d+ .*\d{4}\.[\d?]{2}\.[\d?]{2}", shown)


def test_novelty_and_decks_piped_keep_every_value(archive):
    code, out, _ = partita("novelty", "5", "--db", str(archive))
    assert code == 0
    assert "…" not in out and "┃" not in out
    assert "played before" in out.splitlines()[3]
    code, out, _ = partita("decks")
    assert code == 0
    assert "every special symbol." in out  # the whole description, on its row
    assert "…" not in out and "│" not in out
    code, out, _ = partita("decks", "example")
    assert code == 0 and "…" not in out and "referee" in out


# -- counts ------------------------------------------------------------------------------


def test_counts_have_the_right_plural():
    code, out, _ = partita("validate", str(EXAMPLES / "forza4x4" / "rulebook-example.pgr"))
    assert code == 0
    assert "1 record, 1 valid, 0 invalid" in out


def test_import_counts_one_record_in_one_file(tmp_path):
    db = tmp_path / "one.db"
    code, out, _ = partita("import", str(EXAMPLES / "forza4x4" / "rulebook-example.pgr"),
                           "--db", str(db))  # fmt: skip
    assert code == 0
    assert "1 imported, 0 duplicates, 0 invalid (1 record in 1 file)" in out


def test_the_count_helper_separates_thousands():
    from partita.cli.display import count

    assert count(56_528_678, "node") == "56,528,678 nodes"
    assert count(1, "game") == "1 game"
    assert count(2, "ply", "plies") == "2 plies"


def test_novelty_says_reached_by_1_game(archive):
    found = [
        game_id
        for game_id in range(1, 30)
        if json.loads(partita("novelty", str(game_id), "--db", str(archive), "--json").stdout).get(
            "reached"
        )
        == 1
    ]
    assert found
    code, out, _ = partita("novelty", str(found[0]), "--db", str(archive))
    assert code == 0
    assert "was reached by 1 game\n" in out or "was reached by 1 game " in out


# -- colour ------------------------------------------------------------------------------


def test_error_label_in_colour_on_a_terminal_only(tmp_path):
    missing = str(tmp_path / "none.db")
    code, out = terminal_run("query", "--db", missing)
    assert code == 1
    assert "\x1b[1;31merror:\x1b[0m" in out
    code, out = terminal_run("query", "--db", missing, env={"NO_COLOR": "1"})
    assert code == 1
    assert "partita: error:" in out and "\x1b[" not in out
    code, _, err = partita("query", "--db", missing)
    assert code == 1 and err.startswith("partita: error:")


def test_warning_label_in_colour_on_a_terminal(tmp_path):
    code, out = terminal_run("validate", str(ROOT / "README.md"))
    assert code == 1
    assert "\x1b[1;33mwarning:\x1b[0m" in out


# -- a file that holds no record ----------------------------------------------------------


def test_importing_a_file_with_no_record_stores_nothing_and_warns(tmp_path):
    db = tmp_path / "junk.db"
    code, out, err = partita("import", str(ROOT / "README.md"), "--db", str(db))
    assert code == 1
    assert "0 imported" in out
    assert "warning:" in err and "README.md holds no records" in err
    code, out, _ = partita("query", "--db", str(db), "--json")
    assert code == 0 and json.loads(out) == []


def test_validate_of_prose_warns_instead_of_inventing_a_record():
    code, out, err = partita("validate", str(ROOT / "README.md"))
    assert code == 1
    assert "missing" not in out  # no "required tag Game is missing" about prose
    assert "holds no records" in err


def test_a_record_without_tags_is_still_a_record_and_strict_keeps_its_meaning(tmp_path):
    movetext = tmp_path / "bare.pgr"
    movetext.write_text("1. b3 b4 *\n", encoding="utf-8")
    code, out, _ = partita("validate", str(movetext))
    assert code == 1
    assert "required tag Game is missing" in out
    db = tmp_path / "bare.db"
    code, out, _ = partita("import", "--strict", str(movetext), "--db", str(db))
    assert code == 1 and "1 refused (strict)" in out


# -- game ids, completion, help --------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["query", "--game", "forza"],
        ["play", "forza"],
        ["tree", "--game", "forza"],
        ["export", "--game", "forza"],
        ["solve", "--game", "forza", "--moves", "t4"],
        ["simulate", "forza", "--games", "1"],
        ["conformance", "forza"],
    ],
)
def test_a_game_id_typo_gets_a_suggestion_and_exit_2(args, tmp_path):
    code, out, err = partita(*args, "--db", str(tmp_path / "x.db")) if args[0] in (
        "query", "tree", "export"
    ) else partita(*args)  # fmt: skip
    assert code == 2, err
    assert "did you mean forza4x4?" in err
    assert err.count("\n") == 1 and not out


def complete(words: str) -> list[str]:
    """What shell completion (bash) offers after ``words``."""
    env = {
        "_PARTITA_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
    }
    code, out, _ = partita(env=env)
    assert code == 0
    return out.split()


def test_shell_completion_of_game_ids_archive_ids_and_agents(archive):
    assert complete("partita query --game fo") == ["forceball", "forza4x4"]
    assert complete("partita play conn") == ["connect4"]
    assert "2=mcts:2000" in complete("partita play forza4x4 --seat 2=m")
    assert complete("partita simulate connect4 --agents random,gr") == ["random,greedy"]
    ids = complete(f"partita show --db {archive} 8")
    assert ids == ["8", *(str(n) for n in range(80, 90))]


def test_help_lists_the_commands_by_task():
    code, out, _ = partita("--help")
    assert code == 0
    sections = re.findall(r"^(\w[\w -]*):$", out, flags=re.M)
    assert sections[:5] == ["Options", "Records", "Archive", "Analysis", "Play and self-play"]
    records = out[out.index("Records:") : out.index("Archive:")]
    assert records.split()[1::1][0] == "validate" and "show" in records
    archive_part = out[out.index("Archive:") : out.index("Analysis:")]
    assert "import" in archive_part and "query" in archive_part and "tree" not in archive_part


# -- show ------------------------------------------------------------------------------------


def test_show_json_is_format_json():
    rulebook = str(EXAMPLES / "forza4x4" / "rulebook-example.pgr")
    code, out, _ = partita("show", rulebook, "--json")
    assert code == 0
    assert json.loads(out) == json.loads(partita("show", rulebook, "--format", "json").stdout)
    code, _, err = partita("show", rulebook, "--json", "--format", "svg")
    assert code == 2 and "choose one" in err


def test_show_of_a_folder_says_it_is_one():
    code, out, err = partita("show", str(EXAMPLES / "forza4x4"))
    assert code == 2
    assert "is a folder" in err and "no such file" not in err
    assert "casual-evening.pgr" in err  # a file to give instead


def test_migrate_json(archive):
    code, out, _ = partita("migrate", "--db", str(archive), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["from"] == data["to"] and data["archive"] == str(archive)


# -- moves and boards --------------------------------------------------------------------


def test_show_never_splits_a_token_across_lines():
    """A Forceball turn is one long token (`deck:c17,c1,...`): the move lines break
    between tokens only, a move number stays with its move, and the lines read back
    as the record's moves."""
    pro = EXAMPLES / "forceball" / "pro.pgr"
    code, out, _ = partita("show", str(pro))
    assert code == 0
    moves = json.loads(partita("show", str(pro), "--json").stdout)["moves"]
    lines = out.split("\n\n")[1].splitlines()
    assert len(lines) > 5
    tokens = " ".join(lines).split()
    assert [token for token in tokens if not re.fullmatch(r"\d+\.(\.\.)?", token)][:-1] == moves
    assert all(not re.search(r"\d+\.$", line) for line in lines)  # no number left alone
    for line in lines:  # each within 80 columns, unless one token is longer
        assert len(line) <= 80 or " " not in line.split(". ", 1)[-1]


def test_show_marks_the_last_move():
    rulebook = EXAMPLES / "forza4x4" / "rulebook-example.pgr"
    code, out, _ = partita("show", str(rulebook), "--ply", "3")
    assert code == 0
    assert "after ply 3, last move 2. r5:" in out
    code, out, _ = partita("show", str(rulebook), "--ply", "0")
    assert "after ply 0:" in out
    code, svg, _ = partita("show", str(rulebook), "--ply", "3", "--format", "svg")
    assert code == 0 and 'class="last"' in svg


def test_play_draws_the_board_once_per_turn_marks_the_last_move_and_confirms_save(tmp_path):
    target = tmp_path / "game.pgr"
    term = Terminal("play", "connect4", "--seat", "2=random", "--seed", "3", "-o", str(target))
    try:
        term.expect("1. Player1 (Human)> ")
        term.line("t4")
        turn = term.expect("2. Player1 (Human)> ")
        # One board after the move and the agent's reply, with the reply named.
        assert turn.count("x to move") + turn.count("o to move") == 1, turn
        assert re.search(r"last move: 1\.\.\. t\d \(Player2 \(random\)\)", turn), turn
        # ... and marked on the board: the reply's piece in upper case, alone.
        rows = [line for line in turn.splitlines() if re.match(r"\s*\d\s+[.xoXO]", line)]
        assert len(rows) == 6 and "".join(rows).count("O") == 1 and "X" not in "".join(rows)
        assert "upper case: the last move's piece" in turn
        term.line("save")
        saved = term.expect("plies)")
        assert f"saved to {target} (2 plies)" in saved
        assert term.close() == 0
    finally:
        term.kill()
    assert target.is_file()


def board_cell(board: str, ring: str, section: int) -> str:
    """What the Universal Forces text board shows at ``ring:section``, read as a
    user reads it: the ring's row, under the section's number in the row of numbers
    above it."""
    for block in board.split("\n\n"):
        lines = block.splitlines()
        for number, line in enumerate(lines):
            if line.split()[:1] != [ring]:
                continue
            header = next(lines[k] for k in range(number, -1, -1) if lines[k].startswith("    "))
            labels = {m.group(): m.start() for m in re.finditer(r"\S+", header)}
            label = f"C{section}" if ring == "C" else str(section)
            if label in labels:
                at = labels[label]
                return line[at:].split()[0] if len(line) > at else ""
    raise AssertionError(f"{ring}:{section} is not on the board")


def test_the_universal_forces_board_has_coordinates_and_forces_where_they_stand():
    record = EXAMPLES / "universal-forces" / "round-limit.pgr"
    code, out, _ = partita("show", str(record), "--ply", "60")
    assert code == 0
    board = out.split("last move", 1)[1].split("\n", 1)[1].split("forces:")[0]
    # forces: O3:16 1G O3:25 3G O3:28 1Y2Y M1:10 2B M3:10 3B (the line under it)
    assert board_cell(board, "O3", 16) == "1G"
    assert board_cell(board, "O3", 25) == "3G"
    assert board_cell(board, "O3", 28) == "2Yx"  # Player2's wind pins Player1's
    assert board_cell(board, "M1", 10) == "2B"
    assert board_cell(board, "M3", 10) == "3B"
    assert board_cell(board, "O1", 27) == "y"  # an empty entry section of wind
    assert board_cell(board, "O2", 5) == "." and board_cell(board, "I3", 8) == "."
    assert board_cell(board, "C", 3) == "b"
    rows = [line for line in board.splitlines() if line[:1].isalpha()]
    for ring in ("O1", "O2", "O3", "M1", "M2", "M3", "I1", "I2", "I3", "C"):
        assert sum(row.split()[0] == ring for row in rows) == 2  # in both halves
    assert all(len(line) <= 80 for line in out.splitlines() if "deck" not in line)


def test_play_lists_the_legal_moves_without_splitting_one(tmp_path):
    """Universal Forces has dozens of entries at the start, `G@O1:1`...: `moves`
    wraps them between moves at the terminal's 80 columns."""
    term = Terminal("play", "universal-forces", "-o", str(tmp_path / "uf.pgr"), columns=80)
    try:
        term.expect("1. Player1 (Human)> ")
        term.line("moves")
        listed = term.expect("1. Player1 (Human)> ")
        term.send("\x04")
        term.close()
    finally:
        term.kill()
    lines = [line for line in listed.replace("\r", "").splitlines() if "@O1:" in line]
    assert len(lines) > 1
    assert all(len(line) <= 80 for line in lines)
    tokens = " ".join(lines).split()
    assert all(re.fullmatch(r"[GYBR]@O1:\d+", token) for token in tokens if token != "moves")


def test_solve_of_an_unknown_game_is_a_usage_error():
    code, _, err = partita("solve", "--game", "chess", "8/8")
    assert code == 2 and "unknown game 'chess'" in err and err.count("\n") == 1
