"""Phases cut by a cap: which agent stopped, at which cap, and why, for ``prflow costs``.

An agent that stops because a cap (USD, tokens, turns, wall clock) refuses its
next call sends nothing, so the attempt ledger has no row to say so. The agent
loop records the cut here instead, keyed by the workflow run and the recording
activity so a replayed write is harmless.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, String, Text, UniqueConstraint, select
from sqlalchemy.orm import Mapped, mapped_column

from prflow.agent.state import run_of
from prflow.store.costs import PhaseCut
from prflow.store.database import engine_for
from prflow.store.ledger import in_selection
from prflow.store.schema import AutoId, Base, UtcDateTime, utc_now
from prflow.store.upsert import insert_ignoring_duplicates

REASON_MAX_CHARS = 500


class PhaseCutRow(Base):
    """One agent stopped by a cap."""

    __tablename__ = "llm_phase_cuts"
    __table_args__ = (
        UniqueConstraint("workflow_id", "run_id", "activity_id", name="uq_llm_phase_cuts_key"),
        Index("ix_llm_phase_cuts_created_at", "created_at"),
    )

    id: Mapped[int] = mapped_column(AutoId, primary_key=True, autoincrement=True)
    workflow_id: Mapped[str] = mapped_column(String())
    run_id: Mapped[str] = mapped_column(String())
    activity_id: Mapped[str] = mapped_column(String())
    workflow_kind: Mapped[str] = mapped_column(String(64))
    phase: Mapped[str] = mapped_column(String(64))
    agent: Mapped[str] = mapped_column(String())
    model: Mapped[str] = mapped_column(String(128))
    cap: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(Text())
    repo: Mapped[str | None] = mapped_column(String(), nullable=True)
    pr_number: Mapped[int | None] = mapped_column(Integer(), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)


class PhaseCutRecord(PhaseCut):
    """A cut as the recording activity writes it (with the key that makes it idempotent)."""

    run_id: str
    activity_id: str


def record_cut(db_url: str, cut: PhaseCutRecord) -> None:
    """Write ``cut`` once, however often the recording activity runs."""
    values = cut.model_dump()
    values["reason"] = cut.reason[:REASON_MAX_CHARS]
    values["created_at"] = utc_now()
    with engine_for(db_url).begin() as connection:
        insert_ignoring_duplicates(
            connection, PhaseCutRow, values, ("workflow_id", "run_id", "activity_id")
        )


def phase_cuts(
    db_url: str,
    workflow_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> list[PhaseCut]:
    """Cuts in the selection, oldest first; a child agent's cut is shown under its run."""
    row = PhaseCutRow
    columns = [getattr(row, name) for name in PhaseCut.model_fields]
    selected = in_selection(row.workflow_id, row.created_at, workflow_id, since, until)
    query = select(*columns).where(*selected).order_by(row.id)
    with engine_for(db_url).connect() as connection:
        found = connection.execute(query).mappings().all()
    cuts = [PhaseCut.model_validate(dict(item)) for item in found]
    return [cut.model_copy(update={"workflow_id": run_of(cut.workflow_id)}) for cut in cuts]
