"""The edit ledger: every applied edit of a run with its reason and its patch's blob key.

Revision ID: 0008
Revises: 0005
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "edit_ledger",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("workflow_id", sa.String(), nullable=False),
        sa.Column("workflow_kind", sa.String(64), nullable=False),
        sa.Column("phase", sa.String(64), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("edit_index", sa.Integer(), nullable=False),
        sa.Column("actor", sa.String(255), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("patch_key", sa.String(71), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("workflow_id", "patch_key", name="uq_edit_ledger_patch"),
    )
    op.create_index("ix_edit_ledger_workflow", "edit_ledger", ["workflow_id"])


def downgrade() -> None:
    op.drop_index("ix_edit_ledger_workflow", table_name="edit_ledger")
    op.drop_table("edit_ledger")
