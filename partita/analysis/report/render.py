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
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from partita.analysis.report.build import build_report
from partita.analysis.report.options import ReportOptions
from partita.errors import PartitaError
from partita.outfiles import replaced_file

__all__ = [
    "markdown_charts_folder",
    "markdown_escape",
    "render_html",
    "render_markdown",
    "write_report",
]


@cache
def _html_environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("partita.analysis", "templates"),
        autoescape=select_autoescape(["html", "svg", "j2", "xml"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["percent"] = _percent
    environment.filters["shorten"] = _shorten
    environment.filters["shorten_start"] = _shorten_start
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


def _asset(name: str) -> str:
    return resources.files("partita.analysis").joinpath("templates", name).read_text("utf-8")


def _html_chart(shown: bool) -> Callable[[Any], Markup]:
    """The templates' ``chart(c)``: the chart inlined in its ``<div>``, or nothing
    when the charts are off (or there is none)."""

    def chart(drawn: Any) -> Markup:
        if not shown or not drawn:
            return Markup("")
        return Markup('<div class="chart">') + Markup(str(drawn)) + Markup("</div>")

    return chart


def _markdown_charts(folder: Path | None, link: str) -> Callable[[Any], Markup]:
    """The Markdown template's ``chart(c)``: the chart written to ``folder`` as
    ``chart-N.svg`` (numbered as shown) and an image linking to it as
    ``link/chart-N.svg``; nothing without a folder."""
    shown = 0

    def chart(drawn: Any) -> Markup:
        nonlocal shown
        if folder is None or not drawn:
            return Markup("")
        shown += 1
        name = f"chart-{shown}.svg"
        text = drawn.standalone() if hasattr(drawn, "standalone") else str(drawn)
        (folder / name).write_text(text, encoding="utf-8", newline="\n")
        title = markdown_escape(getattr(drawn, "title", "chart"))
        return Markup(f"\n![{title}]({quote(link)}/{name})\n")

    return chart


def render_html(data: dict) -> str:
    """The report as one self-contained HTML page."""
    script = _asset("viewer.js")
    if "</script" in script.lower():  # never true for the shipped file; a guard
        raise PartitaError("the viewer script may not contain '</script'")
    # The page's Content-Security-Policy allows this one script (by its hash) and
    # no network at all: a script that escaped escaping still could not run.
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        _html_environment()
        .get_template("report.html.j2")
        .render(
            report=data,
            css=Markup(_asset("report.css")),
            script=Markup(script),
            script_hash=f"sha256-{digest}",
            chart=_html_chart(_charts_shown(data)),
        )
    )


def _charts_shown(data: dict) -> bool:
    options = data.get("options")
    return options is None or getattr(options, "charts", True)


def render_markdown(
    data: dict, charts_folder: Path | None = None, charts_link: str | None = None
) -> str:
    """The report as Markdown (diagrams as text, figures as tables). With
    ``charts_folder`` (an existing folder) the charts are written there as SVG
    files and shown as images linked as ``charts_link/chart-N.svg`` (by default
    the folder's name: the folder sits beside the Markdown file)."""
    folder = charts_folder if _charts_shown(data) else None
    link = charts_link or (folder.name if folder is not None else "")
    return (
        _markdown_environment()
        .get_template("report.md.j2")
        .render(report=data, chart=_markdown_charts(folder, link))
    )


def markdown_charts_folder(path: Path) -> Path:
    """Where a Markdown report at ``path`` keeps its chart files: beside it, named
    after it (``report.md``: ``report-charts/``)."""
    return path.with_name(path.stem + "-charts")


def write_report(
    target: Any,
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
    text = _markdown_with_charts(data, path) if fmt == "md" else render_html(data)
    with replaced_file(path) as stream:  # whole or not at all
        stream.write(text)
    return path


def _markdown_with_charts(data: dict, path: Path) -> str:
    """The Markdown text, its charts written into a fresh folder that then replaces
    the one beside ``path`` (a rerun leaves no chart of an earlier report)."""
    if not _charts_shown(data):
        return render_markdown(data)
    folder = markdown_charts_folder(path)
    fresh = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    try:
        text = render_markdown(data, fresh, folder.name)
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
