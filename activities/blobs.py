"""Reading stored results for clients that have no database access (a laptop on a cluster).

The CLI gets small reports inline in a workflow result; larger ones it reads
through this activity in chunks below Temporal's payload limit.
"""

from __future__ import annotations

from pydantic import BaseModel, Field
from temporalio import activity

from activities.heartbeats import heartbeating
from prflow.config import cached_settings
from prflow.store.blobs import get_text

CHUNK_CHARS = 128 * 1024


class BlobChunkRequest(BaseModel):
    key: str
    offset: int = Field(default=0, ge=0)


class BlobChunk(BaseModel):
    text: str
    next_offset: int | None = Field(description="Where the next chunk starts; None at the end")


@activity.defn(name="blob_read_chunk")
@heartbeating
def read_blob_chunk(request: BlobChunkRequest) -> BlobChunk:
    """A slice of a stored text blob (at most :data:`CHUNK_CHARS` characters)."""
    text = get_text(cached_settings().resolved_database_url(), request.key)
    end = request.offset + CHUNK_CHARS
    return BlobChunk(text=text[request.offset : end], next_offset=end if end < len(text) else None)
