"""The ``docsync`` kind: the docs a change affects, and targeted edits to them with reasons."""

from __future__ import annotations

from prflow.docsync.run_models import AGENT_PHASE, WORKFLOW_KIND, DocsyncRequest, DocsyncResult
from prflow.kinds import KindDeclaration, ModelTier, PhaseDefaults, QueueRole, change_request_run_id


def docsync_workflow_id(request: DocsyncRequest) -> str:
    """``docsync:acme/api#12`` for a PR, ``docsync:api-1a2b3c:main..HEAD`` for a range."""
    return change_request_run_id(WORKFLOW_KIND, request)  # one run per PR, whatever its head


PHASES = {
    AGENT_PHASE: PhaseDefaults(
        tier=ModelTier.mid, usd=0.25, iterations=12, wall_clock_seconds=300, max_tokens=4096
    ),
}
"""One agent per doc; each gets these caps (``--budget-usd`` and friends override them)."""

DOCSYNC = KindDeclaration(
    name=WORKFLOW_KIND,
    summary="Doc sync: the docs a change affects, bucketed, with targeted and reasoned edits",
    workflow="workflows.docsync:DocsyncWorkflow",
    input_type=DocsyncRequest,
    result_type=DocsyncResult,
    workflow_id=docsync_workflow_id,
    activities={
        QueueRole.MAIN: [
            "activities.impact_analysis:collect_changes",
            "activities.impact_analysis:static_analysis",
            "activities.docsync:DOCSYNC_ACTIVITIES",
        ],
    },
    phases=PHASES,
    queue_job="prflow.docsync.queue_job:docsync_job",
)
