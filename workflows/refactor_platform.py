"""The refactor kind's calls into the platform's write path, in one place.

Workspace (open, agent tools, read/edit backend), test runs (the whole suite,
mapped tests, before/after compare) and delivery (apply to the user's tree,
a new branch, a draft PR): each a thin wrapper over the platform's activities
with the kit's policies, so the refactor workflows stay readable.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from pydantic import BaseModel, Field
from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.github.draft_pr import open_draft_pr
    from activities.test_runs import compare_test_runs, run_tests
    from activities.workspace import workspace_apply, workspace_branch, workspace_open
    from prflow.agent.outcome import AgentOutcome
    from prflow.agent.state import WorkspaceToolBackend
    from prflow.refactor.blame import FailedTest
    from prflow.refactor.run_models import RefactorRequest, SuiteRun, TaskInput
    from prflow.run_progress import PhaseState
    from prflow.test_runs.compare import RunFacts, compare_counts, step_start_unreadable
    from prflow.test_runs.models import (
        CompareInput,
        ResultBasis,
        TestComparison,
        TestCounts,
        TestRunInput,
        TestRunResult,
    )
    from prflow.workspace.models import (
        DraftPullRequest,
        DraftPullRequestInput,
        WorkspaceApplyInput,
        WorkspaceBranch,
        WorkspaceBranchInput,
        WorkspaceOpenInput,
        WorkspaceRef,
    )
    from workflows.routing import github_queue
    from workflows.run_kit import NETWORK_RETRY, RunKit

SHORT = timedelta(minutes=5)
INSTALL_SECONDS = 900
SANDBOX_PATCH = "sandbox-mode-and-report"
STEP_START_UNREADABLE = "refactor-step-start-unreadable-defers-v1"
"""A step whose tests already failed, exit status only, at its start is left to the final
validation instead of being judged a regression (see ``step_start_unreadable``)."""
"""Test runs carry the run's ``--sandbox`` mode, and reports say what the sandbox isolated."""


class Comparison(BaseModel):
    before: dict[str, int] = Field(default_factory=dict)
    after: dict[str, int] = Field(default_factory=dict)
    regressions: list[str] = Field(default_factory=list)
    failed: list[FailedTest] = Field(
        default_factory=list, description="Each regression as the blame needs it"
    )
    fixed: list[str] = Field(default_factory=list)
    still_failing: list[str] = Field(default_factory=list)
    sandbox: str = ""
    basis: str = Field(default="junit", description="Per test, or by summary / exit status")


