"""Forceball deck files (TOML) and the registry of known decks.

A deck file holds ``name``, ``description`` and one ``[[card]]`` table per card
(``id``, ``types``, ``force``, ``speed``, optional ``special`` and ``count``); the
format and its checks are documented in ``docs/forceball-decks.md``. The loader
rejects a malformed file with the file, the card (index and id) and the reason; an
unknown key is a problem (a typo, not a feature).

Known decks: the decks shipped in :mod:`partita.games.forceball.decks`, then every ``*.toml`` in the
directories listed in ``$PARTITA_DECKS`` (``os.pathsep``-separated; an entry may also
name one file). A record's ``[Deck "…"]`` tag is resolved by :func:`get_deck`.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from partita.errors import TagError
from partita.games.forceball.cards import (
    ATTACK_TYPES,
    BASE_ID_PATTERN,
    DEFENCE_TYPES,
    MANEUVER_TYPES,
    MIN_DECK_SIZE,
    SPECIALS,
    Card,
    Deck,
    DeckError,
    card_problem,
    expand_copies,
)

DECKS_ENV = "PARTITA_DECKS"
#: The folder of shipped deck files, package data of :mod:`partita.games.forceball`.
SHIPPED_FOLDER = "shipped_decks"
DECK_KEYS = ("name", "description", "card")
CARD_KEYS = ("id", "types", "force", "speed", "special", "count")
REQUIRED_CARD_KEYS = ("id", "types", "force", "speed")
MAX_COUNT = 99

_CARD_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*card[ \t]*\]\]", re.M)
_TOML_PLACE = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


class KnownDeck(NamedTuple):
    """One entry of :func:`known_decks`: where a usable deck comes from."""

    name: str
    description: str
    cards: int
    source: str  # "shipped" or the path of the user's file


# ---------------------------------------------------------------------------
# Reading one file


def load_deck(path: str | os.PathLike[str]) -> Deck:
    """Read and check one deck file; :class:`DeckError` names the problem and place."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DeckError(f"{path}: cannot read the deck file ({error})") from None
    return parse_deck(text, str(path))


