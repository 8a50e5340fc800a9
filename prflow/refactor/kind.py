"""The ``refactor`` kind: a directive in, a validated multi-file change out, resumable for hours."""

from __future__ import annotations

import hashlib

from prflow.kinds import KindDeclaration, ModelTier, PhaseDefaults, QueueRole, repository_run_id
from prflow.refactor.run_models import (
    WORKFLOW_KIND,
    RefactorPhase,
    RefactorRequest,
    RefactorResult,
)


def refactor_workflow_id(request: RefactorRequest) -> str:
    """``refactor:api-1a2b3c:9f8e7d6c``: the repository and the directive name the run, so the
    same request attaches to the run in flight (``--attach`` takes the id directly)."""
    what = hashlib.sha1(
        "\0".join([request.directive, *request.include, "|", *request.exclude]).encode()
    ).hexdigest()[:8]
    return repository_run_id(WORKFLOW_KIND, request.repo, what)


PHASES: dict[str, PhaseDefaults] = {
    RefactorPhase.planning: PhaseDefaults(
        tier=ModelTier.premium, usd=1.00, iterations=10, max_tokens=8192
    ),
    RefactorPhase.executor: PhaseDefaults(
        tier=ModelTier.mid, usd=1.50, iterations=40, max_tokens=8192
    ),
}
"""Planner caps are for the whole planning (re-asks included); executor caps are per task
attempt."""

REFACTOR = KindDeclaration(
    name=WORKFLOW_KIND,
    summary="Directive in, planned task DAG, audited and tested edits, validated change out",
    workflow="workflows.refactor:RefactorWorkflow",
    input_type=RefactorRequest,
    result_type=RefactorResult,
    workflow_id=refactor_workflow_id,
    activities={
        QueueRole.MAIN: [
            "activities.refactor:REFACTOR_ACTIVITIES",
            "activities.workspace:WORKSPACE_ACTIVITIES",
            "activities.test_runs:TEST_RUN_ACTIVITIES",
        ],
    },
    phases=PHASES,
    extra_workflows=("workflows.refactor_task:RefactorTaskWorkflow",),
)
