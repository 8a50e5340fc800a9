"""Inputs and results of the conversation's activities (small: blobs go by key)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from prflow.agent.messages import PreparedPrompt
from prflow.conversation.events import IssueCommentEvent, ReviewCommentEvent, ReviewPosted
from prflow.conversation.prompt import Verdict
from prflow.pr_identifier import PullRequestRef
from prflow.queue.state import QueueNames
from prflow.repo_models import ResolvedRange


class OpenConversation(BaseModel):
    """Start (or signal) the PR's conversation once its review is posted."""

    pr: PullRequestRef
    queues: QueueNames
    posted: ReviewPosted


class ReadReply(BaseModel):
    """Read what is needed to answer one comment."""

    pr: PullRequestRef
    comment: ReviewCommentEvent | IssueCommentEvent


class ReplyPlan(BaseModel):
    """Whether to answer a comment and, if so, the agent's prompt and tools."""

    skip: str | None = Field(default=None, description="Why it gets no answer; None: answer it")
    prompt: PreparedPrompt | None = None
    range: ResolvedRange | None = None
    fingerprint: str | None = None
    dimension: str = ""
    head_sha: str | None = None


class PostReply(BaseModel):
    pr: PullRequestRef
    comment: ReviewCommentEvent | IssueCommentEvent
    verdict: Verdict
    answer: str


class PostedReply(BaseModel):
    url: str
    already: bool = Field(default=False, description="Found posted by an earlier attempt")


class RecordVerdict(BaseModel):
    repo: str
    pr_number: int
    fingerprint: str
    dimension: str = ""
    verdict: str
    head_sha: str | None = None


class Sweep(BaseModel):
    """Check prflow's open threads against a new head."""

    pr: PullRequestRef
    head_sha: str
    left_alone: list[int] = Field(default_factory=list)


class SweepResult(BaseModel):
    resolved: list[str] = Field(default_factory=list, description="Fingerprints resolved")
    still_open: int = 0
    left_alone: int = 0
