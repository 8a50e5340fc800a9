"""What the last review of each pull request covered: its head and the findings it posted.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "review_marks",
        sa.Column("repo", sa.String(255), primary_key=True),
        sa.Column("pr_number", sa.Integer(), primary_key=True),
        sa.Column("head_sha", sa.String(64), nullable=False),
        sa.Column("fingerprints", sa.Text(), nullable=False),
        sa.Column("workflow_id", sa.String(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("review_marks")
