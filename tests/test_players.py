"""Players: statistics per player and game, head-to-heads, crosstables, Elo ratings."""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from partita.bulk import import_paths
from partita.cli.app import _register_commands, app
from partita.database.players import crosstables, fold_name, head_to_head, player_stats
from partita.database.ratings import RatedGame, elo_ratings, expected_score
from partita.database.schema import archive
from partita.errors import ArchiveError
from partita.notation.reader import read_records
from partita.notation.replay import replay

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GAMES = sorted(path.name for path in EXAMPLES.iterdir() if path.is_dir() and path.name != "invalid")


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    _register_commands()
    return CliRunner()


def record(game: str, tags: dict[str, str], moves: str) -> str:
    header = "".join(f'[{name} "{value}"]\n' for name, value in {"Game": game, **tags}.items())
    return f"{header}\n{moves} {tags['Result']}\n"


def three_sided(tags: dict[str, str]) -> str:
    """A valid three-sided Circular Reasoning record: the first three moves of the
    shipped example, adjudicated."""
    [example] = list(read_records(EXAMPLES / "circular-reasoning" / "three-sides-basic.pgr"))[:1]
    moves = " ".join(replay(example).moves[:3])
    return record("circular-reasoning", {"Termination": "adjudication", **tags}, moves)


#: The hand-computed example. Forza 4x4 (2 sides, K = 32, everyone starts at 1500):
#:   1. 2024.01.01 Anna - Bruno 1-0: E = 0.5 each; Anna 1500 + 32 * 0.5 = 1516,
#:      Bruno 1484.
#:   2. 2024.01.02 Bruno - Carla 1/2-1/2: E(Bruno) = 1 / (1 + 10^(16/400))
#:      = 1 / (1 + 1.096478) = 0.476990; Bruno 1484 + 32 * (0.5 - 0.476990)
#:      = 1484.736318, Carla 1500 - 0.736318 = 1499.263682.
#:   3. 2024.01.03 Anna - Dario 0-1, Dario's tag Player2Elo 1700 (his start):
#:      E(Anna) = 1 / (1 + 10^(184/400)) = 1 / (1 + 2.884032) = 0.257464; Anna
#:      1516 - 32 * 0.257464 = 1507.761138, Dario 1700 + 8.238862 = 1708.238862.
#:   4. undated ANNA - Bruno *: no rating (no date, no result), a game in the counts.
#: Circular Reasoning (3 sides: every pair of seats a game with K / 2 = 16):
#:   5. 2024.02.01 Pia - Quinn - Rosa 1-0-0: Pia beats both (E 0.5): +16 + ... =
#:      Pia 1500 + 2 * 16 * 0.5 = 1516; Quinn loses to Pia (-8) and draws Rosa (0):
#:      1492; Rosa 1492.
#:   6. 2024.02.02 Pia - Quinn - Rosa 0-1-0: E(Pia vs Quinn) = E(Pia vs Rosa)
#:      = 1 / (1 + 10^(-24/400)) = 1 / (1 + 0.870964) = 0.534484;
#:      Pia: 16 * (0 - 0.534484) + 16 * (0.5 - 0.534484) = -8.551744 - 0.551744,
#:      1506.896512; Quinn: +8.551744 + 16 * 0.5 = 1508.551744; Rosa:
#:      +0.551744 - 8 = 1484.551744 (the three still sum to 4500).
#: Connect Four: 7. 2024.03.01 anna - Bruno 1-0: a rating of its own, anna 1516.
#: Crosstable of the three-sided games, pair by pair: game 5 Pia beats both, Quinn
#: and Rosa draw; game 6 Quinn beats both, Pia and Rosa draw: Pia 1 + 1 + 1/2 = 2.5,
#: Quinn 1/2 + 1 + 1 = 2.5, Rosa 1/2 + 1/2 = 1.
HAND_RATINGS = {
    ("forza4x4", "Anna"): (1507.761138, 2),
    ("forza4x4", "Bruno"): (1484.736318, 2),
    ("forza4x4", "Carla"): (1499.263682, 1),
    ("forza4x4", "Dario"): (1708.238862, 1),
    ("circular-reasoning", "Pia"): (1506.896512, 2),
    ("circular-reasoning", "Quinn"): (1508.551744, 2),
    ("circular-reasoning", "Rosa"): (1484.551744, 2),
    ("connect4", "Anna"): (1516.0, 1),  # shown as the records spell her most
    ("connect4", "Bruno"): (1484.0, 1),
}


