"""The one family of errors partita raises.

Every error of the project derives from :class:`PartitaError`; domain errors also
derive from :class:`ValueError` where a caller would expect one. Messages follow one
house format: lowercase, naming the token and its context
(``illegal move 'r5': entry cell r5 is occupied``). This module imports nothing of
the package, so every layer (the rules engines included) may use it.
"""

from __future__ import annotations


class PartitaError(Exception):
    """Base class of every error raised by partita."""


class NotationError(PartitaError, ValueError):
    """A token or a position is malformed: the syntax is wrong, before any meaning."""


class IllegalMoveError(PartitaError, ValueError):
    """A well-formed move that the rules do not allow in this position."""


class AmbiguousMoveError(PartitaError, ValueError):
    """A well-formed move that matches more than one legal move."""


class SetupError(PartitaError, ValueError):
    """A setup position that cannot occur (counts, side to move, already decided)."""


class UnknownGameError(PartitaError, KeyError):
    """A `Game` tag naming no registered game."""

    def __str__(self) -> str:  # KeyError quotes its argument; we want the message
        return str(self.args[0]) if self.args else "unknown game"


class TagError(PartitaError, ValueError):
    """A known tag with a value the game does not accept.

    ``tag`` optionally names the tag, so that a record's problem can point at its line.
    """

    def __init__(self, message: str = "", tag: str | None = None) -> None:
        super().__init__(message)
        self.tag = tag


class ArchiveError(PartitaError):
    """The archive cannot be opened or used as asked."""


class BudgetExceeded(PartitaError):
    """The work allowed (nodes, positions or seconds) ran out before the answer."""


class InputError(PartitaError):
    """A records input cannot be read: damaged compressed data, a missing decompressor."""
