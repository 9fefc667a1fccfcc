"""The code stays ruff-clean (lint and format), as configured in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = ["partita", "tests", "benchmarks", "tools"]


def ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *TREES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_ruff_check_is_clean():
    done = ruff("check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean():
    done = ruff("format", "--check")
    assert done.returncode == 0, done.stdout + done.stderr
