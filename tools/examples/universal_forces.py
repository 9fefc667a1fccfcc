"""Write examples/universal-forces/: complete Universal Forces games, with comments.

Deterministic (seeded). The games are played by a simple heuristic player that
brings its forces inward to the quadrant of their colour, takes when it can and
likes the rarer captures, so the records look like play rather than noise; short
studies from set-up positions show the endings that ordinary play seldom reaches
(a pin win, a board on which no side can move). Comments are added where
something worth noting happens: the first move of each kind, forced passes, the end.

Run ``python tools/examples/universal_forces.py`` from the repository
root; ``--check`` only reports whether the shipped files are up to date.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from partita.games.universal_forces.notation import UNIVERSAL_FORCES, UniversalForcesNotation
from partita.games.universal_forces.rules import (
    FORCE_NAMES,
    HOME,
    PASS,
    Entry,
    Move,
    Step,
    UniversalForcesRules,
    UniversalForcesState,
)
from partita.notation.model import Node, Record
from partita.notation.writer import write_record

#: Where the examples go by default: ``examples/universal-forces`` of the current
#: directory (a checkout).
FOLDER = Path("examples") / "universal-forces"

NAMES: tuple[str, ...] = (
    "Aiyana Redfeather",
    "Bartholomew Ng",
    "Chiara Dell'Acqua",
    "Dagny Østergaard",
    "Émile Laurent",
    "Farida Haddad",
    "Gustavo Peña",
    "Hana Kobayashi",
)

#: Bonus per kind of move (over the progress a step makes toward the centre).
BONUS = {
    "entry": 6,
    "move": 0,
    "stack": 2,
    "take": 40,
    "pin": 14,
    "double take": 60,
    "take and pin": 55,
    "sacrifice": 25,
    "conversion": 50,
    "third-side take": 60,
    "home": 200,
    "pass": 0,
}

WHAT = {
    "stack": "a stack: the mover now guards the force below it",
    "take": "a take: the stronger force eliminates the weaker one and takes its place",
    "pin": "a pin: equal forces; the pinned force cannot move until the pinner leaves",
    "double take": "a double take: stronger than both forces of the stack, it eliminates both",
    "take and pin": (
        "take and pin: stronger than the top of the stack and equal to the bottom, "
        "it eliminates the top and pins the bottom"
    ),
    "sacrifice": (
        "a sacrifice: stronger than the top of the stack but weaker than the bottom, "
        "the mover and the top are both eliminated"
    ),
    "conversion": (
        "a conversion: stronger than the pinner, the mover eliminates it and lands on its "
        "own pinned force, which makes a stack"
    ),
    "third-side take": (
        "a third side takes a pin between two others: stronger than the pinner, it "
        "eliminates both forces"
    ),
    "home": "home: the force leaves its own quadrant for the home card",
    "pass": "a forced pass: this side has no legal action",
}


def _ring(rules: UniversalForcesRules, cell: int) -> int:
    return rules.geometry.ring_of[cell]


def _angle(rules: UniversalForcesRules, cell: int) -> float:
    low, high = rules.geometry.spans[cell]
    return float(low + high) / 2


def potential(rules: UniversalForcesRules, cell: int, kind: int) -> float:
    """How far along a force of ``kind`` on ``cell`` is: rings inward, then
    closeness to the quadrant of its colour."""
    geometry = rules.geometry
    if geometry.quadrant_kind[cell] == kind:
        return 120.0
    ring = _ring(rules, cell)
    target = (kind + 0.5) / 4
    distance = abs(_angle(rules, cell) - target)
    distance = min(distance, 1 - distance)
    return ring * 10 - (distance * 40 if ring >= 3 else 0)


@dataclass
class Player:
    """A greedy player with a little seeded noise."""

    rng: random.Random
    noise: float = 6.0
    likes: dict[str, float] = field(default_factory=dict)

    def choose(self, game: UniversalForcesNotation, state: UniversalForcesState) -> Move:
        rules = game.rules
        moves = rules.legal_moves(state)
        if moves == [PASS]:
            return PASS
        side = state.to_move
        best, best_score = None, float("-inf")
        on_board = sum(1 for contents in state.cells for p in contents if p >> 2 == side)
        for move in moves:
            kind = rules.describe(state, move)
            score = BONUS[kind] + self.likes.get(kind, 0.0)
            if isinstance(move, Entry):
                force = "GYBR".index(move.force)
                if state.home[side][force]:
                    score -= 8
                score -= 3 * on_board
            elif isinstance(move, Step) and move.target != HOME:
                origin = rules.geometry.index[move.origin]
                target = rules.geometry.index[move.target]
                piece = state.cells[origin][-1]
                score += potential(rules, target, piece & 3) - potential(rules, origin, piece & 3)
                if state.home[side][piece & 3] and kind in ("move", "stack"):
                    score -= 5  # this kind is home already: less urgent
            elif isinstance(move, Step):
                piece = state.cells[rules.geometry.index[move.origin]][-1]
                if state.home[side][piece & 3]:
                    score -= 150
            score += self.rng.uniform(0, self.noise)
            if score > best_score:
                best, best_score = move, score
        assert best is not None, "a game in progress has a legal move"
        return best


@dataclass
class Game:
    """One example record in the making."""

    tags: dict[str, str]
    moves: list[str] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)
    start_comment: str = ""
    result: str = "*"


def play_game(
    game: UniversalForcesNotation,
    sides: int,
    seed: int,
    *,
    state: UniversalForcesState | None = None,
    max_plies: int = 2000,
    seen: set[str] | None = None,
) -> tuple[list[str], dict[int, str], UniversalForcesState]:
    """Heuristic play from ``state`` (the start by default): tokens, comments by
    ply index, the final state. ``seen`` holds the kinds of move already commented
    (shared between the games of one file)."""
    rules = game.rules
    rng = random.Random(seed)
    players = [Player(random.Random(rng.random())) for _ in range(sides)]
    if state is None:
        state = rules.initial(sides)
    seen = set() if seen is None else seen
    tokens: list[str] = []
    comments: dict[int, str] = {}
    while rules.outcome(state) is None and len(tokens) < max_plies:
        move = players[state.to_move].choose(game, state)
        kind = rules.describe(state, move)
        token = game.format_move(state, move)
        if kind in WHAT and (kind not in seen or kind == "pass"):
            seen.add(kind)
            comments[len(tokens)] = _comment(rules, state, move, kind)
        tokens.append(token)
        state = rules.apply(state, move)
    outcome = rules.outcome(state)
    if outcome is not None:
        previous = comments.get(len(tokens) - 1)
        ending = f"the end: {outcome.reason}"
        comments[len(tokens) - 1] = f"{previous}; {ending}" if previous else ending
    return tokens, comments, state


def _comment(rules: UniversalForcesRules, state: UniversalForcesState, move: Any, kind: str) -> str:
    if kind == "pass":
        return f"Player{state.to_move + 1} has no legal action: {WHAT['pass']}"
    origin = rules.geometry.index[move.origin]
    piece = state.cells[origin][-1]
    mover = FORCE_NAMES[piece & 3]
    if kind == "home":
        count = sum(1 for n in state.home[state.to_move] if n) + (
            0 if state.home[state.to_move][piece & 3] else 1
        )
        return f"the {mover} goes {WHAT['home']} ({count} of the four kinds home)"
    target = state.cells[rules.geometry.index[move.target]]
    below = ", ".join(f"Player{(p >> 2) + 1}'s {FORCE_NAMES[p & 3]}" for p in reversed(target))
    return f"the {mover} meets {below}: {WHAT[kind]}"


def record_text(record_game: Game, game: UniversalForcesNotation) -> str:
    record = Record(tags=dict(record_game.tags))
    record.tags["Result"] = record_game.result
    record.result = record_game.result
    node = record.root
    if record_game.start_comment:
        record.root.comments.append(record_game.start_comment)
    for index, token in enumerate(record_game.moves):
        move = token.rstrip("?!")
        node = node.add(Node(move, suffix=token[len(move) :]))
        if index in record_game.comments:
            node.comments.append(record_game.comments[index])
    return write_record(record, game)


def _tags(
    event: str, round_number: int, date: str, players: list[str], **extra: str
) -> dict[str, str]:
    tags = {"Game": "universal-forces", "Event": event, "Site": "Kingston, Ontario"}
    tags.update({"Date": date, "Round": str(round_number)})
    for seat, name in enumerate(players, start=1):
        tags[f"Player{seat}"] = name
    tags.update(extra)
    return tags


def _finish(record_game: Game, state: UniversalForcesState, rules: UniversalForcesRules) -> None:
    outcome = rules.outcome(state)
    record_game.result = outcome.result_token() if outcome else "*"


def build_games() -> dict[str, list[tuple[Game, UniversalForcesNotation]]]:
    """Every example file's games, by file name."""
    files: dict[str, list[tuple[Game, UniversalForcesNotation]]] = {}
    game = UNIVERSAL_FORCES

    # -- two sides race home: no round limit, the first with all four kinds wins
    races = []
    seen: set[str] = set()
    for number, (seed, players) in enumerate(((11, NAMES[0:2]), (21, NAMES[2:4])), start=1):
        tokens, comments, state = play_game(game, 2, seed, seen=seen)
        record_game = Game(
            _tags("Club night", number, "2025.03.14", list(players)), tokens, comments
        )
        _finish(record_game, state, game.rules)
        races.append((record_game, game))
    files["two-sides-race-home.pgr"] = races

    # -- three and four sides race home without a round limit
    many = []
    for number, (sides, seed, players) in enumerate(((3, 3, NAMES[1:4]), (4, 3, NAMES[4:8])), 1):
        tokens, comments, state = play_game(game, sides, seed, seen=set())
        record_game = Game(
            _tags("Open tournament", number, "2025.06.21", list(players)), tokens, comments
        )
        _finish(record_game, state, game.rules)
        many.append((record_game, game))
    files["many-sides-race-home.pgr"] = many

    # -- three and four sides with a round limit
    limited: list[tuple[Game, UniversalForcesNotation]] = []
    for sides, limit, seed, players, event in (
        (3, 30, 5, NAMES[0:3], "Three-way league"),
        (3, 30, 6, NAMES[3:6], "Three-way league"),
        (4, 30, 2, NAMES[4:8], "Four corners open"),
        (4, 20, 1, NAMES[0:4], "Four corners open"),
    ):
        configured = game.configure({"RoundLimit": str(limit)})
        tokens, comments, state = play_game(configured, sides, seed, seen=set())
        record_game = Game(
            _tags(event, len(limited) + 1, "2025.04.??", list(players), RoundLimit=str(limit)),
            tokens,
            comments,
        )
        _finish(record_game, state, configured.rules)
        limited.append((record_game, configured))
    files["round-limit.pgr"] = limited

    # -- endings by agreement: a draw agreed, and all sides resigning together
    short = []
    tokens, comments, state = play_game(game, 2, 41, max_plies=24, seen=set())
    agreed = Game(
        _tags("Club night", 3, "2025.03.14", [NAMES[1], NAMES[6]], Termination="agreement"),
        tokens,
        comments,
    )
    agreed.comments[len(tokens) - 1] = (
        "both players agree that no force of either will in all probability reach home: "
        "a draw by agreement (rule 4)"
    )
    agreed.result = "1/2-1/2"
    short.append((agreed, game))
    tokens, comments, state = play_game(game, 3, 42, max_plies=30, seen=set())
    resigned = Game(
        _tags("Three-way league", 5, "2025.04.??", list(NAMES[5:8]), Termination="agreement"),
        tokens,
        comments,
    )
    resigned.comments[len(tokens) - 1] = (
        "all three players resign together: a draw by mutual resignation (rule 5); the "
        "record format has no termination of its own for it, so it is recorded as agreement"
    )
    resigned.result = "1/2-1/2-1/2"
    short.append((resigned, game))
    files["agreed-draws.pgr"] = short

    files["studies.pgr"] = _studies(game)
    return files


