"""The web app: partita serve (the server and its pages load only when it runs)."""

from typing import Annotated

import typer

from partita.cli.app import app
from partita.cli.options import ArchiveOption, existing_archive


@app.command()
def serve(
    db: ArchiveOption = None,
    port: Annotated[
        int,
        typer.Option("--port", help="The TCP port (0: any free port, printed).", min=0, max=65535),
    ] = 8000,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="The address to bind. Default 127.0.0.1 (this machine only); another "
            "host lets other machines in, with a warning.",
        ),
    ] = "127.0.0.1",
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the app in the default web browser.")
    ] = False,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Let the app change the archive (save played games); without it the "
            "archive is only read.",
        ),
    ] = False,
) -> None:
    """Serve a local web app on the archive: games, boards, analysis, the opening
    explorer, players, balance and a JSON API (see docs/web.md). Ctrl-C stops it."""
    from partita.web.server import serve as run

    run(existing_archive(db), host=host, port=port, write=write, open_browser=open_browser)
