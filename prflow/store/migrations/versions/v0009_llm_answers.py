"""Kept model answers, keyed by scope and request digest (issue 21 item 2, issue 20 item 6).

A retried ``llm_call`` attempt, or another agent of the same run asking the same
question, finds the answer here instead of paying for it again.

Revision ID: 0009
Revises: 0005
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "llm_answers",
        sa.Column("scope", sa.String(), primary_key=True),
        sa.Column("request_digest", sa.String(64), primary_key=True),
        sa.Column("answer_key", sa.String(71), nullable=False),
        sa.Column("max_tokens", sa.Integer(), nullable=False),
        sa.Column("stop_reason", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("llm_answers")
