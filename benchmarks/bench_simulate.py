"""Self-play throughput on one process, two local workers and a two-worker Dask
LocalCluster (as ratios, in one run), the exact book's build time per depth on
Connect Four, and memory; an A/B of this checkout's agents against another
revision's on the same games; the cost of a run per agent mix.

Run from the repository root (the Dask part needs ``pip install -e '.[cluster]'``)::

    .venv/bin/python benchmarks/bench_simulate.py [--games N] [--agents SPEC] [--depths 0,1,2]
        [--game G] [--sides N] [--rotate]
    .venv/bin/python benchmarks/bench_simulate.py --baseline REV [--rounds 3] --game G ...
    .venv/bin/python benchmarks/bench_simulate.py --mixes "mcts:200+greedy+random,greedy" ...

Self-play: ``--games`` games (default 200) of ``--game`` (default Connect Four;
``--sides``, ``--rotate`` as for ``partita simulate``) between ``--agents``
(default ``mcts:40``; one spec, or one per seat joined by ``+``), seed 1, written
as shards to a temporary folder; for each way of running them, games per second
overall (worker start-up included: what a user waits for) and steady (from the
first finished game to the end), the start-up time, and the ratios to one process
(the records are checked byte-identical).

``--baseline REV`` (A/B, instead of the above): the same games played in one
process by this checkout's ``partita`` and by REV's (``git archive REV partita``
into a temporary folder, put first on ``PYTHONPATH``), in fresh processes taking
turns, ``--rounds`` times each; per side the median CPU seconds per game (the
processor time of the playing process, which other work on the machine changes
less than wall time) and wall games per second, the ratio, and whether the two
wrote byte-identical records (the same moves for the same seeds).

``--mixes A,B,...`` (instead of the above; each mix one spec or specs joined by
``+``): for each agent mix, ``--games`` games with ``--workers`` local workers
(default 2) as ``partita simulate`` plays them: games per second, CPU seconds per
game (this process and its workers), mean plies, and what 1,000 games would take
at that rate.

Book: from a Connect Four position 12 plies in (columns 3 and 4 full: the empty
board's searches take hours with this solver), books of depth 0, 1, 2... are built
into fresh book files with one process: time, positions per ply, nodes searched.

Memory: the peak resident set of this process and of its largest child (``ru_maxrss``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from partita.analysis.book import build_exact_book
from partita.analysis.selfplay import simulate
from partita.game.configuration import Configuration, configure_game
from partita.game.registry import get_game

ROOT = Path(__file__).resolve().parent.parent

ROOT_MOVES = "t4 t4 t4 t4 t4 t4 t3 t3 t3 t3 t3 t3"


def shards(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.glob("shard-*.pgr"))}


def configured(name: str, sides: int | None) -> tuple[object, Configuration]:
    return configure_game(name, {}, sides)


def self_play(
    games: int, agents: str, folder: Path, name: str = "connect4", sides: int | None = None,
    rotate: bool = False,
) -> list[tuple[str, float, float, dict]]:  # fmt: skip
    game, configuration = configured(name, sides)
    runs = [("1 process", {"workers": 1}), ("2 local workers", {"workers": 2})]
    if importlib.util.find_spec("distributed") is not None:
        runs.append(("Dask LocalCluster, 2 workers", {"scheduler": "local:2"}))
    else:
        print("(Dask's distributed is not installed: the cluster run is left out)")
    results = []
    print(f"  {'':<30} {'games/s':>8} {'steady':>8} {'start-up':>9} {'total':>7}")
    for label, where in runs:
        output = folder / label.split()[0].replace(",", "")
        seen: list[tuple[float, int]] = []
        started = time.perf_counter()
        summary = simulate(
            game,
            games,
            agents.split("+"),
            configuration=configuration,
            rotate=rotate,
            seed=1,
            output=output,
            shard_size=10,
            progress=lambda done, seen=seen: seen.append((time.perf_counter(), done.done)),
            **where,
        )
        seconds = time.perf_counter() - started
        # steady: from the first finished task to the end (start-up left out)
        first = next((point for point in seen if point[1] > 0), seen[-1])
        span = seen[-1][0] - first[0]
        steady = (summary.played - first[1]) / span if span > 0 else 0.0
        results.append((label, summary.played / seconds, steady, shards(output)))
        print(
            f"  {label:<30} {summary.played / seconds:8.2f} {steady:8.2f} "
            f"{first[0] - started:8.1f}s {seconds:6.1f}s"
        )
    _, rate_one, steady_one, reference = results[0]
    for label, rate, steady, written in results:
        same = "identical" if written == reference else "DIFFERENT"
        print(
            f"  {label:<30} x{rate / rate_one:5.2f} overall, x{steady / (steady_one or 1):5.2f} "
            f"steady, of one process; records {same}"
        )
    return results


def books(depths: list[int], folder: Path) -> None:
    game = get_game("connect4")
    root = game.play_line(ROOT_MOVES)
    print(f"  root: {game.format_position(root)} (12 plies in)")
    print(f"  {'depth':>5} {'positions':>10} {'per ply':<24} {'nodes':>12} {'seconds':>8}")
    for depth in depths:
        path = folder / f"book-{depth}.book"
        summary = build_exact_book(path, game, depth, root=root, budget=None, workers=1)
        per_ply = ",".join(map(str, summary.per_ply))
        print(
            f"  {depth:>5} {summary.positions:>10} {per_ply:<24} {summary.nodes:>12} "
            f"{summary.seconds:>8.2f}"
        )


# One side of the A/B, in a fresh process: the games in one process, timed.
AB_RUN = """
import hashlib, json, sys, tempfile, time
from pathlib import Path
import partita
from partita.analysis.selfplay import simulate
from partita.game.registry import get_game
from partita.game.configuration import Configuration
name, sides, agents, games, rotate = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
game = get_game(name)
configuration = Configuration.of(game, sides or game.rules.min_sides, {})
simulate(game, 1, ["random"], configuration=configuration, output=tempfile.mkdtemp())  # warm up
with tempfile.TemporaryDirectory() as folder:
    cpu, wall = time.process_time(), time.perf_counter()
    summary = simulate(game, games, agents.split("+"), configuration=configuration, seed=1,
                       rotate=rotate, output=folder, shard_size=games or 1, workers=1)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(Path(folder).glob("shard-*")))).hexdigest()
