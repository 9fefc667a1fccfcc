"""The replay viewer's data: every node of a game's move tree with the board after
it, computed here so the page only draws.

Every game a button of the page names (the opening tree's examples, the diagrams'
captions, the games list) goes into the page's store, so that no button is dead.
The store is compact: a node carries only what changed on the board since its
parent (cells, marks, lines of a text board; :func:`compact_game`), and each game
is kept as its JSON text compressed (zlib's deflate) in base64
(:func:`encode_game`). The page's script decompresses a game with the browser's
own ``DecompressionStream`` and rebuilds its boards when it is opened. A game that cannot be replayed
is left out of the store with its reason, and the page names it as plain text
with that reason instead of a button.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from partita.analysis.diagrams import board_for
from partita.analysis.report.options import ReportOptions
from partita.analysis.report.progress import Steps
from partita.errors import PartitaError
from partita.notation.model import Record
from partita.notation.nags import NAGS

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = [
    "compact_game",
    "decode_game",
    "encode_game",
    "expand_game",
    "referenced_games",
    "viewer_data",
    "viewer_game",
]


def viewer_game(record: Record, game_id: int | str) -> dict | None:
    """A game for the viewer: its tags, the layout of its set-up's board with its
    piece colours (``board``), and every node of its move tree (mainline and
    variations) with the board after it (``f``), its children (``k``) and its
    parent (``p``). ``None`` if the record's game or setup cannot be used."""
    from partita.notation.replay import record_move_start, replay

    replayed = replay(record, keys=False)
    game = replayed.game
    if game is None or replayed.initial_state is None:
        return None
    rules = game.rules
    board = board_for(game)
    start = replayed.initial_state
    nodes: list[dict] = [
        {"f": board.frame(start), "c": list(record.root.comments), "k": [], "p": -1}
    ]
    stack = [(record.root, 0, start)]
    while stack:
        node, index, state = stack.pop()
        for child in node.children:
            entry: dict[str, Any] = {"m": child.move, "p": index, "k": []}
            if child.suffix:
                entry["x"] = child.suffix
            if child.nags:
                entry["g"] = list(child.nags)
            if child.comments:
                entry["c"] = list(child.comments)
            if child.starting_comments:
                entry["s"] = list(child.starting_comments)
            after = None
            try:
                assert child.move is not None, "only the root holds no move"
                current, entry["n"] = record_move_start(rules, state, child.move)
                after = rules.apply(current, game.parse_move(current, child.move))
            except PartitaError:
                entry["bad"] = True
            if after is not None:
                entry["f"] = board.frame(after)
            nodes.append(entry)
            child_index = len(nodes) - 1
            nodes[index]["k"].append(child_index)
            if after is not None:
                stack.append((child, child_index, after))
    tags = record.tags
    players = [tags[f"Player{seat}"] for seat in range(1, 5) if f"Player{seat}" in tags]
    return {
        "id": game_id,
        "game": game.name,
        "board": {
            **board.layout.as_dict(),
            "pieces": {code: list(colours) for code, colours in board.piece_colours.items()},
        },
        "title": " - ".join(players) or f"game {game_id}",
        "result": tags.get("Result", record.result or "*"),
        "tags": [list(pair) for pair in tags.items()],
        "nodes": nodes,
    }


def compact_game(game: dict) -> dict:
    """``game`` (from :func:`viewer_game`) as the page stores it: the root's board
    whole (``f``), every other node's as changes from its parent's: ``d`` the
    changed cells as ``[index, code, index, code...]`` (``.`` empties a cell of a
    one-letter board, ``""`` one of a longer-coded board; a board whose cells
    change between the two forms is stored whole), ``mk`` the marked cells
    when they change, ``t`` the changed lines of a text board as ``[line count,
    index, line, ...]``. The parents (``p``) are left out: the children lists
    (``k``) give them. :func:`expand_game` undoes it."""
    nodes = game["nodes"]
    compact = []
    for index, node in enumerate(nodes):
        entry = {key: value for key, value in node.items() if key not in ("f", "p")}
        frame = node.get("f")
        if frame is not None:
            parent = nodes[node["p"]].get("f") if index else None
            if (
                parent is None
                or type(parent["cells"]) is not type(frame["cells"])
                or len(parent["cells"]) != len(frame["cells"])
            ):
                entry["f"] = frame
            else:
                entry.update(_frame_changes(parent, frame))
        compact.append(entry)
    return {**game, "nodes": compact}


def _frame_changes(parent: dict, frame: dict) -> dict:
    changes: dict[str, Any] = {}
    old_cells, new_cells = parent["cells"], frame["cells"]
    changed = (
        []
        if old_cells == new_cells
        else [
            index for index, (a, b) in enumerate(zip(old_cells, new_cells, strict=True)) if a != b
        ]
    )
    changes["d"] = [item for index in changed for item in (index, new_cells[index])]
    if parent.get("marks", []) != frame.get("marks", []):
        changes["mk"] = frame.get("marks", [])
    if "text" in frame:
        old_lines = parent.get("text", "").split("\n")
        new_lines = frame["text"].split("\n")
        lines: list[Any] = [len(new_lines)]
        for number, line in enumerate(new_lines):
            if number >= len(old_lines) or old_lines[number] != line:
                lines += [number, line]
        changes["t"] = lines
    return changes


