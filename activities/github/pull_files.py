"""GitHub's own per-file patches of a pull request (``GET /pulls/{n}/files``) via PyGithub."""

from __future__ import annotations

from typing import TYPE_CHECKING

from temporalio import activity

from activities.github.client import github_client
from activities.github.errors import classified_errors
from activities.heartbeats import in_thread_heartbeating
from prflow.config import cached_settings
from prflow.pr_identifier import PullRequestRef
from prflow.review.diff_map import DiffIndex
from prflow.review.github_diff import github_diff_index
from prflow.review.pull_patches import GITHUB_FILES_LIMIT, GitHubFile, PullPatches, files_to_json
from prflow.store.blobs import put_json

if TYPE_CHECKING:  # PyGithub loads with the first GitHub call, not at worker start
    from github.PullRequest import PullRequest


def pull_files(pull: PullRequest) -> list[GitHubFile]:
    """The files GitHub lists for ``pull`` with their patches (at most 3,000, page by page)."""
    files = []
    for entry in pull.get_files():
        files.append(
            GitHubFile(
                path=entry.filename,
                previous_path=entry.previous_filename or None,
                patch=entry.patch,
                status=entry.status or "modified",
            )
        )
        if len(files) >= GITHUB_FILES_LIMIT:
            break
    return files


def github_diff(pull: PullRequest) -> DiffIndex | None:
    """The PR diff GitHub shows, or None when its file list is cut (3,000 files or more)."""
    files = pull_files(pull)
    if len(files) >= GITHUB_FILES_LIMIT:
        return None
    return github_diff_index(files)


def pull_patches_of(ref: PullRequestRef) -> PullPatches:
    """List GitHub's patches of the PR into the blob store, with the head they are of and
    whether the list is complete (GitHub's stops at 3,000 files)."""
    with classified_errors(
        action=f"listing the changed files of {ref.slug}",
        missing=f"Pull request #{ref.number} was not found in {ref.owner}/{ref.repo}",
        permission="read access to pull requests",
    ):
        pull = github_client().get_repo(f"{ref.owner}/{ref.repo}").get_pull(ref.number)
        before = pull.head.sha
        files = pull_files(pull)
        pull.update()  # a push while listing leaves a list of no one head
        head = before if pull.head.sha == before else ""
        db = cached_settings().resolved_database_url()
        return PullPatches(
            key=put_json(db, files_to_json(files)),
            head_sha=head,
            listed=len(files),
            changed_files=pull.changed_files,
        )


@activity.defn(name="github_pull_patches")
async def pull_patches(ref: PullRequestRef) -> PullPatches:
    """GitHub's per-file patches of the PR: where its review comments may go."""
    return await in_thread_heartbeating(lambda: pull_patches_of(ref))
