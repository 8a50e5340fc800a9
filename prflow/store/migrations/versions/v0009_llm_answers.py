"""Kept model answers, keyed by scope and request digest (issue 21 item 2, issue 20 item 6).

A retried ``llm_call`` attempt, or another agent of the same run asking the same
question, finds the answer here instead of paying for it again. Such an attempt's
ledger outcome is ``reused``: the cost views count it apart, not as failed.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def _figures(reused: bool) -> str:
    ok = "('success', 'sent', 'reused')" if reused else "('success', 'sent')"
    extra = (
        "SUM(CASE WHEN outcome = 'reused' THEN 1 ELSE 0 END) AS reused_attempts," if reused else ""
    )
    return f"""
    COUNT(*) AS attempts,
    SUM(CASE WHEN outcome IN {ok} THEN 0 ELSE 1 END) AS failed_attempts,
    SUM(CASE WHEN outcome = 'sent' THEN 1 ELSE 0 END) AS unknown_attempts,
    SUM(CASE WHEN outcome = 'sent' THEN worst_case_usd ELSE 0 END) AS unknown_worst_usd,
    {extra}
    SUM(input_tokens) AS input_tokens,
    SUM(output_tokens) AS output_tokens,
    SUM(cache_write_tokens) AS cache_write_tokens,
    SUM(cache_read_tokens) AS cache_read_tokens,
    SUM(usd) AS usd,
    MIN(created_at) AS first_at,
    MAX(created_at) AS last_at
"""


_VIEWS = {
    "prflow_cost_by_pr": "repo, pr_number, workflow_kind",
    "prflow_cost_by_phase": "workflow_kind, phase, model",
}


def _recreate_views(reused: bool) -> None:
    day = (
        "date(created_at)" if op.get_bind().dialect.name == "sqlite" else "CAST(created_at AS DATE)"
    )
    figures = _figures(reused)
    for name in ("prflow_cost_daily", *_VIEWS):
        op.execute(f"DROP VIEW IF EXISTS {name}")
    for name, columns in _VIEWS.items():
        op.execute(
            f"CREATE VIEW {name} AS SELECT {columns}, {figures} FROM llm_attempts "
            f"GROUP BY {columns}"
        )
    op.execute(
        f"CREATE VIEW prflow_cost_daily AS SELECT {day} AS day, workflow_kind, model, {figures} "
        f"FROM llm_attempts GROUP BY {day}, workflow_kind, model"
    )


def upgrade() -> None:
    _recreate_views(reused=True)
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
    _recreate_views(reused=False)
