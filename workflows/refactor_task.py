"""One task of a refactor as its own workflow: retrieve → executor agent → audit → mapped
tests → recovery ladder, attempt after attempt, from the workspace state it started on.

The executor is a child agent workflow (it continues-as-new on long tasks), so a
worker killed mid-task resumes inside the same attempt: finished model turns
and tool calls come from history, never again from the model. Every attempt
starts from the same state, so a retry with a narrowed scope never builds on
a rejected attempt. What the task returns is small: the final workspace
reference, its changed files, and the ladder's decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.refactor import (
        ChangeFacts,
        ChangeInput,
        ExecutorPromptInput,
        RetrievedContext,
        RetrieveTaskInput,
        refactor_audit,
        refactor_executor_prompt,
        refactor_retrieve,
    )
    from prflow.agent.budget import BudgetRaise, Spend
    from prflow.agent.messages import PreparedPrompt
    from prflow.agent.outcome import AgentOutcome, StopReason
    from prflow.agent.plan import PhasePlan
    from prflow.agent.state import spec_from_prompt
    from prflow.refactor.ladder import Action, AttemptReport, Decision, decide
    from prflow.refactor.messages import FINISH_TASK, declared_unchanged
    from prflow.refactor.run_models import (
        TASK_WORKFLOW,
        WORKFLOW_KIND,
        AgentRecord,
        RefactorPhase,
        TaskInput,
        TaskOutcome,
    )
    from prflow.run_progress import AgentProgress, PhaseState
    from prflow.workspace.models import WorkspaceRef
    from workflows import refactor_platform
    from workflows.budget_raises import reaches_later_agents
    from workflows.child_reports import ChildReports
    from workflows.run_kit import KindWorkflow, RunKit

SHORT = timedelta(minutes=5)
LONG = timedelta(minutes=30)
TASK_STEPS = ("retrieve", "executor", "audit", "tests")
JUDGED_BY_WHAT_IT_OWNS = "refactor-step-judged-by-what-it-owns"
"""Patch: a step whose edits wait for a later step's files runs no mapped tests (the final
validation decides); before it, every accepted audit ran them."""
LLM_DOWN_FAILS = "refactor-step-fails-when-the-model-is-down"
"""Patch: an executor whose model calls failed fails the step's workflow (and the run: an
infrastructure failure); before it, the ladder retried and rolled the step back."""
NAMED_FILES_CHANGED = "refactor-step-changes-its-named-files-v1"
"""Patch: a step that leaves a file its plan lists to edit unchanged, without declaring
it needs no change (``finish_task``'s ``unchanged``), fails the attempt's audit."""
OUTCOME_RELAYED = "refactor-executor-outcome-relayed-v1"
"""Patch: a finished executor's spend goes up to the run once (executors no longer report
at their end, agent-progress-quiet-v1), so the run's cost counts every executor turn."""


@dataclass
class Attempts:
    """What the task's attempts did so far: the state its loop carries from one to the next."""

    focus: list[str]
    feedback: str = ""
    number: int = 0
    agents: list[AgentRecord] = field(default_factory=list)
    requests: int = 0
    spent: Spend = field(default_factory=Spend)

    def executor_name(self, task_id: str) -> str:
        return f"executor:{task_id}:{self.number}"


@dataclass
class Tried:
    """One attempt, checked: the executor's outcome, where it left the workspace, what the
    audit and the mapped tests found."""

    outcome: AgentOutcome
    end: WorkspaceRef
    done: bool
    facts: ChangeFacts
    regressions: list[str] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)
    tests_run: int = 0


