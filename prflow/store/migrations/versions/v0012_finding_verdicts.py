"""What people made of each posted finding, per PR (issue 28 item 3).

One row per (repository, PR, finding fingerprint): accepted, rebutted or fixed,
the review dimension it belongs to and the head it was judged at. A later review
of the PR does not raise a rebutted finding again (its fingerprint names the
cited line's text, so changed code is a new finding); ``prflow review stats``
counts the rows.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "finding_verdicts",
        sa.Column("repo", sa.String(255), primary_key=True),
        sa.Column("pr_number", sa.Integer(), primary_key=True),
        sa.Column("fingerprint", sa.String(64), primary_key=True),
        sa.Column("dimension", sa.String(128), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("head_sha", sa.String(64), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_finding_verdicts_repo", "finding_verdicts", ["repo"])


def downgrade() -> None:
    op.drop_index("ix_finding_verdicts_repo", table_name="finding_verdicts")
    op.drop_table("finding_verdicts")