def expand_game(stored: dict) -> dict:
    """The game :func:`compact_game` stored, with every node's whole board and its
    parent again (what the page's script rebuilds when the game is opened)."""
    nodes = [dict(node) for node in stored["nodes"]]
    for index, node in enumerate(nodes):
        for child in node["k"]:
            nodes[child]["p"] = index
    nodes[0]["p"] = -1
    for node in nodes:  # a parent always comes before its children
        if "f" in node or "d" not in node:
            continue
        parent = nodes[node["p"]]["f"]
        changes = node.pop("d")
        joined = isinstance(parent["cells"], str)
        cells = list(parent["cells"])
        for at in range(0, len(changes), 2):
            cells[changes[at]] = changes[at + 1]
        frame: dict[str, Any] = {"cells": "".join(cells) if joined else cells}
        marks = node.pop("mk", parent.get("marks", []))
        if marks:
            frame["marks"] = marks
        if "t" in node:
            count, *changed = node.pop("t")
            lines = parent.get("text", "").split("\n")[:count]
            lines += [""] * (count - len(lines))
            for at in range(0, len(changed), 2):
                lines[changed[at]] = changed[at + 1]
            frame["text"] = "\n".join(lines)
        node["f"] = frame
    return {**stored, "nodes": nodes}


def encode_game(stored: dict) -> str:
    """A stored game (from :func:`compact_game`) as the page keeps it: its JSON text
    (no spaces) compressed with zlib's deflate, in base64."""
    text = json.dumps(stored, ensure_ascii=False, separators=(",", ":"))
    return base64.b64encode(zlib.compress(text.encode("utf-8"), 6)).decode("ascii")


def decode_game(encoded: str) -> dict:
    """The stored game :func:`encode_game` encoded."""
    return json.loads(zlib.decompress(base64.b64decode(encoded)).decode("utf-8"))


def referenced_games(parts: Iterable[dict]) -> list[int]:
    """The games the buttons of the report's parts name (the opening tree's
    examples, the frequent positions' examples, the final positions, the games
    that could not be drawn), in the order they appear."""
    found: dict[int, None] = {}
    for part in parts:
        for row in part["tree"]:
            found.update(dict.fromkeys(row["examples"]))
        found.update(dict.fromkeys(row["example"] for row in part["positions"]["rows"]))
        found.update(dict.fromkeys(row["id"] for row in part["finals"]))
        found.update(dict.fromkeys(item["id"] for item in part["unreplayable"]))
    return list(found)


def _layout_id(layouts: dict[str, dict], board: dict) -> str:
    """The key of ``board`` (a layout with its piece colours) in the viewer's
    ``layouts``, added there the first time: each record is drawn with the board
    of its own set-up (a 5 x 5 board, a third side), and games of one set-up share
    one copy."""
    for key, known in layouts.items():
        if known == board:
            return key
    key = str(len(layouts))
    layouts[key] = board
    return key


def viewer_data(
    db: Archive,
    rows: list[dict],
    options: ReportOptions,
    data: dict,
    steps: Steps | None = None,
) -> None:
    """The games listed in the report (the latest :attr:`ReportOptions.viewer_games`)
    and the viewer's store: those games and every game a button names
    (``data["viewer"]["games"]``), the reason for each that cannot be replayed
    (``data["unviewable"]``) and the NAGs their moves carry; ``steps`` counts the
    games."""
    from partita.database.selection import stored_pgr
    from partita.notation.reader import read_records

    chosen = sorted(rows, key=lambda row: (row["date_max"] or "", row["id"]), reverse=True)
    chosen = chosen[: options.viewer_games]
    wanted = [row["id"] for row in chosen] + referenced_games(data["games"])
    layouts = data["viewer"]["layouts"]
    games = data["viewer"]["games"]
    unviewable: dict[int, str] = data.setdefault("unviewable", {})
    nags: set[int] = set()
    wanted = list(dict.fromkeys(wanted))
    if steps is not None:
        steps.add(len(wanted))
    for game_id in wanted:
        text = stored_pgr(db, game_id)
        entry = None
        if text is None:
            unviewable[game_id] = "no such game in the archive"
        else:
            record = next(iter(read_records(text + "\n", name=f"archive:{game_id}")), None)
            entry = viewer_game(record, game_id) if record is not None else None
            if entry is None:
                unviewable[game_id] = "its game or set-up cannot be read, so it cannot be replayed"
        if entry is not None:
            for node in entry["nodes"]:
                nags.update(node.get("g", ()))
            entry["layout"] = _layout_id(layouts, entry.pop("board"))
            games[str(game_id)] = encode_game(compact_game(entry))
        if steps is not None:
            steps.advance()
    data["viewer"]["nags"] = {str(nag): list(NAGS[nag]) for nag in sorted(nags) if nag in NAGS}
    for row in chosen:
        data["listed"].append(
            {
                "id": row["id"],
                "game": row["game"],
                "date": row["date"],
                "event": row["event"],
                "players": [row[f"player{seat}"] for seat in range(1, 5) if row[f"player{seat}"]],
                "result": row["result"],
                "plies": row["plies"],
                "status": row["status"],
                "viewable": str(row["id"]) in games,
            }
        )
    data["listed_total"] = len(rows)
