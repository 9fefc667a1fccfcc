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

Work and what travels: each game is a task; a task carries the settings and the
game's index, and comes back as the finished record: its canonical text and the
archive's rows (computed in the worker, the writer only inserts them). This
process stores the games in index order as they finish: the archive's rows are
committed at least every :data:`COMMIT_SECONDS` (and every ``shard_size`` games),
so archive ids follow the game indices; a shard file (``shard-00000.pgr`` holds
games 0 to K-1) is written whole (to a temporary name, then renamed) once its
games are all there.

Stopping and resuming: an exception (Ctrl-C too) stops the run and keeps every
game finished by then, those finished ahead of an earlier game included (stored
last; their rows name no line or offset in a shard file). A rerun with the same
settings plays only what is missing: a shard whose file is missing (a file exists
only whole), and the games missing from the archive, told by the ``Simulation``
tag (``"seed/index"``) with the same players and set-up. What the rerun leaves is
what an uninterrupted run leaves: the same shard files, byte for byte, and in the
archive the same games (the same records, text and rows, for each ``Simulation``
index). Ids follow the indices unless games finished out of order at the stop;
the source columns are those of an uninterrupted run, bar the line and offset of
such games.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from partita.analysis.agents import agent_from_spec, agent_workers, answered, parse_agent_spec
from partita.analysis.tasks import GameRef, game_ref, resolve_game
from partita.errors import PartitaError
from partita.execution import (
    IN_FLIGHT_PER_WORKER,
    INTERRUPT_CHECK_SECONDS,
    Execution,
    default_workers,
    open_executor,
)
from partita.game.configuration import Configuration
from partita.game.notation import GameNotation
from partita.game.rules import CHANCE

if TYPE_CHECKING:
    from partita.database.connection import Archive

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
#: Most seconds between two commits of finished games to the archive.
COMMIT_SECONDS = 1.0
#: The source file of an archived game of a run without a shard folder (its
#: ``source_index`` is the game's index in the run).
SIMULATE_SOURCE = "<simulate>"
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
    seats = dict(enumerate(players))
    chance = random.Random(game_seed(settings.seed, index, "chance"))
    hidden = rules.hidden_information
    state = rules.initial(settings.sides)
    history: list[tuple[Any, Any]] = []
    tokens: list[str] = []
    try:
        while rules.outcome(state) is None and len(tokens) < settings.max_plies:
            side = rules.side_to_move(state)
            if side == CHANCE:
                move = rules.sample_move(state, chance)
            else:
                move = players[side].choose(state, history=history if hidden else ())
                move = answered(seats, state, move, history=history if hidden else ())
            tokens.append(game.format_move(state, move))
            if hidden:
                history.append((state, move))
            state = rules.apply(state, move)
    finally:
        for player in players:  # an agent's search processes (workers=)
            player.close()
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


