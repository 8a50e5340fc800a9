"""The ``review`` kind: a multi-agent review of a pull request, posted as one GitHub review."""

from __future__ import annotations

from prflow.kinds import KindDeclaration, ModelTier, PhaseDefaults, QueueRole, change_request_run_id
from prflow.review.run_models import WORKFLOW_KIND, ReviewPhase, ReviewRequest, ReviewResult
from prflow.search_attributes import RISK_LEVEL, RISK_SCORE


def review_workflow_id(request: ReviewRequest) -> str:
    """``review:acme/api#12@1a2b3c4d5e6f`` for a PR whose head the starter knew (the CLI and
    the queue's job then join one run), ``review:acme/api#12`` when it did not,
    ``review:api-1a2b3c:main..HEAD`` for a range of a repository."""
    return change_request_run_id(WORKFLOW_KIND, request, pr_head_sha=request.pr_head_sha)


PHASES: dict[str, PhaseDefaults] = {
    ReviewPhase.intake: PhaseDefaults(
        tier=ModelTier.budget, usd=0.05, iterations=2, wall_clock_seconds=60, max_tokens=1024
    ),
    ReviewPhase.intake_escalation: PhaseDefaults(
        tier=ModelTier.mid, usd=0.15, iterations=8, max_tokens=2048
    ),
    ReviewPhase.anatomy: PhaseDefaults(tier=ModelTier.mid, usd=0.20, iterations=8, max_tokens=4096),
    ReviewPhase.planning: PhaseDefaults(
        tier=ModelTier.premium, usd=0.50, iterations=6, max_tokens=8192
    ),
    ReviewPhase.reviewers: PhaseDefaults(
        tier=ModelTier.mid, usd=1.20, iterations=12, wall_clock_seconds=300, max_tokens=4096
    ),
    ReviewPhase.investigations: PhaseDefaults(
        tier=ModelTier.mid, usd=0.40, iterations=8, max_tokens=4096
    ),
    ReviewPhase.cross_ref: PhaseDefaults(
        tier=ModelTier.premium, usd=0.60, iterations=6, max_tokens=4096
    ),
    ReviewPhase.deep_dives: PhaseDefaults(
        tier=ModelTier.mid, usd=0.40, iterations=8, max_tokens=4096
    ),
    ReviewPhase.adversary: PhaseDefaults(
        tier=ModelTier.premium, usd=0.60, iterations=8, max_tokens=4096
    ),
    ReviewPhase.coverage: PhaseDefaults(
        tier=ModelTier.budget, usd=0.05, iterations=2, wall_clock_seconds=60, max_tokens=2048
    ),
    ReviewPhase.gap_reviewers: PhaseDefaults(
        tier=ModelTier.mid, usd=0.40, iterations=10, max_tokens=4096
    ),
}
"""Each agent's model tier and caps; a phase shared by several agents splits its caps."""

REVIEW = KindDeclaration(
    name=WORKFLOW_KIND,
    summary="Multi-agent review: planned dimensions, parallel reviewers, one inline GitHub review",
    workflow="workflows.review:ReviewWorkflow",
    input_type=ReviewRequest,
    result_type=ReviewResult,
    workflow_id=review_workflow_id,
    activities={
        QueueRole.MAIN: [
            "activities.impact_analysis:collect_changes",
            "activities.impact_analysis:static_analysis",
            "activities.review:REVIEW_ACTIVITIES",
        ],
        QueueRole.GITHUB: ["activities.github.reviews:REVIEW_GITHUB_ACTIVITIES"],
    },
    search_attributes=(RISK_SCORE, RISK_LEVEL),
    phases=PHASES,
    queue_job="prflow.review.queue_job:review_job",
)