def parse_deck(text: str, source: str = "<deck>") -> Deck:
    """The deck in TOML ``text``; ``source`` names the file in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        place = _TOML_PLACE.search(message)
        if place:
            where = f"{source}:{place.group(1)}:{place.group(2)}"
            message = message[: place.start()]
        else:
            where = source
            message = message.replace(" (at end of document)", " (at the end of the file)")
        raise DeckError(f"{where}: invalid TOML: {message[:1].lower()}{message[1:]}") from None
    return _deck_from_data(data, source, _card_lines(text))


def _card_lines(text: str) -> list[int]:
    """The line of each ``[[card]]`` header, to point at a card (1-based)."""
    return [text.count("\n", 0, match.start()) + 1 for match in _CARD_HEADER.finditer(text)]


def _deck_from_data(data: dict[str, Any], source: str, card_lines: list[int]) -> Deck:
    def fail(reason: str) -> DeckError:
        return DeckError(f"{source}: {reason}")

    for key in data:
        if key not in DECK_KEYS:
            raise fail(_unknown_key(key, DECK_KEYS, "the deck"))
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail("the deck needs a 'name' (a non-empty string)")
    if name != name.strip() or any(ord(char) < 32 or char == '"' for char in name):
        raise fail(f"deck name {name!r} must not have outer spaces, quotes or control characters")
    description = data.get("description")
    if not isinstance(description, str):
        raise fail("the deck needs a 'description' (a string)")
    tables = data.get("card")
    if not isinstance(tables, list) or not all(isinstance(table, dict) for table in tables):
        raise fail("the deck needs its cards as [[card]] tables")

    if len(card_lines) != len(tables):
        card_lines = []  # cards written another way (inline tables): no line numbers
    cards: list[Card] = []
    first_use: dict[str, int] = {}
    for index, table in enumerate(tables, start=1):
        line = f":{card_lines[index - 1]}" if card_lines else ""
        raw_id = table.get("id")
        label = f"card {index} {raw_id!r}" if isinstance(raw_id, str) else f"card {index}"
        try:
            card, count = _card_from_table(table)
        except ValueError as error:
            raise DeckError(f"{source}{line}: {label}: {error}") from None
        if card.id in first_use:
            raise DeckError(
                f"{source}{line}: {label}: id {card.id!r} is already used by card "
                f"{first_use[card.id]}"
            )
        first_use[card.id] = index
        cards.extend(expand_copies(card, count))

    # Copy ids (c17.2) cannot collide with file ids (no '.' allowed there), so ids are
    # unique once the file ids are; the deck check below makes sure of it all the same.
    if len(cards) < MIN_DECK_SIZE:
        raise fail(f"the deck has {len(cards)} cards, a deck needs at least {MIN_DECK_SIZE}")
    try:
        return Deck(name, description, tuple(cards)).validate()
    except DeckError as error:
        raise fail(str(error)) from None


def _card_from_table(table: dict[str, Any]) -> tuple[Card, int | None]:
    """One card of a file and its ``count`` (None when absent); ValueError: why not."""
    for key in table:
        if key not in CARD_KEYS:
            raise ValueError(_unknown_key(key, CARD_KEYS, "a card"))
    for key in REQUIRED_CARD_KEYS:
        if key not in table:
            raise ValueError(f"the card has no {key!r}")
    card_id = table["id"]
    if not isinstance(card_id, str) or not BASE_ID_PATTERN.fullmatch(card_id):
        raise ValueError(
            f"id {card_id!r} must be a letter followed by up to 15 letters, digits or '_'"
        )
    types = _types(table["types"])
    force, speed = table["force"], table["speed"]
    if not _whole(force) or force < 0:
        raise ValueError(f"force {_show(force)} is not a whole number from 0")
    if not _whole(speed) or speed not in (1, 2, 3):
        raise ValueError(f"speed {_show(speed)} is not 1, 2 or 3")
    special = table.get("special")
    if special is not None and special not in SPECIALS:
        raise ValueError(
            f"special {_show(special)} is not one of {', '.join(SPECIALS)}"
            + _did_you_mean(special, SPECIALS)
        )
    count = table.get("count")
    if count is not None and (not _whole(count) or not 1 <= count <= MAX_COUNT):
        raise ValueError(f"count {_show(count)} is not a whole number from 1 to {MAX_COUNT}")
    card = Card(card_id, types, force, speed, special)
    reason = card_problem(card)
    if reason is not None:  # the checks above should have said it first
        raise ValueError(reason)
    return card, count


def _types(value: Any) -> tuple[str, ...]:
    """The card's types, a combo card's put in (attack, defence) order."""
    if not isinstance(value, list) or not value:
        raise ValueError(
            f"types {_show(value)} must be a list of one maneuver type, or of one attack "
            'and one defence type (["Shot"], ["Shot", "Tackle"])'
        )
    for maneuver_type in value:
        if maneuver_type not in MANEUVER_TYPES:
            raise ValueError(
                f"type {_show(maneuver_type)} is not one of {', '.join(MANEUVER_TYPES)}"
                + _did_you_mean(maneuver_type, MANEUVER_TYPES)
            )
    if len(value) == 1:
        return (value[0],)
    attacks = [t for t in value if t in ATTACK_TYPES]
    defences = [t for t in value if t in DEFENCE_TYPES]
    if len(value) != 2 or len(attacks) != 1 or len(defences) != 1:
        raise ValueError(
            f"types {_show(value)}: a combo card has exactly one attack type "
            f"({', '.join(ATTACK_TYPES)}) and one defence type ({', '.join(DEFENCE_TYPES)})"
        )
    return (attacks[0], defences[0])


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _show(value: Any) -> str:
    """A file value as the user wrote it (TOML-ish: strings quoted, lists bracketed)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _unknown_key(key: str, known: tuple[str, ...], owner: str) -> str:
    return f"unknown key {key!r} in {owner} (known: {', '.join(known)})" + _did_you_mean(key, known)


