"""Whether a pull request can be merged now, and if not, every reason why.

The reasons are written for the person (or agent) who has to act on them,
so each one names the fix.
"""

from __future__ import annotations

from pydantic import BaseModel

from prflow.github_models import PullSummary
from prflow.pr_tools.checks import ChecksOverview, CiState


class Readiness(BaseModel):
    ready: bool
    blockers: list[str]


def merge_readiness(
    pull: PullSummary,
    *,
    checks: ChecksOverview | None,
    unresolved_threads: int | None,
    stacked_on: int | None = None,
    needs_rebase: bool = False,
) -> Readiness:
    """``stacked_on`` is the open PR this one's base branch belongs to, if any."""
    blockers: list[str] = []
    if pull.merged:
        blockers.append("already merged")
    elif pull.state != "open":
        blockers.append("closed: reopen it first")
    if pull.draft:
        blockers.append("draft: mark it ready for review")
    if stacked_on is not None:
        blockers.append(f"stacked on #{stacked_on}: merge that PR first")
    if needs_rebase:
        blockers.append("its base moved: rebase it (see the plan)")
    if pull.mergeable is False or pull.mergeable_state == "dirty":
        blockers.append(f"conflicts with {pull.base_ref}: rebase or merge {pull.base_ref} in")
    elif pull.mergeable_state == "blocked":
        blockers.append("blocked by branch protection: required reviews or checks are missing")
    elif pull.mergeable_state == "behind":
        blockers.append(f"behind {pull.base_ref}: update the branch")
    if checks is not None:
        if checks.state == CiState.failed:
            blockers.append(f"failing checks: {', '.join(checks.failing)}")
        elif checks.state == CiState.pending:
            blockers.append(f"checks still running: {', '.join(checks.waiting_on)}")
    if unresolved_threads:
        noun = "thread" if unresolved_threads == 1 else "threads"
        blockers.append(f"{unresolved_threads} unresolved review {noun}")
    return Readiness(ready=not blockers, blockers=blockers)
