"""How far ``annotate``'s values and marks can be trusted, against an exact oracle.

Run from the repository root::

    nice -n 10 .venv/bin/python benchmarks/bench_analysis.py [--quick] [--games N]
        [--agent mcts:1000] [--other-agent mcts:300] [--other-plies 16] [--other-records 8]
        [--skip connect4,other] [--seed S] [--engine search|auto] [--show]

**Connect Four.** Seeded games are played by agents of mixed strength (a perfect
player, ``greedy`` and ``mcts:100``, each playing a random move now and then), so
that real mistakes occur. Every ply is checked against an exact oracle in the same
run: bitbully (a C++ 7x6 solver from PyPI, the ``bench`` extra; AGPL, so only this
benchmark imports it) scores every move of every position. Each game is then
annotated twice: as ``partita annotate`` does by default (the exact solver where it
answers within its budget, ``--agent`` elsewhere), and by the search alone
(``exact=False``), which is what judges the positions the solver does not reach.
``annotate``'s solver is partita's own (``PARTITA_GRAVITY_ENGINE=search``) unless
``--engine auto`` lets bitbully answer the 7x6 board (then every ply is exact and
nothing is left to the search); the first line names the engine used. ``--show``
lists every false mark, true mark and missed change with the judgement behind it.
Per phase of the game (plies 1-10, 11-20, 21+):

* ``exact``: the share of plies whose position before was valued exactly (solver or
  outcome);
* ``changes``: the moves that changed the game's true value (a win thrown into a
  draw or a loss, a draw into a loss), and how many of them got ``??`` and ``?``;
* ``false``: marks on moves that did not change the true value, and their share of
  the searched plies (plies whose position before was valued by a search);
* ``error``: the mean absolute error of the searched values (the mover's expected
  score before the move, against the true 1, 1/2 or 0);
* ``swing``: on plies that kept the true value (a solved line), how many moved the
  mover's value by more than 0.1 between the positions before and after, and the
  largest such move;
* the CPU time per annotated ply, and the search-only annotation's time against a
  baseline in the same run: one search from scratch of every position with the
  same budget (what annotating costs without the tree kept from ply to ply).

**The other games.** The first ``--other-plies`` plies of ``--other-records`` shipped examples of
Forza 4x4, Universal Forces and Circular Reasoning are annotated by the search
alone (``--other-agent``). There is no exact oracle there: a mark is counted false
when a ten times larger search of the position before it (the played move searched
to an eighth of that budget) does not confirm it, i.e. finds the played move less
than ``MISTAKE`` below the best one.

Targets: at most 1 % false marks on searched plies; no swing over 0.1 on a solved
line. The benchmark uses only ``annotate_record``'s long-standing interface, so the
same script measures an older checkout (``PYTHONPATH=that/checkout``) for a
before/after comparison.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from partita.analysis.agents import agent_from_spec
from partita.analysis.annotate import MISTAKE, annotate_record
from partita.analysis.mcts import Mcts
from partita.game.registry import get_game
from partita.notation.reader import parse_record, read_records
from partita.notation.replay import replay
from partita.notation.scoresheet import Scoresheet

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PHASES = ((1, 10), (11, 20), (21, 10_000))
OTHER_GAMES = ("forza4x4", "universal-forces", "circular-reasoning")
SWING = 0.1


# -- the oracle ------------------------------------------------------------------------------


def oracle():
    try:
        from bitbully import BitBully, Board
    except ImportError:
        sys.exit("bench_analysis needs bitbully: pip install -e '.[bench]'")
    agent = BitBully()

    def scores(columns: list[int]) -> dict[int, int]:
        """Every playable column's exact score for the side to move (0-based)."""
        return agent.score_all_moves(Board("".join(str(column) for column in columns)))

    return scores


def share(score: int) -> float:
    return 1.0 if score > 0 else 0.0 if score < 0 else 0.5


def engine_name() -> str:
    """The engine annotate's Connect Four solver uses (``PARTITA_GRAVITY_ENGINE``)."""
    from partita.analysis.solving import solver_for

    solver = solver_for(get_game("connect4"))
    if getattr(solver, "engine", "search") == "bitbully":
        return "bitbully"
    return f"partita's own solver ({getattr(solver, 'backend', '?')} core) and search"


# -- seeded games of mixed strength ------------------------------------------------------------

