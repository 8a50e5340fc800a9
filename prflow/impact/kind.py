"""The ``impact`` kind: what a change breaks, what it leaves untested, how risky it is."""

from __future__ import annotations

from prflow.impact.run_models import LLM_PHASE, WORKFLOW_KIND, ImpactRequest, ImpactResult
from prflow.kinds import KindDeclaration, ModelTier, PhaseDefaults, QueueRole, change_request_run_id
from prflow.search_attributes import RISK_LEVEL, RISK_SCORE


def impact_workflow_id(request: ImpactRequest) -> str:
    """``impact:acme/api#12@1a2b3c4d5e6f`` for a PR at a known head (the CLI and the queue's
    job join one run), ``impact:acme/api#12`` without one, ``impact:api-1a2b3c:main..HEAD``
    for a range.

    Named after what was asked, not what it resolved to: the same command run
    twice attaches to the run in flight; the result says which SHAs it read.
    """
    return change_request_run_id(WORKFLOW_KIND, request, pr_head_sha=request.pr_head_sha)


IMPACT = KindDeclaration(
    name=WORKFLOW_KIND,
    summary="Impact analysis: breaking changes, test gaps, stale docs, risk score",
    workflow="workflows.impact:ImpactWorkflow",
    input_type=ImpactRequest,
    result_type=ImpactResult,
    workflow_id=impact_workflow_id,
    activities={QueueRole.MAIN: ["activities.impact_analysis:IMPACT_ACTIVITIES"]},
    search_attributes=(RISK_SCORE, RISK_LEVEL),
    phases={LLM_PHASE: PhaseDefaults(tier=ModelTier.mid)},
    queue_job="prflow.impact.queue_job:impact_job",
)
