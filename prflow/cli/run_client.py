"""Start or attach to a run of any kind, follow it, and fetch what it produced.

One path for every kind: the run is named by the kind's id function (the
same request attaches to the run in flight), started by the kind's name,
followed through the generic ``progress`` query, and its outputs come back
inline in the result or are read as :mod:`prflow.cli.stored_texts` says (no
workflow of their own; a laptop on a cluster needs no database access).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    FailureError,
    WorkflowAlreadyStartedError,
)
from temporalio.service import RPCError, RPCStatusCode

from prflow.cli import timings
from prflow.cli.interrupts import note_run
from prflow.cli.progress import PhaseDisplay
from prflow.cli.stored_texts import read_stored
from prflow.cli.workflow_failed import WorkflowFailed
from prflow.config import Settings
from prflow.errors import USER_ERROR_TYPE, UserError
from prflow.kinds import KindDeclaration
from prflow.run_handlers import PROGRESS_QUERY
from prflow.run_progress import RunProgress
from prflow.task_queues import QueueNames, routing_memo
from worker.embedded import Runtime
from worker.orphans import owner_pid, terminate_orphan

POLL_SECONDS = 0.5
WORKER_WAIT_SECONDS = 10.0


async def start_or_attach(
    client: Client, kind: KindDeclaration, request: BaseModel, queues: QueueNames
) -> WorkflowHandle[Any, Any]:
    """Start the run on ``queues`` (attached as its routing memo), or attach to the one
    already running under the same id.

    A run left on the private queue of a command that is gone (killed, interrupted) has
    nothing to serve it: it is terminated and started over, not attached to. A run this
    call started itself is on ``queues.main``: only an attached run is described.
    """
    from worker.orphans import owner_gone

    workflow_id = kind.workflow_id(request)
    task_queue = queues.main

    async def start(conflict: WorkflowIDConflictPolicy) -> WorkflowHandle[Any, Any]:
        return await client.start_workflow(
            kind.name,
            request,
            id=workflow_id,
            task_queue=task_queue,
            memo=routing_memo(queues),
            result_type=kind.result_type,
            id_conflict_policy=conflict,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
            static_summary=f"{kind.name} {workflow_id}",
        )

    with contextlib.suppress(WorkflowAlreadyStartedError):
        return await start(WorkflowIDConflictPolicy.FAIL)
    for _ in range(2):
        handle = await start(WorkflowIDConflictPolicy.USE_EXISTING)
        running_on = (await handle.describe()).task_queue
        if running_on == task_queue or not owner_gone(running_on):
            break
        await terminate_orphan(client, workflow_id, running_on)
    return handle


async def queue_has_workers(client: Client, task_queue: str) -> bool:
    """Whether any worker polled ``task_queue`` for workflow tasks recently."""
    described = await client.workflow_service.describe_task_queue(
        DescribeTaskQueueRequest(
            namespace=client.namespace,
            task_queue=TaskQueue(name=task_queue),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        )
    )
    return len(described.pollers) > 0


async def require_workers(
    client: Client, task_queue: str, address: str, within: float = WORKER_WAIT_SECONDS
) -> None:
    """Fail with one line when no worker serves ``task_queue`` within ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        with contextlib.suppress(RPCError):
            if await queue_has_workers(client, task_queue):
                return
        if time.monotonic() >= deadline:
            raise UserError(
                f"no prflow worker is polling task queue {task_queue!r} at {address}: start "
                "one with `prflow worker` (same TEMPORAL_ADDRESS); the run stays queued, and "
                "running this command again attaches to it"
            )
        await asyncio.sleep(POLL_SECONDS)


SERVER_DOWN_CODES = (RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED)
SERVER_WAIT_SECONDS = 600.0
"""How long a client waits for a server that stopped answering (a restart) before giving up."""


async def _patient_result(
    handle: WorkflowHandle[Any, Any], display: PhaseDisplay, within: float
) -> Any:
    """The run's result, waiting through a server that is briefly down (a restart): the
    run lives on the server, so losing it for a while is no reason to give up."""
    lost_since: float | None = None
    while True:
        try:
            return await handle.result()
        except RPCError as err:
            if err.status not in SERVER_DOWN_CODES:
                raise
            now = time.monotonic()
            if lost_since is None:
                lost_since = now
                display.note("the Temporal server stopped answering; waiting for it to return")
            elif now - lost_since > within:
                raise UserError(
                    f"the Temporal server has not answered for {within:.0f}s; the run "
                    f"{handle.id} is kept there: start the server again and run the same "
                    "command to attach"
                ) from None
            await asyncio.sleep(POLL_SECONDS * 2)


