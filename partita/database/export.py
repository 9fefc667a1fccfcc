"""Exporting games from the archive: PGR text, JSON lines or CSV, one stream or a folder.

In PGR each game is written as the archive stores it: records without problems in
canonical form, records with problems as they were written (so that importing the
export again finds the same problems; see :func:`partita.database.prepare.stored_text`).
``canonical=True`` rewrites those through the canonical writer as well, and so do
leaving out comments, NAGs or variations and another line width. Records are
separated by one blank line. NDJSON has one object per game (``id``, ``game``,
``tags``, ``moves``: the legal mainline, ``result``, ``status``, ``problems``), CSV
one row per game (:data:`CSV_COLUMNS`). The output streams (one row in memory at a
time).

A PGR record that the reader would join to the one before it (a record whose text
does not begin with a tag line, after a record with no movetext or an open brace
comment at its end, ...) is written after an escape line (``%``, PGN's escape
mechanism), which ends a record wherever it stands: every record reads back as the
record it was (:func:`partita.notation.splitter.record_edges`).
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from partita.database.connection import Archive
from partita.database.filters import GameFilter
from partita.database.query import select_games
from partita.errors import ArchiveError
from partita.notation.splitter import record_edges
from partita.notation.writer import LINE_WIDTH

__all__ = [
    "CSV_COLUMNS",
    "FORMATS",
    "PROGRESS_EVERY",
    "ExportOptions",
    "export_games",
    "export_to_folder",
    "file_stem",
]

#: Games written between two calls of the progress callback.
PROGRESS_EVERY = 100


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """How games are written: ``format`` (``pgr``, ``ndjson`` or ``csv``), and for PGR
    ``canonical`` (rewrite records with problems too), ``comments``, ``nags`` and
    ``variations`` (``False`` leaves them out) and ``width`` (of movetext lines)."""

    format: str = "pgr"
    canonical: bool = False
    comments: bool = True
    nags: bool = True
    variations: bool = True
    width: int = LINE_WIDTH

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ArchiveError(f"export format '{self.format}' is none of {', '.join(FORMATS)}")
        if self.width < 1:
            raise ArchiveError(f"line width must be 1 or more, not {self.width}")

    def rewrites(self) -> bool:
        """Whether a stored text goes through the reader and the writer again."""
        kept = self.comments and self.nags and self.variations
        return self.canonical or not kept or self.width != LINE_WIDTH


#: The export formats, and the extension of their files.
FORMATS = {"pgr": ".pgr", "ndjson": ".ndjson", "csv": ".csv"}

#: The CSV columns: a game's metadata, then its legal mainline.
CSV_COLUMNS = (
    "id", "game", "event", "site", "date", "round", "player1", "player2", "player3",
    "player4", "result", "termination", "sides", "plies", "status", "moves",
)  # fmt: skip

_COLUMNS = (
    "g.id, g.pgr, g.status, g.game, g.event, g.site, g.date, g.round, g.player1, g.player2, "
    "g.player3, g.player4, g.result, g.termination, g.sides, g.plies, g.tags, "
    "coalesce(g.moves, '') AS moves"
)


class _Output:
    """One output stream and what it needs between two games (a blank line in PGR, a
    CSV header at its start)."""

    def __init__(self, stream: TextIO, options: ExportOptions) -> None:
        self.stream = stream
        self.options = options
        self.written = 0
        self.closed = True  # whether a tag line after the last record starts another
        self.csv = csv.writer(stream, lineterminator="\n") if options.format == "csv" else None

    def write(self, db: Archive, row: dict) -> None:
        options = self.options
        if options.format == "ndjson":
            self.stream.write(json.dumps(_json_object(db, row), ensure_ascii=False) + "\n")
        elif self.csv is not None:
            if not self.written:
                self.csv.writerow(CSV_COLUMNS)
            self.csv.writerow(["" if row[name] is None else row[name] for name in CSV_COLUMNS])
        else:
            text = row["pgr"]
            if options.rewrites():
                text = _rewritten(text, row["id"], options)
            starts, ends = record_edges(text)
            if self.written:
                # An escape line where the reader would join the two records.
                self.stream.write("\n" if starts and self.closed else "\n%\n")
            self.stream.write(text if text.endswith("\n") else text + "\n")
            self.closed = ends
        self.written += 1


def _json_object(db: Archive, row: dict) -> dict:
    problems = list(
        db.query(
            "SELECT kind, severity, line, [column], ply, move_number, token, message "
            "FROM problems WHERE game_id = ? ORDER BY id",
            (row["id"],),
        )
    )
    return {
        "id": row["id"],
        "game": row["game"],
        "tags": json.loads(row["tags"] or "{}"),
        "moves": row["moves"].split(),
        "result": row["result"],
        "status": row["status"],
        "problems": problems,
    }


def export_games(
    target: Archive,
    stream: TextIO,
    *,
    canonical: bool = False,
    options: ExportOptions | None = None,
    progress: Callable[[int], object] | None = None,
    selection: GameFilter | None = None,
    limit: int | None = None,
    **filters: Any,
) -> int:
    """Write the games of ``selection`` narrowed by the keyword ``filters`` (those of
    :meth:`partita.database.filters.GameFilter.of`), at most ``limit``, to ``stream``, by
    id, as ``options`` say (``canonical`` is ``ExportOptions(canonical=True)``); return
    how many were written. ``progress`` is called with the number written so far,
    every :data:`PROGRESS_EVERY` games and at the end."""
    options = options or ExportOptions(canonical=canonical)
    output = _Output(stream, options)
    chosen = GameFilter.of(selection, **filters)
    for row in select_games(target, _COLUMNS, selection=chosen, limit=limit):
        output.write(target, row)
        if progress is not None and output.written % PROGRESS_EVERY == 0:
            progress(output.written)
    if progress is not None:
        progress(output.written)
    return output.written


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def file_stem(value: str | None) -> str:
    """A file name for a tag value: letters, digits, ``.``, ``_`` and ``-`` kept, any
    other run made one ``_`` (``untagged`` for a missing or empty value)."""
    stem = _UNSAFE_NAME.sub("_", value or "").strip("._")
    return stem or "untagged"


def export_to_folder(
    target: Archive,
    folder: Path,
    *,
    split_by: str | None = None,
    per_file: int | None = None,
    options: ExportOptions | None = None,
    progress: Callable[[int], object] | None = None,
    selection: GameFilter | None = None,
    limit: int | None = None,
    **filters: Any,
) -> dict[str, int]:
    """Write the selected games into files of a new ``folder``: one file per value of
    tag ``split_by`` (``VALUE.pgr``, see :func:`file_stem`), and/or ``per_file`` games
    a file (``games-0001.pgr``, or ``VALUE-0001.pgr``). The folder appears whole or
    not at all. Returns the games written per file name."""
    options = options or ExportOptions()
    if per_file is not None and per_file < 1:
        raise ArchiveError(f"games per file must be 1 or more, not {per_file}")
    if folder.exists():
        raise ArchiveError(f"{folder} exists already (export into a new folder)")
    extension = FORMATS[options.format]
    building = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent or "."))
    outputs: dict[str, _Output] = {}
    counts: dict[str, int] = {}
    parts: dict[str, int] = {}
    total = 0
    try:
        with contextlib.ExitStack() as files:
            chosen = GameFilter.of(selection, **filters)
            for row in select_games(target, _COLUMNS, selection=chosen, limit=limit):
                group = "games"
                if split_by is not None:
                    group = file_stem(json.loads(row["tags"] or "{}").get(split_by))
                if per_file is not None:
                    part = parts.get(group, 0)
                    if part == 0 or counts[f"{group}-{part:04d}{extension}"] >= per_file:
                        part = parts[group] = part + 1
                    name = f"{group}-{part:04d}{extension}"
                else:
                    name = f"{group}{extension}"
                output = outputs.get(name)
                if output is None:
                    if per_file is not None and outputs:
                        # A finished part is closed, so that the files open stay few.
                        previous = f"{group}-{parts[group] - 1:04d}{extension}"
                        if previous in outputs:
                            outputs.pop(previous).stream.close()
                    stream = files.enter_context(
                        (building / name).open("w", encoding="utf-8", newline="")
                    )
                    output = outputs[name] = _Output(stream, options)
                    counts[name] = 0
                output.write(target, row)
                counts[name] += 1
                total += 1
                if progress is not None and total % PROGRESS_EVERY == 0:
                    progress(total)
        building.rename(folder)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    if progress is not None:
        progress(total)
    return counts


def _rewritten(text: str, game_id: int, options: ExportOptions) -> str:
    """A stored text through the reader, :func:`~partita.notation.strip.stripped` as
    ``options`` say, and the canonical writer (unchanged when it cannot be read)."""
    import io

    from partita.errors import PartitaError
    from partita.game.registry import get_game
    from partita.notation.reader import read_records
    from partita.notation.strip import stripped
    from partita.notation.writer import write_record

    for record in read_records(io.StringIO(text), name=f"archive:{game_id}"):
        try:
            game = get_game(record.game).configure(record.tags) if record.game else None
        except PartitaError:
            game = None
        record = stripped(
            record, comments=options.comments, nags=options.nags, variations=options.variations
        )
        try:
            return write_record(record, game, width=options.width)
        except PartitaError:
            return text
    return text
