"""partita: read, validate, store, query and analyse game records (PGR).

Layers, each importing only those below it: ``partita.games`` (pure rules
engines) <- ``partita.notation`` (record format, move and position notation,
replay) <- ``partita.database`` (the SQLite archive) <- ``partita.analysis``
(trees, solvers, reports) <- ``partita.cli`` (the ``partita`` command).
"""

__version__ = "0.1.0"