@workflow.defn(name=TASK_WORKFLOW)
class RefactorTaskWorkflow(KindWorkflow):
    def __init__(self) -> None:
        self.kit = RunKit(WORKFLOW_KIND, list(TASK_STEPS))
        self._run_id: str | None = None

    @workflow.run
    async def run(self, inp: TaskInput) -> TaskOutcome:
        self._run_id = inp.run_workflow_id
        self.kit.deadline = inp.deadline
        context = await self._retrieve(inp)
        if inp.executor is None:
            return TaskOutcome(
                task_id=inp.task.id,
                action=Action.skip,
                reason="no model configured",
                workspace=inp.workspace,
                attempts=0,
            )
        attempts = Attempts(focus=inp.task.all_files)
        while True:
            attempts.number += 1
            outcome = await self._execute(inp, inp.executor, attempts, context)
            tried = await self._check(inp, outcome)
            decision = self._decide(inp, attempts, tried)
            if decision.action != Action.retry:
                return self._outcome(inp, context, attempts, tried, decision)
            attempts.focus, attempts.feedback = decision.narrowed_files, decision.feedback

    async def _retrieve(self, inp: TaskInput) -> RetrievedContext:
        """The repository passages the task's text points at (none without a repository index)."""
        if inp.repo_index_key is None:
            return RetrievedContext(bundle_key="", paths=[])
        task = inp.task
        context: RetrievedContext = await self.kit.step(
            "retrieve",
            refactor_retrieve,
            RetrieveTaskInput(
                repo_index_key=inp.repo_index_key,
                query=f"{task.label}\n{task.instructions}\n{' '.join(task.all_files)}",
            ),
            timeout=SHORT,
        )
        return context

    async def _execute(
        self, inp: TaskInput, plan: PhasePlan, attempts: Attempts, context: RetrievedContext
    ) -> AgentOutcome:
        """One executor agent, from the task's start state with this attempt's focus and
        feedback; its turns and spend count towards the task."""
        task, start = inp.task, inp.workspace
        prompt: PreparedPrompt = await self.kit.step(
            "retrieve",
            refactor_executor_prompt,
            ExecutorPromptInput(
                plan_key=inp.plan_key,
                task_id=task.id,
                directive=inp.directive,
                workspace=start,
                focus=attempts.focus,
                feedback=attempts.feedback,
                attempt=attempts.number,
                retrieved=context.paths,
            ),
            timeout=SHORT,
        )
        spec = spec_from_prompt(
            prompt,
            name=attempts.executor_name(task.id),
            workflow_kind=WORKFLOW_KIND,
            phase=RefactorPhase.executor,
            plan=plan,
            terminal_tool=FINISH_TASK.name,
            tool_backend=refactor_platform.backend(start, task.all_files),
            repo=inp.repo_label,
        )
        self.kit.set("executor", PhaseState.running, f"attempt {attempts.number}")
        outcome = await self.kit.run_child_agent(spec, parent_id=inp.task_workflow_id)
        await self._relay_outcome(spec.name)
        if outcome.stop == StopReason.llm_error and workflow.patched(LLM_DOWN_FAILS):
            # the model cannot be reached: infrastructure, not a verdict on the step
            raise ApplicationError(
                f"step {task.id}: the executor's model calls failed: {outcome.detail}",
                non_retryable=True,
            )
        attempts.requests += outcome.iterations
        attempts.spent = attempts.spent.plus(outcome.spent)
        return outcome

    async def _check(self, inp: TaskInput, outcome: AgentOutcome) -> Tried:
        """Audit what the executor left, then run the tests the task's own files map to."""
        task, start = inp.task, inp.workspace
        end = refactor_platform.workspace_after(outcome, start)
        done = bool(outcome.completed and (outcome.terminal_input or {}).get("done", True))
        named = workflow.patched(NAMED_FILES_CHANGED)
        facts: ChangeFacts = await self.kit.step(
            "audit",
            refactor_audit,
            ChangeInput(
                before=start,
                after=end,
                run_base=inp.run_base,
                own=task.all_files,
                deferred=inp.deferred_files,
                later=inp.later_owners,
                rule_ids=task.rule_ids,
                layers=inp.layers,
                must_change=task.files if named and done else [],
                unchanged=declared_unchanged(outcome.terminal_input) if named else {},
            ),
            timeout=LONG,
        )
        tried = Tried(outcome=outcome, end=end, done=done, facts=facts)
        # tests a later task owns are that task's to fix: an intermediate step may break them
        selection = [
            t
            for t in facts.mapped_tests
            if t not in inp.deferred_files and t not in inp.later_owners
        ]
        if facts.waits_for and workflow.patched(JUDGED_BY_WHAT_IT_OWNS):
            # its tree is consistent only once those steps land: the final run decides
            tried.expected = [f"{t} (after step {', '.join(facts.waits_for)})" for t in selection]
            selection = []
        if done and not facts.errors and selection and not inp.dry_run:
            tried.regressions, tried.tests_run = await refactor_platform.mapped_regressions(
                self.kit, inp, start, end, selection
            )
        return tried

    def _decide(self, inp: TaskInput, attempts: Attempts, tried: Tried) -> Decision:
        """The ladder's verdict on the attempt (accept, retry narrowed, skip, roll back),
        kept with the executor's record."""
        outcome, facts = tried.outcome, tried.facts
        report = AttemptReport(
            agent_completed=tried.done,
            agent_detail=outcome.detail
            or str((outcome.terminal_input or {}).get("summary", ""))[:300],
            changed_files=facts.changed_files,
            audit_errors=facts.errors,
            audit_files=facts.error_files,
            regressions=tried.regressions,
            tests_ran=tried.tests_run > 0,
            waits_for=facts.waits_for,
        )
        decision = decide(
            report,
            attempt=attempts.number,
            max_retries=inp.max_retries,
            critical=inp.task.critical,
            task_files=inp.task.all_files,
        )
        name = attempts.executor_name(inp.task.id)
        attempts.agents.append(AgentRecord.of(name, attempts.number, outcome, decision))
        return decision

    @staticmethod
    def _outcome(
        inp: TaskInput,
        context: RetrievedContext,
        attempts: Attempts,
        last: Tried,
        decision: Decision,
    ) -> TaskOutcome:
        """What the run gets back: the last attempt's edits only when they were accepted."""
        accepted = decision.action == Action.accept
        facts = last.facts
        return TaskOutcome(
            task_id=inp.task.id,
            action=decision.action,
            reason=decision.reason,
            workspace=last.end if accepted else inp.workspace,
            changed_files=facts.changed_files if accepted else [],
            attempts=attempts.number,
            audit=facts.errors + facts.warnings,
            regressions=last.regressions,
            tests_run=last.tests_run,
            requests=attempts.requests,
            spent=attempts.spent,
            agents=attempts.agents,
            bundle_key=context.bundle_key or None,
            waits_for=facts.waits_for if accepted else [],
            expected=last.expected if accepted else [],
        )

    async def _relay_outcome(self, agent: str) -> None:
        """Tell the run what a finished executor spent, as its reports did before they went
        quiet at the end."""
        final = self.kit.child_progress(agent)
        if self._run_id is None or final is None or not workflow.patched(OUTCOME_RELAYED):
            return
        await workflow.get_external_workflow_handle(self._run_id).signal(
            ChildReports.agent_progress, final
        )

    @workflow.signal
    async def agent_progress(self, progress: AgentProgress) -> None:  # type: ignore[override]
        """Mirror the executor's progress here and pass it up to the run."""
        self.kit.record_child_progress(progress)
        if self._run_id is not None:
            await workflow.get_external_workflow_handle(self._run_id).signal(
                ChildReports.agent_progress, progress
            )

    @workflow.signal
    async def raise_task_budget(self, change: BudgetRaise) -> None:
        """A raise the run received, for this task's executor (also one not started yet)."""
        if self.kit.budget.knows(change.phase) or reaches_later_agents():
            await self.kit.raise_budget(change)
