"""The application factory of ``partita serve``: Starlette, Jinja2, static files.

How the app is put together (and how another module adds pages):

* Each page module of this package exposes ``routes: list[BaseRoute]`` (Starlette
  ``Route`` objects). A handler that reads the archive or computes is a plain
  ``def handler(request) -> Response`` (Starlette runs it in its thread pool, so a
  slow page never holds the others up); one that only awaits (``await
  request.json()``) is ``async def``.
  :data:`ROUTE_MODULES` names those modules, in order; :func:`create_app` imports
  each and mounts its ``routes``. A new page module adds its dotted name to
  :data:`ROUTE_MODULES` (one line) and nothing else here.
* The app's settings are :class:`WebSettings` on ``request.app.state.settings``
  (:func:`settings` reads it): the archive path, ``write`` (``False``: the archive
  is only read), the analysis limits.
* Pages are Jinja2 templates in ``partita/web/templates``, rendered with
  :func:`partita.web.templating.render` (autoescaped: every text from a record is
  shown as text). A page extends ``base.html`` and fills its blocks:
  ``{% block title %}`` (the page's title), ``{% block main %}`` (the content),
  ``{% block scripts %}`` (``<script src="{{ static('x.js') }}" defer></script>``
  tags: no inline script, the Content-Security-Policy forbids it; data for a
  script goes in a ``<script type="application/json" id=...>`` block, which is
  not executed, or in ``data-`` attributes). ``{{ csrf_token }}`` is in every
  template's context (a hidden ``csrf_token`` field of a form, or the
  ``X-CSRF-Token`` header of a ``fetch``; base.html also puts it in
  ``<meta name="csrf-token">``, which ``app.js``'s ``partita.post`` sends).
* Static files (CSS, JavaScript) are in ``partita/web/static`` and served under
  ``/static/`` (only from that folder). ``app.js`` (loaded by every page) gives
  ``window.partita.post(url, data)`` (a JSON POST with the CSRF token),
  ``getJSON(url)`` and ``jsonData(id)``.
* A position in a URL (``game``, ``sides``, ``tag``, ``position``, ``moves``) is
  read by :func:`partita.web.positions.position_from`; its board is
  ``/positions/board.svg?...``; a page's header links are
  :data:`partita.web.templating.NAV`.
* Tests: ``tests/web_server.py`` starts ``partita serve`` (:func:`start_server`,
  options such as ``--write`` passed through) and gives Playwright pages.
* Errors: a :class:`~partita.errors.PartitaError` or an ``HTTPException`` raised by a
  handler becomes an error page, or JSON (``{"error": reason, "status": N}``) under
  ``/api/`` (:mod:`partita.web.errors`); anything else a 500 with one line, never a
  traceback.
* Security (:mod:`partita.web.security`): the headers (a strict CSP), the CSRF
  check of every POST, the Host check and the request size limit are middleware
  around every route.
* The archive: a request that reads it opens it once, read-only
  (:func:`request_archive`), and it is closed when the response has been sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from partita.web.errors import EXCEPTION_HANDLERS
from partita.web.security import SecurityMiddleware, new_secret

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from partita.database.connection import Archive

__all__ = [
    "ROUTE_MODULES",
    "STATIC",
    "WebSettings",
    "create_app",
    "request_archive",
    "settings",
]

#: The page modules whose ``routes`` the app mounts, in this order.
ROUTE_MODULES: list[str] = [
    "partita.web.archive",
    "partita.web.positions",
    "partita.web.players",
    "partita.web.game_page",
    "partita.web.explorer",
    "partita.web.analysis_jobs",
    "partita.web.balance_page",
    "partita.web.play",
    "partita.web.api",
]

#: The one folder files are served from.
STATIC = Path(__file__).resolve().parent / "static"

#: The most bytes a request body may hold (a record pasted into a form is far less).
MAX_BODY = 1_000_000


@dataclass
class WebSettings:
    """What the app serves and how: the archive, read-only or not, the limits."""

    db: Path
    write: bool = False
    #: The hosts a request may name (the Host header): the bound address's names.
    allowed_hosts: tuple[str, ...] = ("127.0.0.1", "localhost", "[::1]", "testserver")
    #: The CSRF secret (new each start).
    secret: bytes = field(default_factory=new_secret)
    max_body: int = MAX_BODY
    #: Analysis jobs: how many run at once, the longest time budget (seconds), the
    #: most MCTS iterations one may ask.
    analysis_workers: int = 1
    max_seconds: float = 60.0
    max_iterations: int = 200_000
    extra: dict[str, Any] = field(default_factory=dict)

    def served_agent(self, spec: str) -> tuple[str, dict[str, Any]]:
        """The kind and settings of agent ``spec`` (``parse_agent_spec``), refusing
        what the server does not run: searches in worker processes (``workers=``),
        since it searches in its own."""
        from partita.analysis.agents import parse_agent_spec
        from partita.errors import PartitaError

        kind, options = parse_agent_spec(spec)
        if options.get("workers", 1) > 1:
            raise PartitaError(
                f"agent '{spec}': the server searches in its own process (no workers=)"
            )
        return kind, options


def settings(request: Request) -> WebSettings:
    """The running app's :class:`WebSettings`."""
    found: WebSettings = request.app.state.settings
    return found


#: Where a request keeps the archive it opened (a list: empty until it reads).
_OPENED = "partita.archive"


def request_archive(request: Request) -> Archive:
    """The archive, open for reading for this request: opened on its first use in
    the request, closed when the response has been sent (:class:`_ArchivePerRequest`)."""
    opened: list[Archive] = request.scope[_OPENED]
    if not opened:
        from partita.database.schema import open_archive

        opened.append(open_archive(settings(request).db, readonly=True))
    return opened[0]


class _ArchivePerRequest:
    """Closes the archive a request opened (:func:`request_archive`) once its
    response has been sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        opened: list[Archive] = []
        scope[_OPENED] = opened
        try:
            await self.app(scope, receive, send)
        finally:
            for archive in opened:
                archive.close()


def create_app(
    db_path: str | Path,
    write: bool = False,
    *,
    allowed_hosts: tuple[str, ...] | None = None,
    **options: Any,
) -> Starlette:
    """The ASGI application over the archive ``db_path``: read-only unless ``write``.
    ``allowed_hosts``: the Host names a request may use (the defaults are the
    loopback names); ``options``: other :class:`WebSettings` fields."""
    chosen = WebSettings(db=Path(db_path), write=write, **options)
    if allowed_hosts is not None:
        chosen.allowed_hosts = tuple(allowed_hosts)
    routes: list[BaseRoute] = []
    for name in ROUTE_MODULES:
        routes.extend(import_module(name).routes)
    routes.append(Mount("/static", app=StaticFiles(directory=STATIC), name="static"))
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(SecurityMiddleware, settings=chosen),
            Middleware(_ArchivePerRequest),
        ],
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=_lifespan,
    )
    app.state.settings = chosen
    return app


@asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    """Stop the analysis workers when the server stops."""
    try:
        yield
    finally:
        from partita.web.analysis_jobs import shutdown_jobs

        shutdown_jobs(app)
