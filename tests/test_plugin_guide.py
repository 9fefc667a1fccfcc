"""docs/plugins.md as a test: its example game works as an outside package.

The guide's files (code blocks marked ``file=PATH``) are written to a temporary
folder as the package ``partita-tictactoe``, which pip builds from the guide's own
``pyproject.toml`` and installs with ``--target`` into a folder of its own: the
subprocesses get it on ``PYTHONPATH``, so partita finds the game through its entry
point exactly as after ``pip install .``, while the test environment itself is never
changed (nothing to uninstall, nothing left behind by an interrupted run). Then the
commands of the guide's "Try it" block run, each in a fresh process, and their
results are checked against what the guide says they show (counted by hand from
the guide's records, not by partita).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, fields
from pathlib import Path

import pytest

from partita.analysis.diagrams import Board, Layout
from partita.database.schema import archive
from partita.game.notation import GameNotation
from partita.game.rules import Rules
from partita.game.solver import BookableSolver, ExactSolution, ExactSolver
from partita.game.spec import GameSpec

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "plugins.md"
FENCE = "`" * 3
FILE_BLOCK = re.compile(rf"^{FENCE}\w+ file=(\S+)\n(.*?)^{FENCE}$", re.S | re.M)
RUN_BLOCK = re.compile(rf"^{FENCE}sh run\n(.*?)^{FENCE}$", re.S | re.M)
BIN = Path(sys.executable).parent


def guide_text() -> str:
    return GUIDE.read_text(encoding="utf-8")


def guide_files() -> dict[str, str]:
    """The package's files as the guide gives them: path -> text."""
    return {path: body for path, body in FILE_BLOCK.findall(guide_text())}


def guide_commands() -> list[str]:
    blocks = RUN_BLOCK.findall(guide_text())
    assert len(blocks) == 1, "the guide has one 'sh run' block"
    return [line.strip() for line in blocks[0].splitlines() if line.strip()]


def write_package(folder: Path) -> Path:
    package = folder / "partita-tictactoe"
    for path, body in guide_files().items():
        target = package / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    return package


# -- the guide itself -------------------------------------------------------------------------


def test_the_guide_gives_every_file_of_its_layout():
    text = guide_text()
    layout = text[text.index("## The package") : text.index("## 1.")]
    listed = set(re.findall(r"[\w./]*?([\w]+\.(?:py|toml|pgr))\b", layout))
    given = {Path(path).name for path in guide_files()}
    assert listed == given
    assert "partita_tictactoe/rules.py" in guide_files()
    assert "pyproject.toml" in guide_files()


def _public(cls: type) -> set[str]:
    return {name for name in vars(cls) if not name.startswith("_")}


@pytest.mark.parametrize(
    "members",
    [
        pytest.param(_public(Rules) | {"name", "title"}, id="Rules"),
        pytest.param(_public(GameNotation) - {"rules"}, id="GameNotation"),
        pytest.param({field.name for field in fields(GameSpec)}, id="GameSpec"),
        pytest.param(_public(Board) - {"game"}, id="Board"),
        pytest.param({field.name for field in fields(Layout)} - {"notes"}, id="Layout"),
        pytest.param(_public(ExactSolution), id="ExactSolution"),
        pytest.param(_public(ExactSolver) | _public(BookableSolver), id="ExactSolver"),
        pytest.param({"SolverFactory", "table_size", "memory="}, id="SolverFactory"),
    ],
)
def test_the_guide_documents_every_member_of_the_contracts(members):
    text = guide_text()
    missing = sorted(name for name in members if f"`{name}" not in text)
    assert not missing, f"docs/plugins.md does not document {missing}"


