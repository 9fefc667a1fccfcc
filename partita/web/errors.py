"""Errors as pages or JSON with a clear reason, never a traceback.

Under ``/api/`` (or when the client asks for JSON) an error is
``{"error": reason, "status": N}``; elsewhere the error page (``error.html``).
A :class:`~partita.errors.PartitaError` (bad input: an unknown game, a malformed
position, a filter it cannot read) is a 400, an unknown game id a 404 (the handler
raises ``HTTPException(404, reason)``), anything else a 500 naming the error's kind
(:class:`partita.web.security.SecurityMiddleware` catches it: one line on the
server's stderr, no traceback unless ``PARTITA_DEBUG=1``).
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import Scope

from partita.errors import PartitaError

__all__ = ["EXCEPTION_HANDLERS", "error_response"]

_log = logging.getLogger("partita.web")

_TITLES = {
    400: "Bad request",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    413: "Request too large",
    500: "Internal error",
}


def wants_json(scope: Scope) -> bool:
    path: str = scope.get("path", "")
    if path.startswith("/api/"):
        return True
    for name, value in scope.get("headers", []):
        if name == b"accept":
            return b"application/json" in value and b"text/html" not in value
    return False


def error_response(scope: Scope, status: int, reason: str, *, token: bool = True) -> Response:
    """The answer for an error: JSON for the API, an error page for a browser
    (``token`` False: without the CSRF token, for a request refused before any
    route: a page of another site must not learn it)."""
    if wants_json(scope):
        return JSONResponse({"error": reason, "status": status}, status_code=status)
    try:
        from partita.web.templating import render_page

        return render_page(
            scope,
            "error.html",
            {
                "status": status,
                "title": _TITLES.get(status, "Error"),
                "reason": reason,
            },
            status=status,
            token=token,
        )
    except Exception:  # the page itself failed: a plain line still says why
        _log.exception("the error page failed")
        from html import escape

        return HTMLResponse(
            f"<!doctype html><title>{status}</title><p>{escape(reason)}</p>", status_code=status
        )


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    reason = error.detail if isinstance(error.detail, str) else _TITLES.get(error.status_code, "")
    if error.status_code == 404 and reason == "Not Found":
        reason = f"there is no page at {request.url.path}"
    if error.status_code == 405 and reason == "Method Not Allowed":
        reason = f"{request.method} is not allowed at {request.url.path}"
    response = error_response(request.scope, error.status_code, reason)
    if error.headers:
        response.headers.update(error.headers)
    return response


async def _domain_error(request: Request, error: Exception) -> Response:
    return error_response(request.scope, 400, str(error))


EXCEPTION_HANDLERS: dict[Any, Any] = {
    HTTPException: _http_error,
    PartitaError: _domain_error,
    ValueError: _domain_error,
}
# Anything else is a bug: partita.web.security's middleware answers it with one line.
