"""The ``pr_checks`` kind: wait for a PR's CI on durable timers, then report its failures."""

from __future__ import annotations

from prflow.kinds import KindDeclaration, QueueRole
from prflow.pr_tools.run_models import ChecksReportRef, PrChecksRequest

WORKFLOW_KIND = "pr_checks"


def pr_checks_workflow_id(request: PrChecksRequest) -> str:
    """One wait per PR and mode: asking again attaches to the wait in flight."""
    mode = "bail" if request.bail_on_first else "all"
    return f"{WORKFLOW_KIND}:{request.pr.slug}:{mode}"


PR_CHECKS = KindDeclaration(
    name=WORKFLOW_KIND,
    summary="Wait for a pull request's CI and parse its failures",
    workflow="workflows.pr_checks:PrChecksWorkflow",
    input_type=PrChecksRequest,
    result_type=ChecksReportRef,
    workflow_id=pr_checks_workflow_id,
    activities={
        QueueRole.GITHUB: [
            "activities.github.checks:checks_snapshot",
            "activities.github.checks:checks_report_activity",
        ]
    },
)
