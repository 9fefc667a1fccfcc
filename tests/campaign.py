"""A reliability campaign: seeded mutations of the shipped example records, imported,
exported and imported again.

Per game family (the example folders), each round takes records of its examples,
damages each with a few seeded mutations (characters and lines inserted, deleted,
swapped or duplicated; tags or movetext dropped; white space, BOMs, U+3000, U+FFFD,
NUL, CR, escape lines, brackets and braces put in), writes them to one file, and:

- validates the file through the command line (in this process): exit 0 or 1, one
  line per problem, never an internal error (exit 3) or a traceback;
- imports it into archive A, exports A, imports the export into archive B: every
  game comes back the same (its moves, text, content hash, validity and problems),
  so every valid game keeps its moves and validity, and no game is lost or joined
  to another; the export imported into A again is all duplicates.

A round that takes longer than ``ROUND_SECONDS`` fails as a hang (SIGALRM).

Run it alone for its figures: ``python tests/campaign.py --per-game 2000``; the
tests run it small (``tests/test_campaign.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import signal
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from partita.database.schema import archive

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cli_runner import run_cli  # noqa: E402

from partita import bulk, database  # noqa: E402
from partita.notation.reader import read_records  # noqa: E402

#: Seconds a round may take before it counts as a hang.
ROUND_SECONDS = 120

#: What mutations put in: the format's own characters, white space of every kind,
#: and what damaged files hold.
PIECES = [
    "[", "]", "{", "}", "(", ")", ";", "$", "%", "*", ".", "-", "!", "?", "\"", "\\",
    " ", "\t", "\n", "\n\n", "\r", "\r\n", "\f", "\v", "\x00", "\ufeff", "\u3000",
    "\ufffd", "\u00a0", "\u2028", "\x1b[31m", "1-0", "0-1", "1/2-1/2", "1.", "12...",
    "--", "t4", "$999999999999", '[Game "forza4x4"]', '[Result "*"]', "\n%\n",
    "{never closed", "é", "9" * 40,
]  # fmt: skip


def examples_by_game() -> dict[str, list[str]]:
    """The texts of the shipped example records, per example folder."""
    found: dict[str, list[str]] = {}
    for folder in sorted(path for path in EXAMPLES.iterdir() if path.is_dir()):
        texts = [
            record.text for path in sorted(folder.glob("*.pgr")) for record in read_records(path)
        ]
        if texts:
            found[folder.name] = texts
    return found


def mutated(text: str, rng: random.Random) -> str:
    """``text`` after one to three seeded mutations."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(12)
        at = rng.randint(0, len(text))
        lines = text.split("\n")
        line = rng.randrange(len(lines))
        if kind == 0:  # a piece put in
            text = text[:at] + rng.choice(PIECES) + text[at:]
        elif kind == 1:  # a run of characters deleted
            text = text[:at] + text[at + rng.randint(1, 8) :]
        elif kind == 2:  # a line deleted
            text = "\n".join(lines[:line] + lines[line + 1 :])
        elif kind == 3:  # a line duplicated
            text = "\n".join(lines[: line + 1] + lines[line:])
        elif kind == 4:  # two lines swapped
            other = rng.randrange(len(lines))
            lines[line], lines[other] = lines[other], lines[line]
            text = "\n".join(lines)
        elif kind == 5:  # cut short
            text = text[:at]
        elif kind == 6:  # the tags dropped (the movetext alone)
            text = "\n".join(part for part in lines if not part.startswith("["))
        elif kind == 7:  # the movetext dropped (the tags alone)
            text = "\n".join(part for part in lines if part.startswith("["))
        elif kind == 8:  # something before the first tag
            text = rng.choice(PIECES) + text
        elif kind == 9:  # white space at the end of a line
            lines[line] += rng.choice([" ", "\t", "\u3000", "\f"]) * rng.randint(1, 3000)
            text = "\n".join(lines)
        elif kind == 10:  # a word swapped for another of the record
            words = text.split(" ")
            if len(words) > 2:
                words[rng.randrange(len(words))] = rng.choice(words)
            text = " ".join(words)
        else:  # a character changed
            if text:
                at = min(at, len(text) - 1)
                text = text[:at] + rng.choice(PIECES)[:1] + text[at + 1 :]
    return text


