"""Self-play at scale: games between agents, the same records whatever runs them.

:func:`simulate` plays ``games`` games of one configuration, one agent per seat
(:func:`partita.analysis.agents.agent_from_spec`; ``rotate`` turns the seats round
from game to game), and writes them as PGR shards and/or into the archive through
its one writer.

Determinism: game ``i`` depends on nothing but the run's settings, ``seed`` and
``i``: each seat's agent and the chance side get their own ``random.Random``
seeded from ``seed``, ``i`` and the seat (:func:`game_seed`), so the records are
byte-identical whether one process, N local workers or a cluster play them, in any
order. (A time budget, ``mcts:2s``, depends on the machine: use playouts.)

Work and what travels: the games are cut into shards of ``shard_size`` games
(``shard-00000.pgr`` holds games 0 to K-1), each shard into tasks of a few games;
a task carries the settings and game indices, and comes back as finished records:
the canonical text and the archive's rows (computed in the worker, the writer only
inserts them). This process writes each shard whole (to a temporary name, then
renamed) and imports it in one transaction, in shard order, so archive ids follow
the game indices.

Resuming: a rerun with the same settings plays only the shards not finished. A
shard file is finished when it exists (it is only ever written whole); a shard is
in the archive when every one of its games is there, told by the ``Simulation``
tag (``"seed/index"``) with the same players and set-up. A killed run loses at most
the shards in flight; rerun, it gives the same files and the same archive, ids
included, as an uninterrupted run.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from partita.analysis.agents import agent_from_spec, parse_agent_spec
from partita.analysis.tasks import GameRef, game_ref, resolve_game
from partita.errors import PartitaError
from partita.execution import default_workers, open_executor
from partita.games.base import CHANCE
from partita.notation.base import GameNotation
from partita.notation.configuration import Configuration

__all__ = [
    "DEFAULT_MAX_PLIES",
    "DEFAULT_SHARD_SIZE",
    "SIMULATION_TAG",
    "SimulationProgress",
    "SimulationSummary",
    "game_seed",
    "play_game",
    "seat_agents",
    "shard_name",
    "simulate",
    "split_agents",
]

#: The tag naming a simulated game's run seed and index: ``[Simulation "7/12"]``.
SIMULATION_TAG = "Simulation"
#: Games per shard file (and per archive transaction).
DEFAULT_SHARD_SIZE = 100
#: A game still going after this many plies is stopped, its result ``*``.
DEFAULT_MAX_PLIES = 1000
#: Games per task sent to a worker (a shard is split into tasks of this size).
TASK_GAMES = 10
#: The run's settings, kept beside the shards, so a rerun into the folder checks them.
MANIFEST = "simulation.json"


def game_seed(seed: int, index: int, part: str) -> int:
    """The seed of one part of game ``index`` of a run (``part``: a seat number or
    ``"chance"``): a hash, so neighbouring games and seats share nothing."""
    digest = hashlib.sha256(f"partita-simulate/{seed}/{index}/{part}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def seat_agents(agents: Sequence[str], sides: int, index: int, rotate: bool) -> list[str]:
    """The agent of each seat in game ``index``: one spec for all seats, or one per
    seat; with ``rotate``, game ``i`` moves every agent ``i mod sides`` seats on."""
    specs = list(agents) * sides if len(agents) == 1 else list(agents)
    if len(specs) != sides:
        raise PartitaError(
            f"{len(agents)} agents for {sides} sides: name one agent for every seat, or one for all"
        )
    if rotate:
        shift = index % sides
        specs = specs[-shift:] + specs[:-shift] if shift else specs
    return specs


def split_agents(text: str) -> list[str]:
    """The agents of a comma-separated list, ``"mcts:500,c=0.7,random"``: a part
    with ``=`` is an option of the agent before it."""
    agents: list[str] = []
    for part in (part.strip() for part in text.split(",")):
        if not part:
            continue
        if "=" in part and agents:
            agents[-1] += f",{part}"
        else:
            agents.append(part)
    return agents


def shard_name(number: int) -> str:
    return f"shard-{number:05d}.pgr"


@dataclass(frozen=True, slots=True)
class _Settings:
    """What decides a run's games (all but how many)."""

    game: GameRef
    tags: tuple[tuple[str, str], ...]
    sides: int
    agents: tuple[str, ...]
    seed: int
    rotate: bool
    max_plies: int
    event: str


def _record_tags(settings: _Settings, index: int) -> dict[str, str]:
    tags = {"Game": settings.game.name, "Event": settings.event, "Round": str(index + 1)}
    for seat, spec in enumerate(
        seat_agents(settings.agents, settings.sides, index, settings.rotate)
    ):
        tags[f"Player{seat + 1}"] = spec
    tags.update(dict(settings.tags))
    tags[SIMULATION_TAG] = f"{settings.seed}/{index}"
    return tags


