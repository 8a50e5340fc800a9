"""Reaching a PR's conversation from outside it: the review's start, the webhook, the poller.

The review (through an activity) signals-with-start, so the first posted review
starts the conversation and later ones join it. Deliveries only signal: a PR that
prflow never reviewed has no conversation, and an event for it is dropped.
Signals go by method reference, so a renamed handler breaks here at import, not
silently on the wire.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode
from temporalio.workflow import _SignalDefinition

from prflow.conversation.deliveries import ConversationEvent
from prflow.conversation.events import (
    IssueCommentEvent,
    PullEvent,
    ReviewCommentEvent,
    ReviewPosted,
    ThreadEvent,
)
from prflow.conversation.kind import WORKFLOW_KIND, conversation_id
from prflow.conversation.state import ConversationState
from prflow.pr_identifier import PullRequestRef
from workflows.conversation import ConversationWorkflow


def _signal_name(method: Callable[..., Any]) -> str:
    """The wire name of a signal handler (the SDK's start_signal takes only a name)."""
    return _SignalDefinition.must_name_from_fn_or_str(method)


async def signal_with_start(client: Client, state: ConversationState, posted: ReviewPosted) -> str:
    """Start the conversation of ``state.pr`` with ``posted``, or signal the running one."""
    handle = await client.start_workflow(
        ConversationWorkflow.run,
        state,
        id=conversation_id(state.pr),
        task_queue=state.queues.main,
        start_signal=_signal_name(ConversationWorkflow.review_posted),
        start_signal_args=[posted],
        static_summary=f"conversation on {state.pr.slug}",
    )
    return handle.id


async def signal_conversation(client: Client, pr: PullRequestRef, event: ConversationEvent) -> bool:
    """Hand ``event`` to the PR's conversation; False when none runs (never reviewed, ended)."""
    handle = client.get_workflow_handle(conversation_id(pr))
    try:
        if isinstance(event, ReviewCommentEvent):
            await handle.signal(ConversationWorkflow.review_comment, event)
        elif isinstance(event, ThreadEvent):
            await handle.signal(ConversationWorkflow.review_thread, event)
        elif isinstance(event, IssueCommentEvent):
            await handle.signal(ConversationWorkflow.issue_comment, event)
        else:
            assert isinstance(event, PullEvent)
            await handle.signal(ConversationWorkflow.pull_request, event)
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            return False
        raise
    return True


__all__ = ["WORKFLOW_KIND", "signal_conversation", "signal_with_start"]
