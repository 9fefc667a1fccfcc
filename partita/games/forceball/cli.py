"""The `decks` command: the Forceball decks partita knows, and their cards.

A game's own command: the Forceball spec lists it in ``commands`` and the CLI adds it.
The CLI loads this module at start-up to add the command, so the decks and rich are
imported by the command itself.
"""

import json
from typing import Annotated

import typer

from partita.cli.options import JsonOption
from partita.cli.output import stdout_console, warn


def decks(
    name: Annotated[
        str | None,
        typer.Argument(help="Show this deck's cards (a name from the list).", metavar="NAME"),
    ] = None,
    as_json: JsonOption = False,
    as_toml: Annotated[
        bool, typer.Option("--toml", help="With NAME: print the deck as a deck file (TOML).")
    ] = False,
) -> None:
    """The Forceball decks a [Deck] tag may name, or one deck's cards.

    Lists the shipped decks, then the user decks found in $PARTITA_DECKS.
    A deck file that cannot be used is a warning on stderr, and the exit code is 1.
    """
    from partita.cli.listing import print_table
    from partita.games.forceball.decks import DECKS_ENV, known_decks, scan_decks

    if as_toml and name is None:
        raise typer.BadParameter("--toml needs a deck NAME", param_hint="--toml")
    if name is not None:
        _show_deck(name, as_json=as_json, as_toml=as_toml)
        return
    console = stdout_console()
    _, problems = scan_decks()
    listing = known_decks()
    if as_json:
        typer.echo(json.dumps([entry._asdict() for entry in listing], ensure_ascii=False, indent=2))
    else:
        rows = [
            [entry.name, str(entry.cards), entry.description, entry.source] for entry in listing
        ]
        print_table(["name", "cards", "description", "source"], rows, right=(1,), wrap=(2,))
        if not any(entry.source != "shipped" for entry in listing):
            console.print(f"(add your own deck files to a directory named in ${DECKS_ENV})")
    for problem in problems:
        warn(str(problem.error))
    raise typer.Exit(int(bool(problems)))


def _show_deck(name: str, *, as_json: bool, as_toml: bool) -> None:
    from partita.cli.listing import print_table
    from partita.games.forceball.decks import deck_as_dict, format_deck, get_deck

    deck = get_deck(name)
    if as_toml:
        typer.echo(format_deck(deck), nl=False)
        return
    if as_json:
        typer.echo(json.dumps(deck_as_dict(deck), ensure_ascii=False, indent=2))
        return
    console = stdout_console()
    console.print(f"{deck.name}: {deck.description}", markup=False, soft_wrap=True)
    rows = [
        [card.id, " / ".join(card.types), str(card.force), str(card.speed), card.special or ""]
        for card in deck.cards
    ]
    print_table(["id", "types", "force", "speed", "special"], rows, right=(2, 3), wrap=(1, 4))
    console.print(f"{len(deck.cards)} cards")
