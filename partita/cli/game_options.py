"""Options that name a game and set it up, shared by `partita play` and `partita endgame`.

Light at import time, like every command module: the registry is imported where a
game is looked up.
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


def pairs(values: list[str] | None, option: str) -> dict[str, str]:
    """``NAME=VALUE`` option values as a dict, in order; a usage error for a value
    without ``=`` or without a name, or a name given twice."""
    found: dict[str, str] = {}
    for text in values or []:
        name, equals, value = text.partition("=")
        name = name.strip()
        if not equals or not name:
            raise typer.BadParameter(f"'{text}' is not of the form NAME=VALUE", param_hint=option)
        if name in found:
            raise typer.BadParameter(f"{name} is given twice", param_hint=option)
        found[name] = value.strip()
    return found


def configured_game(name: str, tags: dict[str, str], option: str = "--tag") -> Any:
    """The game ``name`` configured by ``tags``; a usage error naming the game or the
    tag that is wrong."""
    from partita.errors import TagError, UnknownGameError
    from partita.game.registry import get_game

    try:
        game = get_game(name)
    except UnknownGameError as error:
        raise typer.BadParameter(str(error), param_hint="--game") from None
    try:
        return game.configure(tags)
    except TagError as error:
        raise typer.BadParameter(str(error), param_hint=option) from None
