"""The registry reads the installed distributions' ``partita.games`` entry points:
an outside distribution's game joins the built-in ones, and a plugin that fails
to load (its module fails, it names no GameSpec, or a spec under another name)
is listed as broken with the reason, without taking the other games down."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PLUGIN = """
import dataclasses

from partita.games.gravity.spec import CONNECT4

EXTRA = dataclasses.replace(CONNECT4, name="extra-four", title="Extra four")
NOT_A_SPEC = 42
WRONG_NAME = CONNECT4
"""

ENTRY_POINTS = """[partita.games]
extra-four = extra_plugin:EXTRA
crashing = extra_plugin_missing:SPEC
number = extra_plugin:NOT_A_SPEC
misnamed = extra_plugin:WRONG_NAME
"""

PROBE = """
import json
from partita.errors import PartitaError
from partita.game.registry import all_specs, broken_plugins, get_spec

names = [spec.name for spec in all_specs()]
try:
    get_spec("crashing")
    refusal = None
except PartitaError as error:
    refusal = str(error)
print(json.dumps({"names": names, "broken": broken_plugins(), "refusal": refusal,
                  "title": get_spec("extra-four").title}))
"""


def test_an_outside_distribution_adds_games_and_broken_plugins_say_why(tmp_path):
    info = tmp_path / "extra_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: extra-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    (tmp_path / "extra_plugin.py").write_text(PLUGIN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True
    )
    found = json.loads(done.stdout)
    assert {"forza4x4", "connect4", "extra-four"} <= set(found["names"])
    assert found["title"] == "Extra four"
    assert set(found["broken"]) == {"crashing", "number", "misnamed"}
    assert "ModuleNotFoundError" in found["broken"]["crashing"]
    assert found["broken"]["number"] == "extra_plugin:NOT_A_SPEC is not a GameSpec"
    assert found["broken"]["misnamed"] == (
        "extra_plugin:WRONG_NAME declares game 'connect4' under the name 'misnamed'"
    )
    assert found["refusal"].startswith("game 'crashing' could not be loaded: ")