@dataclass
class Figures:
    """What the campaign did and found."""

    records: int = 0  # mutated records written
    files: int = 0
    stored: int = 0  # games stored by the first import
    valid: int = 0
    invalid: int = 0
    exported: int = 0
    same: int = 0  # games that came back the same
    failures: list[str] = field(default_factory=list)
    slowest: float = 0.0  # seconds of the slowest round
    slowest_round: str = ""

    def line(self) -> str:
        return (
            f"{self.records:,} mutated records in {self.files} files: {self.stored:,} games "
            f"stored ({self.valid:,} valid, {self.invalid:,} invalid), {self.exported:,} "
            f"exported, {self.same:,} the same after re-import; {len(self.failures)} "
            f"failures; slowest round {self.slowest:.1f} s ({self.slowest_round})"
        )


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail with ``TimeoutError`` (a hang) when the block takes over ``seconds``."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"a round took over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def archive_games(db: Path) -> list[tuple]:
    """Every game (moves, hash, status, text) and problem (its line counted from the
    game's first line) of ``db``, in id order."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        games = conn.execute(
            "SELECT id, moves, hash, status, pgr, source_line FROM games ORDER BY id"
        ).fetchall()
        problems = conn.execute(
            "SELECT game_id, kind, line, [column], ply, token, message FROM problems"
            " ORDER BY game_id, line, [column], kind"
        ).fetchall()
    first = {game_id: line for game_id, *_, line in games}
    return [row[:-1] for row in games] + [
        (game_id, kind, line - first[game_id], *rest) for game_id, kind, line, *rest in problems
    ]


def run_round(
    folder: Path, name: str, texts: list[str], figures: Figures, rng: random.Random
) -> None:
    """Files of one to four mutated records each (so that many records start or end
    a file): validated, imported, exported, imported again."""
    files = folder / name
    files.mkdir()
    sources = []
    done = 0
    while done < len(texts):
        count = rng.randint(1, 4)
        sources.append(files / f"{len(sources):04d}.pgr")
        part = "\n\n".join(texts[done : done + count]) + "\n"
        sources[-1].write_bytes(part.encode("utf-8", "surrogatepass"))
        done += count
    figures.records += len(texts)
    figures.files += len(sources)
    result = run_cli(["validate", str(files)])
    if result.code not in (0, 1) or "internal error" in result.stderr:
        figures.failures.append(f"{name}: validate exit {result.code}: {result.stderr[:300]}")
    first, second = folder / f"{name}-a.db", folder / f"{name}-b.db"
    with archive(first) as opened:
        bulk.import_paths(opened, sources)
    exported = folder / f"{name}-export.pgr"
    with (
        exported.open("w", encoding="utf-8", newline="\n") as stream,
        archive(first, readonly=True) as opened,
    ):
        figures.exported += database.export_games(opened, stream)
    with archive(second) as opened:
        bulk.import_paths(opened, [exported])
    before, after = archive_games(first), archive_games(second)
    games = [row for row in before if len(row) == 5]
    figures.stored += len(games)
    figures.valid += sum(row[3] == "valid" for row in games)
    figures.invalid += sum(row[3] != "valid" for row in games)
    if before == after:
        figures.same += len(games)
    else:
        kept = {row[0]: row for row in after if len(row) == 5}
        differing = [row[0] for row in games if kept.get(row[0]) != row]
        figures.same += len(games) - len(differing)
        figures.failures.append(f"{name}: games {differing[:10]} differ after export")
    with archive(first) as opened:
        again = bulk.import_paths(opened, [exported])
    if again.imported:
        figures.failures.append(f"{name}: the export imported {again.imported} new games")


def campaign(per_game: int, *, seed: int = 0, per_file: int = 100) -> Figures:
    """Run the campaign: ``per_game`` mutated records per example folder, in files
    of ``per_file`` records."""
    figures = Figures()
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="partita-campaign-") as temporary:
        folder = Path(temporary)
        for game, texts in examples_by_game().items():
            done = 0
            while done < per_game:
                count = min(per_file, per_game - done)
                batch = [mutated(rng.choice(texts), rng) for _ in range(count)]
                started = time.monotonic()
                try:
                    with deadline(ROUND_SECONDS):
                        run_round(folder, f"{game}-{done}", batch, figures, rng)
                except Exception as error:  # a hang, an internal error: recorded
                    figures.failures.append(f"{game}-{done}: {type(error).__name__}: {error}")
                seconds = time.monotonic() - started
                if seconds > figures.slowest:
                    figures.slowest, figures.slowest_round = seconds, f"{game}-{done}"
                done += count
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-game", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    started = time.monotonic()
    figures = campaign(options.per_game, seed=options.seed)
    print(figures.line())
    for failure in figures.failures[:50]:
        print("  " + failure)
    print(f"{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
