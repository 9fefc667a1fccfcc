"""Finding record files and validating them: the library side of `partita validate`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from partita.errors import PartitaError
from partita.notation.inputs import RECORD_SUFFIXES, is_stdin

if TYPE_CHECKING:
    from partita.notation.replay import ReplayedRecord

#: The extension of record files searched for in folders.
RECORD_SUFFIX = ".pgr"


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given (``-``: standard input), and every record file under each
    folder (sorted, recursive): ``*.pgr``, and ``*.pgr.gz``, ``.bz2``, ``.xz``,
    ``.zst`` (:data:`~partita.notation.inputs.RECORD_SUFFIXES`).

    A path that does not exist is an error naming it, found before any work.
    """
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if is_stdin(raw):
            files.append(path)
        elif path.is_dir():
            files.extend(
                sorted(
                    p
                    for p in path.rglob("*.pgr*")
                    if p.name.endswith(RECORD_SUFFIXES) and p.is_file()
                )
            )
        elif path.is_file():
            files.append(path)
        else:
            raise PartitaError(f"no such file or folder: {path}")
    return files


def validate_paths(
    paths: Iterable[str | Path], *, strict: bool = False
) -> Iterator[ReplayedRecord]:
    """Read and replay every record of the files (folders: their ``*.pgr`` files).

    Yields one :class:`~partita.notation.replay.ReplayedRecord` per record, in file
    order; never stops at a bad record.
    """
    from partita.notation.reader import read_records
    from partita.notation.replay import replay

    for path in expand_paths(paths):
        for record in read_records(path):
            yield replay(record, strict=strict)
