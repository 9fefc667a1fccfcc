"""The docs as tests: the README's commands, the CLI reference, the docs pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer.main

from partita.cli.app import _register_commands, app, main
from partita.database.schema import archive

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.*?)\n```", text, flags=re.S)


def test_readme_opens_with_the_two_setup_commands():
    blocks = readme_commands()
    main_job, tests = blocks[0], blocks[1]
    assert main_job.startswith("python3 -m venv .venv") and "partita import examples" in main_job
    assert tests.startswith("python3 -m venv .venv") and "pytest" in tests


def test_ci_runs_exactly_the_readme_test_command():
    tests_command = readme_commands()[1]
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests_command in ci_lines


def command_names() -> list[str]:
    _register_commands()
    group = typer.main.get_command(app)
    return sorted(group.commands)


def test_every_command_has_help_and_is_documented():
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    _register_commands()
    group = typer.main.get_command(app)
    assert {"validate", "import", "query", "show", "export", "games"} <= set(group.commands)
    help_flags = group.context_settings["help_option_names"]
    assert "-h" in help_flags
    for flag in (*help_flags, *(opt for param in group.params for opt in param.opts)):
        assert f"`{flag}" in reference, f"partita {flag} is not in docs/cli.md"
    for name, command in group.commands.items():
        assert (command.help or "").strip(), f"command {name} has no help text"
        assert f"## partita {name}" in reference, f"command {name} is not in docs/cli.md"
        for param in command.params:
            if param.param_type_name == "option":
                assert param.help, f"option {param.name} of {name} has no help"
                for flag in param.opts:
                    if flag.startswith("--"):
                        assert flag in reference, f"{name} {flag} is not in docs/cli.md"


def test_docs_pages_exist():
    for page in ("record-format.md", "forza4x4.md", "cli.md", "archive.md"):
        assert (ROOT / "docs" / page).is_file(), page


def readme_partita_commands(block: str) -> list[list[str]]:
    """The `partita ...` commands of a README block, as argument lists (comments
    and the `.venv/bin/` prefix left out)."""
    import shlex

    commands = []
    for line in block.splitlines():
        for part in line.split("&&"):
            words = shlex.split(part, comments=True)
            if words and words[0].endswith("partita"):
                commands.append(words[1:])
    return commands


@pytest.fixture(scope="module")
def readme_archive(tmp_path_factory) -> Path:
    """The archive the README's first command makes (its import, into a temp file)."""
    [first_import] = [
        args for args in readme_partita_commands(readme_commands()[0]) if args[0] == "import"
    ]
    db = tmp_path_factory.mktemp("readme") / "partita.db"
    with pytest.raises(SystemExit) as done:
        main([*first_import, "--db", str(db)])
    assert done.value.code == 0
    return db


def test_the_readme_first_command_imports_only_valid_examples(readme_archive):
    from partita.database import query_games

    with archive(readme_archive, readonly=True) as opened:
        rows = query_games(opened)
    assert len(rows) >= 80
    assert all(row["status"] == "valid" for row in rows)
    games = {row["game"] for row in rows}
    assert games == {"forza4x4", "connect4", "universal-forces", "circular-reasoning", "forceball"}


def test_the_readme_queries_find_what_they_say(readme_archive, capsys):
    import json

    block = next(block for block in readme_commands() if "partita query --player" in block)
    queries = [args for args in readme_partita_commands(block) if args[0] == "query"]
    assert len(queries) >= 3
    for args in queries:
        with pytest.raises(SystemExit) as done:
            main([*args, "--db", str(readme_archive), "--json"])
        out = capsys.readouterr().out
        assert done.value.code == 0, args
        assert json.loads(out), f"the README's `partita {' '.join(args)}` finds no game"
    shows = [args for args in readme_partita_commands(block) if args[:2] == ["show", "5"]]
    for args in shows:
        with pytest.raises(SystemExit) as done:
            main([*args, "--db", str(readme_archive)])
        assert done.value.code == 0, args


