"""One agent as its own workflow: for agents that run long or in parallel.

The loop runs until its SDK suggests continue-as-new (or a turn count is
reached), then continues-as-new from its state, so a refactor agent can run
hundreds of turns for hours with a small history per run. It reports its
progress to the workflow that started it when it starts waiting for a budget
raise, and otherwise at most once per :data:`REPORT_EVERY_TURNS` turns and
:data:`REPORT_INTERVAL`; its outcome reaches the parent as its result, so the
parent's history grows by less than one event per child turn.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from prflow.agent.budget import BudgetRaise
    from prflow.agent.outcome import AgentOutcome
    from prflow.agent.state import AgentState
    from prflow.run_progress import AgentProgress
    from workflows.agent_loop import AGENT_WORKFLOW_TYPE, AgentLoop
    from workflows.child_reports import ChildReports
    from workflows.routing import child_memo

AGENT_WORKFLOW = AGENT_WORKFLOW_TYPE
REPORT_INTERVAL = timedelta(seconds=10)
THROTTLED_REPORTS = "agent-progress-throttled"
"""Patch: progress goes to the parent at most once per interval or on a state change
(earlier runs signalled after every turn)."""
QUIET_REPORTS = "agent-progress-quiet-v1"
"""Patch: no report after the first turn nor at the end (the parent has the outcome as the
child's result); between, at most one per :data:`REPORT_EVERY_TURNS` turns and interval,
so the parent's history grows by less than one event per child turn."""
REPORT_EVERY_TURNS = 8


@workflow.defn(name=AGENT_WORKFLOW)
class AgentWorkflow:
    def __init__(self) -> None:
        self._loop: AgentLoop | None = None
        self._reported_at: datetime | None = None
        self._reported_waiting: str | None = None
        self._turns_since_report = 0
        self._quiet = False

    @workflow.run
    async def run(self, state: AgentState) -> AgentOutcome:
        self._loop = AgentLoop(state, on_turn=self._turn, on_wait=self._report, may_pause=True)
        self._quiet = workflow.patched(QUIET_REPORTS)
        if self._quiet:
            self._reported_at = workflow.now()
        outcome = await self._loop.run()
        if outcome is None:
            await workflow.wait_condition(workflow.all_handlers_finished)
            workflow.continue_as_new(self._loop.next_run_state(), memo=child_memo())
        if not self._quiet:
            await self._report()
        return outcome

    @workflow.signal
    def raise_budget(self, change: BudgetRaise) -> None:
        if self._loop is not None:
            self._loop.raise_caps(change)

    @workflow.query
    def progress(self) -> AgentProgress | None:
        return self._loop.progress() if self._loop is not None else None

    async def _turn(self) -> None:
        """After a turn: report only if the last report is old or the state changed."""
        assert self._loop is not None
        if self._quiet:
            self._turns_since_report += 1
            changed = self._loop.waiting_reason != self._reported_waiting
            due = (
                self._turns_since_report >= REPORT_EVERY_TURNS
                and self._reported_at is not None
                and workflow.now() - self._reported_at >= REPORT_INTERVAL
            )
            if changed or due:
                await self._report()
            return
        if workflow.patched(THROTTLED_REPORTS):
            now = workflow.now()
            recent = self._reported_at is not None and now - self._reported_at < REPORT_INTERVAL
            if recent and self._loop.waiting_reason == self._reported_waiting:
                return
        await self._report()

    async def _report(self) -> None:
        assert self._loop is not None
        parent = self._loop.state.spec.parent_workflow_id
        if parent is None:
            return
        self._reported_at = workflow.now()
        self._reported_waiting = self._loop.waiting_reason
        self._turns_since_report = 0
        handle = workflow.get_external_workflow_handle(parent)
        await handle.signal(ChildReports.agent_progress, self._loop.progress())
