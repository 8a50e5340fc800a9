"""Builds review requests and their model plans from settings (for the CLI and the org queue)."""

from __future__ import annotations

from prflow.agent.plan import PhasePlan
from prflow.agent.planning import phase_plans
from prflow.config import Settings
from prflow.pr_identifier import PullRequestRef
from prflow.review.kind import REVIEW
from prflow.review.models import ReviewDepth
from prflow.review.run_models import MODEL_PHASES, ReviewRequest


def review_plans(
    settings: Settings,
    *,
    enabled: bool = True,
    budget_usd: float | None = None,
    budget_wait: float | None = None,
) -> dict[str, PhasePlan]:
    """Every model phase's plan: its tier and caps from the kind's defaults and settings.

    ``budget_usd`` caps the whole review: each phase's USD cap is scaled by
    the same factor so the phases keep their proportions. Disabled plans
    (``enabled=False``) give an empty dict: static mode.
    """
    if not enabled:
        return {}
    return phase_plans(
        settings, REVIEW, MODEL_PHASES, budget_usd=budget_usd, budget_wait=budget_wait
    )


def review_request(
    settings: Settings,
    pull_request: PullRequestRef,
    *,
    post: bool = True,
    depth: ReviewDepth = ReviewDepth.standard,
    use_model: bool = True,
) -> ReviewRequest:
    """A review of ``pull_request`` as a webhook or a schedule starts it."""
    return ReviewRequest(
        pull_request=pull_request,
        post=post,
        depth=depth,
        plans=review_plans(settings, enabled=use_model),
        github_task_queue=settings.temporal.github_task_queue,
        deadline_seconds=settings.budget.deadline,
    )
