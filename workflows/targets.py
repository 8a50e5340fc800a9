"""What a run reads: a pull request (resolved through GitHub), a repository range, or both.

With a pull request and no repository, the PR's own clone is read; with both
(CI: ``--repo . --pr owner/repo#N``), the local checkout is read at the PR's
commits. Either way the result is a range pinned to SHAs.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.github import resolve_pull_request
    from activities.repo_tools import resolve_range_activity
    from prflow.github_models import PullRequestInfo
    from prflow.pr_identifier import PullRequestRef
    from prflow.repo_models import RepoSpec, ResolvedRange, ResolveRangeInput, looks_like_url
    from prflow.run_progress import PhaseState
    from workflows.run_kit import NETWORK_RETRY, RunKit


def reads_local_checkout(pull_request: PullRequestRef | None, repo: str | None) -> bool:
    """Whether the run reads a checkout on the worker's disk (no PR, no clone URL): its steps
    fetch nothing, so they may run as local activities."""
    return pull_request is None and not looks_like_url(repo or ".")


async def resolve_target(
    kit: RunKit,
    *,
    pull_request: PullRequestRef | None,
    repo: str | None,
    base: str | None,
    head: str | None,
    github_task_queue: str | None,
    phase: str = "resolve",
    local: bool = False,
) -> tuple[ResolvedRange, PullRequestInfo | None]:
    """Pin the run's range to commits; marks ``phase`` running, then done.

    ``local``: resolve a range of a local checkout as a local activity (a clone URL or
    a pull request's clone is fetched, which can take minutes and must heartbeat: always
    a full activity).
    """
    kit.set(phase, PhaseState.running)
    location, pr_number = repo, None
    info: PullRequestInfo | None = None
    if pull_request is not None:
        info = await kit.step(
            phase,
            resolve_pull_request,
            pull_request,
            task_queue=github_task_queue,
            timeout=timedelta(seconds=60),
            retry=NETWORK_RETRY,
            summary=f"resolve {pull_request.slug}",
        )
        assert info is not None
        location = location or info.clone_url
        base, head, pr_number = info.base_sha, info.head_sha, info.ref.number
    rng: ResolvedRange = await kit.step(
        phase,
        resolve_range_activity,
        ResolveRangeInput(
            spec=RepoSpec(location=location or ".", pr_number=pr_number),
            base=base,
            head=head or "HEAD",
        ),
        timeout=timedelta(minutes=20),
        summary=f"resolve {base or 'default'}..{head or 'HEAD'}",
        local=local and reads_local_checkout(pull_request, location),
    )
    kit.set(phase, PhaseState.done, f"{rng.base_sha[:10]}..{rng.head_sha[:10]}")
    return rng, info
