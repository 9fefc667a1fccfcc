"""The report: its sections, its escaping, its Markdown form, its diagrams."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cli_runner import run_cli
from report_archives import (
    HOSTILE,
    HOSTILE_RECORD,
    decisive_games,
    doubled_examples,
    html_tree,
    simulated_archive,
)

from partita.analysis.diagrams import board_for, render_diagram
from partita.analysis.report import (
    ReportOptions,
    Section,
    Table,
    build_report,
    render_html,
    render_markdown,
    viewer_game,
    write_report,
)
from partita.analysis.report.game_part import part_steps
from partita.analysis.report.render import report_charts
from partita.analysis.report.viewer import (
    compact_game,
    decode_game,
    encode_game,
    expand_game,
    referenced_games,
)
from partita.bulk import import_paths
from partita.database import query_games
from partita.database.schema import archive as opened_archive
from partita.games.gravity.notation import CONNECT4, FORZA4X4
from partita.notation.nags import NAGS, nag_meaning, nag_symbol
from partita.notation.reader import parse_record

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    hostile = folder / "hostile.pgr"
    hostile.write_text(HOSTILE_RECORD, encoding="utf-8")
    db = folder / "report.db"
    with opened_archive(db) as opened:
        import_paths(opened, [ROOT / "examples", hostile])
    return db


@pytest.fixture(scope="module")
def data(archive):
    with opened_archive(archive, readonly=True) as opened:
        return build_report(opened)


@pytest.fixture(scope="module")
def html(examples_report_page):
    """The page over every example twice and the hostile records (shared with the
    browser tests: drawing its charts is most of a report's cost)."""
    return examples_report_page.html


def test_every_section_is_there(examples_report_page):
    html, data = examples_report_page.html, examples_report_page.data
    for anchor in ("glance", "players", "game-forza4x4", "game-connect4", "viewer", "games"):
        assert f'id="{anchor}"' in html
    for heading in (
        "The archive at a glance",
        "Results per player",
        "Opening tree",
        "Game length",
        "First moves",
        "Most frequent positions",
        "Decisive games: final positions",
    ):
        assert heading in html
    parts = {part["game"]: part for part in data["games"]}
    assert {"forza4x4", "connect4"} <= set(parts)
    for part in (parts["forza4x4"], parts["connect4"]):
        assert part["tree"] and part["first_moves"]["rows"] and part["lengths"]["chart"]
        assert part["finals"], part["game"]
        # no section of their own: only the balance every game gets
        assert [section.title for section in part["sections"]] == [
            f"Balance: {part['title']} (2 sides)"
        ]
    forceball = [part for part in data["games"] if part["game"] == "forceball"]
    assert forceball and all(
        [section.title.partition(" (")[0] for section in part["sections"]]
        == ["Forceball: attacks, goals, fouls and stakes", "Balance: Forceball"]
        for part in forceball
    )
    assert "first seat" in html
    assert "How attacks were won" in html
    # Charts (years, lengths and first moves of each part, each section's) and diagrams.
    charts = 1 + sum(
        bool(part["lengths"]["chart"])
        + bool(part["first_moves"]["rows"])
        + sum(len(section.charts) for section in part["sections"])
        for part in data["games"]
    )
    assert len(re.findall(r'<div class="chart"><svg', html)) == charts >= 5
    assert html.count('class="diagram"') == sum(
        len(part["finals"]) + len(part["positions"]["rows"]) for part in data["games"]
    )


def test_a_hostile_player_name_is_text(html):
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<script") == 2  # the JSON data and the viewer, nothing else
    data_block = re.search(
        r'<script type="application/json" id="partita-data">(.*?)</script>', html, re.S
    ).group(1)
    assert "<" not in data_block and ">" not in data_block
    viewer = json.loads(data_block)
    games = [decode_game(encoded) for encoded in viewer["games"].values()]
    game = next(g for g in games if ["Player1", HOSTILE] in g["tags"])
    assert game["nodes"][1]["c"] == ["a comment with <b>tags</b> and </script>"]


def test_the_page_needs_no_network_and_allows_only_its_own_script(html):
    assert not re.search(r"""(?:src|href|action)\s*=\s*["'](?!#)""", html)
    assert "@import" not in html and not re.search(r"url\((?!#)", html)
    script = re.search(r"<script>(.*)</script>", html, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in html
    assert "default-src 'none'" in html


def test_markdown_escapes_every_value(data):
    text = render_markdown(data)
    assert "# partita report" in text and "## Forza 4x4" in text and "### Opening tree" in text
    assert HOSTILE not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "Pipe \\| \\*Star\\* \\[link\\](x) \\`tick\\`" in text
    # Every table row has as many cells as its header.
    for table in re.findall(r"(?:^\|.*\|\n)+", text, re.M):
        rows = table.strip("\n").split("\n")
        widths = {len(re.split(r"(?<!\\)\|", row)) for row in rows}
        assert len(widths) == 1, rows
    assert "```\n" in text  # diagrams as text


def test_write_report_chooses_the_format_from_the_name(archive, tmp_path):
    options = ReportOptions(depth=2, viewer_games=3, title="Club <report>", charts=False)
    with opened_archive(archive, readonly=True) as opened:
        html_path = write_report(opened, tmp_path / "r.html", options=options, game="connect4")
    with opened_archive(archive, readonly=True) as opened:
        md_path = write_report(opened, tmp_path / "r.md", options=options, game="connect4")
    page = html_path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<title>Club &lt;report&gt;</title>" in page
    assert 'id="game-forza4x4"' not in page and 'id="game-connect4"' in page
    assert md_path.read_text(encoding="utf-8").startswith("# Club &lt;report&gt;")
    assert page.count('class="open" data-game=') >= 3


def test_a_registered_section_appears_for_its_game_only(archive):
    def statistics(db, game, ids):
        return Section(
            "Attacks <won>",
            paragraphs=[f"{len(ids)} games"],
            tables=[Table(["kind", "count"], [["maneuver", 3]])],
        )

    from dataclasses import replace

    from partita.game import registry

    original = registry.get_spec("connect4")
    registry.register(replace(original, report_sections=(statistics,)))
    try:
        # The two games the assertions name (the other games' parts would only cost time).
        with opened_archive(archive, readonly=True) as opened:
            data = build_report(
                opened,
                options=ReportOptions(viewer_games=0, charts=False),
                games=("connect4", "forza4x4"),
            )
    finally:
        registry.register(original)
    parts = {part["game"]: part for part in data["games"]}
    assert [section.title for section in parts["connect4"]["sections"]] == [
        "Attacks <won>",
        "Balance: Connect Four (2 sides)",
    ]
    assert "Attacks <won>" not in [section.title for section in parts["forza4x4"]["sections"]]
    page = render_html(data)
    assert "Attacks &lt;won&gt;" in page and "<td>maneuver</td>" in page
    assert "### Attacks &lt;won&gt;" in render_markdown(data)


def test_viewer_nodes_follow_the_move_tree():
    record = parse_record(HOSTILE_RECORD)
    game = viewer_game(record, 7)
    nodes = game["nodes"]
    # root, t4, r5, the variation's t5, r5 (mainline order: children first-in-first)
    moves = [node.get("m") for node in nodes]
    assert sorted(filter(None, moves)) == ["r5", "r5", "t4", "t5"]
    root, t4 = nodes[0], nodes[nodes[0]["k"][0]]
    assert t4["m"] == "t4" and t4["n"] == "1."
    r5, t5 = (nodes[index] for index in t4["k"])
    assert (r5["m"], r5["n"], t5["m"], t5["n"]) == ("r5", "1...", "t5", "1...")
    assert t5["c"] == ['"quoted" & more']
    # Boards: the cells after each ply (row 8, column 4 is bit 7 * 8 + 3 = 59).
    assert root["f"]["cells"] == "." * 64
    assert t4["f"]["cells"][59] == "x" and t4["f"]["cells"].count("x") == 1
    assert r5["f"]["cells"][32] == "o"  # row 5, column 1
    assert t5["f"]["cells"][60] == "o"  # column 5 falls to row 8


def test_the_spec_example_diagram_puts_pieces_where_the_rules_say():
    state = FORZA4X4.play_line("t4 r5 r5 t2 l8")
    svg = render_diagram(FORZA4X4, state, caption="a <caption>")
    pieces = set(
        re.findall(
            r'<circle cx="([\d.]+)" cy="([\d.]+)" r="[\d.]+" fill="[^"]+" '
            r'stroke="[^"]+" stroke-width="2" class="piece piece-(\w)"',
            svg,
        )
    )
    # Cells are 40 wide from x = 26 (columns) and y = 26 (rows): centre at 46 + 40 (n - 1).
    assert pieces == {
        ("166.0", "326.0", "x"),  # t4: row 8, column 4
        ("46.0", "206.0", "o"),  # r5: row 5, column 1
        ("86.0", "206.0", "x"),  # r5: row 5, column 2
        ("86.0", "166.0", "o"),  # t2: row 4, column 2
        ("126.0", "326.0", "x"),  # l8: row 8, column 3
    }
    assert "<title>a &lt;caption&gt;</title>" in svg
    labels = re.findall(r">([tblr]\d)</text>", svg)
    assert len(labels) == 32 and {"t1", "b8", "l1", "r8"} <= set(labels)


def test_a_winning_line_is_marked():
    state = CONNECT4.play_line("t4 t4 t5 t5 t6 t6 t7")
    board = board_for(CONNECT4)
    assert board.marks(state) == {38, 39, 40, 41}  # row 6, columns 4-7
    assert render_diagram(CONNECT4, state).count('class="mark"') == 4


def test_report_command(archive, tmp_path):
    target = tmp_path / "out.md"
    outcome = run_cli(
        ["report", "--db", str(archive), "-o", str(target), "--game", "forza4x4", "--no-charts"]
    )
    assert outcome.code == 0, outcome.stderr
    assert target.read_text(encoding="utf-8").startswith("# partita report")
    target = tmp_path / "out.html"
    outcome = run_cli(
        ["report", "--db", str(archive), "-o", str(target), "--symmetry", "--depth", "2",
         "--game", "connect4", "--no-charts"]
    )  # fmt: skip
    assert outcome.code == 0, outcome.stderr
    assert "symmetric positions merged" in target.read_text(encoding="utf-8")


# -- every example twice: each part replays its games with their own set-up ----------------------


@pytest.fixture(scope="module")
def doubled(tmp_path_factory):
    archive = doubled_examples(tmp_path_factory.mktemp("doubled"))
    # Every decisive game shown, so the finals can be compared with the archive.
    with opened_archive(archive, readonly=True) as opened:
        data = build_report(opened, options=ReportOptions(finals=100, viewer_games=5))
    return archive, data


@pytest.mark.slow
def test_a_report_over_two_copies_of_every_example(doubled):
    """Slow (a second report over twice the examples); the browser tests build one too."""
    archive, data = doubled
    parts = data["games"]
    with opened_archive(archive, readonly=True) as opened:
        games = {row["game"] for row in query_games(opened) if row["game"]}
    assert {part["game"] for part in parts} == games
    shown: dict[tuple[str, int], set[int]] = {}
    for part in parts:
        assert part["unreplayable"] == [], (part["title"], part["unreplayable"])
        # Both copies of a game reach its positions: every part has frequent ones.
        assert part["positions"]["rows"], part["title"]
        for row in part["positions"]["rows"]:
            assert row["games"] >= 2 and row["games"] % 2 == 0
        shown.setdefault((part["game"], part["sides"]), set()).update(
            row["id"] for row in part["finals"]
        )
    expected = decisive_games(archive)
    assert {key for key in expected if key[1] > 2}, "the examples hold 3- and 4-side wins"
    assert {key: ids for key, ids in shown.items() if ids} == expected
    assert_ids_are_unique(render_html(data))


def test_finals_are_drawn_with_the_games_own_colours(data):
    own = [part for part in data["games"] if "O5" in part["title"]]  # the own-layout example
    assert own and own[0]["finals"]
    assert own[0]["legend"] == [
        ("Player1 (white)", "#f7f7f2", "#555555"),
        ("Player2 (green)", "#27ae60", "#14653a"),
        ("Player3 (red)", "#d7263d", "#8c1020"),
    ]
    assert 'fill="#f7f7f2"' in own[0]["finals"][0]["svg"]


def test_chance_moves_are_not_shown_as_openings(data):
    forceball = [part for part in data["games"] if part["game"] == "forceball"]
    assert forceball
    for part in forceball:
        moves = [row["move"] for row in part["first_moves"]["rows"]] + [
            row["move"] for row in part["tree"]
        ]
        assert moves and not any(move.startswith(("deck:", "face:")) for move in moves), moves
        # The first players' move of every game, and as deep as asked.
        assert sum(row["games"] for row in part["first_moves"]["rows"]) == part["valid"]
        assert max(row["level"] for row in part["tree"]) == part["depth"]
        assert part["chance"]
    assert not any(part["chance"] for part in data["games"] if part["game"] != "forceball")


def test_opening_moves_look_through_chance_moves():
    from partita.analysis.report.openings import opening_moves
    from partita.analysis.tree import build_tree, lines_from_records
    from partita.game.registry import get_spec
    from partita.game.rules import CHANCE
    from partita.notation.reader import read_records

    lines = list(lines_from_records(read_records(ROOT / "examples/forceball/pro.pgr")))
    game = get_spec("forceball").game.configure({"League": "pro"})
    tree = build_tree(lines, game, depth=5)
    (shuffle,) = tree.moves()
    assert shuffle.mover == -1 and game.rules.side_to_move(tree.states[tree.root]) == CHANCE
    first = opening_moves(tree, [tree.root])
    assert first and all(edge.mover >= 0 for move in first for edge in move.edges)
    assert sum(move.games for move in first) == len(lines)


def test_the_tree_is_pruned_to_its_budget(archive):
    options = {"viewer_games": 0, "positions": 0, "finals": 0}
    with opened_archive(archive, readonly=True) as opened:
        full = build_report(
            opened, options=ReportOptions(tree_rows=10_000, **options), game="forza4x4"
        )
    with opened_archive(archive, readonly=True) as opened:
        pruned = build_report(
            opened, options=ReportOptions(tree_rows=5, **options), game="forza4x4"
        )
    for whole, part in zip(full["games"], pruned["games"], strict=True):
        assert part["tree_total"] == len(whole["tree"])
        assert len(part["tree"]) == min(5, len(whole["tree"]))
        if len(whole["tree"]) <= 5:
            assert part["tree"] == whole["tree"]
            continue
        # The most played rows, in the tree's order, each with the moves leading to it.
        kept = [row["line"] for row in part["tree"]]
        assert kept == [row["line"] for row in whole["tree"] if row["line"] in kept]
        left_out = [row["games"] for row in whole["tree"] if row["line"] not in kept]
        assert min(row["games"] for row in part["tree"]) >= max(left_out)
        for index, row in enumerate(part["tree"]):
            if row["level"] > 1:
                above = [other for other in part["tree"][:index] if other["level"] < row["level"]]
                assert above[-1]["level"] == row["level"] - 1
                assert row["line"].startswith(above[-1]["line"] + " ")
    forza = next(part for part in pruned["games"] if part["game"] == "forza4x4")
    page = render_html(pruned)
    assert f"5 of {forza['tree_total']} moves shown" in page
    assert f"5 of {forza['tree_total']} moves shown" in render_markdown(pruned)


def assert_ids_are_unique(page: str) -> None:
    ids = re.findall(r'\sid="([^"]+)"', page)
    repeated = {name for name in ids if ids.count(name) > 1}
    assert len(ids) > 100 and not repeated, sorted(repeated)[:10]
    # Every reference inside a chart points at an id of the page.
    assert set(re.findall(r'url\(#([^)]+)\)|href="#([^"]+)"', page)) <= {
        (name, "") for name in ids
    } | {("", name) for name in ids}


def test_no_id_repeats_in_the_page(html):
    assert_ids_are_unique(html)  # the doubled archive's page: in the slow test above


def _charts(page: str) -> list[ElementTree.Element]:
    svgs = re.findall(r'<div class="chart">(<svg.*?</svg>)', page, re.S)
    return [ElementTree.fromstring(svg) for svg in svgs]


def _tick_labels(chart: ElementTree.Element, axis: str) -> list[str]:
    labels = []
    for group in chart.iter("{http://www.w3.org/2000/svg}g"):
        if re.search(rf"-{axis}tick_\d+$", group.get("id", "")):
            texts = group.iter("{http://www.w3.org/2000/svg}text")
            labels.append("\n".join("".join(text.itertext()) for text in texts))
    return labels


def test_count_axes_are_whole_numbers(html):
    charts = _charts(html)
    assert len(charts) >= 5
    # The balance sections' seat scores and events per game are rates, not counts.
    # The events and seat charts lie on their side: their values are on the x axis.
    rates = ("Score per seat", "How often each rule fires")
    for chart in charts:
        lying = any(title in "".join(chart.itertext()) for title in rates)
        labels = _tick_labels(chart, "x" if lying else "y")
        whole = not any(title in "".join(chart.itertext()) for title in rates)
        number = r"−?\d+" if whole else r"−?\d+(?:\.\d+)?"
        assert labels and all(re.fullmatch(number, label) for label in labels), labels
    # The game-length histograms count plies in whole numbers too.
    lengths = [chart for chart in charts if "game length" in "".join(chart.itertext())]
    assert lengths
    for chart in lengths:
        labels = _tick_labels(chart, "x")
        assert labels and all(re.fullmatch(r"\d+", label) for label in labels), labels


def test_long_chart_labels_are_wrapped_or_cut():
    from partita.analysis import charts

    svg = charts.bar_chart(["Shot", "ball taken (no maneuver)"], [3, 4], title="t", ylabel="n")
    labels = _tick_labels(ElementTree.fromstring(str(svg)), "x")
    assert labels == ["Shot", "ball taken\n(no\nmaneuver)"]
    svg = charts.bar_chart(["Shot", "x" * 60], [3, 4], title="t", ylabel="n")
    labels = _tick_labels(ElementTree.fromstring(str(svg)), "x")
    assert labels == ["Shot", "x" * (charts.LABEL_LIMIT - 1) + "…"]


@pytest.mark.slow
def test_diagrams_scale_to_readable_text(doubled):
    """Slow: over the doubled examples' report (every part has frequent positions)."""
    from partita.analysis.diagrams import READABLE_TEXT

    _, data = doubled
    for part in data["games"]:
        figures = part["finals"] + part["positions"]["rows"]
        assert len({row["width"] for row in figures}) == 1, part["title"]  # one scale a part
        for row in figures:
            svg = str(row["svg"])
            width, box = (
                re.search(r'<svg[^>]*\swidth="([\d.]+)"', svg),
                re.search(r'viewBox="[\d.]+ [\d.]+ ([\d.]+)', svg),
            )
            scale = float(width.group(1)) / float(box.group(1))
            fonts = [float(size) for size in re.findall(r'font-size="([\d.]+)"', svg)]
            assert float(width.group(1)) == row["width"]
            assert min(fonts) * scale >= READABLE_TEXT - 0.05, (part["title"], scale)


# -- charts: drawn when shown; a Markdown file's charts are files beside it ---------------------


def test_charts_are_drawn_only_when_shown(archive, monkeypatch):
    from partita.analysis import charts

    drawn = []
    real = charts._svg
    monkeypatch.setattr(
        charts, "_svg", lambda figure, salt: drawn.append(salt) or real(figure, salt)
    )
    with opened_archive(archive, readonly=True) as opened:
        data = build_report(opened, game="connect4")
    text = render_markdown(data)
    assert drawn == [] and "![" not in text
    chart = data["games"][0]["lengths"]["chart"]
    assert str(chart) == str(chart) and str(chart).startswith("<svg") and len(drawn) == 1


def test_a_markdown_file_links_its_charts_and_a_rerun_replaces_them(archive, tmp_path):
    target = tmp_path / "club.md"
    outcome = run_cli(["report", "--db", str(archive), "-o", str(target), "--game", "forza4x4"])
    assert outcome.code == 0, outcome.stderr
    text = target.read_text(encoding="utf-8")
    links = re.findall(r"^!\[([^\]]*)\]\(club-charts/(chart-\d+\.svg)\)$", text, re.M)
    folder = tmp_path / "club-charts"
    assert [name for _, name in links] == [f"chart-{n}.svg" for n in range(1, len(links) + 1)]
    assert sorted(path.name for path in folder.iterdir()) == sorted(name for _, name in links)
    # years, the part's lengths and first moves (its balance section is tables)
    assert len(links) >= 3 and ("Games per year", "chart-1.svg") in links
    for _, name in links:
        root = ElementTree.parse(folder / name).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
    with opened_archive(archive, readonly=True) as opened:
        html = render_html(build_report(opened, game="forza4x4"))
    assert len(links) == len(re.findall(r'<div class="chart"><svg', html))
    (folder / "chart-99.svg").write_text("stale", encoding="utf-8")
    outcome = run_cli(["report", "--db", str(archive), "-o", str(target), "--game", "forza4x4"])
    assert outcome.code == 0, outcome.stderr
    assert not (folder / "chart-99.svg").exists() and len(list(folder.iterdir())) == len(links)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("club-charts.")] == []


def test_no_charts_leaves_them_out_of_both_formats(archive, tmp_path):
    page, notes = tmp_path / "plain.html", tmp_path / "plain.md"
    for target in (page, notes):
        outcome = run_cli(
            ["report", "--db", str(archive), "-o", str(target), "--no-charts", "--game", "connect4"]
        )
        assert outcome.code == 0, outcome.stderr
    assert "<svg" in page.read_text(encoding="utf-8")  # the board diagrams stay
    assert '<div class="chart">' not in page.read_text(encoding="utf-8")
    assert "![" not in notes.read_text(encoding="utf-8")
    assert not (tmp_path / "plain-charts").exists()
    outcome = run_cli(["report", "--db", str(archive), "-o", "-", "--format", "md"])
    assert outcome.code == 0 and "![" not in outcome.stdout and "## Forza 4x4" in outcome.stdout


# -- the viewer's store: every button works -----------------------------------------------------


def _page_games(html: str) -> tuple[dict, list, list]:
    """The page's store, its buttons' games and its plain-text game references."""
    tree = html_tree(html)
    store = json.loads(next(e for e in tree.iter("script") if e.get("id") == "partita-data").text)
    buttons = [e.get("data-game") for e in tree.iter("button") if e.get("class") == "open"]
    plain = [e for e in tree.iter("span") if e.get("class") == "game-ref"]
    return store, buttons, plain


def test_every_button_opens_a_game_of_the_store(examples_report_page):
    html, data = examples_report_page.html, examples_report_page.data
    store, buttons, plain = _page_games(html)
    assert buttons and set(buttons) <= set(store["games"])
    # Every game the parts name is a live button, or plain text that says why not.
    named = referenced_games(data["games"])
    assert len(named) > 20
    plain_ids = {element.get("data-game") for element in plain}
    for game_id in named:
        assert str(game_id) in store["games"] or str(game_id) in plain_ids, game_id
    for element in plain:
        assert element.get("title", "").startswith("no replay: ")


def test_games_beyond_the_listed_ones_are_in_the_store(archive):
    # Only one game listed: the tree's examples and the diagrams' games are still there.
    with opened_archive(archive, readonly=True) as opened:
        data = build_report(opened, options=ReportOptions(viewer_games=1, charts=False))
    assert len(data["listed"]) == 1
    named = referenced_games(data["games"])
    assert len(named) > 10
    assert {str(game_id) for game_id in named} <= set(data["viewer"]["games"])
    store, buttons, plain = _page_games(render_html(data))
    assert set(buttons) == set(store["games"]) and not plain
    assert len(set(buttons)) > len(data["listed"])


def test_a_game_that_cannot_be_replayed_is_plain_text_with_its_reason(archive):
    with opened_archive(archive, readonly=True) as opened:
        data = build_report(opened, options=ReportOptions(viewer_games=0, charts=False))
    part = next(part for part in data["games"] if part["finals"])
    gone = part["finals"][0]["id"]
    del data["viewer"]["games"][str(gone)]
    data["unviewable"][gone] = "its moves cannot be read"
    _, buttons, plain = _page_games(render_html(data))
    assert str(gone) not in buttons
    named = [element for element in plain if element.get("data-game") == str(gone)]
    assert named and all(
        element.get("title") == "no replay: its moves cannot be read" for element in named
    )
    # The games list says so too, in words on the page.
    page = render_html(data)
    assert f"Game numbers in grey have no replay: game {gone}: its moves cannot be read." in page


def test_the_store_keeps_only_the_changes_and_expands_to_every_board(examples_report_page):
    from partita.database.schema import open_archive
    from partita.database.selection import stored_pgr

    store = examples_report_page.data["viewer"]["games"]
    with open_archive(examples_report_page.archive, readonly=True) as db:
        for key, stored in store.items():
            record = parse_record(stored_pgr(db, int(key)))
            whole = viewer_game(record, int(key))
            board = whole.pop("board")
            kept = decode_game(stored)
            assert examples_report_page.data["viewer"]["layouts"][kept.pop("layout")] == board
            assert expand_game(kept) == whole, key
            assert all("f" not in node for node in decode_game(stored)["nodes"][1:] if "d" in node)
    # A long game's store is a small part of its whole boards.
    longest = max(store.values(), key=lambda game: len(decode_game(game)["nodes"]))
    assert len(decode_game(longest)["nodes"]) > 40
    assert len(longest) * 10 < len(json.dumps(expand_game(decode_game(longest))))


def test_variations_comments_and_passes_survive_the_store():
    record = parse_record(HOSTILE_RECORD)
    whole = viewer_game(record, 7)
    stored = compact_game(whole)
    assert expand_game(stored) == whole
    encoded = encode_game(stored)
    assert re.fullmatch(r"[A-Za-z0-9+/=]+", encoded) and decode_game(encoded) == stored
    assert "p" not in json.dumps([sorted(node) for node in stored["nodes"]])


# -- NAGs ---------------------------------------------------------------------------------------

NAG_RECORD = """[Game "forza4x4"]
[Event "NAGs"]
[Player1 "A"]
[Player2 "B"]
[Result "*"]

1. t4 $7 r5 $1 $14 2. r5 $250 *
"""


def test_nags_are_shown_by_their_symbols(tmp_path):
    assert [nag_symbol(nag) for nag in (1, 2, 3, 4, 5, 6)] == ["!", "?", "!!", "??", "!?", "?!"]
    assert nag_symbol(7) == "□" and nag_meaning(7).startswith("forced move")
    assert nag_symbol(250) == "$250" and nag_meaning(250) == ""
    source = tmp_path / "nags.pgr"
    source.write_text(NAG_RECORD, encoding="utf-8")
    db = tmp_path / "nags.db"
    with opened_archive(db) as opened:
        import_paths(opened, [source])
    with opened_archive(db, readonly=True) as opened:
        data = build_report(opened, options=ReportOptions(charts=False))
    nags = data["viewer"]["nags"]
    assert nags == {"1": ["!", "good move"], "7": list(NAGS[7]), "14": list(NAGS[14])}
    # The viewer shows a NAG by its symbol and meaning, "$N" only when it has none.
    script = (ROOT / "partita/analysis/templates/viewer.js").read_text(encoding="utf-8")
    assert "data.nags" in script


# -- progress: sections, games and charts -------------------------------------------------------


def test_progress_counts_sections_games_and_charts(archive, examples_report_page):
    calls: list[tuple[int, int]] = []
    with opened_archive(archive, readonly=True) as opened:
        data = build_report(opened, progress=lambda done, total: calls.append((done, total)))
    parts = data["games"]
    sections = sum(part_steps(part["game"]) for part in parts)
    assert calls[-1] == (data["steps"], data["steps"])
    assert data["steps"] == sections + len(data["viewer"]["games"]) + len(data["unviewable"])
    assert data["steps"] > len({part["game"] for part in parts}) * 5
    assert all(done <= total for done, total in calls)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    # The page goes on counting: one step per chart it draws, none after the last.
    shared = examples_report_page.data
    drawn: list[tuple[int, int]] = []
    render_html(shared, lambda done, total: drawn.append((done, total)))
    charts = len(report_charts(shared))
    assert charts >= 5
    assert drawn[0] == (shared["steps"], shared["steps"] + charts)
    assert drawn[-1] == (shared["steps"] + charts, shared["steps"] + charts)


def test_a_report_of_a_thousand_games_stays_small(tmp_path):
    # Every game a button names is in the page, and the page stays under 5 MB.
    archive = simulated_archive(tmp_path, 1000, mixed=False, examples=False)
    with opened_archive(archive, readonly=True) as opened:
        data = build_report(opened)
    page = render_html(data)
    assert data["glance"]["total"] == 1000
    store, buttons, plain = _page_games(page)
    assert set(buttons) == set(store["games"]) and not plain
    assert len(store["games"]) > len(data["listed"])
    assert len(page.encode("utf-8")) < 5_000_000


def test_a_markdown_report_counts_the_charts_it_writes(archive, tmp_path):
    calls: list[tuple[int, int]] = []
    target = tmp_path / "notes.md"
    with opened_archive(archive, readonly=True) as opened:
        write_report(
            opened,
            target,
            game="forza4x4",
            progress=lambda done, total: calls.append((done, total)),
        )
    charts = len(list((tmp_path / "notes-charts").iterdir()))
    assert charts >= 3
    done, total = calls[-1]
    assert done == total and all(step <= whole for step, whole in calls)
    # The charts are the last steps: the bar does not sit full while they are drawn.
    assert [step for step, _ in calls[-charts - 1 :]] == list(range(done - charts, done + 1))
