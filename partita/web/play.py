"""Play and enter games: ``/play`` (the games), ``/play/{game}`` (a new game of any
configuration: sides, the game's own tags, a start position, a person or an agent
at every seat) and ``/play/{game}/{id}`` (the game being played).

A game being played is a :class:`~partita.analysis.play.PlaySession` (the same as
`partita play`'s) kept in the running app. A person moves by clicking the board
(the regions its board declares: the page narrows the legal moves click by click
until one is left) or by the list of legal moves; a move the rules refuse is
refused with the problem `validate` reports. Agents answer in a thread of their
own, off the request path, their budgets bounded by the server's analysis limits;
the page asks for the state until they have played. In a game with hidden
information each person sees only their seat's view (the board, the position, the
moves and the narration), unless the game was started as an open table. With
``--write`` the record is stored through `partita import`'s path (strict replay,
then :func:`~partita.bulk.importer.import_records`).

The JSON under ``/play/{game}/{id}``: ``GET state``; ``POST move`` (``{"move":
token}`` or ``{"regions": [id, ...]}``), ``undo``, ``comment`` (``{"text": ...}``),
``claim`` (``{"claim": "resign" | "draw" | RESULT, "how": ...}``), ``save``; each
answers with the new state, and a refusal with ``refused`` true and the rules'
reason in ``message``.
"""

from __future__ import annotations

import random
import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from partita.errors import PartitaError
from partita.web.app import WebSettings, settings
from partita.web.templating import render

__all__ = ["AGENT_CHOICES", "PlayGame", "routes"]

#: The agents offered at a seat (any other spec may be typed).
AGENT_CHOICES = ("random", "greedy", "mcts:200", "mcts:1000", "mcts:2s")
#: Games kept in a running server at most (the oldest is dropped first).
MOST_GAMES = 100
#: The most characters of a comment, a player's name.
MOST_TEXT = 2000


@dataclass
class PlayGame:
    """One game being played: its session, who plays, and what the page shows."""

    id: str
    name: str
    session: Any  # PlaySession
    lock: threading.RLock = field(default_factory=threading.RLock)
    thinking: bool = False
    message: str = ""
    saved: str = ""
    snapshot: dict[str, Any] = field(default_factory=dict)


def _games(request: Request) -> OrderedDict[str, PlayGame]:
    extra = settings(request).extra
    with _STORE_LOCK:
        found = extra.get("play_games")
        if found is None:
            found = extra["play_games"] = OrderedDict()
    games: OrderedDict[str, PlayGame] = found
    return games


_STORE_LOCK = threading.Lock()


def _game(request: Request) -> PlayGame:
    name = request.path_params["game"]
    found = _games(request).get(request.path_params["play_id"])
    if found is None or found.name != name:
        raise HTTPException(404, "there is no such game being played (the server restarted?)")
    return found


# -- the pages --------------------------------------------------------------------------------


def play_index(request: Request) -> Response:
    from partita.game.registry import all_specs

    games = []
    for spec in all_specs():
        try:
            rules = spec.game.rules
        except PartitaError:
            continue
        games.append({"name": spec.name, "title": spec.title, "sides": _sides_text(rules)})
    return render(request, "play_index.html", {"games": games})


def _sides_text(rules: Any) -> str:
    if rules.min_sides == rules.max_sides:
        return f"{rules.min_sides} sides"
    return f"{rules.min_sides}-{rules.max_sides} sides"


def _notation(name: str) -> Any:
    from partita.game.registry import get_game

    try:
        return get_game(name)
    except PartitaError as error:
        raise HTTPException(404, str(error)) from None


def new_game_page(request: Request) -> Response:
    game = _notation(request.path_params["game"])
    return render(request, "play_new.html", _form_context(game, {}, ""))


def _form_context(game: Any, values: dict[str, str], error: str) -> dict[str, Any]:
    rules = game.rules
    tags = [
        {
            "name": tag.name,
            "description": tag.description,
            "choices": list(tag.values) if tag.values else None,
            "value": values.get(f"tag_{tag.name}", tag.default or ""),
        }
        for tag in rules.tags
    ]
    seats = []
    for seat in range(rules.max_sides):
        default = "human" if seat == 0 else "mcts:200"
        seats.append(
            {
                "number": seat + 1,
                "who": values.get(f"seat{seat + 1}", default),
                "name": values.get(f"name{seat + 1}", ""),
            }
        )
    return {
        "game": game,
        "title": rules.title,
        "tags": tags,
        "seats": seats,
        "sides": list(range(rules.min_sides, rules.max_sides + 1)),
        "chosen_sides": values.get("sides", str(rules.min_sides)),
        "position": values.get("position", ""),
        "agents": AGENT_CHOICES,
        "hidden": rules.hidden_information,
        "open_table": values.get("open_table") == "on",
        "error": error,
    }


