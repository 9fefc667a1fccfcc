"""The opening explorer at ``/explorer``: the tree of the archive's games from any
position, one level at a time (W/D/L bars per move, transpositions, symmetry
folding), built by :func:`partita.analysis.tree.tree_from_archive` for one
configuration; a move goes one level down, every count links to its games."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from partita.errors import PartitaError
from partita.web.app import request_archive
from partita.web.positions import PositionRef, position_from
from partita.web.queries import text
from partita.web.templating import render, url

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = ["explore", "routes"]

#: The filters the explorer narrows its games by (besides the configuration).
NARROWING = ("player", "event", "date_from", "date_to", "result")


def _narrowing(params: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name in NARROWING:
        values = [value.strip() for value in params.getlist(name) if value.strip()]
        if values:
            found[name] = values if name in ("player", "event", "result") else values[-1]
    return found


def explore(db: Archive, params: Any) -> tuple[PositionRef, Any, list[tuple[Any, int]]]:
    """The position, its one-level tree and the game's configurations in the
    archive (most played first)."""
    from partita.analysis.tree import tree_from_archive
    from partita.analysis.tree.from_archive import configurations_from_archive, reads_position
    from partita.game.configuration import Configuration

    narrowing = _narrowing(params)
    game = text(params, "game")
    configurations = [] if game is None else configurations_from_archive(db, game, **narrowing)
    if "sides" not in params and "tag" not in params and configurations:
        # No set-up named: the most played one the position (if any) reads under,
        # so that a 5 x 5 board's position opens on the 5 x 5 games.
        position = text(params, "position")
        reading = [
            configuration
            for configuration, _ in configurations
            if position is None or reads_position(configuration, configuration.game, position)
        ]
        ref = position_from(params, set_up=(reading or [configurations[0][0]])[0])
    else:
        ref = position_from(params)
    configuration = Configuration.of(ref.notation(), ref.sides, dict(ref.tags))
    symmetry = (text(params, "symmetry") or "0") not in ("0", "false", "no")
    root = None if ref.position is None and not ref.moves else ref.text()
    tree = tree_from_archive(
        db,
        ref.game,
        root=root,
        depth=1,
        min_games=1,
        symmetry=symmetry,
        configuration=configuration,
        rated=False,
        **narrowing,
    )
    return ref, tree, configurations


def _result_tokens(sides: int, seat: int, score: str) -> list[str]:
    """Every result token in which ``seat`` scored ``score`` (``1``, ``1/2``, ``0``):
    the games a won, drawn or lost count stands for."""
    from itertools import product

    tokens = []
    for others in product(("1", "1/2", "0"), repeat=sides - 1):
        parts = [*others[:seat], score, *others[seat:]]
        if score == "1" and "1" in others:
            continue  # one winner
        tokens.append("-".join(parts))
    return tokens


def _bars(stats: Any) -> dict[str, Any]:
    won, drawn, lost = stats.wdl
    decided = won + drawn + lost
    total = decided + stats.unfinished
    if stats.mover < 0 or not total:
        return {"won": 0, "drawn": 0, "lost": 0, "unfinished": 100, "decided": decided}

    def share(count: int) -> int:
        return round(100 * count / total)

    return {
        "won": share(won),
        "drawn": share(drawn),
        "lost": share(lost),
        "unfinished": max(0, 100 - share(won) - share(drawn) - share(lost)),
        "decided": decided,
    }


def _set_ups(ref: PositionRef, configurations: list[tuple[Any, int]]) -> list[tuple[Any, ...]]:
    """The archive's set-ups of the game as links: (label, sides, tags, games,
    chosen). A label shows the settings that tell the set-ups apart, defaults
    included (``League pro`` beside ``League junior``); the chosen one is the
    position's, however its URL spells it (a default given or left out)."""
    from partita.game.configuration import Configuration, varying_settings

    here = Configuration.of(ref.notation(), ref.sides, dict(ref.tags))
    names = varying_settings([c for c, _ in configurations])
    return [(c.describe(names), c.sides, c.tags(), count, c == here) for c, count in configurations]


def _busiest_game(db: Archive, names: list[str]) -> str | None:
    """The game the archive holds the most games of (``None`` for an empty one)."""
    from partita.database.query import count_games

    counts = {name: count_games(db, game=name, limit=1_000) for name in names}
    best = max(names, key=lambda name: counts[name], default=None)
    return best if best is not None and counts[best] else None


def explorer_page(request: Request) -> Response:
    from partita.game.registry import all_specs

    params = request.query_params
    games = [(spec.name, spec.title) for spec in all_specs()]
    if text(params, "game") is None:
        busiest = _busiest_game(request_archive(request), [name for name, _ in games])
        if busiest is not None:  # open on the game the archive holds most of
            return RedirectResponse(url("/explorer", game=busiest), status_code=303)
        return render(request, "explorer.html", {"games": games, "ref": None})
    try:
        ref, tree, configurations = explore(request_archive(request), params)
    except PartitaError as error:
        return render(
            request, "explorer.html", {"games": games, "ref": None, "error": str(error)}, status=400
        )
    narrowing = _narrowing(params)
    symmetry = tree.symmetry
    base = {**ref.query(with_moves=False), **narrowing, "symmetry": int(symmetry)}
    base.pop("position", None)
    line = (text(params, "line") or "").split()
    rows = []
    for stats in tree.moves():
        child = tree.position(stats.child)
        query = {**base, "position": child, "line": " ".join([*line, stats.move])}
        games_query = {
            "game": ref.game,
            "sides": ref.sides,
            "tag": [f"{name}={value}" for name, value in ref.tags],
            "position": child,
            "mainline_only": 1,
            **narrowing,
        }
        outcome_urls = {}
        if stats.mover >= 0:
            for name, score in (("won", "1"), ("drawn", "1/2"), ("lost", "0")):
                tokens = _result_tokens(ref.sides, stats.mover, score)
                outcome_urls[name] = url("/", **games_query, result=tokens)
            outcome_urls["unfinished"] = url("/", **games_query, result="*")
        rows.append(
            {
                "stats": stats,
                "outcome_urls": outcome_urls,
                "bars": _bars(stats),
                "down": url("/explorer", **query),
                "games_url": url("/", **games_query),
                "position": child,
            }
        )
    set_ups = _set_ups(ref, configurations)
    here_games = url("/", game=ref.game, sides=ref.sides,
                     tag=ref.set_up_filters()["tags"], position=ref.text(),
                     mainline_only=1, **narrowing)  # fmt: skip
    return render(
        request,
        "explorer.html",
        {
            "games": games,
            "ref": ref,
            "tree": tree,
            "rows": rows,
            "line": line,
            "symmetry": symmetry,
            "narrowing": narrowing,
            "narrowed": "; ".join(
                f"{name.replace('_', ' ')} {', '.join(value) if isinstance(value, list) else value}"
                for name, value in narrowing.items()
            ),
            "unnarrowed_url": url(
                "/explorer", **ref.here(), symmetry=int(symmetry), line=" ".join(line)
            ),
            "configurations": set_ups,
            "set_up_label": next(
                (label[0] for label in set_ups if label[4]), ref.configuration_label()
            ),
            "board_url": url("/positions/board.svg", **ref.query()),
            "here_games": here_games,
            "analyse_url": url("/analysis", **ref.here()),
            "toggle_url": url(
                "/explorer",
                **{**base, "symmetry": int(not symmetry)},
                position=ref.text(),
                line=" ".join(line),
            ),  # fmt: skip
            "start_url": url("/explorer", **{**base}),
        },
    )


routes: list[BaseRoute] = [Route("/explorer", explorer_page, name="explorer")]
