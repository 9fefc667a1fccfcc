"""Charts for the reports, drawn by matplotlib as inline SVG.

matplotlib's object API (``Figure``, no pyplot: no global state, no display) with
the SVG backend; text stays text (``svg.fonttype = none``: small, selectable, and
escaped by matplotlib's XML writer), math text is off (a ``$`` in a label is a
dollar), and every chart gets its own id salt so that several charts inlined in
one page never share an element id. The XML prologue is dropped so the ``<svg>``
element can be inlined in HTML.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from markupsafe import Markup

__all__ = ["bar_chart", "stacked_histogram"]

WIN_COLOUR = "#2e7d32"
DRAW_COLOUR = "#9e9e9e"
LOSS_COLOUR = "#c62828"
OTHER_COLOUR = "#90a4ae"
BAR_COLOUR = "#1f4e9c"

_counter = 0


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=96)
    return figure


def _svg(figure, salt: str) -> Markup:
    """The figure as an ``<svg>`` element (trusted markup: made here, every text
    escaped by matplotlib)."""
    import matplotlib

    global _counter
    _counter += 1
    buffer = io.StringIO()
    with matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": f"partita-{salt}-{_counter}"}
    ):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buffer.getvalue()
    return Markup(text[text.index("<svg") :])


def _style(axes) -> None:
    axes.spines["top"].set_visible(False)
    axes.spines["right"].set_visible(False)
    axes.tick_params(labelsize=9)


def bar_chart(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    ylabel: str,
    annotations: Sequence[str] | None = None,
    colours: Sequence[str] | None = None,
    salt: str = "bar",
) -> Markup:
    """Vertical bars, one per label, with an optional text above each bar."""
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        figure = _figure(max(4.0, 0.42 * len(labels) + 1.5), 2.8)
        axes = figure.subplots()
        positions = range(len(labels))
        bars = axes.bar(positions, values, color=list(colours) if colours else BAR_COLOUR)
        axes.set_xticks(list(positions), list(labels), rotation=0 if len(labels) < 14 else 60)
        axes.set_title(title, fontsize=11)
        axes.set_ylabel(ylabel, fontsize=9)
        if annotations:
            for bar, text in zip(bars, annotations, strict=True):
                axes.annotate(
                    text,
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center",
                    va="bottom",
                    fontsize=7,
                    xytext=(0, 2),
                    textcoords="offset points",
                )
        axes.margins(y=0.15)
        _style(axes)
        return _svg(figure, salt)


def stacked_histogram(
    bins: Sequence[int],
    series: Sequence[tuple[str, Sequence[int], str]],
    *,
    title: str,
    xlabel: str,
    ylabel: str = "games",
    salt: str = "histogram",
) -> Markup:
    """Stacked bars over integer ``bins`` (their lower edges), one layer per
    ``(name, counts, colour)``, with a legend."""
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        figure = _figure(6.4, 2.8)
        axes = figure.subplots()
        width = (bins[1] - bins[0]) * 0.9 if len(bins) > 1 else 0.9
        bottom = [0] * len(bins)
        for name, counts, colour in series:
            if not any(counts):
                continue
            axes.bar(
                bins, counts, width=width, bottom=bottom, color=colour, label=name, align="edge"
            )
            bottom = [low + count for low, count in zip(bottom, counts, strict=True)]
        axes.set_title(title, fontsize=11)
        axes.set_xlabel(xlabel, fontsize=9)
        axes.set_ylabel(ylabel, fontsize=9)
        axes.legend(fontsize=8, frameon=False)
        _style(axes)
        return _svg(figure, salt)
