"""Data the tests read from ``../shared`` beside the clone (as on the developers'
machines and in CI): without it, the tests that need it are skipped, naming what
is missing, instead of failing."""

from __future__ import annotations

from pathlib import Path

import pytest


def _shared() -> Path:
    """``shared`` beside the clone, or beside a folder above it (a worktree)."""
    for parent in Path(__file__).resolve().parents[1:]:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared"
    return Path(__file__).resolve().parents[2] / "shared"


SHARED = _shared()

#: Pascal Pons' published Connect Four test positions (see its README.md).
PONS = SHARED / "data" / "connect4-pons"


def pons_folder() -> Path:
    """The folder of the published Connect Four positions, or skip the test."""
    if not PONS.is_dir():
        pytest.skip(
            f"needs the published Connect Four test positions in {PONS} "
            "(the ../shared folder beside the clone is missing)"
        )
    return PONS