def _studies(game: UniversalForcesNotation) -> list[tuple[Game, UniversalForcesNotation]]:
    """Endgames from set-up positions: the endings ordinary play seldom reaches."""
    return [
        _study(
            game,
            "M2:5=1B,M2:6=2B,M2:9=2R,M3:11=1R,O2:20=1G 1:GGYYYBBRR/-/- 2:-/-/GGGYYYBBRR 1 14",
            ["M2:5xM2:6", "M2:9-M2:10??", "M3:11xM2:10"],
            "Player2 has only a water and a fire left. Pinning both, so that Player2 "
            "has no action at all, wins (rule 3).",
            [NAMES[2], NAMES[3]],
            1,
        ),
        _study(
            game,
            "I3:3=1Y,I2:1=2G 1:-/GGB/GYYBBRRR 2:-/GY/GYYBBBRRR 1 30",
            ["I3:3-C2", "I2:1-I3:1", "C2-H", "I3:1-C1", "--", "C1-H"],
            "The last two forces on the board race home. Player1 will have three kinds "
            "at home, Player2 two; once neither side has anything left to move, the "
            "side with the most distinct kinds at home wins.",
            [NAMES[4], NAMES[5]],
            2,
        ),
        _study(
            game,
            "M1:5=1Y2Y,M1:7=1G,M2:1=1B,M2:2=2B 1:GGYYBBRRR/-/- 2:GGGYYBBRRR/-/- 1 6",
            ["M1:7-M1:6", "M2:2xM2:1", "M1:6xM1:5"],
            "Player2's wind pins Player1's wind on M1:5; Player1's mountain comes to free it.",
            [NAMES[6], NAMES[7]],
            3,
        ),
        _study(
            game,
            "M2:4=2Y3Y,M2:5=1G,M1:9=2B2Y,M1:10=3G,O3:12=1G,O3:13=2R2B,O2:30=2G "
            "1:GYYYBBBRRR/-/- 2:GGYBRR/-/- 3:GGYYBBBRRR/-/- 1 9",
            ["M2:5xM2:4", "O2:30-O2:29", "M1:10xM1:9", "O3:12xO3:13"],
            "Three sides: Player3 pins Player2 on M2:4, and Player2 has two stacks.",
            [NAMES[0], NAMES[3], NAMES[6]],
            4,
        ),
    ]


