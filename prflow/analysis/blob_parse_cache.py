"""The parse cache in prflow's blob store, shared by every worker using the same database."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import select

from prflow.store.database import engine_for
from prflow.store.schema import BlobRow, utc_now
from prflow.store.upsert import insert_ignoring_duplicates


@dataclass
class BlobStoreParseCache:
    """Parse results in the blob store, one row per (parser, version, git blob SHA).

    Rows are addressed by the *input* they were computed from (the derived key
    below), not by the hash of their own bytes, so they are read here with a
    plain select and never through ``get_blob``.
    """

    db_url: str
    media_type: str = "application/vnd.prflow.parse+json"

    @staticmethod
    def row_key(key: str) -> str:
        return "sha256:" + hashlib.sha256(b"prflow-parse-cache\0" + key.encode()).hexdigest()

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        by_row = {self.row_key(key): key for key in keys}
        found: dict[str, bytes] = {}
        rows = sorted(by_row)
        with engine_for(self.db_url).connect() as connection:
            for start in range(0, len(rows), 500):
                chunk = rows[start : start + 500]
                query = select(BlobRow.key, BlobRow.data).where(BlobRow.key.in_(chunk))
                for row_key, data in connection.execute(query):
                    found[by_row[row_key]] = bytes(data)
        return found

    def put_many(self, items: Mapping[str, bytes]) -> None:
        if not items:
            return
        with engine_for(self.db_url).begin() as connection:
            for key, data in sorted(items.items()):
                values = {
                    "key": self.row_key(key),
                    "data": data,
                    "size": len(data),
                    "media_type": f"{self.media_type}; input={key.rsplit('/', 1)[0]}",
                    "created_at": utc_now(),
                }
                insert_ignoring_duplicates(connection, BlobRow, values, ["key"])
