"""The `conformance` command: the conformance suite on one game, for plugin authors."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from partita.cli.app import app
from partita.cli.options import JsonOption, complete_game_id
from partita.errors import PartitaError


@app.command()
def conformance(
    game: Annotated[
        str,
        typer.Argument(help="The Game tag (see `partita games`).", autocompletion=complete_game_id),
    ],
    seeds: Annotated[
        int, typer.Option("--seeds", help="Random games per random check.", min=1, max=100_000)
    ] = 10,
    as_json: JsonOption = False,
) -> None:
    """Run the conformance suite on a game (built-in or plugin): each check as it
    ends, then a summary.

    Exit 0 when every check passes, 1 when one fails, 2 for an unknown game.
    """
    from partita import conformance as suite
    from partita.game.registry import get_spec

    try:
        get_spec(game)
    except PartitaError as error:
        raise typer.BadParameter(str(error), param_hint="GAME") from None

    def show(result: suite.CheckResult) -> None:
        if not as_json:
            typer.echo(suite.format_result(result))

    results = suite.run_conformance(game, seeds=seeds, on_result=show)
    if as_json:
        typer.echo(
            json.dumps([result.as_dict() for result in results], ensure_ascii=False, indent=2)
        )
    else:
        typer.echo(f"{game}: {suite.summary(results)}")
    raise typer.Exit(int(not all(result.passed for result in results)))
