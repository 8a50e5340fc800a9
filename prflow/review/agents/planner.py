"""Planning: a premium agent writes this PR's review dimensions; code holds it to the rules.

The planner crafts each reviewer's prompt. Code then keeps the plan honest:
target files must be reviewable changed files, context files must exist,
the number of dimensions stays within the depth's range (the least important
go first), uncovered clusters get a dimension, and a likely AI-generated PR
gets a check that every API it uses exists. When the planner could not
plan, a plan is built from the clusters in code and says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from prflow.impact.llm_phase import model_text
from prflow.llm.messages import ToolSpec
from prflow.review.agents.anatomy_reader import structure_brief
from prflow.review.agents.finding_input import path_list, text_list
from prflow.review.agents.prompts import load_prompt
from prflow.review.agents.schemas import DIMENSION_ITEM
from prflow.review.anatomy import ChangeCluster, DiffStructure
from prflow.review.depth_limits import ReviewSize, limits_for, planner_rules
from prflow.review.dimension_merge import merge_repeats
from prflow.review.models import (
    Dimension,
    IntakeResult,
    ReviewDepth,
    ReviewPlan,
    SemanticAnatomy,
)
from prflow.review.synthesis import AI_GENERATED_THRESHOLD

MAX_NAME_CHARS = 80
MAX_PROMPT_CHARS = 6_000
MAX_TARGETS = 25
MAX_CONTEXT = 10
MAX_HINTS = 8
HALLUCINATION_DIMENSION = "Do the APIs this code uses exist?"
SUBMIT_PLAN_NAME = "submit_review_plan"


def submit_plan_tool(depth: ReviewDepth | None = None, size: ReviewSize | None = None) -> ToolSpec:
    """The planner's submission tool; with ``depth``, its dimension count is in the schema
    (with ``size`` too, the count this change is sized to)."""
    bound: dict[str, Any] = {}
    description = "Submit the review plan: the dimensions to review and cross-reference hints."
    if depth is not None:
        low, high = limits_for(depth, size).dimensions
        bound = {"maxItems": high}
        description += (
            f" {low} to {high} dimensions ({depth.value} review), each with its own name and "
            "its own target files (repeats are merged; beyond the most important "
            f"{high} are dropped)."
        )
    return ToolSpec(
        name=SUBMIT_PLAN_NAME, description=description, input_schema=_plan_schema(bound)
    )


def _plan_schema(bound: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "dimensions": {
                "type": "array",
                **bound,
                "items": {
                    **DIMENSION_ITEM,
                    "properties": {
                        **DIMENSION_ITEM["properties"],
                        "priority": {"type": "integer", "minimum": 1, "maximum": 5},
                    },
                    "required": [*DIMENSION_ITEM["required"], "priority"],
                },
            },
            "cross_ref_hints": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["dimensions", "cross_ref_hints"],
    }


SUBMIT_PLAN = submit_plan_tool()
"""The tool as planners before the depth bounds saw it (its name is the terminal tool's)."""


def planner_system(depth: ReviewDepth, ai_generated: float, size: ReviewSize | None = None) -> str:
    dimension_rule = planner_rules(depth, size)
    ai_rule = ""
    if ai_generated > AI_GENERATED_THRESHOLD:
        ai_rule = (
            f"Code signals say this change is likely AI-generated ({ai_generated:.2f}). Add a "
            "dimension that checks that every module, function and option the code uses "
            "really exists, make the other prompts watch for needless abstraction, and ask "
            "whether the tests check behaviour rather than restating the implementation."
        )
    return (
        load_prompt("planner")
        .replace("{dimension_rule}", dimension_rule)
        .replace("{ai_rule}", ai_rule)
    )


def planner_message(
    title: str,
    intake: IntakeResult,
    structure: DiffStructure,
    semantic: SemanticAnatomy | None,
    reviewable: Sequence[str],
    not_reviewable: Sequence[str],
) -> str:
    sections = [
        f"Pull request: {title or '(untitled)'}",
        "Intake (JSON):\n"
        + json.dumps(intake.model_dump(mode="json", exclude={"ai_signals"}), indent=1),
        "Computed structure (JSON):\n" + json.dumps(structure_brief(structure), indent=1),
    ]
    if semantic is not None:
        sections.append(
            "Narrative (model-written):\n" + json.dumps(semantic.model_dump(), indent=1)
        )
    sections.append("Files reviewers may target:\n" + "\n".join(f"- {p}" for p in reviewable))
    if not_reviewable:
        sections.append(
            "Changed files reviewers will not read (binary, generated or too large):\n"
            + "\n".join(f"- {p}" for p in not_reviewable[:50])
        )
    sections.append("Plan the review and call submit_review_plan.")
    return "\n\n".join(sections)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:32] or "dimension"


def _dimension(
    index: int,
    name: str,
    prompt: str,
    targets: list[str],
    context: list[str],
    priority: int,
) -> Dimension:
    return Dimension(
        id=f"d{index}-{_slug(name)}",
        name=name,
        prompt=prompt,
        target_files=targets,
        context_files=context,
        priority=min(max(priority, 1), 5),
    )


