"""Parse results get a table of their own, keyed by parser, format version and git blob SHA.

They used to live in ``blobs`` under keys derived from their input, which
broke that table's rule (a key is the hash of its bytes). The old rows are a
cache: they are deleted, not moved.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None

_OLD_MEDIA_TYPE = "application/vnd.prflow.parse+json%"


def upgrade() -> None:
    op.create_table(
        "parse_cache",
        sa.Column("parser", sa.String(64), primary_key=True),
        sa.Column("version", sa.String(64), primary_key=True),
        sa.Column("blob_sha", sa.String(64), primary_key=True),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    blobs = sa.table("blobs", sa.column("media_type", sa.String()))
    op.execute(blobs.delete().where(blobs.c.media_type.like(_OLD_MEDIA_TYPE)))


def downgrade() -> None:
    op.drop_table("parse_cache")
