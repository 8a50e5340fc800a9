"""Open a run's change as a draft pull request: blobs, tree, commit, ref, then the pull.

Everything goes through GitHub's Git Data API, so no clone or push is needed
and the user's checkout is never touched. The branch is the run's own, which
makes the activity idempotent: a retry first looks for the pull request on
that branch, then for the branch itself, and only creates what is missing, so
a run opens one pull request however often the activity is retried.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from temporalio import activity

from activities.github.client import github_client
from activities.github.errors import classified_errors
from activities.heartbeats import in_thread_heartbeating
from activities.workspace_git import git, load_state, repo_at
from prflow.config import cached_settings
from prflow.store.blobs import get_text
from prflow.workspace.models import DraftPullRequest, DraftPullRequestInput

if TYPE_CHECKING:  # PyGithub loads with the first GitHub call, not at worker start
    from github.GitCommit import GitCommit
    from github.Repository import Repository

PERMISSION = "contents and pull requests write access to the repository"


@activity.defn(name="github_open_draft_pr")
async def open_draft_pr(inp: DraftPullRequestInput) -> DraftPullRequest:
    """One draft pull request per run for the workspace's change (retries find it)."""
    return await in_thread_heartbeating(lambda: open_draft_pull(inp))


def open_draft_pull(inp: DraftPullRequestInput) -> DraftPullRequest:
    db_url = cached_settings().resolved_database_url()
    action = f"opening a draft pull request on {inp.repository}"
    with classified_errors(
        action=action,
        missing=f"Repository {inp.repository} was not found",
        permission=PERMISSION,
    ):
        repo = github_client().get_repo(inp.repository)
        found = _existing_pull(repo, inp.branch)
        if found is not None:
            return found
        commit_sha = _branch_head(repo, inp.branch)
    if commit_sha is None:
        with classified_errors(
            action=action,
            missing=(
                f"the base commit {inp.workspace.base_sha[:12]} is not on GitHub "
                f"({inp.repository}); push it, then run again"
            ),
            permission=PERMISSION,
        ):
            base = repo.get_git_commit(inp.workspace.base_sha)
        with classified_errors(action=action, missing=action, permission=PERMISSION):
            commit_sha = _commit_change(db_url, repo, inp, base)
    with classified_errors(action=action, missing=action, permission=PERMISSION):
        pull = repo.create_pull(
            base=inp.base_branch or repo.default_branch,
            head=inp.branch,
            title=inp.title,
            body=get_text(db_url, inp.body_key),
            draft=True,
        )
    return DraftPullRequest(
        number=pull.number,
        html_url=pull.html_url,
        branch=inp.branch,
        commit_sha=commit_sha,
        created=True,
    )


def _existing_pull(repo: Repository, branch: str) -> DraftPullRequest | None:
    owner = repo.owner.login
    for pull in repo.get_pulls(state="all", head=f"{owner}:{branch}"):
        return DraftPullRequest(
            number=pull.number,
            html_url=pull.html_url,
            branch=branch,
            commit_sha=pull.head.sha,
            created=False,
        )
    return None


def _branch_head(repo: Repository, branch: str) -> str | None:
    from github import GithubException

    try:
        return repo.get_git_ref(f"heads/{branch}").object.sha
    except GithubException as exc:
        if exc.status == 404:
            return None
        raise


def _commit_change(
    db_url: str, repo: Repository, inp: DraftPullRequestInput, base: GitCommit
) -> str:
    """Blobs for the changed files, a tree on the base tree, a commit, then the branch."""
    from github import GithubException, InputGitTreeElement

    state = load_state(db_url, inp.workspace)
    local = repo_at(inp.workspace.repo, inp.workspace.base_sha)
    elements = []
    for path, key in sorted(state.files.items()):
        if key is None:
            elements.append(InputGitTreeElement(path, "100644", "blob", sha=None))
            continue
        blob = repo.create_git_blob(get_text(db_url, key), "utf-8")
        listed = git(["ls-tree", inp.workspace.base_sha, "--", path], local.git_dir).stdout
        mode = listed.decode().split(" ", 1)[0] if listed.startswith(b"100") else "100644"
        elements.append(InputGitTreeElement(path, mode, "blob", sha=blob.sha))
    tree = repo.create_git_tree(elements, base.tree)
    commit = repo.create_git_commit(inp.commit_message or inp.title, tree, [base])
    try:
        repo.create_git_ref(f"refs/heads/{inp.branch}", commit.sha)
    except GithubException as exc:
        existing = _branch_head(repo, inp.branch) if exc.status == 422 else None
        if existing is None:
            raise
        return existing  # a concurrent attempt made the branch first
    return commit.sha


DRAFT_PR_ACTIVITIES = [open_draft_pr]
"""GitHub-queue activities a kind lists (``"activities.github.draft_pr:DRAFT_PR_ACTIVITIES"``)."""
