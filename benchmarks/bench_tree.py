"""Benchmark: the opening tree of 100,000 Forza 4x4 games (target: under 10 s, 500 MB).

    .venv/bin/python benchmarks/bench_tree.py [--games 100000] [--depth 8] [--archive FILE]

Setup: a seeded player makes the games (weighted random moves, a fixed preference
order over the entry codes so that openings concentrate as in real archives; a
game stops at its end, or earlier by a resignation or as unfinished). They are
stored with the archive's own writer for rows (``ArchiveWriter``, fed replayed
records built straight from the engine, skipping the PGR text round trip: parsing
100,000 records is the import benchmark's business, not this one's). The archive
is kept (``--archive``) and reused when it already holds the games.

Measured: ``tree_from_archive`` (reading the games from SQLite, the trie, the
levels, the networkx graph) at the given depth for several ``--min-games``, with
and without ``--symmetry``; each in a fresh process, so the peak memory printed
(the process's maximum resident set, interpreter and imports included) is that of
one build alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from partita.database.schema import archive as opened_archive

TARGET_SECONDS = 10.0
TARGET_MB = 500.0


def make_archive(path: Path, games: int, seed: int = 2024) -> None:
    """Store ``games`` generated Forza 4x4 games in a new archive at ``path``."""
    from partita.database.archive_writer import ArchiveWriter
    from partita.database.schema import archive
    from partita.game.registry import get_game
    from partita.notation.model import Node, Record, SourceRef
    from partita.notation.replay import ReplayedRecord

    game = get_game("forza4x4")
    rules = game.rules
    chooser = random.Random(seed)
    order = list(rules.entries)
    chooser.shuffle(order)
    weight = {entry: 1.0 / (1 + rank) ** 1.3 for rank, entry in enumerate(order)}
    players = [f"Player {number:03d}" for number in range(300)]
    started = time.perf_counter()
    with archive(path) as db:
        writer = ArchiveWriter(db, batch_size=5000)
        for number in range(games):
            state = rules.initial()
            moves, keys = [], []
            stop = chooser.randint(12, 64)
            while len(moves) < stop and rules.outcome(state) is None:
                legal = list(rules.legal_moves(state))
                move = chooser.choices(legal, [weight[entry] for entry in legal])[0]
                state = rules.apply(state, move)
                moves.append(move.notation())
                keys.append(rules.key(state))
            outcome = rules.outcome(state)
            tags = {
                "Game": "forza4x4",
                "Event": f"Benchmark league {number % 50}",
                "Date": f"{2000 + number % 25}.{1 + number % 12:02d}.{1 + number % 28:02d}",
                "Player1": chooser.choice(players),
                "Player2": chooser.choice(players),
            }
            if outcome is not None:
                result = outcome.result_token()
            elif chooser.random() < 0.6:
                result = chooser.choice(["1-0", "0-1"])
                tags["Termination"] = "resignation"
            else:
                result = "*"
            tags["Result"] = result
            root = Node()
            node = root
            for token in moves:
                node = node.add_move(token)
            record = Record(tags=tags, root=root, result=result, source=SourceRef("bench", number))
            replayed = ReplayedRecord(
                record,
                game,
                moves=moves,
                keys=keys,
                initial_state=rules.initial(),
                final_state=state,
                outcome=outcome,
            )
            writer.add(replayed)
            if writer.pending >= writer.batch_size:
                writer.flush()
        writer.flush()
    print(
        f"archive: {games} games, {writer.summary.plies} plies stored in "
        f"{time.perf_counter() - started:.1f} s ({path})",
        flush=True,
    )


def count_games(path: Path) -> int:
    from partita.database.schema import archive

    with archive(path, create=False) as db:
        return db.execute("SELECT count(*) FROM games").fetchone()[0]


def build_once(path: str, depth: int, min_games: int | None, symmetry: bool) -> dict:
    """One measured build (run in its own process)."""
    from partita.analysis.tree import tree_from_archive

    started = time.perf_counter()
    with opened_archive(path, readonly=True) as opened:
        tree = tree_from_archive(
            opened, "forza4x4", depth=depth, min_games=min_games, symmetry=symmetry
        )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    top = [(stats.move, stats.games) for stats in tree.moves()[:3]]
    return {
        "seconds": seconds,
        "peak_mb": peak,
        "figures": tree.figures,
        "top": top,
        "min_games": tree.min_games,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument(
        "--min-games",
        nargs="*",
        default=["default", "1", "2", "10"],
        help="thresholds to measure ('default': the tree's own, 1 per 20,000 games)",
    )
    parser.add_argument("--archive", type=Path, default=None)
    parser.add_argument(
        "--build", nargs=4, metavar=("ARCHIVE", "DEPTH", "MIN", "SYM"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.build:
        archive_path, depth, min_games, symmetry = args.build
        threshold = None if min_games == "default" else int(min_games)
        print(json.dumps(build_once(archive_path, int(depth), threshold, symmetry == "1")))
        return

    path = args.archive or Path(tempfile.gettempdir()) / f"partita-bench-tree-{args.games}.db"
    if not path.exists() or count_games(path) != args.games:
        if path.exists():
            path.unlink()
        make_archive(path, args.games)
    else:
        print(f"archive: reusing {path} ({args.games} games)")
    print(
        f"tree of {args.games} Forza 4x4 games, depth {args.depth} "
        f"(targets: {TARGET_SECONDS:.0f} s, {TARGET_MB:.0f} MB peak)"
    )
    print(
        f"{'symmetry':>8} {'min':>4} {'seconds':>8} {'peak MB':>8} {'trie nodes':>10} "
        f"{'canon. keys':>11} {'positions':>9} {'moves':>7}  within targets"
    )
    failures = 0
    for symmetry in (False, True):
        for min_games in args.min_games:
            output = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--build",
                    str(path),
                    str(args.depth),
                    str(min_games),
                    "1" if symmetry else "0",
                ],
                check=True,
                capture_output=True,
                text=True,
                env=dict(os.environ),
            ).stdout
            result = json.loads(output.strip().splitlines()[-1])
            figures = result["figures"]
            shown = f"{result['min_games']}{'*' if min_games == 'default' else ''}"
            within = result["seconds"] < TARGET_SECONDS and result["peak_mb"] < TARGET_MB
            failures += not within
            print(
                f"{'yes' if symmetry else 'no':>8} {shown:>4} {result['seconds']:>8.2f} "
                f"{result['peak_mb']:>8.0f} {figures['trie_nodes']:>10} "
                f"{figures['canonical_keys']:>11} {figures['positions']:>9} "
                f"{figures['moves']:>7}  {'yes' if within else 'NO'}",
                flush=True,
            )
    print("* the tree's default threshold (1, and 1 more per 20,000 games)")
    print("all builds within the targets" if not failures else f"{failures} builds missed a target")


if __name__ == "__main__":
    main()
