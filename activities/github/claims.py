"""Who posts a head's output when several deployments race: the earliest claim on GitHub wins.

Two prflow deployments (two Temporal servers sharing only GitHub) can review
one head at once, and their posts land milliseconds apart, so looking before
posting is not enough. Each claimant first creates a small marker comment
naming the kind and the head, then lists the PR's comments: the earliest live
claim decides who posts. The others stand down and report the winner's post,
which carries a marker naming the same kind and head (never the run), so any
later run recognises it too. A claim goes once its post is made; a claim older
than :data:`CLAIM_STALE` is a claimant that died and counts no more.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from temporalio.exceptions import ApplicationError

if TYPE_CHECKING:  # PyGithub loads with the first GitHub call, not at worker start
    from github.IssueComment import IssueComment
    from github.PullRequest import PullRequest

CLAIM_STALE = timedelta(minutes=10)
WINNER_WAIT_SECONDS = 100.0
WINNER_POLL_SECONDS = 1.0

T = TypeVar("T")


def claim_marker(kind: str, head_sha: str) -> str:
    return f"<!-- prflow-claim: {kind}@{head_sha} -->"


def post_marker(kind: str, head_sha: str) -> str:
    """Hidden in a post: names the kind and head it is for, so every run recognises it."""
    return f"<!-- prflow-post: {kind}@{head_sha} -->"


def _ours(user: Any, own_login: str | None) -> bool:
    """A claim of prflow's: our account, or any bot (another deployment's App)."""
    if user is None:
        return False
    return bool(user.login == own_login or user.type == "Bot")


def live_claims(
    comments: Iterable[IssueComment], marker: str, own_login: str | None, mine: IssueComment
) -> list[IssueComment]:
    """The claims that still count, oldest first (GitHub's ids grow with creation)."""
    horizon = mine.created_at - CLAIM_STALE
    found = [
        c
        for c in comments
        if marker in (c.body or "")
        and _ours(c.user, own_login)
        and (c.id == mine.id or c.created_at >= horizon)
    ]
    return sorted(found, key=lambda c: c.id)


def find_post(pull: PullRequest, kind: str, head_sha: str, own_login: str | None) -> Any:
    """The review already posted for ``kind`` at ``head_sha`` by any prflow, or None."""
    marker = post_marker(kind, head_sha)
    for review in pull.get_reviews():
        if marker in (review.body or "") and _ours(review.user, own_login):
            return review
    return None


def post_once(
    pull: PullRequest,
    kind: str,
    head_sha: str,
    own_login: str | None,
    post: Callable[[], T],
    found: Callable[[Any], T],
) -> T:
    """Run ``post`` only if no prflow posted ``kind`` at ``head_sha`` and our claim is the
    earliest; otherwise wait for the winner's post and return ``found(post)``."""
    existing = find_post(pull, kind, head_sha, own_login)
    if existing is not None:
        return found(existing)
    issue = pull.as_issue()
    marker = claim_marker(kind, head_sha)
    mine = issue.create_comment(
        f"{marker}\nprflow is posting its {kind} of {head_sha[:12]}; this note goes once it is."
    )
    try:
        claims = live_claims(issue.get_comments(), marker, own_login, mine)
        if claims and claims[0].id == mine.id:
            existing = find_post(pull, kind, head_sha, own_login)  # a winner that already left
            return found(existing) if existing is not None else post()
        return found(_wait_for_winner(pull, kind, head_sha, own_login, claims[0]))
    finally:
        mine.delete()


def _wait_for_winner(
    pull: PullRequest, kind: str, head_sha: str, own_login: str | None, winner: IssueComment
) -> Any:
    deadline = time.monotonic() + WINNER_WAIT_SECONDS
    while time.monotonic() < deadline:
        existing = find_post(pull, kind, head_sha, own_login)
        if existing is not None:
            return existing
        time.sleep(WINNER_POLL_SECONDS)
    raise ApplicationError(
        f"another prflow claimed the {kind} of {head_sha[:12]} ({winner.html_url}) and has not "
        "posted it yet; retrying"
    )
