"""The archive's pages: the games in pages, with query's filters."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from partita.web.app import settings
from partita.web.templating import render


async def games_page(request: Request) -> Response:
    from partita.database.query import query_games

    rows = query_games(settings(request).db, limit=50)
    return render(request, "games.html", {"rows": rows})


routes: list[BaseRoute] = [Route("/", games_page, name="games")]
