"""Seed 001's review-resolution tools as the CLI and the MCP server call them: list, reply
in, resolve and unresolve threads; merge conflicts; rebase after a squash-merged base; the
token's permissions. One GitHub (and, for conflicts and rebases, git) read or write each.

Mistakes the user must fix come out as :class:`~prflow.errors.UserError`; transient
failures stay retryable ``ApplicationError`` s for the caller to report.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from activities.github.client import github_client, repo_full_name
from activities.github.comments import own_login
from activities.github.errors import classified_errors, user_errors_raised
from activities.github.review_threads import fetch_review_threads
from activities.github.thread_actions import reply_in_thread, set_thread_resolved
from activities.gitrepo import GitError, GitRepo, ensure_commits, open_repo, run_git
from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef
from prflow.pr_tools.conflicts import MAX_FILES, ConflictReport, conflict_report, parse_merge_tree
from prflow.pr_tools.rebase_plan import PlannedCommit, RebasePlan, rebase_plan
from prflow.pr_tools.review_threads import ReviewThread
from prflow.pr_tools.thread_resolution import (
    PostedReply,
    ResolveReport,
    ThreadList,
    outdated_prflow_threads,
    reply_target,
    thread_list,
)
from prflow.pr_tools.token_permissions import PermissionReport, RepoAccess, permission_report

if TYPE_CHECKING:
    from github.PullRequest import PullRequest
    from github.Repository import Repository

MAX_MERGED_TEXT = 1_000_000  # a merged file larger than this is listed without its hunks
MAX_COMMITS = 250


def _errors(ref: PullRequestRef, action: str) -> Any:
    return classified_errors(
        action=f"{action} {ref.slug}",
        missing=f"Pull request {ref.slug} was not found",
        permission="read access to the repository's pull requests",
    )


def _repo_and_pull(ref: PullRequestRef) -> tuple[Any, Repository, PullRequest]:
    client = github_client()
    repo = client.get_repo(repo_full_name(ref.owner, ref.repo))
    return client, repo, repo.get_pull(ref.number)


# --- threads --------------------------------------------------------------------------------


def list_threads(ref: PullRequestRef, *, resolved: bool) -> ThreadList:
    """The PR's review threads with ids, state and whether prflow opened them."""

    def read() -> ThreadList:
        with _errors(ref, "reading the review threads of"):
            own = own_login(github_client())
        return thread_list(ref.slug, fetch_review_threads(ref), own, resolved=resolved)

    return user_errors_raised(read)


def reply(ref: PullRequestRef, target: str, body: str) -> PostedReply:
    """Reply in a thread named by a thread id (``PRRT_…``) or any of its comment ids."""
    target = target.strip()
    if target.isdigit():
        return user_errors_raised(lambda: reply_in_thread(ref, int(target), body))
    thread = _thread_named(ref, target)
    comment_id = reply_target(thread)
    if comment_id is None:
        raise UserError(f"Review thread {target} has no comment to reply to.")
    return user_errors_raised(lambda: reply_in_thread(ref, comment_id, body))


def _thread_named(ref: PullRequestRef, thread_id: str) -> ReviewThread:
    threads = user_errors_raised(lambda: fetch_review_threads(ref))
    for thread in threads:
        if thread.id == thread_id:
            return thread
    raise UserError(
        f"{ref.slug} has no review thread {thread_id!r}: give a thread id or a comment id "
        f"from `prflow pr threads {ref.slug} --all`."
    )


