"""The review layer's two agents: the adversary and the cross-reference resolver.

Both read findings as they stream in from reviewers, in passes: each pass
sees the findings that arrived since the last one, with the earlier ones for
reference. The adversary confirms or challenges each finding (code turns that
into multipliers) and reports traps everyone missed; the resolver reports
compound risks that combine findings of different reviewers, and may ask for
a few deep dives, which run as the one reviewer definition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from prflow.impact.llm_phase import model_text
from prflow.llm.messages import ToolSpec
from prflow.review.agents.finding_input import (
    FINDING_PROPERTIES,
    FINDING_REQUIRED,
    FINDING_SCHEMA,
    parse_findings,
    path_list,
)
from prflow.review.agents.prompts import load_prompt
from prflow.review.agents.reviewer import InvestigationRequest
from prflow.review.agents.schemas import QUESTION_ITEM
from prflow.review.models import FindingSource, ReviewFinding
from prflow.review.synthesis import AI_GENERATED_THRESHOLD, AdversaryVerdict, VerdictKind
from prflow.text_lines import split_lines

MAX_BODY_SHOWN = 600
MAX_REASON_CHARS = 400
MAX_EARLIER_SHOWN = 60
CODE_MARGIN_LINES = 8
"""Lines shown above and below a finding's cited lines, for the adversary to judge from."""
MAX_CODE_LINES_PER_FINDING = 40
MAX_CODE_LINES_SHOWN = 400
"""All findings of one message together: beyond it, the adversary reads the code itself."""
MAX_CODE_LINE_CHARS = 200
ADVERSARY_DIMENSION = ("adversary", "Adversarial review")
CROSS_REF_DIMENSION = ("cross-ref", "Cross-reference resolver")


class LayerRole(StrEnum):
    adversary = "adversary"
    cross_ref = "cross_ref"


SUBMIT_CHALLENGES = ToolSpec(
    name="submit_challenges",
    description="Submit your verdicts on the new findings and any traps all reviewers missed.",
    input_schema={
        "type": "object",
        "properties": {
            "verdicts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "verdict": {"type": "string", "enum": [v.value for v in VerdictKind]},
                        "reason": {"type": "string"},
                    },
                    "required": ["id", "verdict", "reason"],
                },
            },
            "missed": {"type": "array", "items": FINDING_SCHEMA},
        },
        "required": ["verdicts", "missed"],
    },
)

SUBMIT_INTERACTIONS = ToolSpec(
    name="submit_interactions",
    description="Submit compound risks between findings, and deep dives you need.",
    input_schema={
        "type": "object",
        "properties": {
            "compounds": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "ids": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                        **FINDING_PROPERTIES,
                    },
                    "required": ["ids", *FINDING_REQUIRED],
                },
            },
            "deep_dives": {"type": "array", "items": QUESTION_ITEM},
        },
        "required": ["compounds", "deep_dives"],
    },
)

TOOL_OF: dict[LayerRole, ToolSpec] = {
    LayerRole.adversary: SUBMIT_CHALLENGES,
    LayerRole.cross_ref: SUBMIT_INTERACTIONS,
}


def layer_system(role: LayerRole, ai_generated: float) -> str:
    if role == LayerRole.cross_ref:
        return load_prompt("cross_ref")
    ai_rule = ""
    if ai_generated > AI_GENERATED_THRESHOLD:
        ai_rule = (
            f"\nCode signals say this change is likely AI-generated ({ai_generated:.2f}): be "
            "extra sceptical. Check that imported modules and called functions exist, that "
            "abstractions earn their keep, and that tests assert meaningful behaviour.\n"
        )
    return load_prompt("adversary").replace("{ai_rule}", ai_rule)


