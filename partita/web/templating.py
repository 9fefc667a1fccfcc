"""The pages' Jinja2 environment and :func:`render`.

Autoescaping is on for every template: a player name, a tag, a comment from a
record is always text. Every template gets ``request``, ``static(name)`` (the URL
of a file of ``partita/web/static``, with a version so a browser never keeps an
old one), ``csrf_token``, ``writable`` (the server was started with ``--write``),
``nav`` (the header's links) and ``url(path, **query)``.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.types import Scope

from partita import __version__
from partita.web.security import csrf_token

__all__ = ["NAV", "environment", "render", "render_page", "url"]

#: The header's links: (path, label).
NAV: list[tuple[str, str]] = [
    ("/", "Games"),
    ("/players", "Players"),
    ("/openings", "Openings"),
    ("/explorer", "Explorer"),
    ("/analysis", "Analysis"),
    ("/play", "Play"),
    ("/balance", "Balance"),
]


def url(path: str, /, **query: Any) -> str:
    """``path`` with the query's non-empty values (a list: the name repeated)."""
    pairs: list[tuple[str, str]] = []
    for name, value in query.items():
        values = value if isinstance(value, list | tuple) else [value]
        pairs.extend((name, str(item)) for item in values if item not in (None, "", False))
    return f"{path}?{urlencode(pairs)}" if pairs else path


def static(name: str) -> str:
    return f"/static/{name}?v={__version__}"


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("partita.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(static=static, url=url, nav=NAV)
    return env


def render_page(
    scope: Scope, name: str, context: dict[str, Any], *, status: int = 200, token: bool = True
) -> HTMLResponse:
    """The page ``name`` rendered with ``context`` and the common values (``token``
    False: without the CSRF token, for pages answering a refused request)."""
    app = scope.get("app")
    settings = getattr(getattr(app, "state", None), "settings", None)
    common = {
        "csrf_token": csrf_token(settings.secret) if settings is not None and token else "",
        "writable": bool(settings is not None and settings.write),
        "path": scope.get("path", "/"),
    }
    html = environment().get_template(name).render({**common, **context})
    return HTMLResponse(html, status_code=status)


def render(
    request: Request, name: str, context: dict[str, Any] | None = None, *, status: int = 200
) -> HTMLResponse:
    """The page ``name`` for ``request``."""
    return render_page(request.scope, name, {"request": request, **(context or {})}, status=status)