def play_game(settings: _Settings, index: int) -> tuple[str, Any]:
    """Game ``index`` of a run: its canonical PGR text, and the rows the archive
    stores of it (:class:`~partita.database.prepare.StoredRecord`)."""
    from partita.database.prepare import prepare_record
    from partita.notation.model import Node, Record, SourceRef
    from partita.notation.replay import replay
    from partita.notation.writer import write_record

    game = resolve_game(settings.game)
    rules = game.rules
    specs = seat_agents(settings.agents, settings.sides, index, settings.rotate)
    players = [
        agent_from_spec(spec, game, seed=game_seed(settings.seed, index, str(seat)))
        for seat, spec in enumerate(specs)
    ]
    chance = random.Random(game_seed(settings.seed, index, "chance"))
    hidden = rules.hidden_information
    state = rules.initial(settings.sides)
    history: list[tuple[Any, Any]] = []
    tokens: list[str] = []
    while rules.outcome(state) is None and len(tokens) < settings.max_plies:
        side = rules.side_to_move(state)
        if side == CHANCE:
            move = rules.sample_move(state, chance)
        else:
            move = players[side].choose(state, history=history if hidden else ())
        tokens.append(game.format_move(state, move))
        if hidden:
            history.append((state, move))
        state = rules.apply(state, move)
    outcome = rules.outcome(state)
    result = outcome.result_token() if outcome is not None else "*"
    record = Record(tags=_record_tags(settings, index), source=SourceRef("<simulate>", index))
    record.tags["Result"] = result
    record.result = result
    node = record.root
    for token in tokens:
        node = node.add(Node(token))
    if outcome is not None:
        node.comments.append(outcome.reason)
    elif tokens:
        node.comments.append(f"stopped after {settings.max_plies} plies")
    replayed = replay(record, strict=True)
    if not replayed.valid:
        problem = replayed.problems[0]
        raise PartitaError(f"simulated game {index} does not replay: {problem.message}")
    text = write_record(record, game, replayed=replayed)
    return text, prepare_record(replayed, False)


def _play_task(task: tuple[_Settings, list[int]]) -> list[tuple[str, Any]]:
    """A worker's task: some games of a run, in order."""
    settings, indices = task
    return [play_game(settings, index) for index in indices]


@dataclass(frozen=True, slots=True)
class SimulationProgress:
    """After each task: games played in this run (of ``total`` to play), games
    already there before it, and whether every game played so far is stored (a
    shard was just written whole)."""

    done: int
    total: int
    skipped: int
    stored: bool = True


@dataclass(slots=True)
class SimulationSummary:
    """What a run did: games asked for, played now, found finished (``skipped``),
    shards written, games imported (and found already in the archive), results by
    token, plies, seconds."""

    game: str
    configuration: str
    games: int
    played: int = 0
    skipped: int = 0
    shards: int = 0
    imported: int = 0
    duplicates: int = 0
    results: dict[str, int] = field(default_factory=dict)
    plies: int = 0
    seconds: float = 0.0
    workers: int = 1
    where: str = "inline"

    @property
    def games_per_second(self) -> float:
        return self.played / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict:
        data = asdict(self)
        data["seconds"] = round(self.seconds, 3)
        data["games_per_second"] = round(self.games_per_second, 3)
        return data


def _check_manifest(folder: Path, settings: dict) -> None:
    path = folder / MANIFEST
    if path.exists():
        try:
            known = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = None
        if known != settings:
            raise PartitaError(
                f"{folder} holds the shards of another run ({path}): choose another folder, "
                "or the same settings to complete that run"
            )
        return
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _archived(
    db: Any, settings: _Settings, configuration: Configuration, game: GameNotation, games: int
) -> set[int]:
    """The indices of this run's games already in the archive: same seed and index,
    players and event, and the same configuration (a default left out or written
    is one configuration)."""
    prefix = f"{settings.seed}/"
    found: set[int] = set()
    rows = db.execute(
        "SELECT json_extract(tags, '$.Simulation'), tags, sides FROM games WHERE game = ? "
        "AND json_extract(tags, '$.Simulation') LIKE ?",
        (settings.game.name, prefix + "%"),
    )
    own = {name for name, _ in configuration.settings}
    for value, text, sides in rows:
        try:
            index = int(value[len(prefix) :])
        except ValueError:
            continue
        if not 0 <= index < games:
            continue
        tags = json.loads(text)
        expected = _record_tags(settings, index)
        if any(tags.get(name) != value for name, value in expected.items() if name not in own):
            continue
        if Configuration.of(game, sides or 0, tags) == configuration:
            found.add(index)
    return found


