"""A position named in a URL, under its game's configuration, and its board.

A position is ``game`` (its Game tag), ``sides``, ``tag`` (``NAME=VALUE``, the
game's own settings: the same words as the query filter's ``--tag``), and either
``position`` (the game's position notation) or nothing (the initial position),
followed by ``moves`` (space-separated tokens played from there). Every page and
API call that shows, analyses or explores a position reads it this way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from partita.errors import PartitaError
from partita.game.configuration import configure_game, format_pairs, parse_pairs
from partita.web.queries import number, text

__all__ = ["PositionRef", "board_svg", "changed_cells", "position_from", "routes"]

#: The most moves a URL may play from its position.
MOST_MOVES = 2000


@dataclass(frozen=True)
class PositionRef:
    """A game's position: ``game``, ``sides``, ``tags`` (settings), ``position``
    (``None``: the initial one), ``moves`` played from it."""

    game: str
    sides: int
    tags: tuple[tuple[str, str], ...] = ()
    position: str | None = None
    moves: tuple[str, ...] = ()
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def notation(self) -> Any:
        """The game's notation, configured with the settings."""
        found = self._cache.get("notation")
        if found is None:
            found, _ = configure_game(self.game, dict(self.tags), self.sides)
            self._cache["notation"] = found
        return found

    def states(self) -> list[Any]:
        """The start and the state after each move (an error naming a bad move)."""
        found = self._cache.get("states")
        if found is None:
            game = self.notation()
            if self.position is None:
                state = game.initial(self.sides)
            else:
                state = game.parse_position(self.position, self.sides)
            found = [state]
            for ply, token in enumerate(self.moves, start=1):
                try:
                    state = game.rules.apply(state, game.parse_move(state, token))
                except PartitaError as error:
                    raise PartitaError(f"move {ply} '{token}': {error}") from None
                found.append(state)
            self._cache["states"] = found
        return list(found)

    def state(self) -> Any:
        return self.states()[-1]

    def text(self) -> str:
        """The position reached, in the game's notation."""
        return str(self.notation().format_position(self.state()))

    def then(self, *moves: str) -> PositionRef:
        return PositionRef(self.game, self.sides, self.tags, self.position, (*self.moves, *moves))

    def at(self, state_text: str) -> PositionRef:
        """The same game and set-up at another position."""
        return PositionRef(self.game, self.sides, self.tags, state_text)

    def query(self, *, with_moves: bool = True) -> dict[str, Any]:
        """The URL query naming this position (see the module docstring)."""
        found: dict[str, Any] = {"game": self.game, "sides": self.sides}
        if self.tags:
            found["tag"] = format_pairs(dict(self.tags))
        if self.position is not None:
            found["position"] = self.position
        if with_moves and self.moves:
            found["moves"] = " ".join(self.moves)
        return found

    def here(self) -> dict[str, Any]:
        """The URL query naming the position reached (its notation, no moves)."""
        return {**self.query(with_moves=False), "position": self.text()}

    def set_up_filters(self) -> dict[str, Any]:
        """The archive filters that select this position's set-up exactly (``sides``
        and every setting, defaults included), so that a position filter reads the
        position under it and under no other set-up."""
        from partita.game.configuration import Configuration

        configuration = Configuration.of(self.notation(), self.sides, dict(self.tags))
        return {"sides": self.sides, "tags": configuration.tag_filters()}

    def configuration_label(self) -> str:
        parts = [f"{self.sides} sides", *(f"{name} {value}" for name, value in self.tags)]
        return ", ".join(parts)


def position_from(
    params: QueryParams, *, default_game: str | None = None, set_up: Any = None
) -> PositionRef:
    """The :class:`PositionRef` of a query string (errors in a player's words);
    ``set_up`` (a :class:`~partita.game.configuration.Configuration`): its sides
    and settings in place of the query's."""
    from partita.game.registry import get_game

    game_name = text(params, "game", default_game)
    if game_name is None:
        raise PartitaError("name the game: game=NAME (see the Games list)")
    game = get_game(game_name)
    sides = number(params, "sides", game.rules.min_sides, 1, 16)
    if set_up is not None:
        sides, tags = set_up.sides, dict(set_up.tags())
    else:  # a form's empty tag field is no tag
        tags = parse_pairs(item for item in params.getlist("tag") if item.strip())
    moves = tuple((text(params, "moves") or "").split())
    if len(moves) > MOST_MOVES:
        raise PartitaError(f"at most {MOST_MOVES} moves")
    ref = PositionRef(game.name, sides, tuple(tags.items()), text(params, "position"), moves)
    ref.states()  # a bad position or move is an error now
    return ref


def changed_cells(board: Any, before: Any, after: Any) -> list[int]:
    """The cells a move changed (what the board rings as the last move)."""
    try:
        old, new = board.cells(before), board.cells(after)
    except NotImplementedError:
        return []
    if len(old) != len(new):
        return []
    return [index for index, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]


def board_svg(game: Any, state: Any, *, previous: Any = None, caption: str = "") -> str:
    """The game's own SVG board of ``state`` (``previous``: the state before the
    last move, whose changed cells are ringed)."""
    from partita.analysis.diagrams import board_for, render_diagram

    last: Sequence[int] = ()
    if previous is not None:
        last = changed_cells(board_for(game), previous, state)
    return render_diagram(game, state, caption=caption, last=last)


SVG_HEADERS = {"cache-control": "private, max-age=3600"}


def position_board(request: Request) -> Response:
    """``/positions/board.svg?game=...``: the board of a position (the last move's
    cells ringed); ``hint=MOVE``: the cells that move would change are ringed
    instead (an analysis's best move, shown on the position it is played from)."""
    from partita.analysis.diagrams import board_for, render_diagram

    ref = position_from(request.query_params)
    states = ref.states()
    hint = text(request.query_params, "hint")
    game = ref.notation()
    if hint is not None:
        state = states[-1]
        try:
            after = game.rules.apply(state, game.parse_move(state, hint))
        except PartitaError as error:
            raise PartitaError(f"hint '{hint}': {error}") from None
        cells = changed_cells(board_for(game), state, after)
        svg = render_diagram(game, state, caption=ref.text(), last=cells)
    else:
        previous = states[-2] if len(states) > 1 else None
        svg = board_svg(game, states[-1], previous=previous, caption=ref.text())
    return Response(svg, media_type="image/svg+xml", headers=SVG_HEADERS)


routes: list[BaseRoute] = [Route("/positions/board.svg", position_board, name="position_board")]
