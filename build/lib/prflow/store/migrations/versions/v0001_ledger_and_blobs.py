"""Create the LLM attempt ledger and the blob store.

Revision ID: 0001
Revises:
Create Date: 2026-11-20
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

_AUTO_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "llm_attempts",
        sa.Column("id", _AUTO_ID, primary_key=True, autoincrement=True),
        sa.Column("workflow_id", sa.String(), nullable=False),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("activity_id", sa.String(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("workflow_kind", sa.String(64), nullable=False),
        sa.Column("phase", sa.String(64), nullable=False),
        sa.Column("model", sa.String(128), nullable=False),
        sa.Column("input_tokens", sa.BigInteger(), nullable=False),
        sa.Column("output_tokens", sa.BigInteger(), nullable=False),
        sa.Column("cache_write_tokens", sa.BigInteger(), nullable=False),
        sa.Column("cache_read_tokens", sa.BigInteger(), nullable=False),
        sa.Column("usd", sa.Numeric(16, 8), nullable=False),
        sa.Column("latency_ms", sa.BigInteger(), nullable=False),
        sa.Column("outcome", sa.String(128), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("repo", sa.String(255), nullable=True),
        sa.Column("pr_number", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint(
            "workflow_id", "run_id", "activity_id", "attempt", name="uq_llm_attempts_key"
        ),
    )
    op.create_index("ix_llm_attempts_created_at", "llm_attempts", ["created_at"])
    op.create_index("ix_llm_attempts_repo_pr", "llm_attempts", ["repo", "pr_number"])
    op.create_table(
        "blobs",
        sa.Column("key", sa.String(71), primary_key=True),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("media_type", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("blobs")
    op.drop_index("ix_llm_attempts_repo_pr", table_name="llm_attempts")
    op.drop_index("ix_llm_attempts_created_at", table_name="llm_attempts")
    op.drop_table("llm_attempts")