async def start_game(request: Request) -> Response:
    name = request.path_params["game"]
    game = _notation(name)
    # an urlencoded form, read with the standard library (no multipart parser needed)
    body = (await request.body()).decode("utf-8", "replace")
    values = {key: value[:MOST_TEXT] for key, value in parse_qsl(body, keep_blank_values=True)}
    try:
        started = await run_in_threadpool(_start, settings(request), game, values)
    except PartitaError as error:
        context = _form_context(game, values, str(error))
        return render(request, "play_new.html", context, status=400)
    games = _games(request)
    with _STORE_LOCK:
        games[started.id] = started
        while len(games) > MOST_GAMES:
            games.popitem(last=False)
    _agents_play(started, settings(request))
    return RedirectResponse(f"/play/{name}/{started.id}", status_code=303)


def _start(chosen: WebSettings, game: Any, values: dict[str, str]) -> PlayGame:
    """A new game from the form's values; ``PartitaError`` naming a bad one."""
    from partita.analysis.play import HUMAN, PlaySession
    from partita.game.configuration import configure_game
    from partita.notation.scoresheet import Scoresheet

    rules = game.rules
    try:
        sides = int(values.get("sides") or rules.min_sides)
    except ValueError:
        raise PartitaError("the number of sides is a number") from None
    tags = {}
    for tag in rules.tags:
        value = values.get(f"tag_{tag.name}", "").strip()
        if value and value != (tag.default or ""):
            tags[tag.name] = value
    configured, _ = configure_game(game, tags, sides)
    start = None
    position = values.get("position", "").strip()
    if position:
        start = configured.parse_position(position, sides)
        sides = configured.rules.sides(start)
    agents: dict[int, str] = {}
    names = []
    for seat in range(sides):
        who = values.get(f"seat{seat + 1}", "human").strip() or "human"
        if who != "human":
            _bounded(chosen, who)  # parses it too
            agents[seat] = who
        name = values.get(f"name{seat + 1}", "").strip()
        names.append(name or (who if who != "human" else HUMAN))
    sheet = Scoresheet(configured, names, tags=tags, start=start)
    session = PlaySession(
        sheet,
        agents,
        seed=random.Random(secrets.randbits(32)).randrange(2**31),
        open_table=values.get("open_table") == "on",
    )
    played = PlayGame(secrets.token_hex(8), game.name, session)
    played.snapshot = _snapshot(played, chosen)
    return played


def _bounded(chosen: WebSettings, spec: str) -> None:
    """Refuse an agent whose budget is beyond the server's analysis limits."""
    kind, options = chosen.served_agent(spec)
    if kind != "mcts":
        return
    if options.get("playouts", 0) > chosen.max_iterations:
        raise PartitaError(f"agent '{spec}': at most {chosen.max_iterations} playouts a move here")
    if options.get("seconds", 0) > chosen.max_seconds:
        raise PartitaError(f"agent '{spec}': at most {chosen.max_seconds:g} seconds a move here")


def game_page(request: Request) -> Response:
    played = _game(request)
    snapshot = played.snapshot
    return render(
        request,
        "play.html",
        {"played": played, "state": snapshot, "title": snapshot["title"]},
    )


# -- the JSON of a game ---------------------------------------------------------------------


def state(request: Request) -> Response:
    # the snapshot is replaced whole, never changed: read without waiting for an
    # agent that is thinking under the lock
    return JSONResponse(_game(request).snapshot)