def hand_records() -> list[str]:
    cup = {"Event": "Winter Cup"}
    decisive = {"Termination": "resignation"}
    return [
        record(
            "forza4x4",
            {**cup, "Date": "2024.01.01", "Player1": "Anna", "Player2": "Bruno", "Result": "1-0", **decisive},
            "t4",
        ),
        record(
            "forza4x4",
            {**cup, "Date": "2024.01.02", "Player1": "BRUNO", "Player2": "Carla", "Result": "1/2-1/2", "Termination": "agreement"},
            "t4 t5",
        ),
        record(
            "forza4x4",
            {**cup, "Date": "2024.01.03", "Player1": "Anna", "Player2": "Dario", "Player2Elo": "1700", "Result": "0-1", **decisive},
            "t4 t6",
        ),
        record(
            "forza4x4",
            {**cup, "Date": "????.??.??", "Player1": "ANNA", "Player2": "Bruno", "Result": "*"},
            "t4 t4 t4",
        ),
        three_sided(
            {"Event": "Triangle", "Date": "2024.02.01", "Player1": "Pia", "Player2": "Quinn", "Player3": "Rosa", "Result": "1-0-0"}
        ),
        three_sided(
            {"Event": "Triangle", "Date": "2024.02.02", "Player1": "Pia", "Player2": "Quinn", "Player3": "Rosa", "Result": "0-1-0"}
        ),
        record(
            "connect4",
            {"Date": "2024.03.01", "Player1": "anna", "Player2": "Bruno", "Result": "1-0", **decisive},
            "t4",
        ),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def hand_db(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("players")
    texts = hand_records()
    for text in texts:
        [one] = read_records(text)
        assert replay(one).valid, text
    (folder / "hand.pgr").write_text("\n".join(texts), encoding="utf-8")
    target = folder / "hand.db"
    with archive(target) as opened:
        assert import_paths(opened, [folder / "hand.pgr"]).imported == len(texts)
    return target


@pytest.fixture(scope="module")
def examples_db(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("players") / "examples.db"
    with archive(target) as opened:
        import_paths(opened, [EXAMPLES])
    return target


def test_the_rating_table_of_the_hand_computed_example(hand_db, runner):
    outcome = runner.invoke(app, ["players", "--db", str(hand_db), "--json"])
    assert outcome.exit_code == 0, outcome.output
    rows = json.loads(outcome.stdout)
    ratings = {
        (row["game"], row["name"]): (row["rating"]["rating"], row["rating"]["games"])
        for row in rows
    }
    assert ratings.keys() == HAND_RATINGS.keys()
    for key, (rating, games) in HAND_RATINGS.items():
        assert ratings[key][0] == pytest.approx(rating, abs=0.05), key
        assert ratings[key][1] == games, key
    # Each game's rows by rating, highest first.
    forza = [row["name"] for row in rows if row["game"] == "forza4x4"]
    assert forza == ["Dario", "Anna", "Carla", "Bruno"]
    peak = {row["name"]: row["rating"]["peak"] for row in rows if row["game"] == "forza4x4"}
    assert peak["Anna"] == pytest.approx(1516.0) and peak["Dario"] == pytest.approx(
        1708.2, abs=0.05
    )


def test_elo_by_hand_on_the_library_function():
    # Two players at 1500 and 1900: E(low) = 1 / (1 + 10^(400/400)) = 1/11.
    assert expected_score(1500, 1900) == pytest.approx(1 / 11)
    # The low one wins: 1500 + 32 * (1 - 1/11) = 1529.090909, 1900 - 29.090909.
    ratings = elo_ratings([RatedGame(["low", "high"], [1.0, 0.0], [None, 1900.0])])
    assert ratings["low"].rating == pytest.approx(1529.090909)
    assert ratings["high"].rating == pytest.approx(1870.909091)
    # Four sides, K / 3 per pair, all at 1500: 1/2-1/2-0-0, the two who shared the
    # win draw each other and beat both losers: +2 * 32/3 * 0.5 = +10.666667 each.
    four = elo_ratings([RatedGame("abcd", [0.5, 0.5, 0.0, 0.0], [None] * 4)])
    assert [round(four[p].rating, 4) for p in "abcd"] == [
        1510.6667,
        1510.6667,
        1489.3333,
        1489.3333,
    ]


def test_statistics_by_seat_score_and_dates(hand_db):
    with archive(hand_db, readonly=True) as opened:
        rows = {(row.game, row.name): row.as_dict() for row in player_stats(opened)}
    anna = rows["forza4x4", "Anna"]  # "ANNA" in game 4: the same player, shown as usually spelled
    assert anna["games"] == 3
    assert anna["seats"] == {"1": {"games": 3, "won": 1, "drawn": 0, "lost": 1, "unfinished": 1}}
    assert (anna["points"], anna["decided"], anna["score"]) == (1.0, 2, 0.5)
    assert (anna["first_date"], anna["last_date"]) == ("2024.01.01", "2024.01.03")
    bruno = rows["forza4x4", "Bruno"]
    assert bruno["seats"] == {
        "1": {"games": 1, "won": 0, "drawn": 1, "lost": 0, "unfinished": 0},
        "2": {"games": 2, "won": 0, "drawn": 0, "lost": 1, "unfinished": 1},
    }
    assert (bruno["points"], bruno["decided"]) == (0.5, 2)
    quinn = rows["circular-reasoning", "Quinn"]
    assert quinn["seats"] == {"2": {"games": 2, "won": 1, "drawn": 0, "lost": 1, "unfinished": 0}}
    assert rows["connect4", "Anna"]["games"] == 1  # another game: another row


def test_names_match_without_case_or_accents_and_repeated_player_is_or(examples_db, runner):
    outcome = runner.invoke(
        app,
        ["players", "--db", str(examples_db), "--player", "ZOE", "--player", "TAKAHASHI", "--json"],
    )
    assert outcome.exit_code == 0, outcome.output
    names = {row["name"] for row in json.loads(outcome.stdout)}
    assert names == {"Zoë Müller", "Jun Takahashi"}
    with archive(examples_db, readonly=True) as opened:
        assert {row.name for row in player_stats(opened, names=["muller"])} == {"Zoë Müller"}


def test_a_head_to_head(hand_db, runner):
    outcome = runner.invoke(
        app, ["players", "--db", str(hand_db), "--player", "anna", "--vs", "BRUNO", "--json"]
    )
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(outcome.stdout) == [
        {
            "player": "Anna", "opponent": "Bruno", "game": "connect4", "games": 1, "won": 1,
            "drawn": 0, "lost": 0, "unfinished": 0, "points": 1.0, "score": 1.0,
            "first_date": "2024.03.01", "last_date": "2024.03.01", "ids": [7],
        },
        {
            "player": "Anna", "opponent": "Bruno", "game": "forza4x4", "games": 2, "won": 1,
            "drawn": 0, "lost": 0, "unfinished": 1, "points": 1.0, "score": 1.0,
            "first_date": "2024.01.01", "last_date": "2024.01.01", "ids": [1, 4],
        },
    ]  # fmt: skip
    with archive(hand_db, readonly=True) as opened:
        [pair] = head_to_head(opened, "quinn", "rosa")  # a pair of seats of 3-sided games
    assert (pair.won, pair.drawn, pair.lost, float(pair.points)) == (1, 1, 0, 1.5)
    text = runner.invoke(app, ["players", "--db", str(hand_db), "--player", "pia", "--vs", "rosa"])
    assert "circular-reasoning: 2 games, +1 =1 -0, 1.5 points (75%)" in text.output


def test_a_crosstable(hand_db, runner):
    outcome = runner.invoke(
        app, ["players", "--db", str(hand_db), "--event", "winter", "--crosstable", "--json"]
    )
    assert outcome.exit_code == 0, outcome.output
    [table] = json.loads(outcome.stdout)
    assert (table["event"], table["game"]) == ("Winter Cup", "forza4x4")
    # Points first, then fewer games: Dario 1/1, Anna 1/2, Carla 1/2 in 1, Bruno 1/2 in 2.
    assert [(p["rank"], p["name"], p["points"], p["games"]) for p in table["players"]] == [
        (1, "Dario", 1.0, 1),
        (2, "Anna", 1.0, 2),
        (3, "Carla", 0.5, 1),
        (4, "Bruno", 0.5, 2),
    ]
    assert [p["results"] for p in table["players"]] == [
        [None, "1", "", ""],
        ["0", None, "", "1"],
        ["", "", None, "½"],
        ["", "0", "½", None],
    ]
    with archive(hand_db, readonly=True) as opened:
        [triangle] = crosstables(opened, event="triangle")
    assert [(p["name"], p["points"]) for p in triangle.players] == [
        ("Pia", 2.5), ("Quinn", 2.5), ("Rosa", 1.0),
    ]  # fmt: skip
    text = runner.invoke(
        app, ["players", "--db", str(hand_db), "--event", "winter", "--crosstable"]
    )
    assert text.exit_code == 0 and "Winter Cup (forza4x4)" in text.output


@pytest.mark.parametrize("game", GAMES)
def test_every_games_examples_count_each_seat_once(game, examples_db, runner):
    outcome = runner.invoke(app, ["players", "--db", str(examples_db), "--game", game, "--json"])
    assert outcome.exit_code == 0, outcome.output
    rows = json.loads(outcome.stdout)
    assert rows and {row["game"] for row in rows} == {game}
    with sqlite3.connect(examples_db) as conn:
        seats = conn.execute(
            "SELECT sum(sides) FROM games WHERE game = ? AND player1 IS NOT NULL "
            "AND player2 IS NOT NULL AND (sides < 3 OR player3 IS NOT NULL) "
            "AND (sides < 4 OR player4 IS NOT NULL)",
            (game,),
        ).fetchone()[0]
        rated = conn.execute(
            "SELECT count(*) FROM games WHERE game = ? AND status = 'valid' "
            "AND date_min IS NOT NULL AND result != '*' AND player1 IS NOT NULL",
            (game,),
        ).fetchone()[0]
    assert sum(row["games"] for row in rows) == seats
    for row in rows:
        assert sum(seat["games"] for seat in row["seats"].values()) == row["games"]
        assert row["decided"] <= row["games"]
    assert (rated > 0) == any(row["rating"] for row in rows)


def test_players_mistakes(hand_db, runner):
    cases = [
        (["--vs", "bruno"], "a head-to-head needs one --player NAME"),
        (["--player", "a", "--player", "b", "--vs", "c"], "a head-to-head needs one --player"),
        (["--crosstable"], "name the event: --event NAME"),
    ]
    for args, message in cases:
        outcome = runner.invoke(app, ["players", "--db", str(hand_db), *args])
        assert outcome.exit_code == 2 and message in outcome.output, outcome.output
    with (
        pytest.raises(ArchiveError, match=r"--vs 'r' names 4 players \(Bruno, Carla, Dario"),
        archive(hand_db, readonly=True) as opened,
    ):
        head_to_head(opened, "pia", "r")
    with (
        pytest.raises(ArchiveError, match="--player 'nobody': no player of the selected games"),
        archive(hand_db, readonly=True) as opened,
    ):
        head_to_head(opened, "nobody", "pia")


def test_fold_name():
    assert fold_name("Zoë  MÜLLER") == "zoe muller"
    assert fold_name("Ŀuka Ñúñez") == fold_name("ŀuka nunez")
    assert fold_name("ﬁona") == "fiona"  # a compatibility ligature


@given(st.text())
def test_folding_is_idempotent_and_ignores_the_composition(name):
    folded = fold_name(name)
    assert fold_name(folded) == folded
    assert fold_name(unicodedata.normalize("NFD", name)) == folded
    assert fold_name(unicodedata.normalize("NFC", name)) == folded
