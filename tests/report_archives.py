"""Archives for the report tests: every shipped example of every game, twice.

Import skips exact duplicates (by content hash), so each copy's Event tag is
changed: the copies are distinct games with the same moves, which is what makes
their positions meet (frequent positions) and what once made the report replay
3- and 4-side games from the 2-side set-up.

Drawing a report's charts is most of its cost, so one page serves both the report
tests and the browser tests: :func:`examples_report` (the session fixture
``examples_report_page`` in ``conftest.py``; under pytest-xdist both files run in
one worker: ``conftest.SHARED_WORKER``).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import NamedTuple
from xml.etree import ElementTree

from partita.bulk import import_paths
from partita.database import query_games
from partita.database.schema import archive as opened_archive
from partita.game.rules import WIN, parse_result_token

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

#: What the files that read the shared page share (``conftest.SHARED_WORKER``).
REPORT_GROUP = "examples-report"

#: A hostile player name: markup that must stay text on the page.
HOSTILE = "<script>alert(1)</script>"
#: A name full of Markdown syntax that must stay text in the Markdown report.
MARKDOWN_HOSTILE = "Pipe | *Star* [link](x) `tick`"
#: A record with markup and Markdown syntax in its names, tags, comments and variation.
HOSTILE_RECORD = f"""[Game "forza4x4"]
[Event "Escaping </script> check"]
[Date "2025.01.01"]
[Player1 "{HOSTILE}"]
[Player2 "{MARKDOWN_HOSTILE}"]
[Result "1-0"]
[Termination "resignation"]

1. t4 {{ a comment with <b>tags</b> and </script> }} r5 (1... t5 {{ "quoted" & more }}) 2. r5 1-0
"""
#: A record with an image that would run a script if its name were markup.
IMAGE_RECORD = f"""[Game "forza4x4"]
[Event "Escaping check"]
[Date "2025.01.01"]
[Player1 "{HOSTILE}"]
[Player2 "<img src=x onerror=alert(2)>"]
[Result "*"]

1. t4 {{ a comment with <b>tags</b> }} r5 *
"""


class ExamplesReport(NamedTuple):
    """The HTML report over every example twice, the invalid examples and the
    hostile records: the archive, the report's data, its page and where it is."""

    folder: Path
    archive: Path
    data: dict
    html: str
    page: Path


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
    with opened_archive(archive) as opened:
        summary = import_paths(opened, [records])
    assert summary.duplicates == 0 and summary.imported % 2 == 0, summary
    return archive


def decisive_games(archive: Path) -> dict[tuple[str, int], set[int]]:
    """The valid games with one winner, by (game, sides): read off their Result tags."""
    found: dict[tuple[str, int], set[int]] = {}
    with opened_archive(archive, readonly=True) as opened:
        for row in query_games(opened):
            if row["status"] != "valid":
                continue
            try:
                scores = parse_result_token(row["result"] or "*", row["sides"])
            except ValueError:
                continue
            if scores is not None and sum(score == WIN for score in scores) == 1:
                found.setdefault((row["game"], row["sides"]), set()).add(row["id"])
    return found


def examples_report(folder: Path) -> ExamplesReport:
    """Build the shared report page in ``folder`` (see the module docstring)."""
    from partita.analysis.report import build_report, render_html

    archive = doubled_examples(folder)
    hostile = folder / "hostile.pgr"
    hostile.write_text(HOSTILE_RECORD + "\n" + IMAGE_RECORD, encoding="utf-8")
    with opened_archive(archive) as opened:
        import_paths(opened, [EXAMPLES / "invalid", hostile])
    with opened_archive(archive, readonly=True) as opened:
        data = build_report(opened)
    html = render_html(data)
    page = folder / "report.html"
    page.write_text(html, encoding="utf-8", newline="\n")
    return ExamplesReport(folder, archive, data, html, page)


_VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "wbr",
}


def html_tree(page: str) -> ElementTree.Element:
    """An HTML page as an element tree (stdlib ``html.parser``; void elements closed),
    for tests that check a page's structure."""

    class Builder(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.tree = ElementTree.TreeBuilder()
            self.tree.start("document", {})
            self.open: list[str] = ["document"]

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tree.start(tag, {name: value or "" for name, value in attrs})
            if tag in _VOID:
                self.tree.end(tag)
            else:
                self.open.append(tag)

        def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tree.start(tag, {name: value or "" for name, value in attrs})
            self.tree.end(tag)

        def handle_endtag(self, tag: str) -> None:
            if tag in _VOID or tag not in self.open:
                return
            while self.open:
                name = self.open.pop()
                self.tree.end(name)
                if name == tag:
                    break

        def handle_data(self, data: str) -> None:
            self.tree.data(data)

    builder = Builder()
    builder.feed(page)
    builder.close()
    while len(builder.open) > 1:
        builder.tree.end(builder.open.pop())
    builder.tree.end("document")
    return builder.tree.close()


#: Simulated games added to the shipped examples by :func:`simulated_archive`, by
#: game: ``(game, share of the games, ply limit)``. Random play runs Universal
#: Forces and Circular Reasoning games to hundreds of plies: the limit keeps
#: them near the length of played games.
SIMULATED_MIX = (
    ("forza4x4", 0.45, 1000),
    ("connect4", 0.25, 1000),
    ("circular-reasoning", 0.15, 150),
    ("universal-forces", 0.15, 150),
)


def simulated_archive(
    folder: Path, games: int, *, mixed: bool = True, examples: bool = True, seed: int = 1
) -> Path:
    """An archive in ``folder`` of every shipped example once (90 games; unless
    ``examples`` is false) and ``games`` games of random play: Forza 4x4 only, or
    the :data:`SIMULATED_MIX` of games (``mixed``). The same arguments make the
    same archive."""
    from partita.analysis.selfplay import simulate
    from partita.game.registry import get_game

    archive = (
        folder / f"simulated-{games}{'-mixed' if mixed else ''}{'' if examples else '-only'}.db"
    )
    if examples:
        with opened_archive(archive) as opened:
            import_paths(opened, example_folders())
    plan = SIMULATED_MIX if mixed else (("forza4x4", 1.0, 1000),)
    left = games
    for number, (name, share, limit) in enumerate(plan):
        count = left if number == len(plan) - 1 else round(games * share)
        left -= count
        with opened_archive(archive) as opened:
            simulate(get_game(name), count, ["random"], db=opened, seed=seed, max_plies=limit)
    return archive