def _did_you_mean(value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        return ""
    folded = {choice.lower(): choice for choice in choices}
    match = folded.get(value.lower()) or next(
        iter(difflib.get_close_matches(value, choices, n=1, cutoff=0.75)), None
    )
    return f"; did you mean {match!r}?" if match else ""


# ---------------------------------------------------------------------------
# Writing a deck back as a file


def deck_as_dict(deck: Deck) -> dict[str, Any]:
    """The deck as plain data (JSON): name, description and every card, copies expanded."""
    return {
        "name": deck.name,
        "description": deck.description,
        "cards": [
            {
                "id": card.id,
                "types": list(card.types),
                "force": card.force,
                "speed": card.speed,
                "special": card.special,
            }
            for card in deck.cards
        ],
    }


def format_deck(deck: Deck) -> str:
    """The deck as a TOML deck file; :func:`parse_deck` reads it back equal.

    Runs of copies ``<id>.1`` .. ``<id>.<n>`` of one card become one table with
    ``count = n``.
    """
    lines = [f"name = {_toml_string(deck.name)}"]
    lines.append(f"description = {_toml_string(deck.description)}")
    for card, count in _grouped(deck.cards):
        base = card.id.rpartition(".")[0] if count is not None else card.id
        lines += ["", "[[card]]", f"id = {_toml_string(base)}"]
        lines.append("types = [" + ", ".join(_toml_string(t) for t in card.types) + "]")
        lines.append(f"force = {card.force}")
        lines.append(f"speed = {card.speed}")
        if card.special is not None:
            lines.append(f"special = {_toml_string(card.special)}")
        if count is not None:
            lines.append(f"count = {count}")
    return "\n".join(lines) + "\n"


def _grouped(cards: tuple[Card, ...]) -> Iterator[tuple[Card, int | None]]:
    """(card, count) per file table: count is None for a card without copies."""
    index = 0
    while index < len(cards):
        card = cards[index]
        base, dot, number = card.id.rpartition(".")
        if not dot or number != "1":
            yield card, None
            index += 1
            continue
        count = 1
        while index + count < len(cards):
            other = cards[index + count]
            if other.id != f"{base}.{count + 1}" or _attributes(other) != _attributes(card):
                break
            count += 1
        yield card, count
        index += count


def _attributes(card: Card) -> tuple[object, ...]:
    return (card.types, card.force, card.speed, card.special)


def _toml_string(text: str) -> str:
    # A JSON string is a TOML basic string, except that TOML also escapes DEL.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


# ---------------------------------------------------------------------------
# The registry of known decks


def shipped_deck_files() -> list[Path]:
    """The deck files that come with partita (``shipped_decks/`` beside this module)."""
    folder = resources.files("partita.games.forceball").joinpath(SHIPPED_FOLDER)
    return sorted(
        Path(str(entry))
        for entry in folder.iterdir()
        if entry.name.endswith(".toml") and entry.is_file()
    )


def user_deck_files() -> list[Path]:
    """Every ``*.toml`` in the ``$PARTITA_DECKS`` directories (or the files it names)."""
    files: list[Path] = []
    for entry in os.environ.get(DECKS_ENV, "").split(os.pathsep):
        if not entry.strip():
            continue
        place = Path(entry).expanduser()
        if place.is_dir():
            files.extend(sorted(place.glob("*.toml")))
        elif place.is_file():
            files.append(place)
    return files


def _load_cached(path: Path) -> Deck:
    """:func:`load_deck`, remembered per (file, modification time, size)."""
    try:
        stat = path.stat()
    except OSError as error:
        raise DeckError(f"{path}: cannot read the deck file ({error})") from None
    found = _load_version(str(path), stat.st_mtime_ns, stat.st_size)
    if isinstance(found, DeckError):
        raise found
    return found


@cache
def _load_version(path: str, mtime_ns: int, size: int) -> Deck | DeckError:
    """One version of a deck file, or why it is no deck (remembered too)."""
    try:
        return load_deck(Path(path))
    except DeckError as error:
        return error


class DeckProblem(NamedTuple):
    """A deck file that cannot be used, and why."""

    path: Path
    error: DeckError


def scan_decks() -> tuple[list[tuple[Deck, str]], list[DeckProblem]]:
    """Every usable deck with its source, and the files that cannot be used.

    A name is taken by the first deck that has it, shipped decks first, then the user
    directories in ``$PARTITA_DECKS`` order; a later deck of the same name is a problem.
    """
    usable: list[tuple[Deck, str]] = []
    problems: list[DeckProblem] = []
    owners: dict[str, str] = {}
    sources = [(path, "shipped") for path in shipped_deck_files()]
    sources += [(path, str(path)) for path in user_deck_files()]
    for path, source in sources:
        try:
            deck = _load_cached(path)
        except DeckError as error:
            problems.append(DeckProblem(path, error))
            continue
        if deck.name in owners:
            message = f"{path}: deck name {deck.name!r} is already taken by {owners[deck.name]}"
            problems.append(DeckProblem(path, DeckError(message)))
            continue
        owners[deck.name] = f"the shipped {path.name}" if source == "shipped" else str(path)
        usable.append((deck, source))
    return usable, problems


def known_decks() -> list[KnownDeck]:
    """(name, description, number of cards, source) of every usable deck."""
    usable, _ = scan_decks()
    return [
        KnownDeck(deck.name, deck.description, len(deck.cards), source) for deck, source in usable
    ]


def get_deck(name: str) -> Deck:
    """The deck a ``[Deck "…"]`` tag names: shipped decks first, then user decks.

    Raises :class:`TagError` (the tag's value is not usable) naming the known decks,
    or the problem of a file that declares this name but cannot be used.
    """
    usable, problems = scan_decks()
    for deck, _source in usable:
        if deck.name == name:
            return deck
    for problem in problems:
        if _declared_name(problem.path) == name:
            raise TagError(f"deck {name!r} cannot be used: {problem.error}", "Deck")
    known = ", ".join(deck.name for deck, _ in usable) or "none"
    raise TagError(
        f"unknown deck {name!r} (known: {known}; add your own with ${DECKS_ENV})", "Deck"
    )


def _declared_name(path: Path) -> str | None:
    """The ``name`` a deck file declares, if it can be read that far."""
    try:
        name = tomllib.loads(path.read_text(encoding="utf-8")).get("name")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return name if isinstance(name, str) else None
