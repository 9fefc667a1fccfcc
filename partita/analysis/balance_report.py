"""The balance figures as report sections, and as a page of their own.

:func:`balance_section` is a report section builder (``builder(db, notation,
game_ids) -> Section | None``, the shape of :mod:`partita.analysis.report`'s
per-game sections): the balance of one configuration's games, with tables and
charts. :func:`balance_sections` makes the sections of a list of
:class:`~partita.analysis.balance.ConfigurationBalance`; :func:`render_balance` a
self-contained HTML page (or Markdown, without the charts) for ``partita balance -o``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jinja2 import Environment, select_autoescape

from partita.analysis import charts
from partita.analysis.balance import ConfigurationBalance, balance
from partita.analysis.report import Section, Table
from partita.notation.base import GameNotation

__all__ = ["balance_section", "balance_sections", "describe_advantage", "render_balance"]

#: Events shown in the chart (the most frequent); the table lists them all.
CHART_EVENTS = 16


def describe_advantage(entry: ConfigurationBalance) -> str:
    """One sentence on the first seat: its score, the fair share, the advantage."""
    advantage = entry.first_seat_advantage
    if advantage is None:
        return "No decided game: no score."
    first = entry.seats[0]
    low, high = first.interval
    verdict = "significant at 95%" if entry.significant else "not significant at 95%"
    return (
        f"The first seat scores {first.score:.3f} (95% interval {low:.3f} to {high:.3f}) "
        f"against a fair share of {entry.fair_share:.3f}: an advantage of "
        f"{advantage[0]:+.3f} ({advantage[1]:+.3f} to {advantage[2]:+.3f}), {verdict}."
    )


def _section(entry: ConfigurationBalance) -> Section:
    section = Section(f"Balance: {entry.title} ({entry.label})")
    section.paragraphs.append(
        f"{entry.games} games: {entry.decided} decided, {entry.unfinished} unfinished"
        + (f", {entry.skipped} not replayable under these rules" if entry.skipped else "")
        + ". Scores: win 1, draw 1/2, loss 0, over the decided games, with 95% Wilson "
        "intervals."
    )
    section.paragraphs.append(describe_advantage(entry))
    if entry.agents is not None and entry.agents.games:
        section.paragraphs.append(
            f"The agents, over the {entry.agents.games} decided games that agents played "
            "(score: mean result over their seats; head-to-head: the share of the other "
            "agent's seats finished ahead of, level counting 1/2): "
            + "; ".join(entry.agents.describe())
            + "."
        )
    rows = []
    for seat in entry.seats:
        low, high = seat.interval
        rows.append(
            [
                f"Player{seat.seat + 1}",
                seat.games,
                seat.won,
                seat.drawn,
                seat.lost,
                "–" if seat.score is None else f"{seat.score:.3f}",
                f"{low:.3f} – {high:.3f}",
            ]
        )
    section.tables.append(
        Table(["seat", "games", "won", "drawn", "lost", "score", "95% interval"], rows)
    )
    if entry.decided:
        section.charts.append(
            charts.bar_chart(
                [f"Player{seat.seat + 1}" for seat in entry.seats],
                [seat.score or 0.0 for seat in entry.seats],
                title=f"Score per seat (fair share {entry.fair_share:.2f})",
                ylabel="score",
                annotations=[
                    f"{seat.score or 0:.3f} ({seat.interval[0]:.2f}–{seat.interval[1]:.2f})"
                    for seat in entry.seats
                ],
                salt="balance-seats",
            )
        )
    lengths = entry.length_figures()
    if lengths["games"]:
        section.tables.append(
            Table(
                ["plies", "mean", "median", "quartiles", "shortest", "longest"],
                [
                    [
                        "",
                        lengths["mean"],
                        lengths["median"],
                        f"{lengths['quartiles'][0]} – {lengths['quartiles'][1]}",
                        lengths["min"],
                        lengths["max"],
                    ]
                ],
            )
        )
        edges, counts = entry.histogram()
        if len(edges) > 1:
            section.charts.append(
                charts.stacked_histogram(
                    edges,
                    [("games", counts, charts.BAR_COLOUR)],
                    title="Length of the games",
                    xlabel="plies",
                    salt="balance-lengths",
                )
            )
    events = entry.event_rows()
    if events:
        section.tables.append(
            Table(
                ["rule event", "times", "per game", "games with it"],
                [
                    [name, count, f"{per_game:.2f}", f"{share:.0%}"]
                    for name, count, per_game, share in events
                ],
            )
        )
        shown = events[:CHART_EVENTS]
        section.charts.append(
            charts.ranked_bar_chart(
                [name for name, *_ in shown],
                [per_game for _, _, per_game, _ in shown],
                title="How often each rule fires",
                xlabel="per game",
                annotations=[f"{share:.0%}" for *_, share in shown],
                salt="balance-events",
            )
        )
    return section


def balance_sections(entries: Sequence[ConfigurationBalance]) -> list[Section]:
    return [_section(entry) for entry in entries]


def balance_section(db: Any, notation: GameNotation, game_ids: list[int]) -> Section | None:
    """The report's balance section for these games of one configuration (``None``
    without valid games)."""
    entries = [entry for entry in balance(db, game_ids=game_ids) if entry.game == notation.name]
    if not entries:
        return None
    return _section(max(entries, key=lambda entry: entry.games))


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
table { border-collapse: collapse; margin: 0.8rem 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.2rem 0.6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
svg { max-width: 100%; height: auto; }
</style></head><body>
<h1>{{ title }}</h1>
{% for section in sections %}<h2>{{ section.title }}</h2>
{% for paragraph in section.paragraphs %}<p>{{ paragraph }}</p>
{% endfor %}{% for table in section.tables %}<table><tr>{% for header in table.headers %}<th>{{ header }}</th>{% endfor %}</tr>
{% for row in table.rows %}<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>
{% endfor %}</table>
{% endfor %}{% for chart in section.charts %}<figure>{{ chart }}</figure>
{% endfor %}{% endfor %}</body></html>
"""


def _markdown_cell(value: Any) -> str:
    return str(value).replace("|", "\\|")


def render_balance(
    entries: Sequence[ConfigurationBalance], *, markdown: bool = False, title: str = "Balance"
) -> str:
    """A page of the balance sections: HTML with its charts inline, or Markdown."""
    sections = balance_sections(entries)
    if not markdown:
        environment = Environment(autoescape=select_autoescape(default=True))
        return environment.from_string(_PAGE).render(title=title, sections=sections)
    lines = [f"# {title}", ""]
    for section in sections:
        lines += [f"## {section.title}", ""]
        for paragraph in section.paragraphs:
            lines += [paragraph, ""]
        for table in section.tables:
            lines.append("| " + " | ".join(map(_markdown_cell, table.headers)) + " |")
            lines.append("|" + " --- |" * len(table.headers))
            for row in table.rows:
                lines.append("| " + " | ".join(map(_markdown_cell, row)) + " |")
            lines.append("")
    return "\n".join(lines)
