"""Writes to a PR's review threads: reply in one (REST), resolve or unresolve one (GraphQL).

Plain functions that raise classified ``ApplicationError`` s (see
:mod:`activities.github.errors`), so a workflow's activity and the interactive CLI/MCP
tools call the same code. A reply with a ``marker`` is posted at most once: a retry after
a lost response finds the reply prflow's account already posted in that thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from activities.github.client import github_client, graphql, repo_full_name
from activities.github.comments import own_login
from activities.github.errors import classified_errors
from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef
from prflow.pr_tools.thread_resolution import (
    PostedReply,
    ThreadState,
    graphql_error_type,
    mutation_for,
    parse_thread_state,
)

if TYPE_CHECKING:  # PyGithub loads with the first GitHub call, not at worker start
    from github.PullRequest import PullRequest

REPLY_PERMISSION = "pull requests: write (to reply in review threads)"
RESOLVE_PERMISSION = (
    "pull requests: write and write access to the repository (to resolve review threads)"
)


def reply_in_thread(
    ref: PullRequestRef, comment_id: int, body: str, *, marker: str | None = None
) -> PostedReply:
    """Reply in the thread of review comment ``comment_id`` (any comment of the thread; the
    reply goes to its first). With ``marker`` (text the body contains), a reply by prflow's
    account carrying it in that thread is returned instead of posting again."""
    if not body.strip():
        raise UserError("The reply is empty: give the text to post.")
    if marker is not None and marker not in body:
        raise UserError("The reply must contain its marker.")
    with classified_errors(
        action=f"replying to review comment {comment_id} on {ref.slug}",
        missing=f"Review comment {comment_id} was not found on {ref.slug}",
        permission=REPLY_PERMISSION,
    ):
        client = github_client()
        repo = client.withLazy(True).get_repo(repo_full_name(ref.owner, ref.repo))
        pull_request = repo.get_pull(ref.number)
        top = _thread_opener(pull_request, comment_id)
        if marker is not None:
            posted = _posted_with(pull_request, top, marker, own_login(client))
            if posted is not None:
                return posted
        reply = pull_request.create_review_comment_reply(top, body)
        return PostedReply(
            id=reply.id,
            url=reply.html_url,
            in_reply_to_id=reply.raw_data.get("in_reply_to_id") or top,
        )


def _thread_opener(pull: PullRequest, comment_id: int) -> int:
    """The first comment of ``comment_id``'s thread (the comment itself when it opens one)."""
    comment = pull.get_review_comment(comment_id)
    replied_to = comment.raw_data.get("in_reply_to_id")
    return int(replied_to) if replied_to else comment.id


def _posted_with(pull: PullRequest, top: int, marker: str, own: str | None) -> PostedReply | None:
    for comment in pull.get_review_comments():
        user = comment.user
        if comment.raw_data.get("in_reply_to_id") != top or marker not in (comment.body or ""):
            continue
        mine = (own is None and user is not None and user.type == "Bot") or (
            own is not None and user is not None and user.login == own
        )
        if mine:
            return PostedReply(
                id=comment.id, url=comment.html_url, in_reply_to_id=top, created=False
            )
    return None


def set_thread_resolved(ref: PullRequestRef, thread_id: str, *, resolved: bool) -> ThreadState:
    """Resolve (or unresolve) review thread ``thread_id`` of the PR; GitHub's resulting state.

    Resolving a resolved thread changes nothing and is not an error, as on GitHub.
    """
    from github import GithubException

    verb = "resolving" if resolved else "unresolving"
    mutation, field = mutation_for(resolved)
    with classified_errors(
        action=f"{verb} review thread {thread_id} on {ref.slug}",
        missing=f"Review thread {thread_id} was not found",
        permission=RESOLVE_PERMISSION,
    ):
        client = github_client()
        try:
            data = graphql(client, mutation, {"threadId": thread_id})
        except GithubException as exc:
            refusal = _graphql_refusal(exc, verb, thread_id)
            if refusal is None:
                raise
            raise refusal from exc
        state = parse_thread_state(data, field)
        if state is None:
            raise UserError(f"Review thread {thread_id} was not found: check the thread id.")
    return state


def _graphql_refusal(exc: Any, verb: str, thread_id: str) -> UserError | None:
    """A GraphQL error GitHub answers with 200 as the user's mistake, in one line; anything
    else is left for :func:`classified_errors`."""
    found = graphql_error_type(exc.data)
    if exc.status == 404 or (found is not None and found[0] == "NOT_FOUND"):
        return UserError(
            f"Review thread {thread_id} was not found: list the PR's threads with "
            "`prflow pr threads` and use an id from there."
        )
    if found is not None and found[0] == "FORBIDDEN":
        return UserError(
            f"GitHub refused {verb} review thread {thread_id} ({found[1]}): the token needs "
            f"{RESOLVE_PERMISSION}."
        )
    return None
