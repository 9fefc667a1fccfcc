"""How a game is set up in a record: its number of sides and its game-specific tags.

Positions of differently set-up games never meet (a three-sided board is not a
two-sided one; a league or a layout changes the rules), so opening trees and
report sections are built per :class:`Configuration`. A configuration holds the
value of every tag the game declares (:attr:`Rules.tags`) but cosmetic ones (the
sides' colours), the tag's default filled in where a record leaves it out, so
``[Variant "basic"]`` and no ``Variant`` tag are one configuration.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from partita.errors import PartitaError, SetupError
from partita.game.notation import GameNotation

__all__ = [
    "Configuration",
    "PairError",
    "configure_game",
    "format_pairs",
    "parse_pairs",
    "varying_settings",
]


@dataclass(frozen=True, slots=True)
class Configuration:
    """One set-up of a game: ``sides`` and ``settings``, the game's own tags as
    ``(name, value)`` pairs in the order the game declares them (``""``: absent
    and without a default)."""

    game: str
    sides: int
    settings: tuple[tuple[str, str], ...] = ()
    #: The value an absent tag stands for, per setting (not part of the identity).
    defaults: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    #: The sides of the game's default set-up (its ``min_sides``; not part of the identity).
    default_sides: int = field(default=2, compare=False)

    @classmethod
    def of(
        cls, notation: GameNotation[Any, Any], sides: int, tags: Mapping[str, str]
    ) -> Configuration:
        """The configuration of a record of ``notation`` with these tags."""
        specs = [spec for spec in notation.rules.tags if not spec.cosmetic]
        settings = tuple((spec.name, tags.get(spec.name) or spec.default or "") for spec in specs)
        defaults = tuple((spec.name, spec.default or "") for spec in specs)
        return cls(notation.name, sides, settings, defaults, notation.rules.min_sides)

    @classmethod
    def default(cls, notation: GameNotation[Any, Any]) -> Configuration:
        """The game's default set-up: its fewest sides, every tag at its default."""
        return cls.of(notation, notation.rules.min_sides, {})

    @property
    def is_default(self) -> bool:
        """Whether this is the game's default set-up (the fewest sides, no tag
        away from its default): the set-up of a record that names no setting."""
        return self.sides == self.default_sides and not self.tags()

    def tags(self) -> dict[str, str]:
        """The settings as record tags: those that differ from their default (a
        record would leave the others out; some games refuse a tag that does not
        apply, such as a little-league tag in another league)."""
        defaults = dict(self.defaults)
        return {
            name: value for name, value in self.settings if value and value != defaults.get(name)
        }

    def configure(self, notation: GameNotation[Any, Any]) -> GameNotation[Any, Any]:
        """``notation`` configured for this set-up."""
        return notation.configure(self.tags())

    @property
    def label(self) -> str:
        """A short description: ``3 sides, RoundLimit 20`` (defaults left out)."""
        return self.describe()

    def describe(self, names: Collection[str] = ()) -> str:
        """Like :attr:`label`, with the settings in ``names`` shown even at their
        default (those that tell this configuration from others in a list)."""
        shown = self.tags()
        parts = [f"{self.sides} sides"]
        parts.extend(
            f"{name} {value}"
            for name, value in self.settings
            if value and (name in shown or name in names)
        )
        return ", ".join(parts)

    def tag_filters(self) -> list[str]:
        """``NAME=VALUE`` tag filters (see :func:`partita.database.query_games`)
        that, with ``sides``, select exactly this configuration."""
        return format_pairs(dict(self.settings))

    def options(self, names: Collection[str] | None = None) -> str:
        """The same as command-line options, quoted for a shell; ``names``: only
        the tags named (those that tell this configuration from the others)."""
        chosen = [
            f"{name}={value}" for name, value in self.settings if names is None or name in names
        ]
        return " ".join([f"--sides {self.sides}", *(f"--tag {shlex.quote(t)}" for t in chosen)])


def varying_settings(configurations: Sequence[Configuration]) -> set[str]:
    """The settings whose values differ between ``configurations``: those a list of
    them must show to tell them apart."""
    if not configurations:
        return set()
    first = dict(configurations[0].settings)
    return {
        name
        for other in configurations[1:]
        for name, value in other.settings
        if first.get(name) != value
    }


# -- NAME=VALUE settings ------------------------------------------------------------------------


class PairError(PartitaError, ValueError):
    """A ``NAME=VALUE`` text that is not one (no ``=``, no name) or a name given twice."""


def parse_pairs(texts: Iterable[str]) -> dict[str, str]:
    """``NAME=VALUE`` texts (``--tag League=pro``, a URL's ``tag=``) as a dict, in
    their order. Name and value are stripped; the value may hold ``=`` and may be
    empty (``NAME=``). :class:`PairError` for a text without ``=`` or without a
    name, or a name given twice. :func:`format_pairs` writes them back."""
    found: dict[str, str] = {}
    for text in texts:
        name, equals, value = text.partition("=")
        name = name.strip()
        if not equals or not name:
            raise PairError(f"'{text}' is not of the form NAME=VALUE")
        if name in found:
            raise PairError(f"{name} is given twice")
        found[name] = value.strip()
    return found


def format_pairs(pairs: Mapping[str, str]) -> list[str]:
    """``pairs`` as ``NAME=VALUE`` texts, the inverse of :func:`parse_pairs`."""
    return [f"{name}={value}" for name, value in pairs.items()]


def configure_game(
    game: str | GameNotation[Any, Any],
    tags: Mapping[str, str] | None = None,
    sides: int | None = None,
    *,
    settings_only: bool = False,
) -> tuple[GameNotation[Any, Any], Configuration]:
    """``game`` (a notation, or a ``Game`` tag looked up in the registry) configured
    by ``tags``, and its :class:`Configuration` for ``sides`` (default: the game's
    fewest). Raises ``UnknownGameError`` for a game no plugin registers, ``TagError``
    for a value the game refuses (and, with ``settings_only``, for a tag that is
    none of its settings, as a set-up names no other tags) and ``SetupError`` for
    a side count the game is not played by."""
    if isinstance(game, str):
        from partita.game.registry import get_game

        game = get_game(game)
    tags = dict(tags or {})
    configured = game.configure(tags)
    if settings_only:
        from partita.errors import TagError

        known = [spec.name for spec in game.rules.tags if not spec.cosmetic]
        for name in tags:
            if name not in known:
                listed = ", ".join(known) or "none"
                raise TagError(f"{game.name} has no set-up tag {name} (its tags: {listed})", name)
    rules = configured.rules
    count = rules.min_sides if sides is None else sides
    if not rules.min_sides <= count <= rules.max_sides:
        allowed = (
            str(rules.min_sides)
            if rules.min_sides == rules.max_sides
            else f"{rules.min_sides} to {rules.max_sides}"
        )
        raise SetupError(f"{game.name} is played by {allowed} sides, not {count}")
    return configured, Configuration.of(game, count, tags)
