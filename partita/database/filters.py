"""Which games a command works on: one :class:`GameFilter` value, and its SQL.

query, export, tree and report (and the library functions behind them) select
games through this one value, so the filter list and its matching rules are
written once. Matching rules (also in ``docs/archive.md``):

* Repeating a filter is OR within it (``players=("anna", "bruno")``: either
  plays); different filters AND.
* ``games``, ``results``, ``sides``: equal.
* ``players`` (any seat) and ``events``: a part of the name, case- and
  accent-insensitively (:func:`fold`: ``ZOE`` finds ``Zoë``, ``müller``
  ``Müller``); players through the ``game_players`` table (folded at import,
  indexed: :mod:`partita.database.indexed`).
* ``date_from`` / ``date_to``: ``YYYY``, ``YYYY.MM`` or ``YYYY.MM.DD``; a game
  matches when every day its date can mean lies in the range; a game without a
  known year never matches a date filter.
* ``openings``: the mainline starts with these moves (canonical tokens; spellings
  made canonical through the game's notation when one game is chosen), one range
  of the ``games_moves`` index each.
* ``position``: the game reached this position after some ply of its legal
  mainline, or of one of its variations (every game whose notation reads it when
  no one game is chosen); ``mainline_only`` leaves the variations out. The rows
  carry ``ply``, ``line`` and ``found``: where the position was found, the
  mainline first (``found`` ``"mainline"``, ``line`` 0, ``ply`` its first ply
  there), else a variation (``"variation"``, ``line`` the variation's number in
  the record's reading order, ``ply`` the first ply, counted from the start of
  the game, at which one stood on it; the lowest line at that ply).
* ``tags``: ``NAME=VALUE`` exact (a tag left out counts as its game's default;
  ``NAME=`` matches records without it), ``NAME~REGEX`` a Python regular
  expression searched in the value (SQLite ``REGEXP``, a function partita
  registers on the connection, run on the rows of that tag only), and
  ``NAME>=VALUE``, ``<=``, ``>``, ``<``: dates (an operand ``YYYY.MM`` or
  ``YYYY.MM.DD``, or ``YYYY`` on a tag whose name ends in ``Date``) as dates,
  other numbers as numbers, a record
  without the tag or with a value of another kind never matching. Conditions on
  the same tag name with ``=`` are OR; all others AND. Each is a range of an index
  of the ``game_tags`` table (:mod:`partita.database.indexed`).
* ``opening_names``: the game's opening name (its deepest named position, see
  :mod:`partita.database.openings`) holds the text, case and accents ignored;
  ``opening_files`` are names files read after the shipped ones and
  ``$PARTITA_OPENINGS`` (for the names shown as well as for this filter).
* ``pattern``: some position of the legal mainline (the start included) matches
  this pattern, in the game's pattern syntax (:meth:`GameNotation.parse_pattern`;
  every game whose notation reads it when no one game is chosen). SQL cannot see a
  position, so each pre-selected game is replayed (``partita_pattern``, a function
  partita registers on the connection); the rows carry ``pattern_ply``, the first
  matching ply.
* ``within``: further filters every game must also pass (AND), how a caller
  narrows a user's selection (the tree, to one configuration).
"""

from __future__ import annotations

import calendar
import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Any

from partita.database.folding import fold, number
from partita.database.keys import fold_key
from partita.errors import ArchiveError, NotationError, SetupError, TagError, UsageError
from partita.game.configuration import Configuration, varying_settings
from partita.game.notation import GameNotation
from partita.game.registry import all_games, all_specs, get_game

__all__ = [
    "GameFilter",
    "PositionSetup",
    "TagCondition",
    "archive_setups",
    "fold",
    "number",
    "position_setups",
]

