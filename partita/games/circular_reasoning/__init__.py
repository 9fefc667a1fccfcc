"""Circular Reasoning: tokens racing along circular tracks and gateways, 2 to 4 sides.

:mod:`.rules` is the engine (layouts and variants are data), :mod:`.notation` the
move and position grammars, :mod:`.board` the SVG board, :mod:`.spec` the spec partita finds through the
``partita.games`` entry points. The shipped examples are written by
``tools/examples/circular_reasoning.py``, outside the package.
"""
