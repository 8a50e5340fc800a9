"""Phases cut by a cap, for ``prflow costs`` (issue 20 item 8).

An agent refused its next call by a cap sends nothing, so no attempt row says
it stopped; this table does: the run, the agent and its phase, the cap and why.

Revision ID: 0011
Revises: 0009
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "llm_phase_cuts",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("workflow_id", sa.String(), nullable=False),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("activity_id", sa.String(), nullable=False),
        sa.Column("workflow_kind", sa.String(64), nullable=False),
        sa.Column("phase", sa.String(64), nullable=False),
        sa.Column("agent", sa.String(), nullable=False),
        sa.Column("model", sa.String(128), nullable=False),
        sa.Column("cap", sa.String(32), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("repo", sa.String(), nullable=True),
        sa.Column("pr_number", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("workflow_id", "run_id", "activity_id", name="uq_llm_phase_cuts_key"),
    )
    op.create_index("ix_llm_phase_cuts_created_at", "llm_phase_cuts", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_llm_phase_cuts_created_at", table_name="llm_phase_cuts")
    op.drop_table("llm_phase_cuts")
