"""The bulk wing: importing and validating many records fast, in worker processes.

Everything here is speed work around the reference path of the layers below (the
reader, :func:`~partita.notation.replay.replay`, the archive's
:func:`~partita.database.prepare.prepare_record` and writer), which it must equal:
:mod:`~partita.bulk.chunks` cuts files into chunks of raw records,
:mod:`~partita.bulk.plain` reads plain records straight from their text (with a
game's optional ``fast_replay``, :attr:`partita.game.spec.GameSpec.fast_replay`),
:mod:`~partita.bulk.prepare` turns a chunk into rows, :mod:`~partita.bulk.workers`
runs chunks in worker processes (the one sizing rule, the one "work here while
waiting" loop), :mod:`~partita.bulk.importer` and :mod:`~partita.bulk.validation`
are `partita import`'s and `partita validate`'s library side.

The names below are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from partita.lazy import lazy_names

if TYPE_CHECKING:
    from partita.bulk.importer import ImportProgress, import_paths, import_records
    from partita.bulk.validation import RecordCheck, validate_files

#: Each public name and the module that defines it.
_MODULES = {
    "ImportProgress": "importer",
    "RecordCheck": "validation",
    "import_paths": "importer",
    "import_records": "importer",
    "validate_files": "validation",
}

__all__ = ["ImportProgress", "RecordCheck", "import_paths", "import_records", "validate_files"]


__getattr__, __dir__ = lazy_names(__name__, _MODULES, globals())
