"""The one reviewer definition: the same system prompt and tools, a crafted prompt per dimension.

Dimensions from the planner, gap dimensions from the coverage gate, the
investigations a reviewer asks for and the cross-reference resolver's deep
dives all run as this reviewer; only the first message differs. Sharing the
system prompt and tools also shares their prompt-cache prefix across every
reviewer of a run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from prflow.impact.llm_phase import model_text
from prflow.llm.messages import ToolSpec
from prflow.review.agents.finding_input import FINDING_SCHEMA, parse_findings, path_list
from prflow.review.agents.schemas import QUESTION_ITEM
from prflow.review.models import Dimension, FindingSource, ReviewFinding

MAX_INVESTIGATIONS = 2
MAX_REFERENCE_HOPS = 3
"""Files outside its target and context files a reviewer may open (reference following)."""
MAX_DIFF_CHARS = 40_000
QUESTION_DIFF_CHARS = 12_000
"""Hunks shown to an investigation or deep dive: it answers one question within a smaller
token share (:data:`prflow.review.depth_limits.QUESTION_SHARE`), so a first message of a
planned reviewer's size would leave it no turn to read; a target not shown is fetched."""
QUESTION_SOURCES = frozenset({FindingSource.investigation, FindingSource.cross_ref})
HUNK_CONTEXT_LINES = 12
"""Context around each hunk a reviewer is shown: enough to judge most changes without
reading the whole file (it reads more with ``read_file_at_ref`` windows)."""
MAX_LISTED_FILES = 200
MAX_QUESTION_CHARS = 2_000

SUBMIT_FINDINGS = ToolSpec(
    name="submit_findings",
    description=(
        "Finish your review: the findings you verified (possibly none) and at most two "
        "investigations you need someone to carry out. Call exactly once."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "summary": {"type": "string", "description": "One or two sentences."},
            "findings": {"type": "array", "items": FINDING_SCHEMA},
            "investigations": {
                "type": "array",
                "maxItems": MAX_INVESTIGATIONS,
                "items": QUESTION_ITEM,
            },
        },
        "required": ["findings"],
    },
)


REQUEST_INVESTIGATION = ToolSpec(
    name="request_investigation",
    description=(
        "Ask for an investigation the moment you know you need one (at most two in all): "
        "another reviewer starts on it at once, beside you, and its findings join the "
        "review. Then carry on with your own work."
    ),
    input_schema=QUESTION_ITEM,
)


class InvestigationRequest(BaseModel):
    question: str
    files: list[str] = Field(default_factory=list)


class ReviewerReport(BaseModel):
    findings: list[ReviewFinding] = Field(default_factory=list)
    investigations: list[InvestigationRequest] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    summary: str = ""


def shared_context(
    *,
    title: str,
    context_note: str,
    range_note: str,
    reviewable: Sequence[str],
    not_reviewed: Sequence[str],
) -> str:
    """What every reviewer of the run is told about the PR, byte for byte the same for each,
    so it is one prompt-cache prefix (after tools and system) that all of them read."""
    parts = [f"# The pull request\n{title or '(untitled)'}"]
    if range_note:
        parts.append(range_note)
    if context_note:
        parts.append(f"What the rest of the review knows about this PR:\n{context_note}")
    shown = list(reviewable[:MAX_LISTED_FILES])
    more = len(reviewable) - len(shown)
    parts.append(
        f"Files under review ({len(reviewable)}):\n"
        + "\n".join(f"- {p}" for p in shown)
        + (f"\n... and {more} more" if more > 0 else "")
    )
    if not_reviewed:
        parts.append(
            "Not reviewed (generated, vendored, binary or too large): "
            + ", ".join(not_reviewed[:MAX_LISTED_FILES])
            + (" ..." if len(not_reviewed) > MAX_LISTED_FILES else "")
        )
    return "\n\n".join(parts)


def reviewer_message(dimension: Dimension, *, diffs: Mapping[str, str]) -> str:
    """The own part of one reviewer's first message: its crafted prompt, its files, and their
    hunks with wide context (the shared PR context comes before it)."""
    parts = [
        f"# Your review dimension: {dimension.name}",
        dimension.prompt,
        "Target files (examine each):\n" + "\n".join(f"- {p}" for p in dimension.target_files),
    ]
    if dimension.context_files:
        parts.append(
            "Context files (read for reference):\n"
            + "\n".join(f"- {p}" for p in dimension.context_files)
        )
    shown = []
    budget = QUESTION_DIFF_CHARS if dimension.source in QUESTION_SOURCES else MAX_DIFF_CHARS
    for path in dimension.target_files:
        diff = diffs.get(path, "")
        if not diff:
            continue
        if len(diff) > budget:
            shown.append(f"(diff of {path} not shown: fetch it with git_diff)")
            continue
        shown.append(diff)
        budget -= len(diff)
    if shown:
        parts.append(
            f"Hunks of your target files, with {HUNK_CONTEXT_LINES} lines of context "
            "(line numbers at head in each `@@ +start` header):\n```diff\n"
            + "\n".join(shown)
            + "\n```"
        )
    parts.append("Review, then call submit_findings.")
    return "\n\n".join(parts)


def parse_investigations(raw: object) -> list[InvestigationRequest]:
    """Investigation requests as a reviewer wrote them; malformed ones are dropped."""
    requests: list[InvestigationRequest] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            continue
        question = model_text(item["question"], MAX_QUESTION_CHARS)
        if question:
            requests.append(
                InvestigationRequest(
                    question=question, files=path_list(item.get("files"), limit=10)
                )
            )
    return requests


def parse_report(
    submitted: dict[str, Any] | None, dimension: Dimension, source: FindingSource
) -> ReviewerReport:
    """The findings and investigation requests a reviewer submitted."""
    if not submitted:
        return ReviewerReport(problems=["the reviewer submitted no findings list"])
    findings, problems = parse_findings(
        submitted.get("findings"),
        dimension_id=dimension.id,
        dimension_name=dimension.name,
        source=source,
    )
    requests = parse_investigations(submitted.get("investigations"))
    if len(requests) > MAX_INVESTIGATIONS:
        problems.append(f"only the first {MAX_INVESTIGATIONS} investigations were run")
    return ReviewerReport(
        findings=findings,
        investigations=requests[:MAX_INVESTIGATIONS],
        problems=problems,
        summary=model_text(submitted.get("summary") or "", 500),
    )


def investigation_dimension(
    parent: Dimension,
    request: InvestigationRequest,
    number: int,
    source: FindingSource = FindingSource.investigation,
) -> Dimension:
    """A reviewer answering one question raised by ``parent`` (a reviewer, or the
    cross-reference resolver), credited to it."""
    files = request.files or parent.target_files
    return Dimension(
        id=f"{parent.id}-i{number}",
        name=parent.name,
        prompt=(
            f"The {parent.name!r} part of the review needs this investigated before it can "
            f"conclude:\n\n{request.question}\n\nAnswer it by reading the code, and report as "
            "findings only problems this pull request introduces."
        ),
        target_files=files[:10],
        context_files=[p for p in parent.target_files if p not in files][:10],
        priority=parent.priority,
        source=source,
    )
