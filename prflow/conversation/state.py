"""The conversation workflow's whole state: what it carries across continue-as-new.

Everything is bounded: the ids of handled events (the dedupe set), the
reply times of the rate limit, the threads people took over, the notes. A
conversation that runs for months keeps the same size.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field

from prflow.agent.plan import PhasePlan
from prflow.conversation.events import (
    IssueCommentEvent,
    PullEvent,
    ReviewCommentEvent,
    ReviewPosted,
    ThreadEvent,
)
from prflow.pr_identifier import PullRequestRef
from prflow.queue.state import QueueNames

SEEN_LIMIT = 2_000
"""Event ids remembered: far more than a PR sees between two redeliveries of one event."""
LEFT_ALONE_LIMIT = 500
NOTES_LIMIT = 20

AnyEvent = Annotated[
    ReviewPosted | ReviewCommentEvent | ThreadEvent | IssueCommentEvent | PullEvent,
    Field(discriminator="kind"),
]


class Tally(BaseModel):
    """What the conversation did so far (shown by the ``status`` query and the result)."""

    events: int = 0
    replies: int = 0
    accepted: int = 0
    rebutted: int = 0
    questions: int = 0
    resolved: int = 0
    not_answered: int = 0
    fixes: int = Field(default=0, description="/prflow fix runs that pushed or opened a PR")
    fixes_failed: int = Field(default=0, description="/prflow fix runs that did not validate")
    fixes_refused: int = Field(default=0, description="/prflow fix refused (a fork, no model)")


class ConversationState(BaseModel):
    """Input of every run of the ``conversation`` workflow (the first and each continuation)."""

    pr: PullRequestRef
    queues: QueueNames
    plan: PhasePlan | None = Field(
        default=None, description="The conversation phase's model and caps; None: static mode"
    )
    head_sha: str | None = None
    seen: list[str] = Field(default_factory=list, description="Handled event ids, oldest first")
    pending: list[AnyEvent] = Field(default_factory=list)
    reply_times: list[datetime] = Field(default_factory=list)
    left_alone: list[int] = Field(
        default_factory=list,
        description="Root comment ids of prflow threads a person resolved or unresolved",
    )
    tally: Tally = Field(default_factory=Tally)
    notes: list[str] = Field(default_factory=list)
    closed: bool = False
    merged: bool = False
    continued: int = 0
    history_limit: int = Field(default=2_000, ge=50)
    replies_per_hour: int = Field(default=10, ge=0, description="Per-PR rate limit of answers")


class ConversationSummary(BaseModel):
    """Result of the conversation: how the PR's conversation ended."""

    pr: PullRequestRef
    merged: bool
    head_sha: str | None
    tally: Tally
