"""What a running workflow of any kind reports about itself: phases, agents and spend.

Every kind answers the ``progress`` query with :class:`RunProgress`, so the
CLI's live display, ``prflow budget`` and operators' scripts read one shape.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from prflow.agent.budget import BudgetCaps, BudgetStatus, Spend


class PhaseState(StrEnum):
    pending = "pending"
    running = "running"
    done = "done"
    skipped = "skipped"
    failed = "failed"


class PhaseProgress(BaseModel):
    name: str
    state: PhaseState = PhaseState.pending
    detail: str = ""


class AgentProgress(BaseModel):
    """One agent of a run: where it stands and what it has spent."""

    name: str
    phase: str
    state: PhaseState = PhaseState.running
    turns: int = 0
    spent: Spend = Field(default_factory=Spend)
    caps: BudgetCaps | None = None
    waiting_for_budget: str | None = None
    detail: str = ""
    runs: int = Field(default=1, description="Workflow runs so far (continue-as-new adds one)")


class RunProgress(BaseModel):
    """What the ``progress`` query returns for every kind."""

    kind: str = ""
    phases: list[PhaseProgress]
    agents: list[AgentProgress] = Field(default_factory=list)
    spend: BudgetStatus
    waiting_for_budget: str | None = None
