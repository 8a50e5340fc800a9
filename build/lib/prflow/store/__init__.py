"""Durable local state: the LLM cost ledger and the content-addressed blob store.

Everything here talks to one SQLAlchemy database URL (Postgres in production,
a SQLite file by default). The schema is created and upgraded by Alembic on
first use of a URL in a process, so callers only ever pass the URL.
"""

from __future__ import annotations

from prflow.store.blobs import (
    BlobCorrupted,
    BlobNotFound,
    get_blob,
    get_json,
    get_text,
    put_blob,
    put_json,
    put_text,
)
from prflow.store.database import engine_for
from prflow.store.ledger import (
    LlmAttempt,
    attempts_for_workflow,
    record_attempt,
    spend_for_workflow,
)

__all__ = [
    "BlobCorrupted",
    "BlobNotFound",
    "LlmAttempt",
    "attempts_for_workflow",
    "engine_for",
    "get_blob",
    "get_json",
    "get_text",
    "put_blob",
    "put_json",
    "put_text",
    "record_attempt",
    "spend_for_workflow",
]
