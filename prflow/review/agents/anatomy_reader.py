"""Anatomy's semantic half: a mid-tier agent reads the change and tells its story.

The structural half (clusters, blast radius, dependency graph) is computed in
code and handed to the agent; what comes back is model-written text, kept
apart from the computed structure and labelled as such wherever it is shown.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from prflow.changes import FileCategory
from prflow.impact.llm_phase import model_text
from prflow.llm.messages import ToolSpec
from prflow.review.agents.finding_input import text_list
from prflow.review.anatomy import DiffStructure
from prflow.review.models import IntakeResult, PrMetadata, SemanticAnatomy

MAX_NARRATIVE_CHARS = 2_000
MAX_NOTES_CHARS = 2_000
MAX_ITEMS = 10
MAX_FILES_SHOWN = 150
SUBMIT_ANATOMY = ToolSpec(
    name="submit_anatomy",
    description="Submit your reading of the pull request. Call exactly once.",
    input_schema={
        "type": "object",
        "properties": {
            "narrative": {"type": "string"},
            "risk_surfaces": {"type": "array", "items": {"type": "string"}},
            "unrelated_changes": {"type": "array", "items": {"type": "string"}},
            "intent_gaps": {"type": "array", "items": {"type": "string"}},
            "context_notes": {"type": "string"},
        },
        "required": ["narrative", "risk_surfaces", "unrelated_changes", "intent_gaps"],
    },
)


def structure_brief(structure: DiffStructure, max_files: int = MAX_FILES_SHOWN) -> dict[str, Any]:
    """The computed structure in the compact form agents read."""
    return {
        "stats": structure.stats.model_dump(mode="json"),
        "files": [
            {
                "path": f.path,
                "status": f.status.value,
                "category": f.category.value,
                "+": f.additions,
                "-": f.deletions,
                "dependents": f.dependents,
            }
            for f in structure.files[:max_files]
        ],
        "clusters": [c.model_dump(mode="json") for c in structure.clusters],
        "blast_radius": structure.blast_radius[:40],
        "blast_radius_total": structure.blast_radius_total,
        "dependency_graph": dict(list(structure.dependency_graph.items())[:60]),
    }


def largest_source(structure: DiffStructure, readable: Sequence[str]) -> str | None:
    """The source file among ``readable`` with the most changed lines: the diff anatomy would
    read first (tests, docs and config tell less about what the change does)."""
    allowed = set(readable)
    files = [f for f in structure.files if f.path in allowed and f.category == FileCategory.source]
    if not files:
        return None
    return min(files, key=lambda f: (-(f.additions + f.deletions), f.path)).path


def anatomy_message(
    meta: PrMetadata,
    structure: DiffStructure,
    intake: IntakeResult,
    diff: tuple[str, str] | None = None,
) -> str:
    """The PR, its computed structure (every changed file) and, when given, the first page of
    the diff of its largest source change (``(path, page)``, as ``git_diff`` shows it)."""
    brief = structure_brief(structure)
    shown = ""
    if diff is not None:
        path, page = diff
        shown = (
            f"Diff of the largest source change, {path} (first page, as git_diff gives "
            f"it):\n```diff\n{page}\n```\n\n"
        )
    return (
        f"Pull request: {meta.title or '(untitled)'}\n\n"
        f"Description:\n{meta.body[:3_000] or '(empty)'}\n\n"
        f"Intake: {intake.pr_type}, {intake.complexity}; risk signals: "
        f"{'; '.join(intake.risk_signals) or 'none named'}\n\n"
        f"Computed structure (JSON):\n{json.dumps(brief, indent=1)}\n\n"
        f"{shown}"
        "Read what you need, then call submit_anatomy."
    )


def parse_anatomy(submitted: dict[str, Any] | None) -> SemanticAnatomy | None:
    if not submitted or not isinstance(submitted.get("narrative"), str):
        return None
    return SemanticAnatomy(
        narrative=model_text(submitted["narrative"], MAX_NARRATIVE_CHARS),
        risk_surfaces=text_list(submitted.get("risk_surfaces"), limit=MAX_ITEMS, chars=300),
        unrelated_changes=text_list(submitted.get("unrelated_changes"), limit=MAX_ITEMS, chars=300),
        intent_gaps=text_list(submitted.get("intent_gaps"), limit=MAX_ITEMS, chars=300),
        context_notes=model_text(submitted.get("context_notes") or "", MAX_NOTES_CHARS),
    )
