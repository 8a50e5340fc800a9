"""Reading stored results for clients that have no database access (a laptop on a cluster).

The CLI gets small reports inline in a workflow result; larger ones it reads
through this activity in chunks below Temporal's payload limit.
"""

from __future__ import annotations

from temporalio import activity

from activities.heartbeats import heartbeating
from prflow.blob_chunks import BlobChunk, BlobChunkRequest, chunk_of
from prflow.config import cached_settings
from prflow.store.blobs import get_text


@activity.defn(name="blob_read_chunk")
@heartbeating
def read_blob_chunk(request: BlobChunkRequest) -> BlobChunk:
    """A slice of a stored text blob, plain or packed as the client asked."""
    text = get_text(cached_settings().resolved_database_url(), request.key)
    return chunk_of(text, request.offset, packed=request.packed)
