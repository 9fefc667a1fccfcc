"""What keeps the local server safe: headers, CSRF tokens, Host and size checks.

* Every response carries a strict Content-Security-Policy (scripts, styles,
  images and requests from this server only; no inline script, no inline style,
  no frames, no plugins), ``X-Content-Type-Options: nosniff``, no referrer, and
  ``X-Frame-Options: DENY``.
* A request naming a Host the server does not answer to is refused (a web page
  elsewhere cannot reach the archive through DNS rebinding).
* A POST (any method but GET, HEAD and OPTIONS) must carry the CSRF token: the
  ``X-CSRF-Token`` header or a ``csrf_token`` form field. The token is an HMAC
  of a secret made at start-up, so a page of another site cannot know it.
* A request body is limited to ``max_body`` bytes (413 beyond).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sys
from typing import TYPE_CHECKING, Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from partita.web.app import WebSettings

__all__ = ["CSP", "SecurityMiddleware", "csrf_token", "new_secret", "valid_token"]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
}
_SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def new_secret() -> bytes:
    return secrets.token_bytes(32)


def csrf_token(secret: bytes) -> str:
    """The CSRF token of this server's run (the same for every page)."""
    return hmac.new(secret, b"partita-csrf", hashlib.sha256).hexdigest()


def valid_token(secret: bytes, token: str | None) -> bool:
    return token is not None and hmac.compare_digest(token, csrf_token(secret))


class SecurityMiddleware:
    """The checks and headers of the module docstring, around every request."""

    def __init__(self, app: ASGIApp, settings: WebSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        allowed = self.settings.allowed_hosts
        if "*" not in allowed and _host_name(host) not in {_host_name(h) for h in allowed}:
            await _refuse(scope, send, 400, f"this server does not answer to the host '{host}'")
            return
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.settings.max_body):
            await _refuse(scope, send, 413, "the request is too large")
            return
        if scope["method"] not in _SAFE_METHODS:
            body = await _read_body(receive, self.settings.max_body)
            if body is None:
                await _refuse(scope, send, 413, "the request is too large")
                return
            receive = _replay(body)
            token = headers.get("x-csrf-token") or _form_token(headers, body)
            if not valid_token(self.settings.secret, token):
                await _refuse(
                    scope,
                    send,
                    403,
                    "the form is out of date or came from another site "
                    "(no valid CSRF token): reload the page and try again",
                )
                return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                response_headers = MutableHeaders(scope=message)
                for name, value in _HEADERS.items():
                    if name not in response_headers:
                        response_headers[name] = value
            await send(message)

        started = False

        async def send_noting_start(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send_with_headers(message)

        try:
            await self.app(scope, receive, send_noting_start)
        except Exception as error:  # a bug: one line here, a page or JSON there
            if os.environ.get("PARTITA_DEBUG") == "1":
                raise
            reason = f"internal error: {type(error).__name__}: {error}"
            sys.stderr.write(
                f"partita: {reason} (on {scope.get('path', '')}; PARTITA_DEBUG=1 shows "
                "the traceback; please report it)\n"
            )
            if not started:
                from partita.web.errors import error_response

                response = error_response(scope, 500, reason + " (please report it)")
                await response(scope, receive, send_with_headers)


def _host_name(host: str) -> str:
    """``host:port`` without the port (``[::1]:8000`` → ``[::1]``)."""
    if host.startswith("["):
        return host[: host.find("]") + 1].lower()
    return host.rsplit(":", 1)[0].lower() if host.count(":") == 1 else host.lower()


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _form_token(headers: Headers, body: bytes) -> str | None:
    kind = headers.get("content-type", "")
    if kind.startswith("application/x-www-form-urlencoded"):
        from urllib.parse import parse_qs

        values = parse_qs(body.decode("utf-8", "replace")).get("csrf_token")
        return values[0] if values else None
    if kind.startswith("application/json"):
        try:
            data: Any = json.loads(body or b"null")
        except ValueError:
            return None
        value = data.get("csrf_token") if isinstance(data, dict) else None
        return value if isinstance(value, str) else None
    return None


async def _refuse(scope: Scope, send: Send, status: int, reason: str) -> None:
    """A refusal before any route ran: JSON under /api/, else a plain page."""
    from partita.web.errors import error_response

    response = error_response(scope, status, reason, token=False)
    for name, value in _HEADERS.items():
        response.headers.setdefault(name, value)

    async def no_body() -> Message:
        return {"type": "http.disconnect"}

    await response(scope, no_body, send)
