"""The ``conversation`` kind: one long-lived workflow per open PR that prflow reviewed."""

from __future__ import annotations

from prflow.conversation.state import ConversationState, ConversationSummary
from prflow.kinds import KindDeclaration, ModelTier, PhaseDefaults, QueueRole
from prflow.pr_identifier import PullRequestRef

WORKFLOW_KIND = "conversation"
PHASE = "conversation"


class Signal:
    """Wire names of the conversation's signals, shared by the workflow's handlers and the
    senders (activities and the webhook may not import workflow code; a test holds each name
    to a handler of the workflow)."""

    REVIEW_POSTED = "review_posted"
    REVIEW_COMMENT = "review_comment"
    REVIEW_THREAD = "review_thread"
    ISSUE_COMMENT = "issue_comment"
    PULL_REQUEST = "pull_request"


def conversation_id(pr: PullRequestRef) -> str:
    """``conversation:acme/api#12``: every review run and every delivery meet this one run."""
    return f"{WORKFLOW_KIND}:{pr.slug}"


def conversation_workflow_id(state: ConversationState) -> str:
    return conversation_id(state.pr)


CONVERSATION = KindDeclaration(
    name=WORKFLOW_KIND,
    summary="The conversation after a review: answers replies and /prflow ask, runs /prflow "
    "fix, resolves what a push fixed",
    workflow="workflows.conversation:ConversationWorkflow",
    input_type=ConversationState,
    result_type=ConversationSummary,
    workflow_id=conversation_workflow_id,
    activities={
        QueueRole.MAIN: [
            "activities.conversation:CONVERSATION_ACTIVITIES",
            "activities.conversation_fix:FIX_ACTIVITIES",
        ],
        QueueRole.GITHUB: [
            "activities.conversation:CONVERSATION_GITHUB_ACTIVITIES",
            "activities.conversation_fix:FIX_GITHUB_ACTIVITIES",
        ],
    },
    phases={
        PHASE: PhaseDefaults(
            tier=ModelTier.mid, usd=0.10, iterations=6, wall_clock_seconds=120, max_tokens=2048
        )
    },
)
"""Each reply's agent gets the phase's caps: a per-reply budget."""
