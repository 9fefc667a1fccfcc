"""One archived game as its page shows it: every node of its move tree (mainline
and variations, comments, NAGs) with the position after it, its problems, its
evaluations, its configuration; built once per game and kept for the next
requests (the board of each node is drawn on demand)."""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from partita.errors import ArchiveError, PartitaError

if TYPE_CHECKING:
    from partita.database.connection import Archive

__all__ = ["GameView", "game_view"]

#: A machine-readable evaluation comment (``partita annotate``), left out of the move list.
_EVAL = re.compile(r"\[%eval [^\]]*\]")
#: How many games' views are kept.
KEPT = 64


@dataclass
class GameView:
    """An archived game ready to show (see the module docstring)."""

    id: int
    pgr: str
    tags: list[tuple[str, str]]
    game: Any  # the configured GameNotation, or None when its game cannot be used
    game_name: str | None
    sides: int
    settings: tuple[tuple[str, str], ...]
    #: Per node: id, parent, children, move, label, ply, main, suffix, nags,
    #: comments, starting_comments, position (None past the legal moves), bad, over
    #: (the game has ended there).
    nodes: list[dict[str, Any]] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    #: Per mainline ply (0: the start): the expected scores of a ``[%eval]`` comment.
    evals: list[tuple[int, tuple[float, ...]]] = field(default_factory=list)
    status: str = "valid"
    #: Node ids of the mainline, the start first.
    mainline: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The API's one game: tags, configuration, nodes (no states), problems,
        evaluations and the stored text."""
        return {
            "id": self.id,
            "game": self.game_name,
            "sides": self.sides,
            "settings": dict(self.settings),
            "status": self.status,
            "tags": dict(self.tags),
            "nodes": self.nodes,
            "mainline": self.mainline,
            "problems": self.problems,
            "evals": [{"ply": ply, "scores": list(value)} for ply, value in self.evals],
            "pgr": self.pgr,
        }


_views: OrderedDict[tuple[str, int, int], GameView] = OrderedDict()
_lock = threading.Lock()


def game_view(db: Archive, game_id: int) -> GameView:
    """The view of game ``game_id`` (``ArchiveError`` if there is none)."""
    try:
        stamp = os.stat(db.name).st_mtime_ns
    except OSError:
        stamp = 0
    key = (db.name, game_id, stamp)
    with _lock:
        found = _views.get(key)
        if found is not None:
            _views.move_to_end(key)
            return found
    view = _build(db, game_id)
    with _lock:
        _views[key] = view
        while len(_views) > KEPT:
            _views.popitem(last=False)
    return view


def _build(db: Archive, game_id: int) -> GameView:
    from partita.analysis.annotate import parse_eval_comment
    from partita.database.query import get_record
    from partita.game.configuration import Configuration
    from partita.notation.replay import count_sides, record_move_start, replay

    row = db.execute("SELECT pgr, status FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise ArchiveError(f"there is no game {game_id} in the archive")
    pgr, status = row
    record = get_record(db, game_id)
    replayed = replay(record)
    game = replayed.game
    tags = list(record.tags.items())
    view = GameView(
        id=game_id,
        pgr=pgr,
        tags=tags,
        game=game,
        game_name=game.name if game is not None else record.tags.get("Game"),
        sides=2,
        settings=(),
        status=status,
    )
    view.problems = [
        {
            "kind": problem.kind,
            "severity": problem.severity,
            "line": problem.line,
            "column": problem.column,
            "ply": problem.ply,
            "token": problem.token,
            "message": problem.message,
        }
        for problem in replayed.problems
    ]
    start = replayed.initial_state
    if game is not None:
        view.sides = count_sides(record.tags, game.rules.min_sides)[0]
        configuration = Configuration.of(game, view.sides, record.tags)
        view.settings = tuple(configuration.tags().items())
    root_position = game.format_position(start) if game is not None and start is not None else None
    view.nodes.append(
        {
            "id": 0,
            "parent": None,
            "children": [],
            "move": None,
            "label": "",
            "ply": 0,
            "main": True,
            "suffix": "",
            "nags": [],
            "comments": list(record.root.comments),
            "starting_comments": [],
            "position": root_position,
            "bad": False,
            "over": False,
        }
    )
    view.states.append(start)
    if game is None or start is None:
        view.mainline = [0]
        return view
    rules = game.rules
    stack: list[tuple[Any, int, Any, bool]] = [(record.root, 0, start, True)]
    while stack:
        node, index, state, main = stack.pop()
        pending = []
        for number, child in enumerate(node.children):
            on_main = main and number == 0
            entry: dict[str, Any] = {
                "id": len(view.nodes),
                "parent": index,
                "children": [],
                "move": child.move,
                "label": "",
                "ply": view.nodes[index]["ply"] + 1,
                "main": on_main,
                "suffix": child.suffix,
                "nags": list(child.nags),
                "comments": list(child.comments),
                "starting_comments": list(child.starting_comments),
                "position": None,
                "bad": state is None,
                "over": False,
            }
            after = None
            if state is not None:
                try:
                    assert child.move is not None
                    current, entry["label"] = record_move_start(rules, state, child.move)
                    after = rules.apply(current, game.parse_move(current, child.move))
                    entry["position"] = game.format_position(after)
                    entry["over"] = rules.outcome(after) is not None
                except PartitaError as error:
                    entry["bad"] = True
                    entry["reason"] = str(error)
            view.nodes.append(entry)
            view.states.append(after)
            view.nodes[index]["children"].append(entry["id"])
            pending.append((child, entry["id"], after, on_main))
        # the mainline child last on the stack: it is walked first
        stack.extend(reversed(pending))
    # the mainline and its evaluations
    current_id = 0
    view.mainline = [0]
    while view.nodes[current_id]["children"]:
        current_id = view.nodes[current_id]["children"][0]
        view.mainline.append(current_id)
    for ply, node_id in enumerate(view.mainline):
        for comment in view.nodes[node_id]["comments"]:
            value = parse_eval_comment(comment)
            if value is not None:
                view.evals.append((ply, value))
                break
    return view


def move_list(view: GameView) -> list[tuple[str, Any]]:
    """The move list in reading order, as ``(kind, value)`` items: ``("move", node)``,
    ``("open", None)`` / ``("close", None)`` around a variation, ``("comment",
    text)``. Written with a stack (variations may nest deeply)."""
    items: list[tuple[str, Any]] = []
    nodes = view.nodes
    for comment in nodes[0]["comments"]:
        if not _EVAL.fullmatch(comment.strip()):
            items.append(("comment", comment))
    # work: ("line", node_id) emits the line from node_id's children on;
    # ("close", None) closes a variation
    work: list[tuple[str, int | None]] = [("line", 0)]
    while work:
        kind, node_id = work.pop()
        if kind == "close":
            items.append(("close", None))
            continue
        if kind == "emit":  # a variation's first move, then its line
            assert node_id is not None
            node = nodes[node_id]
            items.append(("open", None))
            for comment in node["starting_comments"]:
                items.append(("comment", comment))
            _emit(items, node, first=True)
            work.append(("close", None))
            work.append(("line", node_id))
            continue
        assert node_id is not None
        children = nodes[node_id]["children"]
        if not children:
            continue
        main = nodes[children[0]]
        for comment in main["starting_comments"]:
            items.append(("comment", comment))
        _emit(items, main, first=False)
        # after the main child: its variations, then the main child's line
        work.append(("line", main["id"]))
        for variation in reversed(children[1:]):
            work.append(("emit", variation))
    # a move number is shown where a line (re)starts, and before each round's first move
    shown: list[tuple[str, Any]] = []
    previous = None
    for kind, value in items:
        if kind == "move":
            label = value["label"]
            show = bool(label) and (not label.endswith("...") or previous != "move")
            shown.append(("move", (value, show)))
        else:
            shown.append((kind, value))
        previous = kind
    return shown


def _emit(items: list[tuple[str, Any]], node: dict[str, Any], *, first: bool) -> None:
    items.append(("move", node))
    for comment in node["comments"]:
        if not _EVAL.fullmatch(comment.strip()):  # the curve shows them
            items.append(("comment", comment))
