"""Opening trees and novelties against counts worked out by hand.

The small archive (written below, record by record):

    A  t1 t2 t3 t4   1-0      2024.01.01
    B  t3 t2 t1 t4   0-1      2024.02.01   transposes into A after ply 3
    C  t8 t2 t3      1/2-1/2  2023.05.05   t8 is the mirror image of t1
    D  t1 t2 b5      1-0      2024.03.01
    E  t1 t2 t3 t5   *        (no date)
    F  connect4 t1 t4  *                   and G: t7 t4 *, its mirror image

A, B, C, D, E get ids 1..5 in that order (one file, imported in order).
"""

from __future__ import annotations

import json

import networkx as nx
import pytest
from cli_runner import run_cli

from partita.analysis.novelty import novelty_against_archive, novelty_against_file
from partita.analysis.tree import build_tree, lines_from_records, tree_from_archive
from partita.bulk import import_paths
from partita.database.schema import archive as opened_archive
from partita.errors import PartitaError
from partita.notation.reader import parse_record, read_records

FORZA = """
[Game "forza4x4"]
[Event "A"]
[Date "2024.01.01"]
[Player1 "Ann"]
[Player2 "Bob"]
[Result "1-0"]
[Termination "resignation"]

1. t1 t2 2. t3 t4 1-0

[Game "forza4x4"]
[Event "B"]
[Date "2024.02.01"]
[Player1 "Cid"]
[Player2 "Ann"]
[Result "0-1"]
[Termination "resignation"]

1. t3 t2 2. t1 t4 0-1

[Game "forza4x4"]
[Event "C"]
[Date "2023.05.05"]
[Player1 "Bob"]
[Player2 "Cid"]
[Result "1/2-1/2"]
[Termination "agreement"]

1. t8 t2 2. t3 1/2-1/2

[Game "forza4x4"]
[Event "D"]
[Date "2024.03.01"]
[Player1 "Ann"]
[Player2 "Cid"]
[Result "1-0"]
[Termination "resignation"]

1. t1 t2 2. b5 1-0

[Game "forza4x4"]
[Event "E"]
[Player1 "Bob"]
[Player2 "Ann"]
[Result "*"]

1. t1 t2 2. t3 t5 *
"""

CONNECT4 = """
[Game "connect4"]
[Event "F"]
[Result "*"]

1. t1 t4 *

[Game "connect4"]
[Event "G"]
[Result "*"]

1. t7 t4 *
"""

# The position after t1 t2 t3 (and after t3 t2 t1): x on row 8, columns 1 and 3,
# o on column 2; o to move.
P3 = "8/8/8/8/8/8/8/xox5 o"
A, B, C, D, E = 1, 2, 3, 4, 5


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tree")
    (folder / "forza.pgr").write_text(FORZA, encoding="utf-8")
    (folder / "connect4.pgr").write_text(CONNECT4, encoding="utf-8")
    db = folder / "tree.db"
    with opened_archive(db) as opened:
        summary = import_paths(opened, [folder / "forza.pgr", folder / "connect4.pgr"])
    assert summary.imported == 7 and summary.invalid == 0
    return db


def moves(tree, node=None) -> dict:
    return {stats.move: stats for stats in tree.moves(node)}


def child(tree, stats_by_move: dict, move: str):
    return stats_by_move[move].child


def test_root_moves_count_games_results_dates_and_examples(archive):
    with opened_archive(archive, readonly=True) as opened:
        tree = tree_from_archive(opened, "forza4x4", depth=4)
    assert tree.games == 5 and tree.node_games() == 5
    first = moves(tree)
    assert sorted(first) == ["t1", "t3", "t8"]
    t1 = first["t1"]
    assert (t1.games, t1.share) == (3, 3 / 5)
    assert t1.mover == 0 and t1.wdl == (2, 0, 0) and t1.unfinished == 1
    assert t1.score == 1.0
    assert (t1.first_date, t1.last_date) == ("2024.01.01", "2024.03.01")
    assert list(t1.examples) == [D, A, E]  # the latest first; E has no date
    assert t1.transpositions == 0
    assert first["t3"].wdl == (0, 0, 1) and first["t3"].score == 0.0
    assert first["t8"].wdl == (0, 1, 0) and first["t8"].score == 0.5


