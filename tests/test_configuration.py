"""Configurations: a game's sides and game-specific tags, defaults filled in."""

from __future__ import annotations

from types import SimpleNamespace

from partita.games.base import TagSpec
from partita.notation.configuration import Configuration


def _notation(*specs: TagSpec):
    return SimpleNamespace(name="demo", rules=SimpleNamespace(tags=specs))


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
