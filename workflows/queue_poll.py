"""The ``queue_poll`` workflow: one poll of an organisation, started by a Temporal Schedule.

Each run starts where the previous successful run stopped (the Schedule hands
its result over as the last completion result); the first run looks back
``first_lookback_seconds``. A failed poll leaves that mark alone, so the next
run covers its window too.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.queue import poll_org
    from prflow.queue.kind import POLL_WORKFLOW
    from prflow.queue.poll import PollOutcome, PollQuery, PollRequest
    from workflows.run_kit import NETWORK_RETRY


@workflow.defn(name=POLL_WORKFLOW)
class PollWorkflow:
    @workflow.run
    async def run(self, request: PollRequest) -> PollOutcome:
        previous = (
            workflow.get_last_completion_result(PollOutcome)
            if workflow.has_last_completion_result()
            else None
        )
        query = PollQuery(**request.model_dump(), since=previous.polled_until if previous else None)
        outcome: PollOutcome = await workflow.execute_activity(
            poll_org,
            query,
            task_queue=request.queues.main,
            start_to_close_timeout=timedelta(minutes=15),
            heartbeat_timeout=timedelta(seconds=60),
            retry_policy=NETWORK_RETRY,
            summary=f"list {request.org}'s PRs updated since the last poll",
        )
        return outcome
