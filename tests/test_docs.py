"""The docs as tests: the README's commands, the CLI reference, the docs pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer.main

from partita.cli.app import _register_commands, app, main

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

    rows = query_games(readme_archive)
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
