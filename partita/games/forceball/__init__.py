"""Forceball: a two-player card game in four leagues (little, junior, senior, pro).

The rules engine (pure: it imports only the errors and the rules contract) is
:mod:`.values` (moves, actions and the table), :mod:`.rules` (set-up, legality,
outcome, keys), :mod:`.turn` (the turn state machine), :mod:`.sampler` (random
turns), :mod:`.words` (the words messages share) and :mod:`.cards` (cards and decks
as values). Around it: :mod:`.decks` reads deck files (shipped ones in
``shipped_decks/``, the user's in ``$PARTITA_DECKS``), :mod:`.notation` is the
turn-log grammar, :mod:`.board` the SVG table, :mod:`.report` the report's
statistics, :mod:`.cli` the ``decks`` command, :mod:`.player` the seeded heuristic
player (the playout policy, and the player of the shipped examples, which
``tools/examples/forceball.py`` writes outside the package) and :mod:`.spec` the spec
partita finds through the ``partita.games`` entry points.
"""