def test_the_example_code_is_clean_for_ruff(tmp_path):
    package = write_package(tmp_path)
    ruff = [str(BIN / "ruff")] if (BIN / "ruff").exists() else [sys.executable, "-m", "ruff"]
    options = ["--isolated", "--line-length", "100", "--target-version", "py311"]
    check = subprocess.run(
        [*ruff, "check", *options, "--select", "E,F,W,I,B,UP,SIM", "."],
        cwd=package,
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    formatted = subprocess.run(
        [*ruff, "format", "--check", *options, "."], cwd=package, capture_output=True, text=True
    )
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_partita_never_names_the_example_game():
    """The game is added without a change to partita: no file of the package names it."""
    named = re.compile(r"tic-?tac-?toe", re.I)
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "partita").rglob("*")
        if path.is_file()
        and path.suffix in {".py", ".toml", ".txt", ".js", ".css", ".html", ".j2", ".c"}
        and named.search(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert offenders == []
    assert not named.search((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


# -- the package, installed, driven through partita's commands -----------------------------------------


@dataclass
class Run:
    command: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float


@dataclass
class Plugin:
    package: Path
    env: dict[str, str]
    install_seconds: float
    runs: dict[str, Run]


def _argv(command: str) -> list[str]:
    """A command of the guide, run with this interpreter's partita and Python."""
    argv = shlex.split(command)
    if argv[0] == "partita":
        script = BIN / "partita"
        return [str(script), *argv[1:]] if script.exists() else [sys.executable, "-m", *argv]
    if argv[0] == "python":
        return [sys.executable, *argv[1:]]
    raise AssertionError(f"the guide runs {argv[0]!r}, which this test does not know")


def _name(command: str) -> str:
    """``partita query ...`` -> ``query``; ``python -m pytest ...`` -> ``pytest``."""
    argv = shlex.split(command)
    return argv[2] if argv[0] == "python" else argv[1]


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> Plugin:
    folder = tmp_path_factory.mktemp("plugin-guide")
    package = write_package(folder)
    site = folder / "site"
    commands = guide_commands()
    assert commands[0] == "pip install .", "the guide installs the package first"
    began = time.perf_counter()
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-q"]
        + ["--target", str(site), str(package)],
        capture_output=True,
        text=True,
    )
    install_seconds = time.perf_counter() - began
    assert install.returncode == 0, install.stdout + install.stderr
    assert (site / "partita_tictactoe" / "rules.py").is_file()
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"PARTITA_DB", "PARTITA_DEBUG", "PYTEST_ADDOPTS", "PYTHONPATH"}
    }
    env.update(PYTHONPATH=str(site), COLUMNS="200", NO_COLOR="1")
    runs = {}
    for command in commands[1:]:
        began = time.perf_counter()
        done = subprocess.run(
            _argv(command), cwd=package, env=env, capture_output=True, text=True, timeout=300
        )
        runs[_name(command)] = Run(
            command, done.returncode, done.stdout, done.stderr, time.perf_counter() - began
        )
    return Plugin(package, env, install_seconds, runs)


def _run(plugin: Plugin, name: str, returncode: int = 0) -> Run:
    run = plugin.runs[name]
    assert run.returncode == returncode, f"{run.command}\n{run.stdout}\n{run.stderr}"
    return run


def test_the_installed_game_is_listed(plugin):
    out = _run(plugin, "games").stdout
    assert "tictactoe: Tic-tac-toe (2 sides)" in out
    assert "start: 3/3/3 x" in out
    assert "[Size] the width and height of the board (3, 4, 5, 6, 7, 8, 9)" in out
    assert "[Line] how many marks in a row win (at most Size)" in out


def test_the_conformance_suite_passes_on_the_game(plugin):
    lines = _run(plugin, "conformance").stdout.splitlines()
    # the spec once, then eight checks for each variant: {} and Size 5, Line 4
    assert lines[-1] == "tictactoe: 17 checks: 17 passed, 0 failed"
    checked = [line.split()[1:] for line in lines[:-1]]
    assert len(checked) == 17 and all(line.startswith("ok") for line in lines[:-1])
    # the board declares no regions: the regions check has nothing to hold it to,
    # and the game is played through its list of legal moves
    for name in (
        "initial",
        "random",
        "position",
        "record",
        "symmetries",
        "bad",
        "board",
        "regions",
    ):
        targets = {words[-3] for words in checked if words[0] == name}
        assert targets == {"tictactoe-2", "tictactoe-5-4-2"}, name


def test_the_package_runs_the_suite_in_its_own_tests(plugin):
    assert "17 passed" in _run(plugin, "pytest").stdout


def test_validate_reports_the_mistake_with_its_place(plugin):
    out = _run(plugin, "validate", returncode=1).stdout
    assert (
        "mistakes/taken.pgr:6:13: error: illegal move 'b2': cell b2 is taken "
        "[record 1: Ben - Cleo, ply 3, move 2]"
    ) in out
    assert out.splitlines()[-1] == "6 records, 5 valid, 1 invalid (lenient)"


