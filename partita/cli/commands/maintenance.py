"""Commands that keep the archive in order: delete, tag set, tag unset, twins, merge.

The archive code is imported by the commands that use it, so that start-up stays
light (see :mod:`partita.cli.app`).
"""

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from partita.cli.app import app
from partita.cli.display import count, printable
from partita.cli.filters import filter_options
from partita.cli.options import LARGEST, ArchiveOption, JsonOption, archive_path, existing_archive
from partita.errors import PartitaError

if TYPE_CHECKING:
    from partita.database.connection import Archive
    from partita.database.filters import GameFilter
    from partita.database.maintenance import TagChange
    from partita.database.twins import TwinGroup

YesOption = Annotated[
    bool, typer.Option("--yes", "-y", help="Do it without asking for confirmation.")
]


@contextmanager
def opened_to_change(target: Path) -> Iterator["Archive"]:
    """The archive ``target`` for a command that may change it: open for reading,
    so that a change found to change nothing, or refused, leaves the file as it
    was (the library opens it for writing when it writes); for writing when it
    cannot be read as it is (an archive an older partita wrote, which the change
    migrates, as every writing command does)."""
    import sqlite3

    from partita.database.connection import archive_error
    from partita.database.schema import open_archive
    from partita.errors import ArchiveError

    try:
        opened = open_archive(target, readonly=True)
    except ArchiveError:
        opened = open_archive(target, create=False)
    try:
        yield opened
    except sqlite3.Error as error:
        raise archive_error(error, opened.name) from None
    finally:
        opened.close()


def _listed(ids: list[int], most: int = 10) -> str:
    shown = ", ".join(str(game_id) for game_id in ids[:most])
    return shown + (f" and {len(ids) - most} more" if len(ids) > most else "")


def confirm_deletion(ids: list[int], target: Path, yes: bool, what: str = "") -> None:
    """Ask (on stderr, so that --json output stays clean) before deleting ``ids``;
    exit 1 when the answer is no or there is nobody to answer."""
    if yes:
        return
    noun = "game" if len(ids) == 1 else "games"
    question = f"delete {len(ids)} {noun}{what} from {target} ({_listed(ids)})?"
    try:
        agreed = typer.confirm(question, default=False, err=True)
    except typer.Abort:
        agreed = False
    if not sys.stdin.isatty():  # the answer was not echoed: end the prompt's line
        typer.echo(err=True)
    if not agreed:
        typer.echo("nothing deleted (--yes deletes without asking)", err=True)
        raise typer.Exit(1)


@app.command()
@filter_options()
def delete(
    ids: Annotated[
        list[int] | None,
        typer.Argument(
            help="Ids of the games to delete (with filters: those that match).",
            min=1,
            max=LARGEST,
        ),
    ] = None,
    db: ArchiveOption = None,
    yes: YesOption = False,
    as_json: JsonOption = False,
    selection: "GameFilter | None" = None,
) -> None:
    """Delete games, with their positions and problems, in one transaction.

    Name the games by id, by the filters of `query`, or both (the ids that match).
    Says how many and asks first, unless --yes.
    """
    target = existing_archive(db)
    with opened_to_change(target) as opened:
        _delete(opened, target, ids, yes, as_json, selection)


def _delete(
    opened: "Archive",
    target: Path,
    ids: list[int] | None,
    yes: bool,
    as_json: bool,
    selection: "GameFilter | None",
) -> None:
    from partita.database.maintenance import delete_games, matching_games

    try:
        doomed = matching_games(opened, ids or None, selection=selection)
    except PartitaError as error:
        if not ids and not selection:
            raise typer.BadParameter(str(error), param_hint="IDS") from None
        raise
    if not doomed:
        if as_json:
            typer.echo(
                json.dumps(
                    {"games": [], "positions": 0, "problems": 0, "variation_positions": 0}, indent=2
                )
            )
        else:
            typer.echo("no game matches: nothing deleted")
        return
    confirm_deletion(doomed, target, yes)
    deletion = delete_games(opened, doomed)
    if as_json:
        typer.echo(json.dumps(deletion.as_dict(), indent=2))
        return
    typer.echo(
        f"{target}: deleted {count(len(deletion.games), 'game')} ({_listed(deletion.games)}) "
        f"with {count(deletion.positions, 'position')} and "
        f"{count(deletion.problems, 'problem')}"
    )


tag_app = typer.Typer(
    name="tag",
    help="Set or remove a tag of a stored game (its text, hash and rows stay true).",
    no_args_is_help=True,
)
app.add_typer(tag_app)


def _print_change(change: "TagChange", as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(change.as_dict(), ensure_ascii=False, indent=2))
        return

    def shown(value: str | None) -> str:
        return "(absent)" if value is None else f"'{value}'"

    if not change.changed:
        typer.echo(
            printable(f"game {change.id}: {change.tag} is already {shown(change.after)}: unchanged")
        )
        return
    typer.echo(
        printable(
            f"game {change.id}: {change.tag} {shown(change.before)} -> {shown(change.after)} "
            f"({change.status})"
        )
    )


GameIdArgument = Annotated[
    int, typer.Argument(help="The id of a game in the archive.", min=1, max=LARGEST)
]
TagNameArgument = Annotated[str, typer.Argument(help="The tag's name (Event, Player1Elo...).")]


