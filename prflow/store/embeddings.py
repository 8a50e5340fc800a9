"""Embedding vectors by (model, SHA-256 of the embedded text), shared by every worker.

The text decides the vector, so a vector computed once by any worker of a
database is read by all the others and by every later run. Vectors are
stored as little-endian float32 bytes on both dialects: per-repository
retrieval ranks a few thousand 64-dimension vectors, which numpy does in
milliseconds, so no vector extension is needed (pgvector would add an apt
package and a second storage path for no measurable gain at this size).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, LargeBinary, String, select
from sqlalchemy.orm import Mapped, mapped_column

from prflow.store.database import engine_for
from prflow.store.schema import Base, UtcDateTime, utc_now
from prflow.store.upsert import dialect_insert

_CHUNK = 400


class EmbeddingRow(Base):
    """One text's vector under one embedding model."""

    __tablename__ = "embeddings"

    model: Mapped[str] = mapped_column(String(128), primary_key=True)
    text_sha: Mapped[str] = mapped_column(String(64), primary_key=True)
    dim: Mapped[int] = mapped_column(Integer())
    vector: Mapped[bytes] = mapped_column(LargeBinary())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)


@dataclass(frozen=True)
class StoreVectorCache:
    """:class:`prflow.refactor_index.vectors.VectorCache` in prflow's database."""

    db_url: str

    def get_many(self, model: str, text_shas: Sequence[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        wanted = sorted(set(text_shas))
        with engine_for(self.db_url).connect() as connection:
            for start in range(0, len(wanted), _CHUNK):
                query = select(EmbeddingRow.text_sha, EmbeddingRow.vector).where(
                    EmbeddingRow.model == model,
                    EmbeddingRow.text_sha.in_(wanted[start : start + _CHUNK]),
                )
                for text_sha, vector in connection.execute(query):
                    found[text_sha] = bytes(vector)
        return found

    def put_many(self, model: str, vectors: Mapping[str, bytes]) -> None:
        """Store new vectors; one already there (a retry, a racing worker) stays."""
        rows: list[dict[str, Any]] = [
            {
                "model": model,
                "text_sha": text_sha,
                "dim": len(vector) // 4,
                "vector": vector,
                "created_at": utc_now(),
            }
            for text_sha, vector in sorted(vectors.items())
        ]
        if not rows:
            return
        with engine_for(self.db_url).begin() as connection:
            insert: Any = dialect_insert(connection.dialect.name)
            statement = insert(EmbeddingRow).on_conflict_do_nothing(
                index_elements=["model", "text_sha"]
            )
            for start in range(0, len(rows), _CHUNK):
                connection.execute(statement, rows[start : start + _CHUNK])