def test_import_stores_the_five_games(plugin):
    assert "5 imported, 0 duplicates, 0 invalid" in _run(plugin, "import").stdout
    assert (plugin.package / "tictactoe.db").is_file()


def test_query_finds_the_position_reached_by_two_move_orders(plugin):
    out = _run(plugin, "query").stdout
    # Piped, query prints a plain table: id first, then the ply of the position and
    # where it was found (the mainline: these records have no variation) last.
    ids = re.findall(r"^(\d+)\s+tictactoe\b.*?(\d+)\s+mainline\s*$", out, re.M)
    assert ids == [("1", "4"), ("4", "4")]  # games 1 and 4, at ply 4


def test_tree_merges_the_symmetric_corner_openings(plugin):
    out = _run(plugin, "tree").stdout
    # The root's moves: the rows not indented (piped, the table is plain columns).
    rows = re.findall(r"^(\w+)\s+(\d+)\s+\d+%\s+([\d/]+)\s", out, re.M)
    corner = [row for row in rows if row[0] in {"a1", "c3"}]
    assert corner == [(corner[0][0], "3", "0/1/1")]  # games 2, 3 and 4
    assert ("b2", "1", "1/0/0") in rows
    assert len(rows) == 2
    assert "symmetric positions merged" in out


def test_report_has_the_game_its_board_and_its_section(plugin):
    _run(plugin, "report")
    html = (plugin.package / "tictactoe.html").read_text(encoding="utf-8")
    assert "Tic-tac-toe (2 sides, Size 3, Line 3)" in html
    assert "Tic-tac-toe (2 sides, Size 5, Line 4)" in html
    diagrams = re.findall(r'<svg [^>]*class="diagram".*?</svg>', html, re.S)
    assert any('fill="#fdf6e3"' in svg for svg in diagrams), "no diagram drawn by the board"
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert (
        "Tic-tac-toe: how 2 games were won 4 valid games: 2 won with 3 in a row, 1 drawn "
        "on a full board, the others unfinished. line won by x won by o "
        "row 0 1 column 0 0 diagonal 1 0"
    ) in text
    assert "Tic-tac-toe: how 1 game was won" in text


def test_the_game_is_played_on_the_web_page_through_its_list(plugin, tmp_path, monkeypatch):
    """The guide's board declares no regions: `partita serve`'s play page offers the
    game's legal moves as a list, plays one, and saves the game, with no change to
    partita."""
    import json
    import urllib.parse
    import urllib.request

    from web_server import start_server

    from partita.bulk import import_paths

    db = tmp_path / "archive.db"
    with archive(db) as opened:
        import_paths(opened, [])
    monkeypatch.setenv("PYTHONPATH", plugin.env["PYTHONPATH"])
    server = start_server(db, "--write")

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    def post(url: str, data: bytes, headers: dict) -> tuple[int, dict, str]:
        request = urllib.request.Request(url, data=data, headers=headers)
        try:
            with urllib.request.build_opener(Stay).open(request, timeout=30) as answer:
                return answer.status, dict(answer.headers), answer.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode("utf-8")

    try:
        with urllib.request.urlopen(server.url + "/play/tictactoe", timeout=30) as answer:
            form = answer.read().decode("utf-8")
        token = re.search(r'name="csrf_token" value="([0-9a-f]+)"', form).group(1)
        fields = {"csrf_token": token, "sides": "2", "seat1": "human", "seat2": "human"}
        status, headers, _ = post(
            server.url + "/play/tictactoe", urllib.parse.urlencode(fields).encode(), {}
        )
        assert status == 303
        game = server.url + headers["location"]
        with urllib.request.urlopen(game + "/state", timeout=30) as answer:
            state = json.loads(answer.read())
        assert state["clickable"] is False and "data-region" not in state["svg"]
        assert "b2" in [move["move"] for move in state["legal"]]
        assert all(move["regions"] == [] for move in state["legal"])
        json_headers = {"X-CSRF-Token": token, "Content-Type": "application/json"}
        _, _, body = post(game + "/move", json.dumps({"move": "b2"}).encode(), json_headers)
        assert [ply["move"] for ply in json.loads(body)["plies"]] == ["b2"]
        _, _, body = post(game + "/save", b"{}", json_headers)
        assert json.loads(body)["saved"] == "saved in the archive"
    finally:
        server.stop()