def resolve_threads(
    ref: PullRequestRef, thread_ids: Sequence[str], *, resolve: bool, outdated: bool = False
) -> ResolveReport:
    """Resolve (or unresolve) the threads named, or with ``outdated`` every unresolved thread
    of prflow's that a push made outdated."""
    ids = list(dict.fromkeys(t.strip() for t in thread_ids if t.strip()))
    action = "resolve" if resolve else "unresolve"
    if outdated and not resolve:
        raise UserError("--outdated only applies to resolve: name the threads to unresolve.")
    if not ids and not outdated:
        raise UserError(
            f"Name the threads to {action} (ids from `prflow pr threads {ref.slug}`)"
            + (", or pass --outdated." if resolve else ".")
        )
    if outdated:

        def chosen() -> list[str]:
            with _errors(ref, "reading the review threads of"):
                own = own_login(github_client())
            return [t.id for t in outdated_prflow_threads(fetch_review_threads(ref), own)]

        ids = list(dict.fromkeys([*ids, *user_errors_raised(chosen)]))
    states = [
        user_errors_raised(partial(set_thread_resolved, ref, tid, resolved=resolve)) for tid in ids
    ]
    done = "resolved" if resolve else "unresolved"
    noun = "thread" if len(states) == 1 else "threads"
    message = f"{ref.slug}: {len(states)} {noun} {done}"
    if outdated and not states:
        message = f"{ref.slug}: no outdated prflow thread is open; nothing to resolve"
    return ResolveReport(pr=ref.slug, action=action, threads=states, message=message + ".")


# --- merge conflicts ------------------------------------------------------------------------


def merge_conflicts(ref: PullRequestRef) -> ConflictReport:
    """GitHub's mergeability plus a trial merge of the base branch's tip and the PR's head."""

    def read() -> tuple[Any, ...]:
        with _errors(ref, "reading"):
            _client, repo, pull = _repo_and_pull(ref)
            return (
                repo.clone_url,
                pull.base.ref,
                pull.head.ref,
                pull.head.sha,
                pull.mergeable,
                pull.mergeable_state,
                pull.state,
            )

    clone_url, base_ref, head_ref, head_sha, mergeable, state, pr_state = user_errors_raised(read)
    if pr_state != "open":
        raise UserError(f"{ref.slug} is {pr_state}: only an open PR can conflict.")
    repo = _mirror(clone_url, ref.number)
    base_sha = _branch_tip(repo, base_ref)
    ensure_commits(repo, [head_sha])
    trial, texts = _trial_merge(repo, base_sha, head_sha)
    return conflict_report(
        pr=ref.slug,
        base_ref=base_ref,
        base_sha=base_sha,
        head_ref=head_ref,
        head_sha=head_sha,
        mergeable=mergeable,
        mergeable_state=state,
        trial=trial,
        merged_texts=texts,
    )


def _mirror(clone_url: str, number: int) -> GitRepo:
    try:
        return open_repo(clone_url, refresh=True, pr_number=number)
    except GitError as exc:
        raise UserError(f"could not fetch {clone_url}: {exc}") from exc


def _branch_tip(repo: GitRepo, branch: str) -> str:
    done = run_git(
        ["rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}"],
        git_dir=repo.git_dir,
        ok_codes=(0, 1, 128),
        own_config=True,
    )
    sha = done.stdout.decode().strip()
    if done.returncode != 0 or not sha:
        raise UserError(f"branch {branch!r} is not in {repo.location}; was it deleted?")
    return sha


def _trial_merge(repo: GitRepo, base_sha: str, head_sha: str) -> tuple[Any, dict[str, str | None]]:
    """``git merge-tree --write-tree`` in a scratch repository that borrows ``repo``'s objects
    and keeps the merge's own: neither the user's repository nor their git config is used."""
    with tempfile.TemporaryDirectory(prefix="prflow-merge-") as where:
        scratch = Path(where) / "merge.git"
        run_git(["init", "--bare", "--quiet", str(scratch)], own_config=True)
        objects = (repo.git_dir / "objects").resolve()
        (scratch / "objects" / "info" / "alternates").write_text(f"{objects}\n")
        args = ["merge-tree", "--write-tree", "-z", "--name-only", "--messages"]
        try:
            done = run_git(
                [*args, base_sha, head_sha], git_dir=scratch, ok_codes=(0, 1), own_config=True
            )
        except GitError as exc:
            if "unrelated histories" in str(exc):
                raise UserError(
                    "the PR's head and base share no history: nothing to merge"
                ) from exc
            raise
        trial = parse_merge_tree(done.stdout, clean=done.returncode == 0)
        texts: dict[str, str | None] = {}
        for path in trial.paths[:MAX_FILES]:
            blob = run_git(
                ["cat-file", "blob", f"{trial.tree}:{path}"],
                git_dir=scratch,
                ok_codes=(0, 128),
                own_config=True,
            )
            data = blob.stdout
            binary = blob.returncode != 0 or b"\0" in data[:8000] or len(data) > MAX_MERGED_TEXT
            texts[path] = None if binary else data.decode("utf-8", errors="replace")
    return trial, texts


