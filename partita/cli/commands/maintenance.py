"""Commands that keep the archive in order: delete, tag set, tag unset, twins, merge."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from partita.cli.app import app
from partita.cli.options import (
    ArchiveOption,
    DateFromFilter,
    DateToFilter,
    EventFilter,
    GameFilter,
    JsonOption,
    OpeningFilter,
    PlayerFilter,
    PositionFilter,
    ResultFilter,
    SidesFilter,
    TagFilter,
    archive_path,
    filters,
)
from partita.database.maintenance import (
    TagChange,
    delete_games,
    matching_games,
    set_tag,
    unset_tag,
)
from partita.database.merge import merge_archive
from partita.database.twins import TwinGroup, find_twins, twins_to_delete
from partita.errors import PartitaError

YesOption = Annotated[
    bool, typer.Option("--yes", "-y", help="Do it without asking for confirmation.")
]


def existing_archive(db: Path | None) -> Path:
    """The archive the options name, which must exist (changing commands never make one)."""
    target = archive_path(db)
    if not target.exists():
        raise PartitaError(f"no archive at {target} (import records first: partita import FILE...)")
    return target


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
def delete(
    ids: Annotated[
        list[int] | None,
        typer.Argument(help="Ids of the games to delete (with filters: those that match)."),
    ] = None,
    db: ArchiveOption = None,
    game: GameFilter = None,
    player: PlayerFilter = None,
    result: ResultFilter = None,
    event: EventFilter = None,
    date_from: DateFromFilter = None,
    date_to: DateToFilter = None,
    opening: OpeningFilter = None,
    position: PositionFilter = None,
    sides: SidesFilter = None,
    tag: TagFilter = None,
    yes: YesOption = False,
    as_json: JsonOption = False,
) -> None:
    """Delete games, with their positions and problems, in one transaction.

    Name the games by id, by the filters of `query`, or both (the ids that match).
    Says how many and asks first, unless --yes.
    """
    target = existing_archive(db)
    chosen = filters(game, player, result, event, date_from, date_to, opening, position, sides, tag)
    try:
        doomed = matching_games(target, ids or None, **chosen)
    except PartitaError as error:
        if not ids and not any(value is not None for value in chosen.values()):
            raise typer.BadParameter(str(error), param_hint="IDS") from None
        raise
    if not doomed:
        if as_json:
            typer.echo(json.dumps({"games": [], "positions": 0, "problems": 0}, indent=2))
        else:
            typer.echo("no game matches: nothing deleted")
        return
    confirm_deletion(doomed, target, yes)
    deletion = delete_games(target, doomed)
    if as_json:
        typer.echo(json.dumps(deletion.as_dict(), indent=2))
        return
    noun = "game" if len(deletion.games) == 1 else "games"
    typer.echo(
        f"{target}: deleted {len(deletion.games)} {noun} ({_listed(deletion.games)}) with "
        f"{deletion.positions} positions and {deletion.problems} problems"
    )


tag_app = typer.Typer(
    name="tag",
    help="Set or remove a tag of a stored game (its text, hash and rows stay true).",
    no_args_is_help=True,
)
app.add_typer(tag_app)


def _print_change(change: TagChange, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(change.as_dict(), ensure_ascii=False, indent=2))
        return

    def shown(value: str | None) -> str:
        return "(absent)" if value is None else f"'{value}'"

    if not change.changed:
        typer.echo(f"game {change.id}: {change.tag} is already {shown(change.after)}: unchanged")
        return
    typer.echo(
        f"game {change.id}: {change.tag} {shown(change.before)} -> {shown(change.after)} "
        f"({change.status})"
    )


GameIdArgument = Annotated[int, typer.Argument(help="The id of a game in the archive.", min=1)]
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
    _print_change(set_tag(existing_archive(db), game_id, name, value), as_json)


@tag_app.command("unset")
def tag_unset(
    game_id: GameIdArgument,
    name: TagNameArgument,
    db: ArchiveOption = None,
    as_json: JsonOption = False,
) -> None:
    """Remove a tag from a game (refused if that makes a valid game invalid)."""
    _print_change(unset_tag(existing_archive(db), game_id, name), as_json)


class KeepRule(StrEnum):
    oldest = "oldest"
    most_tags = "most-tags"


@app.command()
def twins(
    db: ArchiveOption = None,
    game: GameFilter = None,
    player: PlayerFilter = None,
    result: ResultFilter = None,
    event: EventFilter = None,
    date_from: DateFromFilter = None,
    date_to: DateToFilter = None,
    opening: OpeningFilter = None,
    position: PositionFilter = None,
    sides: SidesFilter = None,
    tag: TagFilter = None,
    fuzzy_depth: Annotated[
        int | None,
        typer.Option(
            "--fuzzy-depth",
            min=1,
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
) -> None:
    """Games that are the same game on the board: same game, set-up and mainline,
    whatever their tags, comments and layout (--fuzzy-depth: the same position at a ply).
    """
    if keep is not None and not delete_them:
        raise typer.BadParameter("--keep chooses what --delete keeps", param_hint="--keep")
    target = existing_archive(db)
    chosen = filters(game, player, result, event, date_from, date_to, opening, position, sides, tag)
    groups = find_twins(target, fuzzy_depth=fuzzy_depth, **chosen)
    deletion = None
    if delete_them and groups:
        doomed = twins_to_delete(groups, (keep or KeepRule.oldest).value)
        confirm_deletion(doomed, target, yes, what=f" (twins; {len(groups)} kept)")
        deletion = delete_games(target, doomed)
    if as_json:
        data: dict[str, Any] = {"groups": [group.as_dict() for group in groups]}
        if delete_them:
            data["deleted"] = (
                deletion.as_dict() if deletion else {"games": [], "positions": 0, "problems": 0}
            )
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    _print_twins(groups, fuzzy_depth)
    if deletion is not None:
        typer.echo(
            f"{target}: deleted {len(deletion.games)} twin{'' if len(deletion.games) == 1 else 's'}, kept one game of each group "
            f"({deletion.positions} positions and {deletion.problems} problems went with them)"
        )


def _print_twins(groups: list[TwinGroup], fuzzy_depth: int | None) -> None:
    kind = "twins" if fuzzy_depth is None else f"games with the same position at ply {fuzzy_depth}"
    if not groups:
        typer.echo(f"no {kind}")
        return
    count = sum(len(group.games) for group in groups)
    noun = "group" if len(groups) == 1 else "groups"
    typer.echo(f"{len(groups)} {noun} of {kind}, {count} games:")
    for group in groups:
        typer.echo("")
        for entry in group.games:
            mark = ""
            if group.kept is not None:
                mark = "  kept" if entry["id"] == group.kept else "  deleted"
            players = " - ".join(entry["players"])
            parts = [entry["game"] or "", entry["date"] or "", entry["event"] or "", players]
            typer.echo(
                f"  {entry['id']:>6}  "
                + "  ".join(part for part in parts if part)
                + f"  {entry['result'] or '?'}  {entry['plies']} plies, {entry['tags']} tags"
                + mark
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
    target = archive_path(db)
    merged = merge_archive(target, other)
    if as_json:
        typer.echo(json.dumps(merged.as_dict(), indent=2))
        return
    for entry in merged.mapping:
        if "to" in entry:
            typer.echo(f"{entry['from']} -> {entry['to']}")
        else:
            typer.echo(f"{entry['from']} -> duplicate of {entry['duplicate_of']}")
    noun = "game" if merged.copied == 1 else "games"
    line = (
        f"{target}: {merged.copied} {noun} copied from {other} ({merged.positions} positions, "
        f"{merged.problems} problems), {merged.duplicates} duplicates skipped"
    )
    if merged.twins:
        line += f", {len(merged.twins)} twins of stored games"
    typer.echo(line)