@pytest.fixture(scope="module")
def plugin_server(plugin):
    """`partita serve` (read-only) on the archive the guide's `import` made."""
    from web_server import start_server

    _run(plugin, "import")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", plugin.env["PYTHONPATH"])
        server = start_server(plugin.package / "tictactoe.db")
    yield server
    server.stop()


def _get(server, path: str) -> tuple[int, str, str]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(server.url + path, timeout=30) as answer:
            return answer.status, answer.headers["content-type"], answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.headers["content-type"], error.read().decode("utf-8")


def _board_label(page: str) -> str:
    import html

    found = re.search(r'class="board"[^>]*role="img" aria-label="([^"]*)"', page)
    assert found, "no board"
    return html.unescape(found.group(1))


def test_the_archived_games_are_browsed_on_the_web_pages(plugin_server):
    """The guide's games on their game pages, each under its own configuration (the
    big-board game on a 5x5 board), every move's board drawn, and the opening
    explorer two levels down, with no change to partita."""
    import json

    status, _, text = _get(plugin_server, "/api/games?game=tictactoe&sort=id")
    assert status == 200
    rows = json.loads(text)["games"]
    assert len(rows) == 5
    big = next(row for row in rows if row["event"] == "Playground cup, big board")
    for row, start in ((rows[0], "3/3/3 x"), (big, "5/5/5/5/5 x")):
        _, _, text = _get(plugin_server, f"/api/games/{row['id']}")
        game = json.loads(text)
        status, _, page = _get(plugin_server, f"/games/{row['id']}")
        assert status == 200
        assert _board_label(page) == start
        moves = re.findall(
            r'<button type="button" class="move[^"]*" data-node="(\d+)"[^>]*>([^<]+)<', page
        )
        assert [move for _, move in moves] == [
            game["nodes"][n]["move"] for n in game["mainline"][1:]
        ]
        boards = set()
        for node in game["mainline"]:
            _, _, stepped = _get(plugin_server, f"/games/{row['id']}?node={node}")
            assert _board_label(stepped) == game["nodes"][node]["position"]
            status, kind, svg = _get(plugin_server, f"/games/{row['id']}/board.svg?node={node}")
            assert status == 200 and kind.startswith("image/svg+xml")
            boards.add(svg)
        assert len(boards) == len(game["mainline"])  # each move changes the drawing
        assert _board_label(stepped) == row["final_position"]
    # the explorer: the most played set-up (Size 3), two levels down
    status, _, page = _get(plugin_server, "/explorer?game=tictactoe")
    assert status == 200 and _board_label(page) == "3/3/3 x"
    labels = ["3/3/3 x"]
    for _ in range(2):
        down = re.search(r'<a class="down" href="([^"]+)">', page)
        assert down, "no move to go down"
        status, _, page = _get(plugin_server, down.group(1).replace("&amp;", "&"))
        assert status == 200
        labels.append(_board_label(page))
    assert len(set(labels)) == 3
    status, _, page = _get(plugin_server, "/explorer?game=tictactoe&tag=Size=5&tag=Line=4")
    assert status == 200 and _board_label(page) == "5/5/5/5/5 x"
    assert "a1" in re.findall(r'<a class="down" href="[^"]+">([^<]+)<', page)


def test_a_game_steps_in_the_browser(plugin_server, page):
    """The game page in Chromium: the buttons and keys step, the board's name
    follows, a phone's width fits."""
    import json

    from web_server import no_console_errors, no_horizontal_overflow, phone

    _, _, text = _get(plugin_server, "/api/games?game=tictactoe&sort=id")
    row = json.loads(text)["games"][0]
    _, _, text = _get(plugin_server, f"/api/games/{row['id']}")
    game = json.loads(text)
    nodes, mainline = game["nodes"], game["mainline"]
    page.goto(f"{plugin_server.url}/games/{row['id']}")
    assert page.get_by_role("img", name="3/3/3 x", exact=True).get_attribute("id") == "board"
    board = page.locator("#board")
    page.get_by_role("button", name="Next move", exact=True).click()
    assert board.get_attribute("aria-label") == nodes[mainline[1]]["position"]
    page.keyboard.press("End")
    assert board.get_attribute("aria-label") == row["final_position"]
    page.get_by_role("button", name="Previous move", exact=True).click()
    assert board.get_attribute("aria-label") == nodes[mainline[-2]]["position"]
    page.get_by_role("button", name=nodes[mainline[2]]["move"], exact=True).click()
    assert board.get_attribute("aria-label") == nodes[mainline[2]]["position"]
    phone(page)
    no_horizontal_overflow(page)
    no_console_errors(page)


