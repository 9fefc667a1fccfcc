"""The filter options of query, export, tree and report, defined once.

typer has no option groups, so :func:`filter_options` adds the options to a
command's signature (``__signature__``, which typer reads) and hands the command
one :class:`partita.database.filters.GameFilter` as its ``selection`` parameter.
Repeating an option is OR within it; different options AND.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer

from partita.cli.options import OpeningsOption, check_game_ids, complete_game_id

__all__ = ["FILTER_OPTIONS", "filter_options"]

_Texts = list[str] | None

#: Each filter option: its parameter name, annotation, and the GameFilter field.
FILTER_OPTIONS: dict[str, tuple[Any, str]] = {
    "game": (
        Annotated[
            _Texts,
            typer.Option(
                "--game",
                help="Game tag (see `partita games`; repeatable).",
                callback=check_game_ids,
                autocompletion=complete_game_id,
            ),
        ],
        "games",
    ),
    "player": (
        Annotated[
            _Texts,
            typer.Option(
                "--player",
                help="A player's name, any seat: part of it, case and accents ignored "
                "(ZOE finds Zoë; repeatable: any of them).",
            ),
        ],
        "players",
    ),
    "result": (
        Annotated[_Texts, typer.Option("--result", help="Result token, e.g. 1-0 (repeatable).")],
        "results",
    ),
    "event": (
        Annotated[
            _Texts,
            typer.Option(
                "--event", help="Event name: part of it, case and accents ignored (repeatable)."
            ),
        ],
        "events",
    ),
    "date_from": (
        Annotated[
            str | None,
            typer.Option("--date-from", help="Earliest date, YYYY.MM.DD (or YYYY, YYYY.MM)."),
        ],
        "date_from",
    ),
    "date_to": (
        Annotated[
            str | None,
            typer.Option("--date-to", help="Latest date, YYYY.MM.DD (or YYYY, YYYY.MM)."),
        ],
        "date_to",
    ),
    "opening": (
        Annotated[
            _Texts,
            typer.Option(
                "--opening", help='Games starting with these moves: "t4 r5 ..." (repeatable).'
            ),
        ],
        "openings",
    ),
    "position": (
        Annotated[
            str | None,
            typer.Option(
                "--position", help="Games reaching this position (the game's position notation)."
            ),
        ],
        "position",
    ),
    "mainline_only": (
        Annotated[
            bool,
            typer.Option(
                "--mainline-only",
                help="With --position: the games whose mainline reaches it (by default a "
                "variation reaching it counts too, flagged in the found column).",
            ),
        ],
        "mainline_only",
    ),
    "opening_name": (
        Annotated[
            _Texts,
            typer.Option(
                "--opening-name",
                help="Games whose opening name (their deepest named position) holds this "
                "text, case and accents ignored (repeatable).",
            ),
        ],
        "opening_names",
    ),
    "openings": (OpeningsOption, "opening_files"),
    "pattern": (
        Annotated[
            str | None,
            typer.Option(
                "--pattern",
                help="Games with a mainline position matching this pattern (the game's "
                "pattern syntax, see its docs page).",
            ),
        ],
        "pattern",
    ),
    "sides": (
        Annotated[
            list[int] | None,
            typer.Option("--sides", help="Number of sides (repeatable).", min=2, max=4),
        ],
        "sides",
    ),
    "tag": (
        Annotated[
            _Texts,
            typer.Option(
                "--tag",
                help="NAME=VALUE exact (NAME= for absent), NAME~REGEX, or NAME>=VALUE, "
                "NAME<=VALUE, NAME>VALUE, NAME<VALUE for numbers and dates (repeatable: "
                "= on one tag name is any of them, the rest all of them).",
            ),
        ],
        "tags",
    ),
}


def filter_options(*, game: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the filter options to a command (after ``--db``, else first among the
    options with defaults) and call it with ``selection``, a ``GameFilter``.
    ``game=False`` leaves ``--game`` out, for a command that takes its own."""
    names = [name for name in FILTER_OPTIONS if game or name != "game"]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command)
        own = [param for param in signature.parameters.values() if param.name != "selection"]
        added = [
            inspect.Parameter(
                name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=None,
                annotation=FILTER_OPTIONS[name][0],
            )
            for name in names
        ]
        at = next(
            (index + 1 for index, param in enumerate(own) if param.name == "db"),
            next(
                (index for index, param in enumerate(own) if param.default is not param.empty),
                len(own),
            ),
        )

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> Any:
            from partita.database.filters import GameFilter

            fields = {FILTER_OPTIONS[name][1]: kwargs.pop(name) for name in names}
            kwargs["selection"] = GameFilter.of(**fields)
            return command(**kwargs)

        parameters = own[:at] + added + own[at:]
        wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {
            param.name: param.annotation
            for param in parameters
            if param.annotation is not param.empty
        }
        return wrapper

    return decorate
