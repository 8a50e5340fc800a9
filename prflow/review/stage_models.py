"""Arguments and results of the review activities: keys, counts and small typed values.

Findings, the computed structure and rendered outputs live in the blob store;
these models stay a few KiB so workflow history stays small.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from prflow.agent.budget import Spend
from prflow.impact.run_models import ChangeSet
from prflow.llm.messages import MessageRef
from prflow.pr_identifier import PullRequestRef
from prflow.repo_models import ResolvedRange
from prflow.review.agents.layer import LayerRole
from prflow.review.agents.reviewer import InvestigationRequest
from prflow.review.depth_limits import ReviewSize
from prflow.review.models import (
    Dimension,
    IntakeResult,
    PrMetadata,
    ReviewDepth,
    ReviewPlan,
    SemanticAnatomy,
)
from prflow.review.pull_patches import PullPatches
from prflow.review.synthesis import AdversaryVerdict, ReviewEvent
from prflow.run_progress import PhaseState

# ---------------------------------------------------------------- history and scope


class ReviewHistory(BaseModel):
    """What earlier prflow reviews left on the PR, and the PR's own words."""

    last_head_sha: str | None = None
    posted_fingerprints: list[str] = Field(default_factory=list)
    resolved_fingerprints: list[str] = Field(default_factory=list)
    open_fingerprints: list[str] = Field(default_factory=list)
    metadata: PrMetadata = Field(default_factory=PrMetadata)


class ScopeInput(BaseModel):
    range: ResolvedRange
    last_head_sha: str | None = None


class ReviewScope(BaseModel):
    """What the reviewers read: the whole PR, or only the commits since the last review."""

    review_range: ResolvedRange
    incremental: bool = False
    nothing_new: bool = False
    note: str = ""


# ---------------------------------------------------------------- anatomy and facts


class FactsInput(BaseModel):
    range: ResolvedRange
    scope: ReviewScope
    changes: ChangeSet
    static_key: str
    metadata: PrMetadata


class ReviewFacts(BaseModel):
    """What every later step reads: stored as one blob (``facts_key``)."""

    metadata: PrMetadata
    reviewable: list[str]
    not_reviewed: list[dict[str, Any]]
    code_intake: IntakeResult
    known_paths: list[str]
    renamed_from: dict[str, str] = Field(
        default_factory=dict, description="Head path -> base path of each renamed file"
    )


class FactsRefs(BaseModel):
    facts_key: str
    structure_key: str
    code_intake: IntakeResult
    reviewable: int
    not_reviewed: int
    files: int
    clusters: int
    blast_radius: int
    high_blast_files: list[str] = Field(default_factory=list)
    title: str = ""
    size: ReviewSize | None = Field(
        default=None, description="The reviewable change's size: the review's bounds follow it"
    )


# ---------------------------------------------------------------- agents


class AgentPromptInput(BaseModel):
    """Prepare one agent's prompt from the run's facts (and what the agent needs besides)."""

    facts_key: str
    structure_key: str
    intake: IntakeResult | None = None
    semantic: SemanticAnatomy | None = None
    depth: ReviewDepth = ReviewDepth.standard
    escalation: bool = False
    review_range: ResolvedRange | None = Field(
        default=None, description="Where anatomy is shown the diffs of the largest changes"
    )
    size: ReviewSize | None = Field(
        default=None, description="The planner's bounds follow this change (none: the depth's)"
    )


class PlanInput(BaseModel):
    facts_key: str
    structure_key: str
    submitted: dict[str, Any] | None
    depth: ReviewDepth
    intake: IntakeResult
    planner_problem: str | None = None
    size: ReviewSize | None = None


class ReviewerPromptsInput(BaseModel):
    facts_key: str
    review_range: ResolvedRange
    dimensions: list[Dimension]
    intake: IntakeResult
    semantic: SemanticAnatomy | None = None
    range_note: str = ""


class IngestInput(BaseModel):
    """A reviewer's (or investigator's) submission, to check and store."""

    submitted: dict[str, Any] | None
    dimension: Dimension
    range: ResolvedRange = Field(description="What the agent read (the review's range)")
    pr_base_sha: str = Field(description="The PR diff's base: where deleted lines are placed")


class FindingBatch(BaseModel):
    """Findings of one agent, stored; the workflow streams keys to the review layer."""

    key: str
    count: int
    fingerprints: list[str] = Field(default_factory=list)
    investigations: list[InvestigationRequest] = Field(default_factory=list)
    rejected: list[str] = Field(default_factory=list)
    examined: list[str] = Field(default_factory=list)


