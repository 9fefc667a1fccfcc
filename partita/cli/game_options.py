"""Options that name a game and set it up (play, endgame, book, simulate, balance),
and ``NAME=VALUE`` options (``--tag``, ``--seat``, ``--player``), read once.

The parsing and the set-up are the library's
(:func:`partita.game.configuration.parse_pairs` and ``configure_game``); this module
turns their errors into usage errors (exit 2) naming the option. Light at import
time, like every command module: the contract is imported where a game is looked up.
"""

from typing import Annotated, Any

import typer

TagOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tag",
        help="NAME=VALUE: a tag of the game (League=pro, Variant=advanced, RoundLimit=40...); "
        "repeatable.",
    ),
]
SetupTagOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tag",
        help="NAME=VALUE: a tag of the game's set-up (League=junior, RoundLimit=20); repeatable.",
    ),
]
SetupSidesOption = Annotated[
    int | None,
    typer.Option("--sides", min=2, max=4, help="Sides of the set-up (default: the game's fewest)."),
]


def pairs(values: list[str] | None, option: str) -> dict[str, str]:
    """``NAME=VALUE`` option values as a dict, in order; a usage error naming
    ``option`` for a value without ``=`` or without a name, or a name given twice."""
    from partita.game.configuration import PairError, parse_pairs

    try:
        return parse_pairs(values or ())
    except PairError as error:
        raise typer.BadParameter(str(error), param_hint=option) from None


def configured_game(
    name: str,
    tags: dict[str, str],
    sides: int | None = None,
    *,
    settings_only: bool = False,
    game_option: str = "--game",
    tag_option: str = "--tag",
) -> tuple[Any, Any]:
    """The game ``name`` configured by ``tags`` and its ``Configuration`` for
    ``sides`` (:func:`partita.game.configuration.configure_game`); a usage error
    naming the option that is wrong: the game, a tag, or the side count."""
    from partita.errors import PartitaError, SetupError, TagError, UnknownGameError
    from partita.game.configuration import configure_game

    try:
        return configure_game(name, tags, sides, settings_only=settings_only)
    except UnknownGameError as error:
        raise typer.BadParameter(str(error), param_hint=game_option) from None
    except TagError as error:
        raise typer.BadParameter(str(error), param_hint=tag_option) from None
    except SetupError as error:
        raise typer.BadParameter(str(error), param_hint="--sides") from None
    except PartitaError as error:  # a game's own refusal of its tags
        raise typer.BadParameter(str(error), param_hint=tag_option) from None