@dataclass(frozen=True, slots=True)
class SimulationProgress:
    """Before the first game and after each game stored (in index order): games
    played in this run (of ``total`` to play), games already there before it, and
    whether every game played so far is committed to the archive (a stop keeps
    them either way)."""

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
    db: Archive, settings: _Settings, configuration: Configuration, game: GameNotation, games: int
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
    db: Archive | None = None,
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
    :func:`partita.execution.open_executor`; ``workers=None``: one per CPU, or per
    ``K`` CPUs where an agent searches in ``K`` processes, ``mcts:N,workers=K``). Each
    game goes into the archive as it finishes (committed at least every
    :data:`COMMIT_SECONDS`, and every ``shard_size`` games); an exception (Ctrl-C
    too) stops the run keeping every game finished by then; rerun with the same
    settings, it plays only what is missing.
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

    from partita.database.archive_writer import ArchiveWriter
    from partita.database.schema import writing

    with writing(db) if db is not None else nullcontext() as connection:
        archived = (
            _archived(connection, settings, configuration, game, games)
            if connection is not None
            else set()
        )
        # What to play: every game of a shard whose file is missing (a file is
        # written whole, from all its games), and the games missing from the
        # archive (with a folder, their whole shard: a row names its place in it).
        play: list[int] = []
        files: set[int] = set()
        for number, start in enumerate(range(0, games, shard_size)):
            indices = range(start, min(start + shard_size, games))
            if folder is not None and not (folder / shard_name(number)).exists():
                files.add(number)
                play.extend(indices)
            elif connection is not None:
                missing = [index for index in indices if index not in archived]
                play.extend(indices if missing and folder is not None else missing)
        summary.skipped = games - len(play)
        writer = ArchiveWriter(connection, batch_size=shard_size) if connection else None
        store = _Store(summary, play, games, shard_size, folder, files, writer, archived, progress)
        if workers is None:  # the CPUs shared among the games' search processes
            widest = max(agent_workers(spec) for spec in settings.agents)
            workers = max(1, default_workers(len(play)) // widest)
        if progress is not None:
            progress(SimulationProgress(0, len(play), summary.skipped, True))
        with open_executor(workers, scheduler=scheduler) as execution:
            summary.workers = execution.workers
            summary.where = execution.kind
            in_flight: dict[int, Future] = {}
            try:
                _play_all(execution, settings, play, in_flight, store)
            except BaseException:
                # Keep every game finished by now: those waiting for an earlier one,
                # and those a worker has finished that were not yet taken.
                for index, future in in_flight.items():
                    if future.done() and not future.cancelled() and future.exception() is None:
                        store.early[index] = future.result()
                store.stop()
                raise
            store.commit()
        if writer is not None:
            summary.imported = writer.summary.imported
            summary.duplicates = writer.summary.duplicates
    summary.seconds = time.perf_counter() - started
    return summary


def _play_all(
    execution: Execution,
    settings: _Settings,
    play: list[int],
    in_flight: dict[int, Future],
    store: _Store,
) -> None:
    """Play the games ``play``, one task each (a few per worker in flight; one at
    a time in this process), and hand each to ``store`` as it finishes. The wait
    for a result looks up every :data:`~partita.execution.INTERRUPT_CHECK_SECONDS`,
    so that a Ctrl-C taken by another thread of this process stops the run then,
    not when a game ends."""
    window = 1 if execution.inline else IN_FLIGHT_PER_WORKER * execution.workers
    upcoming = iter(play)
    while True:
        while len(in_flight) < window:
            index = next(upcoming, None)
            if index is None:
                break
            in_flight[index] = execution.submit(_play_one, settings, index)
        if not in_flight:
            return
        done, _ = wait(
            list(in_flight.values()), timeout=INTERRUPT_CHECK_SECONDS, return_when=FIRST_COMPLETED
        )
        for index in sorted(index for index, future in in_flight.items() if future in done):
            store.take(index, _finished(in_flight.pop(index)))


def _play_one(settings: _Settings, index: int) -> tuple[str, Any]:
    """A worker's task: one game of a run (a game a task, so that a stop loses
    no finished game)."""
    return play_game(settings, index)


def _finished(future: Future) -> Any:
    """A finished task's result; its exception is raised here (with a word on a
    worker process that died)."""
    try:
        return future.result()
    except BrokenProcessPool as error:
        error.add_note(
            "a worker process stopped (killed, out of memory, or it could not start); the "
            "games finished before are kept, and running again completes the run"
        )
        raise


class _Store:
    """Where a run's finished games go, in game order: archive rows, committed
    every :data:`COMMIT_SECONDS` or ``shard_size`` games, and shard files, each
    written whole once its games are all there. A game that finishes before an
    earlier one waits in ``early``; at a stop (:meth:`stop`) the waiting games are
    stored as they are, so a stop keeps every finished game."""

    def __init__(
        self,
        summary: SimulationSummary,
        play: list[int],
        games: int,
        shard_size: int,
        folder: Path | None,
        files: set[int],
        writer: Any,
        archived: set[int],
        progress: Callable[[SimulationProgress], object] | None,
    ) -> None:
        self.summary = summary
        self.play = play
        self.games = games
        self.shard_size = shard_size
        self.folder = folder
        self.files = files
        self.writer = writer
        self.archived = archived
        self.progress = progress
        self.early: dict[int, tuple[str, Any]] = {}
        self.next = 0  # the position in ``play`` of the next game to store
        self.texts: dict[int, list[str]] = {}  # a shard's records so far
        self.places: dict[int, tuple[int, int]] = {}  # a shard's next line and byte offset
        self.rows: list[Any] = []  # rows not yet committed
        self.committed_at = time.perf_counter()
        from partita.database.schema import GAME_COLUMNS

        # places in a prepared row, which has no id
        self.source_column = GAME_COLUMNS.index("source_file") - 1
        self.result_column = GAME_COLUMNS.index("result") - 1

    def take(self, index: int, finished: tuple[str, Any]) -> None:
        """A finished game: stored now if every earlier one is, else when they are."""
        self.early[index] = finished
        play = self.play
        while self.next < len(play) and play[self.next] in self.early:
            index = play[self.next]
            self.next += 1
            self._store(index, self.early.pop(index), in_order=True)
            if time.perf_counter() - self.committed_at >= COMMIT_SECONDS:
                self.commit()
            if self.progress is not None:
                summary = self.summary
                self.progress(
                    SimulationProgress(summary.played, len(play), summary.skipped, not self.rows)
                )

    def stop(self) -> None:
        """Store the games that finished out of order (their rows name no line or
        offset: their shard file is not written), and commit."""
        for index in sorted(self.early):
            self._store(index, self.early.pop(index), in_order=False)
        self.commit()

    def commit(self) -> None:
        """Commit the rows stored so far (a Ctrl-C meanwhile is raised after it)."""
        if self.writer is None or not self.rows:
            self.committed_at = time.perf_counter()
            return
        from partita.database.schema import interrupts_held

        with interrupts_held():
            for row in self.rows:
                self.writer.add_prepared(row)
            self.writer.flush()
            self.rows = []
        self.committed_at = time.perf_counter()

    def _store(self, index: int, finished: tuple[str, Any], in_order: bool) -> None:
        text, stored = finished
        summary = self.summary
        number, position = divmod(index, self.shard_size)
        line, offset = self.places.get(number, (1, 0))
        if self.writer is not None and index not in self.archived:
            if self.folder is None:
                source: list[Any] = [SIMULATE_SOURCE, index, None, None]
            else:
                name = str(self.folder / shard_name(number))
                source = (
                    [name, position, line, offset] if in_order else [name, position, None, None]
                )
            row = list(stored.game)
            row[self.source_column : self.source_column + 4] = source
            self.rows.append(stored._replace(game=tuple(row)))
            if len(self.rows) >= self.shard_size:
                self.commit()
        result = stored.game[self.result_column]
        summary.results[result] = summary.results.get(result, 0) + 1
        summary.plies += len(stored.moves)
        summary.played += 1
        if not in_order:
            return
        self.places[number] = (line + text.count("\n") + 1, offset + len(text.encode()) + 1)
        if number in self.files:
            assert self.folder is not None
            texts = self.texts.setdefault(number, [])
            texts.append(text)
            if len(texts) == min(self.shard_size, self.games - number * self.shard_size):
                _write_shard(self.folder / shard_name(number), texts)
                del self.texts[number]
                summary.shards += 1


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
