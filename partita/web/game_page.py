"""A game at ``/games/{id}``: its board, the move list with variations, comments
and NAGs, step controls and keys, the evaluation curve, its problems and its text;
the board of any of its nodes at ``/games/{id}/board.svg?node=N``, its text at
``/games/{id}.pgr``."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from partita.errors import ArchiveError
from partita.web.app import request_archive
from partita.web.game_view import GameView, game_view, move_list
from partita.web.positions import SVG_HEADERS, board_svg
from partita.web.queries import number
from partita.web.templating import render, url

__all__ = ["load_view", "routes"]

#: NAG numbers as glyphs (the common ones; others show as $N).
NAG_GLYPHS = {1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!", 7: "□", 8: "□", 10: "=", 13: "∞", 14: "⩲", 15: "⩱",
              16: "±", 17: "∓", 18: "+−", 19: "−+", 22: "⨀", 23: "⨀"}  # fmt: skip
NAG_NAMES = {1: "good move", 2: "mistake", 3: "brilliant move", 4: "blunder", 5: "interesting move",
             6: "dubious move", 7: "forced move", 8: "only move", 10: "equal position", 13: "unclear position", 14: "slight advantage",
             15: "slight disadvantage", 16: "moderate advantage", 17: "moderate disadvantage",
             18: "decisive advantage", 19: "decisive disadvantage", 22: "zugzwang", 23: "zugzwang"}  # fmt: skip


def load_view(request: Request, game_id: int) -> GameView:
    try:
        return game_view(request_archive(request), game_id)
    except ArchiveError as error:
        if "there is no game" in str(error):
            raise HTTPException(404, str(error)) from None
        raise


def _game_id(request: Request) -> int:
    try:
        found = int(request.path_params["game_id"])
    except ValueError:
        raise HTTPException(404, "a game is named by its number") from None
    if not 1 <= found <= 2**63 - 1:
        raise HTTPException(404, f"there is no game {found} in the archive")
    return found


def _start_node(view: GameView, request: Request) -> int:
    params = request.query_params
    if "node" in params:
        return number(params, "node", 0, 0, len(view.nodes) - 1)
    if "ply" in params:
        ply = number(params, "ply", 0, 0, 10_000_000)
        legal = [n for n in view.mainline if view.nodes[n]["position"] is not None]
        return legal[min(ply, len(legal) - 1)] if legal else 0
    # an invalid record opens at its last legal move
    legal = [n for n in view.mainline if view.nodes[n]["position"] is not None]
    return legal[-1] if view.status != "valid" and legal else 0


def _curve(view: GameView) -> dict[str, Any] | None:
    """The evaluation curve as SVG points: one polyline per seat, the marks."""
    if len(view.evals) < 2:
        return None
    last_ply = max(len(view.mainline) - 1, 1)
    width, height = 600, 120
    seats = len(view.evals[0][1])
    lines = []
    for seat in range(seats):
        points = " ".join(
            f"{ply * width / last_ply:.1f},{(1 - value[seat]) * height:.1f}"
            for ply, value in view.evals
            if seat < len(value)
        )
        lines.append({"seat": seat + 1, "points": points})
    marks = []
    for ply, node_id in enumerate(view.mainline):
        node = view.nodes[node_id]
        if node["suffix"] in ("?", "??") or any(nag in (2, 4) for nag in node["nags"]):
            marks.append({"x": f"{ply * width / last_ply:.1f}", "node": node_id,
                          "mark": node["suffix"] or "?", "ply": ply})  # fmt: skip
    return {"width": width, "height": height, "lines": lines, "marks": marks}


def game_page(request: Request) -> Response:
    game_id = _game_id(request)
    view = load_view(request, game_id)
    current = _start_node(view, request)
    players = [
        value for name, value in view.tags if name.startswith("Player") and name[6:].isdigit()
    ]
    client = {
        "id": view.id,
        "game": view.game_name,
        "sides": view.sides,
        "tags": [f"{name}={value}" for name, value in view.settings],
        "current": current,
        "mainline": view.mainline,
        "nodes": [
            {
                "p": node["parent"],
                "k": node["children"],
                "pos": node["position"],
                "m": node["move"],
                "l": node["label"],
            }
            for node in view.nodes
        ],  # fmt: skip
    }
    return render(
        request,
        "game.html",
        {
            "view": view,
            "title": " – ".join(players) or f"Game {game_id}",
            "items": move_list(view),
            "current": current,
            "current_node": view.nodes[current],
            "client": client,
            "curve": _curve(view),
            "nag_glyphs": NAG_GLYPHS,
            "nag_names": NAG_NAMES,
            "configuration": ", ".join(
                [f"{view.sides} sides", *(f"{n} {v}" for n, v in view.settings)]
            ),
            "links": {
                name: url(
                    path,
                    game=view.game_name,
                    sides=view.sides,
                    tag=client["tags"],
                    position=view.nodes[current]["position"],
                )  # fmt: skip
                for name, path in (
                    ("find", "/"),
                    ("analyse", "/analysis"),
                    ("explore", "/explorer"),
                )
            },
        },
    )


def game_board(request: Request) -> Response:
    view = load_view(request, _game_id(request))
    node_id = number(request.query_params, "node", 0, 0, len(view.nodes) - 1)
    state = view.states[node_id]
    if state is None or view.game is None:
        raise HTTPException(404, f"move {node_id} of game {view.id} is past its last legal move")
    parent = view.nodes[node_id]["parent"]
    previous = view.states[parent] if parent is not None else None
    caption = view.nodes[node_id]["position"] or ""
    svg = board_svg(view.game, state, previous=previous, caption=caption)
    return Response(svg, media_type="image/svg+xml", headers=SVG_HEADERS)


def game_text(request: Request) -> Response:
    view = load_view(request, _game_id(request))
    return Response(
        view.pgr if view.pgr.endswith("\n") else view.pgr + "\n",
        media_type="text/plain; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="game-{view.id}.pgr"'},
    )


routes: list[BaseRoute] = [
    Route("/games/{game_id}.pgr", game_text, name="game_text"),
    Route("/games/{game_id}/board.svg", game_board, name="game_board"),
    Route("/games/{game_id}", game_page, name="game"),
]