# -- two sizes of the guide's game in one archive: every position under its own set-up --------

#: Games beside the guide's records: two more on the 5 x 5 board with four in a row (the
#: guide's big-board game is the first of that set-up) and one with five in a row. The
#: rules' keys are the marks' bitboards, so x on a1 is the same int on every board:
#: only the set-up in the archive's key keeps the sizes apart.
SIZED_RECORDS = """[Game "tictactoe"]
[Event "Big board, second game"]
[Date "2026.05.05"]
[Player1 "Cleo"]
[Player2 "Ada"]
[Result "*"]
[Size "5"]
[Line "4"]

1. a1 a5 2. b2 e5 *

[Game "tictactoe"]
[Event "Big board, five in a row"]
[Date "2026.05.06"]
[Player1 "Ben"]
[Player2 "Cleo"]
[Result "*"]
[Size "5"]
[Line "5"]

1. a1 b1 *
"""


@pytest.fixture(scope="module")
def sized(plugin, tmp_path_factory) -> Path:
    """An archive of the guide's records (games 1 to 5; 5 is the 5 x 5 one) and
    :data:`SIZED_RECORDS` (games 6 and 7)."""
    folder = tmp_path_factory.mktemp("sized")
    (folder / "sized.pgr").write_text(SIZED_RECORDS, encoding="utf-8")
    db = folder / "sized.db"
    done = _partita(plugin, "import", str(plugin.package / "records"), str(folder), "--db", str(db))
    assert done.returncode == 0 and "7 imported" in done.stdout, done.stdout + done.stderr
    return db


