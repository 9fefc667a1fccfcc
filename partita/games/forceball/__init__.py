"""Forceball: a two-player card game in four leagues (little, junior, senior, pro).

:mod:`.cards` holds cards and decks as values, :mod:`.decks` reads deck files
(shipped ones in ``shipped_decks/``, the user's in ``$PARTITA_DECKS``),
:mod:`.rules` is the engine, :mod:`.notation` the turn-log grammar, :mod:`.board`
the SVG table, :mod:`.report` the report's statistics, :mod:`.cli` the ``decks``
command, :mod:`.examples` the seeded example generator and :mod:`.spec` the spec
partita finds through the ``partita.games`` entry points.
"""
