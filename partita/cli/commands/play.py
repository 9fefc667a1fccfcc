"""`partita play`: an interactive scoresheet, or a scripted one on standard input.

A thin layer of terminal input and output over :class:`partita.analysis.play.PlaySession`
(the turns, the agents, the commands) and its
:class:`~partita.notation.scoresheet.Scoresheet` (the record); the library is
imported in the command's body (see :mod:`partita.cli.commands`).
"""

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from partita.cli import display
from partita.cli.app import app
from partita.cli.game_options import TagOption, configured_game, pairs
from partita.cli.options import LARGEST, ArchiveOption, complete_game_id, complete_seat
from partita.cli.output import replaced_file, writing
from partita.errors import PartitaError

#: The name of standard input in error messages, as a file name.
STDIN = "<stdin>"


@app.command()
def play(
    game_name: Annotated[
        str,
        typer.Argument(
            metavar="GAME",
            help="The game to play (see `partita games`).",
            autocompletion=complete_game_id,
        ),
    ],
    sides: Annotated[
        int | None,
        typer.Option(
            "--sides", help="How many sides play (default: the game's fewest).", min=2, max=LARGEST
        ),
    ] = None,
    tags: TagOption = None,
    players: Annotated[
        list[str] | None,
        typer.Option("--player", help="N=NAME: the name of seat N (default: Human, or the agent)."),
    ] = None,
    seats: Annotated[
        list[str] | None,
        typer.Option(
            "--seat",
            help="N=AGENT: an agent plays seat N (random, greedy, mcts:2000).",
            autocompletion=complete_seat,
        ),
    ] = None,
    position: Annotated[
        str | None,
        typer.Option("--position", help="Start from this position (the game's position notation)."),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option(
            "-o", "--output", help="Write the record to this file (-: stdout, the default)."
        ),
    ] = None,
    db: ArchiveOption = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            max=2**63 - 1,
            help="Seed of the agents and of chance (same seed, same game).",
        ),
    ] = None,
    keep_going: Annotated[
        bool,
        typer.Option(
            "--keep-going",
            help="Reading standard input: report a refused line and go on (exit 1 at the end).",
        ),
    ] = False,
    open_table: Annotated[
        bool,
        typer.Option(
            "--open-table",
            help="A game with hidden information (a card game): show every card and let "
            "people type the shuffles and face-offs, as the scoresheet of a real table "
            "(default: each person sees only their own hand).",
        ),
    ] = False,
) -> None:
    """Play a game at the scoresheet and save its record.

    On a terminal: the position is drawn after every move, moves are typed in the
    game's notation (Tab completes the legal ones), and `help` lists the commands
    (undo, comment, resign, draw, a result, save). Agents play the seats --seat
    gives them. Otherwise moves and commands are read from standard input, one a
    line, and the first line refused ends it (exit 1, nothing saved). In a game with
    hidden information a person sees only their own hand and what the rules show
    everybody, and chance is drawn for the table (--open-table shows everything).
    """
    from partita.analysis.agents import parse_agent_spec

    tag_values = pairs(tags, "--tag")
    game, configuration = configured_game(game_name, tag_values, sides, game_option="GAME")
    rules = game.rules
    count = configuration.sides
    start = None
    if position is not None:
        try:
            start = game.parse_position(position, count)
        except PartitaError as error:
            raise typer.BadParameter(str(error), param_hint="--position") from None
        count = rules.sides(start)
    agents = _seats(pairs(seats, "--seat"), count, "--seat")
    for spec in agents.values():
        try:
            parse_agent_spec(spec)
        except PartitaError as error:
            raise typer.BadParameter(str(error), param_hint="--seat") from None
    names = _seats(pairs(players, "--player"), count, "--player")
    seat_names = [names.get(seat) or agents.get(seat) or _human_name() for seat in range(count)]
    target = _checked_output(output)

    from partita.analysis.play import PlaySession
    from partita.notation.scoresheet import Scoresheet

    try:
        sheet = Scoresheet(game, seat_names, tags=_record_tags(tag_values, rules), start=start)
        session = PlaySession(sheet, agents, seed, open_table=open_table)
    except PartitaError as error:
        raise typer.BadParameter(str(error), param_hint="--tag") from None
    refused = 0
    with session:  # the agents' search processes (workers=) stop with the game
        if sys.stdin.isatty():
            _play_at_the_terminal(session)
        else:
            refused = _play_from_input(session, keep_going)
    _save(sheet.text(), target, db)
    if target is not None and sys.stdin.isatty():  # at the terminal: say where it went
        _say(f"saved to {target} ({display.count(len(sheet.plies), 'ply', 'plies')})")
    if refused:
        raise typer.Exit(1)


