"""An opening tree written out: JSON data, Graphviz DOT, GraphML.

Every export names a node by its position notation (of its representative, with
symmetry), so the files mean something without partita.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import BinaryIO

from partita.analysis.tree.value import OpeningTree
from partita.outfiles import replaced_binary_file

__all__ = ["tree_as_dict", "tree_to_dot", "tree_to_graphml", "tree_to_json", "write_graphml"]


def tree_as_dict(tree: OpeningTree) -> dict:
    """The tree as JSON data: its parameters, nodes and edges."""
    name = tree.position
    edges = sorted(
        tree.edges(),
        key=lambda stats: (stats.ply, -stats.games, name(stats.parent), stats.move),
    )
    return {
        "game": tree.game.name,
        "configuration": (
            None
            if tree.configuration is None
            else {"sides": tree.configuration.sides, **tree.configuration.tags()}
        ),
        "root": name(tree.root),
        "symmetry": tree.symmetry,
        "depth": tree.depth,
        "min_games": tree.min_games,
        "games": tree.games,
        "nodes": [
            {"position": name(node), "ply": ply, "games": games}
            for node, (ply, games) in sorted(
                tree.nodes.items(), key=lambda item: (item[1][0], name(item[0]))
            )
        ],
        "edges": [stats.as_dict(name) for stats in edges],
    }


def tree_to_json(tree: OpeningTree) -> str:
    return json.dumps(tree_as_dict(tree), ensure_ascii=False, indent=2)


def tree_to_dot(tree: OpeningTree) -> str:
    """The tree in Graphviz DOT (no pydot needed): nodes labelled with their
    games, edges with the move, games and score."""
    lines = ["digraph opening_tree {", "  node [shape=box, fontname=monospace];"]
    names = {node: f"n{index}" for index, node in enumerate(tree.nodes)}
    for node, (_ply, games) in tree.nodes.items():
        label = f"{tree.position(node)}\\n{games} games"
        lines.append(f"  {names[node]} [label={_dot_quote(label)}];")
    for stats in tree.edges():
        score = "" if stats.score is None else f" {stats.score:.0%}"
        label = f"{stats.move} ({stats.games}{score})"
        lines.append(
            f"  {names[stats.parent]} -> {names[stats.child]} [label={_dot_quote(label)}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\\\\n", "\\n") + '"'


def write_graphml(tree: OpeningTree, path: str | Path) -> None:
    """GraphML with scalar attributes (lists become space-separated text)."""
    with replaced_binary_file(path) as stream:  # whole or not at all
        _dump_graphml(tree, stream)


def tree_to_graphml(tree: OpeningTree) -> str:
    """The text :func:`write_graphml` writes."""
    import io

    stream = io.BytesIO()
    _dump_graphml(tree, stream)
    return stream.getvalue().decode("utf-8")


def _dump_graphml(tree: OpeningTree, stream: BinaryIO) -> None:
    import networkx as nx

    flat: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    name = tree.position
    for node, (ply, games) in tree.nodes.items():
        flat.add_node(name(node), games=games, ply=ply)
    for edge in tree.edges():
        stats = edge.as_dict(name)
        attributes = {}
        for field_name, value in stats.items():
            if field_name in ("from", "to"):
                continue
            if isinstance(value, list):
                value = " ".join(str(item) for item in value)
            if value is None and field_name in ("rating", "performance"):
                continue  # a number where known: GraphML keeps one type per attribute
            if value is None:
                value = ""
            attributes[field_name] = value
        flat.add_edge(stats["from"], stats["to"], key=stats["move"], **attributes)
    nx.write_graphml(flat, stream)