@tag_app.command("set")
def tag_set(
    game_id: GameIdArgument,
    name: TagNameArgument,
    value: Annotated[str, typer.Argument(help="The tag's new value.")],
    db: ArchiveOption = None,
    as_json: JsonOption = False,
) -> None:
    """Give a game's tag a value (added after the other tags if absent).

    Setting Result changes the result token too. A change that would make a valid
    game invalid, or the same record as another game, is refused.
    """
    from partita.database.maintenance import set_tag

    with opened_to_change(existing_archive(db)) as opened:
        change = set_tag(opened, game_id, name, value)
    _print_change(change, as_json)


@tag_app.command("unset")
def tag_unset(
    game_id: GameIdArgument,
    name: TagNameArgument,
    db: ArchiveOption = None,
    as_json: JsonOption = False,
) -> None:
    """Remove a tag from a game (refused if that makes a valid game invalid)."""
    from partita.database.maintenance import unset_tag

    with opened_to_change(existing_archive(db)) as opened:
        change = unset_tag(opened, game_id, name)
    _print_change(change, as_json)


class KeepRule(StrEnum):
    oldest = "oldest"
    most_tags = "most-tags"


@app.command()
@filter_options()
def twins(
    db: ArchiveOption = None,
    fuzzy_depth: Annotated[
        int | None,
        typer.Option(
            "--fuzzy-depth",
            min=1,
            max=LARGEST,
            help="Twins are the games that reached the same position after this many plies.",
        ),
    ] = None,
    delete_them: Annotated[
        bool, typer.Option("--delete", help="Delete all but one game of each group.")
    ] = False,
    keep: Annotated[
        KeepRule | None,
        typer.Option(
            "--keep",
            help="With --delete, the game each group keeps: oldest (first stored, the "
            "default) or most-tags.",
        ),
    ] = None,
    yes: YesOption = False,
    as_json: JsonOption = False,
    selection: "GameFilter | None" = None,
) -> None:
    """Games that are the same game on the board: same game, set-up and mainline,
    whatever their tags, comments and layout (--fuzzy-depth: the same position at a ply).
    """
    if keep is not None and not delete_them:
        raise typer.BadParameter("--keep chooses what --delete keeps", param_hint="--keep")
    from partita.database.maintenance import delete_games
    from partita.database.twins import find_twins, twins_to_delete

    target = existing_archive(db)
    with opened_to_change(target) as opened:
        groups = find_twins(opened, fuzzy_depth=fuzzy_depth, selection=selection)
        deletion = None
        if delete_them and groups:
            doomed = twins_to_delete(groups, (keep or KeepRule.oldest).value)
            confirm_deletion(doomed, target, yes, what=f" (twins; {len(groups)} kept)")
            deletion = delete_games(opened, doomed)
    if as_json:
        data: dict[str, Any] = {"groups": [group.as_dict() for group in groups]}
        if delete_them:
            data["deleted"] = (
                deletion.as_dict()
                if deletion
                else {"games": [], "positions": 0, "problems": 0, "variation_positions": 0}
            )
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    _print_twins(groups, fuzzy_depth)
    if deletion is not None:
        typer.echo(
            f"{target}: deleted {count(len(deletion.games), 'twin')}, kept one game of each "
            f"group ({count(deletion.positions, 'position')} and "
            f"{count(deletion.problems, 'problem')} went with them)"
        )


def _print_twins(groups: list["TwinGroup"], fuzzy_depth: int | None) -> None:
    kind = "twins" if fuzzy_depth is None else f"games with the same position at ply {fuzzy_depth}"
    if not groups:
        typer.echo(f"no {kind}")
        return
    games = sum(len(group.games) for group in groups)
    typer.echo(f"{count(len(groups), 'group')} of {kind}, {count(games, 'game')}:")
    for group in groups:
        typer.echo("")
        for entry in group.games:
            mark = ""
            if group.kept is not None:
                mark = "  kept" if entry["id"] == group.kept else "  deleted"
            players = " - ".join(entry["players"])
            parts = [entry["game"] or "", entry["date"] or "", entry["event"] or "", players]
            typer.echo(
                printable(
                    f"  {entry['id']:>6}  "
                    + "  ".join(part for part in parts if part)
                    + f"  {entry['result'] or '?'}  {entry['plies']} plies, {entry['tags']} tags"
                    + mark
                )
            )


@app.command()
def merge(
    other: Annotated[
        Path,
        typer.Argument(
            help="The partita archive whose games to copy (read, never changed).",
            exists=True,
            dir_okay=False,
        ),
    ],
    db: ArchiveOption = None,
    as_json: JsonOption = False,
) -> None:
    """Copy the games of another archive into this one, with their positions and
    problems, skipping those already here; print the id mapping. One transaction.
    """
    from partita.database.merge import merge_archive
    from partita.database.schema import archive

    target = archive_path(db)
    with archive(target) as opened:
        merged = merge_archive(opened, other)
    if as_json:
        typer.echo(json.dumps(merged.as_dict(), indent=2))
        return
    for entry in merged.mapping:
        if "to" in entry:
            typer.echo(f"{entry['from']} -> {entry['to']}")
        else:
            typer.echo(f"{entry['from']} -> duplicate of {entry['duplicate_of']}")
    line = (
        f"{target}: {count(merged.copied, 'game')} copied from {other} "
        f"({count(merged.positions, 'position')}, {count(merged.problems, 'problem')}), "
        f"{count(merged.duplicates, 'duplicate')} skipped"
    )
    if merged.twins:
        line += f", {count(len(merged.twins), 'twin')} of stored games"
    typer.echo(printable(line))
