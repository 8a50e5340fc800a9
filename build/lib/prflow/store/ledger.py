"""The LLM cost ledger: one row per attempt, written by the LLM activity.

Temporal may run an activity attempt's ledger write more than once (a worker
crash after the insert, before completion), so rows are keyed by
(workflow id, run id, activity id, attempt) and a repeated write is a no-op.
Failed attempts are rows too: they cost latency and sometimes tokens.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel
from sqlalchemy import case, func, select

from prflow.store.costs import SpendSlice
from prflow.store.database import engine_for
from prflow.store.schema import LlmAttemptRow, utc_now
from prflow.store.upsert import insert_ignoring_duplicates

ERROR_MAX_CHARS = 500
SUCCESS = "success"
ATTEMPT_KEY = ("workflow_id", "run_id", "activity_id", "attempt")


class LlmAttempt(BaseModel):
    """What the LLM activity reports about one attempt."""

    workflow_id: str
    run_id: str
    activity_id: str
    attempt: int
    workflow_kind: str
    phase: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    usd: float = 0.0
    latency_ms: int = 0
    outcome: str = SUCCESS
    error: str | None = None
    repo: str | None = None
    pr_number: int | None = None


def record_attempt(db_url: str, row: LlmAttempt) -> bool:
    """Write ``row``; True if it is new, False if its key was already recorded."""
    values = row.model_dump()
    if row.error is not None and len(row.error) > ERROR_MAX_CHARS:
        values["error"] = row.error[: ERROR_MAX_CHARS - 1] + "…"
    values["created_at"] = utc_now()
    with engine_for(db_url).begin() as connection:
        return insert_ignoring_duplicates(connection, LlmAttemptRow, values, ATTEMPT_KEY)


def attempts_for_workflow(db_url: str, workflow_id: str) -> list[LlmAttempt]:
    """Every recorded attempt of ``workflow_id`` (all runs), oldest first."""
    columns = [getattr(LlmAttemptRow, name) for name in LlmAttempt.model_fields]
    query = (
        select(*columns).where(LlmAttemptRow.workflow_id == workflow_id).order_by(LlmAttemptRow.id)
    )
    with engine_for(db_url).connect() as connection:
        rows = connection.execute(query).mappings().all()
    return [LlmAttempt.model_validate(dict(row)) for row in rows]


def spend_for_workflow(db_url: str, workflow_id: str) -> float:
    """Dollars spent so far by ``workflow_id`` across all its runs and attempts."""
    query = select(func.coalesce(func.sum(LlmAttemptRow.usd), 0)).where(
        LlmAttemptRow.workflow_id == workflow_id
    )
    with engine_for(db_url).connect() as connection:
        total = connection.execute(query).scalar_one()
    return float(total)


def spend_slices(
    db_url: str, workflow_id: str | None = None, since: datetime | None = None
) -> list[SpendSlice]:
    """Ledger spend grouped per workflow, kind, phase and model, for ``prflow costs``."""
    row = LlmAttemptRow
    keys = (row.workflow_id, row.workflow_kind, row.phase, row.model, row.repo, row.pr_number)
    failed = case((row.outcome == SUCCESS, 0), else_=1)
    query = select(
        *keys,
        func.count().label("attempts"),
        func.sum(failed).label("failed_attempts"),
        func.sum(row.input_tokens).label("input_tokens"),
        func.sum(row.output_tokens).label("output_tokens"),
        func.sum(row.cache_write_tokens).label("cache_write_tokens"),
        func.sum(row.cache_read_tokens).label("cache_read_tokens"),
        func.sum(row.usd).label("usd"),
    ).group_by(*keys)
    if workflow_id is not None:
        query = query.where(row.workflow_id == workflow_id)
    if since is not None:
        query = query.where(row.created_at >= since)
    with engine_for(db_url).connect() as connection:
        rows = connection.execute(query).mappings().all()
    return [SpendSlice.model_validate(dict(found)) for found in rows]