_PARTIAL_DATE = re.compile(r"(\d{4})(?:[.-](\d{2}|\?\?))?(?:[.-](\d{2}|\?\?))?")
_DATE_OPERAND = re.compile(r"\d{4}(?:[.-]\d{2}){0,2}")
_TAG_CONDITION = re.compile(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*(>=|<=|=|~|>|<)(.*)", re.DOTALL)


def regexp(pattern: str, value: str | None) -> bool:
    """SQLite's ``value REGEXP pattern``: the pattern is found somewhere in ``value``."""
    return value is not None and _compiled(pattern).search(value) is not None


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def date_bound(text: str, *, upper: bool) -> str:
    """``YYYY[.MM[.DD]]`` made a full ``YYYY.MM.DD`` bound (lower: the first day of
    what is left out; upper: the last day)."""
    match = _PARTIAL_DATE.fullmatch(text.strip())
    if match is None:
        raise ArchiveError(f"date '{text}' is not of the form YYYY.MM.DD (or YYYY, YYYY.MM)")
    year, month_text, day_text = match.groups()
    month = None if month_text in (None, "??") else int(month_text)
    day = None if day_text in (None, "??") else int(day_text)
    if month is not None and not 1 <= month <= 12:
        raise ArchiveError(f"date '{text}': there is no month {month:02d}")
    if upper:
        month_value = 12 if month is None else month
        last = calendar.monthrange(int(year), month_value)[1]
        day_value = last if day is None else day
    else:
        month_value = 1 if month is None else month
        day_value = 1 if day is None else day
    if not 1 <= day_value <= 31:
        raise ArchiveError(f"date '{text}': there is no day {day_value:02d}")
    return f"{year}.{month_value:02d}.{day_value:02d}"


@dataclass(frozen=True, slots=True)
class TagCondition:
    """One ``--tag`` filter: ``name``, ``operator`` (``= ~ >= <= > <``), ``value``."""

    name: str
    operator: str
    value: str

    @classmethod
    def parse(cls, text: str) -> TagCondition:
        """``League=pro``, ``Event~^Club``, ``Elo>=1800``; an error naming a malformed one."""
        match = _TAG_CONDITION.fullmatch(text)
        if match is None:
            raise ArchiveError(
                f"tag filter '{text}' is not of the form NAME=VALUE, NAME~REGEX or "
                "NAME>=VALUE (League=pro, Event~^Club, Elo>=1800)"
            )
        name, operator, value = match.groups()
        condition = cls(name, operator, value)
        if operator == "~":
            try:
                _compiled(value)
            except re.error as error:
                raise ArchiveError(
                    f"tag filter '{text}': bad regular expression ({error})"
                ) from None
        elif operator != "=" and condition.kind() is None:
            raise ArchiveError(
                f"tag filter '{text}': {operator} compares numbers or dates "
                "(YYYY.MM.DD), not '{value}'".replace("{value}", value)
            )
        return condition

    def kind(self) -> str | None:
        """How a comparison reads its values: ``"date"``, ``"number"`` or ``None``."""
        operand = self.value.strip()
        if _DATE_OPERAND.fullmatch(operand) and (self.name.endswith("Date") or "." in operand):
            return "date"
        return "number" if number(operand) is not None else None

    def notation(self) -> str:
        return f"{self.name}{self.operator}{self.value}"


def _tuple(value: Any) -> tuple:
    """A filter's values: ``None`` none, a string or number one, a sequence its items."""
    if value is None:
        return ()
    if isinstance(value, str | int):
        return (value,)
    return tuple(value)


@dataclass(frozen=True, slots=True)
class GameFilter:
    """The games a command selects (see the module docstring for the rules)."""

    games: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    date_from: str | None = None
    date_to: str | None = None
    openings: tuple[str, ...] = ()
    position: str | None = None
    sides: tuple[int, ...] = ()
    tags: tuple[str, ...] = ()
    opening_names: tuple[str, ...] = ()
    opening_files: tuple[str, ...] = ()
    pattern: str | None = None
    mainline_only: bool = False
    within: tuple[GameFilter, ...] = ()

    def __post_init__(self) -> None:
        for name in _MULTIPLE:
            object.__setattr__(self, name, _tuple(getattr(self, name)))
        for text in self.tags:
            TagCondition.parse(text)  # a malformed filter is an error before any work
        for name in ("date_from", "date_to"):
            value = getattr(self, name)
            if value is not None:
                date_bound(value, upper=name == "date_to")
        for game in self.games:
            get_game(game)  # an unknown game is an error, not an empty answer
        for inner in self.within:
            if inner.position is not None:
                raise ArchiveError("a narrowing filter cannot hold a position")
            if inner.pattern is not None:
                raise ArchiveError("a narrowing filter cannot hold a pattern")
        object.__setattr__(self, "opening_files", tuple(map(str, self.opening_files)))
        if self.pattern is not None:
            _pattern_games(self.pattern, self.only_game())  # a bad pattern: an error now

    @classmethod
    def of(cls, selection: GameFilter | None = None, **filters: Any) -> GameFilter:
        """A filter from the keyword filters of the library functions (singular
        names as well: ``game``, ``player``, ``result``, ``event``, ``opening``),
        narrowing ``selection`` when one is given. A ``position`` keyword replaces
        the selection's position (the tree's root does so)."""
        aliases = {
            "game": "games",
            "player": "players",
            "result": "results",
            "event": "events",
            "opening": "openings",
            "opening_name": "opening_names",
        }
        fields = {}
        for name, value in filters.items():
            if value is None:
                continue
            field = aliases.get(name, name)
            if field not in cls.__dataclass_fields__:
                raise TypeError(f"unknown filter {name!r}")
            fields[field] = value
        if selection is None:
            return cls(**fields)
        # What the selection leaves open is set on it (so that one game chosen by the
        # caller makes the selection's openings canonical); the rest narrows it.
        position = fields.pop("position", selection.position)
        pattern = fields.pop("pattern", selection.pattern)
        mainline_only = bool(fields.pop("mainline_only", False)) or selection.mainline_only
        free = {name: value for name, value in fields.items() if not getattr(selection, name)}
        narrowing = cls(**{name: value for name, value in fields.items() if name not in free})
        within = selection.within + ((narrowing,) if narrowing else ())
        return dataclasses.replace(
            selection,
            **free,
            position=position,
            pattern=pattern,
            mainline_only=mainline_only,
            within=within,
        )

    def __bool__(self) -> bool:
        """Whether the filter leaves any game out (names files alone select all, and
        ``mainline_only`` only narrows a position)."""
        return any(
            getattr(self, name)
            for name in self.__dataclass_fields__
            if name not in ("opening_files", "mainline_only")
        )

    def described(self) -> list[tuple[str, str]]:
        """``(option, value)`` of each filter set, as a report lists them."""
        found: list[tuple[str, str]] = []
        for name in _MULTIPLE:
            if name != "opening_files":
                found.extend((name.rstrip("s"), str(value)) for value in getattr(self, name))
        for name in ("date_from", "date_to", "position", "pattern"):
            if getattr(self, name) is not None:
                found.append((name, getattr(self, name)))
        if self.position is not None and self.mainline_only:
            found.append(("mainline_only", "yes"))
        for inner in self.within:
            found.extend(inner.described())
        return found

    def position_setups(self, db: Any = None) -> list[PositionSetup]:
        """The position filter read under each set-up it can mean: per game whose
        notation reads it (the one game chosen, else every game), under the
        set-up the filter names (``sides``, ``NAME=VALUE`` tags of the game's
        settings), a setting it leaves open taken from the set-ups of ``db``'s
        games of that game (without ``db``: its default). The position text
        decides between set-ups where it reads under one only; when it reads
        under several, ``UsageError`` names the options that choose each."""
        assert self.position is not None
        return position_setups(
            self.position, self.only_game(), self.tag_values(), self.all_sides(), db
        )

    def tag_values(self) -> dict[str, set[str]]:
        """The values the ``NAME=VALUE`` tag filters allow, per tag name (OR within
        a filter, AND with the narrowing ones)."""
        found: dict[str, set[str]] = {}
        for level in (self, *self.within):
            allowed: dict[str, set[str]] = {}
            for condition in map(TagCondition.parse, level.tags):
                if condition.operator == "=":
                    allowed.setdefault(condition.name, set()).add(condition.value)
            for name, values in allowed.items():
                found[name] = found[name] & values if name in found else values
        return found

    def all_sides(self) -> set[int]:
        """The sides the filter allows (narrowing filters included; empty: any)."""
        found = set(self.sides)
        for inner in self.within:
            if inner.sides:
                found = set(inner.sides) if not found else found & set(inner.sides)
        return found

    def only_game(self) -> str | None:
        """The one game chosen, if exactly one is."""
        return self.games[0] if len(self.games) == 1 else None

    def sql(self, db: Any = None) -> tuple[str, str, list]:
        """The FROM part (with the position join: ``hit.ply``, ``hit.line``), the
        WHERE part and its parameters, over ``games g``. ``db``: the archive (a
        sqlite-utils ``Database`` or a ``sqlite3`` connection) whose set-ups a
        position is read under when the filter does not name one
        (:meth:`position_setups`)."""
        joins = "games g"
        params: list = []
        if self.position is not None:
            joins, params = _position_join(self.position_setups(db), self.mainline_only)
        clauses, where_params = self._clauses(self.opening_files)
        if self.pattern is not None:
            # Last, so that SQLite replays only the games every other filter kept.
            clauses.append(f"{PATTERN_SQL} IS NOT NULL")
            where_params.append(self.pattern)
        return joins, " AND ".join(clauses) if clauses else "1", params + where_params

    def position_columns(self) -> str:
        """The SQL columns of a position filter's rows: ``ply``, ``found``
        (``mainline`` or ``variation``) and ``variation`` (its number, else NULL)."""
        return (
            "hit.ply, CASE WHEN hit.line = 0 THEN 'mainline' ELSE 'variation' END AS found, "
            "nullif(hit.line, 0) AS variation"
        )

    def pattern_column(self) -> tuple[str, list]:
        """The SQL column ``pattern_ply`` and its parameters (the pattern's first
        matching ply, cached from the WHERE part's call)."""
        return f"{PATTERN_SQL} AS pattern_ply", [self.pattern]

    def _clauses(self, files: tuple[str, ...] = ()) -> tuple[list[str], list]:
        clauses: list[str] = []
        params: list = []
        files = self.opening_files or files

        def any_of(template: str, values: Iterable, arity: int = 1) -> None:
            values = list(values)
            if values:
                clauses.append("(" + " OR ".join(template for _ in values) + ")")
                for value in values:
                    params.extend([value] * arity)

        prefixes = [
            prefix for prefix in (self._prefix(opening) for opening in self.openings) if prefix
        ]
        # With an opening, the game is checked on the row (unary +), so the plan
        # walks the games_moves range whatever the statistics say.
        any_of("+g.game = ?" if prefixes else "g.game = ?", self.games)
        if self.players:
            # The distinct folded names containing the text (a scan of the small
            # game_players_folded index, in C), then their games by that index.
            matching = " OR ".join("instr(n.folded, ?) > 0" for _ in self.players)
            clauses.append(
                "g.id IN (SELECT p.game_id FROM game_players p WHERE p.folded IN "
                f"(SELECT DISTINCT n.folded FROM game_players n WHERE {matching}))"
            )
            params.extend(fold(name) for name in self.players)
        any_of("g.result = ?", self.results)
        any_of("instr(partita_fold(g.event), ?) > 0", (fold(name) for name in self.events))
        if self.date_from is not None:
            clauses.append("g.date_min >= ?")
            params.append(date_bound(self.date_from, upper=False))
        if self.date_to is not None:
            clauses.append("g.date_max <= ?")
            params.append(date_bound(self.date_to, upper=True))
        if len(prefixes) == len(self.openings):
            # Equal to the prefix, or the prefix then a space: one index range, as no
            # token holds a character below '!'. (An empty opening matches all.)
            flat = [bound for prefix in prefixes for bound in (prefix, prefix + "!")]
            if prefixes:
                clauses.append(
                    "(" + " OR ".join("(g.moves >= ? AND g.moves < ?)" for _ in prefixes) + ")"
                )
                params.extend(flat)
        any_of("g.sides = ?", self.sides)
        equal: dict[str, list[TagCondition]] = {}
        for condition in map(TagCondition.parse, self.tags):
            if condition.operator == "=":
                equal.setdefault(condition.name, []).append(condition)
            else:
                clause, values = _tag_clause(condition)
                clauses.append(clause)
                params.extend(values)
        for conditions in equal.values():
            parts = [_tag_clause(condition) for condition in conditions]
            clauses.append("(" + " OR ".join(clause for clause, _ in parts) + ")")
            for _, values in parts:
                params.extend(values)
        if self.opening_names:
            from partita.database.openings import game_opening_names

            games = self.games or tuple(spec.name for spec in all_specs())
            found = game_opening_names(self.opening_names, games, files)
            if found is None:
                clauses.append("0")  # no opening name holds the text
            else:
                clauses.append(found[0])
                params.extend(found[1])
        for inner in self.within:
            inner_clauses, inner_params = inner._clauses(files)
            clauses.extend(inner_clauses)
            params.extend(inner_params)
        return clauses, params

    def _prefix(self, opening: str) -> str:
        tokens = opening.split()
        game = self.only_game()
        if game is not None:
            notation = get_game(game)
            tokens = [notation.canonical_token(token) for token in tokens]
        return " ".join(tokens)


#: The filter's fields that hold several values (OR within each).
_MULTIPLE = (
    "games",
    "players",
    "results",
    "events",
    "openings",
    "sides",
    "tags",
    "opening_names",
    "opening_files",
)

#: The first ply of a game at which the pattern (the last parameter) matches.
PATTERN_SQL = "partita_pattern(?, g.id, g.game, g.moves, g.sides, g.tags)"


def _pattern_games(pattern: str, name: str | None) -> list[str]:
    """The games whose notation reads ``pattern``; ``NotationError`` naming the
    reason of each when none does."""
    from partita.database.patterns import pattern_games

    return pattern_games(pattern, name)


def _tag_defaults(name: str) -> list[tuple[str, str]]:
    """``(game, default value)`` of every game that gives tag ``name`` a default."""
    return [
        (notation.name, spec.default)
        for notation in all_games()
        for spec in notation.rules.tags
        if spec.name == name and spec.default
    ]


_DATE_VALUE = re.compile(r"[0-9]{4}\.[0-9?]{2}\.[0-9?]{2}")
_COMPARE = {
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
}


def _tag_clause(condition: TagCondition) -> tuple[str, list]:
    """The SQL of one tag condition and its parameters: a range of an index of
    ``game_tags`` (``(name, value)``, or ``(name, number)`` for numbers), and for a
    game whose default value of the tag passes the condition (decided here, once),
    its games that leave the tag out."""
    name, operator = condition.name, condition.operator
    if operator == "=" and not condition.value:
        return (
            "NOT EXISTS (SELECT 1 FROM game_tags t WHERE t.game_id = g.id AND t.name = ?)",
            [name],
        )
    operand: str | float | None
    if operator == "=":
        test, operand = "t.value = ?", condition.value

        def passes(value: str) -> bool:
            return value == condition.value
    elif operator == "~":
        test, operand = "t.value REGEXP ?", condition.value

        def passes(value: str) -> bool:
            return regexp(condition.value, value)
    elif condition.kind() == "number":
        bound_number = number(condition.value)
        test, operand = f"t.number {operator} ?", bound_number

        def passes(value: str) -> bool:
            found = number(value)
            return found is not None and _COMPARE[operator](found, bound_number)
    else:
        # Dates: the operand's first or last day, as the operator needs it; a
        # record's value must itself be a date (YYYY.MM.DD, '??' allowed).
        bound = date_bound(condition.value, upper=operator in ("<=", ">"))
        test = (
            "t.value GLOB '[0-9][0-9][0-9][0-9].[0-9?][0-9?].[0-9?][0-9?]' "
            f"AND t.value {operator} ?"
        )
        operand = bound

        def passes(value: str) -> bool:
            return bool(_DATE_VALUE.fullmatch(value)) and _COMPARE[operator](value, bound)

    clause = f"g.id IN (SELECT t.game_id FROM game_tags t WHERE t.name = ? AND {test})"
    params: list = [name, operand]
    # A tag a record leaves out has its game's default value.
    defaulted = [game for game, default in _tag_defaults(name) if passes(default)]
    if defaulted:
        games = ", ".join("?" * len(defaulted))
        clause = (
            f"({clause} OR (g.game IN ({games}) AND NOT EXISTS "
            "(SELECT 1 FROM game_tags d WHERE d.game_id = g.id AND d.name = ?)))"
        )
        params += [*defaulted, name]
    return clause, params


@dataclass(frozen=True, slots=True)
class PositionSetup:
    """A position filter read under one set-up of one game: the game, its set-up,
    the folded key (:func:`~partita.database.keys.fold_key` under that set-up),
    and whether it is the set-up's initial position."""

    game: str
    configuration: Configuration
    key: int
    initial: bool


def archive_setups(db: Any, notation: GameNotation[Any, Any]) -> list[Configuration]:
    """The set-ups of the archive's games of ``notation``'s game (a scan of that
    game's rows; the game's default alone for a game without settings)."""
    names = [spec.name for spec in notation.rules.tags if not spec.cosmetic]
    if not names:
        return []
    conn = getattr(db, "conn", db)
    values = "".join(f", json_extract(tags, '$.\"{name}\"')" for name in names)
    found = set()
    for row in conn.execute(
        f"SELECT DISTINCT sides{values} FROM games WHERE game = ?", (notation.name,)
    ):
        tags = {name: value for name, value in zip(names, row[1:], strict=True) if value}
        found.add(Configuration.of(notation, row[0] or notation.rules.min_sides, tags))
    return sorted(found, key=lambda configuration: configuration.label)


def position_setups(
    position: str,
    name: str | None,
    tags: dict[str, set[str]],
    sides: set[int],
    db: Any = None,
) -> list[PositionSetup]:
    """:meth:`GameFilter.position_setups`: ``name`` the game's (``None``: every
    game), ``tags`` the values each tag filter allows, ``sides`` the sides allowed
    (empty: any)."""
    notations = [get_game(name)] if name is not None else list(all_games())
    found: list[PositionSetup] = []
    errors: list[str] = []
    for notation in notations:
        readings = _readings(position, notation, tags, sides, db, errors)
        if len(readings) > 1:
            varying = varying_settings([configuration for configuration, _ in readings])
            options = "; ".join(configuration.options(varying) for configuration, _ in readings)
            raise UsageError(
                f"position '{position}' is a position of {len(readings)} set-ups of "
                f"{notation.name} in the archive: choose one ({options})"
            )
        for configuration, state in readings:
            configured = configuration.configure(notation)
            rules = configured.rules
            key = rules.key(state)
            initial = key == rules.key(configured.initial(configuration.sides))
            found.append(
                PositionSetup(
                    notation.name,
                    configuration,
                    fold_key(notation.name, key, configuration),
                    initial,
                )
            )
    if not found:
        if name is not None and len(errors) == 1:
            raise NotationError(errors[0].split(": ", 1)[1])
        raise NotationError(
            f"position '{position}' is no position of any supported game ({'; '.join(errors)})"
        )
    return found


def _readings(
    position: str,
    notation: GameNotation[Any, Any],
    tags: dict[str, set[str]],
    sides: set[int],
    db: Any,
    errors: list[str],
) -> list[tuple[Configuration, Any]]:
    """``(set-up, state)`` of each set-up of ``notation``'s game the filter allows
    (see :func:`position_setups`) under which ``position`` reads: the archive's
    set-ups first, else those the filter names (a position of no stored set-up
    finds no game rather than failing); the first reason it does not read is added
    to ``errors``."""
    readings: dict[Configuration, Any] = {}
    reasons: list[str] = []
    stored, named = _candidate_setups(notation, tags, sides, db)
    for candidates in (stored, named):
        _read_under(position, notation, candidates, sides, readings, reasons)
        if readings:
            break
    if not readings and reasons:
        errors.append(f"{notation.name}: {reasons[0]}")
    return list(readings.items())


def _read_under(
    position: str,
    notation: GameNotation[Any, Any],
    candidates: list[tuple[Configuration, int | None]],
    sides: set[int],
    readings: dict[Configuration, Any],
    reasons: list[str],
) -> None:
    """``position`` read under each candidate set-up: ``readings`` gets the
    set-ups (with the sides the position has) and states, ``reasons`` why it
    does not read under the others."""
    for configuration, wanted_sides in candidates:
        try:
            configured = configuration.configure(notation)
        except TagError:
            continue  # an invalid record's set-up: none of its positions is stored
        try:
            state = configured.parse_position(position, wanted_sides)
        except (NotationError, SetupError) as error:
            reasons.append(str(error))
            continue
        found_sides = configured.rules.sides(state)
        if sides and found_sides not in sides:
            reasons.append(f"the position has {found_sides} sides")
            continue
        if found_sides != configuration.sides:
            configuration = Configuration.of(notation, found_sides, configuration.tags())
        readings.setdefault(configuration, state)


def _candidate_setups(
    notation: GameNotation[Any, Any], tags: dict[str, set[str]], sides: set[int], db: Any
) -> tuple[list[tuple[Configuration, int | None]], list[tuple[Configuration, int | None]]]:
    """The set-ups a position filter may mean, each with the sides to read the
    position with (``None``: as its text says): the archive's set-ups the tag and
    sides filters allow, and those the tag filters name (defaults filled in)."""
    one_side = next(iter(sides)) if len(sides) == 1 else None
    default = Configuration.default(notation)
    specs = [spec for spec in notation.rules.tags if not spec.cosmetic]
    if not specs:
        return [], [(default, one_side)]
    stored: list[tuple[Configuration, int | None]] = [
        (configuration, configuration.sides)
        for configuration in (archive_setups(db, notation) if db is not None else [])
        if (not sides or configuration.sides in sides)
        and all(value in tags.get(name, {value}) for name, value in configuration.settings)
    ]
    named: list[tuple[Configuration, int | None]] = []
    for values in product(*(sorted(tags.get(spec.name, {spec.default or ""})) for spec in specs)):
        settings = {spec.name: value for spec, value in zip(specs, values, strict=True) if value}
        try:
            notation.configure(settings)
        except TagError:
            continue  # a combination the game refuses (a tag of another league)
        named.append((Configuration.of(notation, default.sides, settings), one_side))
    return stored, named


def _position_join(setups: list[PositionSetup], mainline_only: bool) -> tuple[str, list]:
    """The games joined to ``hit`` (game_id, ply, line: where the game stood on the
    position of ``setups`` first, the mainline before the variations, see the
    module docstring)."""
    # One range of the positions primary key per (game, key) pair, and as many of
    # the variation_positions one. The positions table has no row for ply 0, so a
    # set-up's initial position matches every game of that set-up that did not
    # start from a setup, at ply 0.
    mainline = " OR ".join("(p.key = ? AND g.game = ?)" for _ in setups)
    starts = ""
    start_params: list = []
    for setup in setups:
        if setup.initial:
            clauses = [
                _tag_clause(TagCondition.parse(text)) for text in setup.configuration.tag_filters()
            ]
            starts += (
                " UNION ALL SELECT g.id, 0, 0 FROM games g WHERE g.game = ? AND g.sides = ? "
                "AND coalesce(json_extract(g.tags, '$.SetUp'), '0') != '1'"
                + "".join(f" AND {clause}" for clause, _ in clauses)
            )
            start_params.extend((setup.game, setup.configuration.sides))
            for _, values in clauses:
                start_params.extend(values)
    hits = (
        "SELECT p.game_id, p.ply, 0 AS line FROM positions p "
        f"CROSS JOIN games g ON g.id = p.game_id WHERE {mainline}{starts}"
    )
    params: list = []
    for setup in setups:
        params.extend((setup.key, setup.game))
    params.extend(start_params)
    if mainline_only:
        chosen = f"SELECT game_id, min(ply) AS ply, 0 AS line FROM ({hits}) GROUP BY game_id"
    else:
        variation = " OR ".join("(v.key = ? AND g.game = ?)" for _ in setups)
        hits += (
            " UNION ALL SELECT v.game_id, v.ply, v.line FROM variation_positions v "
            f"CROSS JOIN games g ON g.id = v.game_id WHERE {variation}"
        )
        for setup in setups:
            params.extend((setup.key, setup.game))
        # Per game the first hit: the mainline's first, else the earliest ply of a
        # variation (the lowest line at that ply).
        chosen = (
            "SELECT game_id, ply, line FROM (SELECT game_id, ply, line, row_number() OVER "
            "(PARTITION BY game_id ORDER BY line > 0, ply, line) AS rank "
            f"FROM ({hits})) WHERE rank = 1"
        )
    return f"games g JOIN ({chosen}) hit ON hit.game_id = g.id", params
