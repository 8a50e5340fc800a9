"""Small workflows that make the runtime observable from tests.

Kept apart from the test modules so the workflow sandbox imports only this file.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from prflow.search_attributes import (
        COST_USD,
        KIND,
        PHASE,
        PR,
        REPO,
        RISK_LEVEL,
        RISK_SCORE,
    )
    from worker.registry import WorkerInfo

ACTIVITY_TIMEOUT = timedelta(seconds=60)


@workflow.defn
class DescribeQueuesWorkflow:
    """Ask whichever worker serves each queue who it is."""

    @workflow.run
    async def run(self, queues: list[str]) -> list[WorkerInfo]:
        answers: list[WorkerInfo] = []
        for queue in queues:
            info = await workflow.execute_activity(
                "prflow.describe_worker",
                task_queue=queue,
                start_to_close_timeout=ACTIVITY_TIMEOUT,
                result_type=WorkerInfo,
            )
            answers.append(info)
        return answers


@workflow.defn
class TagRunWorkflow:
    """Upsert every prflow search attribute, the way real workflows report progress."""

    @workflow.run
    async def run(self) -> None:
        workflow.upsert_search_attributes(
            [
                REPO.value_set("acme/api"),
                PR.value_set(42),
                KIND.value_set("impact"),
                PHASE.value_set("static"),
            ]
        )
        workflow.upsert_search_attributes(
            [
                PHASE.value_set("done"),
                RISK_SCORE.value_set(81),
                RISK_LEVEL.value_set("critical"),
                COST_USD.value_set(0.37),
            ]
        )


@workflow.defn
class HoldWorkflow:
    """Run one activity named ``test.hold`` on the main queue and return its result."""

    @workflow.run
    async def run(self) -> str:
        result: str = await workflow.execute_activity(
            "test.hold", start_to_close_timeout=ACTIVITY_TIMEOUT, result_type=str
        )
        return result


@workflow.defn
class WaitForSignalWorkflow:
    """Stays open until signalled, so history can be inspected across server restarts."""

    def __init__(self) -> None:
        self._done = False

    @workflow.run
    async def run(self) -> str:
        await workflow.wait_condition(lambda: self._done)
        return "done"

    @workflow.signal
    def finish(self) -> None:
        self._done = True


@workflow.defn
class SleepDayWorkflow:
    """A one-day timer: instant on the time-skipping server."""

    @workflow.run
    async def run(self) -> str:
        await workflow.sleep(timedelta(days=1))
        return "woke"
