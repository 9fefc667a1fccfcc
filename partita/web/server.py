"""Running the app: a socket bound here, uvicorn serving it.

The socket is bound before uvicorn starts, so that a port in use is one clear
error and ``--port 0`` (any free port) prints the port it got.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
import webbrowser
from pathlib import Path

from partita.errors import PartitaError

__all__ = ["LOOPBACK", "is_loopback", "serve"]

LOOPBACK = "127.0.0.1"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _allowed_hosts(host: str) -> tuple[str, ...]:
    """The Host names a request may use: the loopback names, and the bound host;
    every name when bound to all addresses (``0.0.0.0``, ``::``)."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    bare = host.strip("[]")
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        names.append(host)
    else:
        if address.is_unspecified:
            return ("*",)
        names.append(f"[{bare}]" if address.version == 6 else bare)
    return tuple(names)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (``port`` 0: any free port)."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise PartitaError(f"cannot bind to host '{host}': {error.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as error:
        sock.close()
        reason = "the port is in use" if error.errno == 98 else (error.strerror or str(error))
        raise PartitaError(
            f"cannot serve on {host}:{port}: {reason} (try another --port)"
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(
    db: Path,
    *,
    host: str = LOOPBACK,
    port: int = 8000,
    write: bool = False,
    open_browser: bool = False,
) -> None:
    """Serve the archive ``db`` until Ctrl-C (the app of :func:`create_app`)."""
    import uvicorn

    from partita.web.app import create_app

    sock = bind(host, port)
    bound_port = sock.getsockname()[1]
    shown_host = f"[{host.strip('[]')}]" if ":" in host else host
    address = f"http://{shown_host}:{bound_port}/"
    app = create_app(db, write=write, allowed_hosts=_allowed_hosts(host))
    mode = "writable (--write)" if write else "read-only"
    print(f"partita: serving {db} ({mode}) at {address}  (Ctrl-C to stop)", flush=True)
    if not is_loopback(host):
        print(
            f"partita: WARNING: bound to {host}, not the loopback address: other "
            "machines can read this archive" + (" and change it" if write else ""),
            file=sys.stderr,
            flush=True,
        )
    if open_browser:
        local = address if is_loopback(host) else f"http://127.0.0.1:{bound_port}/"
        threading.Timer(0.5, webbrowser.open, args=(local,)).start()
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, server_header=False, lifespan="on"
    )
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