async def open_workspace(kit: RunKit, request: RefactorRequest, run_id: str) -> WorkspaceRef:
    ref: WorkspaceRef = await kit.step(
        "resolve",
        workspace_open,
        WorkspaceOpenInput(repo=request.repo, base=request.base, run_id=run_id),
        timeout=timedelta(minutes=20),
        summary=f"open the workspace at {request.repo} {request.base}",
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


def _counts(result: TestRunResult) -> dict[str, int]:
    return result.counts.model_dump()


async def run_suite(
    kit: RunKit,
    phase: str,
    policy: RefactorRequest | TaskInput,
    ref: WorkspaceRef,
    selection: list[str],
) -> SuiteRun:
    """The repository's tests (all, or ``selection``) on ``ref``, sandboxed, time-capped."""
    sandbox_patched = workflow.patched(SANDBOX_PATCH)
    result: TestRunResult = await kit.step(
        phase,
        run_tests,
        TestRunInput(
            workspace=ref,
            command=policy.test_command,
            selection=selection,
            timeout_seconds=policy.test_timeout_seconds,
            allow_unsandboxed=policy.allow_unsandboxed,
            sandbox=policy.sandbox if sandbox_patched else None,
        ),
        timeout=timedelta(seconds=policy.test_timeout_seconds + INSTALL_SECONDS + 120),
        summary=f"{phase}: tests" + (f" ({len(selection)} files)" if selection else " (all)"),
    )
    counts = _counts(result)
    note = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "no tests ran"
    if result.basis != ResultBasis.junit:
        note += f" (no per-test report: {result.basis.value.replace('_', ' ')}, exit "
        note += f"{result.exit_code})"
    if result.timed_out:
        note += " (time cap reached)"
    sandbox = result.sandbox.value
    if sandbox_patched and result.sandbox_report is not None:
        sandbox = result.sandbox_report.summary()
        if result.limit_hit:
            note += f" (stopped: {result.limit_hit} limit)"
    return SuiteRun(
        outcomes_key=result.outcomes_key,
        counts=counts,
        sandbox=sandbox,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        note=f"{note}; sandbox {sandbox}",
        basis=result.basis.value,
        tests_found=result.tests_found,
        summary=result.summary,
        output_tail=result.output_tail,
    )


def _facts(run: SuiteRun) -> RunFacts:
    known = TestCounts.model_fields.keys()
    return RunFacts(
        exit_code=run.exit_code,
        timed_out=run.timed_out,
        basis=ResultBasis(run.basis),
        counts=TestCounts(**{k: v for k, v in run.counts.items() if k in known}),
        tests_found=run.tests_found,
    )


async def compare_runs(kit: RunKit, before: SuiteRun | None, after: SuiteRun | None) -> Comparison:
    """Per-test before/after: regressions are tests that passed before and fail (or did not
    run) after, and new tests that fail; a test failing in both runs is not one. Without a
    per-test report on both sides, the exit status and the runner's summary line are
    compared, and the comparison says so."""
    latest = after or before
    out = Comparison(
        before=before.counts if before else {},
        after=after.counts if after else {},
        sandbox=latest.sandbox if latest is not None else "",
        basis=after.basis if after is not None else "junit",
    )
    if after is None:
        return out
    if before is None:
        return out
    if after.outcomes_key is None or before.outcomes_key is None:
        out.basis = after.basis if after.outcomes_key is None else before.basis
        problems = compare_counts(_facts(before), _facts(after))
        out.regressions = problems
        out.failed = [FailedTest(test=p, kind="count") for p in problems]
        return out
    compared: TestComparison = await kit.step(
        "validation",
        compare_test_runs,
        CompareInput(
            before_outcomes_key=before.outcomes_key, after_outcomes_key=after.outcomes_key
        ),
        timeout=SHORT,
    )
    out.regressions = [*compared.regressions, *compared.new_failures, *compared.missing]
    out.failed = [
        FailedTest(test=t, kind=kind, file=compared.files.get(t, ""))
        for kind, tests in (
            ("regressed", compared.regressions),
            ("new_failure", compared.new_failures),
            ("missing", compared.missing),
        )
        for t in tests
    ]
    out.fixed = compared.fixed
    out.still_failing = compared.still_failing
    return out


async def mapped_regressions(
    kit: RunKit, inp: TaskInput, start: WorkspaceRef, end: WorkspaceRef, tests: list[str]
) -> tuple[list[str], int]:
    """The tests the task's files map to, before and after it: what it broke, and how many
    ran."""
    before = await run_suite(kit, "tests", inp, start, tests)
    after = await run_suite(kit, "tests", inp, end, tests)
    compared = await compare_runs(kit, before, after)
    if step_start_unreadable(_facts(before)) and workflow.patched(STEP_START_UNREADABLE):
        return [], sum(after.counts.values())
    return compared.regressions, sum(after.counts.values())


class Delivery(BaseModel):
    applied: bool = False
    branch: str | None = None
    pr_url: str | None = None
    refused: str | None = Field(default=None, description="Why a write was refused (one line)")


def pr_branch(run_id: str) -> str:
    """The run's own branch for its PR: one per run, so a retried activity finds it."""
    tail = run_id.rsplit(":", 1)[-1]
    return f"prflow/refactor-{tail}"


async def deliver(
    kit: RunKit, request: RefactorRequest, ref: WorkspaceRef, title: str, body_key: str
) -> Delivery:
    """Once validated: write the user's tree (only if still clean at the base), commit on a
    new branch, open a draft PR; a refusal is reported, the artifacts stay."""
    out = Delivery()
    if not (request.apply or request.branch or request.open_pr):
        kit.set("output", PhaseState.skipped, "artifacts only")
        return out
    try:
        if request.open_pr and request.pr_repo:
            pull: DraftPullRequest = await kit.step(
                "output",
                open_draft_pr,
                DraftPullRequestInput(
                    workspace=ref,
                    repository=request.pr_repo,
                    branch=request.branch or pr_branch(ref.run_id),
                    title=title,
                    body_key=body_key,
                ),
                task_queue=github_queue(request.github_task_queue),
                timeout=timedelta(minutes=5),
                retry=NETWORK_RETRY,
                summary=f"open a draft PR on {request.pr_repo}",
            )
            out.pr_url, out.branch = pull.html_url, pull.branch
        if request.branch and not request.open_pr:
            made: WorkspaceBranch = await kit.step(
                "output",
                workspace_branch,
                WorkspaceBranchInput(workspace=ref, branch=request.branch, message=title),
                timeout=SHORT,
                summary=f"commit on branch {request.branch}",
            )
            out.branch = made.branch
        if request.apply:
            await kit.step(
                "output",
                workspace_apply,
                WorkspaceApplyInput(workspace=ref, path=request.repo),
                timeout=SHORT,
                summary=f"apply to {request.repo}",
            )
            out.applied = True
    except ActivityError as err:
        out.refused = kit.refusal("output", err)
        if out.refused is None:
            raise
        return out
    done = [
        w
        for w, ok in (
            ("applied", out.applied),
            (f"branch {out.branch}", out.branch),
            (f"PR {out.pr_url}", out.pr_url),
        )
        if ok
    ]
    kit.set("output", PhaseState.done, ", ".join(done))
    return out
