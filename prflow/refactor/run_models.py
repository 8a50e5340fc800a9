"""The ``refactor`` workflow's input, result, and what crosses between it and its tasks.

Contents travel by blob key; the workflow holds the plan, each task's status
and the workspace reference (base SHA + state key), which is also what a
continue-as-new carries.
"""

from __future__ import annotations

from datetime import datetime
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from prflow.agent.budget import Spend
from prflow.agent.outcome import AgentOutcome
from prflow.agent.plan import PhasePlan
from prflow.credentials import SafeLocation
from prflow.refactor.blame import Regression
from prflow.refactor.ladder import PASS_RATE_THRESHOLD, Action, Decision, RunStatus
from prflow.refactor.plan import RefactorPlan, TaskNode
from prflow.refactor.schedule import TaskStatus
from prflow.sandbox.models import SandboxMode
from prflow.task_queues import recorded_queue
from prflow.workspace.models import WorkspaceRef

# RunStatus is the ladder's; the CLI, tests and benches import it from here
__all__ = [
    "MODEL_PHASES",
    "STEPS",
    "TASK_MARK",
    "TASK_WORKFLOW",
    "WORKFLOW_KIND",
    "AgentRecord",
    "RefactorPhase",
    "RefactorRequest",
    "RefactorResult",
    "RunCarry",
    "RunStatus",
    "SuiteRun",
    "TaskInput",
    "TaskOutcome",
    "TaskRecord",
]

WORKFLOW_KIND = "refactor"
TASK_WORKFLOW = "refactor_task"
TASK_MARK = "/agent:task:"
"""A task workflow's id: its run's id, this mark, the task id and the run number (the
agent mark keeps ``prflow.agent.state.run_of`` mapping it, and its executors, to the run)."""


class RefactorPhase:
    """Model phases (budget and ledger): ``prflow costs`` shows each."""

    planning = "planning"
    executor = "executor"


MODEL_PHASES: tuple[str, ...] = (RefactorPhase.planning, RefactorPhase.executor)

STEPS: tuple[str, ...] = (
    "resolve",
    "index",
    "baseline",
    "planning",
    "tasks",
    "validation",
    "artifacts",
    "output",
)


