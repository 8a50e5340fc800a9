"""Records a phase cut by a cap in the store (workflow code cannot write the database)."""

from __future__ import annotations

from temporalio import activity

from prflow.config import cached_settings
from prflow.store.costs import PhaseCut
from prflow.store.phase_cuts import PhaseCutRecord, record_cut


@activity.defn(name="agent_record_cut")
def record_phase_cut(cut: PhaseCut) -> None:
    """Note that ``cut.agent`` stopped at ``cut.cap``, keyed by this activity (idempotent)."""
    info = activity.info()
    record = PhaseCutRecord(
        **(cut.model_dump() | {"workflow_id": info.workflow_id or cut.workflow_id}),
        run_id=info.workflow_run_id or "",
        activity_id=info.activity_id,
    )
    record_cut(cached_settings().resolved_database_url(), record)
