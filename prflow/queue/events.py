"""What the queue acts on: GitHub deliveries (and poll findings) as :class:`PrEvent`.

Only the fields the queue needs are read from a payload; everything else is
ignored, so GitHub adding fields never breaks the receiver. A delivery the
queue has no use for (a label change, a comment without a command, a draft)
maps to :class:`Ignored` with the reason, which the receiver reports back to
GitHub in its answer (visible under the webhook's recent deliveries).
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from prflow.pr_identifier import SHA_PATTERN, PullRequestRef

DELIVERY_ID_PATTERN = r"^[A-Za-z0-9._:-]{1,200}$"
"""A webhook's ``X-GitHub-Delivery``: GitHub sends GUIDs, nothing that could break a log line."""
EVENT_ID_PATTERN = r"^[^\x00-\x1f\x7f]{1,200}$"
"""Any event's id (the poller's read ``poll:acme/api#12@<sha>``): no control characters."""


class EventKind(StrEnum):
    head = "head"  # the PR has code to look at: opened, pushed to, reopened, ready, polled
    closed = "closed"  # closed or merged: the PR's workflow ends
    command = "command"  # someone asked for jobs in a comment (/prflow review)


class PrEvent(BaseModel):
    """One thing that happened to one pull request, keyed by its delivery id."""

    delivery_id: str = Field(pattern=EVENT_ID_PATTERN)
    kind: EventKind
    pr: PullRequestRef
    head_sha: str | None = Field(default=None, pattern=SHA_PATTERN)
    updated_at: datetime | None = Field(
        default=None, description="GitHub's updated_at of the PR: orders late deliveries"
    )
    jobs: list[str] = Field(default_factory=list, description="Jobs a command asked for")
    source: str = Field(default="", description="Where it came from, for the Web UI and logs")


class Ignored(BaseModel):
    """A delivery the queue does not act on, and why."""

    reason: str


PULL_REQUEST_ACTIONS = {"opened", "synchronize", "reopened", "ready_for_review"}
COMMAND_AUTHORS = {"OWNER", "MEMBER", "COLLABORATOR"}
"""Who may start paid jobs from a comment: not every passer-by on a public repository."""
COMMAND = re.compile(r"^/prflow\s+([a-z_]+)\s*$", re.MULTILINE)
CONVERSATION_COMMANDS = frozenset({"ask", "fix"})
"""Commands the PR's conversation runs (:mod:`prflow.conversation.commands`), never jobs."""


class _Owner(BaseModel):
    model_config = ConfigDict(extra="ignore")
    login: str


class _Repository(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str
    owner: _Owner


class _Commit(BaseModel):
    model_config = ConfigDict(extra="ignore")
    sha: str = Field(pattern=SHA_PATTERN)


class _Pull(BaseModel):
    model_config = ConfigDict(extra="ignore")
    number: int
    state: str
    draft: bool = False
    merged: bool | None = None
    updated_at: datetime | None = None
    head: _Commit


class _PullRequestPayload(BaseModel):
    model_config = ConfigDict(extra="ignore")
    action: str
    pull_request: _Pull
    repository: _Repository


class _Issue(BaseModel):
    model_config = ConfigDict(extra="ignore")
    number: int
    pull_request: dict[str, Any] | None = None


class _Comment(BaseModel):
    model_config = ConfigDict(extra="ignore")
    body: str | None = None
    author_association: str = "NONE"


class _IssueCommentPayload(BaseModel):
    model_config = ConfigDict(extra="ignore")
    action: str
    issue: _Issue
    comment: _Comment
    repository: _Repository


class PayloadError(ValueError):
    """A body that is not the event its header says; the message names the first bad field."""


def map_delivery(event: str, delivery_id: str, payload: Any) -> PrEvent | Ignored:
    """The queue's view of one GitHub delivery (``X-GitHub-Event``, ``X-GitHub-Delivery``)."""
    try:
        if event == "pull_request":
            return _pull_request(delivery_id, _PullRequestPayload.model_validate(payload))
        if event == "issue_comment":
            return _issue_comment(delivery_id, _IssueCommentPayload.model_validate(payload))
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        raise PayloadError(f"{event} payload: {where}: {first['msg'][:200]}") from None
    if event == "ping":
        return Ignored(reason="ping: the webhook is set up")
    return Ignored(reason=f"{event} events are not used by the queue")


def _ref(repository: _Repository, number: int) -> PullRequestRef:
    return PullRequestRef(owner=repository.owner.login, repo=repository.name, number=number)


def _pull_request(delivery_id: str, payload: _PullRequestPayload) -> PrEvent | Ignored:
    pull = payload.pull_request
    action = payload.action
    ref = _ref(payload.repository, pull.number)
    source = f"pull_request.{action}"
    if action == "closed":
        return PrEvent(
            delivery_id=delivery_id,
            kind=EventKind.closed,
            pr=ref,
            updated_at=pull.updated_at,
            source=source + (" (merged)" if pull.merged else ""),
        )
    if action not in PULL_REQUEST_ACTIONS:
        return Ignored(reason=f"pull_request.{action} does not change the code")
    if pull.draft:
        return Ignored(reason=f"{ref.slug} is a draft; it is queued when marked ready for review")
    return PrEvent(
        delivery_id=delivery_id,
        kind=EventKind.head,
        pr=ref,
        head_sha=pull.head.sha,
        updated_at=pull.updated_at,
        source=source,
    )


def command_jobs(body: str | None) -> list[str]:
    """Job names asked for by ``/prflow <job>`` lines, in order, each once (``/prflow ask``
    and ``/prflow fix`` are the conversation's, not jobs)."""
    jobs = dict.fromkeys(COMMAND.findall(body or ""))
    return [job for job in jobs if job not in CONVERSATION_COMMANDS]


def _issue_comment(delivery_id: str, payload: _IssueCommentPayload) -> PrEvent | Ignored:
    if payload.action != "created":
        return Ignored(reason=f"issue_comment.{payload.action}: only new comments carry commands")
    if payload.issue.pull_request is None:
        return Ignored(reason="a comment on an issue, not a pull request")
    jobs = command_jobs(payload.comment.body)
    if not jobs:
        return Ignored(reason="no /prflow command in the comment")
    if payload.comment.author_association not in COMMAND_AUTHORS:
        return Ignored(
            reason=f"/prflow commands are taken from owners, members and collaborators, "
            f"not {payload.comment.author_association}"
        )
    return PrEvent(
        delivery_id=delivery_id,
        kind=EventKind.command,
        pr=_ref(payload.repository, payload.issue.number),
        jobs=jobs,
        source="comment: " + " ".join(f"/prflow {job}" for job in jobs),
    )
