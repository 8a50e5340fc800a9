"""Where the corpus runs: a Temporal dev server, the scripted model, a ``prflow worker``
subprocess (SIGKILLed and restarted for the chaos runs), prflow's state under one folder."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from temporalio.client import Client

from bench.refactor.e2e_stage import worker_stage
from prflow.agent.planning import phase_plans
from prflow.config import Settings, cached_settings
from prflow.refactor.kind import REFACTOR
from prflow.refactor.run_models import MODEL_PHASES, RefactorRequest, RefactorResult
from prflow.store.blobs import get_text
from tests.support.fixtures_temporal import WorkerProcess
from tests.support.scripted_anthropic import ScriptedAnthropic
from workflows.refactor import RefactorWorkflow

RESULT_TIMEOUT = 1800


@dataclass
class Stage:
    client: Client
    settings: Settings
    model: ScriptedAnthropic
    worker: WorkerProcess
    plans: dict[str, Any]
    rng: random.Random = field(default_factory=lambda: random.Random(26))
    last_wall: float = 60.0
    result_timeout: float = RESULT_TIMEOUT

    async def run(self, request: RefactorRequest, run_id: str, *, kill: bool) -> RefactorResult:
        """One run; with ``kill``, the worker is SIGKILLed once at a seeded moment within
        the last undisturbed run's wall time, then restarted."""
        handle = await self.client.start_workflow(
            RefactorWorkflow.run,
            request,
            id=run_id,
            task_queue=self.settings.temporal.task_queue,
        )
        if kill:
            await asyncio.sleep(self.rng.uniform(1.0, max(2.0, self.last_wall * 0.9)))
            self.worker.kill()
            await self.worker.restart()
        loop = asyncio.get_running_loop()
        started = loop.time()
        result = await asyncio.wait_for(handle.result(), self.result_timeout)
        if not kill:
            self.last_wall = loop.time() - started
        return result

    def patch(self, result: RefactorResult) -> str:
        key = result.artifact_keys.get("combined.patch")
        return get_text(cached_settings().resolved_database_url(), key) if key else ""


def resent_turns(model: ScriptedAnthropic, seen: dict[str, int]) -> int:
    """Completed model turns asked for again since ``seen`` (a turn requested after a later
    turn of the same conversation was already requested: paid twice). The turn in flight
    at a kill may be asked again; that one is not counted."""
    resent = 0
    for route in model._routes:
        latest = -1
        asked: set[int] = set()
        for req in model.requests_of(route)[seen.get(route, 0) :]:
            turn = -1 if req.turn is None else req.turn
            if turn in asked and turn < latest:
                resent += 1
            asked.add(turn)
            latest = max(latest, turn)
    return resent


@contextlib.asynccontextmanager
async def corpus_stage(state: Path) -> AsyncIterator[Stage]:
    with ScriptedAnthropic() as model:
        async with worker_stage(state, model) as (client, settings, worker):
            yield Stage(
                client, settings, model, worker, phase_plans(settings, REFACTOR, MODEL_PHASES)
            )
