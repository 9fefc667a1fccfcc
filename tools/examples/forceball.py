"""Generate the shipped Forceball example records: one complete game per league.

Writes ``examples/forceball/<league>.pgr`` (the hand-made invalid records are not
touched). Seeded and deterministic: the same code gives the same files. Run from the
repository root::

    .venv/bin/python tools/examples/forceball.py [--out examples]

How a game is made: the seeded heuristic player of
:mod:`partita.games.forceball.player` plays each turn. For each league, the first
seed whose game shows every event that league adds is kept. Comments are written by
the script at the interesting moments (goals, face-offs, fouls, Stress, Lucky shot,
Goalie, stakes, period ends, two turns in a row), and every record is replayed in
strict mode before it is written.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from partita.games.forceball.narration import narrate
from partita.games.forceball.notation import FORCEBALL
from partita.games.forceball.player import heuristic_turn
from partita.games.forceball.rules import ForceballRules
from partita.games.forceball.values import (
    FaceOff,
    ForceballState,
    Shuffle,
    Turn,
)
from partita.notation.model import Node, Record
from partita.notation.reader import parse_record
from partita.notation.replay import replay
from partita.notation.writer import write_record

PLAYERS = [
    ("Maja Lindqvist", "Tomás Ó Briain"),
    ("Ayşe Demir", "Kofi Mensah"),
    ("Léa Moreau", "Jonas Østergaard"),
    ("Priya Raman", "Mateus Ferreira"),
]
#: What each league's example must show (events named as in ``_events``).
WANTED = {
    "little": {"goal", "pass reward", "dribble reward", "interception", "two in a row"},
    "junior": {"goal", "face-off again", "transform", "increase", "period end"},
    "senior": {"goal", "lucky shot", "goalie", "seen foul", "unseen foul", "stress"},
    "pro": {"goal", "stakes accepted", "stakes declined", "lucky shot", "seen foul"},
}


# -- comments ------------------------------------------------------------------------------


def _events(
    rules: ForceballRules,
    state: ForceballState,
    move: Shuffle | FaceOff | Turn,
    after: ForceballState,
    names: Sequence[str],
    seen: set[str],
) -> tuple[list[str], str]:
    """The events of one ply (for the WANTED check) and its comment ('' for none):
    the narration a game being played tells too (:mod:`.narration`)."""
    events, notes = narrate(rules, state, move, after, names, seen)
    return events, "; ".join(notes)


# -- games and records -------------------------------------------------------------------


def play_game(league: str, seed: int, names: Sequence[str]) -> tuple[Record, set[str]]:
    game = FORCEBALL.configure({"League": league})
    rules = game.rules
    rng = random.Random(seed)
    state = rules.initial()
    tags = {
        "Game": "forceball",
        "Event": f"Forceball {league} league example",
        "Site": "Partita game club",
        "Date": f"2025.05.{10 + list(WANTED).index(league):02d}",
        "Round": "1",
        "Player1": names[0],
        "Player2": names[1],
        "Deck": "example",
        "League": league,
    }
    record = Record(tags=tags)
    record.root.comments.append(
        f"A complete {league} league game with the example deck, played by a seeded "
        "heuristic player (tools/examples/forceball.py)"
    )
    node = record.root
    seen: set[str] = set()
    commented: set[str] = set()
    while rules.outcome(state) is None:
        move: Shuffle | FaceOff | Turn
        if state.phase == "shuffle":
            order = list(rules.ids)
            rng.shuffle(order)
            move = Shuffle(tuple(order))
        elif state.phase == "faceoff":
            move = _face_off(rules, state, rng)
        else:
            move = heuristic_turn(rules, state, rng)
        after = rules.apply(state, move)
        events, comment = _events(rules, state, move, after, names, seen)
        keep = bool(comment) and (
            not set(events) <= commented
            or "goal" in events
            or "period end" in events
            or isinstance(move, (Shuffle, FaceOff))
        )
        commented.update(events)
        node = node.add(Node(game.format_move(state, move), comments=[comment] if keep else []))
        state = after
    outcome = rules.outcome(state)
    assert outcome is not None
    node.comments.append(f"Final score {state.scores[0]}-{state.scores[1]}: {outcome.reason}")
    record.result = outcome.result_token()
    record.tags["Result"] = record.result
    return record, seen


def _face_off(rules: ForceballRules, state: ForceballState, rng: random.Random) -> FaceOff:
    """Show the strongest attack card half the time, the weakest card otherwise."""
    shown = []
    for seat in (0, 1):
        hand = state.hands[seat]

        def strength(card: int) -> tuple[bool, int, str]:
            info = rules.cards[card]
            return (info.attack_type is not None, info.force, rules.ids[card])

        shown.append(max(hand, key=strength) if rng.random() < 0.5 else min(hand, key=strength))
    return FaceOff(rules.ids[shown[0]], rules.ids[shown[1]])


def build_files() -> dict[str, Record]:
    files = {}
    for index, league in enumerate(WANTED):
        names = PLAYERS[index]
        for seed in range(1000 * (index + 1), 1000 * (index + 1) + 500):
            record, seen = play_game(league, seed, names)
            if WANTED[league] <= seen:
                break
        else:
            raise SystemExit(f"no seed shows every {league} league event")
        files[f"{league}.pgr"] = record
    return files


def build(out: Path) -> list[tuple[Path, int]]:
    folder = out / "forceball"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, record in build_files().items():
        text = write_record(record)
        replayed = replay(parse_record(text), strict=True)
        if replayed.problems:
            raise SystemExit(f"{name}: {[str(p) for p in replayed.problems]}")
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append((path, 1))
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