async def _body(request: Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise PartitaError("the request's body is a JSON object")
    return data


def _answer(
    played: PlayGame, chosen: WebSettings, error: str = "", *, incomplete: bool = False
) -> Response:
    with played.lock:
        played.message = error
        played.snapshot = _snapshot(played, chosen)
        snapshot = played.snapshot
    # a refused move is an answer of the game, not a failed request: 200, with
    # the reason in ``message`` and ``refused`` true (``incomplete``: the clicks
    # begin no legal move and spell no move yet: the page keeps them)
    return JSONResponse({**snapshot, "refused": bool(error), "incomplete": incomplete})


async def move(request: Request) -> Response:
    played, chosen = _game(request), settings(request)
    data = await _body_or_empty(request)
    if data is None:
        return _not_json()
    return await run_in_threadpool(_move, played, chosen, data)


async def _body_or_empty(request: Request) -> dict[str, Any] | None:
    """The request's JSON object (``{}`` for no body); ``None`` for a body that is
    no JSON object."""
    if not (await request.body()).strip():
        return {}
    try:
        return await _body(request)
    except PartitaError:
        return None


def _not_json() -> Response:
    """A body the page never sends: the request is refused (400, as JSON)."""
    reason = 'the body is not a JSON object (such as {"move": "t4"})'
    return JSONResponse({"error": reason, "status": 400}, status_code=400)


def _move(played: PlayGame, chosen: WebSettings, data: dict[str, Any]) -> Response:
    from partita.analysis.diagrams import board_for
    from partita.notation.replay import MoveRefused

    session = played.session
    with played.lock:
        if played.thinking:
            return _answer(played, chosen, "the agents are playing: wait for your turn")
        token = data.get("move")
        regions = data.get("regions")
        if token is None and isinstance(regions, list) and regions:
            clicks = [str(region)[:200] for region in regions[:200]]
            token = board_for(session.game).move_text(session.sheet.state, clicks)
            if token is None:
                return _answer(
                    played,
                    chosen,
                    "no legal move begins so: finish the move to hear why, or clear",
                    incomplete=True,
                )
        if not isinstance(token, str) or len(token) > 10_000:
            return _answer(played, chosen, "which move? send a move or the regions clicked")
        if session.turn().kind not in ("human", "answer", "chance"):
            return _answer(played, chosen, "it is not a person's turn")
        try:
            session.handle(token)
        except MoveRefused as error:
            return _answer(played, chosen, error.problem.message)
        except PartitaError as error:
            return _answer(played, chosen, str(error))
    _agents_play(played, chosen)
    return _answer(played, chosen)


async def command(request: Request) -> Response:
    played, chosen = _game(request), settings(request)
    data = await _body_or_empty(request)
    if data is None:
        return _not_json()
    what = request.path_params["command"]
    return await run_in_threadpool(_command, played, chosen, what, data)


def _command(played: PlayGame, chosen: WebSettings, what: str, data: dict[str, Any]) -> Response:
    session = played.session
    with played.lock:
        if played.thinking and what != "comment":
            return _answer(played, chosen, "the agents are playing: wait a moment")
        try:
            if what == "undo":
                session.handle("undo")
            elif what == "comment":
                text = " ".join(str(data.get("text", "")).split())[:MOST_TEXT]
                if not text:
                    return _answer(played, chosen, "the comment is empty")
                session.handle(f"comment {text}")
            elif what == "claim":
                claim = str(data.get("claim", "")).strip()
                how = str(data.get("how", "")).strip()
                if not claim:
                    return _answer(
                        played, chosen, "which result? claim resign, draw or a result such as 1-0"
                    )
                if claim in ("resign", "draw"):
                    session.handle(claim)
                else:
                    session.handle(f"{claim} {how}".strip())
            elif what == "save":
                return _save(played, chosen)
            else:
                raise HTTPException(404, f"no command {what!r}")
        except PartitaError as error:
            return _answer(played, chosen, str(error))
    if what == "undo":
        _agents_play(played, chosen)
    return _answer(played, chosen)


def _save(played: PlayGame, chosen: WebSettings) -> Response:
    """The record into the archive, through `partita import`'s path."""
    from partita.bulk import import_records
    from partita.database import archive
    from partita.notation.reader import parse_record
    from partita.notation.replay import replay

    if not chosen.write:
        return _answer(played, chosen, "the archive is read-only: start partita serve --write")
    text = played.session.sheet.text()
    try:
        replayed = replay(parse_record(text), strict=True)
        with archive(chosen.db) as opened:
            summary = import_records(opened, [replayed], strict=True)
    except PartitaError as error:
        return _answer(played, chosen, f"the archive refused the game: {error}")
    played.saved = (
        "saved in the archive" if summary.imported else "already in the archive (same record)"
    )
    return _answer(played, chosen)


# -- agents -----------------------------------------------------------------------------------


def _agents_play(played: PlayGame, chosen: WebSettings) -> None:
    """While agents, forced passes or chance are to play, play them in a thread of
    their own (off the request path); the page polls the state meanwhile."""
    with played.lock:
        if played.thinking or played.session.turn().kind != "auto":
            return
        played.thinking = True
        played.snapshot = _snapshot(played, chosen)

    def work() -> None:
        try:
            while True:
                with played.lock:
                    if played.session.turn().kind != "auto":
                        break
                    played.session.step()
                    if played.session.turn().kind == "auto":  # the page shows progress
                        played.snapshot = _snapshot(played, chosen, thinking=True)
        except PartitaError as error:
            with played.lock:
                played.message = f"an agent could not play: {error}"
        finally:
            with played.lock:
                played.thinking = False
                played.snapshot = _snapshot(played, chosen)

    threading.Thread(target=work, daemon=True, name=f"play-{played.id}").start()


# -- what the page shows ----------------------------------------------------------------------


def _snapshot(
    played: PlayGame, chosen: WebSettings, thinking: bool | None = None
) -> dict[str, Any]:
    """The game as the person at the table sees it now (JSON data)."""
    from partita.analysis.diagrams import Board, board_for, render_diagram

    session = played.session
    sheet = session.sheet
    game = session.game
    rules = session.rules
    viewer = session.viewer
    state_now = sheet.state
    turn = session.turn()
    board = board_for(game)
    legal: list[dict[str, Any]] = []
    if turn.kind == "human":
        moves = session.playable_moves()
        legal = [
            {
                "move": game.format_move(state_now, one),
                "regions": list(board.move_regions(state_now, one)),
            }
            for one in moves
        ]
    elif turn.kind == "chance":
        legal = [{"move": token, "regions": []} for token in sheet.legal_tokens()]
    elif turn.kind == "answer":
        legal = [{"move": token, "regions": []} for token in session.playable_tokens()]
    plies = []
    for index, ply in enumerate(sheet.plies):
        number, who = session.ply_heading(ply)
        plies.append(
            {
                "index": index,
                "number": number,
                "move": session.move_text(ply),
                "who": who,
                "events": session.events(ply),
                "comments": list(ply.comments),
            }
        )
    outcome = sheet.outcome
    claim = sheet.claim
    ending = ""
    if outcome is not None:
        ending = f"{outcome.result_token()}: {outcome.reason}"
    elif claim is not None:
        ending = f"{claim.result}: {claim.termination}"
    if turn.kind == "over":
        status = f"Game over, {ending}"
    elif turn.kind == "human":
        status = f"{sheet.move_number()} {session.player(turn.seat)} to move"
    elif turn.kind == "chance":
        status = f"{sheet.move_number()} chance: a shuffle or a face-off to enter"
    elif turn.kind == "answer":
        status = f"{sheet.move_number()} {session.question()}"
    else:
        who = session.player(turn.seat) if turn.seat is not None else "chance"
        status = f"{sheet.move_number()} {who} plays..."
    show_record = session.open_table or sheet.over
    svg = render_diagram(
        game,
        state_now,
        caption=f"{rules.title}, as Player{viewer + 1} sees it"
        if viewer is not None
        else rules.title,
        viewer=viewer,
        interactive=turn.kind == "human",
    )
    return {
        "id": played.id,
        "game": played.name,
        "title": f"{rules.title}: " + " – ".join(sheet.players),
        "turn": {"kind": turn.kind, "seat": turn.seat},
        "status": status,
        "thinking": played.thinking if thinking is None else thinking,
        "over": turn.kind == "over",
        "ending": ending,
        "viewer": viewer,
        "open_table": session.open_table,
        "position": session.position(),
        "svg": svg,
        "wide": _drawing_width(svg) > WIDE,
        "clickable": type(board).regions is not Board.regions and turn.kind == "human",
        "legal": legal,
        "plies": plies,
        "undo": any(who == "human" for who in session.played_by) or claim is not None,
        "message": played.message,
        "writable": chosen.write,
        "saved": played.saved,
        "record": sheet.text() if show_record else "",
        "players": list(sheet.players),
        "results": _result_choices(len(sheet.players)),
    }


#: Drawings wider than this (in their own units) keep this width on a phone, in a
#: box that scrolls sideways, so that their cards and cells stay big enough to tap.
WIDE = 600
_VIEW_BOX = re.compile(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ')


def _drawing_width(svg: str) -> float:
    found = _VIEW_BOX.search(svg)
    return float(found.group(1)) if found else 0.0


def _result_choices(sides: int) -> list[str]:
    if sides == 2:
        return ["1-0", "0-1", "1/2-1/2", "*"]
    wins = [
        "-".join("1" if seat == winner else "0" for seat in range(sides)) for winner in range(sides)
    ]
    return [*wins, "-".join(["1/2"] * sides), "*"]


routes: list[BaseRoute] = [
    Route("/play", play_index, name="play"),
    Route("/play/{game}", new_game_page, methods=["GET"], name="play_new"),
    Route("/play/{game}", start_game, methods=["POST"], name="play_start"),
    Route("/play/{game}/{play_id}", game_page, name="play_game"),
    Route("/play/{game}/{play_id}/state", state, name="play_state"),
    Route("/play/{game}/{play_id}/move", move, methods=["POST"], name="play_move"),
    Route("/play/{game}/{play_id}/{command}", command, methods=["POST"], name="play_command"),
]