PLAYERS = ("perfect", "greedy", "mcts:100")
NOISE = 0.12


def play_games(count: int, seed: int, scores) -> list[tuple[str, list[int]]]:
    """``count`` Connect Four games as PGR text, with their columns (0-based)."""
    game = get_game("connect4")
    rules = game.rules
    games = []
    for number in range(count):
        rng = random.Random(seed * 7919 + number)
        kinds = [rng.choice(PLAYERS), rng.choice(PLAYERS)]
        agents = [
            None if kind == "perfect" else agent_from_spec(kind, game, seed=rng.randrange(1 << 30))
            for kind in kinds
        ]
        sheet = Scoresheet(game, kinds, date="2026.01.01")
        columns: list[int] = []
        state = sheet.state
        while rules.outcome(state) is None:
            side = rules.side_to_move(state)
            moves = list(rules.legal_moves(state))
            if rng.random() < NOISE:
                move = rng.choice(moves)
            elif agents[side] is None:
                table = scores(columns)
                top = max(table.values())
                wanted = rng.choice([column for column, score in table.items() if score == top])
                move = next(m for m in moves if column_of(game, state, m) == wanted)
            else:
                move = agents[side].choose(state, rng)
            columns.append(column_of(game, state, move))
            sheet.play_move(move)
            state = sheet.state
        games.append((sheet.text(), columns))
    return games


def column_of(game, state, move) -> int:
    return int(game.format_move(state, move)[1:]) - 1


# -- measuring one annotation ------------------------------------------------------------------


@dataclass
class Phase:
    plies: int = 0
    exact: int = 0
    searched: int = 0
    changes: int = 0
    blunders_found: int = 0
    mistakes_found: int = 0
    false_marks: int = 0
    false_on_searched: int = 0
    errors: list[float] = field(default_factory=list)
    kept: int = 0
    swings: int = 0
    largest_swing: float = 0.0
    exact_kept: int = 0
    exact_swings: int = 0


def phase_of(ply: int) -> int:
    return next(index for index, (low, high) in enumerate(PHASES) if low <= ply <= high)


def measure_connect4(games, scores, agent: str, exact: bool, seed: int, show: bool = False):
    phases = [Phase() for _ in PHASES]
    seconds = 0.0
    playouts = 0
    plies_total = 0
    for number, (text, columns) in enumerate(games):
        record = parse_record(text)
        started = time.process_time()
        annotation = annotate_record(record, agent=agent, seed=seed + number, exact=exact)
        seconds += time.process_time() - started
        playouts += getattr(annotation, "playouts", 0)
        plies_total += len(annotation.plies)
        for ply in annotation.plies:
            before_table = scores(columns[: ply.ply - 1])
            true_before = share(max(before_table.values()))
            true_after = share(before_table[columns[ply.ply - 1]])
            phase = phases[phase_of(ply.ply)]
            phase.plies += 1
            mover = ply.mover
            searched = ply.source_before == "search"
            if searched:
                phase.searched += 1
                phase.errors.append(abs(ply.before[mover] - true_before))
            else:
                phase.exact += 1
            changed = true_after < true_before
            if show and (ply.nag or changed):
                what = ("true mark" if ply.nag else "missed change") if changed else "false mark"
                print(
                    f"  game {number} ply {ply.ply} {ply.move} {ply.nag or '-'}: {what}, true "
                    f"{true_before} -> {true_after}; {ply.source_before}/{ply.source_after} "
                    f"{ply.judgement.as_dict() if getattr(ply, 'judgement', None) else ''}"
                )
            if changed:
                phase.changes += 1
                phase.blunders_found += ply.nag == "??"
                phase.mistakes_found += ply.nag == "?"
            else:
                if ply.nag:
                    phase.false_marks += 1
                    phase.false_on_searched += searched
                phase.kept += 1
                swing = abs(ply.before[mover] - ply.after[mover])
                phase.swings += swing > SWING
                phase.largest_swing = max(phase.largest_swing, swing)
                if not searched and ply.source_after != "search":
                    phase.exact_kept += 1
                    phase.exact_swings += swing > SWING
    return phases, seconds, playouts, plies_total


