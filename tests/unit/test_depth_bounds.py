"""A review's bounds by depth: repeated dimensions merged, token shares, the planner told."""

from __future__ import annotations

import json

from prflow.agent.budget import BudgetCaps
from prflow.agent.plan import PhasePlan
from prflow.config import PriceRow
from prflow.review.agents.planner import finalize_plan, planner_system, submit_plan_tool
from prflow.review.anatomy import DiffStats, DiffStructure
from prflow.review.depth_limits import LIMITS, REVIEWER_PHASES, reviewer_tokens, token_capped
from prflow.review.dimension_merge import merge_repeats
from prflow.review.models import Dimension, IntakeResult, ReviewDepth
from prflow.review.questions import investigation_key
from prflow.review.run_models import MODEL_PHASES


def _dimension(number: int, name: str, targets: list[str], priority: int = 3) -> Dimension:
    return Dimension(
        id=f"d{number}",
        name=name,
        prompt=f"prompt {number}",
        target_files=targets,
        priority=priority,
    )


def test_same_name_or_same_targets_become_one_dimension() -> None:
    merged = merge_repeats(
        [
            _dimension(1, "Correctness", ["a.py"], priority=3),
            _dimension(2, "API", ["b.py"]),
            _dimension(3, " correctness ", ["c.py"], priority=1),
            _dimension(4, "Tests", ["b.py"]),
            _dimension(5, "Docs", ["d.md"]),
        ]
    )
    assert [d.id for d in merged] == ["d1", "d2", "d5"]
    assert merged[0].target_files == ["a.py", "c.py"]
    assert merged[0].priority == 1
    assert "prompt 1" in merged[0].prompt and "prompt 3" in merged[0].prompt
    assert merged[1].target_files == ["b.py"]
    assert "prompt 4" in merged[1].prompt


def test_a_repeat_joins_the_first_group_it_repeats_and_groups_never_fuse() -> None:
    merged = merge_repeats(
        [
            _dimension(1, "A", ["x.py"]),
            _dimension(2, "B", ["y.py"]),
            _dimension(3, "A", ["y.py"]),  # repeats A's name and B's targets: joins A only
            _dimension(4, "C", ["y.py"]),  # repeats targets of a member of A (and B): joins A
        ]
    )
    assert [(d.id, d.target_files) for d in merged] == [
        ("d1", ["x.py", "y.py"]),
        ("d2", ["y.py"]),
    ]


def test_the_plan_merges_repeats_before_trimming_to_the_depth() -> None:
    raw = [
        {"name": name, "prompt": f"Check {path} ({i}).", "target_files": [path], "priority": 2}
        for i, (name, path) in enumerate(
            [("Correctness", "a.py"), ("Correctness", "b.py"), ("API", "c.py"),
             ("Tests", "c.py"), ("Errors", "d.py"), ("Perf", "e.py")]
        )
    ]  # fmt: skip
    plan = finalize_plan(
        {"dimensions": raw, "cross_ref_hints": []},
        structure=DiffStructure(
            files=[],
            clusters=[],
            blast_radius=[],
            blast_radius_total=0,
            dependency_graph={},
            stats=DiffStats(files=0, additions=0, deletions=0),
        ),
        reviewable=["a.py", "b.py", "c.py", "d.py", "e.py"],
        known_paths=["a.py", "b.py", "c.py", "d.py", "e.py"],
        depth=ReviewDepth.quick,
        intake=IntakeResult(),
    )
    assert [d.name for d in plan.dimensions] == ["Correctness", "API", "Errors"]
    assert any("merged 6 dimensions into 4" in note for note in plan.notes)
    assert any("kept the 3 most important of 4" in note for note in plan.notes)


def test_the_planner_is_told_every_bound_it_is_held_to() -> None:
    for depth, limits in LIMITS.items():
        system = planner_system(depth, 0.0)
        low, high = limits.dimensions
        assert f"between {low} and {high} dimensions" in system
        assert f"at most {limits.reviewers} reviewers" in system
        assert f"{limits.prompt_tokens:,} prompt tokens" in system
        assert "same name or the same target files are merged" in system
        schema = submit_plan_tool(depth).input_schema
        assert schema["properties"]["dimensions"]["maxItems"] == high
        assert "merged" in submit_plan_tool(depth).description


def _plan(tokens: int) -> PhasePlan:
    price = PriceRow(input=3.0, output=15.0, cache_write=3.75, cache_read=0.3)
    caps = BudgetCaps(usd=1.0, tokens=tokens, iterations=10, wall_clock_seconds=300)
    return PhasePlan(model="m", price=price, caps=caps, task_queue="q")


def test_every_reviewer_slot_and_phase_share_fit_the_depth_budget() -> None:
    plans = {phase: _plan(10_000_000) for phase in MODEL_PHASES}
    for depth, limits in LIMITS.items():
        capped = token_capped(plans, depth)
        others = sum(p.caps.tokens for name, p in capped.items() if name not in REVIEWER_PHASES)
        reviewers = limits.reviewers * reviewer_tokens(depth)
        assert others + reviewers <= limits.prompt_tokens
        assert capped["reviewers"].caps.tokens == reviewer_tokens(depth)
    lower = token_capped({"anatomy": _plan(5_000)}, ReviewDepth.deep)
    assert lower["anatomy"].caps.tokens == 5_000  # a lower cap from settings stays


def test_an_investigation_is_its_question_and_targets_whoever_asks() -> None:
    first = investigation_key("Do callers  still work?", ["b.py", "a.py"])
    assert first == investigation_key("do callers still work?", ["a.py", "b.py"])
    assert first != investigation_key("Do callers still work?", ["a.py"])
    assert json.dumps(first)
