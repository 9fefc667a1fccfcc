"""Grammars built on first use, so that importing a game costs no pyparsing.

pyparsing's import and the building of a grammar's elements are a good part of the
command line's start-up (``partita games`` and a small ``partita import`` need no
grammar at all: the import reads canonical moves through a dictionary, and the PGR
reader through :mod:`partita.notation.scanner`). :func:`lazy_grammar` stands for
the element ``build()`` returns, building it (and importing pyparsing) the first
time any of its attributes is asked for: ``POSITION.parse_string(text)`` works as
before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["lazy_grammar"]

_Element = TypeVar("_Element")


class _LazyGrammar:
    """The element ``build()`` returns, built the first time it is used."""

    __slots__ = ("_build", "_element")

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._element: Any = None

    def built(self) -> Any:
        element = self._element
        if element is None:
            element = self._element = self._build()
        return element

    def __getattr__(self, name: str) -> Any:
        return getattr(self.built(), name)

    def __repr__(self) -> str:
        return repr(self.built())


def lazy_grammar(build: Callable[[], _Element]) -> _Element:
    """The element ``build()`` makes, built (with its pyparsing import) on first use.

    Use it for a module's public grammars; compose elements inside ``build``
    (pyparsing's operators want real elements, not this stand-in)."""
    return cast("_Element", _LazyGrammar(build))
