"""One impact run on the stage, with or without a SIGKILL, and what it left behind.

A run is timed from its start to its result. With a kill delay, the worker is
SIGKILLed that long after the start and a fresh one started at once. Then the
run is audited from the outside: the report it returned, the requests the
model server received, the ledger rows, and the comments on its pull request.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from dataclasses import dataclass

from temporalio.api.enums.v1 import PendingActivityState
from temporalio.client import WorkflowHandle

from bench.chaos.stage import OWNER, REPO, Stage
from prflow.impact.models import LlmStatus
from prflow.impact.render.comment import IMPACT_COMMENT_MARKER
from prflow.impact.run_models import ImpactResult
from prflow.store.ledger import attempts_for_workflow
from workflows.impact import ImpactWorkflow

RUN_TIMEOUT_SECONDS = 600.0


@dataclass(frozen=True)
class RunRecord:
    """What one run did, as seen from outside prflow."""

    number: int
    kill_after: float | None
    killed_during: str
    wall_seconds: float
    complete: bool
    requests: int
    turns: int
    ledger_rows: int
    unfinished_rows: int
    comments: int

    @property
    def completed_turns_resent(self) -> int:
        """Requests beyond one per turn that no killed or failed attempt accounts for."""
        return max(0, self.requests - self.turns - self.unfinished_rows)


async def _running_now(handle: WorkflowHandle[ImpactWorkflow, ImpactResult]) -> str:
    """The activities a worker is executing for the run at this moment."""
    described = await handle.describe()
    started = PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
    names = [
        pending.activity_type.name
        for pending in described.raw_description.pending_activities
        if pending.state == started
    ]
    return ", ".join(names) or "workflow task / between tasks"


async def _kill_after(
    stage: Stage, handle: WorkflowHandle[ImpactWorkflow, ImpactResult], seconds: float
) -> str:
    await asyncio.sleep(seconds)
    try:
        during = await _running_now(handle)
    except Exception as exc:  # the run may have ended: the kill still happens
        during = f"unknown ({type(exc).__name__})"
    stage.worker.kill()
    await stage.worker.restart()
    return during


def _is_complete(result: ImpactResult) -> bool:
    """A full report: score, Markdown, a completed model phase and a posted comment."""
    markdown = result.inline.get("md") or ""
    return (
        "**Risk Score**" in markdown
        and result.llm.status == LlmStatus.completed
        and result.comment_url is not None
    )


async def impact_run(stage: Stage, number: int, kill_after: float | None) -> RunRecord:
    """Run impact on PR ``number`` (killing the worker after ``kill_after`` s) and audit it."""
    pr = stage.open_pull_request(number)
    workflow_id = f"chaos-{number}"
    seen_before = len(stage.model.requests)
    started = time.perf_counter()
    handle = await stage.client.start_workflow(
        ImpactWorkflow.run,
        stage.impact_request(pr),
        id=workflow_id,
        task_queue=stage.settings.temporal.task_queue,
    )
    killer = None
    if kill_after is not None:
        killer = asyncio.create_task(_kill_after(stage, handle, kill_after))
    result = await asyncio.wait_for(handle.result(), RUN_TIMEOUT_SECONDS)
    wall = time.perf_counter() - started
    during = await killer if killer is not None else "-"

    requests = stage.model.requests[seen_before:]
    rows = attempts_for_workflow(stage.db_url, workflow_id)
    outcomes = Counter(row.outcome for row in rows)
    marked = [
        comment
        for comment in stage.github.comments(OWNER, REPO, number)
        if IMPACT_COMMENT_MARKER in comment.body
    ]
    return RunRecord(
        number=number,
        kill_after=kill_after,
        killed_during=during,
        wall_seconds=wall,
        complete=_is_complete(result),
        requests=len(requests),
        turns=len({request.turn for request in requests}),
        ledger_rows=len(rows),
        unfinished_rows=len(rows) - outcomes["success"],
        comments=len(marked),
    )


def p50(values: list[float]) -> float:
    return statistics.median(values)