print(json.dumps({"cpu": cpu, "wall": wall, "plies": summary.plies, "records": digest,
                  "package": str(Path(partita.__file__).parent)}))
"""


def ab(revision: str, games: int, agents: str, name: str, sides: int | None, rotate: bool,
       rounds: int) -> None:  # fmt: skip
    with tempfile.TemporaryDirectory() as temporary:
        archive = subprocess.run(
            ["git", "archive", revision, "partita"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", temporary], input=archive, check=True)
        sides_text = str(sides or 0)
        runs: dict[str, list[dict]] = {revision: [], "this checkout": []}
        for _ in range(rounds):
            for label, path in ((revision, temporary), ("this checkout", str(ROOT))):
                environment = dict(os.environ, PYTHONPATH=path)
                done = subprocess.run(
                    [sys.executable, "-c", AB_RUN, name, sides_text, agents, str(games),
                     "1" if rotate else "0"],
                    capture_output=True, text=True, env=environment, check=True, cwd=path,
                )  # fmt: skip
                result = json.loads(done.stdout.splitlines()[-1])
                assert Path(result["package"]).resolve() == (Path(path) / "partita").resolve()
                runs[label].append(result)
        print(f"  {'':<16} {'CPU s/game':>10} {'games/s':>8}  (median of {rounds} runs)")
        medians = {}
        for label, results in runs.items():
            cpu = statistics.median(result["cpu"] for result in results) / games
            rate = statistics.median(games / result["wall"] for result in results)
            medians[label] = (cpu, rate)
            print(f"  {label:<16} {cpu:10.3f} {rate:8.3f}")
        before, after = medians[revision], medians["this checkout"]
        digests = {result["records"] for results in runs.values() for result in results}
        same = "byte-identical" if len(digests) == 1 else "DIFFERENT"
        print(
            f"  this checkout / {revision}: x{before[0] / after[0]:.2f} in CPU per game, "
            f"x{after[1] / before[1]:.2f} in games/s; records {same}"
        )


def mixes(specs: list[str], games: int, name: str, sides: int | None, rotate: bool,
          workers: int, folder: Path) -> None:  # fmt: skip
    game, configuration = configured(name, sides)
    print(f"  {'agents':<28} {'games/s':>8} {'CPU s/game':>10} {'plies':>6} {'1,000 games':>12}")
    for number, agents in enumerate(specs):
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        own = resource.getrusage(resource.RUSAGE_SELF)
        started = time.perf_counter()
        summary = simulate(
            game, games, agents.split("+"), configuration=configuration, seed=1, rotate=rotate,
            db=folder / f"mix-{number}.db", workers=workers,
        )  # fmt: skip
        wall = time.perf_counter() - started
        after_children = resource.getrusage(resource.RUSAGE_CHILDREN)
        after_own = resource.getrusage(resource.RUSAGE_SELF)
        cpu = sum(
            getattr(after, field) - getattr(before, field)
            for after, before in ((after_children, children), (after_own, own))
            for field in ("ru_utime", "ru_stime")
        )
        rate = games / wall
        print(
            f"  {agents:<28} {rate:8.3f} {cpu / games:10.3f} {summary.plies / games:6.0f} "
            f"{_duration(1000 / rate):>12}"
        )


def _duration(seconds: float) -> str:
    minutes = seconds / 60
    return f"{minutes / 60:.1f} h" if minutes >= 90 else f"{minutes:.0f} min"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--agents", default="mcts:40", help="one spec, or specs joined by +")
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--sides", type=int, default=None)
    parser.add_argument("--rotate", action="store_true")
    parser.add_argument("--depths", default="0,1,2,3")
    parser.add_argument("--baseline", help="A/B: a git revision to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mixes", help="agent mixes, comma-separated (specs joined by +)")
    parser.add_argument("--workers", type=int, default=2)
    arguments = parser.parse_args()
    where = f"{arguments.game}" + (f", {arguments.sides} sides" if arguments.sides else "")
    if arguments.baseline:
        print(f"A/B: {arguments.games} games of {where}, {arguments.agents}, one process")
        ab(
            arguments.baseline,
            arguments.games,
            arguments.agents,
            arguments.game,
            arguments.sides,
            arguments.rotate,
            arguments.rounds,
        )
        return
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        if arguments.mixes:
            print(f"cost per agent mix: {arguments.games} games of {where}, "
                  f"{arguments.workers} workers{', rotating seats' if arguments.rotate else ''}")  # fmt: skip
            mixes(
                arguments.mixes.split(","),
                arguments.games,
                arguments.game,
                arguments.sides,
                arguments.rotate,
                arguments.workers,
                folder,
            )
            return
        print(f"self-play: {arguments.games} games of {where}, {arguments.agents}")
        self_play(
            arguments.games, arguments.agents, folder, arguments.game, arguments.sides,
            arguments.rotate,
        )  # fmt: skip
        print("exact book of connect4, one process")
        books([int(depth) for depth in arguments.depths.split(",")], folder)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"memory: peak {own:.0f} MB in this process, {children:.0f} MB in the largest worker")


if __name__ == "__main__":
    main()