def cited_lines(
    text: str,
    start: int,
    end: int,
    *,
    margin: int = CODE_MARGIN_LINES,
    max_lines: int = MAX_CODE_LINES_PER_FINDING,
) -> list[str]:
    """The lines ``start..end`` of ``text`` with ``margin`` lines each side, numbered as
    ``read_file_at_ref`` numbers them, at most ``max_lines`` (centred on the cited lines);
    empty when the cited lines lie outside the file."""
    lines = split_lines(text)
    if start < 1 or start > len(lines):
        return []
    end = min(max(end, start), len(lines))
    first, last = max(1, start - margin), min(len(lines), end + margin)
    if last - first + 1 > max_lines:  # a long span: keep its start, where the finding points
        first = max(1, start - min(margin, max_lines // 4))
        last = first + max_lines - 1
    width = len(str(last))
    return [f"{number:>{width}}| {_clip(lines[number - 1])}" for number in range(first, last + 1)]


def _clip(line: str) -> str:
    return line if len(line) <= MAX_CODE_LINE_CHARS else line[:MAX_CODE_LINE_CHARS] + "…"


def code_budget(
    excerpts: Sequence[list[str]], limit: int = MAX_CODE_LINES_SHOWN
) -> list[list[str]]:
    """The excerpts in order while their lines fit ``limit`` together; later ones empty."""
    kept: list[list[str]] = []
    used = 0
    for excerpt in excerpts:
        fits = used + len(excerpt) <= limit
        kept.append(excerpt if fits else [])
        used += len(excerpt) if fits else 0
    return kept


def describe_finding(finding: ReviewFinding, code: Sequence[str] = ()) -> str:
    """How a finding is shown to the layer's agents (its id is its fingerprint), with the
    code around its cited lines when given."""
    ref = "base" if finding.side.value == "LEFT" else "head"
    lines = (
        f"{finding.line_start}"
        if finding.line_start == finding.line_end
        else f"{finding.line_start}-{finding.line_end}"
    )
    body = (
        finding.body if len(finding.body) <= MAX_BODY_SHOWN else finding.body[:MAX_BODY_SHOWN] + "…"
    )
    evidence = f"\nEvidence: `{finding.evidence}`" if finding.evidence else ""
    shown = f"\nCode at {ref}:\n```\n" + "\n".join(code) + "\n```" if code else ""
    return (
        f"[{finding.fingerprint}] {finding.severity.value}/{finding.category.value} · "
        f"{finding.file}:{lines} ({ref}) · by {finding.dimension_name}\n"
        f"{finding.title}\n{body}{evidence}{shown}"
    )


def finding_reference(finding: ReviewFinding) -> str:
    """One line naming a finding a layer agent saw in full in an earlier pass: the full text
    goes to the layer once, not again with every later pass."""
    return (
        f"[{finding.fingerprint}] {finding.severity.value}/{finding.category.value} · "
        f"{finding.file}:{finding.line_start} · {finding.title}"
    )


def _new_findings(
    heading: str, new: Sequence[ReviewFinding], code: Mapping[str, Sequence[str]]
) -> str:
    shown = "\n\n".join(describe_finding(f, code.get(f.fingerprint, ())) for f in new)
    return f"{heading} ({len(new)}):\n\n{shown}"


def _ask(role: LayerRole, deep_dives_left: int) -> list[str]:
    if role == LayerRole.cross_ref:
        return [
            f"Deep dives left for the whole review: {deep_dives_left}.",
            "Look for interactions, then call submit_interactions.",
        ]
    return ["Judge the new findings, hunt for missed traps, then call submit_challenges."]


def layer_message(
    role: LayerRole,
    new: Sequence[ReviewFinding],
    earlier: Sequence[ReviewFinding],
    *,
    title: str,
    hints: Sequence[str],
    deep_dives_left: int,
    code: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """A pass's first message: the new findings in full (with the code around their cited
    lines when ``code`` has it, by fingerprint), the earlier ones in one line each."""
    parts = [f"Pull request: {title or '(untitled)'}"]
    parts.append(_new_findings("New findings", new, code or {}))
    if earlier:  # shown whole in the pass they arrived in; here one line each
        shown = earlier[:MAX_EARLIER_SHOWN]
        more = len(earlier) - len(shown)
        parts.append(
            f"Earlier findings ({len(earlier)}, already judged; for reference):\n"
            + "\n".join(finding_reference(f) for f in shown)
            + (f"\n... and {more} more." if more > 0 else "")
        )
    if role == LayerRole.cross_ref and hints:
        parts.append("Planner's hints:\n" + "\n".join(f"- {h}" for h in hints))
    return "\n\n".join([*parts, *_ask(role, deep_dives_left)])


def layer_followup(
    role: LayerRole,
    new: Sequence[ReviewFinding],
    *,
    deep_dives_left: int,
    code: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """A later pass as the next message of the same conversation: only the findings that
    arrived since the last submission (the earlier ones are above, in full)."""
    heading = "New findings since your last submission"
    return "\n\n".join([_new_findings(heading, new, code or {}), *_ask(role, deep_dives_left)])


class LayerReport(BaseModel):
    """What one pass of a layer agent produced, typed."""

    verdicts: list[AdversaryVerdict] = Field(default_factory=list)
    findings: list[ReviewFinding] = Field(
        default_factory=list, description="Missed traps (adversary) or compound risks (cross-ref)"
    )
    compound_of: list[list[str]] = Field(
        default_factory=list, description="For each compound finding, the fingerprints it combines"
    )
    deep_dives: list[InvestigationRequest] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


def parse_layer(
    role: LayerRole, submitted: dict[str, Any] | None, known_ids: set[str]
) -> LayerReport:
    if not submitted:
        return LayerReport(problems=[f"the {role.value} submitted nothing"])
    if role == LayerRole.adversary:
        return _parse_adversary(submitted, known_ids)
    return _parse_cross_ref(submitted, known_ids)


def _parse_adversary(submitted: dict[str, Any], known_ids: set[str]) -> LayerReport:
    verdicts: list[AdversaryVerdict] = []
    raw = submitted.get("verdicts")
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict) or item.get("id") not in known_ids:
            continue
        try:
            kind = VerdictKind(str(item.get("verdict")))
        except ValueError:
            continue
        verdicts.append(
            AdversaryVerdict(
                fingerprint=str(item["id"]),
                verdict=kind,
                reason=model_text(item.get("reason") or "", MAX_REASON_CHARS),
            )
        )
    dimension_id, dimension_name = ADVERSARY_DIMENSION
    missed, problems = parse_findings(
        submitted.get("missed"),
        dimension_id=dimension_id,
        dimension_name=dimension_name,
        source=FindingSource.adversary,
    )
    return LayerReport(verdicts=verdicts, findings=missed, problems=problems)


def _parse_cross_ref(submitted: dict[str, Any], known_ids: set[str]) -> LayerReport:
    raw = submitted.get("compounds")
    items = [c for c in raw if isinstance(c, dict)] if isinstance(raw, list) else []
    dimension_id, dimension_name = CROSS_REF_DIMENSION
    report = LayerReport()
    for item in items:
        ids = [i for i in item.get("ids") or [] if isinstance(i, str) and i in known_ids]
        if len(set(ids)) < 2:
            report.problems.append("a compound risk that cites fewer than two known findings")
            continue
        parsed, problems = parse_findings(
            [item],
            dimension_id=dimension_id,
            dimension_name=dimension_name,
            source=FindingSource.cross_ref,
        )
        report.problems += problems
        if parsed:
            report.findings.append(parsed[0])
            report.compound_of.append(sorted(set(ids)))
    dives = submitted.get("deep_dives")
    for item in dives if isinstance(dives, list) else []:
        if isinstance(item, dict) and isinstance(item.get("question"), str):
            question = model_text(item["question"], 2_000)
            if question:
                report.deep_dives.append(
                    InvestigationRequest(
                        question=question, files=path_list(item.get("files"), limit=10)
                    )
                )
    return report
