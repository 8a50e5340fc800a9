"""Ledger rows are written before a request leaves: keep each attempt's worst-case cost.

An attempt whose worker died after sending stays with outcome ``sent``;
``prflow costs`` reports it as unknown at this worst case.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("llm_attempts") as batch:
        batch.add_column(
            sa.Column("worst_case_usd", sa.Numeric(16, 8), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("llm_attempts") as batch:
        batch.drop_column("worst_case_usd")
