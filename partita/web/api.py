"""The JSON API behind the pages (``docs/web.md``): the same data as the CLI's
``--json``, under ``/api/``. Errors are ``{"error": reason, "status": N}``.

* ``GET /api/games``: a page of games with query's filters (the rows of
  `partita query --json`), ``total``, ``page``, ``pages``, ``per_page``;
* ``GET /api/games/{id}``: one game: tags, configuration, its move tree's nodes
  (each with the position after it), problems, evaluations, the stored text;
* ``GET /api/positions``: a position (``game``, ``sides``, ``tag``, ``position``,
  ``moves``): its notation, side to move, outcome, legal moves, and how many games
  of the archive reach it;
* ``GET /api/tree``: the explorer's tree from a position, as `partita tree --json`;
* ``GET /api/players``: as `partita players --json` (``vs``, ``crosstable``);
* ``GET /api/balance``: as `partita balance --json`;
* ``GET``/``POST /api/analysis``, ``GET /api/analysis/{id}``, ``POST
  /api/analysis/{id}/cancel``: analysis jobs (:mod:`partita.web.analysis_jobs`).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from partita.web.app import request_archive
from partita.web.archive import games_listing
from partita.web.game_page import _game_id, load_view
from partita.web.positions import position_from

__all__ = ["routes"]


class _JSON(JSONResponse):
    """JSON with its non-ASCII text as it is (names with accents stay readable)."""

    def render(self, content: Any) -> bytes:
        import json

        return json.dumps(content, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode("utf-8")  # fmt: skip


def api_games(request: Request) -> Response:
    return _JSON(games_listing(request_archive(request), request.query_params))


def api_game(request: Request) -> Response:
    return _JSON(load_view(request, _game_id(request)).as_dict())


def api_position(request: Request) -> Response:
    from partita.database.query import count_games

    ref = position_from(request.query_params)
    game = ref.notation()
    state = ref.state()
    rules = game.rules
    outcome = rules.outcome(state)
    side = rules.side_to_move(state)
    text = ref.text()
    return _JSON(
        {
            "game": ref.game,
            "sides": ref.sides,
            "settings": dict(ref.tags),
            "position": text,
            "side_to_move": side + 1 if side >= 0 and outcome is None else None,
            "outcome": None
            if outcome is None
            else {"scores": [float(s) for s in outcome.scores], "reason": outcome.reason},
            "legal_moves": []
            if outcome is not None
            else [game.format_move(state, move) for move in rules.legal_moves(state)],
            "games": count_games(
                request_archive(request), game=ref.game, position=text, **ref.set_up_filters()
            ),
        }
    )


def api_tree(request: Request) -> Response:
    from partita.analysis.tree.export import tree_as_dict
    from partita.web.explorer import explore

    _, tree, _ = explore(request_archive(request), request.query_params)
    return _JSON(tree_as_dict(tree))


def api_players(request: Request) -> Response:
    from partita.web.players import players_data

    return _JSON(players_data(request_archive(request), request.query_params)["rows"])


def api_balance(request: Request) -> Response:
    from partita.web.balance_page import balance_data

    entries = balance_data(request_archive(request), request.query_params)
    return _JSON([entry.as_dict() for entry in entries])


routes: list[BaseRoute] = [
    Route("/api/games", api_games, name="api_games"),
    Route("/api/games/{game_id}", api_game, name="api_game"),
    Route("/api/positions", api_position, name="api_position"),
    Route("/api/tree", api_tree, name="api_tree"),
    Route("/api/players", api_players, name="api_players"),
    Route("/api/balance", api_balance, name="api_balance"),
]
