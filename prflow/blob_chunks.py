"""Slices of a stored text, for clients that read results through Temporal, not the database.

A slice travels either as plain text (at most :data:`CHUNK_CHARS` characters)
or, when the client asks for it, packed: zlib-compressed and base64-encoded,
as many characters as fit in :data:`PACKED_BYTES`. Reports are repetitive JSON
or Markdown, so a packed slice carries ten times more text and a
multi-megabyte report arrives in one or two round trips instead of twenty.
"""

from __future__ import annotations

import base64
import zlib

from pydantic import BaseModel, Field

CHUNK_CHARS = 128 * 1024
"""Characters per plain slice: well below Temporal's payload limit even for 2-byte characters."""
PACKED_BYTES = 192 * 1024
"""Most base64 characters in a packed slice, below the 256 KiB payload budget."""
_PACKED_START_CHARS = 4 * 1024 * 1024
"""The first slice tried when packing; halved until its packed form fits."""


class BlobChunkRequest(BaseModel):
    key: str
    offset: int = Field(default=0, ge=0)
    packed: bool = Field(default=False, description="Answer with a compressed slice")


class BlobChunk(BaseModel):
    text: str
    next_offset: int | None = Field(description="Where the next chunk starts; None at the end")
    packed: str | None = Field(
        default=None, description="base64 of the zlib-compressed slice, instead of text"
    )

    def content(self) -> str:
        """The slice's text, unpacked when it travelled compressed."""
        if self.packed is None:
            return self.text
        return zlib.decompress(base64.b64decode(self.packed)).decode("utf-8")


def chunk_of(text: str, offset: int, *, packed: bool = False) -> BlobChunk:
    """The slice of ``text`` starting at ``offset``."""
    if not packed:
        end = offset + CHUNK_CHARS
        return BlobChunk(text=text[offset:end], next_offset=end if end < len(text) else None)
    size = _PACKED_START_CHARS
    while True:
        end = min(offset + size, len(text))
        encoded = base64.b64encode(zlib.compress(text[offset:end].encode("utf-8"), 6))
        if len(encoded) <= PACKED_BYTES or size <= CHUNK_CHARS // 4:
            break
        size //= 2
    return BlobChunk(
        text="", packed=encoded.decode("ascii"), next_offset=end if end < len(text) else None
    )
