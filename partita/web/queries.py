"""A page's or an API call's query string read into partita's values: the one
:class:`~partita.database.filters.GameFilter` (the query command's filters, by the
CLI options' names), a page of a listing, a bounded number.

The names are the CLI's option names with ``_`` for ``-``: ``game``, ``player``,
``result``, ``event``, ``date_from``, ``date_to``, ``opening``, ``position``,
``mainline_only``, ``opening_name``, ``pattern``, ``sides``, ``tag``; a repeated
name is OR within it, as a repeated option is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.datastructures import QueryParams

from partita.database.filters import GameFilter
from partita.errors import PartitaError

__all__ = ["FILTER_NAMES", "Listing", "filter_from", "filter_query", "number", "text"]

#: Query name → GameFilter field, and whether it repeats.
FILTER_NAMES: dict[str, tuple[str, bool]] = {
    "game": ("games", True),
    "player": ("players", True),
    "result": ("results", True),
    "event": ("events", True),
    "date_from": ("date_from", False),
    "date_to": ("date_to", False),
    "opening": ("openings", True),
    "position": ("position", False),
    "mainline_only": ("mainline_only", False),
    "opening_name": ("opening_names", True),
    "pattern": ("pattern", False),
    "sides": ("sides", True),
    "tag": ("tags", True),
}
#: The longest value a query may give (a position, a pattern, a name).
LONGEST = 2000


def text(params: QueryParams, name: str, default: str | None = None) -> str | None:
    """One value, stripped, ``default`` when absent or empty."""
    value = params.get(name)
    if value is None or not value.strip():
        return default
    if len(value) > LONGEST:
        raise PartitaError(f"{name}: at most {LONGEST} characters")
    return value.strip()


def number(params: QueryParams, name: str, default: int, low: int, high: int) -> int:
    """A whole number within ``low..high`` (an error naming it otherwise)."""
    value = params.get(name)
    if value is None or not value.strip():
        return default
    try:
        found = int(value)
    except ValueError:
        raise PartitaError(f"{name} must be a whole number, not '{value}'") from None
    if not low <= found <= high:
        raise PartitaError(f"{name} must be between {low} and {high}, not {found}")
    return found


def filter_query(params: QueryParams) -> dict[str, list[str]]:
    """The filter values of ``params`` (name → values given), as a form shows them."""
    chosen: dict[str, list[str]] = {}
    for name in FILTER_NAMES:
        values = [value.strip() for value in params.getlist(name) if value.strip()]
        for value in values:
            if len(value) > LONGEST:
                raise PartitaError(f"{name}: at most {LONGEST} characters")
        if values:
            chosen[name] = values
    return chosen


def filter_from(params: QueryParams) -> GameFilter:
    """The :class:`GameFilter` of a query string (its errors are partita's)."""
    fields: dict[str, Any] = {}
    for name, values in filter_query(params).items():
        field, repeats = FILTER_NAMES[name]
        if name == "mainline_only":
            fields[field] = values[-1] not in ("0", "false", "no", "off")
        elif name == "sides":
            try:
                fields[field] = tuple(int(value) for value in values)
            except ValueError:
                raise PartitaError("sides must be a number of sides (2 to 4)") from None
        elif repeats:
            fields[field] = tuple(values)
        else:
            fields[field] = values[-1]
    return GameFilter(**fields)


@dataclass(frozen=True)
class Listing:
    """Which page of a listing: its order and its place."""

    order: str = "id"
    descending: bool = False
    page: int = 1
    per_page: int = 50

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    @classmethod
    def from_query(cls, params: QueryParams, orders: Any) -> Listing:
        order = text(params, "sort", "id") or "id"
        if order not in orders:
            raise PartitaError(f"cannot sort by '{order}' (one of {', '.join(orders)})")
        return cls(
            order=order,
            descending=(text(params, "desc") or "0") not in ("0", "false", "no"),
            page=number(params, "page", 1, 1, 10_000_000),
            per_page=number(params, "per_page", 50, 1, 500),
        )
