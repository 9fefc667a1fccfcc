"""Forceball turn summaries (the rules' account of a turn) and the report section
built on them. Every expected value is worked out by hand from the table of
``tests/forceball_table.py`` or read off the shipped examples' results."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from forceball_table import GAMES, table

from partita.bulk import import_paths
from partita.database.schema import archive as opened_archive
from partita.database.schema import open_archive
from partita.game.registry import get_game
from partita.game.rules import parse_result_token
from partita.games.forceball.report import forceball_section, forceball_statistics
from partita.notation.reader import read_records

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "forceball"


def summary(state, token, league="senior"):
    game = GAMES[league]
    return game.rules.summarize(state, game.parse_move(state, token))


def test_an_unanswered_shot_is_a_goal_for_the_attacker():
    # Player2 defends against Player1's Shot s1 and does not answer.
    state = table("senior", next="2", hand2="b1", pile1="s1", draw="s2")
    turn = summary(state, "/")
    assert (turn.seat, turn.attacker, turn.maneuver) == (1, 0, None)
    assert (turn.attack_won_by, turn.won_with, turn.ended_by) == (0, "Shot", "no answer")
    assert turn.points == (1, 0) and not turn.stakes_declined


def test_a_maneuver_that_stands_wins_nothing_yet():
    state = table("senior", hand1="p1", speed1="d1", draw="s1")
    turn = summary(state, "@p1")
    assert turn.maneuver == "Pass" and not turn.foul
    assert turn.attack_won_by is None and turn.won_with is None and turn.points == (0, 0)


def test_a_combo_card_counts_as_the_players_side_of_it():
    attacker = table("senior", hand1="st", speed1="d1,d2", draw="s1")
    assert summary(attacker, "@st").maneuver == "Shot"
    defender = table("senior", next="2", hand2="st", speed2="t1,t2", pile1="p1", draw="s1")
    assert summary(defender, "@st").maneuver == "Tackle"


def test_a_seen_foul_gives_the_attack_to_the_opponents_last_maneuver():
    # Player2 fouls (s1 declared a Block); the referee reveals rf (a Referee card):
    # Player1's Dribble d1 wins, and Player1 takes the Dribble reward.
    state = table("senior", next="2", hand2="s1,b1", speed2="t1,t2", pile1="d1", draw="s2,s3,rf")
    turn = summary(state, "@s1=B^1:rf/>s3,s2")
    assert turn.foul and turn.foul_seen and turn.maneuver == "Block"
    assert (turn.attack_won_by, turn.won_with, turn.ended_by) == (0, "Dribble", "foul seen")


def test_a_stress_card_ends_the_turn_and_a_goalie_turns_the_block():
    state = table("senior", hand1="p1", hand2="gk", pile1="p2", pile2="b2", speed1="d1", draw="sx")
    turn = summary(state, ">/|gk")
    assert (turn.attack_won_by, turn.ended_by) == (1, "stress")
    assert (turn.won_with, turn.special) == ("Interception", "Goalie")
    assert turn.points == (0, 0)


def test_a_declined_doubling_scores_without_a_won_attack():
    # pro: Player1 asks for a doubling, Player2 declines: Player1 scores the worth (1).
    state = table("pro", hand1="p1", speed1="d1", draw="s1")
    turn = summary(state, "*n", league="pro")
    assert turn.stakes_declined and turn.points == (1, 0)
    assert turn.attack_won_by is None


def test_shuffles_and_illegal_turns_have_no_summary():
    game = GAMES["senior"]
    start = game.rules.initial()
    shuffle = game.rules.sample_move(start, random.Random(1))
    assert game.rules.summarize(start, shuffle) is None
    state = table("senior", hand1="p1", speed1="d1", draw="s1")
    assert summary(state, "@p1") is not None
    assert game.rules.summarize(state, game.move("@s3")) is None  # not in the hand


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    db = tmp_path_factory.mktemp("forceball-report") / "fb.db"
    with opened_archive(db) as opened:
        import_paths(opened, [EXAMPLES])
    return db


def test_points_over_the_examples_add_up_to_their_final_scores(archive):
    """Goals plus declined doublings per seat decide the game as its result says."""
    db = open_archive(archive, create=False)
    try:
        for path in sorted(EXAMPLES.glob("*.pgr")):
            [record] = list(read_records(path))
            [(game_id,)] = db.execute(
                "SELECT id FROM games WHERE json_extract(tags, '$.League') = ?",
                (record.tags["League"],),
            ).fetchall()
            notation = get_game("forceball").configure(record.tags)
            stats = forceball_statistics(db, notation, [game_id])
            assert stats.games == 1
            points = [0, 0]
            for table_ in (stats.goals, stats.declined_points):
                for per_seat in table_.values():
                    points = [points[0] + per_seat[0], points[1] + per_seat[1]]
            scores = parse_result_token(record.tags["Result"], 2)
            if points[0] != points[1]:
                assert (points[0] > points[1]) == (scores[0] > scores[1])
            else:
                assert scores[0] == scores[1]
            won = sum(stats.won.values())
            assert won == stats.attacks > 0
            if record.tags["League"] in ("little", "junior"):
                assert stats.fouls == stats.specials.total() == stats.stress == 0
            if record.tags["League"] != "pro":
                assert stats.doublings_accepted == stats.doublings_declined == 0
            section = forceball_section(db, notation, [game_id])
            assert section is not None and section.tables and section.charts
    finally:
        db.close()


def test_a_report_over_random_forceball_games_builds(tmp_path):
    # Random play returns to a position it stood on a few plies before: its moves
    # are listed where it was first reached, not expanded a second time (which
    # once failed with a KeyError from the tree, and with it the report).
    from partita.analysis.report import ReportOptions, build_report
    from partita.analysis.selfplay import simulate
    from partita.analysis.tree import tree_from_archive

    db = tmp_path / "random.db"
    with opened_archive(db) as opened:
        simulate(get_game("forceball"), 10, ["random"], db=opened, seed=1)
    with opened_archive(db, readonly=True) as opened:
        tree = tree_from_archive(opened, "forceball", depth=8)
    assert tree.games == 10 and tree.moves()
    with opened_archive(db, readonly=True) as opened:
        data = build_report(opened, options=ReportOptions(depth=8, charts=False))
    [part] = data["games"]
    assert part["tree"] and part["valid"] == 10
