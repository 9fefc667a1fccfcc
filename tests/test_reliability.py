"""Reliability: what a campaign of damaged records, damaged archives, concurrent
writers and full disks found, one section per finding, each test reproducing it.

The campaign itself (mutated records, export and re-import) is
``tests/test_campaign.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def partita(*args: str, timeout: float = 60, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``partita ARGS`` in a process of its own (a hang is a timeout, not a stuck run)."""
    return subprocess.run(
        [sys.executable, "-m", "partita", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )


# -- linear time on blanks after a problem -------------------------------------------------------
def test_trailing_blanks_after_a_problem_cost_linear_time(tmp_path):
    """An illegal move, then 1,000,100 spaces on the last line: the scanner's
    leading white space was matched again from each of its places (20,000 spaces
    took 46 s, this never finished); now about a second, start-up included."""
    path = tmp_path / "blanks.pgr"
    path.write_text(
        '[Game "connect4"]\n[Result "*"]\n\n1. t4 t4 2. t9 t1' + " " * 1_000_100 + "\n",
        encoding="utf-8",
    )
    done = partita("validate", str(path), timeout=30)
    assert done.returncode == 1
    assert "no move 't9'" in done.stdout and "Traceback" not in done.stderr
