"""Generate the shipped Circular Reasoning example records.

Writes ``examples/circular-reasoning/*.pgr`` (the hand-made invalid records in
``examples/invalid/circular-reasoning/`` are not touched). Seeded and deterministic:
the same code gives the same files. Run from the repository root::

    .venv/bin/python tools/examples/circular_reasoning.py [--out examples]

How a game is made: a seeded heuristic player picks among the engine's legal moves
(win if it can, then prefer the Goal Area, then moves that bring a token nearer the
centre, then random, with an occasional random move so games vary) and the engine's
trusted path plays them. Comments are written where something worth a word happens:
a token's first pass through a gateway, a pass outward, a token reaching the Goal
Area (with or without steps to spare), a forced pass, the gateways' motion after the
first round, the win. Every record is replayed in strict mode before it is kept.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from partita.games.circular_reasoning.notation import CIRCULAR_REASONING
from partita.games.circular_reasoning.rules import (
    GATEWAY_WORDS,
    GOAL,
    RESERVE,
    SHAPES,
    VALUES,
    CircularReasoningRules,
    Move,
    Pass,
    cell_name,
)
from partita.notation.model import Node, Record
from partita.notation.reader import parse_record
from partita.notation.replay import replay
from partita.notation.writer import write_record

GAME = "circular-reasoning"
NAMES = [
    "Ada Lindqvist",
    "Bruno Ferraz",
    "Chiara Bellini",
    "Dmitri Orlov",
    "Eszter Nagy",
    "Farid Haddad",
    "Grete Holm",
    "Hiroshi Tanaka",
    "Inès Duval",
    "Jonas Weber",
]


def depth(cell: int) -> int:
    """How far in a cell is: reserve -1, outer 0, middle 1, inner 2, Goal Area 3."""
    if cell == RESERVE:
        return -1
    if cell == GOAL:
        return 3
    return cell >> 4


@dataclass
class Game:
    """One generated record: its tags, the plies (token, comment) and the result."""

    tags: dict[str, str]
    plies: list[tuple[str, str]] = field(default_factory=list)
    result: str = "*"
    intro: str = ""


def choose(rules: CircularReasoningRules, state: Any, rng: random.Random, care: float) -> Any:
    """The heuristic player: ``care`` is the chance of a considered move."""
    moves = list(rules.legal_moves(state))
    if len(moves) == 1:
        return moves[0]
    seat = rules.side_to_move(state)
    for move in moves:
        if rules.outcome(rules.apply(state, move)) is not None:
            return move
    if rng.random() > care:
        return rng.choice(moves)

    def score(move: Move | Pass) -> float:
        assert isinstance(move, Move), "a pass is never one of several moves"
        index = seat * 3 + SHAPES.index(move.shape)
        gain = depth(move.destination) - depth(state.tokens[index])
        value = 30.0 * gain + (50.0 if move.destination == GOAL else 0.0)
        if move.destination < GOAL:
            track, segment = move.destination >> 4, move.destination & 15
            if state.gates[track] == segment:
                value += 8.0  # standing on a gateway: a way in next turn
        return value + rng.uniform(0, 14)

    return max(moves, key=score)


def describe(rules: CircularReasoningRules, state: Any, move: Any, seen: set[object]) -> str:
    """A comment for a ply worth one, else ``""``; ``seen`` keeps what was said."""
    if isinstance(move, Pass):
        seat = rules.side_to_move(state)
        return (
            f"{rules.colors[seat].capitalize()} has no move: its tokens are in the Goal Area "
            f"or wait behind the occupied entrance {cell_name(rules.layout.entrance)}, so it "
            "must pass"
        )
    seat = rules.side_to_move(state)
    index = seat * 3 + SHAPES.index(move.shape)
    token = rules.token_words(index)
    origin, destination = state.tokens[index], move.destination
    after = rules.apply(state, move)
    if rules.outcome(after) is not None:
        color = rules.colors[seat]
        return f"The {token} enters the Goal Area: all three {color} tokens are in, {color} wins"
    if destination == GOAL:
        in_goal = sum(1 for cell in state.tokens[seat * 3 : seat * 3 + 3] if cell == GOAL) + 1
        if rules.exact_goal:
            words = "with the exact count, as advanced play demands"
        else:
            exact = CircularReasoningRules("advanced", rules.layout, rules.colors)
            exact_ok = GOAL in exact.reach(state, index)
            words = (
                "with the exact count" if exact_ok else "with steps to spare, dropped in basic play"
            )
        return f"The {token} reaches the Goal Area {words} ({in_goal} of 3)"
    if origin != RESERVE and depth(destination) < depth(origin) and "outward" not in seen:
        seen.add("outward")
        gate = GATEWAY_WORDS[depth(destination)]
        return f"Outward: the {token} goes back out through the {gate} gateway"
    if origin != RESERVE and depth(destination) > depth(origin):
        gates = GATEWAY_WORDS[depth(origin) : depth(destination)]
        key = ("in", gates)
        if key not in seen:
            seen.add(key)
            steps = VALUES[index % 3]
            if len(gates) == 2:
                return (
                    f"Through the {gates[0]} and the {gates[1]} gateway in one move: the "
                    f"{token} spends one of its {steps} steps on each and lands on "
                    f"{cell_name(destination)}"
                )
            return (
                f"Through the {gates[0]} gateway: the {token} spends one of its "
                f"{steps} steps on it and lands on {cell_name(destination)}"
            )
    return ""


def gate_comment(rules: CircularReasoningRules, before: Any, after: Any) -> str:
    if after.round == before.round or rules.outcome(after) is not None:
        return ""
    moved = []
    for track, (old, new) in enumerate(zip(before.gates, after.gates, strict=True)):
        if old != new:
            moved.append(
                f"the {GATEWAY_WORDS[track]} gateway {cell_name(track * 16 + old)} -> "
                f"{cell_name(track * 16 + new)}"
            )
    sides = rules.sides(after)
    opener = rules.side_words(rules.first_seat(after.round, sides))
    motion = "; ".join(moved) if moved else "no gateway moves"
    return f"End of round {before.round}: {motion}; round {after.round} opens with {opener}"


def play_game(
    tags: dict[str, str],
    seed: int,
    *,
    care: float = 0.9,
    position: str | None = None,
    max_plies: int = 400,
) -> Game:
    game = CIRCULAR_REASONING.configure(tags)
    rules = game.rules
    sides = sum(1 for name in tags if name.startswith("Player"))
    state = game.parse_position(position, sides) if position else game.initial(sides)
    rng = random.Random(seed)
    record = Game(dict(tags))
    seen: set[object] = set()
    while rules.outcome(state) is None and len(record.plies) < max_plies:
        move = choose(rules, state, rng, care)
        comment = describe(rules, state, move, seen)
        after = rules.apply(state, move)
        if state.round == 1 or position:
            round_words = gate_comment(rules, state, after)
            if round_words and "round" not in seen:
                seen.add("round")
                comment = f"{comment}. {round_words}" if comment else round_words
        record.plies.append((game.format_move(state, move), comment))
        state = after
    outcome = rules.outcome(state)
    record.result = outcome.result_token() if outcome else "*"
    return record


def to_record(game: Game) -> Record:
    tags = dict(game.tags)
    tags["Result"] = game.result
    record = Record(tags=tags, result=game.result)
    if game.intro:
        record.root.comments.append(game.intro)
    node = record.root
    for token, comment in game.plies:
        node = node.add(Node(token, comments=[comment] if comment else []))
    return record


def base_tags(event: str, round_number: int, players: list[str], **extra: str) -> dict[str, str]:
    tags = {
        "Game": GAME,
        "Event": event,
        "Site": "Partita game club",
        "Date": f"2025.03.{round_number + 10:02d}",
        "Round": str(round_number),
    }
    for seat, name in enumerate(players, start=1):
        tags[f"Player{seat}"] = name
    tags.update(extra)
    return tags


def build_files() -> dict[str, list[Record]]:
    files: dict[str, list[Record]] = {}

    spec = Game(
        base_tags("Spec example", 1, NAMES[:2]),
        [
            ("@T>O3", "Red's triangle is placed on the entrance O1 (its first step), then O2, O3"),
            (
                "@T>O4",
                "Blue's triangle: placed on O1, then O2; O3 is jumped for free; it lands "
                "on O4. Two tokens on the outer track: the large gateway moves O9 -> O11, "
                "and round 2 opens with blue (Player2)",
            ),
        ],
        "*",
        "The movetext example of the spec, left unfinished",
    )
    files["spec-example.pgr"] = [to_record(spec)]

    plans = [
        ("two-sides-basic.pgr", "Club ladder", 2, {}, [11, 12, 13]),
        ("two-sides-advanced.pgr", "Club ladder, advanced", 2, {"Variant": "advanced"}, [21, 22]),
        ("three-sides-basic.pgr", "Three-way evening", 3, {}, [31, 32]),
        ("three-sides-advanced.pgr", "Three-way evening", 3, {"Variant": "advanced"}, [41, 42]),
        ("four-sides-basic.pgr", "Family table", 4, {}, [51, 52]),
        ("four-sides-advanced.pgr", "Family table", 4, {"Variant": "advanced"}, [61, 62]),
    ]
    for name, event, sides, extra, seeds in plans:
        records = []
        for round_number, seed in enumerate(seeds, start=1):
            rng = random.Random(seed)
            players = rng.sample(NAMES, sides)
            tags = base_tags(event, round_number, players, **extra)
            game = play_game(tags, seed)
            variant = "advanced play: exact count into the Goal Area" if extra else "basic play"
            game.intro = f"{sides} sides, {variant}"
            records.append(to_record(game))
        files[name] = records

    layout = "entrance=O5 large=O1 medium=M9 small=I3"
    tags = base_tags("Home-made board", 1, NAMES[6:9], Layout=layout, Colors="white green red")
    game = play_game(tags, 71)
    game.intro = (
        f"A board drawn by hand: {layout}; the sides play white, green and red in seat order"
    )
    files["own-layout.pgr"] = [to_record(game)]

    start = "1:CG,TG,S@ 2:CO1,T@,S@ / O12 M1 I5 / 3 P1"
    tags = base_tags("Endgame study", 1, NAMES[8:10], SetUp="1", Position=start)
    game = play_game(tags, 81, position=start)
    game.intro = (
        "Red has two tokens home, but blue's circle sits on the entrance: red must pass first"
    )
    files["forced-pass.pgr"] = [to_record(game)]
    return files


def build(out: Path) -> list[tuple[Path, int]]:
    folder = out / GAME
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, records in build_files().items():
        texts = []
        for record in records:
            text = write_record(record)
            replayed = replay(parse_record(text), strict=True)
            if replayed.problems:
                raise SystemExit(f"{name}: {[str(p) for p in replayed.problems]}")
            texts.append(text)
        path = folder / name
        path.write_text("\n".join(texts), encoding="utf-8")
        written.append((path, len(records)))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("examples"))
    args = parser.parse_args(argv)
    for path, count in build(args.out):
        print(f"{path}: {count} record(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
