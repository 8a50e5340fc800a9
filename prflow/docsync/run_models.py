"""Inputs, outputs and stage models of the ``docsync`` workflow (what crosses Temporal).

Findings, patches and renderings travel as blob keys; these models stay small.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from prflow.agent.messages import PreparedPrompt
from prflow.agent.plan import PhasePlan
from prflow.credentials import SafeLocation
from prflow.docsync.models import Bucket, Thresholds
from prflow.pr_identifier import PullRequestRef
from prflow.repo_models import ResolvedRange
from prflow.task_queues import recorded_queue
from prflow.workspace.models import WorkspaceRef

WORKFLOW_KIND = "docsync"
AGENT_PHASE = "docsync"
"""Budget and ledger phase of the per-doc agents."""
DOCSYNC_COMMENT_MARKER = "<!-- prflow:docsync -->"


class DocsyncRequest(BaseModel):
    """One doc sync: a repository and two refs, or a pull request, and what to do with edits."""

    model_config = ConfigDict(hide_input_in_errors=True)

    repo: SafeLocation | None = Field(default=None, description="Local path or clone URL")
    pull_request: PullRequestRef | None = None
    base: str | None = None
    head: str | None = None
    docs: list[str] = Field(default_factory=list, description="Doc globs; empty: the defaults")
    thresholds: Thresholds = Field(default_factory=Thresholds)
    llm: PhasePlan
    max_docs: int = Field(default=20, ge=0, description="Agents for at most this many docs")
    max_concurrency: int = Field(default=4, ge=1, description="Doc agents running at once")
    apply: bool = False
    branch: str | None = None
    post_comment: bool = False
    open_pr: bool = False
    github_task_queue: str | None = recorded_queue()


class FindInput(BaseModel):
    range: ResolvedRange
    changes_key: str
    static_key: str
    docs: list[str] = Field(default_factory=list)
    thresholds: Thresholds = Field(default_factory=Thresholds)


class DocToEdit(BaseModel):
    path: str
    bucket: Bucket
    score: float


class FindSummary(BaseModel):
    findings_key: str
    docs_scanned: int
    counts: dict[str, int]
    to_edit: list[DocToEdit]
    targets: int


class DocStatus(StrEnum):
    edited = "edited"
    unchanged = "unchanged"
    skipped = "skipped"
    failed = "failed"


class DocOutcome(BaseModel):
    """What the agent of one doc did; ``reason`` is model text when an agent ran."""

    path: str
    status: DocStatus
    reason: str = ""
    model_text: bool = False
    edits: int = 0
    patch_keys: list[str] = Field(default_factory=list)
    turns: int = 0
    cost_usd: float = 0.0


class DocsyncResult(BaseModel):
    workflow_id: str
    repo: str
    base_sha: str
    head_sha: str
    counts: dict[str, int]
    docs_scanned: int
    outcomes: list[DocOutcome] = Field(default_factory=list)
    edits_skipped: str | None = Field(
        default=None, description="Why no agent ran (static mode), when none did"
    )
    report_key: str
    markdown_key: str
    comment_key: str
    patch_key: str | None = Field(default=None, description="All edits as one unified diff")
    applied: bool | None = None
    apply_message: str | None = None
    branch: str | None = None
    branch_commit: str | None = Field(default=None, description="The commit --branch made")
    branch_refused: str | None = Field(
        default=None, description="Why --branch made no commit (one line for the user)"
    )
    pr_url: str | None = None
    comment_url: str | None = None
    cost_usd: float = 0.0
    inline: dict[str, str] = Field(default_factory=dict)

    @property
    def edits(self) -> int:
        return sum(o.edits for o in self.outcomes)


class ReportInput(BaseModel):
    """Everything the report step needs, by key."""

    workflow_id: str
    range: ResolvedRange
    findings_key: str
    outcomes: list[DocOutcome] = Field(default_factory=list)
    workspaces: dict[str, WorkspaceRef] = Field(
        default_factory=dict, description="Final workspace of each edited doc"
    )
    edits_skipped: str | None = None
    applied: bool | None = None
    apply_message: str | None = None
    branch: str | None = None
    pr_url: str | None = None


class ReportRefs(BaseModel):
    report_key: str
    markdown_key: str
    comment_key: str
    patch_key: str | None = None
    edits: int = 0
    inline: dict[str, str] = Field(default_factory=dict)


class PromptsInput(BaseModel):
    range: ResolvedRange
    findings_key: str
    docs: list[str]
    edit_tool: str


class DocPrompt(BaseModel):
    path: str
    prompt: PreparedPrompt


class CollectInput(BaseModel):
    """The final workspace of each doc's agent (None: it never edited)."""

    workspaces: dict[str, WorkspaceRef | None]
    start: WorkspaceRef | None = Field(
        default=None, description="The workspace every agent started from"
    )


class CollectResult(BaseModel):
    patch_keys: dict[str, list[str]] = Field(default_factory=dict)
    combined: WorkspaceRef | None = Field(
        default=None, description="One workspace holding every doc's edits (for a draft PR)"
    )
