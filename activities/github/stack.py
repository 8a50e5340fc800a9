"""Read a pull request's stack from GitHub and plan it (see :mod:`prflow.pr_tools.stack`).

The chain is found with the pull list's ``head`` and ``base`` filters: the
PR whose head branch is this PR's base (open, merged or closed), and the
open PRs whose base is this PR's head. Each open PR of the chain is then
looked at closely: mergeability, how far its base moved ahead, its CI and
its unresolved review threads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from activities.github.checks import read_checks
from activities.github.client import github_client, graphql, repo_full_name
from activities.github.errors import classified_errors
from activities.github.review_threads import fetch_review_threads
from prflow.github_models import PullSummary
from prflow.pr_identifier import PullRequestRef
from prflow.pr_tools.checks import ChecksOverview, overview
from prflow.pr_tools.review_threads import unresolved
from prflow.pr_tools.stack import BEHIND_QUERY, StackPlan, behind_by, plan_stack

if TYPE_CHECKING:  # PyGithub loads with the first GitHub call, not at worker start
    import github
    from github.PullRequest import PullRequest

MAX_DEPTH = 20  # stacks deeper than this are a mistake, not a workflow


def read_stack(ref: PullRequestRef) -> StackPlan:
    with classified_errors(
        action=f"reading the stack of {ref.slug}",
        missing=f"Pull request {ref.slug} was not found",
        permission="read access to the repository's pull requests and checks",
    ):
        client = github_client()
        repo = client.get_repo(repo_full_name(ref.owner, ref.repo))
        target = _summary(repo.get_pull(ref.number), full=True)
        found = {target.number: target}
        _walk_down(repo, ref.owner, target, repo.default_branch, found)
        _walk_up(repo, target, found)
        checks: dict[int, ChecksOverview] = {}
        threads: dict[int, int] = {}
        for number, pull in list(found.items()):
            if pull.state != "open":
                continue
            detailed = pull if number == target.number else _summary(repo.get_pull(number), True)
            found[number] = detailed.model_copy(
                update={"behind_by": _behind(client, ref, detailed)}
            )
            pr = ref.model_copy(update={"number": number})
            checks[number] = overview(read_checks(pr).checks)
            threads[number] = len(unresolved(fetch_review_threads(pr)))
    return plan_stack(ref.slug, list(found.values()), ref.number, checks=checks, threads=threads)


def _walk_down(
    repo: Any, owner: str, start: PullSummary, default_branch: str, found: dict[int, PullSummary]
) -> None:
    current = start
    for _ in range(MAX_DEPTH):
        if current.base_ref == default_branch:
            return
        candidates = [
            _summary(p, full=False)
            for p in repo.get_pulls(state="all", head=f"{owner}:{current.base_ref}")
        ]
        parents = [p for p in candidates if p.number not in found]
        if not parents:
            return
        parents.sort(key=lambda p: (p.state == "open", p.merged, p.number))
        parent = parents[-1]
        found[parent.number] = parent
        if parent.state != "open":
            return
        current = parent


def _walk_up(repo: Any, start: PullSummary, found: dict[int, PullSummary]) -> None:
    frontier = [start]
    while frontier and len(found) < MAX_DEPTH * 2:
        node = frontier.pop(0)
        for child in repo.get_pulls(state="open", base=node.head_ref):
            summary = _summary(child, full=False)
            if summary.number not in found:
                found[summary.number] = summary
                frontier.append(summary)


def _summary(pull: PullRequest, full: bool) -> PullSummary:
    """A list entry lacks the merge fields; reading them would fetch the PR again."""
    head_repo = pull.head.repo.full_name if pull.head.repo is not None else None
    return PullSummary(
        number=pull.number,
        title=pull.title,
        url=pull.html_url,
        state=pull.state,
        merged=pull.merged if full else pull.merged_at is not None,
        draft=bool(pull.draft),
        base_ref=pull.base.ref,
        head_ref=pull.head.ref,
        head_sha=pull.head.sha,
        head_repo=head_repo,
        mergeable=pull.mergeable if full else None,
        mergeable_state=pull.mergeable_state if full else None,
    )


def _behind(client: github.Github, ref: PullRequestRef, pull: PullSummary) -> int | None:
    variables = {
        "owner": ref.owner,
        "name": ref.repo,
        "base": f"refs/heads/{pull.base_ref}",
        "head": f"refs/heads/{pull.head_ref}",
    }
    return behind_by(graphql(client, BEHIND_QUERY, variables))
