"""Charts for the reports, drawn by matplotlib as inline SVG.

matplotlib's object API (``Figure``, no pyplot: no global state, no display) with
the SVG backend; text stays text (``svg.fonttype = none``: small, selectable, and
escaped by matplotlib's XML writer), math text is off (a ``$`` in a label is a
dollar). Counts get integer axes (``MaxNLocator(integer=True)``: no "0.5 games").
Long category labels are wrapped, cut at :data:`LABEL_LIMIT` characters, and
slanted when they still do not fit under their bar. Several charts inlined in one
page never share an element id: every id of a chart (matplotlib names its groups
``figure_1``, ``ytick_1``... in every figure) gets the chart's own prefix, and so
do the references to it. The XML prologue is dropped so the ``<svg>`` element can
be inlined in HTML.

Every chart function returns a :class:`Chart` that is drawn when it is first shown
(``str()``, or Jinja's ``__html__``): a Markdown report, which shows no SVG, and any
caller that only reads a report's figures never pay for matplotlib's drawing, which
is most of a report's time.
"""

from __future__ import annotations

import functools
import io
import re
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec

from markupsafe import Markup

__all__ = [
    "LABEL_LIMIT",
    "Chart",
    "bar_chart",
    "interval_chart",
    "line_chart",
    "ranked_bar_chart",
    "stacked_histogram",
]

WIN_COLOUR = "#2e7d32"
DRAW_COLOUR = "#9e9e9e"
LOSS_COLOUR = "#c62828"
OTHER_COLOUR = "#90a4ae"
BAR_COLOUR = "#1f4e9c"

#: Category labels longer than this are cut (with an ellipsis).
LABEL_LIMIT = 28
#: Lines of a wrapped category label are at most this long.
LABEL_WRAP = 12
#: Inches per character of a 9-point label (DejaVu Sans, about).
_CHAR_INCHES = 0.075

_counter = 0
_ID = re.compile(r'\bid="([^"]+)"')


class Chart:
    """A chart drawn on first use: ``str(chart)`` (or Jinja's ``__html__``) is its
    ``<svg>`` element, drawn once and kept. The data it is drawn from are the
    arguments given to the chart function, read when it is drawn."""

    __slots__ = ("_draw", "_svg", "title")

    def __init__(self, draw: Callable[[], Markup], title: str = "chart") -> None:
        self._draw: Callable[[], Markup] | None = draw
        self._svg: Markup | None = None
        #: The chart's title (an image's alternative text in Markdown).
        self.title = title

    @property
    def svg(self) -> Markup:
        """The chart's ``<svg>`` element (trusted markup)."""
        if self._svg is None:
            assert self._draw is not None
            self._svg, self._draw = self._draw(), None
        return self._svg

    def __html__(self) -> str:
        return str(self.svg)

    def __str__(self) -> str:
        return str(self.svg)

    def standalone(self) -> str:
        """The chart as an SVG file's text (with its XML prologue)."""
        return '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n' + str(self.svg) + "\n"

    def __repr__(self) -> str:
        return f"<Chart {'drawn' if self._svg is not None else 'not drawn yet'}>"


_Arguments = ParamSpec("_Arguments")


def _drawn_when_shown(draw: Callable[_Arguments, Markup]) -> Callable[_Arguments, Chart]:
    """``draw`` made to return a :class:`Chart` that calls it on first use."""

    @functools.wraps(draw)
    def chart(*args: Any, **kwargs: Any) -> Chart:
        return Chart(functools.partial(draw, *args, **kwargs), str(kwargs.get("title", "chart")))

    return chart


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=96)
    return figure


def _svg(figure, salt: str) -> Markup:
    """The figure as an ``<svg>`` element (trusted markup: made here, every text
    escaped by matplotlib), its ids prefixed with this chart's own."""
    import matplotlib

    global _counter
    _counter += 1
    prefix = f"chart{_counter}-{re.sub(r'[^A-Za-z0-9_-]', '_', salt)}-"
    buffer = io.StringIO()
    with matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": f"partita-{salt}-{_counter}"}
    ):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buffer.getvalue()
    return Markup(prefix_ids(text[text.index("<svg") :], prefix))


