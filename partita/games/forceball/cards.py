"""Forceball cards and decks as pure values (no I/O), and the deck rules.

The rulebook does not list its cards, so a deck is data: a name, a description and
its cards, each with one maneuver type (or one attack and one defence type on a combo
card), a force, a speed requirement and an optional special symbol. Files are read by
:mod:`partita.games.forceball.decks`; this module only holds the values and checks them, so
the rules engine can depend on it without touching the file system.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from partita.errors import PartitaError


class DeckError(PartitaError, ValueError):
    """A Forceball deck (file or value) that breaks the deck rules."""


ATTACK_TYPES = ("Shot", "Pass", "Dribble")
DEFENCE_TYPES = ("Interception", "Block", "Tackle")
MANEUVER_TYPES = ATTACK_TYPES + DEFENCE_TYPES
SPECIALS = ("referee", "lucky-shot", "goalie", "stress")
SPEEDS = (1, 2, 3)
MIN_DECK_SIZE = 15

#: A card id as written in a deck file: a letter, then letters, digits or ``_``.
BASE_ID_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,15}")
#: A card id as written in records: a base id, or ``<base>.<n>`` for copy n of count.
CARD_ID_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,15}(?:\.[1-9][0-9]{0,2})?")


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card: ``types`` holds one type, or (attack, defence) on a combo."""

    id: str
    types: tuple[str, ...]
    force: int
    speed: int
    special: str | None = None

    @property
    def is_combo(self) -> bool:
        return len(self.types) == 2

    @property
    def attack_type(self) -> str | None:
        """The attack type among the card's types, if any."""
        return next((t for t in self.types if t in ATTACK_TYPES), None)

    @property
    def defence_type(self) -> str | None:
        """The defence type among the card's types, if any."""
        return next((t for t in self.types if t in DEFENCE_TYPES), None)

    def has_type(self, maneuver_type: str) -> bool:
        return maneuver_type in self.types

    def validate(self) -> None:
        """Raise :class:`DeckError` naming this card if it breaks a card rule."""
        reason = card_problem(self)
        if reason is not None:
            raise DeckError(f"card {self.id!r}: {reason}")


def card_problem(card: Card) -> str | None:
    """Why ``card`` is not a valid card (in a player's words), or None if it is."""
    if not isinstance(card.id, str) or not CARD_ID_PATTERN.fullmatch(card.id):
        return (
            "id must be a letter followed by up to 15 letters, digits or '_' "
            "(and '.<n>' for a copy)"
        )
    types = card.types
    if not isinstance(types, tuple) or not 1 <= len(types) <= 2:
        return "types must be one maneuver type, or one attack and one defence type"
    for maneuver_type in types:
        if maneuver_type not in MANEUVER_TYPES:
            return f"type {maneuver_type!r} is not one of {', '.join(MANEUVER_TYPES)}"
    if len(types) == 2 and (types[0] not in ATTACK_TYPES or types[1] not in DEFENCE_TYPES):
        return f"combo types {list(types)} must be one attack type then one defence type"
    if isinstance(card.force, bool) or not isinstance(card.force, int) or card.force < 0:
        return f"force {card.force!r} is not a whole number from 0"
    if isinstance(card.speed, bool) or card.speed not in SPEEDS:
        return f"speed {card.speed!r} is not 1, 2 or 3"
    if card.special is not None and card.special not in SPECIALS:
        return f"special {card.special!r} is not one of {', '.join(SPECIALS)}"
    return None


@dataclass(frozen=True, slots=True)
class Deck:
    """A named deck; ``cards`` has every copy expanded, in file order."""

    name: str
    description: str
    cards: tuple[Card, ...]
    _index: dict[str, Card] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {card.id: card for card in self.cards})

    def card(self, card_id: str) -> Card:
        """The card with this id; ValueError (not KeyError) when there is none."""
        try:
            return self._index[card_id]
        except (KeyError, TypeError):
            raise ValueError(f"no card {card_id!r} in deck {self.name!r}") from None

    def __contains__(self, card_id: object) -> bool:
        try:
            return card_id in self._index
        except TypeError:
            return False

    def __len__(self) -> int:
        return len(self.cards)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(card.id for card in self.cards)

    def validate(self) -> Deck:
        """Check the deck rules; raise :class:`DeckError` naming the card and reason.

        Returns the deck itself so ``Deck(...).validate()`` can be used inline.
        """
        if not isinstance(self.name, str) or not self.name.strip():
            raise DeckError("deck name must be a non-empty string")
        if not isinstance(self.description, str):
            raise DeckError(f"deck {self.name!r}: description must be a string")
        seen: set[str] = set()
        for card in self.cards:
            card.validate()
            if card.id in seen:
                raise DeckError(f"card {card.id!r}: id is used by another card")
            seen.add(card.id)
        if len(self.cards) < MIN_DECK_SIZE:
            raise DeckError(
                f"deck {self.name!r}: {len(self.cards)} cards, a deck needs at least "
                f"{MIN_DECK_SIZE}"
            )
        return self


def expand_copies(card: Card, count: int | None) -> tuple[Card, ...]:
    """A deck file's card with its ``count``: itself when there is no count, else the
    copies ``<id>.1`` .. ``<id>.<count>`` (so ``count = 1`` gives ``<id>.1``)."""
    if count is None:
        return (card,)
    return tuple(
        Card(f"{card.id}.{n}", card.types, card.force, card.speed, card.special)
        for n in range(1, count + 1)
    )
