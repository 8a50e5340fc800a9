"""Start a workflow from the CLI, follow its progress, and turn failures into clear errors."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import ActivityError, ApplicationError, FailureError
from temporalio.service import RPCError

from prflow.cli.progress import PhaseDisplay
from prflow.config import Settings
from prflow.errors import USER_ERROR_TYPE, UserError
from prflow.impact.run_models import WORKFLOW_KIND, ImpactProgress, ImpactRequest, ImpactResult
from worker import search_attributes as sa
from worker.embedded import temporal_runtime

POLL_SECONDS = 0.5


class WorkflowFailed(Exception):
    """The workflow failed for a reason that is not the user's; the message says where to look."""


def _search_attributes(request: ImpactRequest) -> TypedSearchAttributes:
    pairs: list[SearchAttributePair[Any]] = [SearchAttributePair(sa.KIND, WORKFLOW_KIND)]
    if request.pull_request is not None:
        pr = request.pull_request
        pairs.append(SearchAttributePair(sa.REPO, f"{pr.owner}/{pr.repo}"))
        pairs.append(SearchAttributePair(sa.PR, pr.number))
    elif request.repo:
        pairs.append(SearchAttributePair(sa.REPO, request.repo))
    return TypedSearchAttributes(pairs)


async def start_impact(
    client: Client, settings: Settings, request: ImpactRequest, workflow_id: str
) -> WorkflowHandle[object, ImpactResult]:
    """Start the run, or attach to the one already running under this id (same PR and SHA)."""
    return await client.start_workflow(
        "impact",
        request,
        id=workflow_id,
        task_queue=settings.temporal.task_queue,
        result_type=ImpactResult,
        search_attributes=_search_attributes(request),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
        static_summary=f"impact {workflow_id}",
    )


async def follow(
    handle: WorkflowHandle[object, ImpactResult], display: PhaseDisplay
) -> ImpactResult:
    """Wait for the result while refreshing the display from the ``progress`` query."""
    result_task = asyncio.ensure_future(handle.result())
    try:
        while not result_task.done():
            with contextlib.suppress(RPCError):
                progress = await handle.query("progress", result_type=ImpactProgress)
                display.update(progress)
            await asyncio.wait({result_task}, timeout=POLL_SECONDS)
        with contextlib.suppress(RPCError):
            display.update(await handle.query("progress", result_type=ImpactProgress))
        return result_task.result()
    except WorkflowFailureError as err:
        raise _explain(err, handle.id) from None
    finally:
        if not result_task.done():
            result_task.cancel()


def _explain(err: WorkflowFailureError, workflow_id: str) -> Exception:
    cause: BaseException | None = err.cause
    while isinstance(cause, ActivityError | FailureError) and cause.cause is not None:
        if isinstance(cause, ApplicationError) and cause.type == USER_ERROR_TYPE:
            break
        cause = cause.cause
    if isinstance(cause, ApplicationError) and cause.type == USER_ERROR_TYPE:
        return UserError(cause.message)
    message = cause.message if isinstance(cause, FailureError) else str(cause or err)
    return WorkflowFailed(f"workflow {workflow_id} failed: {message}")


async def run_impact_workflow(
    settings: Settings, request: ImpactRequest, workflow_id: str, display: PhaseDisplay
) -> ImpactResult:
    async with temporal_runtime(settings) as runtime:
        if runtime.ui_url:
            display.note(
                f"Temporal Web UI: {runtime.ui_url}/namespaces/{settings.temporal.namespace}"
                f"/workflows/{workflow_id}"
            )
        handle = await start_impact(runtime.client, settings, request, workflow_id)
        return await follow(handle, display)
