"""One module per command group; importing one registers its commands on the app.

``partita.cli.app.COMMAND_MODULES`` names the module of each command: a run imports
the one it needs, help and completion import them all.

Two rules keep start-up light (`benchmarks/bench_startup.py` measures it):

* a command imports the library code it needs (the reader, the archive, the
  analysis, rich) in its own body, not at the top of its module;
* command modules do not use ``from __future__ import annotations``: typer reads
  every command's signature at start-up, and string annotations would be compiled
  and evaluated again on each run (about half the time typer takes to build the
  commands). Names imported only for type checking are quoted instead.
"""
