"""Trees of the archive's games: the selection's set-ups (configurations), the one
a tree is built for, and the tree itself through the archive's position index."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from partita.analysis.tree.build import build_tree
from partita.analysis.tree.lines import lines_from_archive
from partita.analysis.tree.symmetry import SymmetryFrames
from partita.analysis.tree.value import GameLine, OpeningTree
from partita.errors import PartitaError
from partita.game.configuration import Configuration, varying_settings
from partita.game.registry import get_game

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "choose_configuration",
    "configurations_from_archive",
    "name_openings",
    "reads_position",
    "tree_from_archive",
]


def configurations_from_archive(
    target: Archive, name: str, *, include_invalid: bool = False, **filters: Any
) -> list[tuple[Configuration, int]]:
    """The configurations (sides and game-specific tags, defaults filled in) of the
    archive's games of the game ``name`` matching the filters, with their game counts, the
    most played first."""
    from partita.database.selection import game_setups

    notation = get_game(name)
    names = [spec.name for spec in notation.rules.tags]
    counts: Counter[Configuration] = Counter()
    for sides, tags in game_setups(target, name, names, include_invalid=include_invalid, **filters):
        counts[Configuration.of(notation, sides or notation.rules.min_sides, tags)] += 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0].label))


def choose_configuration(
    target: Archive,
    name: str,
    *,
    include_invalid: bool = False,
    position: str | None = None,
    **filters: Any,
) -> Configuration:
    """The one configuration of the selected games; an error listing them (with the
    options that pick each) when the selection mixes several. ``position`` (a
    tree's root): only the configurations under which it reads count, so that the
    position's text chooses where it can (a 5 x 5 board's position, a three-sided one)."""
    found = configurations_from_archive(target, name, include_invalid=include_invalid, **filters)
    if not found:
        notation = get_game(name)
        return Configuration.of(notation, notation.rules.min_sides, {})
    if position is not None:
        reading = [item for item in found if reads_position(item[0], name, position)]
        found = reading or found  # none: the root's own error says why
    if len(found) > 1:
        varying = varying_settings([configuration for configuration, _ in found])
        listed = "\n".join(
            f"  {configuration.describe(varying)}: {count} game{'s' if count != 1 else ''}: "
            f"{configuration.options(varying)}"
            for configuration, count in found
        )
        raise PartitaError(
            f"the selected {name} games are set up in {len(found)} different ways, whose "
            f"positions never meet; choose one with the options shown:\n{listed}"
        )
    return found[0][0]


def reads_position(configuration: Configuration, name: str, position: str) -> bool:
    """Whether ``position`` is a position of the game ``name`` set up as ``configuration``."""
    notation = configuration.configure(get_game(name))
    try:
        state = notation.parse_position(position, configuration.sides)
    except PartitaError:
        return False
    return bool(notation.rules.sides(state) == configuration.sides)


def _counted(
    lines: Iterable[GameLine], total: int, progress: Callable[[int, int], object]
) -> Iterator[GameLine]:
    """``lines``, calling ``progress(done, total)`` every few hundred and at the end."""
    for done, line in enumerate(lines, start=1):
        yield line
        if done % 250 == 0:
            progress(done, total)
    progress(total, total)


def tree_from_archive(
    target: Archive,
    name: str,
    *,
    root: str | None = None,
    depth: int = 8,
    min_games: int | None = None,
    symmetry: bool = False,
    include_invalid: bool = False,
    configuration: Configuration | None = None,
    progress: Callable[[int, int], object] | None = None,
    rated: bool = True,
    **filters: Any,
) -> OpeningTree:
    """The opening tree of the archive's games of the game ``name`` matching the filters
    (those of :func:`partita.database.query_games`, without ``game``; a position
    filter finds the games whose mainline reaches it), all of one
    ``configuration`` (by default the selection's only one; see
    :func:`choose_configuration`). ``progress(done, total)`` is called as the
    games are read (``total`` counts the invalid ones the tree leaves out too).

    Each move has the opening name of the position it leads to (the selection's
    ``opening_files`` read after the shipped names and ``$PARTITA_OPENINGS``) and,
    with ``rated``, the average rating and performance of the players who made it:
    ratings from the records' ``PlayerNElo`` tags, else the archive's Elo before
    the game (:func:`partita.database.players.game_ratings`)."""
    from partita.database.filters import GameFilter
    from partita.database.selection import first_plies_at

    # The tree is built from mainlines: a position filter finds the games whose
    # mainline reaches it (a position seen only in a variation would add a game
    # whose moves never pass through it).
    selection = GameFilter.of(**{**filters, "mainline_only": True})
    if configuration is None:
        configuration = choose_configuration(
            target, name, include_invalid=include_invalid, position=root, selection=selection
        )
    # One configuration: AND with the user's filters, even on the same tags.
    selection = GameFilter.of(
        selection, sides=configuration.sides, tags=configuration.tag_filters()
    )
    notation = configuration.configure(get_game(name))
    root_plies: dict[int, tuple[str, int]] | None = None
    if root is not None:
        state = notation.parse_position(root)
        frames = SymmetryFrames(notation, symmetry and notation.rules.symmetry_count > 1)
        # The root replaces a position filter: the games must stand on the root.
        root_plies = {}
        for _, image in frames.images(state):
            position = notation.format_position(image)
            for game_id, ply in first_plies_at(
                target, position, notation.name, selection=selection
            ):
                known = root_plies.get(game_id)
                if known is None or ply < known[1]:
                    root_plies[game_id] = (position, ply)
    ratings = None
    if rated:
        from partita.database.players import game_ratings

        ratings = game_ratings(target, notation.name)
    lines = lines_from_archive(
        target, include_invalid=include_invalid, game=notation.name, selection=selection
    )
    if progress is not None:
        from partita.database.query import count_games

        total = count_games(target, selection, game=notation.name)
        lines = _counted(lines, total, progress)
    tree = build_tree(
        lines,
        notation,
        root=root,
        root_plies=root_plies,
        depth=depth,
        min_games=min_games,
        symmetry=symmetry,
        sides=configuration.sides,
        ratings=ratings,
    )
    tree.configuration = configuration
    name_openings(tree, selection.opening_files)
    return tree


def name_openings(tree: OpeningTree, files: Sequence[str] = ()) -> None:
    """Give each move of ``tree`` the opening name of the position it leads to (any
    of its symmetric images in a tree built with symmetry)."""
    from partita.database.openings import opening_book

    book = opening_book(tree.game.name, files)
    if not book:
        return
    names: dict[Any, str | None] = {}
    for stats in tree.edges():
        child = stats.child
        if child not in names:
            names[child] = book.name_of_state(
                tree.states[child], symmetric=tree.symmetry, configuration=tree.configuration
            )
        stats.opening = names[child]
