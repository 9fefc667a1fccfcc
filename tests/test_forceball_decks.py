"""Forceball decks: card values, the deck file loader, the registry and `partita decks`.

Expected messages and compositions are written by hand from the spec's deck rules
(docs/forceball-decks.md), never taken from the loader's own output.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest
from budget import examples
from cli_runner import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.errors import PartitaError, TagError
from partita.games.forceball.cards import (
    ATTACK_TYPES,
    DEFENCE_TYPES,
    MANEUVER_TYPES,
    SPECIALS,
    Card,
    Deck,
    DeckError,
)
from partita.games.forceball.decks import (
    DECKS_ENV,
    format_deck,
    get_deck,
    known_decks,
    load_deck,
    parse_deck,
    scan_decks,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_FILE = ROOT / "partita" / "games" / "forceball" / "shipped_decks" / "example.toml"

# Fifteen plain cards: the smallest valid deck (written out by hand).
BASE_CARDS = "".join(
    f'\n[[card]]\nid = "b{n}"\ntypes = ["{kind}"]\nforce = {n % 5}\nspeed = {n % 3 + 1}\n'
    for n, kind in zip(range(1, 16), itertools.cycle(MANEUVER_TYPES), strict=False)
)
HEADER = 'name = "tiny"\ndescription = "fifteen plain cards"\n'


def deck_text(*extra_cards: str, header: str = HEADER) -> str:
    return header + BASE_CARDS + "".join(f"\n[[card]]\n{card}\n" for card in extra_cards)


# ---------------------------------------------------------------------------
# Card and Deck values


def test_single_type_card():
    card = Card("c1", ("Pass",), 3, 2)
    assert not card.is_combo
    assert card.attack_type == "Pass"
    assert card.defence_type is None
    assert card.has_type("Pass") and not card.has_type("Shot")
    assert card.special is None


def test_combo_card_has_both_sides():
    card = Card("c39", ("Shot", "Tackle"), 5, 3, "referee")
    assert card.is_combo
    assert card.attack_type == "Shot"
    assert card.defence_type == "Tackle"
    assert card.has_type("Shot") and card.has_type("Tackle") and not card.has_type("Block")


def test_defence_only_card_has_no_attack_type():
    card = Card("i1", ("Interception",), 4, 1)
    assert card.attack_type is None and card.defence_type == "Interception"


def test_type_constants():
    assert ATTACK_TYPES == ("Shot", "Pass", "Dribble")
    assert DEFENCE_TYPES == ("Interception", "Block", "Tackle")
    assert MANEUVER_TYPES == ATTACK_TYPES + DEFENCE_TYPES
    assert SPECIALS == ("referee", "lucky-shot", "goalie", "stress")


def small_deck(count: int = 15) -> Deck:
    return Deck("small", "test", tuple(Card(f"x{n}", ("Shot",), 1, 1) for n in range(count)))


def test_deck_lookup_and_membership():
    deck = small_deck()
    assert deck.card("x3") == Card("x3", ("Shot",), 1, 1)
    assert "x3" in deck and "x99" not in deck and 3 not in deck and ["x"] not in deck
    assert len(deck) == 15


def test_deck_lookup_of_a_missing_card_is_a_value_error():
    with pytest.raises(ValueError, match=r"^no card 'x99' in deck 'small'$") as caught:
        small_deck().card("x99")
    assert not isinstance(caught.value, KeyError)


def test_decks_are_hashable_values():
    assert small_deck() == small_deck() and hash(small_deck()) == hash(small_deck())
    assert small_deck() != small_deck(16)


@pytest.mark.parametrize(
    ("card", "message"),
    [
        (Card("c17", ("Shot",), 3, 4), "card 'c17': speed 4 is not 1, 2 or 3"),
        (Card("c17", ("Shot",), 3, 0), "card 'c17': speed 0 is not 1, 2 or 3"),
        (Card("c17", ("Shot",), -1, 1), "card 'c17': force -1 is not a whole number from 0"),
        (Card("c17", ("Shot",), 1.5, 1), "card 'c17': force 1.5 is not a whole number from 0"),
        (Card("c17", ("Shot",), True, 1), "card 'c17': force True is not a whole number from 0"),
        (Card("c17", ("Kick",), 1, 1), "card 'c17': type 'Kick' is not one of Shot, Pass"),
        (Card("c17", ("Shot", "Pass"), 1, 1), "card 'c17': combo types ['Shot', 'Pass'] must"),
        (Card("c17", ("Tackle", "Shot"), 1, 1), "card 'c17': combo types ['Tackle', 'Shot']"),
        (Card("c17", (), 1, 1), "card 'c17': types must be one maneuver type"),
        (Card("c17", ("Shot",), 1, 1, "foul"), "card 'c17': special 'foul' is not one of"),
        (Card("17", ("Shot",), 1, 1), "card '17': id must be a letter"),
        (Card("c 1", ("Shot",), 1, 1), "card 'c 1': id must be a letter"),
    ],
)
def test_deck_validate_names_the_card_and_the_reason(card, message):
    deck = Deck("d", "", small_deck().cards + (card,))
    with pytest.raises(DeckError) as caught:
        deck.validate()
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, PartitaError) and isinstance(caught.value, ValueError)


def test_deck_validate_needs_fifteen_cards_and_unique_ids():
    assert small_deck(15).validate() == small_deck(15)
    with pytest.raises(DeckError, match=r"^deck 'small': 14 cards, a deck needs at least 15$"):
        small_deck(14).validate()
    doubled = Deck("d", "", small_deck().cards + (Card("x3", ("Pass",), 1, 1),))
    with pytest.raises(DeckError, match=r"^card 'x3': id is used by another card$"):
        doubled.validate()


def test_copy_ids_are_valid_card_ids():
    Deck("d", "", small_deck().cards + (Card("c17.2", ("Shot",), 1, 1),)).validate()


# ---------------------------------------------------------------------------
# The shipped example deck


@pytest.fixture(scope="module")
def example() -> Deck:
    return load_deck(EXAMPLE_FILE)


def test_example_deck_loads_and_is_named_as_an_example(example):
    assert example.name == "example"
    assert "not public" in example.description
    assert get_deck("example") == example
    assert 50 <= len(example.cards) <= 60


def test_example_deck_has_every_type_speed_and_special(example):
    for maneuver_type in MANEUVER_TYPES:
        single = [c for c in example.cards if c.types == (maneuver_type,)]
        assert len(single) >= 5, maneuver_type
        # every type at every speed, so each can be played early and late
        assert {c.speed for c in single} == {1, 2, 3}, maneuver_type
    assert {c.speed for c in example.cards} == {1, 2, 3}
    for special in SPECIALS:
        assert any(c.special == special for c in example.cards), special
    assert any(c.force == 0 for c in example.cards)


def test_example_deck_has_every_combo_pairing(example):
    pairs = {c.types for c in example.cards if c.is_combo}
    assert pairs == set(itertools.product(ATTACK_TYPES, DEFENCE_TYPES))


def test_example_deck_proportions_suit_the_rules(example):
    cards = example.cards
    referees = sum(c.special == "referee" for c in cards)
    # "in half of the cases the referee doesn't see the foul"
    assert 0.4 <= referees / len(cards) <= 0.6
    # Stress matters but does not stall: a few per period
    assert 4 <= sum(c.special == "stress" for c in cards) <= 8
    # enough Shots to score and Interceptions to take the ball
    assert sum(c.has_type("Shot") for c in cards) >= 8
    assert sum(c.has_type("Interception") for c in cards) >= 8


def test_example_deck_copies_are_numbered(example):
    assert example.card("c3.1") == Card("c3.1", ("Shot",), 4, 2, "referee")
    assert example.card("c3.2") == Card("c3.2", ("Shot",), 4, 2, "referee")
    assert "c3" not in example
    ids = example.ids
    assert ids.index("c3.2") == ids.index("c3.1") + 1


def test_example_deck_round_trips_through_the_writer(example):
    assert parse_deck(format_deck(example)) == example


# ---------------------------------------------------------------------------
# Malformed deck files: the file, the card (index and id) and the reason


def card_line(text: str, index: int) -> int:
    """The line of the index-th [[card]] header (1-based), by searching the text."""
    lines = text.splitlines()
    headers = [number for number, line in enumerate(lines, start=1) if line == "[[card]]"]
    return headers[index - 1]


BAD_CARDS = [
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 3\nspeed = 4',
        "card 16 'c17': speed 4 is not 1, 2 or 3",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 3\nspeed = 0',
        "card 16 'c17': speed 0 is not 1, 2 or 3",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 3\nspeed = 2.0',
        "card 16 'c17': speed 2.0 is not 1, 2 or 3",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = -1\nspeed = 1',
        "card 16 'c17': force -1 is not a whole number from 0",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 2.5\nspeed = 1',
        "card 16 'c17': force 2.5 is not a whole number from 0",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = "3"\nspeed = 1',
        "card 16 'c17': force \"3\" is not a whole number from 0",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = true\nspeed = 1',
        "card 16 'c17': force true is not a whole number from 0",
    ),
    (
        'id = "c17"\ntypes = ["Shoot"]\nforce = 3\nspeed = 1',
        "card 16 'c17': type \"Shoot\" is not one of Shot, Pass, Dribble, Interception, "
        "Block, Tackle; did you mean 'Shot'?",
    ),
    (
        'id = "c17"\ntypes = ["tackle"]\nforce = 3\nspeed = 1',
        "card 16 'c17': type \"tackle\" is not one of Shot, Pass, Dribble, Interception, "
        "Block, Tackle; did you mean 'Tackle'?",
    ),
    (
        'id = "c17"\ntypes = "Shot"\nforce = 3\nspeed = 1',
        "card 16 'c17': types \"Shot\" must be a list of one maneuver type",
    ),
    (
        'id = "c17"\ntypes = []\nforce = 3\nspeed = 1',
        "card 16 'c17': types [] must be a list of one maneuver type",
    ),
    (
        'id = "c17"\ntypes = ["Shot", "Pass"]\nforce = 3\nspeed = 1',
        'card 16 \'c17\': types ["Shot", "Pass"]: a combo card has exactly one attack type',
    ),
    (
        'id = "c17"\ntypes = ["Block", "Tackle"]\nforce = 3\nspeed = 1',
        'card 16 \'c17\': types ["Block", "Tackle"]: a combo card has exactly one attack',
    ),
    (
        'id = "c17"\ntypes = ["Shot", "Shot"]\nforce = 3\nspeed = 1',
        'card 16 \'c17\': types ["Shot", "Shot"]: a combo card has exactly one attack',
    ),
    (
        'id = "c17"\ntypes = ["Shot", "Tackle", "Block"]\nforce = 3\nspeed = 1',
        'card 16 \'c17\': types ["Shot", "Tackle", "Block"]: a combo card has exactly',
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 3\nspeed = 1\nspecial = "referree"',
        "card 16 'c17': special \"referree\" is not one of referee, lucky-shot, goalie, "
        "stress; did you mean 'referee'?",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 3\nspeed = 1\nspecial = "Lucky-Shot"',
        "card 16 'c17': special \"Lucky-Shot\" is not one of referee, lucky-shot, goalie, "
        "stress; did you mean 'lucky-shot'?",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 3\nspeed = 1\ncount = 0',
        "card 16 'c17': count 0 is not a whole number from 1 to 99",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 3\nspeed = 1\ncount = 100',
        "card 16 'c17': count 100 is not a whole number from 1 to 99",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 3\nspeed = 1\ncount = 1.5',
        "card 16 'c17': count 1.5 is not a whole number from 1 to 99",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 3\nspead = 1',
        "card 16 'c17': unknown key 'spead' in a card (known: id, types, force, speed, "
        "special, count); did you mean 'speed'?",
    ),
    (
        'id = "c17"\ntypes = ["Shot"]\nforce = 3\nspeed = 1\ncolour = "blue"',
        "card 16 'c17': unknown key 'colour' in a card (known: id, types, force, speed, "
        "special, count)",
    ),
    ('id = "c17"\ntypes = ["Shot"]\nspeed = 1', "card 16 'c17': the card has no 'force'"),
    ('types = ["Shot"]\nforce = 3\nspeed = 1', "card 16: the card has no 'id'"),
    (
        'id = "17"\ntypes = ["Shot"]\nforce = 3\nspeed = 1',
        "card 16 '17': id '17' must be a letter followed by up to 15 letters, digits or '_'",
    ),
    (
        'id = "c17.2"\ntypes = ["Shot"]\nforce = 3\nspeed = 1',
        "card 16 'c17.2': id 'c17.2' must be a letter followed by up to 15 letters",
    ),
    (
        'id = 17\ntypes = ["Shot"]\nforce = 3\nspeed = 1',
        "card 16: id 17 must be a letter followed by up to 15 letters",
    ),
    (
        'id = "b4"\ntypes = ["Shot"]\nforce = 3\nspeed = 1',
        "card 16 'b4': id 'b4' is already used by card 4",
    ),
]


@pytest.mark.parametrize(("bad_card", "message"), BAD_CARDS)
def test_a_malformed_card_names_file_line_card_and_reason(bad_card, message):
    text = deck_text(bad_card)
    with pytest.raises(DeckError) as caught:
        parse_deck(text, "my.toml")
    assert str(caught.value).startswith(f"my.toml:{card_line(text, 16)}: {message}")


def test_a_malformed_card_in_the_middle_is_found_by_its_index(tmp_path):
    text = deck_text('id = "ok"\ntypes = ["Pass"]\nforce = 1\nspeed = 1')
    text = text.replace('id = "b8"\ntypes = ["Pass"]', 'id = "b8"\ntypes = ["Pas"]')
    path = tmp_path / "broken.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    assert str(caught.value).startswith(
        f"{path}:{card_line(text, 8)}: card 8 'b8': type \"Pas\" is not one of"
    )


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ('description = "no name"\n', "my.toml: the deck needs a 'name' (a non-empty string)"),
        ('name = ""\ndescription = ""\n', "my.toml: the deck needs a 'name'"),
        ('name = "x"\n', "my.toml: the deck needs a 'description' (a string)"),
        (
            'name = "x"\ndescripton = "typo"\n',
            "my.toml: unknown key 'descripton' in the deck (known: name, description, card); "
            "did you mean 'description'?",
        ),
        ('name = " x"\ndescription = ""\n', "my.toml: deck name ' x' must not have outer"),
        ('name = "a\\"b"\ndescription = ""\n', "my.toml: deck name 'a\"b' must not have"),
    ],
)
def test_a_malformed_deck_header_names_the_reason(header, message):
    with pytest.raises(DeckError) as caught:
        parse_deck(deck_text(header=header), "my.toml")
    assert str(caught.value).startswith(message)


def test_a_deck_without_cards():
    with pytest.raises(DeckError, match=r"^my\.toml: the deck needs its cards as \[\[card\]\]"):
        parse_deck(HEADER, "my.toml")
    with pytest.raises(DeckError, match=r"^my\.toml: the deck needs its cards"):
        parse_deck(HEADER + "card = 3\n", "my.toml")


def test_a_deck_needs_fifteen_cards_after_copies():
    fourteen = HEADER + BASE_CARDS.rsplit("\n[[card]]", 1)[0] + "\n"
    with pytest.raises(DeckError, match=r"^my\.toml: the deck has 14 cards, a deck needs at least"):
        parse_deck(fourteen, "my.toml")
    with_copies = fourteen + '\n[[card]]\nid = "two"\ntypes = ["Block"]\nforce = 1\nspeed = 1\n'
    with_copies += "count = 2\n"
    deck = parse_deck(with_copies, "my.toml")
    assert len(deck.cards) == 16 and deck.ids[-2:] == ("two.1", "two.2")


def test_a_toml_syntax_error_gives_line_and_column():
    text = HEADER + '\n[[card]]\nid = "c1"\nforce = 3 4\n'
    line = text.splitlines().index("force = 3 4") + 1
    column = len("force = 3 ") + 1  # where the stray "4" starts
    with pytest.raises(DeckError) as caught:
        parse_deck(text, "my.toml")
    assert str(caught.value).startswith(f"my.toml:{line}:{column}: invalid TOML: ")


def test_an_unreadable_file(tmp_path):
    with pytest.raises(DeckError, match="cannot read the deck file"):
        load_deck(tmp_path / "missing.toml")


def test_combo_types_in_either_order_mean_the_same_card():
    text = deck_text('id = "c39"\ntypes = ["Tackle", "Shot"]\nforce = 5\nspeed = 3')
    assert parse_deck(text).card("c39") == Card("c39", ("Shot", "Tackle"), 5, 3)


def test_count_expands_to_numbered_copies_in_file_order():
    deck = parse_deck(
        deck_text(
            'id = "x"\ntypes = ["Pass"]\nforce = 2\nspeed = 1\nspecial = "stress"\ncount = 3',
            'id = "y"\ntypes = ["Block"]\nforce = 1\nspeed = 2\ncount = 1',
            'id = "z"\ntypes = ["Block"]\nforce = 0\nspeed = 3',
        )
    )
    assert deck.ids[15:] == ("x.1", "x.2", "x.3", "y.1", "z")
    assert deck.card("x.2") == Card("x.2", ("Pass",), 2, 1, "stress")
    assert "x" not in deck and "y" not in deck


def test_inline_card_tables_load_without_line_numbers():
    text = (
        HEADER
        + "card = ["
        + ", ".join(f'{{id = "i{n}", types = ["Shot"], force = 1, speed = 1}}' for n in range(14))
    )
    text += ', {id = "bad", types = ["Shot"], force = 1, speed = 5}]\n'
    with pytest.raises(DeckError, match=r"^my\.toml: card 15 'bad': speed 5 is not 1, 2 or 3$"):
        parse_deck(text, "my.toml")


# ---------------------------------------------------------------------------
# Property: a valid deck written as TOML loads back equal

card_ids = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,6}", fullmatch=True)
type_choices = st.one_of(
    st.sampled_from(MANEUVER_TYPES).map(lambda t: (t,)),
    st.tuples(st.sampled_from(ATTACK_TYPES), st.sampled_from(DEFENCE_TYPES)),
)
file_cards = st.tuples(
    type_choices,
    st.integers(0, 30),
    st.integers(1, 3),
    st.sampled_from((None, *SPECIALS)),
    st.sampled_from((None, None, 1, 2, 4)),
)
deck_texts = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters='"\\\x7f'),
    max_size=20,
)


def hand_written_toml(name, description, entries):
    """A deck file written the plain way a user would (independent of format_deck)."""
    lines = [
        f"name = {json.dumps(name)}",
        f"description = {json.dumps(description, ensure_ascii=False)}",
    ]
    for card_id, (types, force, speed, special, count) in entries:
        lines += ["", "[[card]]", f'id = "{card_id}"']
        lines.append("types = [" + ", ".join(f'"{t}"' for t in types) + "]")
        lines += [f"force = {force}", f"speed = {speed}"]
        if special:
            lines.append(f'special = "{special}"')
        if count:
            lines.append(f"count = {count}")
    return "\n".join(lines) + "\n"


@settings(max_examples=examples(60, fast=15), deadline=None)
@given(
    name=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9 _-]{0,10}[A-Za-z0-9]", fullmatch=True),
    description=deck_texts.filter(lambda text: all(ord(ch) >= 32 for ch in text)),
    entries=st.lists(
        st.tuples(card_ids, file_cards), min_size=15, max_size=30, unique_by=lambda e: e[0]
    ),
)
def test_a_generated_valid_deck_loads_back_equal(name, description, entries):
    expected_cards = []
    for card_id, (types, force, speed, special, count) in entries:
        if count is None:
            expected_cards.append(Card(card_id, types, force, speed, special))
        else:
            expected_cards += [
                Card(f"{card_id}.{n}", types, force, speed, special) for n in range(1, count + 1)
            ]
    expected = Deck(name, description, tuple(expected_cards))
    loaded = parse_deck(hand_written_toml(name, description, entries))
    assert loaded == expected
    assert parse_deck(format_deck(loaded)) == expected


# ---------------------------------------------------------------------------
# The registry: shipped decks, then $PARTITA_DECKS


def write_deck(folder: Path, file_name: str, name: str, extra: str = "") -> Path:
    path = folder / file_name
    header = f'name = "{name}"\ndescription = "user deck {name}"\n'
    path.write_text(header + BASE_CARDS + extra, encoding="utf-8")
    return path


def test_only_the_shipped_deck_without_user_decks(monkeypatch):
    monkeypatch.delenv(DECKS_ENV, raising=False)
    assert [(d.name, d.cards, d.source) for d in known_decks()] == [("example", 55, "shipped")]


def test_user_decks_from_the_environment(monkeypatch, tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    mine = write_deck(first, "mine.toml", "mine")
    write_deck(first, "notes.txt", "ignored")  # not *.toml
    single = write_deck(tmp_path, "single.toml", "single")
    theirs = write_deck(second, "theirs.toml", "theirs")
    paths = [str(first), str(tmp_path / "nowhere"), str(single), "", str(second)]
    monkeypatch.setenv(DECKS_ENV, os.pathsep.join(paths))
    listing = known_decks()
    assert [(d.name, d.cards, d.source) for d in listing] == [
        ("example", 55, "shipped"),
        ("mine", 15, str(mine)),
        ("single", 15, str(single)),
        ("theirs", 15, str(theirs)),
    ]
    assert listing[1].description == "user deck mine"
    assert get_deck("theirs").card("b3") == Card("b3", ("Dribble",), 3, 1)


def test_a_user_deck_cannot_take_a_known_name(monkeypatch, tmp_path):
    write_deck(tmp_path, "a.toml", "example")
    write_deck(tmp_path, "b.toml", "twin")
    write_deck(tmp_path, "c.toml", "twin", extra=BASE_CARDS.replace('"b', '"c'))
    monkeypatch.setenv(DECKS_ENV, str(tmp_path))
    usable, problems = scan_decks()
    assert [deck.name for deck, _ in usable] == ["example", "twin"]
    assert len(get_deck("twin").cards) == 15  # the first file, b.toml
    messages = [str(problem.error) for problem in problems]
    assert messages == [
        f"{tmp_path / 'a.toml'}: deck name 'example' is already taken by the shipped example.toml",
        f"{tmp_path / 'c.toml'}: deck name 'twin' is already taken by {tmp_path / 'b.toml'}",
    ]


def test_a_malformed_user_deck_is_a_problem_not_a_deck(monkeypatch, tmp_path):
    broken = write_deck(
        tmp_path, "broken.toml", "broken", extra='\n[[card]]\nid = "z"\ntypes = ["Shot"]\n'
    )
    monkeypatch.setenv(DECKS_ENV, str(tmp_path))
    assert [d.name for d in known_decks()] == ["example"]
    with pytest.raises(TagError) as caught:
        get_deck("broken")
    assert str(caught.value) == (
        f"deck 'broken' cannot be used: {broken}:{card_line(broken.read_text(), 16)}: "
        "card 16 'z': the card has no 'force'"
    )


def test_an_unknown_deck_is_a_tag_error_naming_the_known_ones(monkeypatch):
    monkeypatch.delenv(DECKS_ENV, raising=False)
    with pytest.raises(TagError, match=r"^unknown deck 'standard' \(known: example; add your"):
        get_deck("standard")


def test_an_edited_user_deck_is_read_again(monkeypatch, tmp_path):
    path = write_deck(tmp_path, "mine.toml", "mine")
    monkeypatch.setenv(DECKS_ENV, str(tmp_path))
    assert len(get_deck("mine").cards) == 15
    path.write_text(
        path.read_text() + '\n[[card]]\nid = "new"\ntypes = ["Shot"]\nforce = 1\nspeed = 1\n'
    )
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert get_deck("mine").ids[-1] == "new"


# ---------------------------------------------------------------------------
# The CLI


def partita(*args: str, env: dict | None = None):
    """Run `partita ARGS` in this process ($PARTITA_DECKS cleared): (code, stdout, stderr)."""
    return run_cli(args, env=env)


def test_cli_lists_decks_as_json_with_user_decks(tmp_path):
    mine = write_deck(tmp_path, "mine.toml", "mine")
    code, out, err = partita("decks", "--json", env={DECKS_ENV: str(tmp_path)})
    assert code == 0, err
    assert json.loads(out) == [
        {
            "name": "example",
            "description": get_deck("example").description,
            "cards": 55,
            "source": "shipped",
        },
        {"name": "mine", "description": "user deck mine", "cards": 15, "source": str(mine)},
    ]


def test_cli_lists_decks_as_a_table():
    code, out, _ = partita("decks")
    assert code == 0
    assert "example" in out and "55" in out and "shipped" in out and DECKS_ENV in out


def test_cli_reports_a_broken_user_deck_and_exits_1(tmp_path):
    write_deck(tmp_path, "bad.toml", "bad", extra='\n[[card]]\nid = "q"\n')
    code, out, err = partita("decks", "--json", env={DECKS_ENV: str(tmp_path)})
    assert code == 1
    assert [entry["name"] for entry in json.loads(out)] == ["example"]
    assert "partita: warning:" in err and "bad.toml" in err and "card 16 'q'" in err


def test_cli_shows_a_deck_as_json():
    code, out, _ = partita("decks", "example", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["name"] == "example" and len(data["cards"]) == 55
    assert data["cards"][0] == {
        "id": "c1",
        "types": ["Shot"],
        "force": 2,
        "speed": 1,
        "special": "referee",
    }
    assert {"id": "c39", "types": ["Shot", "Tackle"], "force": 5, "speed": 3}.items() <= next(
        card for card in data["cards"] if card["id"] == "c39"
    ).items()


def test_cli_shows_a_deck_as_a_table_and_as_toml():
    code, out, _ = partita("decks", "example")
    assert code == 0
    assert "c3.2" in out and "Shot / Tackle" in out and "lucky-shot" in out and "55 cards" in out
    code, out, _ = partita("decks", "example", "--toml")
    assert code == 0
    assert parse_deck(out) == get_deck("example")


def test_cli_unknown_deck_and_toml_without_name():
    code, _, err = partita("decks", "standard")
    assert code == 1
    assert err.startswith("partita: error: unknown deck 'standard' (known: example")
    code, _, err = partita("decks", "--toml")
    assert code == 2 and "--toml needs a deck NAME" in err


def test_the_writer_escapes_what_toml_needs():
    description = 'quotes "q", backslash \\, newline\n, tab\t, bell \x07, delete \x7f, é 𐀀'
    deck = Deck("odd", description, small_deck().cards)
    assert parse_deck(format_deck(deck)) == deck
