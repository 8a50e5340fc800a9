"""A pull request's events as the conversation receives them: one typed signal each.

Every event carries an ``event_id`` naming the thing that happened, not the
delivery that brought it: a comment is ``review_comment:<id>`` whether the
webhook or the poller saw it, a push is ``head:<sha>``. The workflow handles
each id once, so a redelivery, a poll overlapping a webhook or a signal sent
twice after a crash changes nothing.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from prflow.pr_identifier import SHA_PATTERN

MAX_BODY_CHARS = 8_000
"""A comment longer than this is cut: the agent reads the thread from GitHub anyway."""


class ReviewPosted(BaseModel):
    """prflow posted a review of the PR at ``head_sha``: the conversation starts (or goes on)."""

    kind: Literal["review_posted"] = "review_posted"
    event_id: str
    head_sha: str = Field(pattern=SHA_PATTERN)
    review_url: str | None = None


class ReviewCommentEvent(BaseModel):
    """``pull_request_review_comment.created``: a new inline comment or a reply in a thread."""

    kind: Literal["review_comment"] = "review_comment"
    event_id: str
    comment_id: int
    in_reply_to_id: int | None = None
    author: str
    author_type: str = "User"
    author_association: str = Field(
        default="NONE", description="GitHub's author_association: who may give /prflow commands"
    )
    body: str = Field(default="", max_length=MAX_BODY_CHARS)
    path: str = ""


class ThreadAction(StrEnum):
    resolved = "resolved"
    unresolved = "unresolved"


class ThreadEvent(BaseModel):
    """``pull_request_review_thread``: someone resolved or unresolved a thread."""

    kind: Literal["review_thread"] = "review_thread"
    event_id: str
    action: ThreadAction
    root_comment_id: int | None = None
    actor: str = ""
    actor_type: str = "User"


class IssueCommentEvent(BaseModel):
    """``issue_comment.created`` on the PR's conversation tab."""

    kind: Literal["issue_comment"] = "issue_comment"
    event_id: str
    comment_id: int
    author: str
    author_type: str = "User"
    author_association: str = "NONE"
    body: str = Field(default="", max_length=MAX_BODY_CHARS)


class PullAction(StrEnum):
    synchronize = "synchronize"
    closed = "closed"


class PullEvent(BaseModel):
    """``pull_request`` synchronize (a new head) or closed (merged or not)."""

    kind: Literal["pull_request"] = "pull_request"
    event_id: str
    action: PullAction
    head_sha: str | None = Field(default=None, pattern=SHA_PATTERN)
    merged: bool = False


def comment_event_id(comment_id: int) -> str:
    return f"review_comment:{comment_id}"


def issue_comment_event_id(comment_id: int) -> str:
    return f"issue_comment:{comment_id}"


def head_event_id(head_sha: str) -> str:
    return f"head:{head_sha}"


CLOSED_EVENT_ID = "closed"


def clipped(body: str | None) -> str:
    return (body or "")[:MAX_BODY_CHARS]
