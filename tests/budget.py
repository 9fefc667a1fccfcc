"""How many examples a property test tries: its full count under the Hypothesis
profile ``thorough`` (``pytest --hypothesis-profile=thorough``, registered in
``tests/conftest.py``), a smaller one in the default run, which has to stay within
a few minutes on a two-core machine. The assertions are the same in both runs."""

from __future__ import annotations

from hypothesis import settings

FAST = "fast"
THOROUGH = "thorough"


def thorough() -> bool:
    """Whether this run asked for the full counts (the profile, or one derived from it)."""
    return settings.get_current_profile_name().startswith(THOROUGH)


def examples(full: int, fast: int) -> int:
    """``full`` in a thorough run, else ``fast``."""
    return full if thorough() else fast