def test_the_readme_serve_command_starts_and_answers(readme_archive):
    """The README's `partita serve` runs forever: it is started on a free port (its
    `--open` left out: no browser here), asked for its games page, and stopped."""
    import urllib.request

    from web_server import start_server

    serves = [
        args
        for block in readme_commands()
        for args in readme_partita_commands(block)
        if args[0] == "serve"
    ]
    assert serves, "the README shows `partita serve`"
    for args in serves:
        options = [word for word in args[1:] if word != "--open"]
        server = start_server(readme_archive, *options)
        try:
            with urllib.request.urlopen(server.url + "/", timeout=10) as answer:
                assert answer.status == 200
                assert "<h1>Games</h1>" in answer.read().decode("utf-8")
        finally:
            server.stop()


# -- every command of the README's "What it does" and of docs/cli.md, run as written ----

#: The time a README line takes, noted at its end: ``[~25 s]``, ``[~14 s a game ...]``.
TIME_MARK = re.compile(r"\[~(\d+) (s|min|h)\b(?P<rest>[^\]]*)\]")
#: The lines expected to fail: a validation of a broken record (its problems shown).
EXPECTED_EXIT = {"partita validate examples/invalid/illegal-move.pgr": 1}
#: Games a line marked per game (``[~N s a game]``: self-play) plays in the tests.
GAMES_IN_TESTS = "2"


def what_it_does() -> list[tuple[str, str]]:
    """The README's "What it does" lines: (command, comment), in order."""
    block = next(block for block in readme_commands() if block.startswith("partita validate"))
    lines = []
    for line in block.splitlines():
        command, _, comment = line.partition("  #")
        lines.append((" ".join(command.split()), comment.strip()))
    return lines


def runnable(command: str, comment: str, *, quick: bool = False) -> str:
    """The command as the tests run it: as written, but a line timed per game
    (self-play) plays :data:`GAMES_IN_TESTS` games, and ``quick``ly with random
    agents (the lines after it only need its archive)."""
    mark = TIME_MARK.search(comment)
    if mark is not None and "a game" in mark.group("rest"):
        command = re.sub(r"--games \d+", f"--games {GAMES_IN_TESTS}", command)
        if quick:
            command = re.sub(r'--agents ("[^"]*"|\S+)', "--agents random", command)
    return command


def run_line(command: str, folder: Path) -> tuple[int, str]:
    """One shell line in ``folder``: in this process through the entry point when it
    is a plain `partita` command (with ``> FILE`` written by the test), else by bash
    with this environment's `partita` first on the PATH. (exit code, stderr)."""
    import os
    import shlex
    import subprocess
    import sys

    from cli_runner import run_cli

    words = shlex.split(command)
    if words[0] == "partita" and not {"|", "&&", ";"} & set(words):
        target = None
        if ">" in words:
            words, target = words[: words.index(">")], words[words.index(">") + 1]
        # As a user runs it: with every engine the install has (the other tests keep
        # the gravity solver to partita's own search).
        engine = os.environ.pop("PARTITA_GRAVITY_ENGINE", None)
        try:
            code, out, err = run_cli(words[1:], cwd=folder, input="")
        finally:
            if engine is not None:
                os.environ["PARTITA_GRAVITY_ENGINE"] = engine
        if target is not None:
            (folder / target).write_text(out, encoding="utf-8")
        return code, err
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PARTITA_DB", "PARTITA_DEBUG", "PARTITA_GRAVITY_ENGINE")
    }
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
        stdin=subprocess.DEVNULL, timeout=600,
    )  # fmt: skip
    return done.returncode, done.stderr


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A folder like the repository's for the README's lines: the shipped examples
    (a link), nothing else; the archive and every output are written there."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    return tmp_path


def test_every_line_of_what_it_does_runs_as_written(checkout):
    """Every line, in order, on the shipped examples, with the exit code it should
    have; the lines the README marks as long run in the slow test below (a
    self-play line plays a few games between random agents here, so that the
    lines after it have its archive)."""
    failed = []
    for command, comment in what_it_does():
        mark = TIME_MARK.search(comment)
        if mark is not None and "a game" not in mark.group("rest"):
            continue
        code, err = run_line(runnable(command, comment, quick=True), checkout)
        if code != EXPECTED_EXIT.get(command, 0) or "Traceback" in err:
            failed.append(f"{command}: exit {code}: {err.strip()[-300:]}")
    assert not failed, "\n".join(failed)
    assert (checkout / "board.svg").read_text(encoding="utf-8").startswith("<svg")
    assert (checkout / "game.pgr").is_file() and (checkout / "connect4.pgr").is_file()


