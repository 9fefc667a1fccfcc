"""The report's section on annotated games: each side's expected score by ply (one
curve a game) and every player's largest drops.

A game is *annotated* when its record carries the ``[%eval ...]`` comments of
``partita annotate`` (the expected scores after each move, the one on the record's
first comment for the position it starts from). A move's *drop* is its mover's
expected score before it less after it, as ``annotate`` judged it; the section reads
the comments back and replays the mainline only to know who moved, so it shows what
was annotated, whichever agent or solver valued it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from markupsafe import Markup

from partita.analysis import charts
from partita.analysis.annotate import parse_eval_comment
from partita.analysis.report.options import Section, Table
from partita.errors import PartitaError
from partita.game.notation import GameNotation
from partita.notation.model import Record

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "CURVES",
    "DROPS_PER_PLAYER",
    "Drop",
    "EvaluatedGame",
    "evaluated_game",
    "evaluation_section",
]

#: Curves drawn at most (the latest annotated games); the drops count every one.
CURVES = 12
#: The largest drops listed per player.
DROPS_PER_PLAYER = 3
#: Seat colours of the curves (Player1 to Player4).
SIDE_COLOURS = ("#1f4e9c", "#c62828", "#2e7d32", "#ef6c00")


@dataclass(frozen=True, slots=True)
class Drop:
    """A move that lowered its mover's expected score: the seat (from 0), the ply
    (from 1), the move as written, the values before and after it, its NAG."""

    seat: int
    ply: int
    move: str
    before: float
    after: float
    nag: str

    @property
    def drop(self) -> float:
        return self.before - self.after


@dataclass(frozen=True, slots=True)
class EvaluatedGame:
    """An annotated game's values: ``curve[i]`` every side's expected score after
    ply ``plies[i]`` (``plies[0]`` is 0, the starting position, where annotated),
    and the moves that lowered their mover's score."""

    sides: int
    plies: list[int]
    curve: list[tuple[float, ...]]
    drops: list[Drop]


def evaluated_game(record: Record, game: GameNotation) -> EvaluatedGame | None:
    """The ``[%eval]`` values of ``record``'s mainline, ply by ply (an omitted forced
    pass counts as a ply, as in ``annotate``); ``None`` if it holds none or its
    moves cannot be replayed."""
    from partita.notation.replay import PASS_TOKEN, replay

    replayed = replay(record)
    if replayed.initial_state is None:
        return None
    rules = game.rules
    state = replayed.initial_state
    plies: list[int] = []
    curve: list[tuple[float, ...]] = []
    drops: list[Drop] = []
    last = _eval_of(record.root.comments)
    if last is not None:
        plies.append(0)
        curve.append(last)
    ply = 0
    try:
        for node in record.root.mainline():
            forced = rules.forced_pass(state)
            if forced is not None and node.move != PASS_TOKEN:
                state = rules.apply(state, forced)
                ply += 1
            mover = rules.side_to_move(state)
            assert node.move is not None, "only the root holds no move"
            state = rules.apply(state, game.parse_move(state, node.move))
            ply += 1
            value = _eval_of(node.comments)
            if value is None:
                continue
            if last is not None and len(last) == len(value) and 0 <= mover < len(value):
                drop = Drop(mover, ply, node.move, last[mover], value[mover], node.suffix or "")
                if drop.drop > 0:
                    drops.append(drop)
            plies.append(ply)
            curve.append(value)
            last = value
    except PartitaError:
        return None
    if not curve:
        return None
    return EvaluatedGame(sides=len(curve[0]), plies=plies, curve=curve, drops=drops)


def _eval_of(comments: list[str]) -> tuple[float, ...] | None:
    for comment in comments:
        value = parse_eval_comment(comment)
        if value is not None:
            return value
    return None


def evaluation_section(db: Archive, notation: GameNotation, ids: list[int]) -> Section | None:
    """The section on the annotated games among ``ids`` (``None`` if there is none):
    a curve for each of the latest :data:`CURVES`, and each player's
    :data:`DROPS_PER_PLAYER` largest drops over all of them."""
    from partita.database.selection import annotated_games
    from partita.notation.reader import parse_record

    games: list[tuple[dict, EvaluatedGame]] = []
    for row in annotated_games(db, notation.name, ids):
        try:
            record = parse_record(row["pgr"])
        except PartitaError:
            continue
        evaluated = evaluated_game(record, notation)
        if evaluated is not None:
            games.append((row, evaluated))
    if not games:
        return None
    players: dict[str, list[tuple[dict, Drop]]] = {}
    for row, evaluated in games:
        for drop in evaluated.drops:
            name = row.get(f"player{drop.seat + 1}") or f"Player{drop.seat + 1}"
            players.setdefault(name, []).append((row, drop))
    rows = []
    for name in sorted(players, key=lambda name: (name.casefold(), name)):
        largest = sorted(players[name], key=lambda item: (-item[1].drop, item[0]["id"]))
        for row, drop in largest[:DROPS_PER_PLAYER]:
            rows.append(
                [
                    name,
                    row["id"],
                    drop.ply,
                    drop.move + drop.nag,
                    f"{drop.before:.2f}",
                    f"{drop.after:.2f}",
                    f"{drop.drop:.2f}",
                ]
            )
    drawn = games[:CURVES]
    curves: list[charts.Chart | Markup] = [
        charts.line_chart(
            evaluated.plies,
            [
                (
                    row.get(f"player{seat + 1}") or f"Player{seat + 1}",
                    [value[seat] for value in evaluated.curve],
                    SIDE_COLOURS[seat % len(SIDE_COLOURS)],
                )
                for seat in range(evaluated.sides)
            ],
            title=f"game {row['id']}: expected score by ply",
            xlabel="ply",
            ylabel="expected score",
            reference=1 / evaluated.sides,
            salt=f"eval-{notation.name}-{row['id']}",
        )
        for row, evaluated in drawn
    ]
    paragraphs = [
        f"{len(games)} annotated game{'s' if len(games) != 1 else ''} (records with the "
        "[%eval] comments of partita annotate): each side's expected score after every "
        "ply (1 a win, 0 a loss, 1/2 a shared draw)"
        + (f"; the latest {CURVES} are drawn" if len(games) > CURVES else "")
        + ".",
        f"Largest drops: each player's {DROPS_PER_PLAYER} moves that lowered their own "
        "expected score the most (before less after the move, with the NAG annotate "
        "gave it).",
    ]
    tables = []
    if rows:
        tables.append(Table(["player", "game", "ply", "move", "before", "after", "drop"], rows))
    else:
        paragraphs.append("No move lowered its mover's expected score.")
    return Section("Annotated games: evaluation", paragraphs, tables, curves)
