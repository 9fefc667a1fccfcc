"""The balance page ``/balance``: the balance report of the archive's games (a
simulated archive: `partita simulate`), per game and configuration: every seat's
score with its 95% interval drawn as a bar against the fair share, the first
seat's advantage, lengths and rule events (:func:`partita.analysis.balance.balance`,
the same figures as `partita balance --json`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from partita.errors import PartitaError
from partita.web.app import request_archive
from partita.web.queries import filter_from, filter_query
from partita.web.templating import render

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = ["balance_data", "routes"]


def balance_data(db: Archive, params: Any) -> list[Any]:
    """The :class:`~partita.analysis.balance.ConfigurationBalance` of each game and
    configuration among the games the query's filters select."""
    from partita.analysis.balance import balance

    return balance(db, workers=1, selection=filter_from(params))


def balance_page(request: Request) -> Response:
    from partita.analysis.report.balance import describe_advantage
    from partita.game.registry import all_specs

    params = request.query_params
    context: dict[str, Any] = {
        "games": [(spec.name, spec.title) for spec in all_specs()],
        "filters": filter_query(params),
    }
    status = 200
    try:
        entries = balance_data(request_archive(request), params)
    except PartitaError as error:
        entries, status = [], 400
        context["error"] = str(error)
    context["entries"] = [
        {"entry": entry, "data": entry.as_dict(), "sentence": describe_advantage(entry)}
        for entry in entries
    ]
    return render(request, "balance.html", context, status=status)


routes: list[BaseRoute] = [Route("/balance", balance_page, name="balance")]
