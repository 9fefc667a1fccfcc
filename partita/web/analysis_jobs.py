"""Analysis jobs: a position asked of an agent, the solver or the endgame analysis,
run off the request path in a worker process of the execution layer
(:func:`partita.execution.open_executor`), bounded by a time budget, with
progress and Cancel; the page ``/analysis`` and the API ``/api/analysis``.

Each job runs in a worker process of its own (started for it, stopped when it ends
or is cancelled: cancelling stops the process, so the CPU is free at once); at most
``analysis_workers`` jobs run at once, the others wait their turn (``queued``).
A job that outlives its budget (plus the worker's start) is stopped and says so.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from partita.errors import PartitaError
from partita.web.app import WebSettings, settings
from partita.web.positions import PositionRef, position_from
from partita.web.queries import text
from partita.web.templating import render, url

__all__ = ["Job", "JobBoard", "routes", "shutdown_jobs", "start_job"]

#: Seconds a worker may take to start, on top of a job's budget.
START_GRACE = 20.0
#: Finished jobs kept for their pages to read.
KEPT = 200
#: Jobs queued at once at most.
MOST_WAITING = 20


class _Stop(Exception):
    """The job is cancelled or out of time: the worker is stopped."""


@dataclass
class Job:
    """One analysis: its task, state (``queued``, ``running``, ``done``,
    ``failed``, ``cancelled``), times, result or error."""

    id: str
    task: dict[str, Any]
    state: str = "queued"
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    result: dict[str, Any] | None = None
    error: str | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    def as_dict(self) -> dict[str, Any]:
        """The API's job: ``id``, ``state``, ``kind``, ``budget_seconds``,
        ``elapsed``, ``progress`` (0 to 1: the share of the time budget used),
        ``result`` (once done), ``error`` (once failed or cancelled)."""
        now = time.monotonic()
        elapsed = 0.0
        if self.started is not None:
            elapsed = (self.finished or now) - self.started
        budget = float(self.task["seconds"])
        progress = 1.0 if self.state == "done" else min(0.99, elapsed / budget) if budget else 0.0
        return {
            "id": self.id,
            "state": self.state,
            "kind": self.task["kind"],
            "game": self.task["game"],
            "position": self.task.get("position"),
            "moves": self.task.get("moves") or [],
            "agent": self.task.get("agent"),
            "budget_seconds": budget,
            "elapsed": round(elapsed, 2),
            "progress": round(progress, 3),
            "result": self.result,
            "error": self.error,
        }


class JobBoard:
    """The jobs of one running app."""

    def __init__(self, workers: int) -> None:
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.lock = threading.Lock()
        self.slots = threading.Semaphore(workers)
        self.closed = False

    def add(self, task: dict[str, Any]) -> Job:
        with self.lock:
            waiting = sum(1 for job in self.jobs.values() if job.state in ("queued", "running"))
            if waiting >= MOST_WAITING:
                raise PartitaError(f"{waiting} analyses are waiting already: cancel one first")
            job = Job(secrets.token_hex(8), task)
            self.jobs[job.id] = job
            finished = [key for key, old in self.jobs.items() if old.finished is not None]
            for key in finished[: max(0, len(self.jobs) - KEPT)]:
                del self.jobs[key]
        threading.Thread(target=self._run, args=(job,), daemon=True, name=f"job-{job.id}").start()
        return job

    def get(self, job_id: str) -> Job:
        with self.lock:
            job = self.jobs.get(job_id)
        if job is None:
            raise HTTPException(404, f"there is no analysis {job_id!r} (finished long ago?)")
        return job

    def _run(self, job: Job) -> None:
        while not self.slots.acquire(timeout=0.2):
            if job.cancel.is_set() or self.closed:
                self._end(job, "cancelled", error="cancelled before it started")
                return
        try:
            if job.cancel.is_set() or self.closed:
                self._end(job, "cancelled", error="cancelled before it started")
                return
            job.state = "running"
            job.started = time.monotonic()
            self._work(job)
        finally:
            self.slots.release()

    def _work(self, job: Job) -> None:
        from partita.execution import open_executor
        from partita.web.analysis_tasks import analyse

        deadline = time.monotonic() + float(job.task["seconds"]) + START_GRACE
        try:
            with open_executor(1, inline=False) as execution:
                future = execution.submit(analyse, job.task)
                while not future.done():
                    if job.cancel.wait(0.05) or self.closed:
                        raise _Stop("cancelled")
                    if time.monotonic() > deadline:
                        raise _Stop(f"stopped: it outran its budget of {job.task['seconds']:g} s")
                result = future.result()
        except _Stop as stop:
            self._end(job, "cancelled", error=str(stop))
        except PartitaError as error:
            self._end(job, "failed", error=str(error))
        except Exception as error:  # a worker that died, a bug: one line, no traceback
            self._end(job, "failed", error=f"internal error: {type(error).__name__}: {error}")
        else:
            job.result = result
            self._end(job, "done")

    @staticmethod
    def _end(job: Job, state: str, *, error: str | None = None) -> None:
        job.error = error
        job.finished = time.monotonic()
        job.state = state

    def close(self) -> None:
        self.closed = True
        with self.lock:
            for job in self.jobs.values():
                job.cancel.set()


def board(app: Any) -> JobBoard:
    found = getattr(app.state, "jobs", None)
    if found is None:
        chosen: WebSettings = app.state.settings
        found = app.state.jobs = JobBoard(chosen.analysis_workers)
    return found


def shutdown_jobs(app: Any) -> None:
    """Cancel every job (the workers stop): the server is stopping."""
    found = getattr(app.state, "jobs", None)
    if found is not None:
        found.close()


def _float(value: Any, name: str, low: float, high: float, default: float) -> float:
    if value is None or value == "":
        return default
    try:
        found = float(value)
    except (TypeError, ValueError):
        raise PartitaError(f"{name} must be a number of seconds, not {value!r}") from None
    if not low <= found <= high:
        raise PartitaError(f"{name} must be between {low:g} and {high:g}, not {found:g}")
    return found


def task_from(data: dict[str, Any], chosen: WebSettings) -> dict[str, Any]:
    """A job's task from a request's JSON (checked: an error names what is wrong)."""
    from starlette.datastructures import QueryParams

    from partita.web.analysis_tasks import KINDS

    if not isinstance(data, dict):
        raise PartitaError('send a JSON object: {"game": ..., "kind": ...}')
    pairs: list[tuple[str, str]] = []
    for name in ("game", "sides", "position", "moves"):
        value = data.get(name)
        if value not in (None, ""):
            pairs.append((name, " ".join(value) if isinstance(value, list) else str(value)))
    tags = data.get("tag") or []
    if isinstance(tags, str):
        tags = [tags]
    pairs.extend(("tag", str(tag)) for tag in tags)
    ref = position_from(QueryParams(pairs))
    kind = str(data.get("kind") or "agent")
    if kind not in KINDS:
        raise PartitaError(f"unknown analysis '{kind}' (one of {', '.join(KINDS)})")
    seconds = _float(data.get("seconds"), "seconds", 0.1, chosen.max_seconds, 10.0)
    agent = str(data.get("agent") or "mcts:2000")
    if kind == "agent":
        _check_agent(agent, chosen)
    return {
        "kind": kind,
        "game": ref.game,
        "sides": ref.sides,
        "tags": list(ref.tags),
        "position": ref.position,
        "moves": list(ref.moves),
        "agent": agent,
        "seconds": seconds,
        "max_playouts": chosen.max_iterations,
        "seed": 1,
    }


def _check_agent(spec: str, chosen: WebSettings) -> None:
    """Refuse, before any work, an agent that gives no scores or asks more playouts
    than the server allows (a time budget is bounded by ``seconds``)."""
    kind, options = chosen.served_agent(spec)
    if kind != "mcts":
        raise PartitaError(f"agent '{spec}' gives no scores: ask mcts:N (playouts) or mcts:Ts")
    asked = options.get("playouts") or 0
    if asked > chosen.max_iterations:
        raise PartitaError(
            f"agent '{spec}': at most {chosen.max_iterations:,} playouts here (asked {asked:,})"
        )


async def start_job(request: Request) -> Response:
    """``POST /api/analysis``: start one; 202 with the job."""
    try:
        data = await request.json()
    except ValueError:
        raise PartitaError("the body is not JSON") from None
    task = task_from(data, settings(request))
    job = board(request.app).add(task)
    return JSONResponse(job.as_dict(), status_code=202)


async def job_status(request: Request) -> Response:
    return JSONResponse(board(request.app).get(request.path_params["job_id"]).as_dict())


async def cancel_job(request: Request) -> Response:
    job = board(request.app).get(request.path_params["job_id"])
    job.cancel.set()
    return JSONResponse(job.as_dict(), status_code=202)


async def list_jobs(request: Request) -> Response:
    found = board(request.app)
    with found.lock:
        jobs = [job.as_dict() for job in found.jobs.values()]
    return JSONResponse(jobs)


def analysis_page(request: Request) -> Response:
    from partita.analysis.solving import has_solver
    from partita.game.registry import all_specs
    from partita.web.analysis_tasks import KINDS

    params = request.query_params
    games = [(spec.name, spec.title) for spec in all_specs()]
    ref: PositionRef | None = None
    error = None
    if text(params, "game") is not None:
        try:
            ref = position_from(params)
            ref.text()
        except PartitaError as problem:
            error, ref = str(problem), None
    chosen = settings(request)
    context: dict[str, Any] = {
        "games": games,
        "ref": ref,
        "error": error,
        "kinds": KINDS,
        "max_seconds": chosen.max_seconds,
    }
    if ref is not None:
        state = ref.state()
        rules = ref.notation().rules
        context.update(
            solvable=has_solver(ref.game),
            over=rules.outcome(state) is not None,
            board_url=url("/positions/board.svg", **ref.query()),
            client={
                "game": ref.game,
                "sides": ref.sides,
                "tag": [f"{n}={v}" for n, v in ref.tags],
                "position": ref.position,
                "moves": list(ref.moves),
            },  # fmt: skip
            explore_url=url("/explorer", **ref.here()),
            games_url=url("/", **ref.here()),
        )
    return render(request, "analysis.html", context, status=400 if error else 200)


routes: list[BaseRoute] = [
    Route("/analysis", analysis_page, name="analysis"),
    Route("/api/analysis", start_job, methods=["POST"], name="api_analysis_start"),
    Route("/api/analysis", list_jobs, methods=["GET"], name="api_analysis_list"),
    Route("/api/analysis/{job_id}", job_status, name="api_analysis_job"),
    Route(
        "/api/analysis/{job_id}/cancel", cancel_job, methods=["POST"], name="api_analysis_cancel"
    ),
]
