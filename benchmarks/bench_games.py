"""Every registered game's rules engine and notation, against Forza 4x4 in the same run.

Run from the repository root::

    .venv/bin/python benchmarks/bench_games.py [--games N] [--seed S] [--only NAME,...]

For every game, in every variant it declares and for every number of sides, ``--games``
random games are played to their end (or 2,000 plies) with the trusted path
(``sample_move`` + ``apply``); then the same moves are timed through

* ``apply`` alone (the trusted fast path: search, graphs, the importer),
* ``illegal_reason`` + ``apply`` (the checked path),
* ``legal_moves`` (move generation),
* ``format_move`` + ``parse_move`` (notation round trip),
* ``replay`` of the games written as PGR (the validator's whole path),

and the peak memory of the replay is measured with ``tracemalloc`` on the longest
record. Printed: plies per second per stage and the ratio to Forza 4x4 (the baseline,
measured in the same run, so machine load affects both alike).
"""

from __future__ import annotations

import argparse
import random
import time
import tracemalloc

from partita.game.registry import all_games
from partita.notation.model import Node, Record
from partita.notation.reader import parse_record
from partita.notation.replay import replay
from partita.notation.writer import write_record

MAX_PLIES = 2000
BASELINE = "forza4x4"


def playouts(game, sides: int, count: int, rng: random.Random) -> list[tuple[list, list]]:
    rules = game.rules
    games = []
    for _ in range(count):
        state = rules.initial(sides)
        states, moves = [state], []
        while rules.outcome(state) is None and len(moves) < MAX_PLIES:
            move = rules.sample_move(state, rng)
            state = rules.apply(state, move)
            moves.append(move)
            states.append(state)
        games.append((states, moves))
    return games


def record_text(game, tags: dict, sides: int, states: list, moves: list) -> str:
    record = Record(tags={"Game": game.name, **tags})
    for seat in range(1, sides + 1):
        record.tags[f"Player{seat}"] = f"Player {seat}"
    outcome = game.rules.outcome(states[-1])
    record.result = record.tags["Result"] = outcome.result_token() if outcome else "*"
    node = record.root
    for state, move in zip(states, moves, strict=False):
        node = node.add(Node(game.format_move(state, move)))
    return write_record(record, game)


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def measure(game, tags: dict, sides: int, count: int, seed: int) -> dict:
    rules = game.rules
    rng = random.Random(seed)
    start = time.perf_counter()
    games = playouts(game, sides, count, rng)
    playout_time = time.perf_counter() - start
    plies = sum(len(moves) for _, moves in games)
    pairs = [
        (state, move)
        for states, moves in games
        for state, move in zip(states[:-1], moves, strict=True)
    ]
    texts = [record_text(game, tags, sides, states, moves) for states, moves in games]

    def apply_only():
        for state, move in pairs:
            rules.apply(state, move)

    def checked():
        for state, move in pairs:
            assert rules.illegal_reason(state, move) is None
            rules.apply(state, move)

    def generate():
        for state, _ in pairs:
            rules.legal_moves(state)

    def notation():
        for state, move in pairs:
            assert game.parse_move(state, game.format_move(state, move)) == move

    def replays():
        for text in texts:
            assert replay(parse_record(text)).valid

    figures = {"games": count, "plies": plies, "playout": plies / playout_time}
    for name, function in (
        ("apply", apply_only),
        ("checked", checked),
        ("legal_moves", generate),
        ("notation", notation),
        ("replay", replays),
    ):
        figures[name] = plies / timed(function)
    longest = max(texts, key=len)
    tracemalloc.start()
    replay(parse_record(longest))
    figures["replay_peak_kb"] = tracemalloc.get_traced_memory()[1] / 1024
    tracemalloc.stop()
    figures["mean_plies"] = plies / count
    return figures


STAGES = ("playout", "apply", "checked", "legal_moves", "notation", "replay")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="random games per configuration")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", help="comma-separated game tags (the baseline always runs)")
    args = parser.parse_args()
    wanted = set(args.only.split(",")) | {BASELINE} if args.only else None
    rows = []
    for game in all_games():
        if wanted and game.name not in wanted:
            continue
        for tags in game.variants():
            configured = game.configure(tags)
            for sides in range(game.rules.min_sides, game.rules.max_sides + 1):
                label = " ".join([game.name, *map(str, tags.values()), f"{sides}p"])
                rows.append((label, measure(configured, dict(tags), sides, args.games, args.seed)))
    baseline = next(figures for label, figures in rows if label.startswith(BASELINE))
    print(f"{args.games} random games per configuration; plies per second (ratio to {BASELINE})")
    width = max(len(label) for label, _ in rows)
    header = f"{'configuration':{width}} {'mean plies':>10} " + " ".join(f"{s:>17}" for s in STAGES)
    print(header + f" {'replay peak':>12}")
    for label, figures in rows:
        cells = " ".join(
            f"{figures[stage]:>9,.0f} ({figures[stage] / baseline[stage]:4.2f})" for stage in STAGES
        )
        print(
            f"{label:{width}} {figures['mean_plies']:>10.1f} {cells} "
            f"{figures['replay_peak_kb']:>9.0f} KB"
        )


if __name__ == "__main__":
    main()
