"""The game list of `partita query` as text: CSV, TSV, JSON lines, a plain table.

One row per game, with the same columns in every form (:func:`columns`). CSV is
written exactly (quoted where needed); TSV, which cannot quote, and the plain
table show control characters as escapes (``\\t``, ``\\x1b``: see
:mod:`partita.cli.display`), so a value never splits a row or acts on a terminal.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from typing import TextIO

from partita.cli.display import printable

__all__ = [
    "POSITION_COLUMNS",
    "TABLE_COLUMNS",
    "cell",
    "columns",
    "write_delimited",
    "write_json_lines",
    "write_plain_table",
]

#: The columns of the plain and rich tables (CSV and TSV have every column).
TABLE_COLUMNS = (
    "id",
    "game",
    "date",
    "event",
    "players",
    "result",
    "plies",
    "status",
    "opening",
)


#: The columns a position filter adds: where the game reached the position.
POSITION_COLUMNS = ("ply", "found", "variation")


def columns(*, with_ply: bool, with_pattern: bool = False) -> list[str]:
    """Every column of a game row, ``players`` as ``player1`` to ``player4``; ``ply``,
    ``found`` (mainline or variation) and ``variation`` (its number) with a position
    filter, ``pattern_ply`` with a pattern."""
    names = ["id", "game", "event", "site", "date", "round", "player1", "player2"]
    names += ["player3", "player4", "result", "termination", "sides", "plies", "status"]
    names += ["final_position", "opening"]
    if with_ply:
        names.extend(POSITION_COLUMNS)
    if with_pattern:
        names.append("pattern_ply")
    return names


def cell(row: dict, name: str) -> str:
    if name.startswith("player") and name[-1].isdigit():
        players = row.get("players") or []
        seat = int(name[-1]) - 1
        return players[seat] if seat < len(players) else ""
    if name == "players":
        return " - ".join(row.get("players") or [])
    value = row.get(name)
    return "" if value is None else str(value)


def write_delimited(
    rows: Sequence[dict], stream: TextIO, *, tabs: bool, with_ply: bool, with_pattern: bool = False
) -> None:
    """The rows as CSV (``tabs=False``) or TSV, with a header line."""
    names = columns(with_ply=with_ply, with_pattern=with_pattern)
    if tabs:
        stream.write("\t".join(names) + "\n")
        for row in rows:
            stream.write("\t".join(printable(cell(row, name)) for name in names) + "\n")
        return
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(names)
    writer.writerows([cell(row, name) for name in names] for row in rows)


def write_json_lines(rows: Sequence[dict], stream: TextIO) -> None:
    """One JSON object per game and line, as ``--json`` gives them."""
    for row in rows:
        stream.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_plain_table(
    rows: Sequence[dict], stream: TextIO, *, with_ply: bool, with_pattern: bool = False
) -> None:
    """The table's columns aligned with spaces, one line per game, never wrapped."""
    names = [
        *TABLE_COLUMNS,
        *(POSITION_COLUMNS if with_ply else ()),
        *(["pattern_ply"] if with_pattern else []),
    ]
    cells = [[printable(cell(row, name)) for name in names] for row in rows]
    widths = [
        max([len(name), *(len(line[index]) for line in cells)]) for index, name in enumerate(names)
    ]
    for line in [names, *cells]:
        padded = (text.ljust(width) for text, width in zip(line, widths, strict=True))
        stream.write("  ".join(padded).rstrip() + "\n")
