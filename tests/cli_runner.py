"""The `partita` command run in-process, for the CLI tests.

:func:`run_cli` calls :func:`partita.cli.main`, the console script's entry point and
the CLI's one error boundary, with stdin, stdout, stderr, the environment and the
working directory swapped for the call: what a user sees from a real process (exit
code, stdout, stderr), without starting an interpreter per command. A few tests keep
real processes where a process is what they test (``python -m partita`` end to end,
Ctrl-C and kill).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from typer.testing import CliRunner

from partita.cli import main

ROOT = Path(__file__).resolve().parent.parent

#: Variables of the developer's shell that would change what a command does.
_CLEARED = ("PARTITA_DB", "PARTITA_DEBUG", "PARTITA_DECKS", "PARTITA_OPENINGS")


class CliResult(NamedTuple):
    """What one run of the command left: its exit code, stdout and stderr."""

    code: int
    stdout: str
    stderr: str


def run_cli(
    args: list[str] | tuple[str, ...],
    input: str | None = None,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> CliResult:
    """Run ``partita ARGS`` in this process, from ``cwd`` (default: the repository),
    with ``env`` added to the environment (PARTITA_DB, PARTITA_DEBUG, PARTITA_DECKS
    and PARTITA_OPENINGS cleared first, tables 80 columns wide) and ``input`` on stdin.

    Fails the test if an exception other than ``SystemExit`` leaves :func:`main` or
    a traceback reaches stderr: neither may reach a user.
    """
    overrides: dict[str, str | None] = dict.fromkeys(_CLEARED)
    overrides["COLUMNS"] = "80"
    overrides.update(env or {})
    runner = CliRunner()
    with (
        contextlib.chdir(cwd or ROOT),
        runner.isolation(input=input, env=overrides) as (stdout, stderr, _),
    ):
        code = 0
        try:
            main([str(arg) for arg in args])
        except SystemExit as stop:
            code = _exit_code(stop.code)
        except Exception as error:
            raise AssertionError(
                f"partita {' '.join(map(str, args))}: {type(error).__name__} left main(): {error}"
            ) from error
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        result = CliResult(
            code,
            stdout.getvalue().decode("utf-8", "replace"),
            stderr.getvalue().decode("utf-8", "replace"),
        )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def _exit_code(code: object) -> int:
    """The process exit status ``sys.exit(code)`` would give."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    return 1  # a message: Python prints it to stderr and exits 1


def partita_job(*args: str) -> subprocess.Popen[str]:
    """``python -m partita ARGS`` started as a terminal starts a job: its own process
    group (so ``os.killpg(job.pid, SIGINT)`` is a Ctrl-C its workers get too), text
    pipes for stdout and stderr, the developer's settings (``_CLEARED``) left out."""
    environment = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    return subprocess.Popen(
        [sys.executable, "-m", "partita", *args],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
