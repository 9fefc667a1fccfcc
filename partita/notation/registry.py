"""The registry of supported games, keyed by the `Game` tag.

Each game's notation module registers its :class:`GameNotation` here; a new game
is one module and one line in :func:`_load_builtin_games`.
"""

from __future__ import annotations

from partita.errors import UnknownGameError
from partita.notation.base import GameNotation

_GAMES: dict[str, GameNotation] = {}


def register(game: GameNotation) -> GameNotation:
    _GAMES[game.name] = game
    return game


def _load_builtin_games() -> None:
    if _GAMES:
        return
    from partita.notation import gravity

    register(gravity.FORZA4X4)
    register(gravity.CONNECT4)
    from partita.notation import universal_forces

    register(universal_forces.UNIVERSAL_FORCES)
    from partita.notation import circular_reasoning

    register(circular_reasoning.CIRCULAR_REASONING)
    from partita.notation import forceball

    register(forceball.FORCEBALL)


def get_game(name: str) -> GameNotation:
    """The game a `Game` tag names (unconfigured); ``UnknownGameError`` otherwise."""
    _load_builtin_games()
    try:
        return _GAMES[name]
    except KeyError:
        known = ", ".join(sorted(_GAMES))
        raise UnknownGameError(f"unknown game '{name}' (supported: {known})") from None


def all_games() -> list[GameNotation]:
    _load_builtin_games()
    return [_GAMES[name] for name in sorted(_GAMES)]
