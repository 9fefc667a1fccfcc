"""The balance figures as report sections, and as a page of their own.

:func:`balance_section` is a report section builder (``builder(db, notation,
game_ids) -> Section | None``, the shape of :mod:`partita.analysis.report`'s
per-game sections): the balance of one configuration's games, with tables and
charts. :func:`balance_sections` makes the sections of a list of
:class:`~partita.analysis.balance.ConfigurationBalance`; :func:`render_balance` a
self-contained HTML page (or Markdown, without the charts) for ``partita balance -o``.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from partita.analysis import charts
from partita.analysis.balance import ConfigurationBalance, balance
from partita.analysis.report.options import Section, Table
from partita.game.notation import GameNotation

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "IntervalBar",
    "balance_section",
    "balance_sections",
    "describe_advantage",
    "render_balance",
]

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


class IntervalBar:
    """A seat's 95% interval as a table cell: in HTML a bar on a 0-1 scale with the
    score marked and the fair share as a dashed line, then the interval in
    figures; as text (Markdown) the figures only."""

    __slots__ = ("fair_share", "high", "low", "score")

    def __init__(self, low: float, high: float, score: float | None, fair_share: float) -> None:
        self.low, self.high, self.score, self.fair_share = low, high, score, fair_share

    def __str__(self) -> str:
        return f"{self.low:.3f} – {self.high:.3f}"

    def __html__(self) -> str:
        def at(value: float) -> str:
            return f"{100 * min(max(value, 0.0), 1.0):.1f}%"

        point = (
            ""
            if self.score is None
            else f'<span class="point" style="left:{at(self.score)}"></span>'
        )
        return (
            f'<span class="interval" title="{self} (fair share {self.fair_share:.3f})">'
            f'<span class="range" style="left:{at(self.low)};width:{at(self.high - self.low)}">'
            f"</span>{point}"
            f'<span class="fair" style="left:{at(self.fair_share)}"></span></span> '
            f'<span class="interval-text">{self}</span>'
        )


def _section(entry: ConfigurationBalance, *, charts_shown: bool = True) -> Section:
    """The balance of one configuration: the seats' scores with their intervals
    drawn as bars against the fair share, lengths and rule events; with
    ``charts_shown`` also as charts (the seats' intervals, the lengths, the rule
    events: the balance page; the report shows the tables, and its game part has
    its own length chart)."""
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
                "–" if seat.score is None else f"{seat.score:.3f}",
                IntervalBar(low, high, seat.score, entry.fair_share),
                seat.games,
                seat.won,
                seat.drawn,
                seat.lost,
            ]
        )
    # The score and its interval first: what a narrow screen shows without scrolling.
    section.tables.append(
        Table(
            [
                "seat",
                "score",
                f"95% interval (fair share {entry.fair_share:.3f})",
                "games",
                "won",
                "drawn",
                "lost",
            ],
            rows,
        )
    )
    if charts_shown and entry.decided:
        section.charts.append(
            charts.interval_chart(
                [f"Player{seat.seat + 1}" for seat in entry.seats],
                [seat.score for seat in entry.seats],
                [seat.interval for seat in entry.seats],
                title=f"Score per seat: 95% intervals against the fair share {entry.fair_share:.3f}",
                xlabel="score (win 1, draw 1/2, loss 0)",
                reference=entry.fair_share,
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
        if charts_shown and len(edges) > 1:
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
    if events and charts_shown:
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


def balance_section(db: Archive, notation: GameNotation, game_ids: list[int]) -> Section | None:
    """The report's balance section for these games of one configuration (``None``
    without valid games)."""
    entries = [entry for entry in balance(db, game_ids=game_ids) if entry.game == notation.name]
    if not entries:
        return None
    return _section(max(entries, key=lambda entry: entry.games), charts_shown=False)


def _markdown_cell(value: Any) -> str:
    return str(value).replace("|", "\\|")


def render_balance(
    entries: Sequence[ConfigurationBalance], *, markdown: bool = False, title: str = "Balance"
) -> str:
    """A page of the balance sections: HTML with its charts inline, or Markdown."""
    sections = balance_sections(entries)
    if not markdown:
        from partita.analysis.report.render import html_environment, inline_css

        return (
            html_environment()
            .get_template("balance.html.j2")
            .render(
                title=title,
                generated=datetime.date.today().isoformat(),
                sections=[
                    (entry, f"balance-{number}", section)
                    for number, (entry, section) in enumerate(
                        zip(entries, sections, strict=True), start=1
                    )
                ],
                css=inline_css(),
            )
        )
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