def test_the_transposition_is_counted_on_both_move_orders(archive):
    with opened_archive(archive, readonly=True) as opened:
        tree = tree_from_archive(opened, "forza4x4", depth=4)
    after_t1 = moves(tree, child(tree, moves(tree), "t1"))
    t2 = after_t1["t2"]
    assert (t2.games, t2.share, t2.mover, t2.wdl) == (3, 1.0, 1, (0, 0, 2))
    after_t1_t2 = moves(tree, t2.child)
    assert {move: stats.games for move, stats in after_t1_t2.items()} == {"t3": 2, "b5": 1}
    # P3 is reached by A and E through t1 t2 t3, and by B through t3 t2 t1.
    assert after_t1_t2["t3"].transpositions == 1
    assert tree.position(after_t1_t2["t3"].child) == P3
    after_t3 = moves(tree, child(tree, moves(tree), "t3"))
    after_t3_t2 = moves(tree, after_t3["t2"].child)
    assert after_t3_t2["t1"].games == 1 and after_t3_t2["t1"].transpositions == 2
    assert after_t3_t2["t1"].child == after_t1_t2["t3"].child  # one node
    at_p3 = moves(tree, after_t1_t2["t3"].child)
    assert tree.node_games(after_t1_t2["t3"].child) == 3
    t4 = at_p3["t4"]  # A (o lost) and B (o won)
    assert (t4.games, t4.mover, t4.wdl, t4.score) == (2, 1, (1, 0, 1), 0.5)
    assert list(t4.examples) == [B, A]
    assert at_p3["t5"].games == 1 and at_p3["t5"].unfinished == 1


def test_pruning_keeps_transpositions_through_pruned_lines(archive):
    with opened_archive(archive, readonly=True) as opened:
        tree = tree_from_archive(opened, "forza4x4", depth=4, min_games=2)
    assert sorted(moves(tree)) == ["t1"]
    after_t1_t2 = moves(tree, moves(tree, moves(tree)["t1"].child)["t2"].child)
    assert sorted(after_t1_t2) == ["t3"]
    # B's line (t3 t2 t1) was pruned at its first move, yet it still reached P3.
    assert after_t1_t2["t3"].transpositions == 1
    assert sorted(moves(tree, after_t1_t2["t3"].child)) == ["t4"]


def test_the_symmetric_pair_merges_with_symmetry(archive):
    with opened_archive(archive, readonly=True) as opened:
        tree = tree_from_archive(opened, "forza4x4", depth=2, symmetry=True)
    first = moves(tree)
    # t1 and t8 land on mirror-image corners: one node, one move. From the
    # symmetric empty board a move is named by the smallest code of its images
    # (t1, t8, b1, b8, l1, l8, r1, r8 -> b1; t3 -> b3).
    assert sorted(first) == ["b1", "b3"]
    corner = first["b1"]
    assert corner.games == 4 and corner.share == 4 / 5
    assert corner.wdl == (2, 1, 0) and corner.unfinished == 1
    assert corner.score == pytest.approx(2.5 / 3)
    assert tree.node_games(corner.child) == 4
    with opened_archive(archive, readonly=True) as opened:
        plain = tree_from_archive(opened, "forza4x4", depth=2)
    assert plain.graph.number_of_nodes() > tree.graph.number_of_nodes()


def test_connect_four_folds_the_left_right_mirror(archive):
    with opened_archive(archive, readonly=True) as opened:
        plain = tree_from_archive(opened, "connect4", depth=2)
    assert {move: stats.games for move, stats in moves(plain).items()} == {"t1": 1, "t7": 1}
    with opened_archive(archive, readonly=True) as opened:
        folded = tree_from_archive(opened, "connect4", depth=2, symmetry=True)
    first = moves(folded)
    assert {move: stats.games for move, stats in first.items()} == {"t1": 2}
    assert {move: stats.games for move, stats in moves(folded, first["t1"].child).items()} == {
        "t4": 2
    }


