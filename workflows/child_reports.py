"""The signals a child agent sends up to the workflow that started it.

Every kind's workflow receives them (through :class:`workflows.run_kit.KindWorkflow`),
and a child does not know which kind its parent is: so the handlers are declared here,
once, and children signal them by method reference (``ChildReports.agent_progress``),
never by a string that could drift from the handler's name.
"""

from __future__ import annotations

from typing import Protocol

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from prflow.agent.state import AgentRequest
    from prflow.run_progress import AgentProgress


class ReportSink(Protocol):
    """Where a workflow keeps what its children report (its :class:`workflows.run_kit.RunKit`)."""

    def record_child_progress(self, progress: AgentProgress) -> None: ...

    def agent_requested(self, request: AgentRequest) -> None: ...


class ChildReports:
    """Handlers for what child agents report: their progress, and a parent tool they asked for."""

    kit: ReportSink

    @workflow.signal
    def agent_progress(self, progress: AgentProgress) -> None:
        self.kit.record_child_progress(progress)

    @workflow.signal
    def agent_request(self, request: AgentRequest) -> None:
        self.kit.agent_requested(request)
