"""The players page ``/players``: per player and game their games, results by seat,
score and Elo (:func:`partita.database.players.player_stats`); a head-to-head
(``player`` and ``vs``) and an event's crosstable (``event`` and ``crosstable``),
as `partita players` gives them."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from partita.errors import PartitaError
from partita.web.app import request_archive
from partita.web.queries import filter_from, filter_query, text
from partita.web.templating import render

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = ["players_data", "routes"]

#: The most player rows a page shows.
MOST_ROWS = 500


def players_data(db: Archive, params: Any) -> dict[str, Any]:
    """``mode`` (``players``, ``vs``, ``crosstable``) and its rows, as `partita
    players --json` prints them (``rows``: dicts)."""
    from partita.database.players import crosstables, head_to_head, player_stats

    selection = filter_from(params)
    names = list(selection.players)
    selection = dataclasses.replace(selection, players=())
    opponent = text(params, "vs")
    if opponent is not None:
        if len(names) != 1:
            raise PartitaError("a head-to-head needs one player: player=NAME&vs=NAME")
        rows = [m.as_dict() for m in head_to_head(db, names[0], opponent, selection=selection)]
        return {"mode": "vs", "rows": rows, "player": names[0], "vs": opponent}
    if text(params, "crosstable") is not None:
        if not selection.events:
            raise PartitaError("name the event for its crosstable: event=NAME")
        rows = [table.as_dict() for table in crosstables(db, selection=selection)]
        return {"mode": "crosstable", "rows": rows}
    stats = player_stats(db, names=names, selection=selection)
    return {"mode": "players", "rows": [row.as_dict() for row in stats[:MOST_ROWS]],
            "total": len(stats)}  # fmt: skip


def players_page(request: Request) -> Response:
    from partita.game.registry import all_specs

    params = request.query_params
    context: dict[str, Any] = {
        "games": [(spec.name, spec.title) for spec in all_specs()],
        "filters": filter_query(params),
        "vs": text(params, "vs") or "",
        "most": MOST_ROWS,
    }
    status = 200
    try:
        context.update(players_data(request_archive(request), params))
    except PartitaError as error:
        context.update(error=str(error), mode="players", rows=[], total=0)
        status = 400
    return render(request, "players.html", context, status=status)


routes: list[BaseRoute] = [Route("/players", players_page, name="players")]
