"""A probe kind that drives the platform's agent machinery directly (not through impact).

Kept apart from the test modules so the workflow sandbox imports only this file.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from prflow.agent.outcome import AgentOutcome
    from prflow.agent.state import AgentSpec
    from workflows.run_kit import KindWorkflow, RunKit

PROBE_KIND = "probe"


class ProbeRequest(BaseModel):
    specs: list[AgentSpec]
    mode: Literal["inline", "children"] = "children"
    max_concurrency: int = 2


class ProbeResult(BaseModel):
    outcomes: list[AgentOutcome]
    arrival_order: list[str] = Field(default_factory=list)


@workflow.defn(name=PROBE_KIND)
class ProbeWorkflow(KindWorkflow):
    """Runs the requested agents inline or as bounded children; reports arrival order."""

    def __init__(self) -> None:
        self.kit = RunKit(PROBE_KIND, ["agents"])
        self._arrivals: list[str] = []

    @workflow.run
    async def run(self, request: ProbeRequest) -> ProbeResult:
        self.kit.tag(repo="probe/agents", pr=None)
        if request.mode == "inline":
            outcomes = [await self.kit.run_inline_agent(spec) for spec in request.specs]
        else:
            outcomes = await self.kit.run_child_agents(
                request.specs, max_concurrency=request.max_concurrency, on_done=self._arrived
            )
        return ProbeResult(outcomes=outcomes, arrival_order=self._arrivals)

    async def _arrived(self, outcome: AgentOutcome) -> None:
        self._arrivals.append(outcome.name)
