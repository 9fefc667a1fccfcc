"""The replay viewer's data: every node of a game's move tree with the board after
it, computed here so the page only draws."""

from __future__ import annotations

from typing import Any

from partita.analysis.diagrams import board_for
from partita.analysis.report.options import ReportOptions
from partita.errors import PartitaError
from partita.games.registry import get_game
from partita.notation.model import Record

__all__ = ["viewer_data", "viewer_game"]


def viewer_game(record: Record, game_id: int | str) -> dict | None:
    """A game for the viewer: its tags and every node of its move tree (mainline
    and variations) with the board after it, computed here so the page only
    draws. ``None`` if the record's game or setup cannot be used."""
    from partita.notation.replay import replay

    replayed = replay(record)
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
                current = state
                forced = rules.forced_pass(current) if child.move != "--" else None
                if forced is not None:
                    current = rules.apply(current, forced)
                number, opens = rules.move_number(current)
                entry["n"] = f"{number}." if opens else f"{number}..."
                assert child.move is not None, "only the root holds no move"
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
        "title": " - ".join(players) or f"game {game_id}",
        "result": tags.get("Result", record.result or "*"),
        "tags": list(tags.items()),
        "nodes": nodes,
    }


def viewer_data(db: Any, rows: list[dict], options: ReportOptions, data: dict) -> None:
    """The games listed in the report and their viewer data (the latest first)."""
    from partita.database.selection import stored_pgr
    from partita.notation.reader import read_records

    chosen = sorted(rows, key=lambda row: (row["date_max"] or "", row["id"]), reverse=True)
    chosen = chosen[: options.viewer_games]
    layouts = data["viewer"]["layouts"]
    games = data["viewer"]["games"]
    for row in chosen:
        text = stored_pgr(db, row["id"]) or ""
        record = next(iter(read_records(text + "\n", name=f"archive:{row['id']}")), None)
        entry = viewer_game(record, row["id"]) if record is not None else None
        listed = {
            "id": row["id"],
            "game": row["game"],
            "date": row["date"],
            "event": row["event"],
            "players": [row[f"player{seat}"] for seat in range(1, 5) if row[f"player{seat}"]],
            "result": row["result"],
            "plies": row["plies"],
            "status": row["status"],
            "viewable": entry is not None,
        }
        data["listed"].append(listed)
        if entry is None:
            continue
        games[str(row["id"])] = entry
        if entry["game"] not in layouts:
            layouts[entry["game"]] = board_for(get_game(entry["game"])).layout.as_dict()
    data["listed_total"] = len(rows)