def test_every_long_line_of_what_it_does_is_timed():
    """A line that names a file the README has not made, or runs long unmarked,
    is what the fast test catches; this one checks the marks read."""
    marked = [command for command, comment in what_it_does() if TIME_MARK.search(comment)]
    assert {command.split()[1] for command in marked} >= {"report", "simulate", "book"}


@pytest.mark.slow
def test_the_long_lines_of_what_it_does_run_as_written(checkout):
    """The lines marked with their time, after the import they read (a self-play
    line with :data:`GAMES_IN_TESTS` games: hours as written)."""
    lines = what_it_does()
    [importing] = [command for command, _ in lines if command.startswith("partita import ex")]
    assert run_line(importing, checkout)[0] == 0
    failed = []
    for command, comment in lines:
        if TIME_MARK.search(comment):
            code, err = run_line(runnable(command, comment), checkout)
            if code != 0 or "Traceback" in err:
                failed.append(f"{command}: exit {code}: {err.strip()[-300:]}")
    assert not failed, "\n".join(failed)


def test_the_cli_reference_s_examples_run_as_written(checkout):
    """The shell examples of docs/cli.md (```sh blocks) run in order."""
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", reference, flags=re.S)
    assert blocks
    for block in blocks:
        for line in block.splitlines():
            command = line.partition("  #")[0].strip()
            if command:
                code, err = run_line(command, checkout)
                assert code == 0 and "Traceback" not in err, f"{command}: {err}"


# -- docs/cli.md against the commands themselves ------------------------------------------


def _cli_commands() -> dict[str, list]:
    """Every command of `partita` (a group's subcommands under its name): its options,
    each as the list of its spellings (``-o``, ``--output``; ``--no-symmetry``)."""
    _register_commands()
    found: dict[str, list] = {}

    def walk(group, top: str | None) -> None:
        for name, command in group.commands.items():
            if hasattr(command, "commands"):  # a group: `tag set`, `tag unset`
                walk(command, top or name)
                continue
            options = found.setdefault(top or name, [])
            for parameter in command.params:
                spellings = [*parameter.opts, *getattr(parameter, "secondary_opts", [])]
                flags = [spelling for spelling in spellings if spelling.startswith("-")]
                if flags and "--help" not in flags:
                    options.append(flags)

    walk(typer.main.get_command(app), None)
    return found


def test_the_cli_reference_documents_every_command_and_option():
    """docs/cli.md has a section per command; each option of a command is named in
    its section (or in the page's common part: the filters, --db, --json), and a
    section's synopsis names no option its command does not have."""
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    common = reference[: reference.index("## partita ")]
    sections = {
        match.group(1): match.group(2)
        for match in re.finditer(r"^## partita (\S+)\n(.*?)(?=^## |\Z)", reference, re.S | re.M)
    }
    commands = _cli_commands()
    assert set(commands) == set(sections), "commands and sections differ"
    missing = [
        f"{name} {flags[-1]}"
        for name, options in commands.items()
        for flags in options
        if not any(
            re.search(re.escape(flag) + r"(?![\w-])", sections[name] + common) for flag in flags
        )
    ]
    assert not missing, f"options docs/cli.md does not name: {missing}"
    unknown = []
    for name, section in sections.items():
        synopsis = re.search(r"```\n(.*?)```", section, re.S)
        assert synopsis, f"no synopsis for partita {name}"
        known = {flag for flags in commands[name] for flag in flags}
        for flag in set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", synopsis.group(1))):
            if flag not in known and flag != "--help":
                unknown.append(f"{name} {flag}")
    assert not unknown, f"options docs/cli.md's synopses name that do not exist: {unknown}"
