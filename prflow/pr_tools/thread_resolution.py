"""Answering and settling review threads: the GraphQL mutations, their answers, and which
threads are prflow's own.

REST can reply in a thread (``POST …/pulls/{n}/comments/{id}/replies``) but cannot resolve
one; ``resolveReviewThread`` / ``unresolveReviewThread`` are GraphQL only. A thread is
prflow's when its first comment was written by prflow's account (by a bot, when the token
cannot say who it is) and carries a finding's fingerprint: a person quoting a marker does
not make a thread prflow's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from prflow.pr_tools.review_threads import ReviewThread, login_key
from prflow.review.fingerprints import fingerprint_of_comment

_THREAD_FIELDS = "id isResolved isOutdated path line"

RESOLVE_THREAD_MUTATION = f"""
mutation PrflowResolveThread($threadId: ID!) {{
  resolveReviewThread(input: {{threadId: $threadId}}) {{ thread {{ {_THREAD_FIELDS} }} }}
}}
"""

UNRESOLVE_THREAD_MUTATION = f"""
mutation PrflowUnresolveThread($threadId: ID!) {{
  unresolveReviewThread(input: {{threadId: $threadId}}) {{ thread {{ {_THREAD_FIELDS} }} }}
}}
"""


class ThreadState(BaseModel):
    """A thread after a resolve or unresolve: GitHub's word on its state."""

    id: str
    path: str
    line: int | None = Field(description="Line in the current diff; None when outdated")
    is_resolved: bool
    is_outdated: bool


class PostedReply(BaseModel):
    """A reply in a review thread (a REST review comment)."""

    id: int
    url: str
    in_reply_to_id: int = Field(description="The thread's first comment")
    created: bool = Field(True, description="False when an earlier attempt had posted it")


def mutation_for(resolve: bool) -> tuple[str, str]:
    """The mutation text and the field its answer comes under."""
    if resolve:
        return RESOLVE_THREAD_MUTATION, "resolveReviewThread"
    return UNRESOLVE_THREAD_MUTATION, "unresolveReviewThread"


def parse_thread_state(data: Mapping[str, Any], field: str) -> ThreadState | None:
    """The thread a mutation answered with; None when GitHub answered no thread."""
    answer = (data.get("data") or {}).get(field) or {}
    node = answer.get("thread")
    if not node:
        return None
    return ThreadState(
        id=node["id"],
        path=node["path"],
        line=node.get("line"),
        is_resolved=node["isResolved"],
        is_outdated=node["isOutdated"],
    )


def graphql_error_type(data: Any) -> tuple[str, str] | None:
    """``(type, message)`` of the first GraphQL error in an answer (GitHub's ``type`` such as
    ``FORBIDDEN`` or ``NOT_FOUND``), or None."""
    errors = data.get("errors") if isinstance(data, Mapping) else None
    if not isinstance(errors, list) or not errors or not isinstance(errors[0], Mapping):
        return None
    return str(errors[0].get("type") or ""), str(errors[0].get("message") or "")


def written_by(author: str, author_type: str, own_login: str | None) -> bool:
    """Whether a GraphQL comment author is prflow's account. GraphQL names a bot without
    REST's ``[bot]``; with no known login (an App token), any bot counts."""
    if own_login is None:
        return author_type == "Bot"
    return login_key(author) == login_key(own_login)


def is_prflow_thread(thread: ReviewThread, own_login: str | None) -> bool:
    """Opened by prflow's account with a finding's fingerprint on its first comment."""
    if not thread.comments:
        return False
    opener = thread.comments[0]
    return written_by(opener.author, opener.author_type, own_login) and (
        fingerprint_of_comment(opener.body) is not None
    )


def outdated_prflow_threads(
    threads: Iterable[ReviewThread], own_login: str | None
) -> list[ReviewThread]:
    """prflow's unresolved threads whose cited lines a later push changed (GitHub marks them
    outdated): what ``--outdated`` resolves."""
    return [
        t for t in threads if t.is_outdated and not t.is_resolved and is_prflow_thread(t, own_login)
    ]


def reply_target(thread: ReviewThread) -> int | None:
    """The comment id a reply goes to: the thread's first comment (GitHub's replies endpoint
    takes a top-level comment)."""
    return thread.comments[0].id if thread.comments else None


class ThreadRow(BaseModel):
    """One review thread as ``prflow pr threads`` lists it."""

    id: str
    path: str
    line: int | None
    is_resolved: bool
    is_outdated: bool
    author: str
    prflow: bool = Field(description="Opened by prflow (a finding)")
    comment_id: int | None = Field(description="The first comment; replies go there")
    comments: int
    url: str


class ThreadList(BaseModel):
    pr: str
    login: str | None = Field(description="The token's login; None for an App installation")
    total: int
    threads: list[ThreadRow]


def thread_list(
    pr: str, threads: Iterable[ReviewThread], own_login: str | None, *, resolved: bool
) -> ThreadList:
    """Every thread (``resolved``) or the unresolved ones, with ids and state."""
    every = list(threads)
    rows = [
        ThreadRow(
            id=t.id,
            path=t.path,
            line=t.line,
            is_resolved=t.is_resolved,
            is_outdated=t.is_outdated,
            author=t.author,
            prflow=is_prflow_thread(t, own_login),
            comment_id=reply_target(t),
            comments=len(t.comments) + t.more_comments,
            url=t.url,
        )
        for t in every
        if resolved or not t.is_resolved
    ]
    return ThreadList(pr=pr, login=own_login, total=len(every), threads=rows)


class ResolveReport(BaseModel):
    pr: str
    action: str = Field(description="'resolve' or 'unresolve'")
    threads: list[ThreadState] = Field(description="The threads acted on, as GitHub left them")
    message: str
