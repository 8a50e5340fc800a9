"""Pull request reviews through PyGithub: what earlier prflow reviews left, and posting one.

A run reads the PR's words (for intake), the sticky summary comment's state
(the head reviewed last and every finding posted), prflow's own inline
comments (each carries its finding's fingerprint) and the review threads
(GraphQL: REST cannot tell resolved). It then posts ONE review with all its
inline comments in a single request. Only comments written by prflow's own
account count: a person quoting a marker cannot silence a finding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import github
from github import GithubException
from github.Commit import Commit
from github.PullRequest import PullRequest, ReviewComment
from temporalio import activity

from activities.github.claims import post_marker, post_once
from activities.github.client import github_client
from activities.github.comments import own_login
from activities.github.errors import classified_errors
from activities.github.review_threads import fetch_review_threads
from activities.heartbeats import in_thread_heartbeating
from prflow.config import cached_settings
from prflow.pr_identifier import PullRequestRef
from prflow.review.fingerprints import fingerprint_of_comment
from prflow.review.models import PrMetadata
from prflow.review.render.github_review import ReviewPayload
from prflow.review.render.summary import REVIEW_COMMENT_MARKER, read_state
from prflow.review.stage_models import PostedReview, PostReviewInput, ReviewHistory
from prflow.store.blobs import get_json

MAX_BODY_CHARS = 8_000
REVIEW_KIND = "review"
MAX_LABELS = 20


def _written_by_us(login: str | None, author_type: str | None, own_login: str | None) -> bool:
    """Ours when the login matches; a bot's when we cannot tell who we are (an App token)."""
    if own_login is None:
        return author_type == "Bot"
    return login == own_login


def _errors(ref: PullRequestRef, action: str) -> Any:
    return classified_errors(
        action=f"{action} {ref.slug}",
        missing=f"Pull request #{ref.number} was not found in {ref.owner}/{ref.repo}",
        permission="read and write access to pull requests (to post reviews)",
    )


def _pull(client: github.Github, ref: PullRequestRef) -> PullRequest:
    return client.withLazy(True).get_repo(f"{ref.owner}/{ref.repo}").get_pull(ref.number)


def _history(ref: PullRequestRef) -> ReviewHistory:
    with _errors(ref, "reading the earlier reviews of"):
        client = github_client()
        own = own_login(client)
        pull = client.get_repo(f"{ref.owner}/{ref.repo}").get_pull(ref.number)
        metadata = PrMetadata(
            title=pull.title or "",
            body=(pull.body or "")[:MAX_BODY_CHARS],
            labels=[label.name for label in pull.labels][:MAX_LABELS],
            author=pull.user.login if pull.user else "",
        )
        state = None
        for comment in pull.as_issue().get_comments():
            user = comment.user
            if REVIEW_COMMENT_MARKER in (comment.body or "") and _written_by_us(
                user.login if user else None, user.type if user else None, own
            ):
                state = read_state(comment.body) or state
        posted = set(state.posted if state else [])
        for review_comment in pull.get_review_comments():
            user = review_comment.user
            if _written_by_us(user.login if user else None, user.type if user else None, own):
                found = fingerprint_of_comment(review_comment.body)
                if found:
                    posted.add(found)
    resolved, still_open = _thread_fingerprints(ref, own)
    return ReviewHistory(
        last_head_sha=state.head if state else None,
        posted_fingerprints=sorted(posted),
        resolved_fingerprints=sorted(resolved),
        open_fingerprints=sorted(still_open),
        metadata=metadata,
    )


def _thread_fingerprints(ref: PullRequestRef, own: str | None) -> tuple[set[str], set[str]]:
    """Fingerprints of prflow's threads a person resolved, and of those still open."""
    resolved: set[str] = set()
    still_open: set[str] = set()
    for thread in fetch_review_threads(ref):
        if not thread.comments:
            continue
        opener = thread.comments[0]
        login = f"{opener.author}[bot]" if opener.author_type == "Bot" else opener.author
        mine = _written_by_us(login, opener.author_type, own) or _written_by_us(
            opener.author, opener.author_type, own
        )
        found = fingerprint_of_comment(opener.body) if mine else None
        if found:
            (resolved if thread.is_resolved else still_open).add(found)
    return resolved, still_open


