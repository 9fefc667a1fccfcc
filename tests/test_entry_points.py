"""The registry reads entry points from the metadata folders as importlib.metadata
does (same points, same order, the same distribution winning), and falls back to
importlib.metadata where only it can read them."""

from __future__ import annotations

import importlib.metadata
import os
import sys
import tempfile
import zipfile
from importlib.machinery import PathFinder
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.games import registry
from partita.games.gravity.spec import FORZA4X4
from partita.games.registry import installed_entry_points, load_reference


def by_importlib(group: str) -> list[tuple[str, str]]:
    return [(point.name, point.value) for point in importlib.metadata.entry_points(group=group)]


@pytest.fixture(autouse=True)
def path_finders_only(monkeypatch):
    """The standard library's way of finding distributions, whatever ran before in
    this process: importlib_metadata (which dask imports) adds a finder of its own
    and deletes ``PathFinder.find_distributions``; the registry then asks
    importlib.metadata, and these tests compare the folder reading with the
    standard library's own finder, on the path alone."""
    monkeypatch.setattr(
        sys,
        "meta_path",
        [
            finder
            for finder in sys.meta_path
            if getattr(finder, "find_distributions", None) is None or finder is PathFinder
        ],
    )
    if getattr(PathFinder, "find_distributions", None) is None:
        monkeypatch.setattr(
            PathFinder,
            "find_distributions",
            staticmethod(importlib.metadata.MetadataPathFinder.find_distributions),
            raising=False,
        )


@pytest.mark.parametrize("group", ["partita.games", "console_scripts", "pytest11", "nothing"])
def test_this_environment_s_entry_points_are_importlib_metadata_s(group):
    direct = registry._entry_points_from_folders(group)
    assert direct is not None, "this environment is read from its folders"
    assert direct == by_importlib(group)
    if group == "partita.games":
        assert {name for name, _ in direct} >= {"forza4x4", "connect4", "forceball"}


def write_distribution(folder: Path, stem: str, text: str | None) -> None:
    info = folder / stem
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Name: {stem.partition('-')[0]}\nVersion: 1\n")
    if text is not None:
        (info / "entry_points.txt").write_text(text, encoding="utf-8")


def test_folders_on_the_path_are_read_in_order_and_the_first_distribution_wins(
    tmp_path, monkeypatch
):
    first, second = tmp_path / "first", tmp_path / "second"
    write_distribution(
        first,
        "My.Plugin-1.0.dist-info",
        "# a comment\n[partita.games]\nalpha = alpha.spec:SPEC\n\n[other]\nx = y:z\n",
    )
    write_distribution(first, "quiet-2.0.dist-info", None)  # no entry points at all
    write_distribution(
        second, "my_plugin-0.9.dist-info", "[partita.games]\nshadowed = old.spec:SPEC\n"
    )
    write_distribution(
        second,
        "legacy-0.1.egg-info",
        "[partita.games]\n  beta =beta.spec : make [extra]\ngamma=gamma:G\n",
    )
    (second / "notes.txt").write_text("not a distribution")
    monkeypatch.setattr(sys, "path", [str(first), str(tmp_path / "missing"), str(second)])
    direct = registry._entry_points_from_folders("partita.games")
    assert direct == by_importlib("partita.games")
    assert [name for name, _ in direct] == ["alpha", "beta", "gamma"]


def test_a_zip_on_the_path_is_read_by_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\nVersion: 1.0\n")
        bundle.writestr(
            "zipped-1.0.dist-info/entry_points.txt", "[partita.games]\nzipped = z.spec:SPEC\n"
        )
    monkeypatch.setattr(sys, "path", [str(archive)])
    assert registry._entry_points_from_folders("partita.games") is None
    assert installed_entry_points("partita.games") == [("zipped", "z.spec:SPEC")]


def test_a_finder_with_distributions_of_its_own_is_asked_through_importlib_metadata(
    monkeypatch,
):
    class OwnDistributions:
        @staticmethod
        def find_spec(*args):
            return None

        @staticmethod
        def find_distributions(*args, **kwargs):
            return iter(())

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, OwnDistributions])
    assert registry._entry_points_from_folders("partita.games") is None
    assert installed_entry_points("partita.games") == by_importlib("partita.games")


def test_references_load_as_entry_points_load_them():
    assert load_reference("partita.games.gravity.spec:FORZA4X4") is FORZA4X4
    assert load_reference("os.path : join") is os.path.join
    assert load_reference("os") is os
    assert load_reference("os:path.join [extra]") is os.path.join
    with pytest.raises(ValueError, match="'not a reference!' is not a module:attribute"):
        load_reference("not a reference!")
    with pytest.raises(AttributeError):
        load_reference("os:no_such_thing")


LINE = st.one_of(
    st.sampled_from(["[partita.games]", "[other]", "[ partita.games ]", "# note", "", "  "]),
    st.builds(
        lambda name, value, spaces: f"{spaces}{name}{spaces}={spaces}{value}",
        st.from_regex(r"[a-z][a-z0-9_.-]{0,8}", fullmatch=True),
        st.from_regex(r"[a-z][a-z0-9_.]{0,8}(:[A-Za-z_][A-Za-z0-9_]{0,5})?", fullmatch=True),
        st.sampled_from(["", " ", "\t"]),
    ),
    st.text(alphabet="[]=#: abc\t", max_size=12),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(LINE, max_size=12))
def test_entry_point_files_are_parsed_as_importlib_metadata_parses_them(lines):
    text = "\n".join(lines) + "\n"
    with tempfile.TemporaryDirectory() as folder:
        info = Path(folder) / "some-1.0.dist-info"
        info.mkdir()
        (info / "entry_points.txt").write_text(text, encoding="utf-8")
        try:
            expected = [
                (point.name, point.value)
                for point in importlib.metadata.PathDistribution(info).entry_points.select(
                    group="partita.games"
                )
            ]
        except TypeError:  # a line without "=" in a section: importlib.metadata fails
            assert any("=" not in line for line in text.splitlines())
            return
        assert registry._section(str(info / "entry_points.txt"), "partita.games") == expected
