"""What a command reads, checked before any run starts: a local checkout, a clone URL, or a PR.

Shared by every command that analyses a change (``impact``, ``review``, ``docsync``), so a
bad path or a missing ref fails the same way, in one line, before a run starts.
"""

from __future__ import annotations

from pathlib import Path

from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef, parse_pr_identifier
from prflow.repo_models import looks_like_url


def run_location(repo: str | None, pull: PullRequestRef | None) -> str | None:
    """What the run reads: a clone URL as given, a local path made absolute, or (for a PR
    without --repo) None, meaning the PR's own repository."""
    if repo and looks_like_url(repo):
        return repo
    if repo is None and pull is not None:
        return None
    path = Path(repo or ".").resolve()
    if not path.is_dir():
        raise UserError(f"--repo {repo} is not a directory; pass a local clone or a clone URL")
    return str(path)


def checked_target(
    repo: str | None, pr: str | None, base: str | None, head: str
) -> tuple[str | None, PullRequestRef | None]:
    """``--repo`` and ``--pr`` as a run takes them (:func:`run_location`, the parsed PR), a
    local or remote target's refs checked first (:func:`preflight`)."""
    pull = parse_pr_identifier(pr) if pr is not None else None
    location = run_location(repo, pull)
    if location and pull is None:
        preflight(location, base, head)
    return location, pull


def preflight(location: str, base: str | None, head: str) -> None:
    """Fail in one line, before anything starts, when a local checkout lacks the refs or a
    remote does not answer.

    Only a check: the workflow resolves the refs itself and reports the SHAs it read.
    """
    from prflow.git.repo import check_remote, resolve_range
    from prflow.repo_models import RepoSpec

    if looks_like_url(location):
        check_remote(location)
    else:
        resolve_range(RepoSpec(location=location), base, head)


def pr_head(pull: PullRequestRef) -> str | None:
    """The PR's current head SHA, which names the run (see :func:`prflow.kinds.head_run_id`),
    so this command joins the queue's run of the same head instead of starting a second one.

    None when GitHub cannot be asked from here (no token on a laptop driving a cluster): the
    run is then named by the PR alone, and the workflow reports what it cannot read.
    """
    from temporalio.exceptions import ApplicationError

    from activities.github.pulls import fetch_pull_request
    from prflow.errors import Unreachable

    try:
        return fetch_pull_request(pull).head_sha
    except (UserError, Unreachable, ApplicationError, OSError):
        return None
