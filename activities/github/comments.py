"""Upsert prflow's single comment on a pull request, found again by its HTML marker."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from temporalio import activity

from activities.github.client import github_client, repo_full_name
from activities.github.errors import classified_errors
from activities.heartbeats import in_thread_heartbeating
from prflow.config import cached_settings
from prflow.errors import UserError
from prflow.github_models import CommentUpsertInput, CommentUpsertResult, comment_body
from prflow.store.blobs import get_text

if TYPE_CHECKING:  # PyGithub loads with the first GitHub call, not at worker start
    import github
    from github.Issue import Issue
    from github.IssueComment import IssueComment


@activity.defn(name="github_upsert_comment")
async def upsert_pr_comment(inp: CommentUpsertInput) -> CommentUpsertResult:
    """Edit the comment carrying ``inp.marker`` in place, or post it if there is none.

    Safe to retry: a retry after a lost response finds the comment it posted.
    """
    body = await in_thread_heartbeating(
        lambda: get_text(cached_settings().resolved_database_url(), inp.body_key)
    )
    return await in_thread_heartbeating(lambda: _upsert(inp, comment_body(body, inp.marker)))


def _upsert(inp: CommentUpsertInput, text: str) -> CommentUpsertResult:
    ref = inp.pr
    with classified_errors(
        action=f"commenting on {ref.slug}",
        missing=f"Pull request #{ref.number} was not found in {ref.owner}/{ref.repo}",
        permission="write access to pull requests or issues (to post comments)",
    ):
        client = github_client()
        repo = client.withLazy(True).get_repo(repo_full_name(ref.owner, ref.repo))
        issue = repo.get_issue(ref.number)
        if issue.pull_request is None:
            raise UserError(f"{ref.slug} is an issue, not a pull request: give a PR number.")
        own = own_login(client)
        existing = _find_marked_comment(issue.get_comments(), inp.marker, own)
        if existing is None:
            return _create_converging(issue, inp.marker, own, text)
        if existing.body != text:
            existing.edit(text)
        return CommentUpsertResult(comment_id=existing.id, url=existing.html_url, created=False)


def _create_converging(
    issue: Issue, marker: str, own: str | None, text: str
) -> CommentUpsertResult:
    """Post the marked comment, then keep only the oldest one carrying the marker.

    Two runs (two deployments, or a CLI beside the queue) may both find no comment and
    both post: each looks again after posting, and every one that is not the oldest
    deletes its own and edits the oldest, so the PR ends with exactly one.
    """
    posted = issue.create_comment(text)
    oldest = _find_marked_comment(issue.get_comments(), marker, own)
    if oldest is None or oldest.id == posted.id:
        return CommentUpsertResult(comment_id=posted.id, url=posted.html_url, created=True)
    posted.delete()
    if oldest.body != text:
        oldest.edit(text)
    return CommentUpsertResult(comment_id=oldest.id, url=oldest.html_url, created=False)


def own_login(client: github.Github) -> str | None:
    """The login comments are posted as, or None when the credentials cannot tell.

    GitHub App installation tokens may not read ``/user``; then a bot-authored
    comment carrying the marker is taken to be ours.
    """
    from github import GithubException

    try:
        return str(client.get_user().login)
    except GithubException as exc:
        if exc.status in {403, 404}:
            return None
        raise


def _find_marked_comment(
    comments: Iterable[IssueComment], marker: str, own_login: str | None
) -> IssueComment | None:
    """The oldest comment with ``marker`` written by us (by a bot, when we cannot tell who
    we are): a person quoting the marker must never have their comment overwritten."""
    for comment in comments:
        if marker not in (comment.body or "") or comment.user is None:
            continue
        if own_login is None and comment.user.type == "Bot":
            return comment
        if own_login is not None and comment.user.login == own_login:
            return comment
    return None
