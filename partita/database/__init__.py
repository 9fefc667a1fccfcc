"""The archive: records stored in SQLite (through sqlite-utils), queried and exported.

Library first: :func:`archive` (or :func:`open_archive`) opens an archive once, and
every function takes that open :class:`Archive` and returns data; the CLI (once
per command) and the web app (once per request) are thin layers over them. The
schema, the key folding and the batch design are described in ``docs/archive.md``.

The names below are imported on first use: a worker process of a parallel import
needs :mod:`partita.database.prepare` alone, and starts faster without SQLite.
Importing and validating files (streamed, in worker processes) is the bulk
wing's: :mod:`partita.bulk`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from partita.lazy import lazy_names

if TYPE_CHECKING:
    from partita.database.archive_writer import DEFAULT_BATCH_SIZE, ArchiveWriter, ImportSummary
    from partita.database.connection import Archive
    from partita.database.export import ExportOptions, export_games, export_to_folder
    from partita.database.filters import GameFilter
    from partita.database.keys import fold_key
    from partita.database.prepare import Refusal
    from partita.database.query import count_games, game_problems, get_record, query_games
    from partita.database.schema import SCHEMA_VERSION, archive, migrate_archive, open_archive
    from partita.database.sources import load_record, load_records

#: Each public name and the module that defines it.
_MODULES = {
    "Archive": "connection",
    "DEFAULT_BATCH_SIZE": "archive_writer",
    "ExportOptions": "export",
    "GameFilter": "filters",
    "SCHEMA_VERSION": "schema",
    "ArchiveWriter": "archive_writer",
    "ImportSummary": "archive_writer",
    "Refusal": "prepare",
    "archive": "schema",
    "count_games": "query",
    "export_games": "export",
    "export_to_folder": "export",
    "fold_key": "keys",
    "game_problems": "query",
    "get_record": "query",
    "load_record": "sources",
    "load_records": "sources",
    "migrate_archive": "schema",
    "open_archive": "schema",
    "query_games": "query",
}

__all__ = [
    "Archive",
    "DEFAULT_BATCH_SIZE",
    "SCHEMA_VERSION",
    "ArchiveWriter",
    "ExportOptions",
    "GameFilter",
    "ImportSummary",
    "Refusal",
    "archive",
    "count_games",
    "export_games",
    "export_to_folder",
    "fold_key",
    "game_problems",
    "get_record",
    "load_record",
    "load_records",
    "migrate_archive",
    "open_archive",
    "query_games",
]


__getattr__, __dir__ = lazy_names(__name__, _MODULES, globals())
