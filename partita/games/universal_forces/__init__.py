"""Universal Forces: forces of four kinds on a ring board, for 2 to 4 sides.

:mod:`.rules` is the engine, :mod:`.notation` the move and position grammars,
:mod:`.board` the SVG ring board, :mod:`.examples` the seeded example generator,
:mod:`.spec` the spec partita finds through the ``partita.games`` entry points.
"""
