"""Builds review requests and their model plans from settings (for the CLI and the org queue)."""

from __future__ import annotations

from prflow.agent.planning import phase_plans
from prflow.config import Settings
from prflow.pr_identifier import PullRequestRef
from prflow.review.kind import REVIEW
from prflow.review.models import ReviewDepth
from prflow.review.run_models import MODEL_PHASES, ReviewRequest


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
        plans=phase_plans(settings, REVIEW, MODEL_PHASES, enabled=use_model),
        deadline_seconds=settings.budget.deadline,
    )
