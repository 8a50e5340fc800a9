"""Intake: classify the PR from its metadata (a budget-tier call), escalating when unsure.

Code classifies first, from the change's structure alone; that answer stands
in static mode and whenever the model's answer is unusable. The model's
answer adds the PR type, areas and risk signals it reads from the PR's own
words. The AI-generated likelihood is never the model's: it comes from code
signals (:mod:`prflow.review.signals`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from prflow.changes import FileCategory
from prflow.llm.messages import ToolSpec
from prflow.review.agents.finding_input import text_list
from prflow.review.anatomy import DiffStructure
from prflow.review.models import AiSignal, IntakeResult, PrMetadata

PR_TYPES = ("feature", "bugfix", "refactor", "docs", "infra", "test", "mixed")
COMPLEXITIES = ("trivial", "standard", "complex", "massive")
MAX_BODY_CHARS = 4_000
MAX_COMMITS = 30
MAX_LIST_ITEMS = 10

SUBMIT_INTAKE = ToolSpec(
    name="submit_intake",
    description="Submit the classification of the pull request. Call exactly once.",
    input_schema={
        "type": "object",
        "properties": {
            "pr_type": {"type": "string", "enum": list(PR_TYPES)},
            "complexity": {"type": "string", "enum": list(COMPLEXITIES)},
            "areas_touched": {"type": "array", "items": {"type": "string"}},
            "risk_signals": {"type": "array", "items": {"type": "string"}},
            "confident": {"type": "boolean"},
        },
        "required": ["pr_type", "complexity", "areas_touched", "risk_signals", "confident"],
    },
)

_BUGFIX = re.compile(r"^\s*(fix|bug|hotfix|patch)\b|\bfix(es|ed)?\b", re.IGNORECASE)
_REFACTOR = re.compile(r"^\s*(refactor|cleanup|clean up|rename|move)\b", re.IGNORECASE)


def code_intake(
    structure: DiffStructure, meta: PrMetadata, ai: float, signals: list[AiSignal]
) -> IntakeResult:
    """The classification code can make alone: type from file kinds and words, size bands."""
    stats = structure.stats
    categories = {f.category for f in structure.files}
    words = " ".join([meta.title, *meta.commits[:5]])
    if categories == {FileCategory.doc}:
        pr_type = "docs"
    elif categories == {FileCategory.test}:
        pr_type = "test"
    elif categories <= {FileCategory.config, FileCategory.other}:
        pr_type = "infra"
    elif _BUGFIX.search(words):
        pr_type = "bugfix"
    elif _REFACTOR.search(words):
        pr_type = "refactor"
    else:
        pr_type = "feature" if any(f.status.value == "added" for f in structure.files) else "mixed"
    changed = stats.additions + stats.deletions
    if changed < 20 and stats.files <= 2:
        complexity = "trivial"
    elif changed < 400 and stats.files <= 15:
        complexity = "standard"
    elif changed < 1_500 and stats.files <= 50:
        complexity = "complex"
    else:
        complexity = "massive"
    return IntakeResult(
        pr_type=pr_type,
        complexity=complexity,
        languages=stats.languages,
        areas_touched=[c.name for c in structure.clusters][:MAX_LIST_ITEMS],
        risk_signals=[],
        ai_generated=ai,
        ai_signals=signals,
        confident=True,
        origin="prflow",
    )


def intake_message(meta: PrMetadata, structure: DiffStructure, code: IntakeResult) -> str:
    """The first message of the intake call: metadata and statistics only (no code)."""
    body = meta.body[:MAX_BODY_CHARS] + (
        "\n[... description cut ...]" if len(meta.body) > MAX_BODY_CHARS else ""
    )
    stats = structure.stats
    facts: dict[str, Any] = {
        "files": stats.files,
        "additions": stats.additions,
        "deletions": stats.deletions,
        "files_by_category": stats.by_category,
        "languages": stats.languages,
        "clusters": [
            {"name": c.name, "files": len(c.files), "tests": len(c.tests)}
            for c in structure.clusters[:20]
        ],
        "blast_radius_files": structure.blast_radius_total,
        "code_classification": {"pr_type": code.pr_type, "complexity": code.complexity},
    }
    commits = "\n".join(f"- {subject}" for subject in meta.commits[:MAX_COMMITS]) or "(none)"
    labels = ", ".join(meta.labels) or "(none)"
    return (
        f"Title: {meta.title or '(none)'}\nLabels: {labels}\n"
        f"Author: {meta.author or '(unknown)'}\n\n"
        f"Description:\n{body or '(empty)'}\n\nCommits:\n{commits}\n\n"
        f"Change statistics (JSON):\n{json.dumps(facts, indent=1)}\n\n"
        "Classify the pull request and call submit_intake."
    )


def parse_intake(
    submitted: dict[str, Any] | None, code: IntakeResult, *, escalated: bool
) -> IntakeResult | None:
    """The model's classification merged over code's; None when it submitted nothing usable."""
    if not submitted:
        return None
    pr_type = submitted.get("pr_type")
    complexity = submitted.get("complexity")
    if pr_type not in PR_TYPES or complexity not in COMPLEXITIES:
        return None
    return code.model_copy(
        update={
            "pr_type": pr_type,
            "complexity": complexity,
            "areas_touched": text_list(
                submitted.get("areas_touched"), limit=MAX_LIST_ITEMS, chars=60
            )
            or code.areas_touched,
            "risk_signals": text_list(
                submitted.get("risk_signals"), limit=MAX_LIST_ITEMS, chars=200
            ),
            "confident": submitted.get("confident") is not False,
            "escalated": escalated,
            "origin": "model",
        }
    )
