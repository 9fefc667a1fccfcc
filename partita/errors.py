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
    """A well-formed move that the rules do not allow in this position.

    Build one with :meth:`of` to get the house format (``illegal move 'r5': entry
    cell r5 is occupied``); a rules engine, which knows no token, raises it with the
    reason alone.
    """

    @classmethod
    def of(cls, token: str, reason: str, context: str | None = None) -> IllegalMoveError:
        """The error for ``token``, refused for ``reason`` (see :func:`illegal_move_message`)."""
        return cls(illegal_move_message(token, reason, context))


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


class UsageError(PartitaError):
    """The command's options do not say enough to do the work (which of several
    set-ups a position means, say): the message names the options that would."""


class ArchiveError(PartitaError):
    """The archive cannot be opened or used as asked."""


class BudgetExceeded(PartitaError):
    """The work allowed (nodes, positions or seconds) ran out before the answer.

    ``found`` says what the work found before it stopped, as data (bounds on a
    score, the moves already solved, the best move so far), and ``limit`` which
    limit stopped it (``"nodes"``, ``"time"``, ``"positions"``), so that a command
    can say which of its options buys more."""

    def __init__(
        self, message: str = "", *, found: dict | None = None, limit: str | None = None
    ) -> None:
        super().__init__(message)
        self.found = found or {}
        self.limit = limit


class InputError(PartitaError):
    """A records input cannot be read: damaged compressed data, a missing decompressor."""


# -- messages ---------------------------------------------------------------------------
#: The longest piece of input a message quotes whole; a longer one is cut with '...'.
QUOTE_LIMIT = 60


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as a message quotes it: cut to ``limit`` characters with '...'."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def quoted(token: str) -> str:
    """A token as messages quote it: in single quotes, shortened (see :func:`shorten`)."""
    return f"'{shorten(token)}'"


def illegal_move_message(token: str, reason: str, context: str | None = None) -> str:
    """The one format of an illegal move, whichever game and layer refuses it:
    ``illegal move 'r5': entry cell r5 is occupied``, or with the ply's ``context``,
    ``illegal move '+c8@c6' in turn 2 (Player1): c6 is not in your hand``."""
    where = f" in {context}" if context else ""
    return f"illegal move {quoted(token)}{where}: {reason}"
