"""The gravity games: Forza 4x4 (8x8, pieces enter from any edge) and Connect Four.

One rules engine (:mod:`.rules`) serves every gravity set-up; :mod:`.notation` holds
the entry-code move and position grammars, :mod:`.board` the SVG grid,
:mod:`.solver` the exact solver (pure-Python cores with an optional C core) and
:mod:`.spec` the two specs partita finds through the ``partita.games`` entry points.
The shipped examples are written by ``tools/examples/gravity.py``, outside the package.
"""