def print_connect4(title: str, phases, seconds: float, playouts: int, plies: int) -> None:
    print(f"\n{title}")
    print(
        "| plies | n | exact | changes | ?? | ? | false marks | false/searched | "
        "mean error | swings > 0.1 | largest swing |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = list(zip(("1-10", "11-20", "21+"), phases, strict=True))
    total = Phase()
    for _, phase in rows:
        for name in ("plies", "exact", "searched", "changes", "blunders_found"):
            setattr(total, name, getattr(total, name) + getattr(phase, name))
        for name in ("mistakes_found", "false_marks", "false_on_searched", "kept", "swings"):
            setattr(total, name, getattr(total, name) + getattr(phase, name))
        total.errors += phase.errors
        total.largest_swing = max(total.largest_swing, phase.largest_swing)
    for label, phase in [*rows, ("all", total)]:
        if not phase.plies:
            continue
        error = f"{statistics.fmean(phase.errors):.3f}" if phase.errors else "-"
        rate = f"{phase.false_on_searched / phase.searched:.1%}" if phase.searched else "-"
        print(
            f"| {label} | {phase.plies} | {phase.exact / phase.plies:.0%} | {phase.changes} | "
            f"{phase.blunders_found} | {phase.mistakes_found} | {phase.false_marks} | {rate} | "
            f"{error} | {phase.swings} of {phase.kept} | {phase.largest_swing:.2f} |"
        )
    line = f"{1000 * seconds / max(plies, 1):.0f} ms (CPU) per annotated ply"
    if playouts:
        line += f", {playouts / max(plies, 1):.0f} playouts per ply"
    print(line)


def scratch_seconds(games, agent: str, seed: int) -> tuple[float, int]:
    """The baseline: CPU seconds of one search from scratch of every position before
    a ply (``agent``'s playouts each), and the plies."""
    game = get_game("connect4")
    rules = game.rules
    budget = int(agent.split(":")[1].split(",")[0])
    search = Mcts(rules)
    seconds = 0.0
    plies = 0
    for number, (text, _) in enumerate(games):
        replayed = replay(parse_record(text))
        rng = random.Random(seed + number)
        states = [replayed.initial_state, *replayed.states]
        started = time.process_time()
        for state in states:
            if rules.outcome(state) is None:
                search.search(state, rng, playouts=budget)
        seconds += time.process_time() - started
        plies += replayed.plies
    return seconds, plies


# -- the other games ---------------------------------------------------------------------------


def cut(record, plies: int):
    """``record`` with its mainline cut after ``plies`` moves."""
    nodes = list(record.root.mainline())
    if len(nodes) > plies:
        nodes[plies - 1].children = []
        record.result = "*"
        record.tags["Result"] = "*"
    return record


def confirmed(game, state, move, budget: int, seed: int) -> bool:
    """Whether a search of ``state`` with ``budget`` playouts finds ``move`` more than
    ``MISTAKE`` below its best move (``move`` searched to an eighth of the budget)."""
    rules = game.rules
    search = Mcts(rules)
    rng = random.Random(seed)
    mover = rules.side_to_move(state)
    try:
        from partita.analysis.mcts import SearchTree
    except ImportError:  # an older checkout: the played move gets its own search
        result = search.search(state, rng, playouts=budget)
        after = search.search(rules.apply(state, move), rng, playouts=budget // 8)
        return result.value[mover] - after.value[mover] > MISTAKE
    tree = SearchTree(search, state)
    tree.grow(rng, visits=budget)
    tree.force(move, budget // 8, rng)
    result = tree.result()
    played = result.statistics(move)
    if result.best is None or played is None or result.best == move:
        return False
    return result.moves[0].value[mover] - played.value[mover] > MISTAKE


def measure_others(
    agent: str, plies: int, most: int, seed: int, factor: int = 10
) -> tuple[int, int]:
    """The table of the other games; returns the false marks and searched plies."""
    budget = int(agent.split(":")[1].split(",")[0])
    print(
        f"\nOther games: the first {plies} plies of {most} shipped examples each, {agent}; a mark"
    )
    print(f"is confirmed by mcts:{budget * factor} of the position before it")
    print(
        "| game | records | searched plies | marks | confirmed | false marks | rate | ms/ply (CPU) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    all_false = all_searched = 0
    for name in OTHER_GAMES:
        records = []
        for path in sorted((EXAMPLES / name).glob("*.pgr")):
            records += list(read_records(path))
        # Spread over the files: every n-th record, at most ``most``.
        records = records[:: max(1, len(records) // most)][:most]
        searched = marks = confirmations = 0
        seconds = 0.0
        count = 0
        for number, record in enumerate(records):
            record = cut(record, plies)
            replayed = replay(record)
            if replayed.game is None or replayed.plies == 0:
                continue
            count += 1
            game = replayed.game
            started = time.process_time()
            annotation = annotate_record(record, agent=agent, seed=seed + number, exact=False)
            seconds += time.process_time() - started
            states = [replayed.initial_state, *replayed.states]
            for ply in annotation.plies:
                if ply.source_before != "search" or ply.mover is None:
                    continue
                searched += 1
                if not ply.nag:
                    continue
                marks += 1
                state = states[ply.ply - 1]
                move = game.parse_move(state, ply.move)
                confirmations += confirmed(game, state, move, budget * factor, seed + ply.ply)
        false = marks - confirmations
        all_false += false
        all_searched += searched
        rate = f"{false / searched:.1%}" if searched else "-"
        print(
            f"| {name} | {count} | {searched} | {marks} | {confirmations} | {false} | {rate} | "
            f"{1000 * seconds / max(searched, 1):.0f} |"
        )
    return all_false, all_searched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small run (about a minute)")
    parser.add_argument("--games", type=int, default=None, help="Connect Four games (6)")
    parser.add_argument("--agent", default=None, help="the annotating agent (mcts:1000)")
    parser.add_argument("--other-agent", default=None, help="for the other games (mcts:300)")
    parser.add_argument("--other-plies", type=int, default=None, help="plies a record (16)")
    parser.add_argument("--other-records", type=int, default=None, help="records a game (8)")
    parser.add_argument("--skip", default="", help="connect4, other (comma separated)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--engine",
        default="search",
        help="PARTITA_GRAVITY_ENGINE for annotate's solver: search (partita's own, the "
        "default: the path every board but the standard 7x6 one takes) or auto",
    )
    parser.add_argument(
        "--show", action="store_true", help="list each false mark and missed change"
    )
    args = parser.parse_args()
    os.environ["PARTITA_GRAVITY_ENGINE"] = args.engine
    games = args.games or (2 if args.quick else 6)
    agent = args.agent or ("mcts:300" if args.quick else "mcts:1000")
    other_agent = args.other_agent or ("mcts:150" if args.quick else "mcts:300")
    other_plies = args.other_plies or (8 if args.quick else 16)
    other_records = args.other_records or (3 if args.quick else 8)
    skip = {part.strip() for part in args.skip.split(",") if part.strip()}
    print(f"bench_analysis: seed {args.seed}, annotate's Connect Four engine: {engine_name()}")
    if "connect4" not in skip:
        scores = oracle()
        played = play_games(games, args.seed, scores)
        lengths = [len(columns) for _, columns in played]
        print(f"Connect Four: {games} games of {min(lengths)}-{max(lengths)} plies, {agent}")
        for title, exact in (("annotate (solver and search)", True), ("search only", False)):
            measured = measure_connect4(played, scores, agent, exact, args.seed, args.show)
            print_connect4(title, *measured)
            if exact:
                line = measured[0]
        base, plies = scratch_seconds(played, agent, args.seed)
        print(
            f"baseline, one {agent} search from scratch of every position: "
            f"{1000 * base / max(plies, 1):.0f} ms (CPU) per ply; search only / baseline: "
            f"{measured[1] / max(base, 1e-9):.2f}"
        )
    others = None
    if "other" not in skip:
        others = measure_others(other_agent, other_plies, other_records, args.seed)
    print("\nTargets")
    if "connect4" not in skip:
        kept = sum(phase.kept for phase in line)
        swings = sum(phase.swings for phase in line)
        exact_kept = sum(phase.exact_kept for phase in line)
        exact_swings = sum(phase.exact_swings for phase in line)
        print(
            f"- swings over {SWING} on a solved Connect Four line (annotate): {swings} of "
            f"{kept} plies; {exact_swings} of {exact_kept} where both values are exact "
            f"(target: none)"
        )
    if others is not None:
        false, searched = others
        rate = false / searched if searched else 0.0
        print(
            f"- false marks on the other games' searched plies: {false} of {searched} "
            f"({rate:.1%}; target: at most 1%)"
        )


if __name__ == "__main__":
    main()
