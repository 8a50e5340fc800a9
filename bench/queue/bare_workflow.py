"""The anchor: a trivial workflow, started with the plain temporalio client."""

from __future__ import annotations

from temporalio import workflow


@workflow.defn(name="bench_bare")
class BareWorkflow:
    @workflow.run
    async def run(self, number: int) -> int:
        return number
