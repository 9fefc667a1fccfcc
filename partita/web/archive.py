"""The archive's pages: the games in pages with query's filters (``/``), and the
opening names (``/openings``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from partita.errors import PartitaError
from partita.web.app import request_archive
from partita.web.queries import Listing, filter_from, filter_query, text
from partita.web.templating import render, url

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = ["games_listing", "routes"]

#: The sortable columns of the games table: (sort key, header).
COLUMNS = [
    ("id", "#"),
    ("game", "Game"),
    ("date", "Date"),
    ("event", "Event"),
    ("player1", "Players"),
    ("result", "Result"),
    ("plies", "Plies"),
    ("status", "Status"),
]


def games_listing(db: Archive, params: Any) -> dict[str, Any]:
    """One page of the games matching the query's filters: ``games`` (the rows of
    `partita query --json`), ``total``, ``page``, ``pages``, ``per_page``,
    ``sort``, ``desc``, ``filters``."""
    from partita.database.query import ORDERS, count_games, query_games

    listing = Listing.from_query(params, ORDERS)
    selection = filter_from(params)
    total = count_games(db, selection)
    rows = query_games(
        db,
        selection,
        limit=listing.per_page,
        order=listing.order,
        descending=listing.descending,
        offset=listing.offset,
    )
    return {
        "games": rows,
        "total": total,
        "page": listing.page,
        "pages": max(1, math.ceil(total / listing.per_page)),
        "per_page": listing.per_page,
        "sort": listing.order,
        "desc": listing.descending,
        "filters": filter_query(params),
    }


def _game_names() -> list[tuple[str, str]]:
    from partita.game.registry import all_specs

    return [(spec.name, spec.title) for spec in all_specs()]


def games_page(request: Request) -> Response:
    params = request.query_params
    context: dict[str, Any] = {"games_list": _game_names(), "columns": COLUMNS}
    try:
        context.update(games_listing(request_archive(request), params))
        status = 200
    except PartitaError as error:
        context.update(
            error=str(error), games=[], total=0, page=1, pages=1, filters=filter_query(params)
        )
        context.setdefault("sort", "id")
        context.setdefault("desc", False)
        status = 400
    filters = context["filters"]
    page_query = {**filters, "sort": context["sort"], "desc": int(context["desc"])}

    def page_url(page: int) -> str:
        return url("/", **page_query, page=page)

    def sort_url(column: str) -> str:
        descending = column == context["sort"] and not context["desc"]
        return url("/", **filters, sort=column, desc=int(descending))

    context.update(page_url=page_url, sort_url=sort_url, first=None)
    if context["games"]:
        start = (context["page"] - 1) * context.get("per_page", 50) + 1
        context["first"] = start
        context["last"] = start + len(context["games"]) - 1
    return render(request, "games.html", context, status=status)


def openings_page(request: Request) -> Response:
    """Every game's opening names, each linked to its games and to the explorer."""
    from partita.database.openings import opening_book
    from partita.game.registry import all_specs

    wanted = text(request.query_params, "q")
    books: list[dict[str, Any]] = []
    for spec in all_specs():
        try:
            book = opening_book(spec.name)
        except PartitaError as error:
            books.append({"game": spec.name, "title": spec.title, "error": str(error), "names": []})
            continue
        names = book.matching(wanted) if wanted else book.names()
        if names or not wanted:
            books.append({"game": spec.name, "title": spec.title, "names": names})
    return render(request, "openings.html", {"books": books, "q": wanted or ""})


routes: list[BaseRoute] = [
    Route("/", games_page, name="games"),
    Route("/openings", openings_page, name="openings"),
]