def prefix_ids(svg: str, prefix: str) -> str:
    """``svg`` with every ``id`` and every reference to one (``url(#id)``,
    ``href="#id"``) prefixed by ``prefix``."""
    ids = set(_ID.findall(svg))
    if not ids:
        return svg

    def reference(match: re.Match) -> str:
        name = match.group(2)
        return match.group(1) + (prefix + name if name in ids else name) + match.group(3)

    svg = _ID.sub(lambda match: f'id="{prefix}{match.group(1)}"', svg)
    svg = re.sub(r"(url\(#)([^)]+)(\))", reference, svg)
    return re.sub(r'((?:xlink:)?href="#)([^"]+)(")', reference, svg)


def _category_labels(labels: Sequence[str]) -> list[str]:
    """Labels cut at :data:`LABEL_LIMIT` characters and wrapped at spaces."""
    shown = []
    for label in labels:
        text = str(label)
        if len(text) > LABEL_LIMIT:
            text = text[: LABEL_LIMIT - 1].rstrip() + "…"
        shown.append(textwrap.fill(text, LABEL_WRAP, break_long_words=False) or text)
    return shown


def _integer_axis(axis) -> None:
    """Ticks at whole numbers only: the axis counts things."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _style(axes) -> None:
    axes.spines["top"].set_visible(False)
    axes.spines["right"].set_visible(False)
    axes.tick_params(labelsize=9)


def _label_bars(axes, bars, annotations: Sequence[str], *, lying: bool) -> None:
    """A small text at the end of each bar: above it, or right of it for ``lying``
    (horizontal) bars."""
    for bar, text in zip(bars, annotations, strict=True):
        if lying:
            end, align = (bar.get_width(), bar.get_y() + bar.get_height() / 2), ("left", "center")
        else:
            end, align = (bar.get_x() + bar.get_width() / 2, bar.get_height()), ("center", "bottom")
        axes.annotate(
            text,
            end,
            ha=align[0],
            va=align[1],
            fontsize=7,
            xytext=(2, 0) if lying else (0, 2),
            textcoords="offset points",
        )


@_drawn_when_shown
def bar_chart(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    ylabel: str,
    annotations: Sequence[str] | None = None,
    colours: Sequence[str] | None = None,
    salt: str = "bar",
    counts: bool = True,
) -> Markup:
    """Vertical bars, one per label, with an optional text above each bar;
    ``counts``: the values count things (an integer axis)."""
    import matplotlib

    shown = _category_labels(labels)
    widest = max((len(line) for label in shown for line in label.splitlines()), default=1)
    # A bar's slot is wide enough for its label's longest line, up to a point;
    # labels that still do not fit are slanted.
    slot = min(max(0.42, _CHAR_INCHES * widest + 0.12), 1.1)
    width = min(max(4.0, slot * len(labels) + 1.5), 11.0)
    slanted = len(labels) >= 14 or _CHAR_INCHES * widest + 0.05 > (width - 1.5) / max(
        1, len(labels)
    )
    with matplotlib.rc_context({"text.parse_math": False}):
        figure = _figure(width, 2.8)
        axes = figure.subplots()
        positions = range(len(labels))
        bars = axes.bar(positions, values, color=list(colours) if colours else BAR_COLOUR)
        if slanted:
            flat = [label.replace("\n", " ") for label in shown]
            axes.set_xticks(list(positions), flat, rotation=45, ha="right")
            for tick in axes.get_xticklabels():
                tick.set_rotation_mode("anchor")
        else:
            axes.set_xticks(list(positions), shown)
        axes.set_title(title, fontsize=11)
        axes.set_ylabel(ylabel, fontsize=9)
        if counts:
            _integer_axis(axes.yaxis)
        if annotations:
            _label_bars(axes, bars, annotations, lying=False)
        axes.margins(y=0.15)
        _style(axes)
        return _svg(figure, salt)


@_drawn_when_shown
def ranked_bar_chart(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    xlabel: str,
    annotations: Sequence[str] | None = None,
    salt: str = "ranked",
) -> Markup:
    """Horizontal bars, the first label at the top: for many long labels (rule
    events), which stay level and readable where a column chart would slant them
    into each other."""
    import matplotlib

    shown = [label.replace("\n", " ") for label in _category_labels(labels)]
    widest = max((len(label) for label in shown), default=1)
    width = min(max(5.0, _CHAR_INCHES * widest + 4.0), 11.0)
    with matplotlib.rc_context({"text.parse_math": False}):
        figure = _figure(width, 0.26 * len(labels) + 1.0)
        axes = figure.subplots()
        positions = range(len(labels))
        bars = axes.barh(positions, values, color=BAR_COLOUR)
        axes.set_yticks(list(positions), shown)
        axes.invert_yaxis()
        axes.set_title(title, fontsize=11)
        axes.set_xlabel(xlabel, fontsize=9)
        if annotations:
            _label_bars(axes, bars, annotations, lying=True)
        axes.margins(x=0.15)
        _style(axes)
        return _svg(figure, salt)


@_drawn_when_shown
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
    ``(name, counts, colour)``, with a legend; both axes are integer."""
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
        # At least two whole numbers on the x axis, so its ticks can be integers.
        step = bins[1] - bins[0] if len(bins) > 1 else 1
        axes.set_xlim(bins[0] - 0.5 * step, bins[-1] + 1.5 * step)
        _integer_axis(axes.xaxis)
        _integer_axis(axes.yaxis)
        axes.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        _style(axes)
        return _svg(figure, salt)


