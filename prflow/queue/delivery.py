"""Handing an event to its PR's workflow: signal-with-start, the only call a receiver makes.

The webhook receiver and the poller both call :func:`deliver`. It returns as
soon as Temporal has recorded the signal (a few milliseconds), however many
jobs are queued behind it, which is what lets the receiver answer GitHub
within its 10-second limit.
"""

from __future__ import annotations

from temporalio.client import Client

from prflow.queue.events import PrEvent
from prflow.queue.fairness import repo_priority
from prflow.queue.kind import EVENT_SIGNAL, WORKFLOW_KIND, pr_queue_id
from prflow.queue.state import QueueNames, QueueState
from prflow.task_queues import queue_names

__all__ = ["deliver", "queue_names"]


async def deliver(client: Client, event: PrEvent, queues: QueueNames) -> str:
    """Signal ``event`` to its PR's workflow, starting it if none runs; returns the run id."""
    repo = f"{event.pr.owner}/{event.pr.repo}"
    handle = await client.start_workflow(
        WORKFLOW_KIND,
        QueueState(pr=event.pr, queues=queues),
        id=pr_queue_id(event.pr),
        task_queue=queues.main,
        start_signal=EVENT_SIGNAL,
        start_signal_args=[event],
        priority=repo_priority(repo),
        static_summary=f"PR queue for {event.pr.slug}",
    )
    return handle.result_run_id or ""
