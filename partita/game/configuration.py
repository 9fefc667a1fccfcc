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
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from partita.game.notation import GameNotation

__all__ = ["Configuration", "varying_settings"]


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
        return [f"{name}={value}" for name, value in self.settings]

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