class LayerContinuation(BaseModel):
    """The conversation of a layer agent's previous pass, which the next pass continues."""

    transcript_key: str | None = None
    transcript: list[MessageRef] = Field(default_factory=list)
    terminal_tool: str
    max_chars: int | None = Field(
        default=None,
        description="Continue only a conversation of at most this many characters (the "
        "pass's token share allows); a larger one starts fresh",
    )


class LayerPromptInput(BaseModel):
    role: LayerRole
    new_keys: list[str]
    earlier_keys: list[str]
    title: str
    hints: list[str] = Field(default_factory=list)
    ai_generated: float = 0.0
    deep_dives_left: int = 0
    range: ResolvedRange | None = Field(
        default=None, description="Where the adversary is shown the code its findings cite"
    )
    continue_from: LayerContinuation | None = None


class LayerIngestInput(BaseModel):
    role: LayerRole
    submitted: dict[str, Any] | None
    new_keys: list[str]
    earlier_keys: list[str]
    range: ResolvedRange
    pr_base_sha: str


class LayerBatch(BaseModel):
    verdicts: list[AdversaryVerdict] = Field(default_factory=list)
    findings: FindingBatch | None = None
    compound_fingerprints: list[str] = Field(default_factory=list)
    deep_dives: list[InvestigationRequest] = Field(default_factory=list)
    rejected: list[str] = Field(default_factory=list)


class CoverageInput(BaseModel):
    facts_key: str
    structure_key: str
    pr_type: str
    examined_by: dict[str, list[str]]


class GapInput(BaseModel):
    facts_key: str
    submitted: dict[str, Any] | None
    iteration: int


# ---------------------------------------------------------------- synthesis and output


class PhaseOutcome(BaseModel):
    """How one phase of the review ended, for the report."""

    name: str
    state: PhaseState
    detail: str = ""
    spent: Spend = Field(default_factory=Spend)


class SynthesisInput(BaseModel):
    range: ResolvedRange
    scope: ReviewScope
    pull_request: PullRequestRef | None
    changes: ChangeSet
    static_key: str
    facts_key: str
    structure_key: str
    batch_keys: list[str]
    verdicts: list[AdversaryVerdict] = Field(default_factory=list)
    compound_fingerprints: list[str] = Field(default_factory=list)
    intake: IntakeResult
    semantic: SemanticAnatomy | None = None
    plan: ReviewPlan | None = None
    examined: list[str] = Field(default_factory=list)
    rejected: list[str] = Field(default_factory=list)
    phases: list[PhaseOutcome] = Field(default_factory=list)
    history: ReviewHistory = Field(default_factory=ReviewHistory)
    depth: ReviewDepth = ReviewDepth.standard
    used_model: bool = False
    workflow_id: str
    run_marker: str = Field(description="Hidden in the review body: a retried post finds it")
    cost_usd: float = 0.0
    github_patches: PullPatches | None = Field(
        default=None, description="A PR run: GitHub's per-file patches, where findings are placed"
    )


class SynthesisRefs(BaseModel):
    """The review's outputs by blob key, and what the workflow needs to report and post."""

    event: ReviewEvent
    findings: int
    inline_comments: int
    body_findings: int
    by_severity: dict[str, int]
    risk_score: int
    risk_level: str
    complete: bool
    report_key: str
    markdown_key: str
    sarif_key: str
    review_key: str = Field(description="JSON payload of the GitHub review (body, event, comments)")
    summary_key: str = Field(description="Markdown of the sticky summary comment")
    run_marker: str
    fingerprints: list[str] = Field(default_factory=list, description="Posted with this review")
    inline: dict[str, str] = Field(default_factory=dict)


class PostReviewInput(BaseModel):
    pr: PullRequestRef
    commit_sha: str
    review_key: str
    run_marker: str = Field(description="Hidden marker that makes a retried post find its review")


class PostedReview(BaseModel):
    review_id: int
    url: str
    inline_comments: int
    created: bool
    inline_refused: bool = Field(
        default=False, description="GitHub refused the inline comments; they went to the body"
    )
    moved_to_body: int = Field(
        default=0, description="Inline comments GitHub would refuse, listed in the body instead"
    )


class MarksInput(BaseModel):
    repo: str
    pr_number: int
    head_sha: str = ""
    fingerprints: list[str] = Field(default_factory=list)
    workflow_id: str = ""


class StoredMarks(BaseModel):
    head_sha: str | None = None
    fingerprints: list[str] = Field(default_factory=list)
