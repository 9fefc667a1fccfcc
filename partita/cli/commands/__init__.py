"""One module per command group; importing this package registers them all."""

from partita.cli.commands import (  # noqa: F401
    analysis,
    archive,
    conformance,
    maintenance,
    players,
    records,
    reports,
)
