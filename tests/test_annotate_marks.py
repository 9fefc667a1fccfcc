"""Honest marks: a move is judged inside the search of the position before it, each
value says where it comes from and how sure it is, the search tree follows the
game, and `partita annotate` annotates every record of a file, all or none."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from budget import examples
from cli_runner import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from partita.analysis.annotate import (
    BLUNDER,
    MISTAKE,
    Judgement,
    annotate_record,
    interval,
    mixed_visits,
    parse_eval_comment,
    parse_evalsrc_comment,
    verify_visits,
)
from partita.analysis.solving import solver_for
from partita.errors import BudgetExceeded
from partita.game.registry import get_game
from partita.notation.reader import parse_record, read_records
from partita.notation.scoresheet import Scoresheet
from partita.notation.writer import write_record

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# o's three on row 8 of Forza 4x4: r8 (or t4) lands on the open cell; t5 leaves it.
FORZA_THREAT = ("forza4x4", "x6x/8/8/x7/8/8/8/ooo5 x", "t5", "r8")
# o's three on the bottom row of Connect Four: x must block t4; t7 leaves it open.
CONNECT4_THREAT = ("connect4", "7/7/7/7/4x2/ooo1xx1 x", "t7", "t4")


def setup_record(game: str, position: str, moves: str):
    return parse_record(
        f'[Game "{game}"]\n[Player1 "Ada"]\n[Player2 "Bea"]\n[Result "*"]\n'
        f'[SetUp "1"]\n[Position "{position}"]\n\n{moves} *\n'
    )


def random_game(name: str, seed: int, plies: int):
    """A record of ``plies`` random moves (fewer if the game ends) from the start."""
    game = get_game(name)
    rules = game.rules
    rng = random.Random(seed)
    sheet = Scoresheet(game, ["Ada", "Bea"], date="2026.01.01")
    while len(sheet.plies) < plies and rules.outcome(sheet.state) is None:
        sheet.play_move(rng.choice(list(rules.legal_moves(sheet.state))))
    return sheet.record()


# -- the intervals -------------------------------------------------------------------------------


@settings(max_examples=examples(200, fast=50), deadline=None)
@given(st.floats(0, 1), st.integers(1, 100_000))
def test_an_interval_holds_its_mean_and_narrows_with_playouts(mean, visits):
    low, high = interval(mean, visits)
    assert 0.0 <= low <= mean + 1e-9 and mean - 1e-9 <= high <= 1.0
    wider_low, wider_high = interval(mean, max(visits // 4, 1))
    assert wider_high - wider_low >= high - low - 1e-9


def test_an_interval_without_playouts_is_everything():
    assert interval(0.7, 0) == (0.0, 1.0)
    low, high = interval(0.5, 1000)
    assert 0.45 < low < 0.5 < high < 0.55


# -- (a) no mark without the evidence -------------------------------------------------------------


@settings(max_examples=examples(12, fast=4), deadline=None)
@given(st.sampled_from(["connect4", "forza4x4"]), st.integers(0, 10_000))
def test_no_mark_where_the_played_move_is_the_best_or_within_its_interval(name, seed):
    record = random_game(name, seed, 10)
    annotation = annotate_record(record, agent="mcts:48", seed=seed, exact=False)
    assert annotation.plies
    for ply in annotation.plies:
        judgement = ply.judgement
        if ply.nag:
            # Marked: the search's best is another move, more than the threshold
            # better, and the two intervals are apart.
            assert judgement is not None and judgement.best != ply.move
            assert judgement.separated and judgement.drop > MISTAKE
            sure = judgement.best_interval[0] - judgement.played_interval[1]
            assert sure > MISTAKE and judgement.drop >= sure
            assert (ply.nag == "??") == (sure > BLUNDER)
        if judgement is not None and (
            judgement.best == ply.move or judgement.played_interval[1] >= judgement.best_interval[0]
        ):
            assert ply.nag == ""
        if (
            judgement is not None
            and judgement.basis == "mixed"
            and judgement.sure_drop > MISTAKE
            and not judgement.carries
        ):
            # A mark left out because the searched value sits on the wrong side of
            # even: that value stands on as many playouts as the root had.
            searched = judgement.played_visits if judgement.best_exact else judgement.best_visits
            assert searched >= mixed_visits(ply.valuation_before.visits)


# -- (b) exact: a win thrown away -------------------------------------------------------------------


def test_a_solved_win_thrown_away_is_double_question_marked_and_labelled_exact():
    game_name, position, bad, good = CONNECT4_THREAT
    record = setup_record(game_name, position, bad)
    (ply,) = annotate_record(record, agent="mcts:64").plies
    assert (ply.value_before, ply.value_after, ply.nag) == ("win", "loss", "??")
    assert ply.drop == 1.0 and ply.judgement is None
    assert ply.valuation_before.source == "exact" and ply.valuation_before.exact
    assert ply.valuation_after.exact
    node = record.root.children[0]
    assert node.suffix == "??"
    (evaluation, better) = node.comments
    assert parse_evalsrc_comment(evaluation) == {"source": "exact"}
    assert better.startswith(f"{good} wins in ")


# -- (c) a bad move in a searched position ----------------------------------------------------------


def test_a_bad_move_in_a_searched_position_is_marked_when_the_intervals_separate():
    game_name, position, bad, good = FORZA_THREAT
    for seed in range(3):
        record = setup_record(game_name, position, bad)
        (ply,) = annotate_record(record, agent="mcts:200", seed=seed, exact=False).plies
        judgement = ply.judgement
        assert judgement is not None and judgement.separated
        assert ply.nag == "??" and judgement.best != bad
        assert ply.valuation_before.source == "search" and not ply.valuation_before.exact
        assert judgement.played_value == 0.0  # the reply wins at once: proven
        assert judgement.best_visits >= 50
        kept = annotate_record(setup_record(game_name, position, good), agent="mcts:200", seed=seed)
        assert kept.plies[0].nag == ""


def test_without_evidence_there_is_no_mark():
    # greedy values each move by the heuristic, one sample a move: its intervals
    # cover nearly everything. The open threat loses at once (the played move's
    # value is exact), but the better move's value is too unsure to carry a mark.
    game_name, position, bad, _ = FORZA_THREAT
    (ply,) = annotate_record(
        setup_record(game_name, position, bad), agent="greedy", exact=False
    ).plies
    judgement = ply.judgement
    assert judgement is not None and judgement.best_visits == 1
    assert judgement.best_interval[1] - judgement.best_interval[0] > 0.8
    assert judgement.played_interval == (0.0, 0.0) and judgement.drop > BLUNDER
    assert judgement.sure_drop < MISTAKE and ply.nag == ""


# -- (d) the JSON says exact or searched, with the budget, for every ply ---------------------------


def test_the_json_says_for_every_ply_where_its_values_come_from(tmp_path):
    source = tmp_path / "game.pgr"
    source.write_text(write_record(random_game("connect4", 5, 14)), encoding="utf-8")
    # A solver budget of 1 node: nearly every position is searched.
    code, out, err = run_cli(
        ["annotate", str(source), "--agent", "mcts:64", "--budget", "1", "--json"]
    )
    assert code == 0, err
    (line,) = out.splitlines()
    data = json.loads(line)
    assert data["index"] == 0 and data["plies"]
    assert data["start_valuation"]["source"] in ("end", "exact", "search")
    sources = set()
    for ply in data["plies"]:
        for side in ("before", "after"):
            valuation = ply["valuation"][side]
            sources.add(valuation["source"])
            assert valuation["source"] == ply["source"][side]
            assert isinstance(valuation["exact"], bool)
            if valuation["source"] == "search":
                assert valuation["agent"] == "mcts:64"
                assert valuation["visits"] >= 64 or valuation["proven"]
                assert valuation["playouts"] >= 1 or valuation["proven"]
                assert valuation["seconds"] >= 0
                assert valuation["proven"] or len(valuation["interval"]) == 2
            else:
                assert valuation["exact"] is True
    assert "search" in sources


def test_the_record_says_for_every_value_where_it_comes_from():
    record = random_game("forza4x4", 3, 6)
    annotate_record(record, agent="mcts:40", exact=False)
    nodes = [record.root, *record.root.mainline()]
    for node in nodes:
        (comment,) = [text for text in node.comments if text.startswith("[%eval ")]
        assert parse_eval_comment(comment) is not None
        source = parse_evalsrc_comment(comment)
        assert source is not None and source["source"] in ("end", "search")
        if source["source"] == "search":
            assert source["agent"] == "mcts:40" and source["visits"] >= 40
            assert source["proven"] or source["margin"] is not None


# -- (e) every record of a file, written whole or not at all ---------------------------------------


def three_records(broken: bool = False) -> str:
    texts = [write_record(random_game("connect4", seed, 8)) for seed in (1, 2)]
    texts.append(
        '[Game "chess"]\n[Result "*"]\n\n*\n'
        if broken
        else write_record(random_game("forza4x4", 3, 8))
    )
    return "\n".join(texts)


def test_every_record_of_a_file_is_annotated(tmp_path):
    source = tmp_path / "games.pgr"
    source.write_text(three_records(), encoding="utf-8")
    target = tmp_path / "annotated.pgr"
    code, _, err = run_cli(["annotate", str(source), "--agent", "mcts:32", "-o", str(target)])
    assert code == 0, err
    assert err.startswith("3 records: ")
    records = list(read_records(target))
    assert [record.game for record in records] == ["connect4", "connect4", "forza4x4"]
    for record in records:
        for node in record.root.mainline():
            assert any(parse_eval_comment(text) for text in node.comments)
    # --index: that record only; --json: a line a record.
    code, _, err = run_cli(
        ["annotate", str(source), "--agent", "mcts:32", "--index", "2", "-o", str(target)]
    )
    assert code == 0, err
    (only,) = list(read_records(target))
    assert only.game == "forza4x4"
    code, out, err = run_cli(["annotate", str(source), "--agent", "greedy", "--json"])
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(line["index"], line["game"]) for line in lines] == [
        (0, "connect4"),
        (1, "connect4"),
        (2, "forza4x4"),
    ]


def test_a_record_that_cannot_be_annotated_leaves_the_output_as_it_was(tmp_path):
    source = tmp_path / "games.pgr"
    source.write_text(three_records(broken=True), encoding="utf-8")
    target = tmp_path / "annotated.pgr"
    target.write_text("what was there\n", encoding="utf-8")
    code, out, err = run_cli(["annotate", str(source), "--agent", "greedy", "-o", str(target)])
    assert code == 1
    assert "record 2" in err and err.count("\n") == 1 and "Traceback" not in err
    assert target.read_text(encoding="utf-8") == "what was there\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["annotated.pgr", "games.pgr"]
    assert out == ""


# -- (f) the tree follows the game -------------------------------------------------------------------


def test_the_search_tree_is_reused_from_ply_to_ply():
    record = random_game("connect4", 11, 12)
    budget = 200
    annotation = annotate_record(record, agent=f"mcts:{budget}", exact=False)
    searched = [ply for ply in annotation.plies if ply.valuation_before.source == "search"]
    assert len(searched) >= 10
    # Each position reaches the budget with what the one before it left: fewer new
    # playouts than a search from scratch of every position would run.
    assert annotation.reused > 0
    assert annotation.playouts < annotation.searched * budget
    later = searched[1:]
    assert any(ply.valuation_before.reused > 0 for ply in later)
    for ply in later:
        valuation = ply.valuation_before
        assert valuation.proven or valuation.visits >= budget
        assert valuation.proven or valuation.playouts < valuation.visits + budget


# -- (f) a mark is checked before it is put ----------------------------------------------------------

# o's two on the bottom row of Connect Four, both ends open: x must take t2 or t5;
# anything else lets o open a three at both ends (a double threat), a loss by force
# two moves deep, not at once.
CONNECT4_DOUBLE_THREAT = ("connect4", "7/7/7/7/2xx3/2oo3 x", "t3", ("t2", "t5"))


def loses_in_two(game, state, move) -> bool:
    """Whether after ``move`` the opponent has a reply after which every answer
    lets it win at once."""
    rules = game.rules
    after = rules.apply(state, game.parse_move(state, move))
    opponent = rules.side_to_move(after)

    def wins_at_once(position) -> bool:
        return any(
            (outcome := rules.outcome(rules.apply(position, reply))) is not None
            and outcome.winner == opponent
            for reply in rules.legal_moves(position)
        )

    return any(
        rules.outcome(threat := rules.apply(after, reply)) is None
        and all(wins_at_once(rules.apply(threat, answer)) for answer in rules.legal_moves(threat))
        for reply in rules.legal_moves(after)
    )


def test_a_move_that_loses_by_force_gets_double_question_marks_from_search_alone():
    game_name, position, bad, holds = CONNECT4_DOUBLE_THREAT
    game = get_game(game_name)
    state = game.parse_position(position)
    assert loses_in_two(game, state, bad)  # the premise, from the rules alone
    assert not any(loses_in_two(game, state, move) for move in holds)
    # And from the solver: the moves that hold draw, every other loses; the mark
    # is true (a draw thrown into a loss). A drawn move's searched mean still
    # climbs with its playouts (about 0.37 over 50, 0.52 over 200), so before the
    # search leaves the mark out for want of an even reading it searches it more.
    solution = solver_for(game).solve(state)
    assert solution.value == "draw"
    scores = {game.format_move(state, item.move): item.score for item in solution.moves}
    assert {move for move, score in scores.items() if score == 0} == set(holds)
    assert scores[bad] < 0
    budget = 200
    for seed in range(6):
        record = setup_record(game_name, position, bad)
        (ply,) = annotate_record(record, agent=f"mcts:{budget}", seed=seed, exact=False).plies
        judgement = ply.judgement
        assert ply.nag == "??" and judgement is not None and judgement.carries
        # The played move's loss is proven by the search; the better move was
        # searched further before the mark was put.
        assert judgement.played_exact and judgement.played_value == 0.0
        assert judgement.best_visits >= verify_visits(budget)
        assert judgement.best_value >= 0.5 and judgement.sure_drop > BLUNDER
        # The record says the values were searched, with the budget.
        evaluation = record.root.children[0].comments[0]
        source = parse_evalsrc_comment(evaluation)
        assert source is not None and source["source"] == "search"
        assert source["agent"] == f"mcts:{budget}"
        for move in holds:
            kept = annotate_record(
                setup_record(game_name, position, move),
                agent=f"mcts:{budget}",
                seed=seed,
                exact=False,
            )
            assert kept.plies[0].nag == ""


def opening(name: str, file: str, plies: int):
    """The first ``plies`` moves of the first game of a shipped example."""
    record = next(iter(read_records(EXAMPLES / name / file)))
    nodes = list(record.root.mainline())
    nodes[plies - 1].children = []
    record.result = record.tags["Result"] = "*"
    return record


@pytest.mark.parametrize(
    ("name", "file"), [("forza4x4", "casual-evening.pgr"), ("connect4", "thursday-league.pgr")]
)
@pytest.mark.parametrize("budget", [48, 200])
def test_ordinary_opening_moves_get_no_mark_under_a_small_budget(name, file, budget):
    # An opening move can hardly be told from another by a small search: the
    # intervals overlap, so nothing is marked, and each value says how unsure it is.
    for seed in range(2):
        record = opening(name, file, 4)
        annotation = annotate_record(record, agent=f"mcts:{budget}", seed=seed, exact=False)
        assert len(annotation.plies) == 4
        assert annotation.marked == []
        for ply in annotation.plies:
            assert ply.valuation_before.source == "search"
            low, high = ply.valuation_before.interval
            assert high - low > 0.05


def judgement(best: float, played: float, *, best_exact: bool, played_exact: bool):
    def span(value: float, exact: bool) -> tuple[float, float]:
        return (value, value) if exact else interval(value, 400)

    return Judgement(
        "t4",
        best,
        span(best, best_exact),
        400,
        played,
        span(played, played_exact),
        400,
        best_exact,
        played_exact,
    )


def test_a_searched_value_against_an_exact_one_marks_only_across_an_even_score():
    # A move proven lost against one the search finds below even: the position may
    # be lost whatever is played (a lost position reads about 0.4 to a search).
    lost_anyway = judgement(0.42, 0.0, best_exact=False, played_exact=True)
    assert lost_anyway.basis == "mixed" and lost_anyway.sure_drop > MISTAKE
    assert not lost_anyway.carries
    thrown = judgement(0.58, 0.0, best_exact=False, played_exact=True)
    assert thrown.carries
    # A proven win missed for a move the search finds above even: it may win too.
    slower_win = judgement(1.0, 0.62, best_exact=True, played_exact=False)
    assert slower_win.sure_drop > MISTAKE and not slower_win.carries
    assert judgement(1.0, 0.3, best_exact=True, played_exact=False).carries
    # The same footing carries a mark wherever the intervals are apart.
    assert judgement(0.8, 0.4, best_exact=False, played_exact=False).basis == "search"
    assert judgement(1.0, 0.5, best_exact=True, played_exact=True).carries


class OutOfReach:
    """A solver whose budget does not reach one position (every other it solves)."""

    def __init__(self, game, state) -> None:
        self.inner = solver_for(game)
        self.rules = self.inner.rules
        self.state = state

    def solve(self, state, **budget):
        if state == self.state:
            raise BudgetExceeded("the budget ran out")
        return self.inner.solve(state, **budget)


# x wins with t3 (at once on the diagonal), and more slowly with t1, t2, t5, t6, t7;
# t4 loses.
LATE_CONNECT4 = ("connect4", "7/7/7/xox3o/oxx1o1x/oxxooxo x")


@pytest.mark.parametrize(("move", "nag"), [("t4", "??"), ("t5", "")])
def test_the_solver_settles_a_mark_the_search_would_put(move, nag):
    # The position before is beyond the solver's budget, the positions after the
    # moves are not: a mark the search would put stands on their exact values. A
    # slower win is no mistake; a win thrown into a loss is a blunder.
    game_name, position = LATE_CONNECT4
    game = get_game(game_name)
    solver = OutOfReach(game, game.parse_position(position))
    for seed in range(2):
        record = setup_record(game_name, position, move)
        (ply,) = annotate_record(record, agent="mcts:200", seed=seed, solver=solver).plies
        assert ply.source_before == "search" and ply.source_after == "exact"
        assert ply.nag == nag
        if nag:
            assert ply.judgement is not None and ply.judgement.basis == "exact"
            assert ply.judgement.best == "t3" and ply.comment == "t3 was better: 1.00"
