"""The game contract: what every game supplies and how the framework finds it.

``rules`` (the rules engine's contract, ``Outcome``), ``notation`` (the text around
an engine), ``spec`` (a game's ``GameSpec``), ``registry`` (the specs found through
the ``partita.games`` entry points) and ``configuration`` (a game's settings). It
imports nothing of partita but ``partita.errors``; every other layer stands on it.
"""
