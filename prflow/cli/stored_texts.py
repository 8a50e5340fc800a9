"""Reading what a finished run stored (reports, patches) without starting workflows of its own.

The run hands back blob keys; the texts sit in the blob store of the workers that ran it.

- When the CLI's own settings are the workers' (the embedded default: its in-process
  workers or the warm worker started with the same settings; or a cluster where this
  command serves the queues itself), it reads that store directly: nothing runs on
  Temporal at all, and it is the fastest path.
- Otherwise (a laptop on a cluster, no database access) the cluster's workers read it:
  the ``blob_read_chunk`` activity, started as a *standalone activity* (Temporal Server
  1.31 or later with ``activity.enableStandalone``; the dev server has it). It is not a
  workflow, so the Web UI's workflow list shows runs only.
- A server without standalone activities gets the ``blob_read`` workflow, as before this
  path existed, tagged ``Role=helper`` and ``ParentRun`` so the saved view hides it.

A query on the run cannot read the store (query handlers run workflow code, which does no
I/O), and an update cannot reach it once it has completed, which is when its results are
read; hence the worker-side read.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from temporalio.client import Client
from temporalio.common import (
    ActivityIDConflictPolicy,
    RetryPolicy,
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.service import RPCError, RPCStatusCode

from prflow import search_attributes as sa
from prflow.blob_chunks import BlobChunk, BlobChunkRequest
from worker.embedded import Runtime

READ_ACTIVITY = "blob_read_chunk"
READ_WORKFLOW = "blob_read"
READ_TIMEOUT = timedelta(seconds=60)
READ_RETRY = RetryPolicy(maximum_attempts=3)


async def read_stored(runtime: Runtime, run_id: str, keys: Iterable[str]) -> dict[str, str]:
    """The texts stored under ``keys`` by run ``run_id``, read as the module doc says."""
    wanted = list(dict.fromkeys(keys))
    if not wanted:
        return {}
    if runtime.embedded or runtime.serves_queue:
        return await _from_the_store(runtime, wanted)
    texts: dict[str, str] = {}
    for key in wanted:
        texts[key] = await _through_the_workers(runtime, run_id, key)
    return texts


async def _from_the_store(runtime: Runtime, keys: list[str]) -> dict[str, str]:
    import asyncio

    from prflow.store.blobs import get_text

    url = runtime.settings.resolved_database_url()
    return await asyncio.to_thread(lambda: {key: get_text(url, key) for key in keys})


async def _through_the_workers(runtime: Runtime, run_id: str, key: str) -> str:
    parts: list[str] = []
    offset: int | None = 0
    standalone = True
    while offset is not None:
        request = BlobChunkRequest(key=key, offset=offset, packed=True)
        chunk: BlobChunk | None = None
        if standalone:
            chunk = await _standalone_read(runtime.client, runtime.task_queue, request)
            standalone = chunk is not None
        if chunk is None:
            chunk = await _workflow_read(runtime.client, runtime.task_queue, run_id, request)
        parts.append(chunk.content())
        offset = chunk.next_offset
    return "".join(parts)


def _read_id(request: BlobChunkRequest) -> str:
    return f"blob-read-{request.key.removeprefix('sha256:')[:24]}-{request.offset}-packed"


async def _standalone_read(
    client: Client, task_queue: str, request: BlobChunkRequest
) -> BlobChunk | None:
    """One chunk through a standalone activity; None when the server does not run them."""
    try:
        chunk: BlobChunk = await client.execute_activity(
            READ_ACTIVITY,
            request,
            id=_read_id(request),
            task_queue=task_queue,
            result_type=BlobChunk,
            start_to_close_timeout=READ_TIMEOUT,
            heartbeat_timeout=READ_TIMEOUT / 2,
            retry_policy=READ_RETRY,
            id_conflict_policy=ActivityIDConflictPolicy.USE_EXISTING,
            summary=f"read {request.key[:19]}… from {request.offset}",
        )
    except RPCError as err:
        if err.status == RPCStatusCode.UNIMPLEMENTED:  # older server, or the feature is off
            return None
        raise
    return chunk


async def _workflow_read(
    client: Client, task_queue: str, run_id: str, request: BlobChunkRequest
) -> BlobChunk:
    """One chunk through the ``blob_read`` workflow, tagged as the run's helper."""
    chunk: BlobChunk = await client.execute_workflow(
        READ_WORKFLOW,
        request,
        id=_read_id(request),
        task_queue=task_queue,
        result_type=BlobChunk,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
        search_attributes=TypedSearchAttributes(
            [
                SearchAttributePair(sa.ROLE, sa.ROLE_HELPER),
                SearchAttributePair(sa.PARENT_RUN, run_id),
            ]
        ),
    )
    return chunk
