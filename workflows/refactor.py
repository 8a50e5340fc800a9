"""The ``refactor`` workflow: resolve → index → baseline tests ∥ planning → tasks (a DAG of
child workflows) → whole-suite validation → artifacts → apply / branch / PR.

Orchestration only: the plan is checked in code, the scheduler and the recovery
ladder are pure functions, and the run's workspace is a reference (base SHA +
state key) composed from the accepted tasks' files in the order they finished,
so rolling back a subtree is recomposing without it. After ``tasks_per_run``
finished tasks, with none running, the run continues-as-new carrying its DAG,
every task's record and the workspace, so it can run for hours with a small
history; a finished task is never started again.

Every run ends in one of four ways, each with its artifacts: *validated* (the
audit is clean and no test that passed before fails after), *nothing to change*
(the planner said why, or every step finished without an edit), *aborted*
(regressions, audit errors, every step failed, no valid plan after re-asking,
no tests to validate with, a budget or the deadline cut the run), or a failed
workflow for infrastructure only. Only a validated run is delivered; the
pass-rate threshold bounds what the ladder may give up at the final validation
to save the rest, never which regressions ship.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.llm import llm_configured
    from activities.refactor import (
        Artifacts,
        ArtifactsInput,
        BlameInput,
        ChangeFacts,
        ChangeInput,
        CheckedPlan,
        CheckPlanInput,
        ComposeInput,
        IndexInput,
        IndexSummary,
        Layer,
        PlannerPromptInput,
        ReindexInput,
        refactor_artifacts,
        refactor_audit,
        refactor_blame,
        refactor_check_plan,
        refactor_compose,
        refactor_index,
        refactor_planner_prompt,
        refactor_reindex,
    )
    from prflow import search_attributes as sa
    from prflow.agent.budget import BudgetRaise, BudgetStatus
    from prflow.agent.messages import PreparedPrompt
    from prflow.agent.outcome import StopReason
    from prflow.agent.raises import plan_after
    from prflow.agent.state import spec_from_prompt
    from prflow.refactor.blame import Regression, implicated_steps
    from prflow.refactor.ladder import (
        Action,
        FinalFacts,
        SuiteFacts,
        followed,
        kept_rate,
        may_give_up,
        pass_rate,
        verdict,
    )
    from prflow.refactor.messages import SUBMIT_PLAN
    from prflow.refactor.plan import RefactorPlan, reask_message
    from prflow.refactor.report import ReportFacts, pr_title
    from prflow.refactor.run_models import (
        STEPS,
        TASK_MARK,
        TASK_WORKFLOW,
        WORKFLOW_KIND,
        AgentRecord,
        RefactorPhase,
        RefactorRequest,
        RefactorResult,
        RunCarry,
        RunStatus,
        SuiteRun,
        TaskInput,
        TaskOutcome,
        TaskRecord,
        TaskWork,
    )
    from prflow.refactor.schedule import (
        TaskStatus,
        all_finished,
        blocked,
        given_up_with,
        ready,
    )
    from prflow.run_handlers import RAISE_BUDGET_UPDATE
    from prflow.run_progress import AgentProgress, PhaseState
    from prflow.workspace.models import WorkspaceRef
    from workflows import refactor_platform
    from workflows.child_tags import child_search_attributes
    from workflows.refactor_task import RefactorTaskWorkflow
    from workflows.routing import child_memo, llm_queue
    from workflows.run_kit import NETWORK_RETRY, KindWorkflow, RunKit

SHORT = timedelta(minutes=5)
LONG = timedelta(minutes=30)
PLAN_ATTEMPTS = 3
_LANDING = (TaskStatus.pending, TaskStatus.running, TaskStatus.done)
"""States of a step that may still land (a step waiting for it may be accepted)."""
_ON_MERGE = frozenset({"changed_files", "bundle_key"})
"""What a task did that its record takes only when the run merges the task's edits."""
_ATTEMPT_FIELDS = tuple(f for f in TaskWork.model_fields if f != "task_id" and f not in _ON_MERGE)
"""The rest of :class:`TaskWork`: what a task's attempts did, kept whatever their fate."""
GIVE_UP_ROUNDS = 1
"""Times the final validation may give up the steps regressions point at and run again."""
OUTCOMES = "refactor-four-outcomes"
"""Patch: a run that cannot validate ends aborted with its artifacts (no valid plan, no
tests, the planner's "nothing to do"), gives up steps at the final validation, blames each
regression on its steps; before it, such runs failed or were validated by pass rate."""
CUT_STOPS = frozenset(
    {StopReason.budget_usd, StopReason.budget_tokens, StopReason.wall_clock, StopReason.iterations}
)


