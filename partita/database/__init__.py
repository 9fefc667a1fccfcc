"""The archive: records stored in SQLite (through sqlite-utils), queried and exported.

Library first: every function takes the archive as a path (or an open sqlite-utils
``Database``) and returns data; the CLI is a thin layer over them. The schema, the
key folding and the batch design are described in ``docs/archive.md``.
"""

from partita.database.export import export_games
from partita.database.importer import (
    DEFAULT_BATCH_SIZE,
    ArchiveWriter,
    ImportProgress,
    ImportSummary,
    Refusal,
    import_paths,
    import_records,
)
from partita.database.keys import fold_key
from partita.database.query import game_problems, get_record, query_games
from partita.database.schema import SCHEMA_VERSION, archive, open_archive

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "SCHEMA_VERSION",
    "ArchiveWriter",
    "ImportProgress",
    "ImportSummary",
    "Refusal",
    "archive",
    "export_games",
    "fold_key",
    "game_problems",
    "get_record",
    "import_paths",
    "import_records",
    "open_archive",
    "query_games",
]
