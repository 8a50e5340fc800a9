"""SQL views of the ledger for dashboards (Grafana, Metabase, psql): spend by PR, phase, day.

Each view sums the ``llm_attempts`` rows the way ``prflow costs`` does:
attempts, failed attempts (neither success nor still ``sent``), attempts of
unknown outcome (``sent``) with their worst case, tokens by kind and USD.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

FIGURES = """
    COUNT(*) AS attempts,
    SUM(CASE WHEN outcome IN ('success', 'sent') THEN 0 ELSE 1 END) AS failed_attempts,
    SUM(CASE WHEN outcome = 'sent' THEN 1 ELSE 0 END) AS unknown_attempts,
    SUM(CASE WHEN outcome = 'sent' THEN worst_case_usd ELSE 0 END) AS unknown_worst_usd,
    SUM(input_tokens) AS input_tokens,
    SUM(output_tokens) AS output_tokens,
    SUM(cache_write_tokens) AS cache_write_tokens,
    SUM(cache_read_tokens) AS cache_read_tokens,
    SUM(usd) AS usd,
    MIN(created_at) AS first_at,
    MAX(created_at) AS last_at
"""

VIEWS = {
    "prflow_cost_by_pr": ("repo, pr_number, workflow_kind", "repo, pr_number, workflow_kind"),
    "prflow_cost_by_phase": ("workflow_kind, phase, model", "workflow_kind, phase, model"),
}


def upgrade() -> None:
    day = (
        "date(created_at)" if op.get_bind().dialect.name == "sqlite" else "CAST(created_at AS DATE)"
    )
    for name, (columns, group) in VIEWS.items():
        op.execute(
            f"CREATE VIEW {name} AS SELECT {columns}, {FIGURES} FROM llm_attempts GROUP BY {group}"
        )
    op.execute(
        f"CREATE VIEW prflow_cost_daily AS SELECT {day} AS day, workflow_kind, model, {FIGURES} "
        f"FROM llm_attempts GROUP BY {day}, workflow_kind, model"
    )


def downgrade() -> None:
    for name in ("prflow_cost_daily", *reversed(VIEWS)):
        op.execute(f"DROP VIEW IF EXISTS {name}")
