"""Balance: Wilson intervals, seat scores and lengths counted against the records
themselves, each game's rule counters against what its states say, the report
section and the command."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from report_archives import html_tree
from test_cli import partita

from partita.analysis.balance import balance, wilson_interval
from partita.analysis.report.balance import balance_section, render_balance
from partita.analysis.selfplay import simulate
from partita.database import open_archive
from partita.database.schema import archive as opened_archive
from partita.game.configuration import Configuration
from partita.game.registry import get_game, get_spec
from partita.game.rules import parse_result_token
from partita.games.circular_reasoning.balance import path_counts
from partita.games.circular_reasoning.rules import GOAL, RESERVE, SHAPES, Move
from partita.games.gravity.balance import line_directions
from partita.games.gravity.rules import GravityState
from partita.notation.reader import read_records


def test_wilson_intervals_match_the_published_values():
    # Newcombe (1998), table I: 81/263 -> 0.2553-0.3662; 15/148 -> 0.0624-0.1605.
    low, high = wilson_interval(81 / 263, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = wilson_interval(15 / 148, 148)
    assert (round(low, 4), round(high, 4)) == (0.0624, 0.1605)
    low, high = wilson_interval(0.0, 10)  # never below 0
    assert low == 0.0 and round(high, 4) == 0.2775
    assert wilson_interval(0.5, 0) == (0.0, 1.0)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> tuple[Path, Path]:
    """An archive of simulated games of two games, and the shards they came from."""
    folder = tmp_path_factory.mktemp("balance")
    db, shards = folder / "games.db", folder / "shards"
    with opened_archive(db) as opened:
        simulate(get_game("connect4"), 40, ["random"], seed=2, output=shards / "c4", db=opened)
    game = get_game("universal-forces").configure({"RoundLimit": "12"})
    configuration = Configuration.of(get_game("universal-forces"), 3, {"RoundLimit": "12"})
    with opened_archive(db) as opened:
        simulate(
            game,
            12,
            ["random"],
            configuration=configuration,
            seed=2,
            output=shards / "uf",
            db=opened,
        )
    return db, shards


def test_scores_and_lengths_are_those_of_the_records(simulated):
    db, shards = simulated
    with open_archive(db, readonly=True) as opened:
        entries = {entry.game: entry for entry in balance(opened)}
        only = [entry.game for entry in balance(opened, game="connect4")]
    assert set(entries) == {"connect4", "universal-forces"}
    for name, folder, sides in (("connect4", "c4", 2), ("universal-forces", "uf", 3)):
        records = [
            r for path in sorted((shards / folder).glob("*.pgr")) for r in read_records(path)
        ]
        entry = entries[name]
        assert entry.games == len(records) and entry.sides == sides
        totals = [Fraction(0)] * sides
        decided = 0
        for record in records:
            scores = parse_result_token(record.tags["Result"], sides)
            if scores is not None:
                decided += 1
                totals = [total + score for total, score in zip(totals, scores, strict=True)]
        assert entry.decided == decided
        for seat, total in zip(entry.seats, totals, strict=True):
            assert seat.score == pytest.approx(float(total / decided))
        assert sorted(entry.lengths) == sorted(len(r.mainline_moves()) for r in records)
    # three sides sharing a draw score 1/2 each: the fair share is the seats' mean
    forces = entries["universal-forces"]
    assert forces.fair_share == pytest.approx(sum(seat.score for seat in forces.seats) / 3)
    connect4 = entries["connect4"]
    assert connect4.fair_share == pytest.approx(0.5)
    advantage, low, high = connect4.first_seat_advantage
    assert advantage == pytest.approx(connect4.seats[0].score - 0.5)
    assert (low, high) == pytest.approx(tuple(x - 0.5 for x in connect4.seats[0].interval))
    # every decisive game of a gravity board ends with a winning line
    lines = sum(count for name, count in connect4.event_games.items() if "winning line" in name)
    decisive = sum(seat.won for seat in connect4.seats)
    assert lines >= decisive and connect4.event_games.total() >= decisive
    # filters are the archive's
    assert only == ["connect4"]


def test_the_report_section_and_the_page(simulated, tmp_path):
    db, _ = simulated
    with open_archive(db) as archive:
        ids = [row["id"] for row in archive.query("SELECT id FROM games WHERE game = 'connect4'")]
        section = balance_section(archive, get_game("connect4"), ids)
    assert section is not None and "Connect Four" in section.title
    assert [table.headers[0] for table in section.tables] == ["seat", "plies", "rule event"]
    # The report's section is tables: the seats' intervals are bars in their table.
    assert section.charts == []
    seats = section.tables[0]
    assert seats.headers[:3] == ["seat", "score", seats.headers[2]]
    assert seats.headers[2].startswith("95% interval (fair share 0.")
    bars = [row[2] for row in seats.rows]
    assert all('<span class="fair"' in bar.__html__() for bar in bars)
    assert all(re.fullmatch(r"\d\.\d{3} – \d\.\d{3}", str(bar)) for bar in bars)
    with opened_archive(db, readonly=True) as opened:
        page = render_balance(balance(opened), title="<b>club</b>")
    assert page.count("<svg") >= 4 and "&lt;b&gt;club&lt;/b&gt;" in page
    with opened_archive(db, readonly=True) as opened:
        markdown = render_balance(balance(opened), markdown=True)
    assert "| seat | score | 95% interval" in markdown and "<svg" not in markdown


def _style_percent(element, name: str) -> float:
    match = re.search(rf"{name}:\s*(-?[\d.]+)%", element.get("style", ""))
    assert match, element.get("style")
    return float(match.group(1))


def test_the_balance_page_draws_the_fair_share_and_the_intervals(simulated):
    db, _ = simulated
    with opened_archive(db, readonly=True) as opened:
        entries = balance(opened)
    page = render_balance(entries)
    root = html_tree(page).find("html")
    assert root is not None
    head = root.find("head")
    assert head is not None
    assert any(
        meta.get("name") == "viewport" and "width=device-width" in meta.get("content", "")
        for meta in head.iter("meta")
    )
    body = root.find("body")
    header, nav = body.find("header"), body.find("header/nav")
    assert header is not None and header.find("h1") is not None and nav is not None
    sections = body.findall("main/section")
    assert [link.get("href") for link in nav.iter("a")] == [
        "#" + section.get("id") for section in sections
    ]
    assert len(sections) == len(entries)
    for entry, section in zip(entries, sections, strict=True):
        assert entry.decided
        rows = section.findall(".//table[@class='seats']/tbody/tr")
        assert len(rows) == len(entry.seats)
        for seat, row in zip(entry.seats, rows, strict=True):
            bar = row.find(".//span[@class='interval']")
            assert bar is not None
            spans = {span.get("class"): span for span in bar}
            low, high = seat.interval
            assert _style_percent(spans["range"], "left") == pytest.approx(100 * low, abs=0.06)
            assert _style_percent(spans["range"], "width") == pytest.approx(
                100 * (high - low), abs=0.11
            )
            assert _style_percent(spans["point"], "left") == pytest.approx(
                100 * seat.score, abs=0.06
            )
            assert _style_percent(spans["fair"], "left") == pytest.approx(
                100 * entry.fair_share, abs=0.06
            )
        # The chart draws the fair share too, named with its value.
        chart_text = "".join(section.find(".//div[@class='chart']").itertext())
        assert f"fair share {entry.fair_share:.3f}" in chart_text
    # Every table scrolls inside its card on a narrow screen.
    tables = list(body.iter("table"))
    wrapped = [
        table for div in body.iter("div") if div.get("class") == "table-scroll" for table in div
    ]
    assert tables and len(wrapped) == len(tables)


def test_the_command_prints_json_and_says_when_there_is_no_archive(simulated, tmp_path):
    db, _ = simulated
    code, out, err = partita("balance", "--db", str(db), "--game", "connect4", "--json",
                             "--workers", "1")  # fmt: skip
    assert code == 0, err
    [entry] = json.loads(out)
    assert entry["configuration"] == {"sides": 2} and entry["games"] == 40
    assert entry["first_seat_advantage"]["significant"] in (True, False)
    assert {item["event"] for item in entry["events"]} <= {
        "winning line: horizontal", "winning line: vertical",
        "winning line: falling diagonal", "winning line: rising diagonal",
    }  # fmt: skip
    code, _, err = partita("balance", "--db", str(tmp_path / "none.db"))
    assert code == 1 and "no archive at" in err


# -- the games' rule counters ------------------------------------------------------------------


def playout(name: str, sides: int, seed: int, tags=None, limit: int = 3000):
    """States, moves and counted events of one random game."""
    game = get_game(name).configure(tags or {})
    rules = game.rules
    counter = get_spec(name).rule_counter()
    rng = random.Random(seed)
    state = rules.initial(sides)
    steps, events = [], Counter()
    while rules.outcome(state) is None and len(steps) < limit:
        move = rules.sample_move(state, rng)
        after = rules.apply(state, move)
        fired = list(counter(rules, state, move, after))
        events.update(fired)
        steps.append((state, move, after, fired))
        state = after
    return rules, steps, events, state


def test_gravity_lines_are_named_by_their_direction():
    rules = get_game("connect4").rules

    def named(cells):
        bits = sum(1 << rules.bit(column, row) for column, row in cells)
        return line_directions(rules, GravityState(bits, 0, 7, bits))

    assert named([(1, 6), (2, 6), (3, 6), (4, 6)]) == ["horizontal"]
    assert named([(7, 3), (7, 4), (7, 5), (7, 6)]) == ["vertical"]
    assert named([(1, 3), (2, 4), (3, 5), (4, 6)]) == ["falling diagonal"]
    assert named([(1, 6), (2, 5), (3, 4), (4, 3)]) == ["rising diagonal"]
    assert named([(1, 6), (2, 6), (3, 6), (4, 6), (1, 5), (1, 4), (1, 3)]) == [
        "horizontal",
        "vertical",
    ]


@pytest.mark.parametrize("seed", range(4))
def test_forza_entries_and_lines_are_counted_once_each(seed):
    rules, steps, events, final = playout("forza4x4", 2, seed)
    entries = sum(count for name, count in events.items() if name.startswith("entry from"))
    assert entries == len(steps)
    for side, word in zip("tblr", ("top", "bottom", "left", "right"), strict=True):
        assert events[f"entry from the {word}"] == sum(
            1 for _, move, _, _ in steps if move.side == side
        )
    won = rules.outcome(final) is not None and rules.outcome(final).winner is not None
    assert any(name.startswith("winning line") for name in events) == won


@pytest.mark.parametrize("sides", [2, 3, 4])
def test_universal_forces_eliminations_and_homes_match_the_final_position(sides):
    rules, steps, events, final = playout("universal-forces", sides, sides, {"RoundLimit": "40"})
    assert events["elimination"] == sum(map(sum, final.eliminated))
    assert events["force home"] == sum(map(sum, final.home))
    assert events["forced pass"] == sum(1 for _, move, _, _ in steps if rules.is_pass(move))
    endings = [name for name in events if name.startswith("end: ")]
    assert len(endings) == (1 if rules.outcome(final) is not None else 0)


@pytest.mark.parametrize(("sides", "variant"), [(2, "basic"), (3, "advanced"), (4, "basic")])
def test_circular_reasoning_paths_entries_and_goals(sides, variant):
    rules, steps, events, final = playout("circular-reasoning", sides, sides, {"Variant": variant})
    for state, move, _, _ in steps:
        if isinstance(move, Move):
            index = rules.side_to_move(state) * 3 + SHAPES.index(move.shape)
            assert path_counts(rules, state, index, move.destination) is not None
    assert events["token into the Goal Area"] == sum(1 for cell in final.tokens if cell == GOAL)
    assert events["entry"] == sum(1 for cell in final.tokens if cell != RESERVE)
    assert events["forced pass"] == sum(1 for _, move, _, _ in steps if rules.is_pass(move))


def test_circular_reasoning_counts_the_passes_of_a_path():
    game = get_game("circular-reasoning")
    rules = game.rules
    # The circle (2 steps) enters at O1 (one step) and takes the large gateway only
    # if it stands there: with the layout's large gateway at O1, @C can reach M1.
    layout = {"Layout": "entrance=O1 large=O1 medium=M5 small=I13"}
    rules = game.configure(layout).rules
    state = rules.initial(2)
    destinations = rules.reach(state, 0)
    inner = 16  # M1
    assert inner in destinations
    assert path_counts(rules, state, 0, inner) == (1, 0, 0)


@pytest.mark.parametrize("league", ["little", "pro"])
def test_forceball_events_come_from_the_turns(league):
    rules, steps, events, _ = playout("forceball", 2, 5, {"League": league})
    allowed_starts = ("attack won: ", "attack lost to Stress", "foul seen", "foul unseen",
                      "Lucky shot", "Goalie", "goal", "stakes accepted", "stakes declined")  # fmt: skip
    assert events and all(name.startswith(allowed_starts) for name in events)
    summaries = [rules.summarize(state, move) for state, move, _, _ in steps]
    attacks = sum(1 for summary in summaries if summary and summary.attack_won_by is not None)
    assert sum(count for name, count in events.items() if name.startswith("attack won")) == attacks
    if league == "little":
        assert not any(name.startswith("stakes") for name in events)