def _partita(plugin: Plugin, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        _argv(shlex.join(["partita", *args])),
        cwd=plugin.package,
        env=plugin.env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _found(plugin: Plugin, db: Path, position: str, *options: str) -> list[tuple[int, int]]:
    done = _partita(plugin, "query", "--db", str(db), "--position", position, "--json", *options)
    assert done.returncode == 0, done.stderr
    import json

    return [(row["id"], row["ply"]) for row in json.loads(done.stdout)]


def test_query_position_reads_each_board_under_its_own_size(plugin, sized):
    # x on a1, o to move: on the 3 x 3 board games 2 and 4, never the 5 x 5 ones
    assert _found(plugin, sized, "3/3/x2 o", "--game", "tictactoe") == [(2, 1), (4, 1)]
    # the 5 x 5 text reads under two stored set-ups (four and five in a row)
    both = _partita(plugin, "query", "--db", str(sized), "--position", "5/5/5/5/x4 o")
    assert both.returncode == 2
    [line] = both.stderr.splitlines()
    assert "2 set-ups of tictactoe" in line
    assert "--tag Line=4" in line and "--tag Line=5" in line
    assert _found(plugin, sized, "5/5/5/5/x4 o", "--tag", "Line=4") == [(5, 1), (6, 1)]
    assert _found(plugin, sized, "5/5/5/5/x4 o", "--tag", "Line=5") == [(7, 1)]
    # the start of one set-up: its games at ply 0, not those of the other sizes
    assert _found(plugin, sized, "5/5/5/5/5 x", "--tag", "Line=4") == [(5, 0), (6, 0)]
    assert _found(plugin, sized, "3/3/3 x") == [(1, 0), (2, 0), (3, 0), (4, 0)]


def _tree_rows(out: str) -> list[tuple[str, str, str]]:
    return re.findall(r"^(\w+)\s+(\d+)\s+\d+%\s+([\d/]+)\s", out, re.M)


def test_tree_from_a_position_takes_the_set_up_its_text_reads_under(plugin, sized):
    # no --tag: the 3 x 3 text reads under the 3 x 3 set-up only
    small = _partita(plugin, "tree", "--db", str(sized), "--game", "tictactoe")
    assert small.returncode == 1 and "set up in 3 different ways" in small.stderr
    small = _partita(
        plugin, "tree", "--db", str(sized), "--game", "tictactoe", "--from", "3/3/x2 o"
    )
    assert small.returncode == 0, small.stderr
    assert sorted(row[0] for row in _tree_rows(small.stdout)) == ["b1", "b2"]  # games 4, 2
    big = _partita(
        plugin, "tree", "--db", str(sized), "--game", "tictactoe", "--from", "5/5/5/5/x4 o",
        "--tag", "Line=4",
    )  # fmt: skip
    assert big.returncode == 0, big.stderr
    assert [row[:2] for row in _tree_rows(big.stdout)] == [("a5", "2")]  # games 5 and 6


def test_novelty_compares_with_the_games_of_the_same_size(plugin, sized):
    import json

    done = _partita(plugin, "novelty", "6", "--db", str(sized), "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    # the reference is game 5 alone (the other 5 x 5 game has five in a row)
    assert found["reference_games"] == 1
    assert (found["ply"], found["move"]) == (3, "b2")
    assert [move["move"] for move in found["played"]] == ["b1"]


def test_show_draws_each_game_on_its_own_board(plugin, sized):
    def shown(game: str, ply: str, form: str) -> str:
        done = _partita(plugin, "show", game, "--db", str(sized), "--ply", ply, "--format", form)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert shown("6", "2", "position").strip() == "o4/5/5/5/x4 x"
    assert shown("2", "1", "position").strip() == "3/3/x2 o"
    assert 'viewBox="0 0 272' in shown("6", "2", "svg")  # 5 x 5 cells of 48
    assert 'viewBox="0 0 176' in shown("2", "1", "svg")


def test_the_report_viewer_draws_each_game_on_its_own_board(plugin, sized, page):
    """In Chromium: the report's viewer opens a 5 x 5 game on a 5 x 5 board and a
    3 x 3 one on a 3 x 3 board, each mark in the board's own colours."""
    from web_server import no_console_errors

    html = sized.parent / "sized.html"
    done = _partita(plugin, "report", "--db", str(sized), "-o", str(html))
    assert done.returncode == 0, done.stderr
    page.goto(html.resolve().as_uri())
    for game, width, marks in (("6", 272, 4), ("2", 176, 8), ("7", 272, 2)):
        page.locator(f'#games button.open[data-game="{game}"]').first.click()
        page.wait_for_selector(f'#viewer[data-game="{game}"]:not([hidden])')
        page.keyboard.press("End")
        board = page.locator("#viewer-board svg")
        assert board.get_attribute("viewBox").split()[2] == str(width), game
        assert page.locator("#viewer-board circle.piece").count() == marks, game
        fills = page.evaluate(
            "[...document.querySelectorAll('#viewer-board circle.piece')]"
            ".map(c => c.getAttribute('fill'))"
        )
        assert set(fills) == {"#d7263d", "#f5c400"}, game  # x red, o yellow: no grey
    no_console_errors(page)


def test_the_web_pages_read_a_position_under_its_set_up(plugin_server):
    """The explorer opens a 5 x 5 position on the 5 x 5 games without being told the
    set-up (its text reads under that one only), and the position API counts the
    games of the set-up it names, not those of the other size whose keys are equal."""
    import json
    import urllib.parse

    big = urllib.parse.quote("5/5/5/5/x4 o")
    status, _, page = _get(plugin_server, f"/explorer?game=tictactoe&position={big}")
    assert status == 200 and _board_label(page) == "5/5/5/5/x4 o"
    assert "a5" in re.findall(r'<a class="down" href="[^"]+">([^<]+)<', page)
    small = urllib.parse.quote("3/3/x2 o")
    status, _, text = _get(plugin_server, f"/api/positions?game=tictactoe&position={small}")
    assert status == 200 and json.loads(text)["games"] == 2  # games 2 and 4
    query = f"game=tictactoe&tag=Size=5&tag=Line=4&position={big}"
    status, _, text = _get(plugin_server, f"/api/positions?{query}")
    assert status == 200 and json.loads(text)["games"] == 1  # the big-board game
