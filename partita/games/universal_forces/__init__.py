"""Universal Forces: forces of four kinds on a ring board, for 2 to 4 sides.

:mod:`.rules` is the engine, :mod:`.notation` the move and position grammars,
:mod:`.geometry` the board as data, :mod:`.board` the SVG ring board, :mod:`.spec`
the spec partita finds through the ``partita.games`` entry points. The shipped
examples are written by ``tools/examples/universal_forces.py``, outside the package.
"""