@_drawn_when_shown
def line_chart(
    xs: Sequence[int],
    series: Sequence[tuple[str, Sequence[float], str]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    salt: str = "line",
    limits: tuple[float, float] = (0.0, 1.0),
    reference: float | None = None,
) -> Markup:
    """One line per ``(name, values, colour)`` over integer ``xs`` (a step at each
    x: a value holds until the next one), y from ``limits``, a dotted line at
    ``reference`` (an even share), with a legend."""
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        figure = _figure(6.4, 2.6)
        axes = figure.subplots()
        for name, values, colour in series:
            axes.step(list(xs), list(values), where="post", color=colour, label=name, lw=1.4)
        axes.set_ylim(limits[0] - 0.03, limits[1] + 0.03)
        if reference is not None:
            axes.axhline(reference, color=DRAW_COLOUR, lw=0.6, ls=":")
        axes.set_title(title, fontsize=11)
        axes.set_xlabel(xlabel, fontsize=9)
        axes.set_ylabel(ylabel, fontsize=9)
        _integer_axis(axes.xaxis)
        axes.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        _style(axes)
        return _svg(figure, salt)


@_drawn_when_shown
def interval_chart(
    labels: Sequence[str],
    values: Sequence[float | None],
    intervals: Sequence[tuple[float, float]],
    *,
    title: str,
    xlabel: str,
    reference: float | None = None,
    reference_label: str = "fair share",
    limits: tuple[float, float] = (0.0, 1.0),
    salt: str = "interval",
) -> Markup:
    """One row per label, the first at the top: a bar from the low to the high end
    of its interval, the value marked on it and written beside it, and a dashed
    line at ``reference`` (the fair share) labelled ``reference_label``. A label
    without a value gets an empty row."""
    import matplotlib

    shown = [label.replace("\n", " ") for label in _category_labels(labels)]
    widest = max((len(label) for label in shown), default=1)
    width = min(max(5.0, _CHAR_INCHES * widest + 4.5), 11.0)
    with matplotlib.rc_context({"text.parse_math": False}):
        figure = _figure(width, 0.42 * len(labels) + 1.1)
        axes = figure.subplots()
        positions = list(range(len(labels)))
        for position, value, (low, high) in zip(positions, values, intervals, strict=True):
            if value is None:
                continue
            axes.barh(position, high - low, left=low, height=0.5, color=OTHER_COLOUR)
            axes.plot([value, value], [position - 0.32, position + 0.32], color=BAR_COLOUR, lw=3)
            axes.annotate(
                f"{value:.3f} ({low:.3f}–{high:.3f})",
                (high, position),
                xytext=(4, 0),
                textcoords="offset points",
                ha="left",
                va="center",
                fontsize=7,
            )
        if reference is not None:
            axes.axvline(reference, color=LOSS_COLOUR, lw=1.2, ls="--")
            axes.annotate(
                f"{reference_label} {reference:.3f}",
                (reference, 1.0),
                xycoords=("data", "axes fraction"),
                xytext=(3, 2),
                textcoords="offset points",
                ha="left",
                va="bottom",
                fontsize=8,
                color=LOSS_COLOUR,
            )
        axes.set_yticks(positions, shown)
        axes.set_ylim(len(labels) - 0.5, -0.5)
        axes.set_xlim(*limits)
        axes.set_title(title, fontsize=11, pad=14)
        axes.set_xlabel(xlabel, fontsize=9)
        _style(axes)
        return _svg(figure, salt)
