"""Agent transcripts in the blob store: the ordered list of message references.

A transcript blob is compact JSON ``[{"role": ..., "blob_key": ...}, ...]``;
each turn stores a new one, so a workflow holds one key however long the
conversation grows.
"""

from __future__ import annotations

from prflow.llm.messages import MessageRef
from prflow.store.blobs import get_json, put_json


def store_transcript(db_url: str, messages: list[MessageRef]) -> str:
    """Store the message list and return its key."""
    return put_json(db_url, [message.model_dump() for message in messages])


def load_transcript(db_url: str, key: str) -> list[MessageRef]:
    """The message list stored under ``key``."""
    return [MessageRef.model_validate(item) for item in get_json(db_url, key)]
