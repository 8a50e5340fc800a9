"""Content-addressed blob store: workflows pass ``sha256:<hex>`` keys, not payloads.

Diffs, file contents, transcripts and reports are too big for Temporal
history, so activities store them here and hand the key on. A key is the hash
of the bytes, which makes writes idempotent (a retried activity stores
nothing new) and lets every read check that the bytes are still the ones
that were written.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine, select

from prflow.store.database import engine_for
from prflow.store.schema import BlobRow, utc_now
from prflow.store.upsert import insert_ignoring_duplicates

KEY_PREFIX = "sha256:"
JSON_MEDIA_TYPE = "application/json"
TEXT_MEDIA_TYPE = "text/plain; charset=utf-8"


class BlobNotFound(KeyError):
    """No blob is stored under the key (a wrong key, or a different database)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

    def __str__(self) -> str:
        return f"no blob stored under {self.key}"


class BlobCorrupted(RuntimeError):
    """The stored bytes no longer hash to their key, so they cannot be trusted."""

    def __init__(self, key: str, actual: str) -> None:
        super().__init__(f"blob {key} is corrupted: its stored bytes hash to {actual}")
        self.key = key
        self.actual = actual


def blob_key(data: bytes) -> str:
    """The key ``data`` is stored under."""
    return KEY_PREFIX + hashlib.sha256(data).hexdigest()


def put_blob(db_url: str, data: bytes, media_type: str = "application/octet-stream") -> str:
    """Store ``data`` (once, however often it is put) and return its key."""
    key = blob_key(data)
    engine = engine_for(db_url)
    if not _exists(engine, key):
        values = {
            "key": key,
            "data": data,
            "size": len(data),
            "media_type": media_type,
            "created_at": utc_now(),
        }
        with engine.begin() as connection:
            insert_ignoring_duplicates(connection, BlobRow, values, ["key"])
    return key


def get_blob(db_url: str, key: str) -> bytes:
    """The bytes stored under ``key``, verified against the key's hash."""
    with engine_for(db_url).connect() as connection:
        data = connection.execute(select(BlobRow.data).where(BlobRow.key == key)).scalar()
    if data is None:
        raise BlobNotFound(key)
    data = bytes(data)  # Postgres drivers may return memoryview
    actual = blob_key(data)
    if actual != key:
        raise BlobCorrupted(key, actual)
    return data


def put_json(db_url: str, value: object) -> str:
    """Store a JSON value (or a pydantic model) compactly with sorted keys.

    Equal values therefore serialise to equal bytes and share one key.
    """
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    encoded = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return put_blob(db_url, encoded.encode("utf-8"), JSON_MEDIA_TYPE)


def get_json(db_url: str, key: str) -> Any:
    """The JSON value stored under ``key``."""
    return json.loads(get_blob(db_url, key).decode("utf-8"))


def put_text(db_url: str, text: str) -> str:
    """Store UTF-8 text and return its key."""
    return put_blob(db_url, text.encode("utf-8"), TEXT_MEDIA_TYPE)


def get_text(db_url: str, key: str) -> str:
    """The text stored under ``key``."""
    return get_blob(db_url, key).decode("utf-8")


def _exists(engine: Engine, key: str) -> bool:
    # Avoids shipping large payloads to the database again when they are already there.
    with engine.connect() as connection:
        found = connection.execute(select(BlobRow.key).where(BlobRow.key == key)).first()
    return found is not None
