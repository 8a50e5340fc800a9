"""The ``queue`` workflow: one per pull request, alive from its first event to its close.

Every delivery for the PR arrives as an ``event`` signal (signal-with-start,
so the first one starts it). The loop: wait for work → take a slot of the
organisation's gate → plan (GitHub says the current head; ``.prflow.toml`` at
that head says which jobs) → run each job as a child workflow. A push that
arrives meanwhile cancels the running child and the loop plans again from the
last head whose jobs all finished. A close cancels and ends the workflow.
Idle between pushes, it continues-as-new when its history grows, carrying
its bounded state.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    ChildWorkflowError,
    WorkflowAlreadyStartedError,
)
from temporalio.workflow import ChildWorkflowCancellationType, ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.queue import join_run, plan_queue_run, request_slot
    from prflow.queue import rules
    from prflow.queue.events import PrEvent
    from prflow.queue.gate import SLOT_GRANTED, SlotAsk, gate_workflow_id
    from prflow.queue.jobs import JoinedRun, JoinRun, PlanInput, PlannedJob, QueuePlan
    from prflow.queue.kind import EVENT_SIGNAL, STATUS_QUERY, WORKFLOW_KIND
    from prflow.queue.state import (
        JobRun,
        QueueState,
        QueueStatus,
        QueueSummary,
        RunOutcome,
    )
    from prflow.run_progress import PhaseState
    from workflows.queue_gate import OrgGateWorkflow
    from workflows.routing import child_memo
    from workflows.run_kit import NETWORK_RETRY, KindWorkflow, RunKit

PHASES = ["wait", "slot", "plan", "jobs"]
JOB_TIMEOUT = timedelta(hours=6)
JOIN_RUNNING_JOB = "queue-join-running-job"
"""Patch: a job whose run another start path began first is joined, not failed."""


@workflow.defn(name=WORKFLOW_KIND)
class PrQueueWorkflow(KindWorkflow):
    @workflow.init
    def __init__(self, state: QueueState) -> None:
        self.kit = RunKit(WORKFLOW_KIND, PHASES)
        self.state = state
        self._slot = False
        self._waiting_for_slot = False
        self._running: JobRun | None = None

    # ------------------------------------------------------------------ handlers

    @workflow.signal(name=EVENT_SIGNAL)
    def event(self, event: PrEvent) -> None:
        outcome = rules.absorb(self.state, event)
        if outcome is not rules.Absorbed.duplicate:
            rules.note(self.state, f"{event.source or event.kind.value}: {outcome.value}")

    @workflow.signal(name=SLOT_GRANTED)
    def slot_granted(self) -> None:
        self._slot = True

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> QueueStatus:
        return QueueStatus(
            state=self.state, running=self._running, waiting_for_slot=self._waiting_for_slot
        )

    # ------------------------------------------------------------------ the loop

    @workflow.run
    async def run(self, state: QueueState) -> QueueSummary:
        state = self.state
        self.kit.tag(repo=state.repo, pr=state.pr.number)
        while True:
            self.kit.set("wait", PhaseState.running)
            await workflow.wait_condition(
                lambda: state.closed or rules.has_work(state) or self._history_is_long()
            )
            if state.closed:
                break
            if not rules.has_work(state):
                await self._continue_as_new()
            await self._run_once()
            if not rules.has_work(state):
                await self._release_slot()
        await self._release_slot()
        self.kit.set("wait", PhaseState.done, "pull request closed")
        return QueueSummary(pr=state.pr, last_reviewed_sha=state.last_reviewed_sha, runs=state.runs)

    async def _run_once(self) -> None:
        state = self.state
        if not await self._take_slot():
            return
        head_before = state.head_sha
        plan: QueuePlan = await self.kit.step(
            "plan",
            plan_queue_run,
            PlanInput(
                pr=state.pr,
                queues=state.queues,
                last_reviewed_sha=state.last_reviewed_sha,
                requested=state.requested,
            ),
            task_queue=state.queues.main,
            timeout=timedelta(minutes=10),
            retry=NETWORK_RETRY,
            summary=f"plan jobs for {state.pr.slug}",
        )
        if plan.closed:
            state.closed = True
            return
        if state.head_sha != head_before:
            return  # a push arrived while planning: plan again for it
        state.head_sha = plan.head_sha  # GitHub's word over a late or missing event
        self.kit.set("plan", PhaseState.done, f"{plan.head_sha[:12]}: {len(plan.jobs)} jobs")
        if plan.skipped is not None or not plan.jobs:
            reason = plan.skipped or "no job to run"
            rules.record(
                state,
                JobRun(kind="-", head_sha=plan.head_sha, outcome=RunOutcome.skipped, detail=reason),
            )
            rules.finish_head(state, plan.head_sha, list(state.requested))
            return
        for job in plan.jobs:
            if not await self._run_job(job, plan.head_sha):
                return  # superseded or closed: the loop decides what is next
        rules.finish_head(state, plan.head_sha, [job.kind for job in plan.jobs])
        self.kit.set("jobs", PhaseState.done, f"{plan.head_sha[:12]} done")

    async def _run_job(self, job: PlannedJob, head_sha: str) -> bool:
        """Run one job child to its end; False when a push or a close cut it short."""
        state = self.state
        child_id = rules.child_workflow_id(job.kind, state, head_sha)
        run = JobRun(
            kind=job.kind, head_sha=head_sha, workflow_id=child_id, outcome=RunOutcome.completed
        )
        self._running = run
        self.kit.set("jobs", PhaseState.running, f"{job.kind} on {head_sha[:12]}")
        try:
            child = await workflow.start_child_workflow(
                job.kind,
                job.request,
                id=child_id,
                task_queue=state.queues.main,
                memo=child_memo(state.queues),
                parent_close_policy=ParentClosePolicy.REQUEST_CANCEL,
                cancellation_type=ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
                execution_timeout=JOB_TIMEOUT,
                static_summary=f"{job.kind} for {state.pr.slug} at {head_sha[:12]}",
            )
        except WorkflowAlreadyStartedError:
            if not workflow.patched(JOIN_RUNNING_JOB):
                raise
            return await self._join(run, child_id, head_sha)
        await workflow.wait_condition(lambda: child.done() or rules.superseded(state, head_sha))
        cut_short = not child.done()
        if cut_short:
            child.cancel()
        run.outcome, run.detail = await self._ending_of(child, cut_short)
        self._running = None
        rules.record(state, run)
        return not cut_short

    async def _join(self, run: JobRun, workflow_id: str, head_sha: str) -> bool:
        """Follow the run of this head that the CLI (or a rerun) started under the same id."""
        state = self.state
        waiting = workflow.start_activity(
            join_run,
            JoinRun(workflow_id=workflow_id),
            task_queue=state.queues.main,
            start_to_close_timeout=JOB_TIMEOUT,
            heartbeat_timeout=timedelta(minutes=1),
            retry_policy=NETWORK_RETRY,
            cancellation_type=workflow.ActivityCancellationType.TRY_CANCEL,
            summary=f"join {workflow_id}, started elsewhere",
        )
        await workflow.wait_condition(lambda: waiting.done() or rules.superseded(state, head_sha))
        cut_short = not waiting.done()
        if cut_short:
            waiting.cancel()
            run.outcome = RunOutcome.cancelled if state.closed else RunOutcome.superseded
            run.detail = "joined run left running"
        else:
            try:
                joined: JoinedRun = await waiting
                run.outcome, run.detail = RunOutcome.completed, _result_detail(joined.result)
            except ActivityError as err:
                cause = err.cause or err
                run.outcome = RunOutcome.failed
                run.detail = str(getattr(cause, "message", cause))[:300]
        run.detail = ("joined: " + run.detail).strip().removesuffix(":")
        self._running = None
        rules.record(state, run)
        return not cut_short

    async def _ending_of(
        self, child: workflow.ChildWorkflowHandle[Any, Any], cut_short: bool
    ) -> tuple[RunOutcome, str]:
        try:
            result = await child
        except (ChildWorkflowError, asyncio.CancelledError) as err:
            if cut_short:
                return (RunOutcome.cancelled if self.state.closed else RunOutcome.superseded), ""
            cause = getattr(err, "cause", None) or err
            return RunOutcome.failed, str(getattr(cause, "message", cause))[:300]
        if cut_short:  # it finished before the cancellation reached it
            return RunOutcome.superseded, "finished before the cancel arrived"
        return RunOutcome.completed, _result_detail(result)

    # ------------------------------------------------------------------ the org gate

    async def _take_slot(self) -> bool:
        """Hold a slot of the organisation's gate; False if the PR closed while waiting."""
        if self._slot:
            return True
        state = self.state
        self._waiting_for_slot = True
        self.kit.set("slot", PhaseState.running, f"waiting for a slot of {state.org}")
        gate_id: str = await self.kit.step(
            "slot",
            request_slot,
            SlotAsk(org=state.org, repo=state.repo, holder=workflow.info().workflow_id),
            task_queue=state.queues.main,
            timeout=timedelta(seconds=30),
            retry=NETWORK_RETRY,
            heartbeat=None,
            summary=f"ask {gate_workflow_id(state.org, state.queues.main)} for a slot",
        )
        await workflow.wait_condition(lambda: self._slot or state.closed)
        self._waiting_for_slot = False
        self.kit.set("slot", PhaseState.done, f"held at {gate_id}" if self._slot else "closed")
        return self._slot

    async def _release_slot(self) -> None:
        if not self._slot and not self._waiting_for_slot:
            return
        self._slot = False
        gate_id = gate_workflow_id(self.state.org, self.state.queues.main)
        gate = workflow.get_external_workflow_handle(gate_id)
        # The gate may have ended (idle) meanwhile: then nothing is held there.
        with contextlib.suppress(ApplicationError):
            await gate.signal(OrgGateWorkflow.release, workflow.info().workflow_id)

    # ------------------------------------------------------------------ long life

    def _history_is_long(self) -> bool:
        info = workflow.info()
        limit = self.state.history_limit
        return info.is_continue_as_new_suggested() or info.get_current_history_length() > limit

    async def _continue_as_new(self) -> None:
        await self._release_slot()
        await workflow.wait_condition(workflow.all_handlers_finished)
        self.state.continued += 1
        workflow.continue_as_new(self.state)


def _result_detail(result: Any) -> str:
    """A short line from a job's result (impact: its score), whatever the kind."""
    if isinstance(result, dict):
        parts = [f"{key} {result[key]}" for key in ("score", "level", "cost_usd") if key in result]
        return ", ".join(parts)
    return ""