def test_a_tree_from_another_position(archive):
    with opened_archive(archive, readonly=True) as opened:
        tree = tree_from_archive(opened, "forza4x4", root=P3, depth=2)
    assert tree.position() == P3 and tree.node_games() == 3
    assert {move: stats.games for move, stats in moves(tree).items()} == {"t4": 2, "t5": 1}
    # The same from the records, without the archive's position index.
    records = list(read_records(FORZA))
    from_records = build_tree(lines_from_records(records), "forza4x4", root=P3, depth=2)
    assert {move: stats.games for move, stats in moves(from_records).items()} == {
        "t4": 2,
        "t5": 1,
    }


def test_filters_apply(archive):
    with opened_archive(archive, readonly=True) as opened:
        tree = tree_from_archive(opened, "forza4x4", depth=2, player="cid")
    assert tree.games == 3  # B, C, D
    assert {move: stats.games for move, stats in moves(tree).items()} == {
        "t1": 1,
        "t3": 1,
        "t8": 1,
    }


def test_exports(archive, tmp_path):
    with opened_archive(archive, readonly=True) as opened:
        tree = tree_from_archive(opened, "forza4x4", depth=4)
    data = json.loads(tree.to_json())
    assert data["root"] == "8/8/8/8/8/8/8/8 x" and data["games"] == 5
    edge = next(edge for edge in data["edges"] if edge["to"] == P3 and edge["move"] == "t1")
    assert edge["games"] == 1 and edge["transpositions"] == 2 and edge["from"] != P3
    # The networkx graph (built on first use) holds the same tree.
    assert tree.graph.number_of_edges() == tree.move_count == len(data["edges"])
    assert nx.shortest_path_length(tree.graph, tree.root, after_p3(tree)) == 3
    tree.write_graphml(tmp_path / "tree.graphml")
    graph = nx.read_graphml(tmp_path / "tree.graphml")
    assert graph.number_of_edges() == tree.graph.number_of_edges()
    assert graph.nodes[P3]["games"] == 3
    assert tree.to_graphml() == (tmp_path / "tree.graphml").read_text(encoding="utf-8")
    dot = tree.to_dot()
    assert dot.startswith("digraph") and f'"{P3}\\n3 games"' in dot


def after_p3(tree):
    return next(node for node in tree.nodes if tree.position(node) == P3)


def test_bad_arguments_are_errors(archive):
    with pytest.raises(PartitaError), opened_archive(archive, readonly=True) as opened:
        tree_from_archive(opened, "forza4x4", depth=0)
    with pytest.raises(PartitaError), opened_archive(archive, readonly=True) as opened:
        tree_from_archive(opened, "forza4x4", root="8/8 x")
    with pytest.raises(PartitaError), opened_archive(archive, readonly=True) as opened:
        tree_from_archive(opened, "chess")


# -- novelties -------------------------------------------------------------------------------------

NEW_GAME = """[Game "forza4x4"]
[Result "*"]

1. t1 t2 2. t3 t6 *
"""

TRANSPOSING_GAME = """[Game "forza4x4"]
[Result "*"]

1. t3 t2 2. t1 t5 *
"""


def test_novelty_against_the_archive(archive):
    with opened_archive(archive, readonly=True) as opened:
        found = novelty_against_archive(parse_record(NEW_GAME), opened)
    assert (found.ply, found.move_number, found.move) == (4, "2...", "t6")
    assert found.position == P3 and found.reached == 3
    played = {entry.move: entry for entry in found.played}
    assert sorted(played) == ["t4", "t5"]
    assert played["t4"].games == 2 and (played["t4"].won, played["t4"].lost) == (1, 1)
    assert sorted(played["t4"].examples) == [A, B]
    assert found.reference_games == 5


def test_a_transposition_is_no_novelty(archive):
    with opened_archive(archive, readonly=True) as opened:
        found = novelty_against_archive(parse_record(TRANSPOSING_GAME), opened)
    assert found.ply is None and "every position" in found.reason


