"""The agents behind a balance: scores, head-to-heads, the first seat's advantage by
skill (restricted play), and the warnings when the agents are too weak."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from partita.analysis.agent_strength import AgentFigures, agent_rank, agents_of
from partita.analysis.balance import balance
from partita.analysis.selfplay import simulate
from partita.database.schema import archive
from partita.game.registry import get_game

WIN, DRAW, LOSS = Fraction(1), Fraction(1, 2), Fraction(0)


def test_agents_are_read_from_the_player_tags_and_ranked_by_skill():
    assert agents_of({"Player1": "mcts:200", "Player2": "greedy"}, 2) == ["mcts:200", "greedy"]
    assert agents_of({"Player1": "mcts:200", "Player2": "Zoë"}, 2) is None  # a person played
    assert agents_of({"Player1": "random"}, 2) is None
    ranked = sorted(["mcts:2s", "mcts:500", "greedy", "mcts:20", "random"], key=agent_rank)
    assert ranked == ["random", "greedy", "mcts:20", "mcts:500", "mcts:2s"]


def test_scores_head_to_heads_and_a_search_that_does_not_beat_greedy():
    figures = AgentFigures(3)
    # mcts:50 wins 2 of 4 three-sided games against greedy and random
    results = [(WIN, LOSS, LOSS), (LOSS, WIN, LOSS), (WIN, LOSS, LOSS), (LOSS, LOSS, WIN)]
    for scores in results:
        figures.add(["mcts:50", "greedy", "random"], scores)
    mcts = figures.agents["mcts:50"]
    assert mcts.seats == 4 and mcts.score == 0.5
    # ahead of greedy in games 1 and 3, level in 4 (both lost), behind in 2
    score, low, high, pairs = mcts.against("greedy")
    assert (score, pairs) == (2.5 / 4, 4) and low < 0.5 < high
    assert figures.agents["greedy"].against("mcts:50")[0] == 1.5 / 4
    warnings = figures.warnings()
    assert len(warnings) == 1 and "mcts:50 does not clearly beat greedy" in warnings[0]
    for _ in range(40):  # more of the same wins make it clear
        figures.add(["mcts:50", "greedy", "random"], (WIN, LOSS, LOSS))
    assert figures.warnings() == []
    assert figures.as_dict()["agents"][-1]["versus"]["greedy"]["pairs"] == 44


def test_weak_agents_only_and_an_unmeasured_search_are_warned_about():
    weak = AgentFigures(2)
    weak.add(["greedy", "random"], (WIN, LOSS))
    assert weak.warnings() == [
        "only random and greedy played: the figures describe weak play, not the game under "
        "good play"
    ]
    alone = AgentFigures(2)
    alone.add(["mcts:100", "mcts:100"], (WIN, LOSS))
    assert "mcts:100 never met greedy" in alone.warnings()[0]
    assert AgentFigures(2).warnings() == []


def test_the_first_seats_advantage_by_skill():
    figures = AgentFigures(2)
    for index in range(100):  # weak: the first seat wins half; strong: 90 of 100
        figures.add(["random", "random"], (WIN, LOSS) if index % 2 else (LOSS, WIN))
        figures.add(["mcts:500", "mcts:500"], (WIN, LOSS) if index % 10 else (LOSS, WIN))
    figures.add(["mcts:500", "random"], (WIN, LOSS))  # a mixed game is no level
    assert [level.games for level in figures.ranked_levels()] == [100, 100]
    weak, strong, change, low, high = figures.trend()
    assert (weak.agent, strong.agent) == ("random", "mcts:500")
    assert change == pytest.approx(0.4) and 0 < low < change < high
    assert "grows with skill" in figures.describe()[-2]
    assert figures.as_dict()["trend"]["significant"] is True


def test_the_balance_names_the_agents_of_simulated_games(tmp_path):
    db = tmp_path / "games.db"
    with archive(db) as opened:
        simulate(get_game("forza4x4"), 12, ["greedy", "random"], rotate=True, seed=4, db=opened)
    with archive(db, readonly=True) as opened:
        (entry,) = balance(opened)
    assert entry.agents is not None and entry.agents.games == 12
    data = entry.as_dict()["agents"]
    assert [agent["agent"] for agent in data["agents"]] == ["random", "greedy"]
    assert data["agents"][1]["seats"] == 12
    assert data["warnings"][0].startswith("only random and greedy played")


def test_balance_strengths_plays_the_levels_and_reports_on_them(tmp_path):
    from test_cli import partita

    db = str(tmp_path / "ladder.db")
    arguments = ["balance", "--db", db, "--game", "forza4x4", "--games", "6", "--workers", "1"]
    code, out, err = partita(*arguments, "--strengths", "random,mcts:5", "--json")
    assert code == 0, err
    (entry,) = json.loads(out)
    assert entry["games"] == 18  # random and mcts:5 in every seat, mcts:5 against greedy
    agents = entry["agents"]
    assert [level["agent"] for level in agents["levels"]] == ["random", "mcts:5"]
    assert agents["trend"]["from"] == "random" and agents["trend"]["to"] == "mcts:5"
    assert agents["agents"][-1]["versus"]["greedy"]["pairs"] == 6
    again = partita(*arguments, "--strengths", "random,mcts:5", "--json")
    assert json.loads(again.stdout)[0]["games"] == 18  # a rerun plays nothing more
    code, _, err = partita("balance", "--db", db, "--strengths", "random")
    assert code == 2 and "name one game" in err
