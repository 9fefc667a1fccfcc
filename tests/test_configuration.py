"""Configurations: a game's sides and game-specific tags, defaults filled in."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from partita.analysis.tree import configurations_from_archive, tree_from_archive
from partita.bulk import import_paths
from partita.database import query_games
from partita.database.schema import archive as opened_archive
from partita.errors import PartitaError
from partita.game.configuration import Configuration
from partita.game.rules import TagSpec
from partita.notation.reader import read_records


def _notation(*specs: TagSpec):
    return SimpleNamespace(name="demo", rules=SimpleNamespace(tags=specs, min_sides=2))


VARIANT = TagSpec("Variant", "rules variant", ("basic", "advanced"), default="basic")
LIMIT = TagSpec("RoundLimit", "rounds before the end")


def test_an_absent_tag_is_its_default():
    notation = _notation(VARIANT, LIMIT)
    absent = Configuration.of(notation, 3, {"Event": "x"})
    explicit = Configuration.of(notation, 3, {"Variant": "basic"})
    assert absent == explicit
    assert absent.settings == (("Variant", "basic"), ("RoundLimit", ""))
    assert Configuration.of(notation, 3, {"Variant": "advanced"}) != absent
    assert Configuration.of(notation, 2, {}) != absent


def test_labels_tags_and_options():
    notation = _notation(VARIANT, LIMIT)
    configuration = Configuration.of(notation, 4, {"Variant": "advanced", "RoundLimit": "20"})
    assert configuration.label == "4 sides, Variant advanced, RoundLimit 20"
    assert configuration.tags() == {"Variant": "advanced", "RoundLimit": "20"}
    assert configuration.tag_filters() == ["Variant=advanced", "RoundLimit=20"]
    assert configuration.options() == "--sides 4 --tag Variant=advanced --tag RoundLimit=20"
    assert configuration.options({"RoundLimit"}) == "--sides 4 --tag RoundLimit=20"
    spaced = Configuration.of(_notation(LIMIT), 2, {"RoundLimit": "a b"})
    assert spaced.options() == "--sides 2 --tag 'RoundLimit=a b'"
    plain = Configuration.of(notation, 2, {"Variant": "basic"})
    assert plain.label == "2 sides"  # defaults are left out
    assert plain.describe({"Variant"}) == "2 sides, Variant basic"  # unless asked for
    assert plain.tags() == {}
    assert plain.tag_filters() == ["Variant=basic", "RoundLimit="]


def test_games_without_tags_differ_only_by_sides():
    notation = _notation()
    assert Configuration.of(notation, 2, {"Variant": "x"}) == Configuration("demo", 2)


def test_cosmetic_tags_are_no_part_of_a_configuration():
    colours = TagSpec("Colors", "the sides' colours", cosmetic=True)
    notation = _notation(VARIANT, colours)
    white_red = Configuration.of(notation, 2, {"Colors": "white red"})
    assert white_red == Configuration.of(notation, 2, {})
    assert [name for name, _ in white_red.settings] == ["Variant"]


# -- over an archive: Circular Reasoning's examples mix sides, variants and layouts ------

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "circular-reasoning"


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    db = tmp_path_factory.mktemp("configurations") / "cr.db"
    with opened_archive(db) as opened:
        import_paths(opened, [EXAMPLES])
    return db


def _expected_counts() -> Counter:
    """(sides, variant, layout) of every valid example, read from the tags by hand."""
    counts: Counter = Counter()
    for path in sorted(EXAMPLES.glob("*.pgr")):
        for record in read_records(path):
            sides = sum(1 for name in record.tags if name.startswith("Player"))
            variant = record.tags.get("Variant", "basic")
            layout = record.tags.get("Layout", "entrance=O1 large=O9 medium=M5 small=I13")
            counts[(sides, variant, layout)] += 1
    return counts


def test_configurations_of_an_archive(archive):
    with opened_archive(archive, readonly=True) as opened:
        found = configurations_from_archive(opened, "circular-reasoning")
    counted = Counter(
        {(c.sides, dict(c.settings)["Variant"], dict(c.settings)["Layout"]): n for c, n in found}
    )
    assert counted == _expected_counts()
    assert len(found) > 1
    assert [n for _, n in found] == sorted((n for _, n in found), reverse=True)


def test_a_tree_over_mixed_set_ups_says_how_to_choose(archive):
    with pytest.raises(PartitaError) as error, opened_archive(archive, readonly=True) as opened:
        tree_from_archive(opened, "circular-reasoning")
    message = str(error.value)
    assert "set up in" in message and "--sides 2 --tag Variant=advanced" in message
    advanced = _expected_counts()
    wanted = sum(
        n for (sides, variant, _), n in advanced.items() if (sides, variant) == (2, "advanced")
    )
    with opened_archive(archive, readonly=True) as opened:
        tree = tree_from_archive(
            opened, "circular-reasoning", sides=2, tags=["Variant=advanced"], depth=2
        )
    assert tree.games == wanted
    assert tree.configuration.sides == 2
    assert tree.configuration.tags() == {"Variant": "advanced"}


def test_a_tag_filter_counts_an_absent_tag_as_its_default(archive):
    with opened_archive(archive, readonly=True) as opened:
        basic = query_games(opened, tags=["Variant=basic"])
    with opened_archive(archive, readonly=True) as opened:
        absent = query_games(opened, tags=["Variant="])
    explicit = [
        record
        for path in sorted(EXAMPLES.glob("*.pgr"))
        for record in read_records(path)
        if record.tags.get("Variant") == "basic"
    ]
    assert len(basic) == len(absent) + len(explicit)


# -- NAME=VALUE pairs and the one way to set a game up -------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from partita.errors import SetupError, TagError, UnknownGameError  # noqa: E402
from partita.game.configuration import (  # noqa: E402
    PairError,
    configure_game,
    format_pairs,
    parse_pairs,
)

_names = st.text(min_size=1).map(str.strip).filter(lambda name: name and "=" not in name)
_values = st.text().map(str.strip)


@given(st.dictionaries(_names, _values))
def test_pairs_round_trip(pairs):
    texts = format_pairs(pairs)
    assert parse_pairs(texts) == pairs
    assert list(parse_pairs(texts)) == list(pairs)  # in their order
    assert format_pairs(parse_pairs(texts)) == texts


@given(_names, _values, st.text(" \t", max_size=2), st.text(" \t", max_size=2))
def test_pairs_strip_names_and_values_and_keep_later_equals(name, value, before, after):
    text = f"{before}{name}{after}={before}{value}=x{after}"
    assert parse_pairs([text]) == {name: f"{value}=x".strip()}


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (["League"], "'League' is not of the form NAME=VALUE"),
        (["=pro"], "'=pro' is not of the form NAME=VALUE"),
        ([" =pro"], "' =pro' is not of the form NAME=VALUE"),
        ([""], "'' is not of the form NAME=VALUE"),
        (["League=pro", "League=junior"], "League is given twice"),
        (["League=pro", " League =pro"], "League is given twice"),
    ],
)
def test_a_bad_pair_is_one_error_naming_it(texts, message):
    with pytest.raises(PairError) as raised:
        parse_pairs(texts)
    assert str(raised.value) == message
    assert isinstance(raised.value, PartitaError) and isinstance(raised.value, ValueError)


@given(st.lists(st.text()))
def test_parsing_pairs_either_gives_them_or_says_which_is_bad(texts):
    try:
        found = parse_pairs(texts)
    except PairError as error:
        assert "is not of the form NAME=VALUE" in str(error) or "given twice" in str(error)
    else:
        assert len(found) == len(texts)
        assert all(name and "=" not in name for name in found)


def test_configure_game_gives_the_game_and_its_configuration():
    game, configuration = configure_game("circular-reasoning", {"Variant": "advanced"}, 3)
    assert configuration == Configuration.of(game, 3, {"Variant": "advanced"})
    assert configuration.tags() == {"Variant": "advanced"}
    assert game.rules is not configure_game("circular-reasoning")[0].rules  # configured
    default_game, default = configure_game("connect4")
    assert (default.game, default.sides, default.tags()) == ("connect4", 2, {})
    assert configure_game(default_game)[1] == default  # a notation, or its name


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: configure_game("chess"), UnknownGameError, "chess"),
        (lambda: configure_game("connect4", sides=3), SetupError, "played by 2 sides, not 3"),
        (lambda: configure_game("forceball", {"League": "cosmic"}), TagError, "cosmic"),
        (
            lambda: configure_game("connect4", {"League": "pro"}, settings_only=True),
            TagError,
            "connect4 has no set-up tag League",
        ),
    ],
)
def test_configure_game_refuses_what_the_game_does_not_have(call, error, message):
    with pytest.raises(error, match=message):
        call()