def test_an_archive_game_is_compared_without_itself(archive, tmp_path):
    from partita.database import get_record

    # A without A: B reaches the same final position (t1 t2 t3 t4 = t3 t2 t1 t4).
    with opened_archive(archive, readonly=True) as opened:
        found = novelty_against_archive(get_record(opened, A), opened, game_id=A)
    assert found.ply is None and found.reference_games == 4
    # D without D: nobody else played b5 after t1 t2.
    with opened_archive(archive, readonly=True) as opened:
        found = novelty_against_archive(get_record(opened, D), opened, game_id=D)
    assert (found.ply, found.move, found.reached) == (3, "b5", 2)


def test_novelty_against_a_file(tmp_path):
    reference = tmp_path / "reference.pgr"
    reference.write_text(FORZA, encoding="utf-8")
    found = novelty_against_file(parse_record(NEW_GAME), reference)
    assert (found.ply, found.move, found.reached) == (4, "t6", 3)


# -- the commands ------------------------------------------------------------------------------------


def test_tree_command(archive, tmp_path):
    outcome = run_cli(
        ["tree", "--db", str(archive), "--game", "forza4x4", "--depth", "4", "--json"]
    )
    assert outcome.code == 0, outcome.stderr
    data = json.loads(outcome.stdout)
    assert {edge["move"]: edge["games"] for edge in data["edges"] if edge["ply"] == 1} == {
        "t1": 3,
        "t3": 1,
        "t8": 1,
    }
    dot = tmp_path / "tree.dot"
    outcome = run_cli(
        ["tree", "--db", str(archive), "--game", "forza4x4", "--symmetry", "--dot", str(dot)],
    )
    assert outcome.code == 0, outcome.stderr
    assert (
        "b1" in outcome.stdout and "80%" in outcome.stdout and dot.read_text().startswith("digraph")
    )


def test_novelty_command(archive, tmp_path):
    game = tmp_path / "new.pgr"
    game.write_text(NEW_GAME, encoding="utf-8")
    outcome = run_cli(["novelty", str(game), "--db", str(archive), "--json"])
    assert outcome.code == 0, outcome.stderr
    assert json.loads(outcome.stdout)["move"] == "t6"
    outcome = run_cli(["novelty", str(D), "--db", str(archive)])
    assert outcome.code == 0, outcome.stderr
    assert "novelty at ply 3: 2. b5" in outcome.stdout


def test_the_quick_symmetry_keys_agree_with_the_engine(archive, monkeypatch):
    import random

    from partita.game.rules import Rules
    from partita.games.gravity.notation import CONNECT4, FORZA4X4
    from partita.games.gravity.rules import GravityRules

    for game in (FORZA4X4, CONNECT4):
        rules = game.rules
        quick = rules.symmetric_keys
        assert type(rules).symmetric_keys is not Rules.symmetric_keys  # the fast one
        chooser = random.Random(5)
        for _ in range(30):
            state = rules.initial()
            for _ in range(chooser.randint(0, 30)):
                legal = list(rules.legal_moves(state))
                if not legal:
                    break
                state = rules.apply(state, chooser.choice(legal))
            expected = tuple(
                rules.key(rules.transform(state, k)) for k in range(rules.symmetry_count)
            )
            assert quick(state) == expected
    # And the folded tree is the same through the engine's own transform.
    with opened_archive(archive, readonly=True) as opened:
        quick_tree = tree_from_archive(opened, "forza4x4", depth=4, symmetry=True).as_dict()
    # The contract's defaults: keys through transform, no packed images.
    monkeypatch.setattr(GravityRules, "symmetric_keys", Rules.symmetric_keys)
    monkeypatch.setattr(GravityRules, "placement_images", Rules.placement_images)
    with opened_archive(archive, readonly=True) as opened:
        slow_tree = tree_from_archive(opened, "forza4x4", depth=4, symmetry=True).as_dict()
    assert quick_tree == slow_tree


def test_the_default_threshold_grows_with_the_selection(archive):
    from partita.analysis.tree import default_min_games

    assert [default_min_games(n) for n in (0, 1, 20_000, 20_001, 100_000)] == [1, 1, 1, 2, 5]
    with opened_archive(archive, readonly=True) as opened:
        assert tree_from_archive(opened, "forza4x4", depth=1).min_games == 1
