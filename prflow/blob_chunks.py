"""Slices of a stored text, for clients that read results through Temporal, not the database."""

from __future__ import annotations

from pydantic import BaseModel, Field

CHUNK_CHARS = 128 * 1024
"""Characters per slice: well below Temporal's payload limit even for 2-byte characters."""


class BlobChunkRequest(BaseModel):
    key: str
    offset: int = Field(default=0, ge=0)


class BlobChunk(BaseModel):
    text: str
    next_offset: int | None = Field(description="Where the next chunk starts; None at the end")


def chunk_of(text: str, offset: int) -> BlobChunk:
    """The slice of ``text`` starting at ``offset``."""
    end = offset + CHUNK_CHARS
    return BlobChunk(text=text[offset:end], next_offset=end if end < len(text) else None)
