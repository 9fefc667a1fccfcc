"""Tables as the CLI prints them, and the game list of `partita query` as text: CSV,
TSV, JSON lines, a plain table.

Every table of the CLI goes through :func:`print_table`: on a terminal a rich table
fitted to its width, whose cells wrap and are never cut; piped or redirected, plain
columns aligned with spaces, whole whatever their width (a value is never shortened
to ``…``).

One row per game, with the same columns in every form (:func:`columns`). CSV is
written exactly (quoted where needed); TSV, which cannot quote, and the plain
table show control characters as escapes (``\\t``, ``\\x1b``: see
:mod:`partita.cli.display`), so a value never splits a row or acts on a terminal.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Collection, Sequence
from typing import TextIO

from partita.cli.display import printable

__all__ = [
    "POSITION_COLUMNS",
    "TABLE_COLUMNS",
    "cell",
    "columns",
    "print_table",
    "write_aligned",
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
    write_aligned(names, [[cell(row, name) for name in names] for row in rows], stream)


def write_aligned(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    stream: TextIO,
    *,
    right: Collection[int] = (),
) -> None:
    """``rows`` under ``headers`` in columns aligned with spaces (the columns whose
    index is in ``right`` to the right), one line per row, nothing cut or wrapped;
    control characters shown as escapes."""
    cells = [[printable(text) for text in line] for line in rows]
    widths = [
        max([len(name), *(len(line[index]) for line in cells)])
        for index, name in enumerate(headers)
    ]
    for line in [list(headers), *cells]:
        padded = (
            text.rjust(width) if index in right else text.ljust(width)
            for index, (text, width) in enumerate(zip(line, widths, strict=True))
        )
        stream.write("  ".join(padded).rstrip() + "\n")


def print_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    right: Collection[int] = (),
    title: str | None = None,
    wrap: Collection[int] = (),
    optional: Collection[int] = (),
) -> None:
    """A table on standard output that never loses a value: on a terminal, a rich
    table fitted to its width; piped or redirected, ``title`` on a line and the
    columns aligned with spaces (:func:`write_aligned`), one line per row.

    On a terminal the columns of ``wrap`` (free text: a description, a list of
    games) wrap between words to fit, and fold a word too long for them; the
    others (a move, a number, a date) are kept whole on their line. Nothing is cut
    to ``…``. The ``optional`` columns (a name that only adds to a row) are left
    out, last first, where the terminal is too narrow for them, and a line under
    the table says so. ``right``: the columns aligned to the right (numbers)."""
    if not sys.stdout.isatty():
        if title is not None:
            sys.stdout.write(printable(title) + "\n")
        write_aligned(headers, rows, sys.stdout, right=right)
        return
    from rich.table import Table

    from partita.cli.display import plain
    from partita.cli.output import stdout_console

    console = stdout_console()
    widths = [
        max([len(name), *(len(printable(line[index])) for line in rows)])
        for index, name in enumerate(headers)
    ]
    # A column that wraps keeps room for a word of 10 characters.
    least = [min(width, 10) if index in wrap else width for index, width in enumerate(widths)]
    shown = list(range(len(headers)))
    left_out: list[str] = []
    for index in sorted(optional, reverse=True):
        if sum(least[column] + 2 for column in shown) - 2 <= console.width:
            break
        shown.remove(index)
        left_out.insert(0, headers[index])
    table = Table(
        title=None if title is None else plain(title),
        box=None,
        padding=(0, 1),
        pad_edge=False,
        header_style="bold",
    )
    for index in shown:
        table.add_column(
            headers[index],
            justify="right" if index in right else "left",
            overflow="fold",
            no_wrap=index not in wrap,
            min_width=least[index],
        )
    for line in rows:
        table.add_row(*(plain(line[index]) for index in shown))
    console.print(table)
    if left_out:
        console.print(
            f"({', '.join(left_out)}: not shown at this width; a wider terminal, a pipe "
            "(| less -S) or --json shows {})".format("them" if len(left_out) > 1 else "it"),
            markup=False,
            soft_wrap=True,
        )