@activity.defn(name="github_review_history")
async def review_history(ref: PullRequestRef) -> ReviewHistory:
    """The PR's words and what earlier prflow reviews of it left behind."""
    return await in_thread_heartbeating(lambda: _history(ref))


def _find_posted(pull: PullRequest, marker: str, own: str | None) -> Any:
    for review in pull.get_reviews():
        user = review.user
        if marker in (review.body or "") and _written_by_us(
            user.login if user else None, user.type if user else None, own
        ):
            return review
    return None


def _attempts(payload: ReviewPayload) -> list[tuple[str, list[dict[str, Any]], bool]]:
    """What to send, in order, while GitHub answers 422: the review as built; as a comment
    (GitHub refuses approving or requesting changes on one's own PR); with every finding in
    the body (a last resort that never loses the review)."""
    comments = [c.as_request() for c in payload.comments]
    plans = [(payload.event, comments, False)]
    if payload.event != "COMMENT":
        plans.append(("COMMENT", comments, False))
    if comments:
        plans.append(("COMMENT", [], True))
    return plans


def _moved_to_body(payload: ReviewPayload) -> str:
    lines = [payload.body, "", "#### Inline comments GitHub refused, listed here", ""]
    for comment in payload.comments:
        lines += [f"**`{comment.path}:{comment.line}`**", "", comment.body, ""]
    return "\n".join(lines)


def _post(inp: PostReviewInput, payload: ReviewPayload) -> PostedReview:
    ref = inp.pr
    with _errors(ref, "posting a review on"):
        client = github_client()
        own = own_login(client)
        pull = _pull(client, ref)
        existing = _find_posted(pull, inp.run_marker, own)
        if existing is not None:  # a retry after a lost response: the review is there
            count = sum(1 for _ in pull.get_single_review_comments(existing.id))
            return PostedReview(
                review_id=existing.id, url=existing.html_url, inline_comments=count, created=False
            )
        commit = Commit(pull.requester, {}, {"sha": inp.commit_sha}, completed=False)
        problem: GithubException | None = None
        for event, comments, moved in _attempts(payload):
            body = _moved_to_body(payload) if moved else payload.body
            try:
                review = pull.create_review(
                    commit=commit,
                    body=body,
                    event=event,
                    comments=cast(list[ReviewComment], comments),
                )
            except GithubException as err:
                if err.status != 422:
                    raise
                problem = err
                continue
            return PostedReview(
                review_id=review.id,
                url=review.html_url,
                inline_comments=len(comments),
                created=True,
                inline_refused=moved,
            )
        assert problem is not None
        raise problem


@activity.defn(name="github_post_review")
async def post_review(inp: PostReviewInput) -> PostedReview:
    """Post the run's one review with its inline comments; safe to retry."""
    db = cached_settings().resolved_database_url()
    payload = ReviewPayload.model_validate(get_json(db, inp.review_key))
    return await in_thread_heartbeating(lambda: _post_claimed(inp, payload))


def _post_claimed(inp: PostReviewInput, payload: ReviewPayload) -> PostedReview:
    """One review per head and kind, however many runs or deployments reach this point:
    the earliest claim on the PR posts, the others report its review (see
    :mod:`activities.github.claims`)."""
    ref = inp.pr
    with _errors(ref, "posting a review on"):
        client = github_client()
        own = own_login(client)
        pull = _pull(client, ref)
        marked = payload.model_copy(
            update={"body": f"{payload.body}\n{post_marker(REVIEW_KIND, inp.commit_sha)}"}
        )

        def reported(review: Any) -> PostedReview:
            count = sum(1 for _ in pull.get_single_review_comments(review.id))
            return PostedReview(
                review_id=review.id, url=review.html_url, inline_comments=count, created=False
            )

        return post_once(
            pull, REVIEW_KIND, inp.commit_sha, own, lambda: _post(inp, marked), reported
        )


REVIEW_GITHUB_ACTIVITIES: list[Callable[..., Any]] = [review_history, post_review]
