"""Finding record files: the paths and folders a command is given, as the files to read."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path

from partita.errors import InputError, PartitaError
from partita.notation.inputs import RECORD_SUFFIXES, compression_of, is_stdin, open_input

#: The extension of record files searched for in folders.
RECORD_SUFFIX = ".pgr"

#: Bytes looked at to tell a binary file, as git does (a NUL byte among the first 8,000).
_SNIFF_BYTES = 8000


def is_binary_file(path: str | Path) -> bool:
    """Whether the file holds a NUL byte near its start: a binary file (or text in
    UTF-16), which no PGR file is; reading it would find one record of noise.
    A compressed file is judged by what it holds; standard input is never sniffed."""
    if is_stdin(path):
        return False
    with open(path, "rb") as stream:
        head = stream.read(_SNIFF_BYTES)
    if compression_of(head) is None:
        return b"\0" in head
    try:
        with open_input(path) as stream:
            return b"\0" in stream.read(_SNIFF_BYTES)
    except InputError:
        return False  # damaged data: reading the records says so, naming the file


def expand_paths(paths: Iterable[str | Path], *, exclude: Iterable[str] = ()) -> list[Path]:
    """Files as given (``-``: standard input), and every record file under each
    folder (sorted, recursive): ``*.pgr``, and ``*.pgr.gz``, ``.bz2``, ``.xz``,
    ``.zst`` (:data:`~partita.notation.inputs.RECORD_SUFFIXES`).

    ``exclude``: shell patterns (``invalid``, ``*-draft.pgr``, ``2023/*``); a file
    is left out when one matches its path relative to the folder given (a file
    given itself: its name) or one of that path's parts, so ``invalid`` leaves
    out a folder ``invalid`` and everything under it. A path that does not exist
    is an error naming it, found before any work.
    """
    patterns = tuple(exclude)
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if is_stdin(raw):
            files.append(path)
        elif path.is_dir():
            found = sorted(
                p for p in path.rglob("*.pgr*") if p.name.endswith(RECORD_SUFFIXES) and p.is_file()
            )
            files.extend(p for p in found if not _excluded(p.relative_to(path), patterns))
        elif path.is_file():
            if not _excluded(Path(path.name), patterns):
                files.append(path)
        else:
            raise PartitaError(f"no such file or folder: {path}")
    return files


def _excluded(relative: Path, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return False
    names = (relative.as_posix(), *relative.parts)
    return any(fnmatchcase(name, pattern) for pattern in patterns for name in names)
