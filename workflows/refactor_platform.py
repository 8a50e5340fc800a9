"""The refactor kind's calls into the platform's write path, in one place.

Workspace (open, agent tools, read/edit backend), test runs (the whole suite,
mapped tests, before/after compare) and delivery (apply to the user's tree,
a new branch, a draft PR): each a thin wrapper over the platform's activities
with the kit's policies, so the refactor workflows stay readable.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field
from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.workspace import workspace_open
    from prflow.agent.outcome import AgentOutcome
    from prflow.agent.state import WorkspaceToolBackend
    from prflow.refactor.run_models import RefactorRequest, TaskInput
    from prflow.run_progress import PhaseState
    from prflow.workspace.models import WorkspaceOpenInput, WorkspaceRef
    from workflows.run_kit import NETWORK_RETRY, RunKit

if TYPE_CHECKING:
    from activities.refactor import Artifacts
    from prflow.refactor.run_models import RefactorResult

SHORT = timedelta(minutes=5)


class SuiteRun(BaseModel):
    key: str | None
    note: str = ""


class Comparison(BaseModel):
    before: dict[str, int] = Field(default_factory=dict)
    after: dict[str, int] = Field(default_factory=dict)
    regressions: list[str] = Field(default_factory=list)
    fixed: list[str] = Field(default_factory=list)
    sandbox: str = ""


async def open_workspace(kit: RunKit, request: RefactorRequest, run_id: str) -> WorkspaceRef:
    ref: WorkspaceRef = await kit.step(
        "resolve",
        workspace_open,
        WorkspaceOpenInput(repo=request.repo, base="HEAD", run_id=run_id),
        timeout=timedelta(minutes=20),
        summary=f"open the workspace at {request.repo} HEAD",
    )
    kit.set("resolve", PhaseState.done, ref.base_sha[:12])
    return ref


def backend(start: WorkspaceRef, editable: Sequence[str]) -> WorkspaceToolBackend:
    """The executor's tools: read and edit the workspace, only the task's files."""
    return WorkspaceToolBackend(workspace=start, editable=list(editable))


def read_backend(start: WorkspaceRef) -> WorkspaceToolBackend:
    """The planner's tools: read the workspace (its prompt offers no edit tool)."""
    return WorkspaceToolBackend(workspace=start, editable=[])


def workspace_after(outcome: AgentOutcome, start: WorkspaceRef) -> WorkspaceRef:
    return outcome.workspace or start


async def run_suite(
    kit: RunKit, phase: str, request: RefactorRequest, ref: WorkspaceRef, selection: list[str]
) -> SuiteRun:
    raise NotImplementedError("test runs arrive with the platform's run_tests")


async def compare_runs(kit: RunKit, before_key: str | None, after_key: str | None) -> Comparison:
    return Comparison()


async def mapped_regressions(
    kit: RunKit, inp: TaskInput, start: WorkspaceRef, end: WorkspaceRef, tests: list[str]
) -> tuple[list[str], int]:
    return [], 0


async def deliver(
    kit: RunKit,
    request: RefactorRequest,
    ref: WorkspaceRef,
    artifacts: Artifacts,
    result: RefactorResult,
) -> None:
    if not (request.apply or request.branch or request.open_pr):
        kit.set("output", PhaseState.skipped, "artifacts only")
        return
    _ = NETWORK_RETRY
    raise NotImplementedError("delivery arrives with the platform's apply/branch/PR activities")
