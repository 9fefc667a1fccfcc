"""Records named on the command line.

Record files (validate, import): the files of each path, binary files left out,
and warnings for paths that hold no records. An empty folder, a folder without
``*.pgr`` files or a binary file given by mistake is a warning on stderr, and the
command exits 1: the user asked for records and got none.

A record SOURCE (show, annotate, endgame, novelty): a file or an archive game's
id, loaded by :func:`partita.database.sources.load_records`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from partita.notation.files import expand_paths, is_binary_file

if TYPE_CHECKING:
    from partita.notation.model import Record

__all__ = ["RecordInputs", "load_source", "load_sources", "record_inputs", "source_game_id"]


@dataclass(slots=True)
class RecordInputs:
    """The files to read, in order, each with the path (as given) it was found
    under, and the warnings found so far."""

    files: list[Path] = field(default_factory=list)
    owners: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Each path given, with what it is when it yields no file to read.
    _paths: dict[Path, str | None] = field(default_factory=dict)

    def check_records(self, counts: dict[Path, int]) -> None:
        """A warning for every path whose files held no record (``counts``: the
        records read per file)."""
        found = dict.fromkeys(self._paths, 0)
        for file, owner in zip(self.files, self.owners, strict=True):
            found[owner] += counts.get(file, 0)
        for path, records in found.items():
            why = self._paths[path]
            if records == 0 and why != "skipped":
                self.warnings.append(f"{path} holds no records{why or ''}")


def record_inputs(paths: list[Path], exclude: list[str] | None = None) -> RecordInputs:
    """The record files of ``paths`` (folders: their ``*.pgr`` files), without the
    ones ``exclude`` matches (see :func:`~partita.notation.files.expand_paths`) and
    binary ones (a warning each)."""
    inputs = RecordInputs()
    for path in paths:
        files = expand_paths([path], exclude=exclude or ())
        if path not in inputs._paths:
            inputs._paths[path] = (
                (" (no *.pgr file in it, or all excluded)" if path.is_dir() else " (excluded)")
                if not files
                else None
            )
        for file in files:
            try:
                binary = is_binary_file(file)
            except OSError as error:
                binary, reason = True, f"{file}: {error.strerror or error}: skipped"
            else:
                reason = (
                    f"{file} is not a text file (it holds NUL bytes: binary, or UTF-16): skipped"
                )
            if binary:
                inputs.warnings.append(reason)
                if file == path:
                    inputs._paths[path] = "skipped"
                continue
            inputs.files.append(file)
            inputs.owners.append(path)
    return inputs


def load_sources(source: str, index: int | None, db: Path) -> list[Record]:
    """The records of SOURCE (:func:`partita.database.sources.load_records`): a
    usage error (exit 2) for a folder or an impossible game id."""
    import typer

    from partita.database.sources import SourceError, load_records

    try:
        return load_records(source, db, index)
    except SourceError as error:
        raise typer.BadParameter(str(error), param_hint="SOURCE") from None


def load_source(source: str, index: int, db: Path) -> Record:
    """The ``index``-th record of a file, or the archive's game SOURCE names."""
    return load_sources(source, index, db)[0]


def source_game_id(source: str) -> int | None:
    """The archive game SOURCE names (``None``: a file)."""
    import typer

    from partita.database.sources import SourceError, game_id_of

    try:
        return game_id_of(source)
    except SourceError as error:
        raise typer.BadParameter(str(error), param_hint="SOURCE") from None