async def follow(
    handle: WorkflowHandle[Any, Any],
    display: PhaseDisplay,
    *,
    server_wait: float = SERVER_WAIT_SECONDS,
) -> Any:
    """Wait for the result while refreshing the display from the ``progress`` query.

    A display that shows nothing (``--quiet``) asks for no progress: each query is a
    round trip to a worker, and the last one comes after the result is in.
    """
    if not display.shows_progress:
        try:
            return await _patient_result(handle, display, server_wait)
        except WorkflowFailureError as err:
            raise explain_failure(err, handle.id) from None
    result_task = asyncio.ensure_future(_patient_result(handle, display, server_wait))
    try:
        while not result_task.done():
            with contextlib.suppress(RPCError):
                display.update(await handle.query(PROGRESS_QUERY, result_type=RunProgress))
            await asyncio.wait({result_task}, timeout=POLL_SECONDS)
        with contextlib.suppress(RPCError):
            display.update(await handle.query(PROGRESS_QUERY, result_type=RunProgress))
        return result_task.result()
    except WorkflowFailureError as err:
        raise explain_failure(err, handle.id) from None
    finally:
        if not result_task.done():
            result_task.cancel()


def explain_failure(err: WorkflowFailureError, workflow_id: str) -> Exception:
    """A user error from deep inside the run becomes a :class:`UserError`; the rest fail."""
    cause: BaseException | None = err.cause
    while isinstance(cause, ActivityError | FailureError) and cause.cause is not None:
        if isinstance(cause, ApplicationError) and cause.type == USER_ERROR_TYPE:
            break
        cause = cause.cause
    if isinstance(cause, ApplicationError) and cause.type == USER_ERROR_TYPE:
        return UserError(cause.message)
    message = cause.message if isinstance(cause, FailureError) else str(cause or err)
    return WorkflowFailed(f"workflow {workflow_id} failed: {message}")


async def run_on(
    runtime: Runtime,
    kind: KindDeclaration,
    request: BaseModel,
    display: PhaseDisplay,
    *,
    wanted_blobs: Callable[[Any], Sequence[str]] = lambda _result: (),
) -> tuple[Any, dict[str, str]]:
    """Run ``request`` as a ``kind`` workflow; return its result and the wanted blobs' texts."""
    workflow_id = kind.workflow_id(request)
    if runtime.ui_url:
        display.note(
            f"Temporal Web UI: {runtime.ui_url}/namespaces/{runtime.settings.temporal.namespace}"
            f"/workflows/{workflow_id}"
        )
    handle = await start_or_attach(runtime.client, kind, request, runtime.queues)
    timings.mark("started")
    timings.fact("workflow_id", handle.id)
    timings.fact("run_id", handle.result_run_id or "")
    own_queues = owner_pid(runtime.task_queue) is not None
    note_run(workflow_id, own_queues=own_queues)
    if not runtime.serves_queue:
        await require_workers(runtime.client, runtime.task_queue, runtime.address)
    try:
        result = await follow(handle, display)
    except BaseException:
        if own_queues:  # interrupted: nothing but this command could ever serve the run
            with contextlib.suppress(RPCError, asyncio.CancelledError):
                await terminate_orphan(runtime.client, workflow_id, runtime.task_queue)
        raise
    timings.mark("result")
    texts = await read_stored(runtime, workflow_id, wanted_blobs(result))
    timings.mark("fetched")
    return result, texts


def run_request(
    settings: Settings,
    kind: KindDeclaration,
    request: BaseModel,
    wanted_blobs: Callable[[Any], Sequence[str]],
    *,
    quiet: bool,
) -> tuple[Any, dict[str, str]]:
    """Every kind's run-and-render step: the run to its result and the stored texts
    ``wanted_blobs`` names, under a display titled ``prflow <kind>  <run id>``."""
    title = f"prflow {kind.name}  {kind.workflow_id(request)}"
    return asyncio.run(run_with_display(settings, kind, title, request, wanted_blobs, quiet=quiet))


async def run_with_display(
    settings: Settings,
    kind: KindDeclaration,
    title: str,
    request: BaseModel,
    wanted_blobs: Callable[[Any], Sequence[str]],
    *,
    quiet: bool,
) -> tuple[Any, dict[str, str]]:
    """Start (or attach to) a run of ``kind`` on the configured or embedded Temporal, showing
    its phases; the runtime routes the run to its queues (embedded runs use private ones)."""
    from worker.embedded import temporal_runtime

    if not settings.temporal.address:  # this machine's workers write the ledger: check it now
        from prflow.cli.ledger_check import check_ledger_reachable

        check_ledger_reachable(settings.resolved_database_url())
    with PhaseDisplay(title, quiet=quiet) as display:
        timings.mark("connecting")
        async with temporal_runtime(settings) as runtime:
            timings.mark("connected")
            return await run_on(runtime, kind, request, display, wanted_blobs=wanted_blobs)
