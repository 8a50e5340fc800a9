"""The LLM cost ledger: one row per attempt, written by the LLM activity.

A row is written *before* the request leaves (outcome ``sent``, with the most
the call can cost) and completed when the answer or the error is known. A
worker killed in between leaves the row at ``sent``: the API may have billed
it, so ``prflow costs`` reports it as unknown at its worst case instead of
forgetting it.

Temporal may run an attempt's writes more than once (a worker crash after the
insert, before completion), so rows are keyed by (workflow id, run id,
activity id, attempt) and repeating a write is harmless.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, case, func, or_, select, update
from sqlalchemy.orm import QueryableAttribute

from prflow.agent.state import child_agent_id
from prflow.llm.usage import Usage
from prflow.store.costs import SpendSlice
from prflow.store.database import engine_for
from prflow.store.schema import LlmAttemptRow, utc_now
from prflow.store.upsert import insert_ignoring_duplicates

ERROR_MAX_CHARS = 500
SUCCESS = "success"
SENT = "sent"
REUSED = "reused"
"""An attempt answered from a kept answer (a retry after a lost completion, or a request
the run had already sent word for word): nothing was sent, nothing paid."""
ATTEMPT_KEY = ("workflow_id", "run_id", "activity_id", "attempt")


class LlmAttempt(Usage):
    """What the LLM activity reports about one attempt (its token counts are a Usage)."""

    workflow_id: str
    run_id: str
    activity_id: str
    attempt: int
    workflow_kind: str
    phase: str
    model: str
    usd: float = 0.0
    worst_case_usd: float = 0.0
    latency_ms: int = 0
    outcome: str = SUCCESS
    error: str | None = None
    repo: str | None = None
    pr_number: int | None = None


def _values(row: LlmAttempt) -> dict[str, object]:
    values = row.model_dump()
    if row.error is not None and len(row.error) > ERROR_MAX_CHARS:
        values["error"] = row.error[: ERROR_MAX_CHARS - 1] + "…"
    return values


def record_attempt(db_url: str, row: LlmAttempt) -> bool:
    """Write ``row``; True if it is new, False if its key was already recorded."""
    values = _values(row)
    values["created_at"] = utc_now()
    with engine_for(db_url).begin() as connection:
        return insert_ignoring_duplicates(connection, LlmAttemptRow, values, ATTEMPT_KEY)


def record_sent(db_url: str, row: LlmAttempt) -> None:
    """Note an attempt about to be sent, at its worst-case cost, before anything is paid."""
    record_attempt(db_url, row.model_copy(update={"outcome": SENT, "usd": 0.0}))


def complete_attempt(db_url: str, row: LlmAttempt) -> None:
    """Record how an attempt ended, whether or not its ``sent`` row made it to the database."""
    if record_attempt(db_url, row):
        return
    values = _values(row)
    for name in ATTEMPT_KEY:
        values.pop(name)
    key = LlmAttemptRow
    statement = (
        update(LlmAttemptRow)
        .where(key.workflow_id == row.workflow_id)
        .where(key.run_id == row.run_id)
        .where(key.activity_id == row.activity_id)
        .where(key.attempt == row.attempt)
        .values(**values)
    )
    with engine_for(db_url).begin() as connection:
        connection.execute(statement)


def attempts_for_workflow(db_url: str, workflow_id: str) -> list[LlmAttempt]:
    """Every recorded attempt of ``workflow_id`` (all runs) and of the child agents it
    started, oldest first."""
    columns = [getattr(LlmAttemptRow, name) for name in LlmAttempt.model_fields]
    of_run = run_and_agents(LlmAttemptRow.workflow_id, workflow_id)
    query = select(*columns).where(of_run).order_by(LlmAttemptRow.id)
    with engine_for(db_url).connect() as connection:
        rows = connection.execute(query).mappings().all()
    return [LlmAttempt.model_validate(dict(row)) for row in rows]


def run_and_agents(column: QueryableAttribute[str], workflow_id: str) -> ColumnElement[bool]:
    """Rows whose ``column`` names ``workflow_id`` or one of the child agents it started."""
    return or_(
        column == workflow_id,
        column.startswith(child_agent_id(workflow_id, ""), autoescape=True),
    )


def in_selection(
    workflow_column: QueryableAttribute[str],
    created_column: QueryableAttribute[datetime],
    workflow_id: str | None,
    since: datetime | None,
    until: datetime | None,
) -> list[ColumnElement[bool]]:
    """The conditions of what ``prflow costs`` asked for: a run with its child agents,
    ``since`` (inclusive) and ``until`` (exclusive)."""
    conditions = []
    if workflow_id is not None:
        conditions.append(run_and_agents(workflow_column, workflow_id))
    if since is not None:
        conditions.append(created_column >= since)
    if until is not None:
        conditions.append(created_column < until)
    return conditions


def spend_for_workflow(db_url: str, workflow_id: str) -> float:
    """Dollars spent so far by ``workflow_id`` across all its runs and attempts."""
    query = select(func.coalesce(func.sum(LlmAttemptRow.usd), 0)).where(
        LlmAttemptRow.workflow_id == workflow_id
    )
    with engine_for(db_url).connect() as connection:
        total = connection.execute(query).scalar_one()
    return float(total)


def spend_slices(
    db_url: str,
    workflow_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> list[SpendSlice]:
    """Ledger spend grouped per workflow, kind, phase and model, for ``prflow costs``;
    ``since`` is inclusive, ``until`` exclusive."""
    row = LlmAttemptRow
    keys = (row.workflow_id, row.workflow_kind, row.phase, row.model, row.repo, row.pr_number)
    failed = case((row.outcome.in_([SUCCESS, SENT, REUSED]), 0), else_=1)
    unknown = case((row.outcome == SENT, 1), else_=0)
    reused = case((row.outcome == REUSED, 1), else_=0)
    unknown_usd = case((row.outcome == SENT, row.worst_case_usd), else_=0)
    query = select(
        *keys,
        func.count().label("attempts"),
        func.sum(failed).label("failed_attempts"),
        func.sum(unknown).label("unknown_attempts"),
        func.sum(unknown_usd).label("unknown_worst_usd"),
        func.sum(reused).label("reused_attempts"),
        func.sum(row.input_tokens).label("input_tokens"),
        func.sum(row.output_tokens).label("output_tokens"),
        func.sum(row.cache_write_tokens).label("cache_write_tokens"),
        func.sum(row.cache_read_tokens).label("cache_read_tokens"),
        func.sum(row.usd).label("usd"),
    ).group_by(*keys)
    query = query.where(*in_selection(row.workflow_id, row.created_at, workflow_id, since, until))
    with engine_for(db_url).connect() as connection:
        rows = connection.execute(query).mappings().all()
    return [SpendSlice.model_validate(dict(found)) for found in rows]
