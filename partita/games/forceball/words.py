"""The few words Forceball's messages share: seats, maneuver types, counts."""

from __future__ import annotations

__all__ = ["plural", "seat_name", "with_article"]


def seat_name(seat: int) -> str:
    """``Player1`` for seat 0, as records name the players."""
    return f"Player{seat + 1}"


def with_article(maneuver_type: str) -> str:
    """The type with its article: "a Shot", "an Interception"."""
    return f"an {maneuver_type}" if maneuver_type == "Interception" else f"a {maneuver_type}"


def plural(count: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
