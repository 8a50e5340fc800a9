"""Inputs and results of the conversation's activities (small: blobs go by key)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from prflow.agent.messages import PreparedPrompt
from prflow.agent.plan import PhasePlan
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
    question: str | None = Field(
        default=None, description="Set for a '/prflow ask': the question, answered wherever asked"
    )


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


# ---------------------------------------------------------------- /prflow fix


class ReadFix(BaseModel):
    """Read what a ``/prflow fix`` needs: its thread, the PR's head, who may push where."""

    pr: PullRequestRef
    comment: ReviewCommentEvent | IssueCommentEvent
    note: str = ""
    llm_queue: str = Field(description="Task queue of the refactor's model calls")
    with_model: bool = True


class FixPlan(BaseModel):
    """Whether to run the fix and, if so, the refactor's inputs and where its commit goes."""

    skip: str | None = Field(default=None, description="Silently not run (answered already)")
    refuse: str | None = Field(default=None, description="Not run; the thread is told why")
    directive: str = ""
    clone_url: str = ""
    head_sha: str = ""
    head_branch: str = ""
    head_repo: str = Field(default="", description="owner/name holding the head branch")
    push: bool = Field(default=False, description="Push to the head branch; else a draft PR")
    why_draft: str = ""
    test_command: str | None = None
    plans: dict[str, PhasePlan] = Field(default_factory=dict)
    root_comment_id: int | None = Field(default=None, description="The thread to answer in")


class DeliverFix(BaseModel):
    """Push the validated change as one commit, or open it as a stacked draft PR."""

    pr: PullRequestRef
    comment_id: int
    plan: FixPlan
    patch_key: str = Field(description="Blob of the refactor's combined patch")
    body_key: str = Field(description="Blob of its pr-summary.md")
    title: str


class FixDelivered(BaseModel):
    url: str
    sha: str = ""
    pushed: bool = False
    refused: str | None = Field(default=None, description="GitHub refused the write: why")


class PostNote(BaseModel):
    """One reply of prflow's about a command, posted once (found by ``marker`` on a retry)."""

    pr: PullRequestRef
    comment: ReviewCommentEvent | IssueCommentEvent
    root_comment_id: int | None = None
    text: str
    marker: str
