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
from typing import TYPE_CHECKING, Any, cast

from temporalio import activity

from activities.github.claims import post_marker, post_once
from activities.github.client import github_client
from activities.github.comments import own_login
from activities.github.errors import classified_errors
from activities.github.pull_files import github_diff, pull_patches
from activities.github.review_threads import fetch_review_threads
from activities.heartbeats import in_thread_heartbeating
from prflow.config import cached_settings
from prflow.pr_identifier import PullRequestRef
from prflow.review.fingerprints import fingerprint_of_comment
from prflow.review.github_diff import split_refused
from prflow.review.models import PrMetadata
from prflow.review.render.github_review import ReviewComment, ReviewPayload
from prflow.review.render.summary import REVIEW_COMMENT_MARKER, read_state
from prflow.review.render.text import code_span, inert
from prflow.review.stage_models import PostedReview, PostReviewInput, ReviewHistory
from prflow.store.blobs import get_json

if TYPE_CHECKING:  # PyGithub loads with the first GitHub call, not at worker start
    import github
    from github.Commit import Commit
    from github.PullRequest import PullRequest
    from github.PullRequest import ReviewComment as GhReviewComment

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


def _moved_to_body(body: str, moved: list[tuple[ReviewComment, str]]) -> str:
    """The review body with each inline comment GitHub refused listed at its ``path:line``."""
    if not moved:
        return body
    noun = "comment" if len(moved) == 1 else "comments"
    lines = [body, "", f"#### {len(moved)} inline {noun} GitHub refused, listed here", ""]
    for comment, why in moved:
        where = code_span(f"{comment.path}:{comment.line}")
        lines += [f"**{where}** <sub>({inert(why)})</sub>", "", comment.body, ""]
    return "\n".join(lines)


def _send(
    pull: PullRequest, commit: Commit, event: str, body: str, comments: list[ReviewComment]
) -> Any:
    """The created review, or None when GitHub answers 422."""
    from github import GithubException

    try:
        return pull.create_review(
            commit=commit,
            body=body,
            event=event,
            comments=cast("list[GhReviewComment]", [c.as_request() for c in comments]),
        )
    except GithubException as err:
        if err.status != 422:
            raise
        return None


def _post(inp: PostReviewInput, payload: ReviewPayload) -> PostedReview:
    """Post the review; a comment GitHub would refuse moves to the body, the rest stay inline.

    GitHub's own per-file patches decide first (when they are of the commit reviewed and
    complete). If GitHub still answers 422, the comments its diff does not show move to the
    body and the review is sent once more; each refused comment is retried at most once.
    Only when that fails too is every finding listed in the body: the review is never lost.
    """
    from github import GithubException
    from github.Commit import Commit

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
        same_head = pull.head.sha == inp.commit_sha
        comments = list(payload.comments)
        moved: list[tuple[ReviewComment, str]] = []
        shown = github_diff(pull) if comments and same_head else None
        if shown is not None:
            comments, moved = split_refused(comments, shown)
        events = [payload.event] + (["COMMENT"] if payload.event != "COMMENT" else [])
        for retry in (False, True):
            for event in events:
                body = _moved_to_body(payload.body, moved)
                review = _send(pull, commit, event, body, comments)
                if review is not None:
                    return PostedReview(
                        review_id=review.id,
                        url=review.html_url,
                        inline_comments=len(comments),
                        created=True,
                        moved_to_body=len(moved),
                    )
            if retry or not comments:
                break
            shown = github_diff(pull)
            if shown is None:
                break
            comments, refused = split_refused(comments, shown, lines=same_head)
            if not refused:
                break
            moved += refused
        everything = moved + [(c, "GitHub refused the review with it inline") for c in comments]
        review = _send(pull, commit, "COMMENT", _moved_to_body(payload.body, everything), [])
        if review is None:
            raise GithubException(422, {"message": "GitHub refused the review"}, None)
        return PostedReview(
            review_id=review.id,
            url=review.html_url,
            inline_comments=0,
            created=True,
            inline_refused=bool(everything),
            moved_to_body=len(everything),
        )


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


REVIEW_GITHUB_ACTIVITIES: list[Callable[..., Any]] = [review_history, pull_patches, post_review]
