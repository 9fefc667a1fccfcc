"""The exact solver on Pascal Pons' Connect Four test sets, against bitbully.

Run from the repository root::

    .venv/bin/python benchmarks/bench_solver.py [--sets end-easy,middle-easy] [--limit N]
        [--backend auto|python|native] [--table-size N | --memory 256M] [--no-bitbully]
        [--bitbully-book] [--profile]

For each set (files of ``../shared/data/connect4-pons``), every position (or the
first ``--limit``) is solved by partita's solver and by bitbully (a C++ solver from
PyPI, the ``bench`` extra; AGPL, so never imported by the package), one position
after the other, alternating the two so that both see the same machine load. Each
solver starts every position with an empty transposition table (cleared outside
the timing) and no opening book: what is timed is the search of that position.

Printed per set: positions solved with the published score, mean and largest time
per position, mean nodes per position, nodes per second, the same for bitbully, and
the ratio of the mean times (partita / bitbully). ``--bitbully-book`` gives
bitbully its 12-ply opening database (``bitbully-databases``), as partita's
``connect4`` engine uses it; partita's own search always runs without a book. ``--profile`` prints a cProfile of partita's
solver over the first set instead.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

from partita.game.registry import get_game
from partita.games.gravity.solver import Solver


def _data_folder() -> Path:
    """The test sets: ``shared/data/connect4-pons`` beside the checkout (or beside a
    folder above it, for a worktree one level deeper)."""
    for parent in Path(__file__).resolve().parents[1:]:
        folder = parent / "shared" / "data" / "connect4-pons"
        if folder.is_dir():
            return folder
    return Path(__file__).resolve().parents[2] / "shared" / "data" / "connect4-pons"


DATA = _data_folder()
SETS = (
    "end-easy",
    "middle-easy",
    "middle-medium",
    "begin-easy",
    "begin-medium",
    "begin-hard",
    "begin-hard-small",
)


def load(name: str, limit: int | None) -> list[tuple[str, int]]:
    pairs = []
    for line in (DATA / name).read_text().splitlines():
        columns, score = line.split()
        pairs.append((columns, int(score)))
    return pairs[:limit] if limit else pairs


def states(columns_list: list[str]) -> list:
    game = get_game("connect4")
    rules = game.rules
    result = []
    for columns in columns_list:
        state = rules.initial()
        for move in game.moves_from_columns(columns):
            state = rules.apply(state, move)
        result.append(state)
    return result


def bitbully_solver(book: bool = False):
    """bitbully's agent (without opening book, or with its 12-ply database with
    distances when ``book``), or ``None`` if it is not installed."""
    try:
        from bitbully import BitBully, Board
    except ImportError:
        return None
    return BitBully(opening_book="default" if book else None), Board


def run_set(name: str, limit: int | None, solver: Solver, bitbully) -> dict:
    positions = load(name, limit)
    boards = states([columns for columns, _ in positions])
    ours = {"time": 0.0, "nodes": 0, "correct": 0, "max": 0.0}
    theirs = {"time": 0.0, "nodes": 0, "correct": 0, "max": 0.0}
    for (columns, published), state in zip(positions, boards, strict=True):
        solver.clear()
        nodes = solver.nodes
        started = time.perf_counter()
        score = solver.score(state)
        spent = time.perf_counter() - started
        ours["time"] += spent
        ours["max"] = max(ours["max"], spent)
        ours["nodes"] += solver.nodes - nodes
        ours["correct"] += score == published
        if bitbully is not None:
            agent, board_class = bitbully
            board = board_class("".join(str(int(column) - 1) for column in columns))
            agent.reset_transposition_table()
            agent.reset_node_counter()
            started = time.perf_counter()
            their_score = agent.mtdf(board)
            spent = time.perf_counter() - started
            theirs["time"] += spent
            theirs["max"] = max(theirs["max"], spent)
            theirs["nodes"] += agent.get_node_counter()
            theirs["correct"] += their_score == published
    return {"set": name, "positions": len(positions), "ours": ours, "theirs": theirs}


def report(row: dict, with_bitbully: bool) -> str:
    count = row["positions"]
    ours, theirs = row["ours"], row["theirs"]
    mean = ours["time"] / count
    text = (
        f"{row['set']:<16} {ours['correct']:>5}/{count:<5} {mean * 1e3:>10.3f} ms"
        f" {ours['max'] * 1e3:>10.1f} ms"
        f" {ours['nodes'] / count:>10.0f} {ours['nodes'] / max(ours['time'], 1e-9):>12,.0f}"
    )
    if with_bitbully:
        their_mean = theirs["time"] / count
        text += (
            f" | {theirs['correct']:>5}/{count:<5} {their_mean * 1e3:>10.3f} ms"
            f" {theirs['max'] * 1e3:>10.1f} ms"
            f" {theirs['nodes'] / count:>10.0f}"
            f" {theirs['nodes'] / max(theirs['time'], 1e-9):>12,.0f}"
            f" | {mean / max(their_mean, 1e-12):>7.2f}x"
        )
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="end-easy,middle-easy", help="comma-separated sets")
    parser.add_argument("--limit", type=int, default=None, help="positions per set (default all)")
    parser.add_argument("--backend", default="auto", choices=("auto", "python", "native"))
    parser.add_argument("--table-size", type=int, default=1 << 20)
    parser.add_argument("--no-bitbully", action="store_true", help="time partita only")
    parser.add_argument(
        "--bitbully-book",
        action="store_true",
        help="bitbully with its 12-ply database (as partita's connect4 engine uses it)",
    )
    parser.add_argument(
        "--memory", default=None, help="partita's table in bytes (256M, 1G) instead of --table-size"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the first set")
    options = parser.parse_args(argv)
    names = [name.strip() for name in options.sets.split(",") if name.strip()]
    for name in names:
        if name not in SETS:
            parser.error(f"unknown set {name!r} (sets: {', '.join(SETS)})")
    memory = None
    if options.memory:
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        text = options.memory.upper()
        memory = int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)
    solver = Solver(
        get_game("connect4"),
        table_size=options.table_size,
        backend=options.backend,
        engine="search",
        memory=memory,
    )
    if options.profile:
        profile = cProfile.Profile()
        profile.enable()
        run_set(names[0], options.limit, solver, None)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)
        return 0
    bitbully = None if options.no_bitbully else bitbully_solver(options.bitbully_book)
    if bitbully is None and not options.no_bitbully:
        print("bitbully is not installed (pip install -e '.[bench]'): timing partita only")
    book = "12-ply database" if options.bitbully_book else "no book"
    print(
        f"partita solver, {solver.backend} core, table {solver.table_size:,} positions; "
        f"bitbully {f'mtdf, {book}' if bitbully else '-'}"
    )
    header = (
        f"{'set':<16} {'correct':>11} {'mean time':>13} {'max time':>13}"
        f" {'nodes/pos':>10} {'nodes/s':>12}"
    )
    if bitbully is not None:
        header += (
            f" | {'bitbully':>11} {'mean time':>13} {'max time':>13} {'nodes/pos':>10}"
            f" {'nodes/s':>12} | {'ratio':>8}"
        )
    print(header)
    failed = False
    for name in names:
        row = run_set(name, options.limit, solver, bitbully)
        print(report(row, bitbully is not None), flush=True)
        failed |= row["ours"]["correct"] != row["positions"]
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