def parse_dimensions(
    raw: object, reviewable: Collection[str], known_paths: Collection[str], notes: list[str]
) -> list[Dimension]:
    """Submitted dimensions whose targets are reviewable files; the rest noted and dropped."""
    if not isinstance(raw, list):
        return []
    dimensions: list[Dimension] = []
    for item in raw:
        if not isinstance(item, dict):
            continue
        name = model_text(item.get("name") or "", MAX_NAME_CHARS)
        prompt = model_text(item.get("prompt") or "", MAX_PROMPT_CHARS)
        targets = [p for p in path_list(item.get("target_files"), limit=100) if p in reviewable]
        context = [p for p in path_list(item.get("context_files"), limit=50) if p in known_paths]
        if not name or not prompt or not targets:
            notes.append(f"dropped dimension {name or '(unnamed)'!r}: no reviewable target files")
            continue
        priority = item.get("priority")
        dimensions.append(
            _dimension(
                len(dimensions) + 1,
                name,
                prompt,
                targets[:MAX_TARGETS],
                context[:MAX_CONTEXT],
                priority if isinstance(priority, int) else 3,
            )
        )
    return dimensions


def cluster_dimension(
    index: int, cluster: ChangeCluster, reviewable: Collection[str]
) -> Dimension | None:
    """A dimension built in code for one cluster: correctness of its changes and their tests."""
    targets = [p for p in [*cluster.files, *cluster.tests] if p in reviewable]
    if not targets:
        return None
    prompt = (
        f"Review the changes in {cluster.name} ({len(cluster.files)} files, "
        f"+{cluster.additions}/-{cluster.deletions} lines) for correctness: logic errors, "
        "unhandled errors and edge cases, broken callers, and whether the changed tests "
        "check the changed behaviour."
    )
    return _dimension(index, f"Changes in {cluster.name}", prompt, targets[:MAX_TARGETS], [], 3)


def ai_check_dimension(
    index: int, reviewable: Sequence[str], structure: DiffStructure
) -> Dimension | None:
    sources = [
        f.path for f in structure.files if f.path in reviewable and f.category.value == "source"
    ]
    if not sources:
        return None
    prompt = (
        "This change shows signs of AI-generated code. Check that every module, function, "
        "method, option and configuration key the new code uses really exists in this "
        "repository or in the versions of the libraries it declares; flag invented APIs, "
        "abstractions that add layers without need, and tests that restate the implementation "
        "instead of checking behaviour."
    )
    return _dimension(index, HALLUCINATION_DIMENSION, prompt, sources[:MAX_TARGETS], [], 1)


def finalize_plan(
    submitted: dict[str, Any] | None,
    *,
    structure: DiffStructure,
    reviewable: Sequence[str],
    known_paths: Collection[str],
    depth: ReviewDepth,
    intake: IntakeResult,
    planner_problem: str | None = None,
    size: ReviewSize | None = None,
) -> ReviewPlan:
    """The plan reviewers will run: the planner's, checked and completed by code, or code's own
    (as many dimensions as ``depth`` allows for a change of ``size``)."""
    notes: list[str] = []
    low, high = limits_for(depth, size).dimensions
    dimensions = parse_dimensions(
        (submitted or {}).get("dimensions"), set(reviewable), set(known_paths), notes
    )
    merged = merge_repeats(dimensions)
    if len(merged) < len(dimensions):
        notes.append(
            f"merged {len(dimensions)} dimensions into {len(merged)}: same name or same "
            "target files"
        )
        dimensions = merged
    origin = "model" if dimensions else "prflow"
    if not dimensions:
        notes.append(planner_problem or "the planner submitted no usable dimension")
    dimensions.sort(key=lambda d: d.priority)
    if len(dimensions) > high:
        sized = " sized to the change" if size is not None else ""
        notes.append(
            f"kept the {high} most important of {len(dimensions)} dimensions ({depth.value}{sized})"
        )
        dimensions = dimensions[:high]
    covered = {p for d in dimensions for p in d.target_files}
    for cluster in sorted(structure.clusters, key=lambda c: -(c.additions + c.deletions)):
        if len(dimensions) >= high or (len(dimensions) >= low and origin == "model"):
            break
        if covered & {*cluster.files, *cluster.tests}:
            continue
        added = cluster_dimension(len(dimensions) + 1, cluster, reviewable)
        if added is not None:
            dimensions.append(added)
            covered |= set(added.target_files)
            notes.append(f"added a dimension for the uncovered cluster {cluster.name}")
    ai_adjusted = False
    if intake.ai_generated > AI_GENERATED_THRESHOLD and not any(
        d.name == HALLUCINATION_DIMENSION or "exist" in d.prompt.lower() for d in dimensions
    ):
        check = ai_check_dimension(len(dimensions) + 1, reviewable, structure)
        if check is not None:
            dimensions = [*dimensions[: high - 1], check]
            ai_adjusted = True
            notes.append("added an API-existence check: code signals say likely AI-generated")
    hints = text_list((submitted or {}).get("cross_ref_hints"), limit=MAX_HINTS, chars=400)
    return ReviewPlan(
        dimensions=dimensions,
        cross_ref_hints=hints,
        ai_adjusted=ai_adjusted
        or (origin == "model" and intake.ai_generated > AI_GENERATED_THRESHOLD),
        origin=origin,
        notes=notes,
    )
