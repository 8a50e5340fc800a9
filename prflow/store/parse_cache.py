"""Parse results by (parser, format version, git blob SHA), shared by every worker of a database.

An unchanged file has the same blob SHA at base, at head and in every later
run, so its parse is read from here instead of computed again. Rows are
derived data addressed by their *input*, which is why they have a table of
their own rather than living in the content-addressed ``blobs``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, LargeBinary, String, select, tuple_
from sqlalchemy.orm import Mapped, mapped_column

from prflow.store.database import engine_for
from prflow.store.schema import Base, UtcDateTime, utc_now
from prflow.store.upsert import dialect_insert

_CHUNK = 400
"""Rows per statement: well below SQLite's bound-parameter limit."""


class ParseCacheRow(Base):
    """One file content's parse result for one parser version."""

    __tablename__ = "parse_cache"

    parser: Mapped[str] = mapped_column(String(64), primary_key=True)
    version: Mapped[str] = mapped_column(String(64), primary_key=True)
    blob_sha: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary())
    size: Mapped[int] = mapped_column(BigInteger())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)


def split_key(key: str) -> tuple[str, str, str]:
    """``python/py-surface-4/<sha>`` -> (parser, version, blob SHA); see ``ParserSpec.key``."""
    parser, version, blob_sha = key.rsplit("/", 2)
    return parser, version, blob_sha


@dataclass(frozen=True)
class StoreParseCache:
    """The parse cache of :mod:`prflow.analysis.parse_cache` in prflow's database."""

    db_url: str

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        wanted = {split_key(key): key for key in keys}
        found: dict[str, bytes] = {}
        ids = sorted(wanted)
        row_id = tuple_(ParseCacheRow.parser, ParseCacheRow.version, ParseCacheRow.blob_sha)
        with engine_for(self.db_url).connect() as connection:
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                query = select(
                    ParseCacheRow.parser,
                    ParseCacheRow.version,
                    ParseCacheRow.blob_sha,
                    ParseCacheRow.data,
                ).where(row_id.in_(chunk))
                for parser, version, blob_sha, data in connection.execute(query):
                    found[wanted[(parser, version, blob_sha)]] = bytes(data)
        return found

    def put_many(self, items: Mapping[str, bytes]) -> None:
        """Store new results; a row already there (a retried activity, a racing worker) stays."""
        rows = [_row(key, data) for key, data in sorted(items.items())]
        if not rows:
            return
        with engine_for(self.db_url).begin() as connection:
            insert: Any = dialect_insert(connection.dialect.name)
            statement = insert(ParseCacheRow).on_conflict_do_nothing(
                index_elements=["parser", "version", "blob_sha"]
            )
            for start in range(0, len(rows), _CHUNK):
                connection.execute(statement, rows[start : start + _CHUNK])


def _row(key: str, data: bytes) -> dict[str, Any]:
    parser, version, blob_sha = split_key(key)
    return {
        "parser": parser,
        "version": version,
        "blob_sha": blob_sha,
        "data": data,
        "size": len(data),
        "created_at": utc_now(),
    }
