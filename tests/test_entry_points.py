"""partita.game.entry_points reads the entry points importlib.metadata reads: the
same names and values, in the same order, the first distribution of a name on
sys.path winning; and it leaves to importlib.metadata what it does not read."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import zipfile

import pytest

from partita.game import entry_points as module
from partita.game.entry_points import EntryPoint, entry_points

GROUP = "partita.games"


def metadata_points(group: str) -> list[tuple[str, str]]:
    return [(point.name, point.value) for point in importlib.metadata.entry_points(group=group)]


def ours(group: str) -> list[tuple[str, str]]:
    return [(point.name, point.value) for point in entry_points(group)]


def distribution(folder, name: str, version: str, text: str, suffix: str = ".dist-info"):
    info = folder / f"{name}-{version}{suffix}"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(text)
    return info


#: Run in a fresh interpreter, as a command starts: in the test process another
#: test may have loaded dask, whose ``importlib_metadata`` backport adds a finder
#: that lists distributions (the case handed back to ``importlib.metadata``).
FRESH_PROCESS_CHECK = """
import importlib.metadata, json
from partita.game.entry_points import _from_directories
found = _from_directories("partita.games")
expected = [[p.name, p.value] for p in importlib.metadata.entry_points(group="partita.games")]
print(json.dumps([None if found is None else [[p.name, p.value] for p in found], expected]))
"""


def test_the_installed_games_are_read_as_importlib_metadata_reads_them():
    done = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS_CHECK], capture_output=True, text=True, check=True
    )
    found, expected = json.loads(done.stdout)
    assert found is not None, "this environment should be read without importlib.metadata"
    assert found == expected
    assert {"forza4x4", "connect4"} <= {name for name, _ in found}


def folders_read(monkeypatch, group: str) -> list[tuple[str, str]] | None:
    """What the folders give, even where a finder that lists distributions is loaded
    (the backport another test may have loaded, which ``entry_points`` hands the
    work to; ``importlib.metadata`` then answers through it, as the reference)."""
    with monkeypatch.context() as patch:
        patch.setattr(module, "_lists_distributions", lambda finder: False)
        found = module._from_directories(group)
    return None if found is None else [(point.name, point.value) for point in found]


def test_a_distribution_on_an_added_path_the_first_of_a_name_winning(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    distribution(first, "Partita_Extra", "1.0", "[partita.games]\n  extra = extra_one.spec:SPEC\n")
    distribution(second, "partita-extra", "2.0", "[partita.games]\nextra = extra_two.spec:SPEC\n")
    distribution(
        second,
        "other_games",
        "0.1",
        "# a comment\n[console_scripts]\nx = y:z\n\n[partita.games]\n"
        "# another comment\nother = other.spec : SPEC [extra]\n",
        suffix=".egg-info",
    )
    monkeypatch.setattr(sys, "path", [*sys.path, str(first), str(second)])
    expected = metadata_points(GROUP)
    assert ("extra", "extra_one.spec:SPEC") in expected  # the first on sys.path
    assert ("extra", "extra_two.spec:SPEC") not in expected
    assert ("other", "other.spec : SPEC [extra]") in expected
    assert folders_read(monkeypatch, GROUP) == expected
    assert folders_read(monkeypatch, "console_scripts") == metadata_points("console_scripts")
    assert ours(GROUP) == expected


def test_a_zip_on_the_path_is_left_to_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "games.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("zipped-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\n")
        handle.writestr(
            "zipped-1.0.dist-info/entry_points.txt", "[partita.games]\nzipped = z.spec:SPEC\n"
        )
    monkeypatch.setattr(sys, "path", [*sys.path, str(archive)])
    assert module._from_directories(GROUP) is None
    assert ("zipped", "z.spec:SPEC") in ours(GROUP)
    assert ours(GROUP) == metadata_points(GROUP)


def test_load_follows_the_module_and_its_attributes():
    assert EntryPoint("x", "os.path:join", GROUP).load() is __import__("os").path.join
    assert EntryPoint("x", "os.path", GROUP).load() is __import__("os").path
    assert EntryPoint("x", "collections : OrderedDict.fromkeys [e]", GROUP).load() == (
        __import__("collections").OrderedDict.fromkeys
    )


def test_with_the_backport_loaded_the_reading_is_handed_back():
    """The ``importlib_metadata`` backport (dask loads it) takes the stdlib's path
    finder's distributions over: the folders are not read then, and the entry
    points are still the installed games'."""
    pytest.importorskip("importlib_metadata", reason="the cluster extra installs it")
    check = (
        "import importlib_metadata, json\n"
        "from partita.game import entry_points as module\n"
        "points = [point.name for point in module.entry_points('partita.games')]\n"
        "print(json.dumps([module._from_directories('partita.games') is None, points]))\n"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    handed_back, names = json.loads(done.stdout)
    assert handed_back
    assert {"forza4x4", "connect4"} <= set(names)
