"""The ``queue`` kind: one long-lived workflow per pull request of an organisation."""

from __future__ import annotations

from prflow.kinds import KindDeclaration, QueueRole
from prflow.pr_identifier import PullRequestRef
from prflow.queue.state import QueueState, QueueSummary

WORKFLOW_KIND = "queue"
GATE_WORKFLOW = "queue_gate"
POLL_WORKFLOW = "queue_poll"
EVENT_SIGNAL = "event"
STATUS_QUERY = "status"
"""Query of a PR's queue workflow: its :class:`prflow.queue.state.QueueStatus`."""


def pr_queue_id(pr: PullRequestRef) -> str:
    """``queue:acme/api#12``: the same id whoever delivers, so deliveries meet one workflow."""
    return f"{WORKFLOW_KIND}:{pr.slug}"


def queue_workflow_id(state: QueueState) -> str:
    return pr_queue_id(state.pr)


QUEUE = KindDeclaration(
    name=WORKFLOW_KIND,
    summary="Org-wide PR queue: runs the configured jobs on each new head of a pull request",
    workflow="workflows.queue:PrQueueWorkflow",
    input_type=QueueState,
    result_type=QueueSummary,
    workflow_id=queue_workflow_id,
    activities={QueueRole.MAIN: ["activities.queue:QUEUE_ACTIVITIES"]},
    extra_workflows=("workflows.queue_gate:OrgGateWorkflow", "workflows.queue_poll:PollWorkflow"),
)
