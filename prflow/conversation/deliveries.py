"""GitHub webhook deliveries as conversation events (the fields the conversation reads).

The queue maps the same deliveries for its own use (:mod:`prflow.queue.events`);
this module reads what the conversation needs besides: review comments,
review threads and every new PR comment (the queue keeps only commands).
Anything else maps to None: the conversation has no use for it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from prflow.conversation.events import (
    CLOSED_EVENT_ID,
    IssueCommentEvent,
    PullAction,
    PullEvent,
    ReviewCommentEvent,
    ThreadAction,
    ThreadEvent,
    clipped,
    comment_event_id,
    head_event_id,
    issue_comment_event_id,
)
from prflow.pr_identifier import SHA_PATTERN, PullRequestRef

ConversationEvent = ReviewCommentEvent | ThreadEvent | IssueCommentEvent | PullEvent


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _User(_Loose):
    login: str
    type: str = "User"


class _Owner(_Loose):
    login: str


class _Repository(_Loose):
    name: str
    owner: _Owner


class _Head(_Loose):
    sha: str = Field(pattern=SHA_PATTERN)


class _Pull(_Loose):
    number: int
    merged: bool | None = None
    head: _Head


class _ReviewComment(_Loose):
    id: int
    in_reply_to_id: int | None = None
    body: str | None = None
    path: str = ""
    user: _User
    author_association: str = "NONE"


class _ReviewCommentPayload(_Loose):
    action: str
    comment: _ReviewComment
    pull_request: _Pull
    repository: _Repository


class _ThreadComment(_Loose):
    id: int


class _Thread(_Loose):
    comments: list[_ThreadComment] = Field(default_factory=list)


class _ThreadPayload(_Loose):
    action: str
    thread: _Thread
    pull_request: _Pull
    repository: _Repository
    sender: _User | None = None


class _Issue(_Loose):
    number: int
    pull_request: dict[str, Any] | None = None


class _IssueComment(_Loose):
    id: int
    body: str | None = None
    user: _User
    author_association: str = "NONE"


class _IssueCommentPayload(_Loose):
    action: str
    issue: _Issue
    comment: _IssueComment
    repository: _Repository


class _PullPayload(_Loose):
    action: str
    pull_request: _Pull
    repository: _Repository


def _ref(repository: _Repository, number: int) -> PullRequestRef:
    return PullRequestRef(owner=repository.owner.login, repo=repository.name, number=number)


def conversation_event(
    event: str, delivery_id: str, payload: Any
) -> tuple[PullRequestRef, ConversationEvent] | None:
    """The PR and the conversation's event for one delivery, or None when it has no use for it.

    A payload that is not the event its header says yields None too: the queue's own
    mapping reports that to GitHub.
    """
    try:
        return _mapped(event, delivery_id, payload)
    except ValidationError:
        return None


def _mapped(
    event: str, delivery_id: str, payload: Any
) -> tuple[PullRequestRef, ConversationEvent] | None:
    if event == "pull_request_review_comment":
        rc = _ReviewCommentPayload.model_validate(payload)
        if rc.action != "created":
            return None
        c = rc.comment
        return _ref(rc.repository, rc.pull_request.number), ReviewCommentEvent(
            event_id=comment_event_id(c.id),
            comment_id=c.id,
            in_reply_to_id=c.in_reply_to_id,
            author=c.user.login,
            author_type=c.user.type,
            author_association=c.author_association,
            body=clipped(c.body),
            path=c.path,
        )
    if event == "pull_request_review_thread":
        th = _ThreadPayload.model_validate(payload)
        if th.action not in {a.value for a in ThreadAction}:
            return None
        sender = th.sender
        root = th.thread.comments[0].id if th.thread.comments else None
        return _ref(th.repository, th.pull_request.number), ThreadEvent(
            event_id=f"review_thread:{delivery_id}",
            action=ThreadAction(th.action),
            root_comment_id=root,
            actor=sender.login if sender else "",
            actor_type=sender.type if sender else "User",
        )
    if event == "issue_comment":
        ic = _IssueCommentPayload.model_validate(payload)
        if ic.action != "created" or ic.issue.pull_request is None:
            return None
        comment = ic.comment
        return _ref(ic.repository, ic.issue.number), IssueCommentEvent(
            event_id=issue_comment_event_id(comment.id),
            comment_id=comment.id,
            author=comment.user.login,
            author_type=comment.user.type,
            author_association=comment.author_association,
            body=clipped(comment.body),
        )
    if event == "pull_request":
        pr = _PullPayload.model_validate(payload)
        ref = _ref(pr.repository, pr.pull_request.number)
        if pr.action == "synchronize":
            sha = pr.pull_request.head.sha
            return ref, PullEvent(
                event_id=head_event_id(sha), action=PullAction.synchronize, head_sha=sha
            )
        if pr.action == "closed":
            return ref, PullEvent(
                event_id=CLOSED_EVENT_ID,
                action=PullAction.closed,
                merged=bool(pr.pull_request.merged),
            )
    return None
