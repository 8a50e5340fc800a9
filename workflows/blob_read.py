"""Read one chunk of a stored result, for clients without database access.

No longer how this release's CLI reads results (see :mod:`prflow.cli.stored_texts`: the
store directly, or a standalone activity on the cluster's workers). Kept registered because
something still needs it: the CLI's fallback on a Temporal server without standalone
activities (started tagged ``Role=helper``), clients of 0.2.0 talking to upgraded workers,
and the committed 0.2.0 history that must replay.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.blobs import read_blob_chunk
    from prflow.blob_chunks import BlobChunk, BlobChunkRequest

BLOB_READ = "blob_read"


@workflow.defn(name=BLOB_READ)
class BlobReadWorkflow:
    @workflow.run
    async def run(self, request: BlobChunkRequest) -> BlobChunk:
        return await workflow.execute_activity(
            read_blob_chunk,
            request,
            start_to_close_timeout=timedelta(seconds=60),
            heartbeat_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(maximum_attempts=3),
            summary=f"read {request.key[:19]}… from {request.offset}",
        )
