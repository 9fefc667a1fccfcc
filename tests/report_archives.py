"""Archives for the report tests: every shipped example of every game, twice.

Import skips exact duplicates (by content hash), so each copy's Event tag is
changed: the copies are distinct games with the same moves, which is what makes
their positions meet (frequent positions) and what once made the report replay
3- and 4-side games from the 2-side set-up.
"""

from __future__ import annotations

import re
from pathlib import Path

from partita.database import import_paths, query_games
from partita.games.base import WIN, parse_result_token

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def example_folders() -> list[Path]:
    """``examples/<game>`` for every game (the invalid records left out)."""
    return sorted(path for path in EXAMPLES.iterdir() if path.is_dir() and path.name != "invalid")


def doubled_examples(folder: Path) -> Path:
    """An archive in ``folder`` holding every example twice (see the module docstring)."""
    records = folder / "records"
    records.mkdir()
    for game in example_folders():
        for source in sorted(game.glob("*.pgr")):
            text = source.read_text(encoding="utf-8")
            copy = re.sub(r'^\[Event "(.*)"\]$', r'[Event "\1 (copy)"]', text, flags=re.M)
            assert copy != text, f"{source} has no Event tag to change"
            (records / f"{game.name}-{source.name}").write_text(text, encoding="utf-8")
            (records / f"{game.name}-copy-{source.name}").write_text(copy, encoding="utf-8")
    archive = folder / "doubled.db"
    summary = import_paths(archive, [records])
    assert summary.duplicates == 0 and summary.imported % 2 == 0, summary
    return archive


def decisive_games(archive: Path) -> dict[tuple[str, int], set[int]]:
    """The valid games with one winner, by (game, sides): read off their Result tags."""
    found: dict[tuple[str, int], set[int]] = {}
    for row in query_games(archive):
        if row["status"] != "valid":
            continue
        try:
            scores = parse_result_token(row["result"] or "*", row["sides"])
        except ValueError:
            continue
        if scores is not None and sum(score == WIN for score in scores) == 1:
            found.setdefault((row["game"], row["sides"]), set()).add(row["id"])
    return found