def _human_name() -> str:
    from partita.analysis.play import HUMAN

    return HUMAN


def _seats(values: dict[str, str], sides: int, option: str) -> dict[int, str]:
    """``N=VALUE`` pairs keyed by seat (from 0); a usage error for a seat that is not
    a number from 1 to ``sides``."""
    found = {}
    for name, value in values.items():
        if not (name.isdigit() and 1 <= int(name) <= sides):
            raise typer.BadParameter(
                f"'{name}' is no seat: seats are numbered 1 to {sides}", param_hint=option
            )
        if not value:
            raise typer.BadParameter(f"seat {name} is given no value", param_hint=option)
        found[int(name) - 1] = value
    return found


def _record_tags(tags: dict[str, str], rules: Any) -> dict[str, str]:
    """The tags the record gets from --tag, refused where the sheet writes its own."""
    from partita.notation.scoresheet import SET_BY_THE_SHEET

    for name in tags:
        if name in SET_BY_THE_SHEET or name.startswith("Player"):
            raise typer.BadParameter(
                f"the record's {name} tag is written by partita play itself", param_hint="--tag"
            )
    return tags


def _checked_output(output: str | None) -> Path | None:
    """Where the record goes (``None``: stdout), checked before the game starts."""
    if output is None or output == "-":
        return None
    path = Path(output)
    if path.is_dir():
        raise typer.BadParameter(f"{output} is a folder", param_hint="--output")
    if not path.resolve().parent.is_dir():
        raise typer.BadParameter(f"no folder {path.parent} to write into", param_hint="--output")
    return path


# -- on a terminal ---------------------------------------------------------------------------------


def _say(text: str = "") -> None:
    """The session's words: on stdout, or on stderr when stdout is not the terminal
    (``partita play GAME > game.pgr`` leaves only the record in the file)."""
    typer.echo(text, err=not sys.stdout.isatty())


def _wrapped(text: str) -> str:
    """``text`` with its lines wider than the terminal wrapped between tokens (the
    legal moves of `moves`), so that the terminal never splits a move in two."""
    import shutil

    width = shutil.get_terminal_size().columns
    lines = []
    for line in text.splitlines():
        if len(line) > width:
            lines.extend(display.wrap_units(line.split(), width))
        else:
            lines.append(line)
    return "\n".join(lines)


def _ask(prompt: str) -> str:
    """A line typed at the prompt (readline edits it)."""
    if sys.stdout.isatty():
        return input(prompt)
    sys.stderr.write(prompt)
    sys.stderr.flush()
    return input()


def _play_at_the_terminal(session: Any) -> None:
    from partita.notation.replay import MoveRefused

    sheet = session.sheet
    _set_up_completion(session)
    seats = ", ".join(f"Player{seat + 1} {name}" for seat, name in enumerate(sheet.players))
    _say(f"{session.rules.title}: {seats}.")
    _say("Type a move (Tab completes it), help for the commands; save or Ctrl-D saves.")
    _draw_board(session)
    announced_end = False
    # The board is drawn once before each prompt, after every move since the last
    # one (a human's and the agents' replies), not after each of them.
    board_due = False
    while True:
        turn = session.turn()
        if turn.kind == "auto":
            if turn.seat is not None:
                _say(f"{session.player(turn.seat)} is thinking...")
            ply = session.step()
            if ply is None:  # the agent's move asks a person at the table
                _say(_wrapped(session.question()))
            else:
                _announce(session, ply, diagram=False)
            board_due = True
            continue
        if board_due:
            _draw_board(session)
            board_due = False
        if turn.kind == "over" and not announced_end:
            _say(f"game over: {_ending(sheet)}. comment TEXT, undo, or save (Ctrl-D).")
            announced_end = True
        try:
            line = _ask(_prompt(session, turn))
        except EOFError:
            _say()
            return
        except KeyboardInterrupt:
            _say()
            raise typer.Exit(130) from None
        try:
            reply = session.handle(line)
        except MoveRefused as error:
            problem = error.problem
            typer.echo(
                f"error: {problem.message} (ply {problem.ply}, move {problem.move_number})",
                err=True,
            )
            continue
        except PartitaError as error:
            typer.echo(f"error: {error}", err=True)
            continue
        for warning in reply.warnings:
            typer.echo(f"note: {warning.message}", err=True)
        if reply.text:
            _say(_wrapped(reply.text))
        for ply in reply.plies:
            _announce(session, ply, diagram=False)
        if reply.changed:
            board_due = True
            announced_end = announced_end and sheet.over
        if reply.finished:
            return


