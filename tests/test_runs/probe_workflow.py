"""A probe workflow that runs the tests of a workspace on a chosen task queue.

Kept apart from the test modules so the workflow sandbox imports only this file.
"""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel
from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.test_runs import run_tests
    from prflow.test_runs.models import TestRunInput, TestRunResult


class TestRunProbeInput(BaseModel):
    __test__ = False

    run: TestRunInput
    task_queue: str


@workflow.defn(name="test-run-probe")
class TestRunProbe:
    __test__ = False

    @workflow.run
    async def run(self, inp: TestRunProbeInput) -> TestRunResult:
        cap = inp.run.timeout_seconds + inp.run.install_timeout_seconds + 60
        return await workflow.execute_activity(
            run_tests,
            inp.run,
            task_queue=inp.task_queue,
            start_to_close_timeout=timedelta(seconds=cap),
            heartbeat_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(maximum_attempts=2, non_retryable_error_types=["UserError"]),
        )
