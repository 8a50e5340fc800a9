"""A review's bounds follow the size of the reviewable change, below the depth's ceilings."""

from __future__ import annotations

import itertools

import pytest

from prflow.changes import FileCategory, FileStatus
from prflow.review.agents.planner import finalize_plan, planner_system, submit_plan_tool
from prflow.review.anatomy import DiffStats, DiffStructure, FileChange
from prflow.review.depth_limits import (
    LIMITS,
    MIN_PLANNED,
    ReviewSize,
    limits_for,
    other_phase_tokens,
    review_size,
    reviewer_loads,
    reviewer_tokens,
)
from prflow.review.models import IntakeResult, ReviewDepth

SMALL = ReviewSize(code_files=4, code_lines=74)
"""A three-source-file fix with its test."""
MEDIUM = ReviewSize(code_files=10, code_lines=221, prose_files=11, prose_lines=207)
LARGE = ReviewSize(code_files=23, code_lines=605, prose_files=7, prose_lines=89)


def _structure(*files: tuple[str, FileCategory, int]) -> DiffStructure:
    return DiffStructure(
        files=[
            FileChange(
                path=path,
                status=FileStatus.modified,
                category=category,
                language="python",
                additions=lines,
                deletions=1,
                hunks=1,
            )
            for path, category, lines in files
        ],
        clusters=[],
        blast_radius=[],
        blast_radius_total=0,
        dependency_graph={},
        stats=DiffStats(files=len(files)),
    )


def test_the_size_is_the_reviewable_files_code_apart_from_the_rest() -> None:
    structure = _structure(
        ("pkg/a.py", FileCategory.source, 40),
        ("tests/test_a.py", FileCategory.test, 20),
        ("docs/a.md", FileCategory.doc, 9),
        ("pyproject.toml", FileCategory.config, 4),
        ("pkg/huge.py", FileCategory.source, 5_000),  # not reviewable (too large): not counted
    )
    size = review_size(structure, ["pkg/a.py", "tests/test_a.py", "docs/a.md", "pyproject.toml"])
    assert size == ReviewSize(code_files=2, code_lines=62, prose_files=2, prose_lines=15)


def test_prose_weighs_a_quarter_and_the_larger_of_lines_and_files_decides() -> None:
    depth = ReviewDepth.standard
    per = LIMITS[depth].lines_per_reviewer
    assert reviewer_loads(depth, ReviewSize(code_files=1, code_lines=3 * per)) == 3
    assert reviewer_loads(depth, ReviewSize(prose_files=1, prose_lines=4 * 3 * per)) == 3
    many = ReviewSize(code_files=4 * LIMITS[depth].files_per_reviewer, code_lines=10)
    assert reviewer_loads(depth, many) == 4
    assert reviewer_loads(depth, ReviewSize()) == 1


def test_no_size_keeps_the_depths_bounds_and_a_large_change_gets_them_all() -> None:
    for depth in ReviewDepth:
        assert limits_for(depth) == LIMITS[depth]
        assert limits_for(depth, LARGE) == LIMITS[depth]


def test_a_small_change_gets_two_reviewers_and_one_slot_beyond_the_plan() -> None:
    small = limits_for(ReviewDepth.standard, SMALL)
    assert small.dimensions == (MIN_PLANNED, MIN_PLANNED) == (2, 2)
    assert small.reviewers == 3
    assert small.deep_dives == 1
    assert small.prompt_tokens < LIMITS[ReviewDepth.standard].prompt_tokens
    medium = limits_for(ReviewDepth.standard, MEDIUM)
    assert medium.dimensions == (3, 3)
    assert medium.reviewers == 4
    assert limits_for(ReviewDepth.deep, SMALL).reviewers < LIMITS[ReviewDepth.deep].reviewers


@pytest.mark.parametrize("depth", list(ReviewDepth))
def test_bounds_grow_with_the_change_and_never_pass_the_depths(depth: ReviewDepth) -> None:
    full = LIMITS[depth]
    before = None
    for lines, files in itertools.product(range(0, 1_500, 37), (1, 3, 9, 30)):
        limits = limits_for(depth, ReviewSize(code_files=files, code_lines=lines))
        low, high = limits.dimensions
        assert 1 <= low <= high <= full.dimensions[1]
        assert limits.reviewers <= full.reviewers and limits.deep_dives <= full.deep_dives
        assert limits.reviewers > high or limits == full, "room for one beyond the plan"
        tokens = other_phase_tokens(depth) + limits.reviewers * reviewer_tokens(depth)
        assert limits.prompt_tokens == min(tokens, full.prompt_tokens)
        if files == 1 and before is not None:  # more lines, same files: never fewer
            assert limits.reviewers >= before.reviewers
            assert limits.dimensions[1] >= before.dimensions[1]
            assert limits.deep_dives >= before.deep_dives
        if files == 1:
            before = limits


def test_the_planner_is_told_this_changes_bounds_in_its_prompt_and_schema() -> None:
    limits = limits_for(ReviewDepth.standard, SMALL)
    system = planner_system(ReviewDepth.standard, 0.0, SMALL)
    assert "write exactly 2 dimensions" in system
    assert f"at most {limits.reviewers} reviewers in all" in system
    assert f"{limits.prompt_tokens:,} prompt tokens" in system
    assert "4 code files (+/-74 lines)" in system
    tool = submit_plan_tool(ReviewDepth.standard, SMALL)
    assert tool.input_schema["properties"]["dimensions"]["maxItems"] == 2
    assert "2 to 2 dimensions" in tool.description
    medium = planner_system(ReviewDepth.standard, 0.0, MEDIUM)
    assert "write exactly 3 dimensions" in medium
    large = planner_system(ReviewDepth.standard, 0.0, LARGE)
    assert "between 3 and 6 dimensions" in large and "at most 8 reviewers" in large


def test_the_plan_is_trimmed_to_the_sized_bound_never_refused() -> None:
    paths = ["a.py", "b.py", "c.py", "d.py"]
    raw = [
        {"name": f"Aspect {i}", "prompt": f"Check {p}.", "target_files": [p], "priority": i}
        for i, p in enumerate(paths, 1)
    ]
    structure = _structure(*((p, FileCategory.source, 10) for p in paths))
    plan = finalize_plan(
        {"dimensions": raw, "cross_ref_hints": []},
        structure=structure,
        reviewable=paths,
        known_paths=paths,
        depth=ReviewDepth.standard,
        intake=IntakeResult(),
        size=review_size(structure, paths),
    )
    assert [d.name for d in plan.dimensions] == ["Aspect 1", "Aspect 2"]
    assert any("kept the 2 most important of 4" in n and "sized" in n for n in plan.notes)
