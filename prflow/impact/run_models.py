"""Inputs, outputs and progress of the ``impact`` workflow (what crosses Temporal).

Large values (the change list, analyzer output, rendered reports) travel as
blob keys; these models stay a few KiB.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from prflow.agent.plan import PhasePlan
from prflow.changes import Totals
from prflow.credentials import SafeLocation
from prflow.impact.result_models import LargePrStrategy, LlmOutcome, RiskLevel
from prflow.pr_identifier import PullRequestRef
from prflow.task_queues import recorded_queue

WORKFLOW_KIND = "impact"
LLM_PHASE = "impact_agent"


class ImpactRequest(BaseModel):
    """One impact analysis: a repository and two refs, or a pull request."""

    model_config = ConfigDict(hide_input_in_errors=True)

    repo: SafeLocation | None = Field(default=None, description="Local path or clone URL")
    pull_request: PullRequestRef | None = None
    pr_head_sha: str | None = Field(
        default=None,
        description="The PR head the starter saw: names the run, so every start path joins it",
    )
    base: str | None = None
    head: str | None = None
    post_comment: bool = False
    llm: PhasePlan
    github_task_queue: str | None = recorded_queue()
    deadline_seconds: float | None = Field(
        default=None, gt=0, description="The whole run's time limit; at it, report what is done"
    )


class ChangeSet(BaseModel):
    """The changed files of the range, stored as a blob, with what the workflow needs inline."""

    files_key: str
    totals: Totals
    source_files: int
    large_pr: LargePrStrategy


class StaticSummary(BaseModel):
    key: str
    breaking: int
    test_gaps: int
    stale_docs: int
    indirectly_affected: int


class LlmContext(BaseModel):
    system_key: str
    system_chars: int
    message_key: str
    message_chars: int
    tools_key: str | None = None
    tools_chars: int = 0


class ReportRefs(BaseModel):
    """The rendered report by blob key; small renderings also inline, by format."""

    score: int
    level: RiskLevel
    report_key: str
    markdown_key: str
    sarif_key: str
    comment_key: str
    inline: dict[str, str] = Field(default_factory=dict)


class ImpactResult(BaseModel):
    workflow_id: str
    repo: str
    base_sha: str
    head_sha: str
    score: int
    level: RiskLevel
    report_key: str
    markdown_key: str
    sarif_key: str
    llm: LlmOutcome
    comment_url: str | None = None
    comment_created: bool | None = None
    cost_usd: float = 0.0
    inline: dict[str, str] = Field(
        default_factory=dict,
        description="Small renderings by format (md, json, sarif), so clients need no store",
    )
