"""Reaching a PR's conversation from outside it: the review's start, the webhook, the poller.

The review (through an activity) signals-with-start, so the first posted review
starts the conversation and later ones join it. Deliveries only signal: a PR that
prflow never reviewed has no conversation, and an event for it is dropped.
Signals go by the names in :class:`~prflow.conversation.kind.Signal`, which the
workflow's handlers declare too (a test holds the two together); this module sits
on the domain side, like the queue's delivery, so activities and the webhook may use it.
"""

from __future__ import annotations

from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from prflow.conversation.deliveries import ConversationEvent
from prflow.conversation.events import (
    IssueCommentEvent,
    PullEvent,
    ReviewCommentEvent,
    ReviewPosted,
    ThreadEvent,
)
from prflow.conversation.kind import WORKFLOW_KIND, Signal, conversation_id
from prflow.conversation.state import ConversationState
from prflow.pr_identifier import PullRequestRef

_SIGNAL_OF = {
    ReviewCommentEvent: Signal.REVIEW_COMMENT,
    ThreadEvent: Signal.REVIEW_THREAD,
    IssueCommentEvent: Signal.ISSUE_COMMENT,
    PullEvent: Signal.PULL_REQUEST,
}


async def signal_with_start(client: Client, state: ConversationState, posted: ReviewPosted) -> str:
    """Start the conversation of ``state.pr`` with ``posted``, or signal the running one."""
    handle = await client.start_workflow(
        WORKFLOW_KIND,
        state,
        id=conversation_id(state.pr),
        task_queue=state.queues.main,
        start_signal=Signal.REVIEW_POSTED,
        start_signal_args=[posted],
        static_summary=f"conversation on {state.pr.slug}",
    )
    return handle.id


async def signal_conversation(client: Client, pr: PullRequestRef, event: ConversationEvent) -> bool:
    """Hand ``event`` to the PR's conversation; False when none runs (never reviewed, ended)."""
    handle = client.get_workflow_handle(conversation_id(pr))
    try:
        await handle.signal(_SIGNAL_OF[type(event)], event)
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            return False
        raise
    return True


__all__ = ["WORKFLOW_KIND", "signal_conversation", "signal_with_start"]
