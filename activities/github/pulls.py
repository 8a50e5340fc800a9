"""Resolve a pull request: its branches, commits and clone URL."""

from __future__ import annotations

from temporalio import activity

from activities.github.client import github_client, repo_full_name
from activities.github.errors import classified_errors, user_errors_raised
from activities.heartbeats import in_thread_heartbeating
from prflow.github_models import PullRequestInfo
from prflow.pr_identifier import PullRequestRef


@activity.defn(name="github_resolve_pr")
async def resolve_pull_request(ref: PullRequestRef) -> PullRequestInfo:
    """Look up a pull request's branches, commits and clone URL."""
    return await in_thread_heartbeating(lambda: _resolve(ref))


def fetch_pull_request(ref: PullRequestRef) -> PullRequestInfo:
    """The same lookup for callers outside a worker (the CLI naming a run before it starts)."""
    return user_errors_raised(lambda: _resolve(ref))


def _resolve(ref: PullRequestRef) -> PullRequestInfo:
    repo_name = repo_full_name(ref.owner, ref.repo)
    with classified_errors(
        action=f"reading {ref.slug}",
        missing=f"Repository {repo_name} was not found",
        permission="read access to the repository's pull requests",
    ):
        repo = github_client().get_repo(repo_name)
    with classified_errors(
        action=f"reading {ref.slug}",
        missing=f"Pull request #{ref.number} was not found in {repo_name}",
        permission="read access to the repository's pull requests",
    ):
        pull = repo.get_pull(ref.number)
        return PullRequestInfo(
            ref=ref,
            title=pull.title,
            html_url=pull.html_url,
            clone_url=pull.base.repo.clone_url,
            base_ref=pull.base.ref,
            base_sha=pull.base.sha,
            head_ref=pull.head.ref,
            head_sha=pull.head.sha,
            state=pull.state,
        )
