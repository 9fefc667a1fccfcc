"""A report's data as text: one self-contained HTML page or Markdown (Jinja2
templates in ``partita/analysis/templates``), and writing it to a file."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from partita.analysis.report.build import build_report
from partita.analysis.report.options import ReportOptions
from partita.errors import PartitaError

__all__ = ["markdown_escape", "render_html", "render_markdown", "write_report"]


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
        )
    )


def render_markdown(data: dict) -> str:
    """The report as Markdown (diagrams as text, charts as tables)."""
    return _markdown_environment().get_template("report.md.j2").render(report=data)


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
    text = render_markdown(data) if fmt == "md" else render_html(data)
    path.write_text(text, encoding="utf-8", newline="\n")
    return path
