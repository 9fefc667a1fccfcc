"""(filled in below)"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute

routes: list[BaseRoute] = []


def shutdown_jobs(app: Any) -> None:
    """Stop the analysis workers (nothing started yet)."""