def _prompt(session: Any, turn: Any) -> str:
    sheet = session.sheet
    if turn.kind == "over":
        return "game over> "
    if turn.kind == "chance":
        return f"{sheet.move_number()} chance (a move, or Enter: random)> "
    if turn.kind == "answer":
        choices = " or ".join(session.playable_tokens())
        return f"{sheet.move_number()} your choice ({choices}), {session.player(turn.seat)}> "
    return f"{sheet.move_number()} {session.player(turn.seat)}> "


def _announce(session: Any, ply: Any, diagram: bool = True) -> None:
    number, who = session.ply_heading(ply)
    _say(f"{number} {session.move_text(ply)}  ({who})")
    for event in session.events(ply):
        _say(f"  {event}")
    if diagram:
        _say(session.diagram(ply.after, last=ply.before))


def _draw_board(session: Any) -> None:
    """The position with the last move marked on it, and under it that move named."""
    plies = session.sheet.plies
    _say(session.diagram(last=plies[-1].before if plies else None))
    if plies:
        number, who = session.ply_heading(plies[-1])
        _say(f"last move: {number} {session.move_text(plies[-1])} ({who})")


def _ending(sheet: Any) -> str:
    outcome = sheet.outcome
    if outcome is not None:
        return f"{outcome.result_token()}, {outcome.reason}"
    return f"{sheet.claim.result}, {sheet.claim.termination}"


def _set_up_completion(session: Any) -> None:
    """Tab completes the legal moves and the commands (readline, where Python has it)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - Python built without readline
        return
    matches: list[str] = []

    def complete(text: str, index: int) -> str | None:
        if index == 0:
            matches[:] = session.completions(text)
        return matches[index] if index < len(matches) else None

    readline.set_completer_delims(" \t\n")
    readline.set_completer(complete)
    if "libedit" in (readline.__doc__ or ""):
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")


# -- from standard input ---------------------------------------------------------------------------


def _play_from_input(session: Any, keep_going: bool) -> int:
    """One move or command a line; the agents' and chance's turns played between
    lines (a comment line goes on the move before it, so it is read first). The
    first refused line ends it (exit 1, nothing saved), unless ``keep_going``: then
    every refused line is reported; how many is returned."""
    from dataclasses import replace

    from partita.notation.replay import MoveRefused

    refused = 0
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        if line.split(None, 1)[0].lower() != "comment":
            # A comment right after a move goes on that move; anything else waits
            # for the agents' and chance's replies.
            _play_automatic(session)
        try:
            reply = session.handle(line)
        except MoveRefused as error:
            message = str(replace(error.problem, file=STDIN, line=number, column=1))
        except PartitaError as error:
            message = f"{STDIN}:{number}:1: error: {error}"
        else:
            for warning in reply.warnings:
                typer.echo(str(replace(warning, file=STDIN, line=number, column=1)), err=True)
            if reply.answer:
                typer.echo(reply.text, err=True)
            if reply.finished:
                return refused
            continue
        typer.echo(message, err=True)
        if not refused and _chance_was_drawn(session):
            typer.echo(
                "note: at a table with hidden information chance is drawn for the table; "
                "--open-table lets the shuffles and face-offs of a game be typed",
                err=True,
            )
        if not keep_going:
            raise typer.Exit(1)
        refused += 1
    _play_automatic(session)
    return refused


def _chance_was_drawn(session: Any) -> bool:
    """Whether the session drew a chance move that people did not type (a hidden table)."""
    if session.open_table:
        return False
    rules = session.rules
    return any(
        who == "auto" and rules.side_to_move(ply.before) < 0
        for ply, who in zip(session.sheet.plies, session.played_by, strict=True)
    )


def _play_automatic(session: Any) -> None:
    while session.turn().kind == "auto":
        session.step()


# -- saving --------------------------------------------------------------------------------------


def _save(text: str, target: Path | None, db: Path | None) -> None:
    """The record into the file, onto stdout, and/or into the archive. If the archive
    cannot take it, the record is printed so that the game is not lost."""
    if target is not None:
        with writing(target), replaced_file(target) as stream:
            stream.write(text)
    elif db is None:
        typer.echo(text, nl=False)
    if db is not None:
        from partita.bulk import import_records
        from partita.database import archive
        from partita.notation.reader import parse_record
        from partita.notation.replay import replay

        try:
            replayed = replay(parse_record(text), strict=True)
            with archive(db) as opened:
                summary = import_records(opened, [replayed], strict=True)
        except PartitaError:
            if target is None:
                typer.echo(text, nl=False)
            raise
        stored = "stored" if summary.imported else "already there"
        typer.echo(f"{db}: the game is {stored}", err=True)
