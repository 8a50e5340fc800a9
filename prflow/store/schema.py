"""Table definitions for the ledger and the blob store (SQLAlchemy 2 declarative).

Alembic revisions in ``prflow/store/migrations`` create these tables; the
models here are what the code queries. Keep both in step: a new column means
a new revision.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    DateTime,
    Dialect,
    Index,
    Integer,
    LargeBinary,
    Numeric,
    String,
    Text,
    UniqueConstraint,
    types,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# SQLite only auto-increments a column declared exactly INTEGER PRIMARY KEY.
AutoId = BigInteger().with_variant(Integer(), "sqlite")


def utc_now() -> datetime:
    """Timestamp for new rows, taken in the writing process so both dialects agree."""
    return datetime.now(UTC)


class UtcDateTime(types.TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every dialect.

    SQLite keeps no offset, so values read back from it are naive; this type
    stores UTC and hands back aware UTC datetimes either way, which keeps
    ``--since`` comparisons identical on SQLite and Postgres.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("UtcDateTime needs an aware datetime")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    """Metadata shared by every prflow table."""


class LlmAttemptRow(Base):
    """One LLM attempt, successful or not; the key makes retried writes harmless."""

    __tablename__ = "llm_attempts"
    __table_args__ = (
        UniqueConstraint(
            "workflow_id", "run_id", "activity_id", "attempt", name="uq_llm_attempts_key"
        ),
        Index("ix_llm_attempts_created_at", "created_at"),
        Index("ix_llm_attempts_repo_pr", "repo", "pr_number"),
    )

    id: Mapped[int] = mapped_column(AutoId, primary_key=True, autoincrement=True)
    workflow_id: Mapped[str] = mapped_column(String())
    run_id: Mapped[str] = mapped_column(String())
    activity_id: Mapped[str] = mapped_column(String())
    attempt: Mapped[int] = mapped_column(Integer())
    workflow_kind: Mapped[str] = mapped_column(String(64))
    phase: Mapped[str] = mapped_column(String(64))
    model: Mapped[str] = mapped_column(String(128))
    input_tokens: Mapped[int] = mapped_column(BigInteger(), default=0)
    output_tokens: Mapped[int] = mapped_column(BigInteger(), default=0)
    cache_write_tokens: Mapped[int] = mapped_column(BigInteger(), default=0)
    cache_read_tokens: Mapped[int] = mapped_column(BigInteger(), default=0)
    # Exact decimal storage, read back as float: SQLite has no decimal type anyway.
    usd: Mapped[float] = mapped_column(Numeric(16, 8, asdecimal=False), default=0.0)
    latency_ms: Mapped[int] = mapped_column(BigInteger(), default=0)
    # Most the attempt could cost; what `prflow costs` shows while its outcome is unknown.
    worst_case_usd: Mapped[float] = mapped_column(Numeric(16, 8, asdecimal=False), default=0.0)
    outcome: Mapped[str] = mapped_column(String(128), default="success")
    error: Mapped[str | None] = mapped_column(Text(), nullable=True)
    repo: Mapped[str | None] = mapped_column(String(255), nullable=True)
    pr_number: Mapped[int | None] = mapped_column(Integer(), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)


class BlobRow(Base):
    """Immutable bytes addressed by their SHA-256, so equal content is stored once."""

    __tablename__ = "blobs"

    key: Mapped[str] = mapped_column(String(71), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary())
    size: Mapped[int] = mapped_column(BigInteger())
    media_type: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)


class ReviewMarkRow(Base):
    """The last review of one pull request: the head it covered and the findings posted."""

    __tablename__ = "review_marks"

    repo: Mapped[str] = mapped_column(String(255), primary_key=True)
    pr_number: Mapped[int] = mapped_column(Integer(), primary_key=True)
    head_sha: Mapped[str] = mapped_column(String(64))
    fingerprints: Mapped[str] = mapped_column(Text(), default="[]")
    workflow_id: Mapped[str] = mapped_column(String())
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)


class FindingVerdictRow(Base):
    """What people made of one posted finding of a PR: accepted, rebutted or fixed."""

    __tablename__ = "finding_verdicts"
    __table_args__ = (Index("ix_finding_verdicts_repo", "repo"),)

    repo: Mapped[str] = mapped_column(String(255), primary_key=True)
    pr_number: Mapped[int] = mapped_column(Integer(), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64), primary_key=True)
    dimension: Mapped[str] = mapped_column(String(128))
    verdict: Mapped[str] = mapped_column(String(16))
    head_sha: Mapped[str | None] = mapped_column(String(64), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)


class EditLedgerRow(Base):
    """One applied doc/code edit of a run: its reason and its patch (by blob key).

    The audit trail beside the cost ledger: who edited what, why, in which
    run and phase; a retried write of the same patch is ignored.
    """

    __tablename__ = "edit_ledger"
    __table_args__ = (UniqueConstraint("workflow_id", "patch_key", name="uq_edit_ledger_patch"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True, autoincrement=True)
    workflow_id: Mapped[str] = mapped_column(String())
    workflow_kind: Mapped[str] = mapped_column(String(64))
    phase: Mapped[str] = mapped_column(String(64))
    path: Mapped[str] = mapped_column(Text())
    edit_index: Mapped[int] = mapped_column(Integer())
    actor: Mapped[str] = mapped_column(String(255))
    reason: Mapped[str] = mapped_column(Text())
    patch_key: Mapped[str] = mapped_column(String(71))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)
