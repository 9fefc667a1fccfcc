"""`python -m partita` runs the command line."""

from partita.cli import main

main()