def simulate(
    game: GameNotation,
    games: int,
    agents: Sequence[str],
    *,
    configuration: Configuration | None = None,
    seed: int = 0,
    rotate: bool = False,
    output: str | Path | None = None,
    db: str | Path | None = None,
    shard_size: int = DEFAULT_SHARD_SIZE,
    max_plies: int = DEFAULT_MAX_PLIES,
    workers: int | None = 1,
    scheduler: str | None = None,
    event: str = "partita simulate",
    progress: Callable[[SimulationProgress], object] | None = None,
) -> SimulationSummary:
    """Play (or complete) a run of ``games`` games of ``game`` (configured as
    ``configuration`` says: sides and tags) between ``agents`` (one spec for every
    seat, or one per seat), seeded by ``seed``; write the records as shards into the
    folder ``output`` and/or import them into the archive ``db`` (at least one).

    ``workers``/``scheduler``: where the games are played (see
    :func:`partita.execution.open_executor`; ``workers=None``: one per CPU). An
    exception (Ctrl-C too) stops the run after the last whole shard; rerun with
    the same settings, it plays only what is missing.
    """
    if output is None and db is None:
        raise PartitaError("say where the games go: a folder for the shards, an archive, or both")
    if games < 0 or shard_size < 1 or max_plies < 1:
        raise ValueError("games must be 0 or more, shards and the ply limit at least 1")
    for spec in agents:
        parse_agent_spec(spec)
    started = time.perf_counter()
    rules = game.rules
    if configuration is None:
        configuration = Configuration.of(game, rules.min_sides, {})
    tags = configuration.tags()
    settings = _Settings(
        game_ref(game, tags),
        tuple(tags.items()),
        configuration.sides,
        tuple(spec.strip() for spec in agents),
        seed,
        rotate,
        max_plies,
        event,
    )
    seat_agents(settings.agents, settings.sides, 0, rotate)  # one per seat, or one for all
    summary = SimulationSummary(game.name, configuration.label, games)
    shards = [range(start, min(start + shard_size, games)) for start in range(0, games, shard_size)]
    folder = Path(output) if output is not None else None
    if folder is not None:
        _check_manifest(
            folder,
            {
                "game": game.name,
                "configuration": {"sides": configuration.sides, "tags": tags},
                "agents": list(settings.agents),
                "seed": seed,
                "rotate": rotate,
                "max_plies": max_plies,
                "shard_size": shard_size,
                "event": event,
            },
        )

    from partita.database.importer import ArchiveWriter
    from partita.database.schema import GAME_COLUMNS, archive

    source_columns = GAME_COLUMNS.index("source_file") - 1  # the writer's rows have no id
    with archive(db) if db is not None else _nothing() as connection:
        archived = (
            _archived(connection, settings, configuration, game, games)
            if connection is not None
            else set()
        )
        writer = ArchiveWriter(connection, batch_size=shard_size) if connection else None
        # Which shards need playing: a missing file, or games missing from the archive.
        todo: list[tuple[int, range, bool, bool]] = []
        for number, indices in enumerate(shards):
            need_file = folder is not None and not (folder / shard_name(number)).exists()
            need_rows = writer is not None and not all(i in archived for i in indices)
            if need_file or need_rows:
                todo.append((number, indices, need_file, need_rows))
            else:
                summary.skipped += len(indices)
        total = sum(len(indices) for _, indices, _, _ in todo)
        tasks = [
            (settings, list(indices[start : start + TASK_GAMES]))
            for _, indices, _, _ in todo
            for start in range(0, len(indices), TASK_GAMES)
        ]
        if workers is None:
            workers = default_workers(len(tasks))
        if progress is not None:
            progress(SimulationProgress(0, total, summary.skipped, True))
        with open_executor(workers, scheduler=scheduler) as execution:
            summary.workers = execution.workers
            summary.where = execution.kind
            results = iter(execution.map_ordered(_play_task, tasks))
            for number, indices, need_file, need_rows in todo:
                finished: list[tuple[str, Any]] = []
                while len(finished) < len(indices):
                    finished.extend(next(results))
                    if progress is not None and len(finished) < len(indices):
                        done = summary.played + len(finished)
                        progress(SimulationProgress(done, total, summary.skipped, False))
                texts = [text for text, _ in finished]
                name = str(folder / shard_name(number)) if folder is not None else "<simulate>"
                if need_file:
                    assert folder is not None
                    _write_shard(folder / shard_name(number), texts)
                    summary.shards += 1
                if need_rows:
                    assert writer is not None
                    line, offset = 1, 0
                    for position, (text, stored) in enumerate(finished):
                        row = list(stored.game)
                        row[source_columns : source_columns + 4] = [name, position, line, offset]
                        writer.add_prepared(stored._replace(game=tuple(row)))
                        data = text.encode("utf-8")
                        line += text.count("\n") + 1
                        offset += len(data) + 1
                    writer.flush()
                for _, stored in finished:
                    result = stored.game[GAME_COLUMNS.index("result") - 1]
                    summary.results[result] = summary.results.get(result, 0) + 1
                    summary.plies += len(stored.moves)
                summary.played += len(indices)
                if progress is not None:
                    progress(SimulationProgress(summary.played, total, summary.skipped, True))
        if writer is not None:
            summary.imported = writer.summary.imported
            summary.duplicates = writer.summary.duplicates
    summary.seconds = time.perf_counter() - started
    return summary


class _nothing:
    """``with`` for a run without an archive."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _write_shard(path: Path, texts: Sequence[str]) -> None:
    """A shard written whole or not at all: to a temporary name, then renamed; a
    failure or a Ctrl-C on the way (often in the fsync) removes the temporary file."""
    temporary = path.with_name(f".{path.name}.part")
    try:
        with open(temporary, "w", encoding="utf-8", newline="\n") as stream:
            stream.write("\n".join(texts))
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
