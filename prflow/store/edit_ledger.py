"""The edit ledger: each applied edit of a run, with its reason and its patch's blob key.

Written once per edit by the step that reports a run (retries are harmless),
read back by run to show the audit trail without the workflow's history.
"""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import select

from prflow.store.database import engine_for
from prflow.store.schema import EditLedgerRow, utc_now
from prflow.store.upsert import insert_ignoring_duplicates


class LedgerEdit(BaseModel):
    workflow_id: str
    workflow_kind: str
    phase: str
    path: str
    edit_index: int
    actor: str
    reason: str
    patch_key: str


def record_edits(db_url: str, edits: list[LedgerEdit]) -> int:
    """Write the edits not yet recorded; how many were new."""
    new = 0
    with engine_for(db_url).begin() as connection:
        for edit in edits:
            values = {**edit.model_dump(), "created_at": utc_now()}
            new += insert_ignoring_duplicates(
                connection, EditLedgerRow, values, ["workflow_id", "patch_key"]
            )
    return new


def edits_of_run(db_url: str, workflow_id: str) -> list[LedgerEdit]:
    """The run's edits in the order they were recorded."""
    query = (
        select(EditLedgerRow)
        .where(EditLedgerRow.workflow_id == workflow_id)
        .order_by(EditLedgerRow.id)
    )
    with engine_for(db_url).connect() as connection:
        rows = connection.execute(query).all()
    return [
        LedgerEdit(
            workflow_id=row.workflow_id,
            workflow_kind=row.workflow_kind,
            phase=row.phase,
            path=row.path,
            edit_index=row.edit_index,
            actor=row.actor,
            reason=row.reason,
            patch_key=row.patch_key,
        )
        for row in rows
    ]