def _study(
    game: UniversalForcesNotation,
    position: str,
    tokens: list[str],
    intro: str,
    players: list[str],
    number: int,
) -> tuple[Game, UniversalForcesNotation]:
    """A scripted game from ``position``; a token may carry an annotation suffix."""
    rules = game.rules
    state = game.parse_position(position, len(players))
    position = game.format_position(state)
    comments: dict[int, str] = {}
    seen: set[str] = set()
    moves = []
    for index, written in enumerate(tokens):
        token = written.rstrip("?!")
        move = rules.forced_pass(state) if token == "--" else game.parse_move(state, token)
        kind = rules.describe(state, move)
        if kind in WHAT and kind not in seen:
            seen.add(kind)
            comments[index] = _comment(rules, state, move, kind)
        moves.append(game.format_move(state, move) + written[len(token) :])
        state = rules.apply(state, move)
    tags = _tags("Endgame studies", number, "2025.05.02", players)
    tags["SetUp"] = "1"
    tags["Position"] = position
    record_game = Game(tags, moves, comments, start_comment=intro)
    outcome = rules.outcome(state)
    if outcome is not None:
        last = len(moves) - 1
        ending = f"the end: {outcome.reason}"
        comments[last] = f"{comments[last]}; {ending}" if last in comments else ending
    _finish(record_game, state, rules)
    return record_game, game


def build(folder: Path = FOLDER) -> list[tuple[Path, str]]:
    """Write every file into ``folder``; the paths and texts written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, games in build_games().items():
        text = "\n".join(record_text(record_game, game) for record_game, game in games)
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append((path, text))
    return written


def main(argv: list[str] | None = None) -> int:
    """``--out DIR`` (default ``examples``) writes ``DIR/universal-forces/*.pgr``;
    ``--check`` says whether the shipped files are up to date instead."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = Path(args[args.index("--out") + 1]) if "--out" in args else Path("examples")
    folder = out / "universal-forces"
    if "--check" in args:
        stale = [
            path.name
            for name, games in build_games().items()
            if (path := folder / name).read_text(encoding="utf-8")
            != "\n".join(record_text(g, n) for g, n in games)
        ]
        print("stale: " + ", ".join(stale) if stale else "up to date")
        return 1 if stale else 0
    for path, _ in build(folder):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
