"""Review threads of a pull request through GitHub's GraphQL API (REST cannot tell resolved)."""

from __future__ import annotations

from activities.github.client import github_client, graphql
from activities.github.errors import classified_errors
from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef
from prflow.pr_tools.review_threads import (
    REVIEW_THREADS_QUERY,
    ReviewThread,
    parse_threads_page,
    threads_variables,
)

MAX_PAGES = 40  # 2,000 threads: far beyond any reviewable PR


def fetch_review_threads(ref: PullRequestRef) -> list[ReviewThread]:
    """Every review thread of the PR, resolved or not, following GraphQL's cursors."""
    threads: list[ReviewThread] = []
    cursor: str | None = None
    with classified_errors(
        action=f"reading the review threads of {ref.slug}",
        missing=f"Pull request {ref.slug} was not found",
        permission="read access to the repository's pull requests",
    ):
        client = github_client()
        for _ in range(MAX_PAGES):
            variables = threads_variables(ref.owner, ref.repo, ref.number, cursor)
            page = parse_threads_page(graphql(client, REVIEW_THREADS_QUERY, variables))
            if page is None:
                raise UserError(f"Pull request {ref.slug} was not found: check the number.")
            threads += page.threads
            cursor = page.next_cursor
            if cursor is None:
                break
    return threads