class RefactorRequest(BaseModel):
    """One refactor: a repository at its HEAD and a directive."""

    model_config = ConfigDict(hide_input_in_errors=True)

    repo: SafeLocation
    base: str = Field(
        default="HEAD",
        description="Branch, tag or commit the workspace starts from (a PR's head for a "
        "/prflow fix)",
    )
    directive: str = Field(min_length=3, max_length=20_000)
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    dry_run: bool = Field(default=False, description="Plan and diffs; no test runs, no writes")
    apply: bool = Field(default=False, description="Write the user's tree once validated")
    branch: str | None = Field(default=None, description="Commit on this new branch")
    open_pr: bool = False
    pr_repo: str | None = Field(default=None, description="owner/name for --open-pr")
    max_retries: int = Field(default=3, ge=0, le=10)
    verbose: bool = False
    test_command: str | None = Field(
        default=None, description="Run by ``sh -c`` from the repository root; None: detected"
    )
    allow_unsandboxed: bool = False
    sandbox: SandboxMode | None = Field(
        default=None, description="bwrap, network-only or none; None: the worker's setting"
    )
    test_timeout_seconds: int = Field(default=900, ge=10)
    pass_threshold: float = Field(
        default=PASS_RATE_THRESHOLD,
        gt=0,
        le=1,
        description="Share of the passing tests that must still pass for the ladder to give "
        "up the steps regressions point at and validate the rest (never lets one ship)",
    )
    deadline_seconds: float | None = Field(
        default=None, gt=0, description="Wall clock for the whole run; at it the run aborts"
    )
    layers: list[str] = Field(
        default_factory=list, description="Declared layers, lowest first (path prefixes)"
    )
    plans: dict[str, PhasePlan] = Field(
        default_factory=dict, description="Model plan per phase; empty: static mode"
    )
    max_concurrency: int = Field(default=2, ge=1, le=8, description="Tasks at once")
    tasks_per_run: int = Field(
        default=8, ge=1, description="Finished tasks before the run continues-as-new"
    )
    github_task_queue: str | None = recorded_queue()
    carry: RunCarry | None = Field(
        default=None, description="Set by continue-as-new: where the previous run stopped"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.dry_run and (self.apply or self.branch or self.open_pr):
            raise ValueError("a dry run writes nothing: drop --apply, --branch and --open-pr")
        return self

    @property
    def uses_model(self) -> bool:
        return any(plan.enabled for plan in self.plans.values())


class SuiteRun(BaseModel):
    """One run of the repository's tests, as the refactor keeps it (outcomes by key)."""

    outcomes_key: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    sandbox: str = ""
    exit_code: int | None = None
    timed_out: bool = False
    note: str = ""
    basis: str = Field(default="junit", description="junit, summary or exit_status")
    tests_found: int | None = Field(default=None, description="None: the run cannot tell")
    summary: list[str] = Field(default_factory=list, description="The runner's summary lines")
    output_tail: str = ""


class AgentRecord(BaseModel):
    name: str
    attempt: int
    stop: str
    detail: str = ""
    turns: int = 0
    transcript_key: str | None = None
    decision: Action | None = None
    decision_reason: str = ""

    @classmethod
    def of(
        cls, name: str, attempt: int, outcome: AgentOutcome, decision: Decision | None = None
    ) -> AgentRecord:
        """The record of one agent run (a planner or an executor attempt), with the ladder's
        decision on it when there was one."""
        return cls(
            name=name,
            attempt=attempt,
            stop=outcome.stop.value,
            detail=outcome.detail,
            turns=outcome.iterations,
            transcript_key=outcome.transcript_key,
            decision=decision.action if decision is not None else None,
            decision_reason=decision.reason if decision is not None else "",
        )


class TaskWork(BaseModel):
    """What a task's attempts did, in the fields a task workflow returns and its run keeps.

    One model for both, so :class:`TaskOutcome` and :class:`TaskRecord` cannot drift
    apart; the field names are those stored payloads and replay histories carry.
    """

    task_id: str
    changed_files: list[str] = Field(default_factory=list)
    attempts: int = 0
    audit: list[str] = Field(default_factory=list)
    regressions: list[str] = Field(default_factory=list)
    tests_run: int = 0
    requests: int = 0
    spent: Spend = Field(default_factory=Spend)
    agents: list[AgentRecord] = Field(default_factory=list)
    bundle_key: str | None = Field(default=None, description="The task's retrieval bundle")
    waits_for: list[str] = Field(
        default_factory=list, description="Later steps this one's edits need (rolled back with)"
    )
    expected: list[str] = Field(
        default_factory=list, description="Mapped-test failures left for the steps it waits for"
    )


class TaskRecord(TaskWork):
    """A task's fate, as the run keeps it (and carries it across continue-as-new)."""

    status: TaskStatus = TaskStatus.pending
    state_key: str | None = Field(default=None, description="The task's final workspace state")
    reason: str = ""
    merge_order: int = -1


class TaskInput(BaseModel):
    """What a task child workflow needs: its task, the state it starts from, the policy."""

    run_workflow_id: str
    task_workflow_id: str = Field(description="This task workflow's own id, as its run named it")
    task_id: str
    task: TaskNode
    run_base: WorkspaceRef
    deferred_files: list[str] = Field(
        default_factory=list, description="Files of the tasks that build on this one"
    )
    later_owners: dict[str, str] = Field(
        default_factory=dict,
        description="File -> step, for every step not finished when this one started: what "
        "those files show is theirs to fix",
    )
    deadline: datetime | None = Field(default=None, description="The run's deadline")
    plan_key: str
    workspace: WorkspaceRef
    directive: str
    executor: PhasePlan | None
    max_retries: int
    dry_run: bool
    test_command: str | None
    allow_unsandboxed: bool
    test_timeout_seconds: int
    sandbox: SandboxMode | None = None
    layers: list[str] = Field(default_factory=list)
    index_key: str | None = None
    repo_index_key: str | None = None
    repo_label: str | None = None


class TaskOutcome(TaskWork):
    """What a task workflow returns to its run: the decision and the workspace it leaves."""

    action: Action
    reason: str
    workspace: WorkspaceRef


class RunCarry(BaseModel):
    """What a continued run starts from: the plan, each task's record and the workspace."""

    plan: RefactorPlan
    plan_key: str
    records: dict[str, TaskRecord]
    workspace: WorkspaceRef
    base_workspace: WorkspaceRef
    merged: int = 0
    runs: int = 1
    index_key: str | None = None
    repo_index_key: str | None = None
    baseline: SuiteRun | None = None
    events_key: str | None = None
    planner: list[AgentRecord] = Field(default_factory=list)
    spent_before: Spend = Field(default_factory=Spend)
    deadline: datetime | None = None
    cut: str = Field(default="", description="What stopped the run early (deadline, budget)")


class RefactorResult(BaseModel):
    workflow_id: str
    repo: str
    base_sha: str
    status: RunStatus
    reason: str
    plan_summary: str = ""
    tasks: list[TaskRecord] = Field(default_factory=list)
    changed_files: list[str] = Field(default_factory=list)
    pass_rate: float | None = None
    tests_before: dict[str, int] = Field(default_factory=dict)
    tests_after: dict[str, int] = Field(default_factory=dict)
    regressions: list[str] = Field(
        default_factory=list, description="Each regressed test with its file and steps"
    )
    regressed: list[Regression] = Field(default_factory=list)
    skipped_phases: list[str] = Field(default_factory=list)
    artifact_keys: dict[str, str] = Field(
        default_factory=dict, description="Artifact path in the output directory -> blob key"
    )
    applied: bool = False
    branch: str | None = None
    pr_url: str | None = None
    delivery_refused: str | None = Field(
        default=None, description="Why --apply/--branch wrote nothing (the artifacts stand)"
    )
    runs: int = 1
    cost_usd: float = 0.0
    input_tokens: int = Field(default=0, description="Prompt tokens sent, cached or not")
    requests: int = 0


RefactorRequest.model_rebuild()
