"""Player statistics: partita players (a table, a head-to-head, a crosstable).

The statistics code is imported by the command, so that start-up stays light (see
:mod:`partita.cli.app`).
"""

import dataclasses
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from partita.cli.app import app
from partita.cli.display import count, printable
from partita.cli.filters import filter_options
from partita.cli.options import ArchiveOption, JsonOption, existing_archive

if TYPE_CHECKING:
    from partita.database.filters import GameFilter
    from partita.database.players import Crosstable, HeadToHead, PlayerStats


@app.command()
@filter_options()
def players(
    db: ArchiveOption = None,
    vs: Annotated[
        str | None,
        typer.Option("--vs", help="A head-to-head: the --player's games against this player."),
    ] = None,
    crosstable: Annotated[
        bool,
        typer.Option("--crosstable", help="The crosstable of the --event (one per game)."),
    ] = False,
    as_json: JsonOption = False,
    selection: "GameFilter | None" = None,
) -> None:
    """Per player and game: games, results by seat, score, first and last date and Elo
    rating; or a head-to-head (--vs), or an event's crosstable (--crosstable).
    Here --player chooses the rows (players whose name holds it), not the games."""
    from partita.database.filters import GameFilter
    from partita.database.players import crosstables, head_to_head, player_stats
    from partita.database.schema import archive

    chosen_filter = selection if selection is not None else GameFilter()
    player = list(chosen_filter.players)
    # --player chooses the rows here, not the games
    chosen_filter = dataclasses.replace(chosen_filter, players=())
    if vs is not None and len(player or []) != 1:
        raise typer.BadParameter("a head-to-head needs one --player NAME", param_hint="--vs")
    if crosstable and not chosen_filter.events:
        raise typer.BadParameter("name the event: --event NAME", param_hint="--crosstable")
    if crosstable and vs is not None:
        raise typer.BadParameter("either --vs or --crosstable", param_hint="--crosstable")
    target = existing_archive(db)
    chosen = {"selection": chosen_filter}
    if vs is not None:
        with archive(target, readonly=True) as opened:
            meetings = head_to_head(opened, player[0], vs, **chosen)
        if as_json:
            typer.echo(json.dumps([m.as_dict() for m in meetings], ensure_ascii=False, indent=2))
        else:
            _print_meetings(meetings, player[0], vs)
        return
    if crosstable:
        with archive(target, readonly=True) as opened:
            tables = crosstables(opened, **chosen)
        if as_json:
            typer.echo(json.dumps([t.as_dict() for t in tables], ensure_ascii=False, indent=2))
        else:
            _print_crosstables(tables)
        return
    with archive(target, readonly=True) as opened:
        rows = player_stats(opened, names=player or (), **chosen)
    if as_json:
        typer.echo(json.dumps([row.as_dict() for row in rows], ensure_ascii=False, indent=2))
    else:
        _print_stats(rows)


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    """Plain aligned columns (no box drawing: it pipes and greps)."""
    widths = [len(header) for header in headers]
    for row in rows:
        widths = [max(width, len(cell)) for width, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.rjust(width) if column in right else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(headers), *(line(row) for row in rows)]


def _points(value: float) -> str:
    return f"{value:g}"


def _print_stats(rows: list["PlayerStats"]) -> None:
    if not rows:
        typer.echo("no player in the selected games")
        return
    by_game: dict[str, list[PlayerStats]] = {}
    for row in rows:
        by_game.setdefault(row.game, []).append(row)
    for number, (game, entries) in enumerate(by_game.items()):
        if number:
            typer.echo("")
        seats = sorted({seat for entry in entries for seat in entry.seats})
        headers = [
            "player",
            "games",
            *(f"P{seat} W/D/L" for seat in seats),
            "points",
            "score",
            "first",
            "last",
            "Elo",
            "rated",
        ]
        cells = []
        for entry in entries:
            seat_cells = []
            for seat in seats:
                record = entry.seats.get(seat)
                if record is None:
                    seat_cells.append("")
                    continue
                text = f"{record.won}/{record.drawn}/{record.lost}"
                if record.unfinished:
                    text += f" +{record.unfinished}*"
                seat_cells.append(text)
            cells.append(
                [
                    entry.name,
                    str(entry.games),
                    *seat_cells,
                    f"{_points(float(entry.points))}/{entry.decided}",
                    "" if entry.score is None else f"{entry.score:.0%}",
                    entry.first_date or "",
                    entry.last_date or "",
                    "" if entry.rating is None else f"{entry.rating.rating:.0f}",
                    "" if entry.rating is None else str(entry.rating.games),
                ]
            )
        typer.echo(printable(f"{game}: {count(len(entries), 'player')}"))
        right = {1, *range(2 + len(seats), len(headers))} - {
            len(headers) - 4,
            len(headers) - 3,
        }
        for text in _table(headers, cells, right):
            typer.echo(printable(f"  {text}"))


def _print_meetings(meetings: list["HeadToHead"], player: str, opponent: str) -> None:
    if not meetings:
        typer.echo(
            printable(f"{player} and {opponent} have not played each other in the selected games")
        )
        return
    typer.echo(printable(f"{meetings[0].player} vs {meetings[0].opponent}"))
    for meeting in meetings:
        data = meeting.as_dict()
        score = "" if data["score"] is None else f" ({data['score']:.0%})"
        dates = (
            f", {meeting.first_date} to {meeting.last_date}"
            if meeting.first_date and meeting.last_date
            else ""
        )
        unfinished = f" ({meeting.unfinished} unfinished)" if meeting.unfinished else ""
        ids = " ".join(str(game_id) for game_id in meeting.ids)
        typer.echo(
            printable(
                f"  {meeting.game}: {count(meeting.games, 'game')}{unfinished}, +{meeting.won} "
                f"={meeting.drawn} -{meeting.lost}, {_points(data['points'])} points{score}"
                f"{dates}; games {ids}"
            )
        )


def _print_crosstables(tables: list["Crosstable"]) -> None:
    if not tables:
        typer.echo("no game of that event")
        return
    for number, table in enumerate(tables):
        if number:
            typer.echo("")
        typer.echo(printable(f"{table.event} ({table.game})"))
        size = len(table.players)
        headers = ["#", "player", *(str(rank) for rank in range(1, size + 1)), "points", "games"]
        cells = [
            [
                str(entry["rank"]),
                entry["name"],
                *("×" if cell is None else cell for cell in entry["results"]),
                _points(entry["points"]),
                str(entry["games"]),
            ]
            for entry in table.players
        ]
        for text in _table(headers, cells, {0, size + 2, size + 3}):
            typer.echo(printable(f"  {text}"))
