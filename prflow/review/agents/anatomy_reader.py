"""Anatomy's semantic half: a mid-tier agent reads the change and tells its story.

The structural half (clusters, blast radius, dependency graph) is computed in
code and handed to the agent; what comes back is model-written text, kept
apart from the computed structure and labelled as such wherever it is shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from prflow.impact.llm_phase import model_text
from prflow.llm.messages import ToolSpec
from prflow.review.agents.finding_input import text_list
from prflow.review.anatomy import DiffStructure
from prflow.review.models import IntakeResult, PrMetadata, SemanticAnatomy

MAX_NARRATIVE_CHARS = 2_000
MAX_NOTES_CHARS = 2_000
MAX_ITEMS = 10
MAX_FILES_SHOWN = 150
MAX_DIFF_CHARS = 24_000
"""The diffs of the largest changes anatomy is shown at once, whole files only, together."""
MAX_DIFFS_TRIED = 8

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


def largest_changes(
    structure: DiffStructure, reviewable: Sequence[str], limit: int = MAX_DIFFS_TRIED
) -> list[str]:
    """The reviewable files with the most changed lines, largest first."""
    allowed = set(reviewable)
    files = [f for f in structure.files if f.path in allowed]
    files.sort(key=lambda f: (-(f.additions + f.deletions), f.path))
    return [f.path for f in files[:limit]]


def diffs_within(diffs: Iterable[tuple[str, str]], budget: int = MAX_DIFF_CHARS) -> dict[str, str]:
    """Whole diffs, in order, while they fit ``budget`` together (one that does not is left
    for the agent to read; a smaller one after it may still fit)."""
    kept: dict[str, str] = {}
    used = 0
    for path, diff in diffs:
        if diff and used + len(diff) <= budget:
            kept[path] = diff
            used += len(diff)
    return kept


def anatomy_message(
    meta: PrMetadata,
    structure: DiffStructure,
    intake: IntakeResult,
    diffs: Mapping[str, str] | None = None,
) -> str:
    """The PR, its computed structure (every changed file), and the diffs of its largest
    changes as far as they fit, so the agent reads the rest only when it needs them."""
    brief = structure_brief(structure)
    shown = ""
    if diffs:
        body = "\n".join(diffs.values())
        shown = (
            f"Diffs of the largest changes ({', '.join(diffs)}; other files with "
            f"git_diff):\n```diff\n{body}\n```\n\n"
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
