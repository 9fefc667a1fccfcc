"""partita: read, validate, store, query and analyse game records (PGR).

Layers, lowest first, each importing only those below it: the errors and process
tools, ``partita.game`` (the contract every game fulfils), ``partita.notation``
(the record format), ``partita.database`` (the SQLite archive), ``partita.bulk``
(work in bulk), ``partita.analysis`` (trees, solvers, reports), ``partita.web`` and
``partita.cli``; the game packages in ``partita.games`` are plugins on top.
``docs/architecture.md`` has the map and ``tests/test_layout.py`` checks it.
"""

__version__ = "0.1.0"
