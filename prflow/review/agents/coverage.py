"""The coverage gate: a budget-tier check of what the review left out, and gap dimensions.

Code works out which reviewable changed files no finished reviewer examined;
the gate decides which gaps matter and writes prompts for gap reviewers (the
one reviewer definition again). The outer loop runs at most twice.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from prflow.impact.llm_phase import model_text
from prflow.llm.messages import ToolSpec
from prflow.review.agents.finding_input import path_list
from prflow.review.agents.schemas import DIMENSION_ITEM
from prflow.review.anatomy import DiffStructure
from prflow.review.models import Dimension, FindingSource

MAX_COVERAGE_ITERATIONS = 2
MAX_GAPS_PER_ITERATION = 3

SUBMIT_COVERAGE = ToolSpec(
    name="submit_coverage",
    description="Submit whether the review covered the PR, and a dimension for each real gap.",
    input_schema={
        "type": "object",
        "properties": {
            "complete": {"type": "boolean"},
            "gaps": {"type": "array", "items": DIMENSION_ITEM},
        },
        "required": ["complete", "gaps"],
    },
)


def uncovered_files(reviewable: Sequence[str], examined: Collection[str]) -> list[str]:
    """Reviewable changed files no finished reviewer had as a target."""
    return [path for path in reviewable if path not in examined]


def coverage_message(
    *,
    pr_type: str,
    structure: DiffStructure,
    examined_by: Mapping[str, Sequence[str]],
    uncovered: Sequence[str],
) -> str:
    facts: dict[str, Any] = {
        "pr_type": pr_type,
        "clusters": [
            {"name": c.name, "files": c.files, "tests": c.tests} for c in structure.clusters
        ],
        "dimensions_run": {name: list(files) for name, files in examined_by.items()},
        "changed_files_no_reviewer_examined": list(uncovered),
        "most_depended_upon": [
            {"path": f.path, "dependents": f.dependents}
            for f in sorted(structure.files, key=lambda f: -f.dependents)[:10]
            if f.dependents
        ],
    }
    return (
        "Coverage of the review so far (JSON):\n"
        + json.dumps(facts, indent=1)
        + "\n\nDecide whether gaps remain, then call submit_coverage."
    )


def parse_gaps(
    submitted: dict[str, Any] | None, reviewable: Collection[str], iteration: int
) -> list[Dimension]:
    """Gap dimensions with reviewable targets, at most a few per iteration."""
    if not submitted or submitted.get("complete") is True:
        return []
    raw = submitted.get("gaps")
    gaps: list[Dimension] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        name = model_text(item.get("name") or "", 80)
        prompt = model_text(item.get("prompt") or "", 6_000)
        targets = [p for p in path_list(item.get("target_files"), limit=25) if p in reviewable]
        if not (name and prompt and targets):
            continue
        gaps.append(
            Dimension(
                id=f"gap{iteration}-{len(gaps) + 1}",
                name=name,
                prompt=prompt,
                target_files=targets,
                context_files=path_list(item.get("context_files"), limit=10),
                priority=2,
                source=FindingSource.gap_reviewer,
            )
        )
    return gaps[:MAX_GAPS_PER_ITERATION]
