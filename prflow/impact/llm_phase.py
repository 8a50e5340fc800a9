"""The model's part of an impact analysis: its prompt and what it may submit.

The system prompt is package data (one source for the CLI, the Action and the
MCP server); the first message is built by ``agent_context``. The model ends
its run by calling ``submit_impact_findings``; this module turns that call into
typed findings and the loop's outcome into the report's LLM section.

Everything the model writes is untrusted: text inside a pull request can steer
it. So its prose is bounded in size and stripped of control characters here,
kept apart from the computed score (``LlmOutcome`` has no score field), and
labelled as model-written by every renderer.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

from pydantic import ValidationError

from prflow.agent.budget import Spend
from prflow.agent.outcome import AgentOutcome, StopReason
from prflow.impact.agent_context import MAX_CONTEXT_FILES
from prflow.impact.models import FindingCategory, LargePrStrategy, LlmFinding, LlmOutcome, LlmStatus
from prflow.llm.messages import ToolSpec
from prflow.severity import Severity
from prflow.tools.changed_files import NAME as CHANGED_FILES_TOOL
from prflow.tools.registry import TOOL_SPECS

MAX_RECOMMENDATIONS = 6
MAX_FINDINGS = 50
MAX_PROBLEM_CHARS = 300
MAX_SUMMARY_CHARS = 2_000
MAX_RECOMMENDATION_CHARS = 600
MAX_TITLE_CHARS = 200
MAX_EXPLANATION_CHARS = 2_000

# C0/C1 controls other than tab and newline, and bidi overrides that can disguise text.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

SUBMIT_TOOL = ToolSpec(
    name="submit_impact_findings",
    description=(
        "End the analysis, once: a short summary, the findings you verified (each citing "
        "file, line, ref and exact evidence) and recommendations."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "summary": {"type": "string", "description": "Two to four sentences."},
            "findings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string"},
                        "category": {"type": "string", "enum": [c.value for c in FindingCategory]},
                        "severity": {"type": "string", "enum": [s.value for s in Severity]},
                        "file": {"type": "string"},
                        "line": {"type": "integer"},
                        "ref": {"type": "string", "enum": ["head", "base"]},
                        "evidence": {"type": "string"},
                        "explanation": {"type": "string"},
                    },
                    "required": [
                        "title",
                        "category",
                        "severity",
                        "file",
                        "line",
                        "evidence",
                        "explanation",
                    ],
                },
            },
            "recommendations": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["summary", "findings", "recommendations"],
    },
)


LARGE_PR_SECTION = "# Large pull requests\n{large_pr_guidance}\n\n"


def large_pr_guidance(strategy: LargePrStrategy) -> str:
    """The prompt paragraph for a large PR's shortcuts; empty for a PR read in full."""
    lines: list[str] = []
    if strategy.read_full_files_only_above_lines is not None:
        lines.append(
            f"This PR changes {strategy.changed_files} files. Read whole files only when more "
            f"than {strategy.read_full_files_only_above_lines} lines of them changed; otherwise "
            "the per-file diff is enough."
        )
    if strategy.source_files_only:
        lines.append("Look at source files only; skip the documentation review.")
    return " ".join(lines)


AGENT_FINISH = f"When you are done, call `{SUBMIT_TOOL.name}` once."
"""How the agent ends the method; the editor skill ends it with the report instead."""
AGENT_STATIC_RESULTS = "its results are in the first message"


def lists_every_file(strategy: LargePrStrategy) -> bool:
    """Whether the first message holds the whole change list (then its tool is not offered)."""
    return strategy.changed_files <= MAX_CONTEXT_FILES


def agent_tools(strategy: LargePrStrategy) -> list[ToolSpec]:
    """The repository tools the agent needs for this PR, and the submit tool."""
    tools = [tool for tool in TOOL_SPECS if tool.name != CHANGED_FILES_TOOL]
    if not lists_every_file(strategy):
        tools = list(TOOL_SPECS)
    return [*tools, SUBMIT_TOOL]


