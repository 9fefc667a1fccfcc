"""Small tallies the report's parts share: a result's kind, a W/D/L bar, a score's
colour."""

from __future__ import annotations

from partita.analysis import charts
from partita.game.rules import WIN, parse_result_token

__all__ = ["outcome_kind", "score_colour", "wdl_bar"]


def outcome_kind(result: str | None, sides: int) -> str:
    """``decisive``, ``drawn`` or ``unfinished`` for a result token."""
    if result is None:
        return "unfinished"
    try:
        scores = parse_result_token(result, sides)
    except ValueError:
        return "unfinished"
    if scores is None:
        return "unfinished"
    return "decisive" if sum(1 for score in scores if score == WIN) == 1 else "drawn"


def wdl_bar(won: int, drawn: int, lost: int, unfinished: int = 0) -> dict:
    """Percentages (summing to 100) of a W/D/L bar."""
    total = won + drawn + lost + unfinished
    if not total:
        return {"won": 0, "drawn": 0, "lost": 0, "unfinished": 100}
    return {
        "won": round(100 * won / total, 1),
        "drawn": round(100 * drawn / total, 1),
        "lost": round(100 * lost / total, 1),
        "unfinished": round(100 * unfinished / total, 1),
    }


def score_colour(score: float | None) -> str:
    """Red (0%) through grey (50%) to green (100%)."""
    if score is None:
        return charts.OTHER_COLOUR
    low, middle, high = (198, 40, 40), (158, 158, 158), (46, 125, 50)
    if score < 0.5:
        start, end, fraction = low, middle, score / 0.5
    else:
        start, end, fraction = middle, high, (score - 0.5) / 0.5
    red, green, blue = (round(a + (b - a) * fraction) for a, b in zip(start, end, strict=True))
    return f"#{red:02x}{green:02x}{blue:02x}"