class Planned:
    """What planning ended with: a plan, or why there is none (and the run ends here)."""

    def __init__(
        self,
        records: list[AgentRecord],
        plan: RefactorPlan | None = None,
        plan_key: str = "",
        status: RunStatus | None = None,
        reason: str = "",
    ) -> None:
        self.records, self.plan, self.plan_key = records, plan, plan_key
        self.status, self.reason = status, reason


@workflow.defn(name=WORKFLOW_KIND)
class RefactorWorkflow(KindWorkflow):
    def __init__(self) -> None:
        self.kit = RunKit(WORKFLOW_KIND, list(STEPS))
        self.carry: RunCarry | None = None
        self._running: dict[str, str] = {}  # task id -> child workflow id
        self._events: list[dict[str, Any]] = []
        self._final_audit: list[str] = []
        self._given_up: list[str] = []
        self._regressed: list[Regression] = []

    @workflow.run
    async def run(self, request: RefactorRequest) -> RefactorResult:
        kit = self.kit
        kit.tag(repo=request.repo, pr=None)
        workflow_id = workflow.info().workflow_id
        if request.carry is None:
            kit.start_deadline(request.deadline_seconds)
            base = await refactor_platform.open_workspace(kit, request, workflow_id)
            index: IndexSummary = await kit.step(
                "index",
                refactor_index,
                IndexInput(
                    workspace=base,
                    directive=request.directive,
                    include=request.include,
                    exclude=request.exclude,
                ),
                timeout=LONG,
            )
            kit.set(
                "index",
                PhaseState.done,
                f"{index.files} files, {index.indexed} indexed, {index.test_files} tests"
                + (f", React rules: {len(index.rule_ids)}" if index.rule_ids else ""),
            )
            self._event("indexed", files=index.files, rules=index.rule_ids)
            baseline = asyncio.ensure_future(self._baseline(request, base))
            model = await self._model_available(request)
            if not model:
                await baseline
                return await self._static(request, base, index, baseline.result())
            planned = await self._plan(request, index, base)
            baseline_run = await baseline
            plan = planned.plan or RefactorPlan(tasks=[])
            self.carry = RunCarry(
                plan=plan,
                plan_key=planned.plan_key,
                records={t.id: TaskRecord(task_id=t.id) for t in plan.tasks},
                workspace=base,
                base_workspace=base,
                index_key=index.key,
                repo_index_key=index.repo_index_key,
                baseline=baseline_run,
                planner=planned.records,
                deadline=kit.deadline,
            )
            early = self._before_tasks(request, planned, baseline_run)
            if early is not None:
                return await self._end_early(request, *early)
        else:
            self.carry = request.carry
            self.carry.runs += 1
            kit.deadline = self.carry.deadline
            for phase in ("resolve", "index", "baseline", "planning"):
                kit.set(phase, PhaseState.done, "before continue-as-new")
            self._restore_spend()
        await self._tasks(request)
        return await self._finish(request)

    # ------------------------------------------------------------------ before the tasks

    async def _model_available(self, request: RefactorRequest) -> bool:
        if not request.uses_model:
            return False
        plan = next(iter(request.plans.values()))
        configured: bool = await workflow.execute_activity(
            llm_configured,
            start_to_close_timeout=timedelta(seconds=30),
            task_queue=llm_queue(plan.task_queue),
            retry_policy=NETWORK_RETRY,
        )
        return configured

    async def _baseline(self, request: RefactorRequest, base: WorkspaceRef) -> SuiteRun | None:
        """The whole suite at the base commit (not in a dry run)."""
        if request.dry_run:
            self.kit.set("baseline", PhaseState.skipped, "dry run: no test runs")
            return None
        run = await refactor_platform.run_suite(self.kit, "baseline", request, base, [])
        self.kit.set("baseline", PhaseState.done, run.note)
        return run

    async def _plan(
        self, request: RefactorRequest, index: IndexSummary, base: WorkspaceRef
    ) -> Planned:
        """The premium planner, re-asked with the validator's words until the plan holds."""
        kit = self.kit
        problems: list[str] = []
        records: list[AgentRecord] = []
        plan_caps = request.plans[RefactorPhase.planning]
        for attempt in range(1, PLAN_ATTEMPTS + 1):
            prompt: PreparedPrompt = await kit.step(
                "planning",
                refactor_planner_prompt,
                PlannerPromptInput(
                    index_key=index.key,
                    directive=request.directive,
                    problems=reask_message(problems, attempt - 1, PLAN_ATTEMPTS)
                    if problems
                    else "",
                ),
                timeout=SHORT,
            )
            name = "planner" if attempt == 1 else f"planner:{attempt}"
            spec = spec_from_prompt(
                prompt,
                name=name,
                workflow_kind=WORKFLOW_KIND,
                phase=RefactorPhase.planning,
                plan=plan_caps,
                terminal_tool=SUBMIT_PLAN.name,
                tool_backend=refactor_platform.read_backend(base),
                repo=request.repo,
            )
            outcome = await kit.run_inline_agent(spec)
            record = AgentRecord.of(name, attempt, outcome)
            records.append(record)
            checked: CheckedPlan = await kit.step(
                "planning",
                refactor_check_plan,
                CheckPlanInput(
                    index_key=index.key,
                    submitted=outcome.terminal_input,
                    include=request.include,
                    exclude=request.exclude,
                ),
                timeout=SHORT,
            )
            if checked.plan is not None and checked.plan_key is not None:
                kit.set(
                    "planning",
                    PhaseState.done,
                    f"{len(checked.plan.tasks)} tasks"
                    + (f" after {attempt} attempts" if attempt > 1 else ""),
                )
                self._event("planned", tasks=[t.id for t in checked.plan.tasks], attempt=attempt)
                return Planned(records, checked.plan, checked.plan_key)
            if checked.nothing_to_do and workflow.patched(OUTCOMES):
                kit.set("planning", PhaseState.done, "nothing to do")
                record.decision_reason = f"nothing to do: {checked.nothing_to_do}"
                reason = f"the planner found nothing to change: {checked.nothing_to_do}"
                return Planned(records, status=RunStatus.no_change, reason=reason)
            if outcome.stop == StopReason.llm_error and workflow.patched(OUTCOMES):
                # the model cannot be reached: infrastructure, not a verdict on the change
                kit.set("planning", PhaseState.failed, outcome.detail[:200])
                raise ApplicationError(
                    f"the planner's model calls failed: {outcome.detail}", non_retryable=True
                )
            problems = checked.problems or [f"the planner stopped: {outcome.detail}"]
            record.decision_reason = "; ".join(problems)
            self._event("plan_refused", attempt=attempt, problems=problems)
            if outcome.stop in CUT_STOPS and workflow.patched(OUTCOMES):
                cut = f"the planning was cut by its {outcome.stop.value.replace('_', ' ')} cap"
                if kit.past_deadline():
                    cut = "the run's deadline passed during planning"
                kit.set("planning", PhaseState.failed, cut)
                return Planned(records, status=RunStatus.aborted, reason=f"{cut}; no plan")
        kit.set("planning", PhaseState.failed, "; ".join(problems)[:200])
        reason = f"the planner gave no valid plan in {PLAN_ATTEMPTS} attempts: " + "; ".join(
            problems[:3]
        )
        if not workflow.patched(OUTCOMES):
            raise ApplicationError(reason, non_retryable=True)
        return Planned(records, status=RunStatus.aborted, reason=reason)

    def _before_tasks(
        self, request: RefactorRequest, planned: Planned, baseline: SuiteRun | None
    ) -> tuple[RunStatus, str] | None:
        """Why the run ends before any step runs, or None: planning gave no plan, or the suite
        found no tests at the base (nothing could validate a change: say so before paying
        for it)."""
        if planned.status is not None:
            return planned.status, planned.reason
        if baseline is None or baseline.tests_found != 0 or not workflow.patched(OUTCOMES):
            return None
        tail = f" ({baseline.output_tail.splitlines()[-1]})" if baseline.output_tail else ""
        return (
            RunStatus.aborted,
            f"the test command found no tests at the base commit (exit {baseline.exit_code})"
            f"{tail}: nothing could validate a change; pass --test-command",
        )

    async def _end_early(
        self, request: RefactorRequest, status: RunStatus, reason: str
    ) -> RefactorResult:
        """The run ends before its steps: the report says what was tried and why."""
        for phase in ("tasks", "validation"):
            self.kit.set(phase, PhaseState.skipped, reason[:200])
        self._event("ended", status=status.value, reason=reason)
        assert self.carry is not None
        compare = await refactor_platform.compare_runs(self.kit, self.carry.baseline, None)
        artifacts = await self._artifacts(request, status, reason, compare, None, tests_ran=False)
        self.kit.set("output", PhaseState.skipped, f"{status.value}: the user's tree is untouched")
        return self._result(request, status, reason, artifacts, compare, None)

    # ------------------------------------------------------------------ tasks

    async def _tasks(self, request: RefactorRequest) -> None:
        carry = self.carry
        assert carry is not None
        kit, plan = self.kit, carry.plan
        states = {tid: rec.status for tid, rec in carry.records.items()}
        # a task that was running when the previous run continued-as-new cannot exist:
        # the run only continues with nothing running
        pending: dict[str, asyncio.Task[TaskOutcome]] = {}
        finished_here = 0
        kit.set("tasks", PhaseState.running, self._progress_text())
        while True:
            for tid, why in blocked(plan, states).items():
                self._settle(tid, TaskStatus.skipped, why)
                states[tid] = TaskStatus.skipped
            if all_finished(plan, states):
                break
            if kit.past_deadline() and not carry.cut:
                waiting = [t.id for t in plan.tasks if states.get(t.id) == TaskStatus.pending]
                carry.cut = (
                    f"the run's deadline passed with {len(waiting) + len(pending)} of "
                    f"{len(plan.tasks)} steps unfinished"
                )
                for tid in waiting:
                    self._settle(tid, TaskStatus.skipped, "the run's deadline passed first")
                    states[tid] = TaskStatus.skipped
            if not pending and (
                finished_here >= request.tasks_per_run
                or workflow.info().is_continue_as_new_suggested()
            ):
                await workflow.wait_condition(workflow.all_handlers_finished)
                carry.spent_before = carry.spent_before.plus(self._spent_here())
                plans = {p: plan_after(v, self.kit.raises, p) for p, v in request.plans.items()}
                workflow.continue_as_new(
                    request.model_copy(update={"carry": carry, "plans": plans}),
                    memo=child_memo(),
                )
            for tid in ready(plan, states, request.max_concurrency):
                states[tid] = TaskStatus.running
                carry.records[tid].status = TaskStatus.running
                pending[tid] = asyncio.ensure_future(self._start_task(request, tid))
            if not pending:
                break
            done, _ = await workflow.wait(
                list(pending.values()), return_when=asyncio.FIRST_COMPLETED
            )
            for tid in [t for t, fut in pending.items() if fut in done]:
                outcome = pending.pop(tid).result()
                self._running.pop(tid, None)
                await self._apply(outcome, states)
                finished_here += 1
            kit.set("tasks", PhaseState.running, self._progress_text())
        done_count = sum(1 for s in states.values() if s == TaskStatus.done)
        kit.set("tasks", PhaseState.done, f"{done_count}/{len(plan.tasks)} tasks done")

    async def _start_task(self, request: RefactorRequest, task_id: str) -> TaskOutcome:
        carry = self.carry
        assert carry is not None
        parent = workflow.info().workflow_id
        attempt_no = carry.runs
        child_id = f"{parent}{TASK_MARK}{task_id}:{attempt_no}"
        self._running[task_id] = child_id
        outcome: TaskOutcome = await workflow.execute_child_workflow(
            TASK_WORKFLOW,
            TaskInput(
                run_workflow_id=parent,
                task_workflow_id=child_id,
                task_id=task_id,
                task=carry.plan.task(task_id),
                run_base=carry.base_workspace,
                deferred_files=sorted(
                    {
                        f
                        for d in carry.plan.dependents(task_id)
                        for f in carry.plan.task(d).all_files
                    }
                ),
                later_owners=self._later_owners(task_id),
                deadline=self.kit.deadline,
                plan_key=carry.plan_key,
                workspace=carry.workspace,
                directive=request.directive,
                executor=plan_after(
                    request.plans.get(RefactorPhase.executor),
                    self.kit.raises,
                    RefactorPhase.executor,
                ),
                max_retries=request.max_retries,
                dry_run=request.dry_run,
                test_command=request.test_command,
                allow_unsandboxed=request.allow_unsandboxed,
                test_timeout_seconds=request.test_timeout_seconds,
                sandbox=request.sandbox
                if workflow.patched(refactor_platform.SANDBOX_PATCH)
                else None,
                layers=request.layers,
                index_key=carry.index_key,
                repo_index_key=carry.repo_index_key,
                repo_label=request.repo,
            ),
            id=child_id,
            result_type=TaskOutcome,
            parent_close_policy=ParentClosePolicy.TERMINATE,
            memo=child_memo(),
            search_attributes=child_search_attributes(WORKFLOW_KIND, sa.ROLE_TASK, before=None),
            static_summary=f"refactor task {task_id}",
        )
        return outcome

    def _later_owners(self, task_id: str) -> dict[str, str]:
        """Each file of a step that has not finished (and is not ``task_id`` or one it waits
        for) -> that step: what this step's edits leave broken there is that step's to fix."""
        carry = self.carry
        assert carry is not None
        mine = set(carry.plan.task(task_id).all_files)
        before = {task_id, *carry.plan.ancestors(task_id)}
        owners: dict[str, str] = {}
        for task in carry.plan.tasks:
            status = carry.records[task.id].status
            if task.id in before or status not in (TaskStatus.pending, TaskStatus.running):
                continue
            for path in task.all_files:
                if path not in mine:
                    owners.setdefault(path, task.id)
        return owners

    async def _apply(self, outcome: TaskOutcome, states: dict[str, TaskStatus]) -> None:
        """Fold a finished task into the run: merge it, skip it, or roll back its subtree."""
        carry = self.carry
        assert carry is not None
        record = carry.records[outcome.task_id]
        for field in _ATTEMPT_FIELDS:
            setattr(record, field, getattr(outcome, field))
        record.reason = outcome.reason
        if states.get(outcome.task_id) != TaskStatus.running:
            return  # rolled back with its subtree while it ran: its edits are dropped
        gone = [w for w in outcome.waits_for if states.get(w) not in (None, *_LANDING)]
        if outcome.action == Action.accept and gone:
            outcome = outcome.model_copy(
                update={
                    "action": Action.rollback,
                    "reason": f"its edits need step {', '.join(gone)}, which did not land",
                }
            )
        self._event(
            "task_finished",
            task=outcome.task_id,
            action=outcome.action.value,
            attempts=outcome.attempts,
            reason=outcome.reason,
        )
        if outcome.action == Action.accept:
            for field in _ON_MERGE:
                setattr(record, field, getattr(outcome, field))
            record.state_key = outcome.workspace.state_key
            record.merge_order = carry.merged
            carry.merged += 1
            self._settle(outcome.task_id, TaskStatus.done, outcome.reason)
            states[outcome.task_id] = TaskStatus.done
            if outcome.changed_files:
                await self._recompose()
                await self._reindex(outcome.changed_files)
            return
        if outcome.action == Action.skip:
            self._settle(outcome.task_id, TaskStatus.skipped, outcome.reason)
            states[outcome.task_id] = TaskStatus.skipped
            reliers = self._reliers([outcome.task_id], states)
            if reliers:
                await self._roll_back(reliers, outcome.task_id, outcome.reason, states)
            return
        doomed = carry.plan.rollback_set(outcome.task_id)
        doomed += [t for t in self._reliers(doomed, states) if t not in doomed]
        await self._roll_back(doomed, outcome.task_id, outcome.reason, states)

    def _reliers(self, gone: list[str], states: dict[str, TaskStatus]) -> list[str]:
        """Steps whose accepted edits wait for one of ``gone`` (they go too)."""
        carry = self.carry
        assert carry is not None
        waits = {tid: r.waits_for for tid, r in carry.records.items() if r.waits_for}
        if not waits:
            return []
        return [t for t in given_up_with(carry.plan, states, waits, gone) if t not in gone]

    async def _roll_back(
        self, doomed: list[str], cause: str, reason: str, states: dict[str, TaskStatus]
    ) -> None:
        for tid in doomed:
            if states.get(tid) in (TaskStatus.skipped, TaskStatus.rolled_back):
                continue
            why = reason if tid == cause else followed(cause)
            self._settle(tid, TaskStatus.rolled_back, why)
            states[tid] = TaskStatus.rolled_back
        self._event("rolled_back", task=cause, subtree=doomed)
        await self._recompose()

    async def _recompose(self) -> None:
        """The workspace = the base + every done task's files, in the order they finished."""
        carry = self.carry
        assert carry is not None
        done = sorted(
            (r for r in carry.records.values() if r.status == TaskStatus.done and r.changed_files),
            key=lambda r: r.merge_order,
        )
        carry.workspace = await self.kit.step(
            "tasks",
            refactor_compose,
            ComposeInput(
                base=carry.base_workspace,
                layers=[Layer(state_key=r.state_key, paths=r.changed_files) for r in done],
            ),
            timeout=SHORT,
        )

    async def _reindex(self, paths: list[str]) -> None:
        """The index follows the workspace: only the merged task's files are re-read."""
        carry = self.carry
        assert carry is not None
        if carry.repo_index_key is None:
            return
        carry.repo_index_key = await self.kit.step(
            "tasks",
            refactor_reindex,
            ReindexInput(
                repo_index_key=carry.repo_index_key, workspace=carry.workspace, paths=paths
            ),
            timeout=LONG,
        )

    def _settle(self, task_id: str, status: TaskStatus, reason: str) -> None:
        assert self.carry is not None
        record = self.carry.records[task_id]
        record.status = status
        if (reason and not record.reason) or status == TaskStatus.rolled_back:
            record.reason = reason

    def _progress_text(self) -> str:
        assert self.carry is not None
        records = self.carry.records.values()
        done = sum(1 for r in records if r.status == TaskStatus.done)
        running = sorted(r.task_id for r in records if r.status == TaskStatus.running)
        text = f"{done}/{len(records)} done"
        return text + (f"; running {', '.join(running)}" if running else "")

    # ------------------------------------------------------------------ validation and output

    def _changed(self) -> list[str]:
        assert self.carry is not None
        records = self.carry.records.values()
        return sorted({f for r in records for f in r.changed_files if r.status == TaskStatus.done})

    async def _finish(self, request: RefactorRequest) -> RefactorResult:
        carry = self.carry
        assert carry is not None
        kit = self.kit
        after: SuiteRun | None = None
        audit_errors: list[str] = []
        rounds = 0
        while True:
            changed = self._changed()
            if carry.cut or not changed:
                kit.set("validation", PhaseState.skipped, carry.cut or "no change to validate")
                after, audit_errors = None, []
                compare = await refactor_platform.compare_runs(kit, carry.baseline, None)
                break
            final: ChangeFacts = await kit.step(
                "validation",
                refactor_audit,
                ChangeInput(
                    before=carry.base_workspace,
                    after=carry.workspace,
                    own=changed,
                    rule_ids=carry.plan.rule_ids,
                    layers=request.layers,
                ),
                timeout=LONG,
            )
            audit_errors = final.errors
            if not request.dry_run:
                after = await refactor_platform.run_suite(
                    kit, "validation", request, carry.workspace, []
                )
            compare = await refactor_platform.compare_runs(kit, carry.baseline, after)
            self._regressed = []
            if compare.failed and workflow.patched(OUTCOMES):
                self._regressed = await self._blame(compare)
            if (
                audit_errors
                or not self._regressed
                or rounds >= GIVE_UP_ROUNDS
                or not await self._give_up(request, compare)
            ):
                break
            rounds += 1
        records = [carry.records[t.id] for t in carry.plan.tasks]
        done = [r for r in records if r.status == TaskStatus.done]
        critical = {t.id for t in carry.plan.tasks if t.critical}
        baseline = carry.baseline
        outcome = verdict(
            FinalFacts(
                steps=len(records),
                done=len(done),
                changed_files=len(self._changed()),
                critical_planned=len(critical),
                critical_done=sum(1 for r in done if r.task_id in critical),
                failures=[f"{r.task_id}: {r.reason}" for r in records if r not in done],
                audit_errors=audit_errors,
                cut=carry.cut,
                suite=SuiteFacts(
                    ran=after is not None,
                    tests_before=baseline.tests_found if baseline is not None else None,
                    tests_after=after.tests_found if after is not None else None,
                    timed_out=after is not None and after.timed_out,
                    regressions=[r.text() for r in self._regressed] or compare.regressions,
                    basis=compare.basis,
                ),
            )
        )
        status, reason = outcome.status, outcome.reason
        rate = (
            pass_rate(
                compare.after.get("passed", 0),
                compare.after.get("failed", 0) + compare.after.get("errors", 0),
            )
            if after is not None
            else None
        )
        kit.set("validation", PhaseState.done if changed else PhaseState.skipped, reason[:200])
        self._final_audit = audit_errors
        self._event("validated", status=status.value, reason=reason)
        artifacts = await self._artifacts(
            request, status, reason, compare, rate, tests_ran=after is not None, after=after
        )
        result = self._result(request, status, reason, artifacts, compare, rate)
        if status == RunStatus.validated:
            delivered = await refactor_platform.deliver(
                kit,
                request,
                carry.workspace,
                pr_title(request.directive),
                artifacts.keys["pr-summary.md"],
            )
            result.applied, result.branch = delivered.applied, delivered.branch
            result.pr_url, result.delivery_refused = delivered.pr_url, delivered.refused
        else:
            kit.set("output", PhaseState.skipped, f"{status.value}: the user's tree is untouched")
        return result

    async def _blame(self, compare: refactor_platform.Comparison) -> list[Regression]:
        """Each regressed test with its file and the done steps that reach it."""
        carry = self.carry
        assert carry is not None
        steps = {
            r.task_id: r.changed_files
            for r in carry.records.values()
            if r.status == TaskStatus.done and r.changed_files
        }
        named = [f for f in compare.failed if f.kind != "count"]
        blamed: list[Regression] = []
        if named:
            blamed = await self.kit.step(
                "validation",
                refactor_blame,
                BlameInput(workspace=carry.workspace, failed=named, steps=steps),
                timeout=SHORT,
            )
        counted = [Regression(test=f.test, kind=f.kind) for f in compare.failed if f not in named]
        return [*blamed, *counted]

    async def _give_up(
        self, request: RefactorRequest, compare: refactor_platform.Comparison
    ) -> bool:
        """Give up the steps the regressions point at, when the ladder may (narrow
        regressions, each pointing at a step, a critical step left standing): they are rolled
        back with what needs them, and the rest is validated again."""
        carry = self.carry
        assert carry is not None
        regressed = self._regressed
        kept = kept_rate(compare.before.get("passed", 0), len(regressed))
        blamed = implicated_steps(regressed)
        if not may_give_up(kept, request.pass_threshold) or not blamed:
            return False
        if any(not r.steps for r in regressed):
            return False
        states = {tid: r.status for tid, r in carry.records.items()}
        waits = {tid: r.waits_for for tid, r in carry.records.items()}
        doomed: list[str] = []
        for tid in blamed:
            task = carry.plan.task(tid)
            doomed += carry.plan.rollback_set(tid) if task.critical else [tid]
        doomed = given_up_with(carry.plan, states, waits, sorted(set(doomed)))
        left = [
            t
            for t in carry.plan.tasks
            if t.critical and states.get(t.id) == TaskStatus.done and t.id not in doomed
        ]
        if not left:
            return False
        names = ", ".join(r.test for r in regressed[:3])
        for tid in doomed:
            why = f"given up at the final validation: it broke {names}"
            if tid not in blamed:
                why = f"given up with step {', '.join(blamed)} at the final validation"
            self._settle(tid, TaskStatus.rolled_back, why)
            self._given_up.append(f"{tid} ({why})")
        self._event("given_up", steps=doomed, regressions=[r.test for r in regressed])
        await self._recompose()
        return True

    async def _static(
        self,
        request: RefactorRequest,
        base: WorkspaceRef,
        index: IndexSummary,
        baseline: SuiteRun | None,
    ) -> RefactorResult:
        """No model: say so, change nothing, still report the index and the baseline."""
        why = "static mode: no model configured"
        for phase in ("planning", "tasks", "validation"):
            self.kit.set(phase, PhaseState.skipped, why)
        self.carry = RunCarry(
            plan=RefactorPlan(tasks=[]),
            plan_key="",
            records={},
            workspace=base,
            base_workspace=base,
            index_key=index.key,
            baseline=baseline,
        )
        compare = await refactor_platform.compare_runs(self.kit, baseline, None)
        reason = "the model phases (planning, executor) were skipped: no change was made"
        artifacts = await self._artifacts(
            request, RunStatus.static, reason, compare, None, tests_ran=False
        )
        self.kit.set("output", PhaseState.skipped, why)
        return self._result(request, RunStatus.static, reason, artifacts, compare, None)

    async def _artifacts(
        self,
        request: RefactorRequest,
        status: RunStatus,
        reason: str,
        compare: refactor_platform.Comparison,
        rate: float | None,
        *,
        tests_ran: bool,
        after: SuiteRun | None = None,
    ) -> Artifacts:
        carry = self.carry
        assert carry is not None
        tasks = []
        for task in carry.plan.tasks:
            record = carry.records[task.id]
            tasks.append(
                {
                    "title": task.title,
                    **record.model_dump(mode="json", exclude={"agents", "state_key"}),
                }
            )
        regressions = self._regressed or [Regression(test=t) for t in compare.regressions]
        summaries = {
            when: run.summary
            for when, run in (("before", carry.baseline), ("after", after))
            if run is not None and run.summary
        }
        failed_run = after is not None and (after.exit_code != 0 or after.timed_out)
        planner = [
            {
                "attempt": a.attempt,
                "stop": a.stop,
                "turns": a.turns,
                "problems": a.decision_reason.split("; ") if a.decision_reason else [],
            }
            for a in carry.planner
        ]
        facts = ReportFacts(
            directive=request.directive,
            repo=request.repo,
            base_sha=carry.base_workspace.base_sha,
            status=status.value,
            reason=reason,
            plan=carry.plan if carry.plan.tasks else None,
            tasks=tasks,
            tests_before=compare.before,
            tests_after=compare.after,
            regressions=regressions,
            still_failing=compare.still_failing,
            fixed=compare.fixed,
            pass_rate=rate,
            tests_ran=tests_ran,
            sandbox=compare.sandbox,
            basis=compare.basis,
            summary_lines=summaries,
            output_tail=after.output_tail if after is not None and failed_run else "",
            planner=planner,
            given_up=self._given_up,
            skipped_phases=self._skipped(),
            audit_warnings=[a for r in carry.records.values() for a in r.audit][:50],
            cost_usd=self._total_usd(),
            branch=request.branch,
            workflow_id=workflow.info().workflow_id,
        )
        log = None
        if request.verbose:
            agents = [a.model_dump(mode="json") for a in carry.planner]
            for record in carry.records.values():
                agents += [
                    {"task": record.task_id, **a.model_dump(mode="json")} for a in record.agents
                ]
            log = {
                "workflow_id": workflow.info().workflow_id,
                "runs": carry.runs,
                "events": self._events,
                "agents": agents,
            }
        artifacts: Artifacts = await self.kit.step(
            "artifacts",
            refactor_artifacts,
            ArtifactsInput(
                facts=facts,
                base=carry.base_workspace,
                final=carry.workspace if status != RunStatus.static else carry.base_workspace,
                audit=[
                    *({"task": r.task_id, "findings": r.audit} for r in carry.records.values()),
                    {"task": "final", "findings": self._final_audit},
                ],
                agent_log=log,
            ),
            timeout=SHORT,
        )
        self.kit.set("artifacts", PhaseState.done, f"{len(artifacts.changed_files)} patches")
        return artifacts

    def _result(
        self,
        request: RefactorRequest,
        status: RunStatus,
        reason: str,
        artifacts: Artifacts,
        compare: refactor_platform.Comparison,
        rate: float | None,
    ) -> RefactorResult:
        carry = self.carry
        assert carry is not None
        records = [carry.records[t.id] for t in carry.plan.tasks]
        return RefactorResult(
            workflow_id=workflow.info().workflow_id,
            repo=request.repo,
            base_sha=carry.base_workspace.base_sha,
            status=status,
            reason=reason,
            plan_summary=carry.plan.summary,
            tasks=[r.model_copy(update={"agents": []}) for r in records],
            changed_files=artifacts.changed_files,
            pass_rate=rate,
            tests_before=compare.before,
            tests_after=compare.after,
            regressions=[r.text() for r in self._regressed] or compare.regressions,
            regressed=self._regressed,
            skipped_phases=self._skipped(),
            artifact_keys=artifacts.keys,
            runs=carry.runs,
            cost_usd=self._total_usd(),
            input_tokens=self._spent_total().prompt_tokens,
            requests=self._spent_total().calls,
        )

    def _skipped(self) -> list[str]:
        return [p.name for p in self.kit.phases if p.state == PhaseState.skipped]

    # ------------------------------------------------------------------ spend

    def _spent_here(self) -> Any:
        from prflow.agent.budget import Spend

        total = Spend()
        for budget in self.kit.budget.phases.values():
            total = total.plus(budget.spent)
        return total

    def _spent_total(self) -> Any:
        assert self.carry is not None
        return self.carry.spent_before.plus(self._spent_here())

    def _total_usd(self) -> float:
        return float(self._spent_total().usd)

    def _restore_spend(self) -> None:
        self.kit.note_cost()

    def _event(self, what: str, **fields: Any) -> None:
        self._events.append({"at": workflow.now().isoformat(), "event": what, **fields})

    # ------------------------------------------------------------------ handlers

    @workflow.signal
    def agent_progress(self, progress: AgentProgress) -> None:
        """Executors report through their task; the run's book learns each one."""
        if progress.name not in self.kit.budget.phases and progress.caps is not None:
            self.kit.budget.open(progress.name, progress.caps, group=progress.phase)
        self.kit.record_child_progress(progress)
        self.kit.note_cost()

    @workflow.update(name=RAISE_BUDGET_UPDATE)
    async def raise_budget(self, change: BudgetRaise) -> BudgetStatus:  # type: ignore[override]
        status = await self.kit.raise_budget(change)
        for child_id in self._running.values():
            handle = workflow.get_external_workflow_handle(child_id)
            await handle.signal(RefactorTaskWorkflow.raise_task_budget, change)
        return status

    @raise_budget.validator
    def _validate_raise(self, change: BudgetRaise) -> None:
        if change.phase in (RefactorPhase.executor, RefactorPhase.planning) and self._running:
            return
        self.kit.validate_raise(change)
