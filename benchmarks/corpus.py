"""Seeded corpus generators for the import benchmark and the archive tests.

* :func:`forza_records` makes Forza 4x4 records by random play with a little sense
  (take a winning move if there is one, else block the opponent's immediate win,
  else play at random) through the engine's trusted path, with mixed endings: most
  games are played out (wins, the odd draw), some end early by resignation,
  agreement or as unfinished ``*``. A few carry a comment, a NAG or a one-move
  variation, so the reader's and the replay's slower paths are exercised too.
* :func:`chess_pgn_games` makes random legal chess games with python-chess (a
  benchmark-only dependency), written as PGN, up to a total ply count.

Both are deterministic: the same seed gives the same text.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from partita.game.registry import get_game
from partita.games.gravity.rules import GravityState

NAMES = (
    "Anna Rossi",
    "Bruno Bianchi",
    "Carla Verdi",
    "Dario Neri",
    "Elena Conti",
    "Fabio Greco",
    "Giulia Ricci",
    "Hugo Marino",
    "Irene Gallo",
    "Luca Costa",
    "Marta Fontana",
    "Nico Moretti",
    "Olga Barbieri",
    "Paolo Lombardi",
    "Rita Mancini",
    "Sara Longo",
    "Tino Leone",
    "Ugo Martini",
    "Vera Serra",
    "Zeno Villa",
)


def _wrap(words: list[str], width: int = 80) -> str:
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return "\n".join(lines)


def play_forza_game(rng: random.Random) -> tuple[list[str], list[GravityState]]:
    """One game of random play with a little sense; the entry codes and the states
    before each move."""
    game = get_game("forza4x4")
    rules = game.rules
    state = rules.initial()
    tokens: list[str] = []
    states: list[GravityState] = []
    while rules.outcome(state) is None:
        legal = rules.legal_moves(state)
        choice = None
        for move in legal:  # win at once if possible
            if rules.apply(state, move).line:
                choice = move
                break
        if choice is None:  # block: the entry where the opponent would win now
            swapped = GravityState(state.x, state.o, state.ply + 1, 0)
            for move in legal:
                if rules.apply(swapped, move).line:
                    choice = move
                    break
        if choice is None:
            choice = rng.choice(legal)
        states.append(state)
        tokens.append(game.format_move(state, choice))
        state = rules.apply(state, choice)
    states.append(state)
    return tokens, states


def forza_records(count: int, seed: int = 2024) -> Iterator[str]:
    """``count`` Forza 4x4 records as PGR text (each ending in a newline)."""
    rng = random.Random(seed)
    game = get_game("forza4x4")
    rules = game.rules
    for number in range(count):
        tokens, states = play_forza_game(rng)
        final = states[-1]
        outcome = rules.outcome(final)
        assert outcome is not None
        ending = rng.random()
        if ending < 0.08 and len(tokens) > 12:  # resignation of the side to move
            cut = rng.randrange(10, len(tokens) - 1)
            tokens = tokens[:cut]
            result = "1-0" if cut % 2 else "0-1"
            termination = "resignation"
        elif ending < 0.12 and len(tokens) > 12:
            tokens = tokens[: rng.randrange(10, len(tokens) - 1)]
            result, termination = "1/2-1/2", "agreement"
        elif ending < 0.16 and len(tokens) > 12:
            tokens = tokens[: rng.randrange(10, len(tokens) - 1)]
            result, termination = "*", "unterminated"
        else:
            result, termination = outcome.result_token(), "normal"
        white, black = rng.sample(NAMES, 2)
        month, day = rng.randint(1, 12), rng.randint(1, 28)
        tags = [
            ("Game", "forza4x4"),
            ("Event", f"Benchmark Open {number // 500 + 1}"),
            ("Site", "Milano"),
            ("Date", f"2024.{month:02d}.{day:02d}" if rng.random() > 0.05 else "2024.??.??"),
            ("Round", str(number % 9 + 1)),
            ("Player1", white),
            ("Player2", black),
            ("Result", result),
            ("Termination", termination),
        ]
        decorate = rng.random()
        words: list[str] = []
        for ply, token in enumerate(tokens):
            number_text = f"{ply // 2 + 1}."
            if ply % 2 == 0:
                words.append(number_text)
            elif words and (words[-1].endswith("}") or words[-1].endswith(")")):
                words.append(f"{ply // 2 + 1}...")
            words.append(token)
            if ply == 6 and decorate < 0.10:
                words.extend(["{a", "quiet", "move}"])
            elif ply == 8 and decorate > 0.95:
                legal = [
                    game.format_move(states[ply], move) for move in rules.legal_moves(states[ply])
                ]
                others = [other for other in legal if other != token]
                if others:
                    dots = "." if ply % 2 == 0 else "..."
                    words.append(f"({ply // 2 + 1}{dots} {rng.choice(others)})")
            elif ply == 4 and 0.10 <= decorate < 0.13:
                words.append("$1")
        words.append(result)
        header = "\n".join(f'[{name} "{value}"]' for name, value in tags)
        yield f"{header}\n\n{_wrap(words)}\n"


def write_forza_corpus(
    directory: Path, count: int, *, seed: int = 2024, files: int = 4
) -> list[Path]:
    """Write ``count`` records into ``files`` files under ``directory`` (made if
    needed, one sub-folder for half of them so folders are walked recursively)."""
    directory.mkdir(parents=True, exist_ok=True)
    if files > 1:
        (directory / "more").mkdir(exist_ok=True)
    paths = [
        (directory if index < max(files // 2, 1) else directory / "more") / f"forza-{index:02d}.pgr"
        for index in range(files)
    ]
    handles = [path.open("w", encoding="utf-8", newline="\n") for path in paths]
    try:
        for number, text in enumerate(forza_records(count, seed)):
            handle = handles[number * files // count]
            if handle.tell():
                handle.write("\n")
            handle.write(text)
    finally:
        for handle in handles:
            handle.close()
    return paths


def chess_pgn_games(target_plies: int, seed: int = 2024) -> Iterator[tuple[str, int]]:
    """Random legal chess games as PGN text, with their ply counts, until the
    total reaches ``target_plies``. Each game is cut at a random length (20-120
    plies) unless it ends first."""
    import chess
    import chess.pgn

    rng = random.Random(seed)
    total = 0
    number = 0
    while total < target_plies:
        number += 1
        board = chess.Board()
        length = rng.randint(20, 120)
        while board.ply() < length and not board.is_game_over(claim_draw=False):
            board.push(rng.choice(list(board.legal_moves)))
        pgn = chess.pgn.Game.from_board(board)
        pgn.headers["Event"] = f"Random {number}"
        pgn.headers["White"], pgn.headers["Black"] = rng.sample(NAMES, 2)
        plies = board.ply()
        total += plies
        yield str(pgn) + "\n", plies


def write_chess_corpus(path: Path, target_plies: int, *, seed: int = 2024) -> tuple[int, int]:
    """Write random chess games totalling about ``target_plies`` plies to ``path``;
    return (games, plies)."""
    games = plies = 0
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for text, count in chess_pgn_games(target_plies, seed):
            if games:
                handle.write("\n")
            handle.write(text)
            games += 1
            plies += count
    return games, plies
