"""A workflow that runs one trivial activity N times in a row (for the overhead bench)."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from worker.registry import WorkerInfo


@workflow.defn(name="bench_activity_overhead")
class ActivityOverheadWorkflow:
    @workflow.run
    async def run(self, calls: int) -> int:
        for _ in range(calls):
            await workflow.execute_activity(
                "prflow.describe_worker",
                start_to_close_timeout=timedelta(seconds=30),
                result_type=WorkerInfo,
            )
        return calls
