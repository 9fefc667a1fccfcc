"""The analysis a worker process runs for the web app: one position, asked of an
agent (MCTS), the game's exact solver or the endgame analysis, answered as plain
data (what `partita solve --json` and `partita endgame --json` print, and a
search's :meth:`~partita.analysis.mcts.SearchResult.as_dict`), plus the position
after each move so that the page can show it on the board.

A task is a plain dict (see :func:`analyse`) and a module-level function, so the
execution layer can send it to a worker; it reuses :mod:`partita.analysis` and
re-implements nothing.
"""

from __future__ import annotations

from typing import Any

from partita.errors import PartitaError

__all__ = ["KINDS", "analyse"]

#: What can be asked: kind → label.
KINDS = {
    "agent": "an agent (MCTS)",
    "solver": "the exact solver",
    "endgame": "the endgame analysis",
}


def _position(task: dict[str, Any]) -> tuple[Any, Any]:
    """The configured game and the state a task names (the request built the task
    from a checked :class:`~partita.web.positions.PositionRef`)."""
    from partita.web.positions import PositionRef

    ref = PositionRef(
        task["game"],
        int(task["sides"]),
        tuple((str(name), str(value)) for name, value in task.get("tags") or ()),
        task.get("position"),
        tuple(task.get("moves") or ()),
    )
    return ref.notation(), ref.state()


def analyse(task: dict[str, Any]) -> dict[str, Any]:
    """``task``: ``kind`` (``agent``, ``solver``, ``endgame``), ``game``, ``sides``,
    ``tags`` (settings), ``position`` (``None``: the start), ``moves``, ``seconds``
    (the time budget), ``agent`` (``mcts:N`` or ``mcts:Ts``, for ``agent``),
    ``max_positions`` (for ``endgame``), ``seed``. The answer: ``kind``, ``game``,
    ``position``, ``side_to_move`` (from 1; ``None`` at a chance node or the end),
    ``exact``, ``budget`` (what bounded the work, in words), the kind's own data
    under ``result``, and ``moves``: per move ``move``, ``score`` (a short text),
    ``after`` (the position after it), best first."""
    game, state = _position(task)
    rules = game.rules
    if rules.outcome(state) is not None:
        raise PartitaError("the game is over in this position: there is nothing to analyse")
    kind = task["kind"]
    seconds = float(task["seconds"])
    side = rules.side_to_move(state)
    answer: dict[str, Any] = {
        "kind": kind,
        "game": game.name,
        "position": game.format_position(state),
        "side_to_move": side + 1 if side >= 0 else None,
    }
    if kind == "agent":
        answer.update(_agent(game, state, task, seconds))
    elif kind == "solver":
        answer.update(_solver(game, state, seconds))
    elif kind == "endgame":
        answer.update(_endgame(game, state, task, seconds))
    else:
        raise PartitaError(f"unknown analysis '{kind}' (one of {', '.join(KINDS)})")
    for entry in answer["moves"]:
        try:
            after = rules.apply(state, game.parse_move(state, entry["move"]))
            entry["after"] = game.format_position(after)
        except PartitaError:
            entry["after"] = None
    return answer


def _agent(game: Any, state: Any, task: dict[str, Any], seconds: float) -> dict[str, Any]:
    from partita.analysis.agents import MctsAgent, parse_agent_spec

    spec = str(task.get("agent") or "mcts:2000")
    kind, settings = parse_agent_spec(spec)
    if kind != "mcts":
        raise PartitaError(f"agent '{spec}' gives no scores: ask mcts:N (playouts) or mcts:Ts")
    limit = int(task.get("max_playouts") or 0)
    if limit and (settings.get("playouts") or 0) > limit:
        raise PartitaError(f"at most {limit:,} playouts (asked {settings['playouts']:,})")
    settings["seconds"] = min(settings.get("seconds") or seconds, seconds)
    settings["workers"] = 1  # the job is this process's work (the page refuses workers=)
    agent = MctsAgent(game, spec, int(task.get("seed") or 1), **settings)
    result = agent.evaluate(state)
    data = result.as_dict(lambda move: game.format_move(state, move))
    seat = result.side
    moves = []
    for item in data["moves"]:
        mover = item["value"][seat] if seat is not None and seat >= 0 else None
        score = f"{mover:.2f}" if mover is not None else ""
        moves.append({"move": item["move"], "score": score, "visits": item["visits"],
                      "value": item["value"], "exact": item["exact"]})  # fmt: skip
    budget = f"{settings.get('playouts') or 'no'} playouts cap, {settings['seconds']:g} s"
    return {
        "exact": result.exact,
        "budget": f"{data['playouts']:,} playouts in {data['seconds']:.1f} s ({budget})",
        "value": data["value"],
        "value_text": "expected score "
        + ", ".join(f"Player{seat} {v:.2f}" for seat, v in enumerate(data["value"], start=1)),
        "result": data,
        "moves": moves,
    }


def _solver(game: Any, state: Any, seconds: float) -> dict[str, Any]:
    from partita.analysis.solving import solver_for

    solution = solver_for(game).solve(state, max_seconds=seconds)
    data = solution.as_dict(lambda move: game.format_move(state, move))
    moves = []
    ranked = sorted(data.get("moves", []), key=lambda item: -(item.get("score") or 0))
    for item in ranked:
        moves.append({**item, "score": _solver_score(item)})
    return {
        "exact": True,
        "budget": f"solved in {data.get('seconds', 0):.2f} s (at most {seconds:g} s)",
        "value": data.get("value"),
        "value_text": str(data.get("value")),
        "result": data,
        "moves": moves,
    }


def _solver_score(item: dict[str, Any]) -> str:
    value = item.get("value")
    score = item.get("score")
    return f"{value} ({score:+d})" if isinstance(score, int) and value else str(value or score)


def _endgame(game: Any, state: Any, task: dict[str, Any], seconds: float) -> dict[str, Any]:
    from partita.analysis.endgame import DEFAULT_MAX_POSITIONS, UNKNOWN, endgame

    most = int(task.get("max_positions") or DEFAULT_MAX_POSITIONS)
    graph = endgame(game, state, max_positions=most, partial=True, until_proven=True,
                    max_seconds=seconds)  # fmt: skip
    data = graph.as_dict(game, state)
    if data["value"] == UNKNOWN:
        raise PartitaError(
            f"not proven within the {len(graph):,} positions explored in {seconds:g} s: "
            "the endgame is larger"
        )
    moves = [
        {**item, "score": item["value"] + (f" in {item['distance']}" if item["distance"] else "")}
        for item in data["moves"]
    ]
    return {
        "exact": data["exact"],
        "budget": f"{data['positions']:,} positions in {data['seconds']:.2f} s "
        f"(at most {most:,} positions, {seconds:g} s)",
        "value": data["value"],
        "value_text": data["value"] + (f" in {data['distance']}" if data["distance"] else ""),
        "result": data,
        "moves": moves,
    }
