"""What a game package offers partita: one :class:`GameSpec` per `Game` tag.

A game is a plugin. Its package (``partita/games/<game>/`` for the built-in games,
any installed distribution for the others) declares one ``GameSpec`` per `Game` tag
and names it in the ``partita.games`` entry-point group; :mod:`partita.game.registry`
finds it there. The framework asks the spec, never the game's modules, for what it
needs: the notation (which carries the rules engine), the board that draws it, the
report sections about it, an exact solver if it has one, the heuristic and the
playout policy searches use, extra commands.

Everything but the name and the title is a *reference*, ``"module:attribute"``,
imported the first time it is asked for: listing the games, or running a command
that needs none of them, loads no grammar, no drawing code and no solver. A
reference may also be the object itself (handy in tests and small plugins).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from partita.errors import PartitaError

if TYPE_CHECKING:  # the notation layer sits above this module
    from partita.game.notation import GameNotation
    from partita.game.rules import Rules, TagSpec
    from partita.game.solver import SolverFactory

__all__ = ["GameSpec", "resolve"]

#: A lazily imported object: ``"package.module:attribute"``, or the object itself.
Reference = Any


def resolve(reference: Reference, *, what: str = "object") -> Any:
    """The object a reference names (imported on first use); anything but a string
    is returned as it is. ``PartitaError`` naming the reference if it cannot load."""
    if not isinstance(reference, str):
        return reference
    module_name, _, attribute = reference.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split(".") if attribute else ():
            target = getattr(target, part)
    except (ImportError, AttributeError) as error:
        raise PartitaError(f"cannot load the {what} '{reference}': {error}") from error
    return target


@dataclass(frozen=True, eq=False)
class GameSpec:
    """One game as a plugin declares it.

    * ``name``: the `Game` tag value; ``title``: a human title.
    * ``notation``: the unconfigured :class:`~partita.game.notation.GameNotation`
      (or a callable returning it); it carries the rules engine.
    * ``board``: a factory ``board(notation) -> Board`` for SVG diagrams
      (:mod:`partita.analysis.diagrams`); without one the text diagram is drawn.
    * ``report_sections``: builders ``builder(db, notation, game_ids) -> Section | None``
      of extra report sections (:mod:`partita.analysis.report`).
    * ``solver``: a factory ``solver(notation, table_size=...)`` of an exact solver
      (the protocols of :mod:`partita.game.solver`: :class:`SolverFactory
      <partita.game.solver.SolverFactory>`); ``None`` if the game has none.
    * ``fast_replay``: a factory ``fast_replay(notation) -> replay`` of a faster
      key replay of the configured notation's canonical tokens, used by the bulk
      import and validation alone (:func:`partita.bulk.plain.key_replay` says what
      it must give, the reference replay's loop being what it must equal);
      ``None``: the reference loop.
    * ``evaluation``: a factory ``evaluation(rules) -> evaluate`` of the game's
      heuristic: ``evaluate(state)`` is the expected score of every side (seat order,
      each from 0 to 1) in a position that is not over, for searches that stop
      before the end and for the ``greedy`` agent (:mod:`partita.analysis.heuristics`);
      ``None``: every side equally likely to win.
    * ``rollout``: a factory ``rollout(rules) -> policy`` of the game's playout
      policy: ``policy(state, rng)`` is a move for the side to move (never the chance
      side); ``None``: ``Rules.sample_move``, a uniformly random move.
    * ``rollout_plies``: how many plies a search's playout runs by default before
      the ``evaluation`` scores the position (a game whose playouts are dear, or
      whose heuristic is good, cuts them short); ``None``: the framework's default
      (:data:`partita.analysis.mcts.DEFAULT_ROLLOUT_PLIES`).
    * ``commands``: typer commands (functions) or typer apps added to the
      ``partita`` command line (a game's own tools, such as a deck listing).
    * ``docs``: the game's documentation page (a path or an address).
    * ``rule_counters``: a function ``counter(rules, state, move, after) -> Iterable[str]``
      naming the rule events a move fires (``"pin"``, ``"gateway pass inward"``), for
      the balance report (:mod:`partita.analysis.balance`); ``None``: none counted.
    * ``openings``: the game's opening names file, ``"package:file.toml"`` (a file
      shipped inside a package, read with :mod:`importlib.resources`); its
      ``[<name>]`` table maps opening names to move sequences or positions
      (:mod:`partita.database.openings`, ``docs/archive.md``); ``None``: no shipped names.
    """

    name: str
    title: str
    notation: Reference
    board: Reference = None
    report_sections: Sequence[Reference] = ()
    solver: Reference = None
    fast_replay: Reference = None
    evaluation: Reference = None
    rollout: Reference = None
    rollout_plies: int | None = None
    commands: Sequence[Reference] = ()
    docs: str | None = None
    rule_counters: Reference = None
    openings: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def game(self) -> GameNotation[Any, Any]:
        """The game's notation (rules inside), loaded on first use."""
        loaded = resolve(self.notation, what=f"notation of {self.name}")
        if callable(loaded) and not hasattr(loaded, "parse_move"):
            loaded = loaded()
        if getattr(loaded, "name", None) != self.name:
            raise PartitaError(
                f"the notation of game '{self.name}' calls itself '{getattr(loaded, 'name', '?')}'"
            )
        game: GameNotation[Any, Any] = loaded
        return game

    @property
    def rules(self) -> Rules[Any, Any]:
        return self.game.rules

    @property
    def tags(self) -> tuple[TagSpec, ...]:
        return tuple(self.game.rules.tags)

    @property
    def variants(self) -> Sequence[Mapping[str, str]]:
        return self.game.variants()

    def board_factory(self) -> Callable[[Any], Any] | None:
        """The board factory, or ``None`` when the game draws only text."""
        if self.board is None:
            return None
        factory: Callable[[Any], Any] = resolve(self.board, what=f"board of {self.name}")
        return factory

    def section_builders(self) -> list[Callable[..., Any]]:
        return [
            resolve(reference, what=f"report section of {self.name}")
            for reference in self.report_sections
        ]

    def solver_factory(self) -> SolverFactory | None:
        """The exact solver's factory, or ``None`` when the game has none."""
        if self.solver is None:
            return None
        factory: SolverFactory = resolve(self.solver, what=f"solver of {self.name}")
        return factory

    def fast_replay_factory(self) -> Callable[[Any], Any] | None:
        """The faster key replay's factory, or ``None`` when the game has none."""
        if self.fast_replay is None:
            return None
        factory: Callable[[Any], Any] = resolve(
            self.fast_replay, what=f"fast replay of {self.name}"
        )
        return factory

    def evaluation_factory(self) -> Callable[[Any], Callable[[Any], tuple[float, ...]]] | None:
        """The heuristic's factory, or ``None`` when the game has none."""
        if self.evaluation is None:
            return None
        return resolve(self.evaluation, what=f"evaluation of {self.name}")  # type: ignore[no-any-return]

    def rollout_factory(self) -> Callable[[Any], Callable[[Any, Any], Any]] | None:
        """The playout policy's factory, or ``None`` when the game has none."""
        if self.rollout is None:
            return None
        return resolve(self.rollout, what=f"rollout policy of {self.name}")  # type: ignore[no-any-return]

    def command_objects(self) -> list[Any]:
        return [resolve(reference, what=f"command of {self.name}") for reference in self.commands]

    def rule_counter(self) -> Callable[[Any, Any, Any, Any], Any] | None:
        """The function naming the rule events of a move, or ``None``."""
        if self.rule_counters is None:
            return None
        return resolve(self.rule_counters, what=f"rule counters of {self.name}")  # type: ignore[no-any-return]

    def openings_text(self) -> str | None:
        """The text of the shipped opening names file, or ``None`` when there is none;
        ``PartitaError`` naming the reference if it cannot be read."""
        if self.openings is None:
            return None
        from importlib.resources import files

        package, _, name = self.openings.partition(":")
        try:
            return files(package).joinpath(name).read_text(encoding="utf-8")
        except (ImportError, OSError, ValueError) as error:
            raise PartitaError(
                f"cannot read the opening names '{self.openings}' of {self.name}: {error}"
            ) from error