def system_prompt(strategy: LargePrStrategy) -> str:
    template = resources.files("prflow").joinpath("prompts/impact_system.md").read_text("utf-8")
    guidance = large_pr_guidance(strategy)
    if not guidance:  # a small PR: the section would only say so, in every request
        template = template.replace(LARGE_PR_SECTION, "")
    return (
        template.replace("{large_pr_guidance}", guidance)
        .replace("{static_results}", AGENT_STATIC_RESULTS)
        .replace("{finish}", AGENT_FINISH)
    )


def model_text(value: object, limit: int) -> str:
    """Model prose made safe to store and show: no control characters, at most ``limit`` chars."""
    text = _CONTROL.sub("", str(value).replace("\r\n", "\n").replace("\r", "\n")).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def parse_findings(submitted: dict[str, Any]) -> tuple[list[LlmFinding], list[str]]:
    """Typed findings from the submit call, plus why malformed ones were dropped."""
    findings: list[LlmFinding] = []
    problems: list[str] = []
    raw = submitted.get("findings")
    if not isinstance(raw, list):
        return findings, ["findings was not a list"] if raw is not None else []
    if len(raw) > MAX_FINDINGS:
        problems.append(
            f"{len(raw) - MAX_FINDINGS} findings beyond the first {MAX_FINDINGS} were not checked"
        )
    for index, item in enumerate(raw[:MAX_FINDINGS]):
        try:
            finding = LlmFinding.model_validate(_without_origin(item))
            findings.append(
                finding.model_copy(
                    update={
                        "title": model_text(finding.title, MAX_TITLE_CHARS),
                        "explanation": model_text(finding.explanation, MAX_EXPLANATION_CHARS),
                    }
                )
            )
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            problem = f"finding {index + 1}: {where}: {first['msg']}"
            problems.append(model_text(problem, MAX_PROBLEM_CHARS))
    return findings, problems


def _without_origin(item: object) -> object:
    """A finding's fields minus any ``origin`` the model wrote: only prflow says who wrote what."""
    if isinstance(item, dict):
        return {key: value for key, value in item.items() if key != "origin"}
    return item


def outcome_from_agent(
    outcome: AgentOutcome,
    model: str,
    spent: Spend,
    *,
    findings: list[LlmFinding],
    rejected: list[str],
) -> LlmOutcome:
    """The report's LLM section from the agent loop's outcome."""
    submitted: dict[str, Any] = outcome.terminal_input or {}
    raw_recommendations = submitted.get("recommendations")
    if not isinstance(raw_recommendations, list):
        raw_recommendations = [raw_recommendations] if raw_recommendations else []
    recommendations = [
        text
        for text in (model_text(r, MAX_RECOMMENDATION_CHARS) for r in raw_recommendations)
        if text
    ][:MAX_RECOMMENDATIONS]
    summary = model_text(submitted.get("summary") or outcome.final_text or "", MAX_SUMMARY_CHARS)
    if outcome.completed:
        status, reason = LlmStatus.completed, ""
        if outcome.terminal_input is None:
            reason = "the model answered without submitting structured findings"
    elif outcome.stop == StopReason.llm_error:
        status, reason = LlmStatus.failed, f"model call failed: {outcome.detail}"
    else:
        status = LlmStatus.stopped
        reason = f"analysis terminated early ({outcome.detail}); results may be incomplete"
    return LlmOutcome(
        status=status,
        reason=reason,
        model=model,
        summary=summary or None,
        recommendations=recommendations,
        findings=findings,
        rejected_findings=rejected,
        iterations=outcome.iterations,
        cost_usd=round(spent.usd, 6),
        input_tokens=spent.input_tokens + spent.cache_read_tokens + spent.cache_write_tokens,
        output_tokens=spent.output_tokens,
    )
