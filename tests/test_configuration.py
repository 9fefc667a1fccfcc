"""Configurations: a game's sides and game-specific tags, defaults filled in."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from partita.analysis.tree import configurations_from_archive, tree_from_archive
from partita.bulk import import_paths
from partita.database import query_games
from partita.errors import PartitaError
from partita.game.configuration import Configuration
from partita.game.rules import TagSpec
from partita.notation.reader import read_records


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
    import_paths(db, [EXAMPLES])
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
    found = configurations_from_archive(archive, "circular-reasoning")
    counted = Counter(
        {(c.sides, dict(c.settings)["Variant"], dict(c.settings)["Layout"]): n for c, n in found}
    )
    assert counted == _expected_counts()
    assert len(found) > 1
    assert [n for _, n in found] == sorted((n for _, n in found), reverse=True)


def test_a_tree_over_mixed_set_ups_says_how_to_choose(archive):
    with pytest.raises(PartitaError) as error:
        tree_from_archive(archive, "circular-reasoning")
    message = str(error.value)
    assert "set up in" in message and "--sides 2 --tag Variant=advanced" in message
    advanced = _expected_counts()
    wanted = sum(
        n for (sides, variant, _), n in advanced.items() if (sides, variant) == (2, "advanced")
    )
    tree = tree_from_archive(
        archive, "circular-reasoning", sides=2, tags=["Variant=advanced"], depth=2
    )
    assert tree.games == wanted
    assert tree.configuration.sides == 2
    assert tree.configuration.tags() == {"Variant": "advanced"}


def test_a_tag_filter_counts_an_absent_tag_as_its_default(archive):
    basic = query_games(archive, tags=["Variant=basic"])
    absent = query_games(archive, tags=["Variant="])
    explicit = [
        record
        for path in sorted(EXAMPLES.glob("*.pgr"))
        for record in read_records(path)
        if record.tags.get("Variant") == "basic"
    ]
    assert len(basic) == len(absent) + len(explicit)