# --- rebase after a squash-merged base ------------------------------------------------------


def rebase_after_merge(ref: PullRequestRef) -> RebasePlan:
    """The commands (and the commits they replay) to move a stacked PR onto the branch its
    merged base PR went into."""

    def read() -> tuple[Any, ...]:
        with _errors(ref, "reading the stack of"):
            _client, repo, pull = _repo_and_pull(ref)
            owner = ref.owner
            parents = [
                p
                for p in repo.get_pulls(state="all", head=f"{owner}:{pull.base.ref}")
                if p.number != ref.number
            ]
            parents.sort(key=lambda p: (p.state == "open", p.merged_at is not None, p.number))
            parent = parents[-1] if parents else None
            fork = pull.head.repo is not None and pull.head.repo.full_name != repo.full_name
            return repo.clone_url, pull, parent, fork

    clone_url, pull, parent, fork = user_errors_raised(read)
    if pull.state != "open":
        raise UserError(f"{ref.slug} is {pull.state}: there is nothing to rebase.")
    merged = parent is not None and parent.merged_at is not None and parent.state != "open"
    onto = parent.base.ref if merged and parent is not None else pull.base.ref
    git_repo = _mirror(clone_url, ref.number)
    head_sha = pull.head.sha
    upstream = parent.head.sha if merged and parent is not None else _branch_tip(git_repo, onto)
    ensure_commits(git_repo, [head_sha, upstream])
    onto_sha = _branch_tip(git_repo, onto)
    commits = _own_commits(git_repo, upstream, head_sha, onto_sha)
    return rebase_plan(
        pr=ref.slug,
        number=ref.number,
        branch=pull.head.ref,
        base_ref=pull.base.ref,
        onto=onto,
        upstream=upstream,
        parent=parent.number if parent is not None and (merged or parent.state == "open") else None,
        parent_merged=merged,
        commits=commits,
        fork_remote=fork,
    )


def _own_commits(repo: GitRepo, upstream: str, head: str, onto: str) -> list[PlannedCommit]:
    """``upstream..head`` oldest first, each marked when ``onto`` already has its change."""
    listed = run_git(
        ["log", "--reverse", "--topo-order", "--no-decorate", "--format=%H%x00%s",
         f"--max-count={MAX_COMMITS}", f"{upstream}..{head}"],
        git_dir=repo.git_dir,
        own_config=True,
    )  # fmt: skip
    cherry = run_git(["cherry", onto, head, upstream], git_dir=repo.git_dir, own_config=True)
    applied = {
        line[2:].strip() for line in cherry.stdout.decode().splitlines() if line.startswith("- ")
    }
    commits = []
    for line in listed.stdout.decode("utf-8", errors="replace").splitlines():
        sha, _, subject = line.partition("\0")
        commits.append(PlannedCommit(sha=sha, subject=subject, in_new_base=sha in applied))
    return commits


# --- permissions ----------------------------------------------------------------------------


def token_permissions(ref: PullRequestRef) -> PermissionReport:
    """What the token may do on the PR, tool by tool."""

    def read() -> PermissionReport:
        with _errors(ref, "reading the permissions on"):
            client, repo, pull = _repo_and_pull(ref)
            login = own_login(client)
            head = pull.head.repo
            fork = head is not None and head.full_name != repo.full_name
            head_access = _access(client.get_repo(head.full_name)) if fork and head else None
            return permission_report(
                pr=ref.slug,
                login=login,
                author=pull.user.login if pull.user else None,
                repository=repo.full_name,
                access=_access(repo),
                head_repository=head.full_name if fork and head else None,
                head_access=head_access,
                maintainer_can_modify=bool(pull.raw_data.get("maintainer_can_modify")),
            )

    return user_errors_raised(read)


def _access(repo: Repository) -> RepoAccess:
    granted = repo.raw_data.get("permissions") or {}
    return RepoAccess(**{k: granted.get(k) for k in RepoAccess.model_fields})
