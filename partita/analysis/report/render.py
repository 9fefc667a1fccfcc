"""A report's data as text: one self-contained HTML page or Markdown (Jinja2
templates in ``partita/analysis/templates``), and writing it to a file."""

from __future__ import annotations

import base64
import hashlib
import shutil
import tempfile
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from partita.analysis.charts import Chart
from partita.analysis.report.build import build_report
from partita.analysis.report.options import ReportOptions
from partita.analysis.report.progress import Steps
from partita.errors import PartitaError
from partita.outfiles import replaced_file

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "html_environment",
    "inline_css",
    "markdown_charts_folder",
    "markdown_escape",
    "render_html",
    "render_markdown",
    "report_charts",
    "write_report",
]


@cache
def html_environment() -> Environment:
    """The HTML pages' Jinja2 environment (autoescaping on, the report's filters)."""
    environment = Environment(
        loader=PackageLoader("partita.analysis", "templates"),
        autoescape=select_autoescape(["html", "svg", "j2", "xml"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["percent"] = _percent
    environment.filters["shorten"] = _shorten
    environment.filters["shorten_start"] = _shorten_start
    # The page's data without the spaces of the default separators.
    environment.policies["json.dumps_kwargs"] = {"sort_keys": True, "separators": (",", ":")}
    return environment


def _percent(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:.{digits}%}"


def _shorten(value: Any, limit: int = 60) -> str:
    """``value`` cut to ``limit`` characters with an ellipsis (a card game's position
    or shuffle runs to hundreds)."""
    text = "" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shorten_start(value: Any, limit: int = 60) -> str:
    """``value``'s last ``limit`` characters after an ellipsis (a line's last moves)."""
    text = "" if value is None else str(value)
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


_MARKDOWN_SPECIAL = str.maketrans(
    {
        "\\": "\\\\",
        "`": "\\`",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "|": "\\|",
        "#": "\\#",
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
        "\n": " ",
        "\r": " ",
    }
)


def markdown_escape(value: Any) -> str:
    """A value as Markdown text that renders literally (no emphasis, links, table
    cells or raw HTML); trusted ``Markup`` passes unchanged."""
    if isinstance(value, Markup):
        return str(value)
    if value is None:
        return ""
    return str(value).translate(_MARKDOWN_SPECIAL)


@cache
def _markdown_environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("partita.analysis", "templates"),
        autoescape=False,
        finalize=markdown_escape,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["percent"] = _percent
    environment.filters["shorten"] = _shorten
    environment.filters["shorten_start"] = _shorten_start
    environment.filters["code"] = lambda text: Markup(str(text).replace("```", "'''"))
    return environment


def inline_css() -> Markup:
    """The pages' shared style sheet, to inline in a ``<style>`` element."""
    return Markup(_asset("report.css"))


def _asset(name: str) -> str:
    return resources.files("partita.analysis").joinpath("templates", name).read_text("utf-8")


def _html_chart(shown: bool, steps: Steps | None = None) -> Callable[[Any], Markup]:
    """The templates' ``chart(c)``: the chart inlined in its ``<div>``, or nothing
    when the charts are off (or there is none); ``steps`` counts each drawn."""

    def chart(drawn: Any) -> Markup:
        if not shown or not drawn:
            return Markup("")
        markup = Markup('<div class="chart">') + Markup(str(drawn)) + Markup("</div>")
        if steps is not None and isinstance(drawn, Chart):
            steps.advance()
        return markup

    return chart


def report_charts(data: dict) -> list[Chart]:
    """The charts a report's page draws (those still to be drawn cost most of its
    time)."""
    found: list[Any] = [data["glance"].get("years_chart")]
    for part in data["games"]:
        found += [part["lengths"]["chart"], part["first_moves"]["chart"]]
        for section in part["sections"]:
            found += section.charts
    return [chart for chart in found if isinstance(chart, Chart)]


def _markdown_charts(
    folder: Path | None, link: str, steps: Steps | None = None
) -> Callable[[Any], Markup]:
    """The Markdown template's ``chart(c)``: the chart written to ``folder`` as
    ``chart-N.svg`` (numbered as shown) and an image linking to it as
    ``link/chart-N.svg``; nothing without a folder. ``steps`` counts each drawn."""
    shown = 0

    def chart(drawn: Any) -> Markup:
        nonlocal shown
        if folder is None or not drawn:
            return Markup("")
        shown += 1
        name = f"chart-{shown}.svg"
        text = drawn.standalone() if hasattr(drawn, "standalone") else str(drawn)
        (folder / name).write_text(text, encoding="utf-8", newline="\n")
        if steps is not None and isinstance(drawn, Chart):
            steps.advance()
        title = markdown_escape(getattr(drawn, "title", "chart"))
        return Markup(f"\n![{title}]({quote(link)}/{name})\n")

    return chart


def render_html(data: dict, progress: Callable[[int, int], object] | None = None) -> str:
    """The report as one self-contained HTML page. ``progress(done, total)`` goes
    on from the steps of :func:`build_report` (``data["steps"]``) and counts each
    chart drawn."""
    shown = _charts_shown(data)
    steps = None
    if progress is not None:
        steps = Steps(progress, data.get("steps", 0))
        steps.add(len(report_charts(data)) if shown else 0)
    script = _asset("viewer.js")
    if "</script" in script.lower():  # never true for the shipped file; a guard
        raise PartitaError("the viewer script may not contain '</script'")
    # The page's Content-Security-Policy allows this one script (by its hash) and
    # no network at all: a script that escaped escaping still could not run.
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        html_environment()
        .get_template("report.html.j2")
        .render(
            report=data,
            css=inline_css(),
            script=Markup(script),
            script_hash=f"sha256-{digest}",
            chart=_html_chart(shown, steps),
        )
    )


def _charts_shown(data: dict) -> bool:
    options = data.get("options")
    return options is None or getattr(options, "charts", True)


def render_markdown(
    data: dict,
    charts_folder: Path | None = None,
    charts_link: str | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> str:
    """The report as Markdown (diagrams as text, figures as tables). With
    ``charts_folder`` (an existing folder) the charts are written there as SVG
    files and shown as images linked as ``charts_link/chart-N.svg`` (by default
    the folder's name: the folder sits beside the Markdown file); ``progress`` as
    for :func:`render_html`."""
    folder = charts_folder if _charts_shown(data) else None
    link = charts_link or (folder.name if folder is not None else "")
    steps = None
    if progress is not None:
        steps = Steps(progress, data.get("steps", 0))
        steps.add(len(report_charts(data)) if folder is not None else 0)
    return (
        _markdown_environment()
        .get_template("report.md.j2")
        .render(report=data, chart=_markdown_charts(folder, link, steps))
    )


def markdown_charts_folder(path: Path) -> Path:
    """Where a Markdown report at ``path`` keeps its chart files: beside it, named
    after it (``report.md``: ``report-charts/``)."""
    return path.with_name(path.stem + "-charts")


def write_report(
    target: Archive,
    output: str | Path,
    *,
    output_format: str | None = None,
    options: ReportOptions | None = None,
    progress: Callable[[int, int], object] | None = None,
    **filters: Any,
) -> Path:
    """Build the report and write it to ``output``: Markdown when the format is
    ``md`` (by default when ``output`` ends in ``.md``), HTML otherwise;
    ``progress`` as for :func:`build_report`."""
    path = Path(output)
    fmt = output_format or ("md" if path.suffix.lower() in (".md", ".markdown") else "html")
    if fmt not in ("html", "md"):
        raise PartitaError(f"report format '{fmt}': choose html or md")
    data = build_report(target, options=options, progress=progress, **filters)
    if fmt == "md":
        text = _markdown_with_charts(data, path, progress)
    else:
        text = render_html(data, progress)
    with replaced_file(path) as stream:  # whole or not at all
        stream.write(text)
    return path


def _markdown_with_charts(
    data: dict, path: Path, progress: Callable[[int, int], object] | None = None
) -> str:
    """The Markdown text, its charts written into a fresh folder that then replaces
    the one beside ``path`` (a rerun leaves no chart of an earlier report)."""
    if not _charts_shown(data):
        return render_markdown(data)
    folder = markdown_charts_folder(path)
    fresh = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    try:
        text = render_markdown(data, fresh, folder.name, progress)
        if not any(fresh.iterdir()):
            fresh.rmdir()
            return text
        if folder.is_dir():
            shutil.rmtree(folder)
        fresh.rename(folder)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    return text
