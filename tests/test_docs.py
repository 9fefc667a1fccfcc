"""The docs as tests: the README's commands, the CLI reference, the docs pages."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from partita.cli.app import _register_commands, app

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
